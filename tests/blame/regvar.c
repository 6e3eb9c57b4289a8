/* regvar.c: pointer variables that an optimized build keeps in registers, for variable blame
 * (tests/blame_register.sh). At -O2 -g scale's v lives in a register (rdi) where its loop
 * runs, main keeps x and y in callee-saved registers across the call (so the loop's frame
 * still holds y, which it never touches), and main's z, scale's value, is in rax at the call's
 * return: a caller-saved register of a caller's frame, which the sampler does not have. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static double *scale(double *v, long n, long passes)
{
	for (long p = 0; p < passes; p++)
		for (long i = 0; i < n; i++)
			v[i] = v[i] * 0.999 + 1e-3;
	return v + n / 2;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	long n = 100000, passes = argc > 1 ? atol(argv[1]) : 2000;
	double *x = malloc((size_t)n * sizeof *x); /* SITE_X */
	double *y = malloc((size_t)n * sizeof *y); /* SITE_Y */
	if (!x || !y)
		return 1;
	for (long i = 0; i < n; i++) {
		x[i] = (double)i;
		y[i] = (double)-i;
	}
	double *z = scale(x, n, passes);
	printf("%g %g %g\n", x[n - 1], y[n - 1], *z);
	free(x);
	free(y);
	MPI_Finalize();
	return 0;
}
