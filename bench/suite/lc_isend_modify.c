/* Rank 1 streams a large field to rank 0 with MPI_Isend and prepares the next field while
 * the send is in flight.
 * Kind: local concurrency, a send buffer written before the send completes (MPI Bugs
 * Initiative "Local Concurrency").
 * ./lc_isend_modify 1: rank 1 writes the next field into the buffer it is still sending
 * (before MPI_Wait); the message is large (rendezvous), so rank 0 may receive a mix.
 * ./lc_isend_modify 0: writes after MPI_Wait. The calls are the same; only data differ. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 16)

static double field[N];

int main(int argc, char **argv)
{
	int rank, early;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	early = argc > 1 ? atoi(argv[1]) : 0;
	double check = 0;
	for (int f = 0; f < 3; f++) {
		if (rank == 1) {
			MPI_Request rq;
			for (int i = 0; i < N; i++)
				field[i] = f + i * 1e-6;
			MPI_Isend(field, N, MPI_DOUBLE, 0, f, MPI_COMM_WORLD, &rq);
			if (early)
				for (int i = 0; i < N; i++)
					field[i] = -1.0;	/* next field, too soon */
			MPI_Wait(&rq, MPI_STATUS_IGNORE);
			if (!early)
				for (int i = 0; i < N; i++)
					field[i] = -1.0;
		} else if (rank == 0) {
			MPI_Recv(field, N, MPI_DOUBLE, 1, f, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			for (int i = 0; i < N; i++)
				check += field[i];
		}
	}
	MPI_Bcast(&check, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	if (rank == 2)
		printf("checksum %.6f\n", check);
	MPI_Finalize();
	return 0;
}
