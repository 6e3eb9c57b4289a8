/* collect.c: tests/blame_flow2.sh, 2 ranks: MPI_Bcast and MPI_Reduce on the stack's variables,
 * each waited for as long as the other rank computes first. The time inside the calls goes,
 * by their transfer functions (blame/mpi.transfer), to the broadcast buffer (dim in share) and
 * the reduced result (global in reduce_sum), then by the data flow through the return value to
 * the caller's n and total. The calls' own status (err) takes nothing. */
#include <mpi.h>
#include <stdlib.h>
#include <time.h>

#define PHASE 0.4
#define INNER 400000L

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

__attribute__((noinline)) static void burn(double seconds)
{
	double r = 0;
	double t0 = cpu_now();
	while (cpu_now() - t0 < seconds)
		for (long k = 0; k < INNER; k++)
			r = r + 1.0;
	volatile double sink = r;
	(void)sink;
}

__attribute__((noinline)) static int share(int n, int root)
{
	int dim = n;
	int err = MPI_Bcast(&dim, 1, MPI_INT, root, MPI_COMM_WORLD);
	return err == MPI_SUCCESS ? dim : -1;
}

__attribute__((noinline)) static double reduce_sum(double local, int root)
{
	double global = 0;
	int err = MPI_Reduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD);
	return err == MPI_SUCCESS ? global : 0;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank = 0;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0)
		burn(PHASE);
	int n = share(rank == 0 ? 100 : 0, 0);
	if (rank == 1)
		burn(PHASE);
	double total = reduce_sum(rank + 1.0, 0);
	if (n != 100 || (rank == 0 && total != 3.0)) /* checked, not computed into a variable */
		abort();
	MPI_Finalize();
	return 0;
}
