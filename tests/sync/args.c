/* args.c: a program started with other arguments, for tests/rank_args.sh. Every rank parses
 * its arguments (-n N points, -i N iterations, -v, --bug R), then iterates a relaxation and an
 * MPI_Allreduce. With --bug R, rank R mirrors its edge instead of relaxing from the third
 * iteration on: the same MPI calls, another function of the program. With --slow R, rank R's
 * relaxation sweeps its points ten times over: the same calls, ten times the work. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int sweeps = 1;

__attribute__((noinline)) static double relax(double *u, int n)
{
	double s = 0;
	for (int k = 0; k < sweeps; k++)
		for (int i = 1; i < n - 1; i++) {
			u[i] = 0.5 * u[i] + 0.25 * (u[i - 1] + u[i + 1]);
			s += u[i];
		}
	return s;
}

__attribute__((noinline)) static double mirror(double *u, int n)
{
	u[0] = u[n - 1];
	return relax(u, n);
}

int main(int argc, char **argv)
{
	int rank, n = 1000, iters = 6, bug = -1, slow = -1, verbose = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-n") && i + 1 < argc)
			n = (int)strtol(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "-i") && i + 1 < argc)
			iters = (int)strtol(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--bug") && i + 1 < argc)
			bug = (int)strtol(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--slow") && i + 1 < argc)
			slow = (int)strtol(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "-v"))
			verbose = 1;
	}
	if (rank == slow)
		sweeps = 10;
	double *u = calloc((size_t)n, sizeof *u);
	if (!u || n < 3)
		MPI_Abort(MPI_COMM_WORLD, 1);
	for (int i = 0; i < n; i++)
		u[i] = rank + i % 7;
	double all = 0;
	for (int it = 0; it < iters; it++) {
		double s = rank == bug && it >= 2 ? mirror(u, n) : relax(u, n);
		MPI_Allreduce(&s, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	}
	if (verbose && rank == 0)
		printf("%g\n", all);
	free(u);
	MPI_Finalize();
	return 0;
}
