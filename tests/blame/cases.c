/* cases.c: the program of tests/blame_cases.sh: computation on heap blocks that the blame
 * must tell apart by their lifetimes (a block freed and another made at the same address, a
 * realloc that moves a block), in a second thread, and in a run killed by kill -9.
 *   cases ok     the whole program
 *   cases spin   the same, then computes on one more block until killed
 * The allocation sites are marked SITE_* for the test. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N 8192

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

static void *worker(void *arg)
{
	(void)arg;
	double *w = calloc(N, sizeof *w); /* SITE_THREAD */
	work(w, N, 0.25);
	free(w);
	return NULL;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	double *a = malloc(N * sizeof *a); /* SITE_A */
	memset(a, 0, N * sizeof *a);
	work(a, N, 0.25);
	free(a);
	double *b = malloc(N * sizeof *b); /* SITE_B */
	memset(b, 0, N * sizeof *b);
	printf("reuse %d\n", a == b);
	work(b, N, 0.25);
	double *r = malloc(100); /* SITE_SMALL */
	memset(r, 0, 100);
	double *r2 = realloc(r, 1 << 22); /* SITE_REALLOC */
	printf("moved %d\n", r2 != r);
	memset(r2, 0, 1 << 22);
	work(r2, (1 << 22) / sizeof *r2, 0.25);
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	pthread_join(t, NULL);
	if (argc > 1 && !strcmp(argv[1], "spin")) {
		double *s = calloc(N, sizeof *s); /* SITE_SPIN */
		printf("spinning\n");
		fflush(stdout);
		for (;;)
			work(s, N, 1.0);
	}
	free(b);
	free(r2);
	MPI_Finalize();
	return 0;
}
