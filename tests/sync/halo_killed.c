/* halo_killed.c: a ring halo exchange with one tag, as stencil codes make it: each iteration every
 * rank posts receives from both neighbours, sends to both (small messages, which the MPI
 * library completes at once) and waits for the four; then it sends a token to the right
 * without waiting for the send (MPI_Request_free) and receives the left one's. After ITERS
 * iterations rank 0 receives a message nobody sends and the others wait in a barrier: the
 * program hangs, and prints "R stuck" for each rank R first. For tests/sync_halo.sh.
 *
 *   halo ITERS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	long iters = argc > 1 ? atol(argv[1]) : 1000;
	int left = (rank + size - 1) % size, right = (rank + 1) % size;
	double cell[4] = { rank, rank, 0, 0 };
	for (long i = 0; i < iters; i++) {
		MPI_Request q[4];
		MPI_Irecv(&cell[2], 1, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &q[0]);
		MPI_Irecv(&cell[3], 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &q[1]);
		MPI_Isend(&cell[0], 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &q[2]);
		MPI_Isend(&cell[1], 1, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &q[3]);
		MPI_Waitall(4, q, MPI_STATUSES_IGNORE);
		static const int token = 1;
		int got;
		MPI_Request f;
		MPI_Isend(&token, 1, MPI_INT, right, 1, MPI_COMM_WORLD, &f);
		MPI_Request_free(&f);
		MPI_Recv(&got, 1, MPI_INT, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		cell[0] = cell[1] = (cell[2] + cell[3]) / 2;
	}
	printf("%d stuck\n", rank);
	fflush(stdout);
	if (rank == 0) {
		double x;
		MPI_Recv(&x, 1, MPI_DOUBLE, 1, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	} else {
		MPI_Barrier(MPI_COMM_WORLD);
	}
	MPI_Finalize();
	return 0;
}
