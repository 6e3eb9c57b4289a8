/* Hybrid time loop under MPI_THREAD_FUNNELED: inside the parallel region the main thread
 * (omp master) makes the MPI call between two barriers.
 * Kind: hybrid MPI+OpenMP, an MPI call from a thread other than the main one under
 * MPI_THREAD_FUNNELED (thread-level violation; the concurrency class of MPI-CorrBench).
 * ./hy_single_not_master 1: rank 1 uses "omp single" for the call, so whichever thread
 * arrives first calls MPI. OMP_NUM_THREADS=2. */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N 4096

static double a[N];

int main(int argc, char **argv)
{
	int provided, rank, variant;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	variant = argc > 1 ? atoi(argv[1]) : 0;
	double local = 0, global = 0;
#pragma omp parallel
	{
		for (int it = 0; it < 4; it++) {
#pragma omp for reduction(+:local)
			for (int i = 0; i < N; i++) {
				a[i] = a[i] * 0.5 + rank + it;
				local += a[i];
			}
			if (variant == 1 && rank == 1) {
#pragma omp single
				MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
			} else {
#pragma omp master
				MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
#pragma omp barrier
			}
		}
	}
	if (rank == 0)
		printf("%.3f\n", global);
	MPI_Finalize();
	return 0;
}
