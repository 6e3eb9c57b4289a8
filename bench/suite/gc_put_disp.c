/* Gather by one-sided puts: every rank r > 0 puts its partial result into slot r of rank
 * 0's window inside a fence epoch.
 * Kind: global concurrency, two puts to the same location in one epoch (MPI Bugs Initiative
 * "Global Concurrency", RMA).
 * ./gc_put_disp 1: rank 2 computes its slot as rank - 1 and collides with rank 1. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double partial(int rank, int epoch)
{
	double s = 0;
	for (int i = 1; i <= 4000; i++)
		s += 1.0 / (i + rank + epoch);
	return s;
}

int main(int argc, char **argv)
{
	int rank, size, off_by_one;
	MPI_Win win;
	double slots[8] = { 0 };

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	off_by_one = argc > 1 ? atoi(argv[1]) : 0;
	MPI_Win_create(slots, sizeof slots, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
	double total = 0;
	for (int epoch = 0; epoch < 3; epoch++) {
		double mine = partial(rank, epoch);
		MPI_Win_fence(0, win);
		if (rank > 0) {
			MPI_Aint slot = (off_by_one && rank == 2) ? rank - 1 : rank;
			MPI_Put(&mine, 1, MPI_DOUBLE, 0, slot, 1, MPI_DOUBLE, win);
		}
		MPI_Win_fence(0, win);
		if (rank == 0)
			for (int r = 1; r < size; r++)
				total += slots[r];
	}
	MPI_Win_free(&win);
	if (rank == 0)
		printf("total %.6f\n", total);
	MPI_Finalize();
	return 0;
}
