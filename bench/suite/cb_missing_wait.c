/* Rank 3 collects one value from each other rank per round with MPI_Irecv, then sums them.
 * Kind: missing wait (MPI-CorrBench "missing wait"; MPI Bugs Initiative "Request
 * Lifecycle").
 * ./cb_missing_wait 1: rank 3 sums without its MPI_Waitall (it tests one request instead)
 * and reuses the requests next round. ./cb_missing_wait 0: normal. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int rank, size, nowait;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	nowait = argc > 1 && atoi(argv[1]) == 1;
	double sum = 0;
	for (int round = 0; round < 4; round++) {
		if (rank == 3) {
			double vals[8] = { 0 };
			MPI_Request rq[8];
			for (int src = 0; src < 3; src++)
				MPI_Irecv(&vals[src], 1, MPI_DOUBLE, src, round, MPI_COMM_WORLD, &rq[src]);
			if (nowait) {
				int flag;
				MPI_Test(&rq[0], &flag, MPI_STATUS_IGNORE);
			} else
				MPI_Waitall(3, rq, MPI_STATUSES_IGNORE);
			for (int src = 0; src < 3; src++)
				sum += vals[src];
		} else if (rank < 3) {
			double v = rank + round * 0.25;
			MPI_Send(&v, 1, MPI_DOUBLE, 3, round, MPI_COMM_WORLD);
		}
	}
	MPI_Bcast(&sum, 1, MPI_DOUBLE, 3, MPI_COMM_WORLD);
	if (rank == 0)
		printf("sum %.2f\n", sum);
	MPI_Finalize();
	return 0;
}
