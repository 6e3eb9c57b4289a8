/* inlined.c: a function the compiler inlines, for difftrace blame (tests/blame_inline.sh):
 * square() is static and always inlined into main (built with -O2), so its samples have no
 * frame of their own; the import gives them an inlined level, and the data flow walks it as a
 * call: the loop's r, returned at main's call line, blames main's y. */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

#define PHASE 0.6 /* seconds of CPU */
#define INNER 400000L

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline __attribute__((always_inline)) double square(double seconds)
{
	double r = 0;
	double t0 = cpu_now();
	while (cpu_now() - t0 < seconds)
		for (long k = 0; k < INNER; k++)
			r = r + 0.5; /* LINE_R */
	return r;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	double y = square(PHASE); /* CALL */
	if (y < 0)
		printf("%g\n", y);
	MPI_Finalize();
	return 0;
}
