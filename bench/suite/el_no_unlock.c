/* A shared counter on rank 0, incremented under an exclusive passive-target lock.
 * Kind: epoch lifecycle, a lock never released (MPI Bugs Initiative "Epoch Lifecycle").
 * ./el_no_unlock 1: on its second update rank 1 returns through an error path that forgets
 * MPI_Win_unlock. ./el_no_unlock 0: normal. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int bump(MPI_Win win, int forget)
{
	long one = 1;
	MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
	MPI_Accumulate(&one, 1, MPI_LONG, 0, 0, 1, MPI_LONG, MPI_SUM, win);
	if (forget)
		return -1;	/* early return: the lock stays held */
	MPI_Win_unlock(0, win);
	return 0;
}

int main(int argc, char **argv)
{
	int rank, bug;
	long counter = 0;
	MPI_Win win;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	bug = argc > 1 ? atoi(argv[1]) : 0;
	MPI_Win_create(&counter, sizeof counter, sizeof counter, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
	int errors = 0;
	for (int i = 0; i < 4; i++)
		if (bump(win, bug && rank == 1 && i == 1) != 0)
			errors++;
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0)
		printf("counter %ld, errors %d\n", counter, errors);
	MPI_Win_free(&win);
	MPI_Finalize();
	return 0;
}
