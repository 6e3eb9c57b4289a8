/* libcalls.c: the program of tests/blame_libcalls.sh. Its CPU time is spent inside library
 * functions without source, which the prototype tables (blame/libc.transfer, blame/blas.transfer)
 * place: memset and memcpy on heap blocks, and, built with -DWITH_BLAS, cblas_daxpy and
 * cblas_dgemm. Each destination and each source is a block of its own allocation site
 * (SITE_ comments), so the blame of the calls' time must go to the destinations only.
 *   libcalls SECONDS   spends about SECONDS of CPU in each phase */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef WITH_BLAS
/* the CBLAS prototypes (Debian's libblas3 exports them; its header is not always installed) */
enum { ROW_MAJOR = 101, NO_TRANS = 111 };
void cblas_daxpy(int n, double alpha, const double *x, int incx, double *y, int incy);
void cblas_dgemm(int order, int transa, int transb, int m, int n, int k, double alpha,
		 const double *a, int lda, const double *b, int ldb, double beta, double *c,
		 int ldc);
#endif

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	double secs = argc > 1 ? atof(argv[1]) : 0.4;
	size_t n = (size_t)1 << 21;
	char *dst = malloc(n); /* SITE_DST */
	char *src = malloc(n); /* SITE_SRC */
	if (!dst || !src)
		return 1;
	for (size_t i = 0; i < n; i++)
		src[i] = (char)i;
	double t0 = cpu_now();
	long rounds = 0;
	while (cpu_now() - t0 < secs) {
		memset(dst, (int)(rounds & 0x7f), n);
		memcpy(dst, src, n);
		rounds++;
	}
#ifdef WITH_BLAS
	int m = 160;
	double *x = malloc((size_t)m * m * sizeof *x); /* SITE_X */
	double *y = malloc((size_t)m * m * sizeof *y); /* SITE_Y */
	double *c = malloc((size_t)m * m * sizeof *c); /* SITE_C */
	if (!x || !y || !c)
		return 1;
	for (int i = 0; i < m * m; i++)
		x[i] = y[i] = c[i] = 1.0 / (i + 1);
	t0 = cpu_now();
	while (cpu_now() - t0 < secs)
		cblas_daxpy(m * m, 0.5, x, 1, y, 1);
	t0 = cpu_now();
	while (cpu_now() - t0 < secs)
		cblas_dgemm(ROW_MAJOR, NO_TRANS, NO_TRANS, m, m, m, 1.0, x, m, y, m, 0.0, c, m);
	printf("blas %g %g\n", y[1], c[1]);
	free(x);
	free(y);
	free(c);
#endif
	printf("rounds %ld %d\n", rounds, dst[5]);
	free(dst);
	free(src);
	MPI_Finalize();
	return 0;
}
