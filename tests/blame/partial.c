/* partial.c: tests/blame_flow2.sh indexes it with -DBREAK_SCALE, which puts a syntax error in
 * scale() (the program itself is built without): libclang's diagnostic is reported, main and
 * its data flow are indexed and used anyway. Two phases of the same CPU time: c = a + b in a
 * loop (on c), and scale() on the heap block h (SITE_H). */
#include <mpi.h>
#include <stdlib.h>
#include <time.h>

#ifdef BREAK_SCALE
#define BROKEN +
#else
#define BROKEN
#endif

#define PHASE 0.4
#define INNER 400000L

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

__attribute__((noinline)) static void scale(double *v, long n, double seconds)
{
	double t0 = cpu_now();
	while (cpu_now() - t0 < seconds)
		for (long k = 0; k < n; k++)
			v[k] = v[k] * 0.5 BROKEN;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	double a = 1.5, b = 2.5, c = 0;
	double t0 = cpu_now();
	while (cpu_now() - t0 < PHASE)
		for (long i = 0; i < INNER; i++)
			c = a + b;
	double *h = calloc(8192, sizeof *h); /* SITE_H */
	scale(h, 8192, PHASE);
	if (c + h[0] < 0) /* checked, not computed into a variable */
		abort();
	free(h);
	MPI_Finalize();
	return 0;
}
