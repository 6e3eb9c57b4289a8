/* Histogram merge: every rank counts values into bins and the bins are summed with
 * MPI_Allreduce. Kind: parameter matching, datatype differs between ranks (MPI Bugs
 * Initiative "Parameter Matching"; MPI-CorrBench "ArgMismatch", wrong type).
 * ./pm_allreduce_type 1: rank 2 passes MPI_FLOAT for its int bins (same size, wrong type). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define NBINS 16

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int r, np;
	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	MPI_Comm_size(MPI_COMM_WORLD, &np);
	int wrong = argc > 1 ? atoi(argv[1]) : 0;
	int bins[NBINS] = {0}, all[NBINS];
	unsigned seed = 17u * (r + 1);
	for (int i = 0; i < 20000; i++) {
		seed = seed * 1103515245u + 12345u;
		bins[(seed >> 16) % NBINS]++;
	}
	MPI_Datatype t = (wrong && r == 2) ? MPI_FLOAT : MPI_INT;
	MPI_Allreduce(bins, all, NBINS, t, MPI_SUM, MPI_COMM_WORLD);
	long tot = 0;
	for (int b = 0; b < NBINS; b++)
		tot += all[b];
	MPI_Bcast(&tot, 1, MPI_LONG, 0, MPI_COMM_WORLD);
	if (r == 0)
		printf("%ld samples in all (expected %d)\n", tot, 20000 * np);
	MPI_Finalize();
	return 0;
}
