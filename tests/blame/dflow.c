/* dflow.c: the data flow join of difftrace blame (tests/blame_flow.sh): four phases of the
 * same CPU time each, whose blame the test computes by hand:
 *  - c = a + b in a loop: every sample on c, none on the loop's index;
 *  - produce() writes its result through an out-parameter: the blame of its local r passes
 *    through *out to the caller's x;
 *  - a structure's field (st.sum) and a field written through a pointer (s->sum in
 *    accumulate): both on the structure st;
 *  - fill() writes a heap block through its pointer parameter: the caller's pointer h, which
 *    the runtime container names (the block's allocation site, SITE_H), at half the time;
 *  - spin() in dflow_extra.c, which the test does not index: the heuristic (its heap block). */
#include <mpi.h>
#include <stdlib.h>
#include <time.h>

#define PHASE 0.4 /* seconds of CPU per phase */
#define INNER 400000L

struct stats {
	double sum;
	long n;
};

void spin(double seconds);

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

__attribute__((noinline)) static void produce(double *out, double seconds)
{
	double r = 0;
	double t0 = cpu_now();
	while (cpu_now() - t0 < seconds)
		for (long k = 0; k < INNER; k++)
			r = r + 0.5;
	*out = r;
}

__attribute__((noinline)) static void accumulate(struct stats *s, double seconds)
{
	double t0 = cpu_now();
	while (cpu_now() - t0 < seconds)
		for (long k = 0; k < INNER; k++)
			s->sum = s->sum + 0.25;
}

__attribute__((noinline)) static void fill(double *v, long n, double seconds)
{
	double t0 = cpu_now();
	while (cpu_now() - t0 < seconds)
		for (long k = 0; k < n; k++)
			v[k] = v[k] * 0.5 + 1.0;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	double a = 1.5, b = 2.5, c = 0, x = 0;
	struct stats st = { 0, 0 };
	double t0 = cpu_now();
	while (cpu_now() - t0 < PHASE)
		for (long i = 0; i < INNER; i++)
			c = a + b;
	produce(&x, PHASE);
	t0 = cpu_now();
	while (cpu_now() - t0 < PHASE / 2)
		for (long j = 0; j < INNER; j++)
			st.sum = st.sum + 0.5;
	accumulate(&st, PHASE / 2);
	spin(PHASE);
	double *h = calloc(8192, sizeof *h); /* SITE_H */
	fill(h, 8192, PHASE / 2);
	if (c + x + st.sum + h[0] <= 0) /* checked, not computed into a variable */
		abort();
	free(h);
	MPI_Finalize();
	return 0;
}
