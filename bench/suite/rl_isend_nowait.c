/* Ring shift with non-blocking sends. Kind: request lifecycle, a request never completed
 * (MPI Bugs Initiative "Request Lifecycle"; MPI-CorrBench missing wait).
 * ./rl_isend_nowait 1: rank 2 drops its send request (no MPI_Wait) and overwrites it in the
 * next step. ./rl_isend_nowait 0: normal. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int rank, size, sloppy;
	MPI_Request rq;
	double out[32], in[32], acc = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	sloppy = argc > 1 && atoi(argv[1]) && rank == 2;
	for (int i = 0; i < 32; i++)
		out[i] = rank;
	for (int step = 0; step < 6; step++) {
		MPI_Isend(out, 32, MPI_DOUBLE, (rank + 1) % size, step, MPI_COMM_WORLD, &rq);
		MPI_Recv(in, 32, MPI_DOUBLE, (rank + size - 1) % size, step, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
		if (!sloppy)
			MPI_Wait(&rq, MPI_STATUS_IGNORE);
		for (int i = 0; i < 32; i++) {
			acc += in[i];
			out[i] = in[i] + 1;
		}
	}
	double g;
	MPI_Allreduce(&acc, &g, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		printf("%.1f\n", g);
	MPI_Finalize();
	return 0;
}
