/* Pipeline of stages 0 -> 1 -> 2 -> 3; each message is tagged with its batch number.
 * Kind: wrong tag argument (MPI-CorrBench "ArgError"/"ArgMismatch", tag; MPI Bugs
 * Initiative "Parameter Matching").
 * pipeline 1: rank 1 tags batch 3 as batch 4 (batch + 1); rank 2 waits for tag 3 forever. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define BATCHES 5
#define LEN 100

static void stage(double *d, int n, int rank)
{
	for (int i = 0; i < n; i++)
		d[i] = d[i] * 1.01 + rank;
}

int main(int argc, char **argv)
{
	int rank, size, bug = argc > 1 ? atoi(argv[1]) : 0;
	double d[LEN];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (int b = 0; b < BATCHES; b++) {
		if (rank == 0)
			for (int i = 0; i < LEN; i++)
				d[i] = b + i;
		else
			MPI_Recv(d, LEN, MPI_DOUBLE, rank - 1, b, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		stage(d, LEN, rank);
		if (rank < size - 1) {
			int tag = (bug && rank == 1 && b == 3) ? b + 1 : b;
			MPI_Send(d, LEN, MPI_DOUBLE, rank + 1, tag, MPI_COMM_WORLD);
		} else
			printf("batch %d: %.2f\n", b, d[LEN - 1]);
	}
	MPI_Finalize();
	return 0;
}
