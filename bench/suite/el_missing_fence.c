/* Ghost-cell update with MPI_Put between fences, a few steps.
 * Kind: epoch lifecycle, an access epoch not closed on one rank (MPI Bugs Initiative "Epoch
 * Lifecycle").
 * RMA_SKIP_FENCE=1 in the environment: rank 2 skips the closing fence of step 3 (an early
 * "continue" for a step it thinks has nothing to send); the others wait for it in their last
 * fence. Normal run: RMA_SKIP_FENCE=0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int me, np;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &np);
	const char *v = getenv("RMA_SKIP_FENCE");
	int skip = v && atoi(v) && me == 2;
	double ghost[2] = { 0, 0 }, val = me;
	MPI_Win win;
	MPI_Win_create(ghost, sizeof ghost, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
	for (int step = 0; step < 5; step++) {
		MPI_Win_fence(0, win);
		MPI_Put(&val, 1, MPI_DOUBLE, (me + 1) % np, 0, 1, MPI_DOUBLE, win);
		MPI_Put(&val, 1, MPI_DOUBLE, (me + np - 1) % np, 1, 1, MPI_DOUBLE, win);
		if (skip && step == 3)
			continue;
		MPI_Win_fence(0, win);
		val = 0.5 * (ghost[0] + ghost[1]) + 0.1 * val;
	}
	MPI_Win_free(&win);
	if (me == 0)
		printf("%.5f\n", val);
	MPI_Finalize();
	return 0;
}
