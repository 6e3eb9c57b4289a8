/* ompblame.c: an OpenMP loop for variable blame (tests/blame_omp.sh): main allocates y and x,
 * and `#pragma omp parallel for` computes y from x; the loop's time goes to y, the variable
 * written, not to x it reads nor to the loop index; the OpenMP runtime's own blocks (its team)
 * are not the program's. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	long n = 200000, passes = argc > 1 ? atol(argv[1]) : 300;
	double *x = malloc((size_t)n * sizeof *x);
	double *y = malloc((size_t)n * sizeof *y);
	if (!x || !y)
		return 1;
	for (long i = 0; i < n; i++)
		x[i] = (double)i / (double)n;
	for (long p = 0; p < passes; p++) {
#pragma omp parallel for
		for (long i = 0; i < n; i++)
			y[i] = sqrt(x[i] + (double)p) * 0.5 + y[i] * 1e-3;
	}
	MPI_Finalize();
	printf("%g\n", y[n - 1]);
	free(x);
	free(y);
	return 0;
}
