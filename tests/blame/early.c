/* early.c: a program that works before MPI_Init (reading its input, say) and is killed there
 * (tests/sample_early_kill.sh): with "wait" it prints "waiting" after its computation and
 * waits for the signal, before its first MPI call. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((noinline)) static void fill(double *v, long n, long passes)
{
	for (long p = 0; p < passes; p++)
		for (long i = 0; i < n; i++)
			v[i] = v[i] * 0.5 + (double)(i + p) * 1e-9;
}

int main(int argc, char **argv)
{
	long n = 100000;
	double *v = calloc((size_t)n, sizeof *v);
	if (!v)
		return 1;
	fill(v, n, 3000);
	if (argc > 1 && !strcmp(argv[1], "wait")) {
		printf("waiting\n");
		fflush(stdout);
		pause();
	}
	MPI_Init(&argc, &argv);
	MPI_Finalize();
	printf("%g\n", v[n - 1]);
	free(v);
	return 0;
}
