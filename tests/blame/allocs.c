/* allocs.c: the program of tests/blame_record.sh. MPI for the record's rank directory; then
 * the allocation patterns the importer must rebuild (a block freed and another made at the
 * same address, a realloc that moves a block), a thread, CPU work to sample, globals.
 *   allocs ok     the whole program
 *   allocs spin   the same, then computes until killed */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double table[1000];      /* a global */
static long counter;     /* a static */

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

__attribute__((noinline)) static void spin(double *v, size_t n, double seconds)
{
	double t0 = cpu_now();
	while (cpu_now() - t0 < seconds)
		for (size_t i = 0; i < n; i++)
			v[i] = v[i] * 0.5 + (double)(i + (size_t)counter++);
}

static void *worker(void *arg)
{
	(void)arg;
	double *w = calloc(4096, sizeof *w);
	spin(w, 4096, 0.3);
	free(w);
	return NULL;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int spin_forever = argc > 1 && !strcmp(argv[1], "spin");
	char *a = malloc(1000);
	memset(a, 1, 1000);
	free(a);
	char *b = malloc(1000); /* usually at a's address */
	memset(b, 2, 1000);
	printf("reuse %d\n", a == b);
	char *r = malloc(100);
	memset(r, 3, 100);
	char *r2 = realloc(r, 1 << 22); /* too big to stay: moves */
	printf("moved %d\n", r2 != r);
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	spin(table, 1000, 0.3);
	pthread_join(t, NULL);
	if (spin_forever) {
		printf("spinning\n");
		fflush(stdout);
		for (;;)
			spin(table, 1000, 1.0);
	}
	free(b);
	free(r2);
	MPI_Finalize();
	return 0;
}
