/* Two producers (ranks 1 and 2) send one block each to a consumer (rank 3).
 * Kind: message race (MPI Bugs Initiative "Message Race"): with --wildcard the consumer's
 * first receive takes any source, then it expects rank 2: when rank 2's block arrives
 * first (rank 1 works longer) the second receive never matches and the run hangs.
 * Normal: ./mr_anysrc_hang   Faulty: ./mr_anysrc_hang --wildcard (the option users add to
 * "receive whichever is ready first"). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void produce(double *blk, int n, int who, int effort)
{
	for (int k = 0; k < effort; k++)
		for (int i = 0; i < n; i++)
			blk[i] = blk[i] * 0.999 + who + k;
}

int main(int argc, char **argv)
{
	int wildcard = 0, rank;
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--wildcard") == 0)
			wildcard = 1;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	double blk[512] = { 0 };
	if (rank == 1 || rank == 2) {
		if (rank == 1)
			usleep(300000);	/* rank 1 reads its input first */
		produce(blk, 512, rank, rank == 1 ? 4000 : 10);
		MPI_Send(blk, 512, MPI_DOUBLE, 3, 0, MPI_COMM_WORLD);
	} else if (rank == 3) {
		double a[512], b[512];
		MPI_Recv(a, 512, MPI_DOUBLE, wildcard ? MPI_ANY_SOURCE : 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Recv(b, 512, MPI_DOUBLE, 2, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		printf("consumer: %.2f %.2f\n", a[0], b[0]);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
