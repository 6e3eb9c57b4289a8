// newdel.cc: tests/blame_cxx.sh: blocks made by operator new[] and new, freed by delete[] and
// delete, each worked on for a quarter of a second of CPU: the blame names each by the line
// of its new (SITE_*), through libstdc++'s operator new, which calls malloc.
#include <mpi.h>
#include <time.h>

static double cpu_now()
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

struct grid {
	double v[8192];
};

__attribute__((noinline)) static void work(double *v, long n, double seconds)
{
	double t0 = cpu_now();
	while (cpu_now() - t0 < seconds)
		for (long i = 0; i < n; i++)
			v[i] = v[i] * 0.5 + (double)i;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	double *a = new double[8192](); /* SITE_ARRAY */
	work(a, 8192, 0.25);
	grid *g = new grid(); /* SITE_OBJECT */
	work(g->v, 8192, 0.25);
	delete[] a;
	delete g;
	MPI_Finalize();
	return 0;
}
