/* inlined.c: functions the compiler inlines, for difftrace blame (tests/blame_inline.sh),
 * built with -O2, in two phases of the same CPU time:
 *  - square() is static and always inlined into main, so its samples have no frame of their
 *    own; the import gives them an inlined level, and the data flow walks it as a call: the
 *    loop's r, returned at main's call line, blames main's y;
 *  - collect(), inlined too, keeps a structure on main's frame and passes it to work(), a
 *    real function: the frame scan finds the structure among the locals of the inlined
 *    function, which live in main's frame. */
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

struct acc {
	double v[8];
	long n;
};

__attribute__((noinline)) static void work(struct acc *a, double seconds)
{
	double t0 = cpu_now();
	while (cpu_now() - t0 < seconds)
		for (long k = 0; k < INNER; k++)
			a->v[k & 7] = a->v[k & 7] * 0.5 + 1.0;
	a->n++;
}

static inline __attribute__((always_inline)) double collect(double seconds)
{
	struct acc a = { { 0 }, 0 };
	work(&a, seconds);
	return a.v[0] + a.v[7] + (double)a.n;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	double y = square(PHASE); /* CALL */
	if (y < 0)
		printf("%g\n", y);
	double z = collect(PHASE); /* COLLECT */
	if (z < 0)
		printf("%g\n", z);
	MPI_Finalize();
	return 0;
}
