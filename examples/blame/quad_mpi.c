/* quad_mpi.c: a quadrature program of the QUAD_MPI kind, the first example of variable blame
 * (difftrace blame). Rank 0 makes the input (the sample points, as if read from a file) and
 * broadcasts it; every rank sums the integrand over its share of the points, with more work
 * on higher ranks (a share growing as the cube of the rank), so the lower ranks wait in the
 * reduction; rank 0 prints the result.
 *
 *   mpicc -pg -g -O2 -o quad_mpi quad_mpi.c -lm
 *   mpirun -np 4 difftrace-record --sample -- ./quad_mpi [POINTS [REPEAT]]
 *
 * (or with --sync-only, without uftrace: then the run's time is the program's alone).
 *
 * The blame should go to `x` (the points: read on rank 0, broadcast, then read by the sum on
 * every rank) and to `quad` (the reduced result, where the lower ranks wait); with the blame
 * index, the sums too go to `quad`: the local sum `quad_local` is a temporary that only feeds
 * it, through MPI_Reduce. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int dim_num = 1; /* a global: the dimension, broadcast with the input */
static double quad;      /* the reduced result (rank 0) */

__attribute__((noinline)) static double f(double v)
{
	return 50.0 / (M_PI * (2500.0 * v * v + 1.0));
}

/* The input: on rank 0 only, a slow "read" of the points. */
__attribute__((noinline)) static void read_points(double *x, long n)
{
	for (long i = 0; i < n; i++) {
		double v = (double)i / (double)n;
		for (int k = 0; k < 40; k++)
			v = v * 0.999 + 0.001 * sin(v + k);
		x[i] = v;
	}
}

__attribute__((noinline)) static double sum_points(const double *x, long lo, long hi, int repeat)
{
	double s = 0;
	for (int r = 0; r < repeat; r++)
		for (long i = lo; i < hi; i++)
			s += f(x[i]);
	return s / repeat;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 400000;
	int repeat = argc > 2 ? atoi(argv[2]) : 40;
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	double *x = malloc((size_t)n * sizeof *x);
	if (!x)
		MPI_Abort(MPI_COMM_WORLD, 1);
	if (rank == 0)
		read_points(x, n);
	MPI_Bcast(&dim_num, 1, MPI_INT, 0, MPI_COMM_WORLD);
	MPI_Bcast(x, (int)n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	/* rank r gets a share proportional to (r + 1)^3: the sum of the first k cubes is
	 * (k (k + 1) / 2)^2, so rank r sums from S(r) to S(r + 1), and the lower ranks wait in
	 * the reduction for long, even on a loaded machine that runs some ranks slower */
	long tr = (long)size * (size + 1) / 2, t0 = (long)rank * (rank + 1) / 2,
	     t1 = (long)(rank + 1) * (rank + 2) / 2;
	long lo = (long)((double)n * (double)(t0 * t0) / (double)(tr * tr)),
	     hi = (long)((double)n * (double)(t1 * t1) / (double)(tr * tr));
	double quad_local = sum_points(x, lo, hi, repeat * dim_num) * (1.0 / (double)n);
	MPI_Reduce(&quad_local, &quad, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank == 0) {
		struct timespec ts; /* the process's CPU time, for bench/bench_sample.sh */
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
		printf("quad = %.12f\ncpu = %.3f s\n", quad, ts.tv_sec + ts.tv_nsec * 1e-9);
	}
	free(x);
	MPI_Finalize();
	return 0;
}
