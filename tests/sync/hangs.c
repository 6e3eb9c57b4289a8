/* hangs.c: a small MPI + OpenMP program that runs normally or hangs in a chosen way, for the
 * tests of the sync record and `difftrace hang` (tests/sync_hang.sh).
 *
 *   hangs ok        every call of the recorder once: point to point (blocking, nonblocking,
 *                   MPI_ANY_SOURCE), collectives, a split communicator, a parallel region
 *                   with a critical section, a lock and a barrier; ends normally
 *   hangs cycle     ranks 0 and 1 each receive from the other first (a cycle of two receives)
 *   hangs nosend    rank 1 receives from rank 0, which never sends
 *   hangs skipcoll  rank 2 skips the barrier the others enter, and goes on to an allreduce
 *   hangs early     rank 1 leaves the loop of allreduces after 3 of 10
 *   hangs critical  thread 1 of rank 0 never leaves its critical section; thread 0 waits to
 *                   enter it, the other ranks wait in a barrier
 *   hangs irecv     rank 1 posts receives from ranks 0 and 2 and waits for both (Waitall);
 *                   rank 2 sends, rank 0 never does; ranks 0 and 2 then wait in a barrier
 * Run it with 3 ranks. */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void forever(void)
{
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	int rank, size, v = 1, r = 0;
	const char *mode = argc > 1 ? argv[1] : "ok";
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (!strcmp(mode, "ok")) {
		int next = (rank + 1) % size, prev = (rank + size - 1) % size, in[2] = { 0, 0 };
		MPI_Request q[2];
		MPI_Irecv(&in[0], 1, MPI_INT, prev, 7, MPI_COMM_WORLD, &q[0]);
		MPI_Isend(&rank, 1, MPI_INT, next, 7, MPI_COMM_WORLD, &q[1]);
		MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
		if (rank == 0) {
			for (int i = 1; i < size; i++)
				MPI_Recv(&in[1], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
					 MPI_STATUS_IGNORE);
		} else {
			MPI_Send(&rank, 1, MPI_INT, 0, 10 + rank, MPI_COMM_WORLD);
		}
		MPI_Comm half;
		MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
		MPI_Bcast(&v, 1, MPI_INT, 0, half);
		MPI_Allreduce(&v, &r, 1, MPI_INT, MPI_SUM, half);
		MPI_Comm_free(&half);
		omp_lock_t lock;
		omp_init_lock(&lock);
		int sum = 0;
#pragma omp parallel num_threads(2) reduction(+ : sum)
		{
#pragma omp critical
			sum += 1;
#pragma omp barrier
			omp_set_lock(&lock);
			sum += 1;
			omp_unset_lock(&lock);
		}
		omp_destroy_lock(&lock);
		MPI_Reduce(&sum, &r, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
		MPI_Barrier(MPI_COMM_WORLD);
	} else if (!strcmp(mode, "cycle")) {
		if (rank < 2) {
			MPI_Recv(&r, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Send(&v, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD);
		}
		MPI_Barrier(MPI_COMM_WORLD);
	} else if (!strcmp(mode, "nosend")) {
		if (rank == 1)
			MPI_Recv(&r, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		else if (rank == 0)
			forever(); /* the send it should make never comes */
		MPI_Barrier(MPI_COMM_WORLD);
	} else if (!strcmp(mode, "skipcoll")) {
		MPI_Allreduce(&v, &r, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
		if (rank != 2)
			MPI_Barrier(MPI_COMM_WORLD);
		MPI_Allreduce(&v, &r, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	} else if (!strcmp(mode, "early")) {
		for (int i = 0; i < 10; i++) {
			if (rank == 1 && i == 3)
				break;
			MPI_Allreduce(&v, &r, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
		}
		if (rank == 1)
			forever(); /* what it does instead of the rest of the loop */
	} else if (!strcmp(mode, "critical")) {
		if (rank == 0) {
			volatile int in = 0;
#pragma omp parallel num_threads(2)
			{
				if (omp_get_thread_num() == 1) {
#pragma omp critical
					{
						in = 1;
						forever();
					}
				} else {
					while (!in)
						usleep(1000);
#pragma omp critical
					v++;
				}
			}
		}
		MPI_Barrier(MPI_COMM_WORLD);
	} else if (!strcmp(mode, "irecv")) {
		if (rank == 1) {
			int in[2];
			MPI_Request q[2];
			MPI_Irecv(&in[0], 1, MPI_INT, 0, 3, MPI_COMM_WORLD, &q[0]);
			MPI_Irecv(&in[1], 1, MPI_INT, 2, 4, MPI_COMM_WORLD, &q[1]);
			MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
		} else if (rank == 2) {
			MPI_Send(&v, 1, MPI_INT, 1, 4, MPI_COMM_WORLD);
		}
		MPI_Barrier(MPI_COMM_WORLD);
	} else {
		fprintf(stderr, "hangs: unknown mode %s\n", mode);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	MPI_Finalize();
	return 0;
}
