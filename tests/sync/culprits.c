/* culprits.c: an MPI program that runs normally or hangs (or aborts) with one rank at fault,
 * for the tests of the hang report's cause, graph and cycles (tests/hang_cause.sh). Run it
 * with 4 ranks: culprits MODE [ok], MODE one of
 *   ibarrier  every rank enters an MPI_Ibarrier and waits for it, then rank 0 sends to rank 1;
 *             faulty: rank 1 skips the Ibarrier and receives at once (a cycle through a wait
 *             on a nonblocking collective)
 *   ring      rank 0 sends to 1 first, every other rank receives from the one before (rank 2
 *             from any source) and then sends on, rank 0 receives last; faulty: rank 0
 *             receives first (a cycle of all four)
 *   split     the ranks split into even and odd, enter a barrier on their half, then one on
 *             MPI_COMM_WORLD; faulty: rank 2 skips its half's barrier
 *   abort     rank 1 sends to rank 2, the others wait in a barrier; faulty: rank 1 sends to
 *             rank 99 after 2 s (MPI_ERR_RANK: the run aborts)
 *   persist   rank 1 sends to rank 0 through persistent requests (MPI_Send_init, MPI_Recv_init,
 *             MPI_Start, MPI_Wait), then every rank enters a barrier; faulty: rank 1 never
 *             starts its send
 * With "ok" the run ends normally. */
#include <mpi.h>
#include <string.h>
#include <unistd.h>

static int ibarrier(int rank, int ok)
{
	MPI_Request rq;
	int v = 0;
	if (ok || rank != 1) {
		MPI_Ibarrier(MPI_COMM_WORLD, &rq);
		MPI_Wait(&rq, MPI_STATUS_IGNORE);
	}
	if (rank == 0)
		MPI_Send(&v, 1, MPI_INT, 1, 3, MPI_COMM_WORLD);
	if (rank == 1)
		MPI_Recv(&v, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	if (!ok && rank == 1) { /* the Ibarrier it skipped */
		MPI_Ibarrier(MPI_COMM_WORLD, &rq);
		MPI_Wait(&rq, MPI_STATUS_IGNORE);
	}
	return v;
}

static int ring(int rank, int size, int ok)
{
	int v = rank, next = (rank + 1) % size, prev = (rank + size - 1) % size;
	int from = rank == 2 ? MPI_ANY_SOURCE : prev;
	if (rank == 0 && ok)
		MPI_Ssend(&v, 1, MPI_INT, next, 7, MPI_COMM_WORLD);
	MPI_Recv(&v, 1, MPI_INT, from, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	if (rank != 0 || !ok)
		MPI_Ssend(&v, 1, MPI_INT, next, 7, MPI_COMM_WORLD);
	return v;
}

static void split(int rank, int ok)
{
	MPI_Comm half;
	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
	if (ok || rank != 2)
		MPI_Barrier(half);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Comm_free(&half);
}

static void abort_(int rank, int ok)
{
	int v = 1;
	if (rank == 1) {
		sleep(2);
		MPI_Send(&v, 1, MPI_INT, ok ? 2 : 99, 5, MPI_COMM_WORLD);
	}
	if (rank == 2)
		MPI_Recv(&v, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Barrier(MPI_COMM_WORLD);
}

static void persist(int rank, int ok)
{
	int v = rank;
	MPI_Request rq;
	if (rank == 0)
		MPI_Recv_init(&v, 1, MPI_INT, 1, 9, MPI_COMM_WORLD, &rq);
	if (rank == 1)
		MPI_Send_init(&v, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, &rq);
	if (rank == 0 || (rank == 1 && ok)) {
		MPI_Start(&rq);
		MPI_Wait(&rq, MPI_STATUS_IGNORE);
	}
	if (rank < 2)
		MPI_Request_free(&rq);
	MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	const char *mode = argc > 1 ? argv[1] : "ring";
	int ok = argc > 2 && !strcmp(argv[2], "ok");
	if (size != 4) {
		if (!rank)
			MPI_Abort(MPI_COMM_WORLD, 2); /* run it with 4 ranks */
	} else if (!strcmp(mode, "ibarrier")) {
		ibarrier(rank, ok);
	} else if (!strcmp(mode, "ring")) {
		ring(rank, size, ok);
	} else if (!strcmp(mode, "split")) {
		split(rank, ok);
	} else if (!strcmp(mode, "abort")) {
		abort_(rank, ok);
	} else if (!strcmp(mode, "persist")) {
		persist(rank, ok);
	}
	MPI_Finalize();
	return 0;
}
