/* Row/column sub-communicators made and freed every phase.
 * Kind: resource leak, a communicator never freed (MPI Bugs Initiative "Resource Leak").
 * ./rs_comm_leak 1: rank 2 never calls MPI_Comm_free on its row communicator. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double phase_value(int rank, int phase)
{
	double v = 1.0;
	for (int i = 0; i < 5000; i++)
		v = v * 1.0000001 + (rank + phase) * 1e-7;
	return v;
}

int main(int argc, char **argv)
{
	int rank, leak;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	leak = argc > 1 ? atoi(argv[1]) : 0;
	double total = 0;
	for (int phase = 0; phase < 5; phase++) {
		MPI_Comm row;
		MPI_Comm_split(MPI_COMM_WORLD, rank / 2, rank, &row);
		double v = phase_value(rank, phase), rs;
		MPI_Allreduce(&v, &rs, 1, MPI_DOUBLE, MPI_SUM, row);
		total += rs;
		if (!(leak && rank == 2))
			MPI_Comm_free(&row);
	}
	double all;
	MPI_Reduce(&total, &all, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank == 0)
		printf("%.6f\n", all);
	MPI_Finalize();
	return 0;
}
