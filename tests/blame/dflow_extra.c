/* dflow_extra.c: the part of tests/blame/dflow.c that the test does not index. */
#include <stdlib.h>
#include <time.h>

void spin(double seconds);

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

__attribute__((noinline)) void spin(double seconds)
{
	double *v = calloc(8192, sizeof *v);
	double t0 = cpu_now();
	while (cpu_now() - t0 < seconds)
		for (int i = 0; i < 8192; i++)
			v[i] = v[i] * 0.5 + 1.0;
	free(v);
}
