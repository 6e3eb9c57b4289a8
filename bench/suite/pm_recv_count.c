/*
 * Halo exchange on a 1-D ring of blocks: each rank sends its last HALO cells to the right
 * and receives HALO cells from the left.
 * Kind: parameter matching, count mismatch between a send and its receive (MPI Bugs
 * Initiative "Parameter Matching"; MPI-CorrBench "ArgMismatch", wrong count).
 * halo_count 1: rank 2 posts its receive for HALO/2 cells; the message is truncated and the
 * run aborts with MPI_ERR_TRUNCATE (the default error handler). halo_count 0: normal.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define HALO 16
#define CELLS 256

typedef struct {
	double cell[CELLS + HALO];
	int rank, size;
} block_t;

static void block_init(block_t *b)
{
	for (int i = 0; i < CELLS + HALO; i++)
		b->cell[i] = b->rank * 1000.0 + i;
}

static void exchange(block_t *b, int faulty)
{
	int right = (b->rank + 1) % b->size, left = (b->rank + b->size - 1) % b->size;
	int rcount = (faulty && b->rank == 2) ? HALO / 2 : HALO;
	MPI_Sendrecv(&b->cell[CELLS - HALO], HALO, MPI_DOUBLE, right, 1,
		     &b->cell[CELLS], rcount, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static double update(block_t *b)
{
	double s = 0;
	for (int i = 1; i < CELLS; i++) {
		b->cell[i] = 0.25 * (b->cell[i - 1] + 2 * b->cell[i] + b->cell[i + 1]);
		s += b->cell[i];
	}
	return s;
}

int main(int argc, char **argv)
{
	static block_t b;
	double s = 0, g;
	int faulty = argc > 1 && atoi(argv[1]) == 1;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &b.rank);
	MPI_Comm_size(MPI_COMM_WORLD, &b.size);
	block_init(&b);
	for (int it = 0; it < 6; it++) {
		exchange(&b, faulty && it == 3);
		s = update(&b);
	}
	MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	if (b.rank == 0)
		printf("checksum %.3e\n", g);
	MPI_Finalize();
	return 0;
}
