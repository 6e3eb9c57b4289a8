/* depth.c: a known call path for the sampler's stack walks under uftrace
 * (tests/blame_uftrace.sh): main -> outer -> middle -> inner, which spends the CPU time on a
 * heap block. Each level is a real call (noinline) that uftrace hooks, at -O0 and -O2 alike. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static double inner(double *v, long n, long it)
{
	double s = 0;
	for (long k = 0; k < it; k++)
		for (long i = 0; i < n; i++) {
			v[i] = v[i] * 0.999 + 1e-3 * (double)(i + k);
			s += v[i];
		}
	return s;
}

__attribute__((noinline)) static double middle(double *v, long n, long it)
{
	double s = inner(v, n, it);
	__asm__ volatile("" ::: "memory"); /* no tail call: middle keeps its frame */
	return s + 1;
}

__attribute__((noinline)) static double outer(double *v, long n, long it)
{
	double s = middle(v, n, it);
	__asm__ volatile("" ::: "memory");
	return s + 1;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	/* from the arguments, so that -O2 makes no constant-propagated clones (inner.constprop.0) */
	long it = argc > 1 ? atol(argv[1]) : 6000, n = argc > 2 ? atol(argv[2]) : 100000;
	double *v = malloc((size_t)n * sizeof *v);
	if (!v)
		return 1;
	for (long i = 0; i < n; i++)
		v[i] = (double)i;
	double s = 0;
	for (int r = 0; r < 4; r++)
		s += outer(v, n, it / 4);
	MPI_Finalize();
	printf("%g\n", s);
	free(v);
	return 0;
}
