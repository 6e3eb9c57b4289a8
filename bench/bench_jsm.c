/* bench_jsm.c: how fast the Jaccard similarity matrix is computed, next to the naive way.
 *
 * Prints, for N traces x M attributes (default 1024 x 500, each trace holding each attribute
 * with probability D percent, default 20), on one core:
 *   - the JSM on attribute bitsets (jac_matrix), best of several runs, as CPU time of the
 *     thread and as wall time; the goal is < 20 ms for the default size;
 *   - the peer in the same run: a double loop over sorted attribute-id arrays, merging each pair;
 *   - for scale, building the bitsets from the id arrays and ward clustering on 1 - J.
 * The two matrices are compared and the program fails if they differ.
 * Usage: bench_jsm [N [M [D]]] */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/cluster.h"
#include "analysis/context.h"
#include "analysis/jaccard.h"
#include "util/util.h"

static double clock_s(clockid_t id)
{
	struct timespec t;
	clock_gettime(id, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double now(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

/* The login nodes this runs on are shared: CPU time of this thread is the figure that does not
 * depend on the neighbours; wall time is printed next to it. */
static double cpu(void)
{
	return clock_s(CLOCK_THREAD_CPUTIME_ID);
}

static void naive(const uint32_t *ids, const size_t *off, size_t n, double *out)
{
	for (size_t i = 0; i < n; i++) {
		out[i * n + i] = 1.0;
		for (size_t j = i + 1; j < n; j++)
			out[i * n + j] = out[j * n + i] =
				jac_sorted(ids + off[i], off[i + 1] - off[i], ids + off[j],
					   off[j + 1] - off[j]);
	}
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? (size_t)strtoull(argv[1], NULL, 10) : 1024;
	size_t m = argc > 2 ? (size_t)strtoull(argv[2], NULL, 10) : 500;
	unsigned dens = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 10) : 20;
	if (n < 2 || m < 1 || dens > 100) {
		fprintf(stderr, "usage: bench_jsm [N>=2 [M>=1 [D<=100]]]\n");
		return 2;
	}
	uint32_t *ids = xmalloc(n * m * sizeof *ids);
	size_t *off = xmalloc((n + 1) * sizeof *off);
	uint64_t r = 42;
	off[0] = 0;
	for (size_t i = 0; i < n; i++) {
		size_t k = off[i];
		for (size_t a = 0; a < m; a++) {
			r = r * 6364136223846793005ULL + 1442695040888963407ULL;
			if ((r >> 33) % 100 < dens)
				ids[k++] = (uint32_t)a;
		}
		off[i + 1] = k;
	}
	printf("context: %zu traces x %zu attributes, %.1f attributes per trace\n\n", n, m,
	       (double)off[n] / (double)n);

	ctx_bits c;
	double t0 = now();
	ctx_from_lists(&c, n, m, ids, off);
	double tctx = now() - t0;

	double *J = xmalloc(n * n * sizeof *J), *K = xmalloc(n * n * sizeof *K);
	double best = 1e9, bestw = 1e9;
	for (int rep = 0; rep < 10; rep++) {
		double w0 = now(), t0c = cpu();
		jac_matrix(&c, J);
		double t = cpu() - t0c, w = now() - w0;
		best = t < best ? t : best;
		bestw = w < bestw ? w : bestw;
	}
	double bestn = 1e9, bestnw = 1e9;
	for (int rep = 0; rep < 3; rep++) {
		double w0 = now(), t0c = cpu();
		naive(ids, off, n, K);
		double t = cpu() - t0c, w = now() - w0;
		bestn = t < bestn ? t : bestn;
		bestnw = w < bestnw ? w : bestnw;
	}
	if (memcmp(J, K, n * n * sizeof *J)) {
		fprintf(stderr, "bitset and sorted-array matrices differ\n");
		return 1;
	}
	double pairs = (double)n * (double)(n - 1) / 2;
	printf("%-40s %9.2f ms cpu %9.2f ms wall  (%.1f M pairs/s)\n",
	       "JSM on bitsets (jac_matrix, 1 core)", best * 1e3, bestw * 1e3, pairs / best / 1e6);
	printf("%-40s %9.2f ms cpu %9.2f ms wall  (%.1f M pairs/s)  %.1fx slower\n",
	       "JSM naive, sorted id arrays (peer)", bestn * 1e3, bestnw * 1e3, pairs / bestn / 1e6,
	       bestn / best);
	printf("%-40s %9.2f ms wall\n", "building the bitsets", tctx * 1e3);

	double *d = xmalloc((size_t)pairs * sizeof *d);
	clu_merge *mg = xmalloc((n - 1) * sizeof *mg);
	dt_err e;
	dt_err_clear(&e);
	t0 = now();
	clu_condensed_from_jsm(J, n, d);
	if (clu_linkage(d, n, CLU_WARD, mg, &e)) {
		fprintf(stderr, "%s\n", e.msg);
		return 1;
	}
	printf("%-40s %9.2f ms wall\n", "ward clustering on 1 - J", (now() - t0) * 1e3);
	free(mg);
	free(d);
	free(J);
	free(K);
	free(ids);
	free(off);
	ctx_free(&c);
	return 0;
}
