/* Each rank sums its part of a vector with an OpenMP loop and the partial sums are combined
 * with MPI_Allreduce.
 * Kind: hybrid MPI+OpenMP, a data race in an OpenMP region whose result feeds an MPI call
 * (the hybrid race class; MPI-CorrBench concurrency).
 * Normal: ./hy_race_sum -n 200000   Faulty: ./hy_race_sum -n 200000 -u (the "unsafe fast
 * path" option a user tries: on rank 3 the loop runs without its reduction clause; the
 * threads race on the shared sum). OMP_NUM_THREADS=2. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double partial_sum(const double *v, long n, int unsafe)
{
	double s = 0;
	if (unsafe) {
#pragma omp parallel for
		for (long i = 0; i < n; i++)
			s += v[i];
	} else {
#pragma omp parallel for reduction(+:s)
		for (long i = 0; i < n; i++)
			s += v[i];
	}
	return s;
}

int main(int argc, char **argv)
{
	long n = 1000;
	int unsafe = 0, rank;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-n") && i + 1 < argc)
			n = strtol(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "-u"))
			unsafe = 1;
	}
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	double *v = malloc(n * sizeof *v);
	for (long i = 0; i < n; i++)
		v[i] = 1.0 + (i % 7);
	double s = partial_sum(v, n, unsafe && rank == 3), g;
	MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		printf("sum %.1f\n", g);
	free(v);
	MPI_Finalize();
	return 0;
}
