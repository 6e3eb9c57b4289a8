/* extra.c: one rank's extra call in a function of its own, for the call sites the ranking's
 * reasons and the views name (tests/rank_site.sh, tests/tui_site_views.sh). Ranks 2k and
 * 2k + 1 exchange a message three times (the second argument: N times) in exchange(); with
 * the argument "extra", rank 1 then sends rank 0 one more message from extra(), which rank 0
 * never receives (a small message: the send completes); a last odd rank only waits in the
 * barrier. The lines of the calls are marked SITE: for the tests to find. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) static void extra(int *buf)
{
	/* the result checked: a call, not a jump (-O2 would leave main as the caller) */
	if (MPI_Send(buf, 1, MPI_INT, 0, 9, MPI_COMM_WORLD) != MPI_SUCCESS) /* SITE:extra */
		fprintf(stderr, "send failed\n");
}

__attribute__((noinline)) static void exchange(int rank, int *buf)
{
	int peer = rank ^ 1;
	if (rank % 2 == 0) {
		MPI_Send(buf, 1, MPI_INT, peer, 0, MPI_COMM_WORLD); /* SITE:send */
		MPI_Recv(buf, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	} else {
		MPI_Recv(buf, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* SITE:recv */
		(*buf)++;
		if (MPI_Send(buf, 1, MPI_INT, peer, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
			fprintf(stderr, "send failed\n");
	}
}

int main(int argc, char **argv)
{
	int rank, size, buf = 0;
	int n = argc > 2 ? atoi(argv[2]) : 3;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (int i = 0; i < n && rank < size / 2 * 2; i++)
		exchange(rank, &buf);
	if (rank == 1 && argc > 1 && !strcmp(argv[1], "extra"))
		extra(&buf);
	MPI_Barrier(MPI_COMM_WORLD); /* SITE:barrier */
	printf("%d\n", buf);
	MPI_Finalize();
	return 0;
}
