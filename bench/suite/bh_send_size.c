/* Neighbour exchange where pairs (0,1) and (2,3) swap blocks of N doubles: the even rank
 * sends first, the odd rank receives first -- except rank 3, whose code path (written for
 * the "last rank" special case) sends first too. It works while MPI_Send buffers the
 * message (small N) and deadlocks when it does not.
 * Kind: buffering hazard (MPI Bugs Initiative "Buffering Hazard").
 * Normal: ./bh_send_size 64   Faulty: ./bh_send_size 200000 (the same code, a larger input). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void fill(double *a, int n, int r)
{
	for (int i = 0; i < n; i++)
		a[i] = r + i * 1e-3;
}

int main(int argc, char **argv)
{
	int r, np, n = argc > 1 ? atoi(argv[1]) : 64;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	MPI_Comm_size(MPI_COMM_WORLD, &np);
	double *out = malloc(n * sizeof *out), *in = malloc(n * sizeof *in);
	fill(out, n, r);
	int peer = r ^ 1;
	if (r % 2 == 0 || r == np - 1) {
		MPI_Send(out, n, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD);
		MPI_Recv(in, n, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	} else {
		MPI_Recv(in, n, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Send(out, n, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD);
	}
	double s = 0, g;
	for (int i = 0; i < n; i++)
		s += in[i];
	MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	if (r == 0)
		printf("%.3f\n", g);
	free(out);
	free(in);
	MPI_Finalize();
	return 0;
}
