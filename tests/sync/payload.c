/* payload.c: the calls whose payload digest (difftrace-record --payload) covers a scatter, an
 * all-to-all, a reduce-scatter, the v forms of the gathers, the nonblocking collectives and
 * the persistent sends, for tests/sync_payload.sh. Four ranks (at least two) make each call
 * once; with "data" as argument every rank's data is one more. Rank 0 (the root) prints the
 * digest each of its calls should have, computed here with dts_digest over the bytes the
 * recorder is documented to digest (difftrace-sync(5), PAYLOAD), one "CALL HEX" a line. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "syncfmt.h"

#define MAXP 16

static void expect(int rank, const char *call, const void *p, size_t n)
{
	if (rank == 0)
		printf("%s %016llx\n", call, (unsigned long long)dts_digest(p, n));
}

int main(int argc, char **argv)
{
	int r, n;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	if (n > MAXP)
		MPI_Abort(MPI_COMM_WORLD, 2);
	int add = argc > 1 && !strcmp(argv[1], "data");
	double s[4 * MAXP], v[4 * MAXP], got[4 * MAXP];
	for (int i = 0; i < 4 * MAXP; i++)
		s[i] = 100 * r + i + add;
	int one[MAXP], two[MAXP], displ[MAXP], gap[MAXP];
	for (int i = 0; i < n; i++) {
		one[i] = 1;
		two[i] = 2;
		displ[i] = i;
		gap[i] = 3 * i; /* blocks of 2 with a gap of 1 */
	}

	/* the root's whole send buffer: n blocks of 2 */
	MPI_Scatter(s, 2, MPI_DOUBLE, got, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	expect(r, "MPI_Scatter", s, (size_t)n * 2 * sizeof(double));
	/* the root's blocks in rank order, without the gaps */
	MPI_Scatterv(s, two, gap, MPI_DOUBLE, got, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	for (int i = 0; i < n; i++)
		memcpy(&v[2 * i], &s[3 * i], 2 * sizeof(double));
	expect(r, "MPI_Scatterv", v, (size_t)n * 2 * sizeof(double));
	MPI_Alltoall(s, 1, MPI_DOUBLE, got, 1, MPI_DOUBLE, MPI_COMM_WORLD);
	expect(r, "MPI_Alltoall", s, (size_t)n * sizeof(double));
	MPI_Alltoallv(s, two, gap, MPI_DOUBLE, got, two, gap, MPI_DOUBLE, MPI_COMM_WORLD);
	expect(r, "MPI_Alltoallv", v, (size_t)n * 2 * sizeof(double));
	MPI_Reduce_scatter_block(s, got, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	expect(r, "MPI_Reduce_scatter_block", s, (size_t)n * 2 * sizeof(double));
	MPI_Reduce_scatter(s, got, one, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	expect(r, "MPI_Reduce_scatter", s, (size_t)n * sizeof(double));
	MPI_Gatherv(s, 1, MPI_DOUBLE, got, one, displ, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	expect(r, "MPI_Gatherv", s, sizeof(double));
	MPI_Allgatherv(s, 1, MPI_DOUBLE, got, one, displ, MPI_DOUBLE, MPI_COMM_WORLD);
	expect(r, "MPI_Allgatherv", s, sizeof(double));

	MPI_Request q;
	double b[3] = { s[0], s[1], s[2] };
	MPI_Ibcast(b, 3, MPI_DOUBLE, 0, MPI_COMM_WORLD, &q);
	expect(r, "MPI_Ibcast", s, 3 * sizeof(double));
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	MPI_Ireduce(s, got, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD, &q);
	expect(r, "MPI_Ireduce", s, 2 * sizeof(double));
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	MPI_Iallreduce(s, got, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &q);
	expect(r, "MPI_Iallreduce", s, 2 * sizeof(double));
	MPI_Wait(&q, MPI_STATUS_IGNORE);

	/* a persistent send: the digest of what each MPI_Start sends, not of the buffer at the
	 * init */
	double p[2] = { -1, -1 };
	if (r == 0) {
		MPI_Send_init(p, 2, MPI_DOUBLE, 1, 9, MPI_COMM_WORLD, &q);
		p[0] = s[0];
		p[1] = s[1];
		MPI_Start(&q);
		expect(r, "MPI_Start", s, 2 * sizeof(double));
		MPI_Wait(&q, MPI_STATUS_IGNORE);
		MPI_Request_free(&q);
	} else if (r == 1) {
		MPI_Recv_init(p, 2, MPI_DOUBLE, 0, 9, MPI_COMM_WORLD, &q);
		MPI_Start(&q);
		MPI_Wait(&q, MPI_STATUS_IGNORE);
		MPI_Request_free(&q);
	}
	MPI_Finalize();
	return 0;
}
