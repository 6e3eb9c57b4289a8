/* stack.c: the program of tests/blame_stack.sh: computation on arrays and a structure that
 * live on the stack, which variable blame finds from the program's DWARF:
 *   main's array v, passed to work;
 *   helper's array u, passed down to work;
 *   main's structure g, whose field fill passes to work;
 *   main's arrays part and sum, reduced by MPI_Allreduce (its transfer function blames sum).
 * Each works a quarter of a second of CPU time. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define N 4096

struct grid {
	double cell[N];
	int n;
};

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

__attribute__((noinline)) static void work(double *v, size_t n, double seconds)
{
	double t0 = cpu_now();
	while (cpu_now() - t0 < seconds)
		for (size_t i = 0; i < n; i++)
			v[i] = v[i] * 0.5 + (double)i;
}

__attribute__((noinline)) static double helper(double seconds)
{
	double u[N];
	memset(u, 0, sizeof u);
	work(u, N, seconds);
	return u[N - 1];
}

__attribute__((noinline)) static void fill(struct grid *g, double seconds)
{
	g->n = N;
	work(g->cell, (size_t)g->n, seconds);
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	double v[N];
	memset(v, 0, sizeof v);
	work(v, N, 0.25);
	double s = helper(0.25);
	struct grid g;
	memset(&g, 0, sizeof g);
	fill(&g, 0.25);
	double part[N], sum[N];
	for (int i = 0; i < N; i++)
		part[i] = i;
	double t0 = cpu_now();
	while (cpu_now() - t0 < 0.25)
		MPI_Allreduce(part, sum, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	printf("%g %g %g %g\n", v[N - 1], s, g.cell[N - 1], sum[N - 1]);
	MPI_Finalize();
	return 0;
}
