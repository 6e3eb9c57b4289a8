/* ompshares.c: an OpenMP loop whose work splits between three variables in a known proportion
 * (tests/blame_omp_shares.sh). '#pragma omp parallel for' does, per element, 3K units of work
 * into a, 2K into b and K into c, a unit being the same statement on each (a multiply and an
 * add that depend on the last unit's, so each unit costs the latency of the two); so a takes
 * 3/6 of the loop's blame, b 2/6 and c 1/6, and the loop indices none. K is large: the
 * processor runs the start of each inner loop in the shadow of the one before (out of order, a
 * few dozen units), which a short loop would make a visible part of its cost.
 *   ompshares [PASSES [N]]   the loop over N elements, PASSES times (6, 10000) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define K 1000

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	long passes = argc > 1 ? atol(argv[1]) : 6, n = argc > 2 ? atol(argv[2]) : 10000;
	double *a = calloc((size_t)n, sizeof *a);
	double *b = calloc((size_t)n, sizeof *b);
	double *c = calloc((size_t)n, sizeof *c);
	if (!a || !b || !c)
		return 1;
	for (long p = 0; p < passes; p++) {
#pragma omp parallel for
		for (long i = 0; i < n; i++) {
			for (int k = 0; k < 3 * K; k++)
				a[i] = a[i] * 0.999 + 1e-3;
			for (int k = 0; k < 2 * K; k++)
				b[i] = b[i] * 0.999 + 1e-3;
			for (int k = 0; k < K; k++)
				c[i] = c[i] * 0.999 + 1e-3;
		}
	}
	MPI_Finalize();
	printf("%g %g %g\n", a[n - 1], b[n - 1], c[n - 1]);
	free(a);
	free(b);
	free(c);
	return 0;
}
