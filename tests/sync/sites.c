/* sites.c: a hang whose calls are made in two functions, for the call sites of the sync
 * record (tests/sync_site.sh). Ranks 0 and 1 receive from each other first, in exchange(), a
 * function of its own; rank 2 waits for them in the barrier of main(). With the argument "ok",
 * rank 0 sends first and the run ends. The lines of the calls are marked SITE: for the test
 * to find. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

__attribute__((noinline)) static void exchange(int rank, int *buf, int ok)
{
	int peer = 1 - rank;
	if (ok && rank == 0)
		MPI_Send(buf, 1, MPI_INT, peer, 0, MPI_COMM_WORLD);
	MPI_Recv(buf, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* SITE:recv */
	if (!ok || rank == 1)
		MPI_Send(buf, 1, MPI_INT, peer, 0, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
	int rank, buf = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank < 2)
		exchange(rank, &buf, argc > 1 && !strcmp(argv[1], "ok"));
	MPI_Barrier(MPI_COMM_WORLD); /* SITE:barrier */
	printf("%d\n", buf);
	MPI_Finalize();
	return 0;
}
