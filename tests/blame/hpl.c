/* hpl.c: tests/blame_flow2.sh: a branch on a flag, and the paper's HPL case with two user blame
 * points, in phases of known CPU time:
 *  - the body of `if (flag)` computes acc: its time on acc;
 *  - the condition `if (is_set(flag, ...))` costs as much: its time goes, through the flag's
 *    implicit relation, to what the branch controls (hits), not to the flag;
 *  - solve() holds the matrix (SITE_MAT) and calls factor(), which holds the panel
 *    (SITE_PANEL): panel_factor() works on the panel, update() on the matrix, the same time
 *    each; factor() folds the panel into the matrix. At --point solve the matrix takes both, at
 *    --point factor the panel takes all of factor's. */
#include <mpi.h>
#include <stdlib.h>
#include <time.h>

#define PHASE 0.4 /* seconds of CPU per phase */
#define INNER 400000L

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

__attribute__((noinline)) static int is_set(int flag, double seconds)
{
	double r = 0;
	double t0 = cpu_now();
	while (cpu_now() - t0 < seconds)
		for (long k = 0; k < INNER; k++)
			r = r + 1.0;
	return r > 0 ? flag : 0;
}

__attribute__((noinline)) static void panel_factor(double *panel, long n, double seconds)
{
	double t0 = cpu_now();
	while (cpu_now() - t0 < seconds)
		for (long k = 0; k < n; k++)
			panel[k] = panel[k] * 0.5 + 1.0;
}

__attribute__((noinline)) static void update(double *mat, long n, double seconds)
{
	double t0 = cpu_now();
	while (cpu_now() - t0 < seconds)
		for (long k = 0; k < n; k++)
			mat[k] = mat[k] * 0.5 + 2.0;
}

__attribute__((noinline)) static void factor(double *mat, long nb, double seconds)
{
	double *panel = calloc((size_t)nb, sizeof *panel); /* SITE_PANEL */
	panel_factor(panel, nb, seconds);
	mat[0] = mat[0] + panel[0];
	free(panel);
}

__attribute__((noinline)) static double solve(long n, double seconds)
{
	double *mat = calloc((size_t)n, sizeof *mat); /* SITE_MAT */
	factor(mat, 4096, seconds);
	update(mat, n, seconds);
	double r = mat[0];
	free(mat);
	return r;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int flag = argc > 0;
	double acc = 0;
	long hits = 0;
	if (flag) {
		double t0 = cpu_now();
		while (cpu_now() - t0 < PHASE)
			for (long i = 0; i < INNER; i++)
				acc = acc + 0.5;
	}
	if (is_set(flag, PHASE))
		hits = hits + 1;
	double s = solve(8192, PHASE / 2);
	if (acc + (double)hits + s <= 0) /* checked, not computed into a variable */
		abort();
	MPI_Finalize();
	return 0;
}
