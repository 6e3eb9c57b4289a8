/* mpi_omp_toy.c: a small MPI + OpenMP program for recording real traces in the tests.
 *
 * Each rank runs a few iterations of: a parallel region that computes a partial sum (with an
 * `omp critical` update), MPI_Allreduce of the sums, MPI_Bcast of a value from rank 0 and an
 * MPI_Barrier. Built with `mpicc -pg -fopenmp`, it gives every kind of event the importer must
 * handle: the program's own nested calls, MPI calls through the PLT, GOMP_parallel on the main
 * thread and the outlined `*._omp_fn.N` functions on the worker threads.
 *
 * Usage: toy [ITERATIONS [BUG_RANK]]. With BUG_RANK, that rank's threads update the shared sum
 * without the critical section (a data race), the bundled demo's "faulty" run. */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

double work(int i, int n)
{
	double x = 0;
	for (int k = 0; k < n; k++)
		x += (double)((i + k) % 7) * 0.5;
	return x;
}

static int bug_rank = -1;

double compute(int rank, int iter)
{
	double total = 0;
#pragma omp parallel num_threads(2)
	{
		double part = work(rank + omp_get_thread_num(), 1000 * (iter + 1));
		if (rank == bug_rank) {
			total += part; /* the injected bug: a race on total */
		} else {
#pragma omp critical
			total += part;
		}
	}
	return total;
}

double exchange(double local, int rank)
{
	double global = 0, root = 0;
	MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		root = global / 2;
	MPI_Bcast(&root, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	MPI_Barrier(MPI_COMM_WORLD);
	return global + root;
}

int main(int argc, char **argv)
{
	int rank = 0, size = 1, iters = 3;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc > 1)
		iters = atoi(argv[1]);
	if (argc > 2)
		bug_rank = atoi(argv[2]);
	double acc = 0;
	for (int it = 0; it < iters; it++)
		acc += exchange(compute(rank, it), rank);
	if (rank == 0)
		printf("ranks=%d iters=%d result=%.1f\n", size, iters, acc);
	MPI_Finalize();
	return 0;
}
