/*
 * Parameter broadcast from a root chosen by a helper; rank 3 computes the root differently.
 * Kind: parameter matching, a collective's root differs between ranks (MPI Bugs Initiative,
 * "Parameter Matching"; MPI-CorrBench "ArgMismatch").
 * Usage: pm_bcast_root MODE; MODE 0 normal, 1 faulty (rank 3 takes the last rank as root).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

struct params { double dt; double alpha; int n; int pad; };

static int choose_root(int rank, int size, int mode)
{
	if (mode == 1 && rank == 3)
		return size - 1;	/* wrong: the others use 0 */
	return 0;
}

static double integrate(const struct params *p, int rank)
{
	double x = rank;
	for (int i = 0; i < p->n; i++)
		x += p->dt * (p->alpha - x);
	return x;
}

int main(int argc, char **argv)
{
	int rank, size, mode = 0;
	struct params p = { 0, 0, 0, 0 };
	double x, sum;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc > 1)
		mode = atoi(argv[1]);
	for (int round = 0; round < 3; round++) {
		if (rank == 0) {
			p.dt = 0.01 * (round + 1);
			p.alpha = 2.0 + round;
			p.n = 1000;
		}
		MPI_Bcast(&p, (int)sizeof p, MPI_BYTE, choose_root(rank, size, mode), MPI_COMM_WORLD);
		x = integrate(&p, rank);
		MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		if (rank == 0)
			printf("round %d: %.6f\n", round, sum);
	}
	MPI_Finalize();
	return 0;
}
