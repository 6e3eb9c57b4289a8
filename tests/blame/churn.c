/* churn.c: many small allocations and some computation, for a sampler whose disk fills up
 * (tests/sample_full.sh): every malloc and free is a record, so the sample file outgrows a
 * small filesystem long before the program ends. Prints the checksum and exits 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	long n = argc > 1 ? atol(argv[1]) : 200000;
	double sum = 0;
	for (long i = 0; i < n; i++) {
		double *p = malloc(64 * sizeof *p);
		if (!p)
			return 1;
		for (int j = 0; j < 64; j++)
			p[j] = (double)(i + j);
		sum += p[i % 64];
		free(p);
	}
	MPI_Finalize();
	printf("sum %.0f\n", sum);
	return 0;
}
