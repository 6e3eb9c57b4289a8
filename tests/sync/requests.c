/* requests.c: two processes pass small messages through every way of completing a request,
 * for tests/sync_requests.sh. Open MPI and MPICH give every send they complete at once the
 * same request handle, so the two sends of each step below often share one: the record must
 * still complete each of them once.
 *
 *   tag 1   Isend, Isend, Irecv, Irecv, Waitall
 *   tag 2   Isend, Isend, Recv, Recv, Wait, Wait
 *   tag 3   Isend, Isend, Recv, Recv, Testall until done
 *   tag 4   Isend, Isend, Recv, Recv, Waitany twice
 *   tag 5   Isend, Isend, Recv, Recv, Testsome until done
 *   tag 6   Isend, Isend, Recv, Recv, Waitsome until done
 *   tag 7   Isend, Isend, Recv, Recv, Test each until done
 *   tag 8   Isend, Isend, Request_free both, Recv, Recv (never completed in the record)
 *   tag 9   Send_init, Recv_init, then three times Startall and Waitall
 *   tag 10  Irecv nobody sends, Cancel, Wait
 *   tag 11  Isend, Isend, Irecv, Irecv, Waitall (after the free and the cancel)
 *   tag 12  Irecv completed by PMPI_Wait, which the recorder does not see; then
 *   tag 13  Irecv (the library may give it the same handle: it prints "handle reused"), the
 *           peer's send only after a barrier, Wait
 * Run it with 2 ranks; it prints "done" when it ends. */
#include <mpi.h>
#include <stdio.h>

static int peer;

static void two_sends(int tag, MPI_Request q[2], int v[2])
{
	MPI_Isend(&v[0], 1, MPI_INT, peer, tag, MPI_COMM_WORLD, &q[0]);
	MPI_Isend(&v[1], 1, MPI_INT, peer, tag, MPI_COMM_WORLD, &q[1]);
}

static void two_recvs(int tag)
{
	int x;
	MPI_Recv(&x, 1, MPI_INT, peer, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Recv(&x, 1, MPI_INT, peer, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static void exchange(int tag)
{
	MPI_Request q[4];
	int v[2] = { 1, 2 }, in[2];
	two_sends(tag, q, v);
	MPI_Irecv(&in[0], 1, MPI_INT, peer, tag, MPI_COMM_WORLD, &q[2]);
	MPI_Irecv(&in[1], 1, MPI_INT, peer, tag, MPI_COMM_WORLD, &q[3]);
	MPI_Waitall(4, q, MPI_STATUSES_IGNORE);
}

int main(int argc, char **argv)
{
	int rank, flag, index, n, idx[2];
	MPI_Request q[2];
	MPI_Status st[2];
	int v[2] = { 1, 2 };
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	peer = 1 - rank;

	exchange(1);

	two_sends(2, q, v);
	two_recvs(2);
	MPI_Wait(&q[0], MPI_STATUS_IGNORE);
	MPI_Wait(&q[1], MPI_STATUS_IGNORE);

	two_sends(3, q, v);
	two_recvs(3);
	do
		MPI_Testall(2, q, &flag, st);
	while (!flag);

	two_sends(4, q, v);
	two_recvs(4);
	MPI_Waitany(2, q, &index, MPI_STATUS_IGNORE);
	MPI_Waitany(2, q, &index, MPI_STATUS_IGNORE);

	two_sends(5, q, v);
	two_recvs(5);
	for (int left = 2; left > 0; left -= n == MPI_UNDEFINED ? 0 : n)
		MPI_Testsome(2, q, &n, idx, st);

	two_sends(6, q, v);
	two_recvs(6);
	for (int left = 2; left > 0; left -= n == MPI_UNDEFINED ? 0 : n)
		MPI_Waitsome(2, q, &n, idx, MPI_STATUSES_IGNORE);

	two_sends(7, q, v);
	two_recvs(7);
	for (int i = 0; i < 2; i++)
		do
			MPI_Test(&q[i], &flag, MPI_STATUS_IGNORE);
		while (!flag);

	two_sends(8, q, v);
	MPI_Request_free(&q[0]);
	MPI_Request_free(&q[1]);
	two_recvs(8);

	int out = rank, in = -1;
	MPI_Request p[2];
	MPI_Send_init(&out, 1, MPI_INT, peer, 9, MPI_COMM_WORLD, &p[0]);
	MPI_Recv_init(&in, 1, MPI_INT, peer, 9, MPI_COMM_WORLD, &p[1]);
	for (int i = 0; i < 3; i++) {
		MPI_Startall(2, p);
		MPI_Waitall(2, p, MPI_STATUSES_IGNORE);
	}
	MPI_Request_free(&p[0]);
	MPI_Request_free(&p[1]);

	MPI_Irecv(&in, 1, MPI_INT, peer, 10, MPI_COMM_WORLD, &q[0]);
	MPI_Cancel(&q[0]);
	MPI_Wait(&q[0], MPI_STATUS_IGNORE);

	exchange(11);

	MPI_Request h;
	MPI_Irecv(&in, 1, MPI_INT, peer, 12, MPI_COMM_WORLD, &q[0]);
	MPI_Send(&out, 1, MPI_INT, peer, 12, MPI_COMM_WORLD);
	h = q[0];
	PMPI_Wait(&q[0], MPI_STATUS_IGNORE);
	MPI_Irecv(&in, 1, MPI_INT, peer, 13, MPI_COMM_WORLD, &q[0]);
	if (rank == 0 && q[0] == h)
		printf("handle reused\n");
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Send(&out, 1, MPI_INT, peer, 13, MPI_COMM_WORLD);
	MPI_Wait(&q[0], MPI_STATUS_IGNORE);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	if (rank == 0)
		printf("done\n");
	return 0;
}
