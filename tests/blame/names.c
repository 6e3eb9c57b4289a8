/* names.c: how difftrace blame names heap blocks with a blame index (tests/blame_names.sh):
 *  - x = malloc(...) in main: the block is "x", its allocation site the detail;
 *  - s->f = vec_new(...), the block allocated in vec_new: named by the field that points to it,
 *    "s->f", though vec_new's own v pointed to it first;
 *  - s = malloc(...): the structure, named "s", written by nobody but its initialisation;
 *  - y = vec_make(...), the block allocated into vec_make's v, which vec_make returns: named
 *    by the caller's y.
 * fill() works on x and on s->f the same CPU time: each takes half of the two; on y half that. */
#include <mpi.h>
#include <stdlib.h>
#include <time.h>

#define PHASE 0.4 /* seconds of CPU per phase */
#define N 4096L

struct holder {
	double *f;
	long n;
};

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

__attribute__((noinline)) static double *vec_new(long n)
{
	double *v = calloc((size_t)n, sizeof *v); /* SITE_F */
	return v;
}

__attribute__((noinline)) static double *vec_make(long n)
{
	double *v = malloc((size_t)n * sizeof *v); /* SITE_Y */
	for (long i = 0; i < n; i++)
		v[i] = 1.0;
	return v;
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
	double *x = malloc(N * sizeof *x); /* SITE_X */
	struct holder *s = malloc(sizeof *s); /* SITE_S */
	if (!x || !s)
		abort();
	s->n = N;
	s->f = vec_new(N);
	double *y = vec_make(N);
	for (long i = 0; i < N; i++)
		x[i] = 0;
	fill(x, N, PHASE);
	fill(s->f, s->n, PHASE);
	fill(y, N, PHASE / 2);
	if (x[0] + s->f[0] + y[0] <= 0)
		abort();
	free(y);
	free(s->f);
	free(s);
	free(x);
	MPI_Finalize();
	return 0;
}
