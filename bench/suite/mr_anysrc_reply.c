// Master/worker: workers send a request, the master answers each with a work item.
// Kind: message race, a wildcard receive whose match is assumed (MPI Bugs Initiative
// "Message Race").
// ./mr_anysrc_reply 1: the master receives with MPI_ANY_SOURCE but answers the rank it
// expected (its loop counter), not status.MPI_SOURCE: which worker gets which item depends
// on the arrival order. ./mr_anysrc_reply 0: receives from each worker in turn.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define ROUNDS 4

static long item_for(int worker, int round) { return 1000L * round + worker; }

static long crunch(long item, int me)
{
	long h = item;
	for (int i = 0; i < 20000 * me; i++)
		h = (h * 31 + i) % 1000003;
	return h;
}

int main(int argc, char **argv)
{
	int me, np, racy = argc > 1 ? atoi(argv[1]) : 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &np);
	long acc = 0;
	for (int round = 0; round < ROUNDS; round++) {
		if (me == 0) {
			for (int w = 1; w < np; w++) {
				int req;
				MPI_Status st;
				MPI_Recv(&req, 1, MPI_INT, racy ? MPI_ANY_SOURCE : w, 10, MPI_COMM_WORLD, &st);
				long item = item_for(w, round);	/* assumes the request came from w */
				MPI_Send(&item, 1, MPI_LONG, w, 11, MPI_COMM_WORLD);
			}
		} else {
			long item;
			MPI_Send(&me, 1, MPI_INT, 0, 10, MPI_COMM_WORLD);
			MPI_Recv(&item, 1, MPI_LONG, 0, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			acc += crunch(item, me);
		}
	}
	long total = 0;
	MPI_Reduce(&acc, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
	if (me == 0)
		printf("total %ld\n", total);
	MPI_Finalize();
	return 0;
}
