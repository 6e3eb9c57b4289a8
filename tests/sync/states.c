/* states.c: an MPI + OpenMP program whose ranks are in the three states `difftrace watch`
 * tells apart (tests/watch_states.sh), until it is killed or 120 s pass:
 *   rank 0  sleeps after MPI_Init (nanosleep: sleeping)
 *   rank 1  runs one parallel region, then computes on its main thread (computing) while
 *           the region's other thread idles in the OpenMP runtime (with OMP_WAIT_POLICY=
 *           passive, in a futex: waiting outside the recorded calls)
 *   rank 2  waits in MPI_Recv for rank 0 (in a recorded call)
 * Run it with 3 ranks and OMP_NUM_THREADS=2. */
#include <mpi.h>
#include <omp.h>
#include <time.h>
#include <unistd.h>

static volatile double sink;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	int rank, v = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	double end = now() + 120;
	if (rank == 0) {
		while (now() < end)
			sleep(1);
		MPI_Send(&v, 1, MPI_INT, 2, 7, MPI_COMM_WORLD);
	} else if (rank == 1) {
#pragma omp parallel
		sink += omp_get_thread_num();
		while (now() < end)
			for (int i = 0; i < 1000000; i++)
				sink += i * 0.5;
	} else if (rank == 2) {
		MPI_Recv(&v, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
	MPI_Finalize();
	return 0;
}
