/* Pairwise exchange 0<->1, 2<->3 with synchronous sends: in each pair the even rank sends
 * first and the odd rank receives first.
 * Kind: call ordering (MPI Bugs Initiative, "Call Ordering").
 * Faulty (./co_pair_ssend 1): in step 2 rank 3 also sends first; 2 and 3 both sit in
 * MPI_Ssend, and 0 and 1 wait for them in the final reduction. Normal: ./co_pair_ssend 0 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N 64

static double relax(double *v, const double *in, int n, int step)
{
	double s = 0;
	for (int i = 0; i < n; i++) {
		v[i] = 0.5 * (v[i] + in[i]) + step * 1e-3;
		s += v[i];
	}
	return s;
}

int main(int argc, char **argv)
{
	int rank, size, bug = argc > 1 ? atoi(argv[1]) : 0;
	double v[N], in[N], s = 0, tot;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (int i = 0; i < N; i++)
		v[i] = rank + i;
	int partner = rank ^ 1;
	for (int step = 0; step < 5 && partner < size; step++) {
		int send_first = rank % 2 == 0 || (bug && rank == 3 && step == 2);
		if (send_first) {
			MPI_Ssend(v, N, MPI_DOUBLE, partner, step, MPI_COMM_WORLD);
			MPI_Recv(in, N, MPI_DOUBLE, partner, step, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(in, N, MPI_DOUBLE, partner, step, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Ssend(v, N, MPI_DOUBLE, partner, step, MPI_COMM_WORLD);
		}
		s += relax(v, in, N, step);
	}
	MPI_Allreduce(&s, &tot, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		printf("total %.3f\n", tot);
	MPI_Finalize();
	return 0;
}
