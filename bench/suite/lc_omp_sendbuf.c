/* Hybrid pipeline: the main thread sends the current slab with MPI_Isend while an OpenMP
 * team computes the next slab.
 * Kind: local concurrency, OpenMP threads writing a buffer an MPI send still owns (MPI Bugs
 * Initiative "Local Concurrency"; the hybrid MPI+OpenMP class of a race feeding MPI).
 * ./lc_omp_sendbuf 1: rank 2's team computes into the slab being sent (one buffer instead
 * of two). ./lc_omp_sendbuf 0: double-buffered. OMP_NUM_THREADS=2. */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define SLAB (1 << 15)

static double buf[2][SLAB];

static void compute_slab(double *s, int k, int rank)
{
#pragma omp parallel for
	for (int i = 0; i < SLAB; i++)
		s[i] = rank + k + (i % 97) * 0.01;
}

int main(int argc, char **argv)
{
	int provided, rank, size, single_buffer;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	single_buffer = argc > 1 && atoi(argv[1]) == 1 && rank == 2;
	double sum = 0;
	compute_slab(buf[0], 0, rank);
	for (int k = 0; k < 4; k++) {
		double *cur = single_buffer ? buf[0] : buf[k % 2];
		double *next = single_buffer ? buf[0] : buf[(k + 1) % 2];
		MPI_Request rq;
		MPI_Isend(cur, SLAB, MPI_DOUBLE, (rank + 1) % size, k, MPI_COMM_WORLD, &rq);
		compute_slab(next, k + 1, rank);
		static double in[SLAB];
		MPI_Recv(in, SLAB, MPI_DOUBLE, (rank + size - 1) % size, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Wait(&rq, MPI_STATUS_IGNORE);
		for (int i = 0; i < SLAB; i += 64)
			sum += in[i];
	}
	double g;
	MPI_Allreduce(&sum, &g, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		printf("%.4f\n", g);
	MPI_Finalize();
	return 0;
}
