/* optimized.c: a function whose structure lives in registers at -O2 (tests/sample_optimized.sh):
 * work's p has no stack location in the debug information there, so no sample can point to
 * it, and the import says so; at -O0 it is on the stack. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
struct pair { double lo, hi; };
__attribute__((noinline)) static double work(const double *v, long n, long passes)
{
	struct pair p = { 0, 0 };
	double acc[4] = { 0, 0, 0, 0 };
	for (long k = 0; k < passes; k++)
		for (long i = 0; i < n; i++) {
			p.lo += v[i] * 0.5;
			p.hi += v[i] * 1.5;
			acc[i & 3] += v[i];
		}
	return p.lo + p.hi + acc[0] + acc[1] + acc[2] + acc[3];
}
int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	long n = 100000;
	double *v = malloc(n * sizeof *v);
	for (long i = 0; i < n; i++) v[i] = i * 1e-6;
	printf("%g\n", work(v, n, argc > 1 ? atol(argv[1]) : 3000));
	MPI_Finalize();
	return 0;
}
