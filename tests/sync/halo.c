/* halo.c: a one-dimensional halo exchange whose edge ranks send to and receive from
 * MPI_PROC_NULL, then rank 0 gathers one value from every other rank with an MPI_ANY_SOURCE,
 * MPI_ANY_TAG receive; for tests/mpi_constants.sh. With "hang", rank 0 waits for one value
 * more than is sent. */
#include <mpi.h>
#include <string.h>

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int hang = argc > 1 && !strcmp(argv[1], "hang");
	int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
	int right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
	double u[10] = { 0 };
	u[1] = u[8] = rank;
	for (int it = 0; it < 3; it++) {
		/* to the right: even ranks send first, odd ones receive first (no deadlock
		 * whatever the message protocol) */
		if (rank % 2 == 0) {
			MPI_Send(&u[8], 1, MPI_DOUBLE, right, 1, MPI_COMM_WORLD);
			MPI_Recv(&u[0], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(&u[0], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Send(&u[8], 1, MPI_DOUBLE, right, 1, MPI_COMM_WORLD);
		}
		/* to the left */
		MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 2, &u[9], 1, MPI_DOUBLE, right, 2,
			     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		for (int i = 1; i < 9; i++)
			u[i] = 0.5 * u[i] + 0.25 * (u[i - 1] + u[i + 1]);
	}
	if (rank == 0) {
		double x;
		for (int i = 1; i < size + hang; i++)
			MPI_Recv(&x, 1, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
	} else {
		MPI_Send(&u[4], 1, MPI_DOUBLE, 0, 3 + rank, MPI_COMM_WORLD);
	}
	MPI_Finalize();
	return 0;
}
