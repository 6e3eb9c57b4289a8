/* costwork.c: the three kinds of program bench_record_cost.sh records, each the worst case of
 * one part of the recording. Built with -pg -fopenmp so that uftrace sees its functions.
 *   mpi N    N MPI_Sendrecv of one int with the next rank (to itself on one rank) and an
 *            MPI_Allreduce every 64th: many small MPI calls (the sync record's worst case)
 *   calls N  N trees of calls 12 deep and 2 wide (8,191 calls each) of small functions
 *            between MPI_Init and MPI_Finalize: deep call trees (uftrace's worst case)
 *   omp N    N parallel regions of a few iterations each, with a critical section, a lock
 *            and a barrier in each: OpenMP (the sync record's OpenMP calls)
 * Prints a checksum, so that the work is not optimised away. */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile long sink;

__attribute__((noinline)) static long tree(int depth, long x)
{
	if (!depth)
		return x + 1;
	return tree(depth - 1, x * 3) + tree(depth - 1, x + 7);
}

static void work_mpi(long n, int rank, int size)
{
	int next = (rank + 1) % size, prev = (rank + size - 1) % size;
	for (long i = 0; i < n; i++) {
		int out = (int)i, in = 0;
		MPI_Sendrecv(&out, 1, MPI_INT, next, 7, &in, 1, MPI_INT, prev, 7, MPI_COMM_WORLD,
			     MPI_STATUS_IGNORE);
		sink += in;
		if (i % 64 == 63) {
			long s = in, t = 0;
			MPI_Allreduce(&s, &t, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
			sink += t;
		}
	}
}

static void work_calls(long n)
{
	for (long i = 0; i < n; i++)
		sink += tree(12, i);
}

static void work_omp(long n)
{
	omp_lock_t lock;
	omp_init_lock(&lock);
	for (long i = 0; i < n; i++) {
#pragma omp parallel num_threads(2)
		{
			long local = 0;
#pragma omp for
			for (int k = 0; k < 64; k++)
				local += k * i;
#pragma omp critical
			sink += local;
			omp_set_lock(&lock);
			sink++;
			omp_unset_lock(&lock);
#pragma omp barrier
		}
	}
	omp_destroy_lock(&lock);
}

int main(int argc, char **argv)
{
	int provided, rank, size;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	const char *kind = argc > 1 ? argv[1] : "mpi";
	long n = argc > 2 ? atol(argv[2]) : 1000;
	if (!strcmp(kind, "mpi"))
		work_mpi(n, rank, size);
	else if (!strcmp(kind, "calls"))
		work_calls(n);
	else if (!strcmp(kind, "omp"))
		work_omp(n);
	else {
		fprintf(stderr, "costwork: unknown kind '%s' (mpi, calls, omp)\n", kind);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	if (!rank)
		printf("%ld\n", (long)sink);
	MPI_Finalize();
	return 0;
}
