/* first_calls.c: OpenMP threads that make their first call to library functions at the same
 * moment, for tests/record_first_calls.sh. Under uftrace's lazy binding, the loader writes
 * the function's address into the program's GOT at the first call and uftrace puts its hook
 * back only when that call returns: a thread that calls the same function in between goes
 * around the hook, and its call is not recorded. usleep keeps that window open for the
 * length of its sleep, the math functions for a few microseconds each.
 *
 * Each thread waits for all the others on a spinning counter (not an OpenMP barrier, which
 * the threads leave one after another), then calls usleep and FNS math functions once each.
 * Between the regions, rank 0's main thread makes MPI calls of known arguments. Prints
 * "threads=N" per rank. */
#include <math.h>
#include <mpi.h>
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

static atomic_int ready;
static volatile double sink;

static void first_calls(void)
{
	volatile double x = 0.5;
	double s = 0;
	usleep(20000);
	s += cos(x) + sin(x) + tan(x) + acos(x) + asin(x) + atan(x);
	s += cosh(x) + sinh(x) + tanh(x) + exp(x) + log(x) + log10(x);
	sink = s;
}

int main(int argc, char **argv)
{
	int provided, rank, nt = 0, sum = 0, one = 1;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#pragma omp parallel
	{
		int n = omp_get_num_threads();
		atomic_fetch_add(&ready, 1);
		while (atomic_load(&ready) < n)
			;
		first_calls();
#pragma omp master
		nt = n;
	}
	MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	MPI_Bcast(&sum, 1, MPI_INT, 0, MPI_COMM_WORLD);
	printf("rank=%d threads=%d sum=%d\n", rank, nt, sum);
	MPI_Finalize();
	return 0;
}
