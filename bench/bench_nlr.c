/* bench_nlr.c: how fast NLR compresses, next to the plain Θ(K²) algorithm on the same events.
 *
 * For two synthetic traces of N events (default 10^8): workload.h's time-step loop (nested
 * loops, 1 in 64 compute iterations irregular), and a more irregular one (inner trip counts
 * that vary, branches, rare calls among hundreds of functions). For each K given (default 10)
 * it prints the rate of src/analysis/nlr.c (streamed in blocks of 2^20 events, as the analysis
 * does) and of the plain algorithm (bench/nlr_ref.h), in M events/s on one core, the
 * compression ratio (entries out / events in) and the number of loop bodies, and checks that
 * the two outputs and loop tables are identical (exit status 1 if not). Rates are on the
 * thread's CPU time, both in process.
 * Usage: bench_nlr [N [K...]] */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/nlr.h"
#include "nlr_ref.h"
#include "util/util.h"
#include "bench_build.h"
#include "workload.h"

/* CPU time of this thread: the rates are per core, whatever else the machine runs. */
static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* Compresses ev both ways; returns 0 when the outputs agree. */
static int run(const char *what, const uint32_t *ev, size_t n, unsigned k)
{
	dt_err e;
	dt_err_clear(&e);
	nlr_opts o = { k, 0, 0 };

	nlr_table *t = nlr_table_new();
	nlr_comp *c = nlr_comp_new(t, &o, &e);
	if (!c) {
		fprintf(stderr, "bench_nlr: %s\n", e.msg);
		return 1;
	}
	nlr_entry *out = NULL;
	size_t nout = 0, cap = 0;
	double t0 = now();
	for (size_t i = 0; i < n; i += (size_t)1 << 20) {
		size_t blk = n - i < ((size_t)1 << 20) ? n - i : (size_t)1 << 20, got;
		if (nlr_comp_push(c, ev + i, blk, &e)) {
			fprintf(stderr, "bench_nlr: %s\n", e.msg);
			return 1;
		}
		const nlr_entry *v = nlr_comp_take(c, &got);
		GROW(out, cap, nout + got + 1);
		memcpy(out + nout, v, got * sizeof *v);
		nout += got;
	}
	nlr_comp_finish(c);
	size_t got;
	const nlr_entry *v = nlr_comp_take(c, &got);
	GROW(out, cap, nout + got + 1);
	memcpy(out + nout, v, got * sizeof *v);
	nout += got;
	double tnlr = now() - t0;
	nlr_comp_free(c);

	nlr_table *tr = nlr_table_new();
	nlr_ref r;
	nlr_ref_init(&r, tr, &o);
	t0 = now();
	for (size_t i = 0; i < n; i++)
		nlr_ref_push(&r, ev[i]);
	nlr_ref_finish(&r);
	double tref = now() - t0;

	int same = r.nout == nout && !memcmp(r.out, out, nout * sizeof *out) && nlr_table_equal(t, tr);
	printf("%s: %zu events -> %zu entries (ratio %.5f), %u loop bodies\n", what, n, nout,
	       (double)nout / (double)n, nlr_table_count(t));
	printf("  nlr.c   K=%-3u %8.1f M events/s  (%.2f s CPU)\n", k, n / tnlr / 1e6, tnlr);
	printf("  plain   K=%-3u %8.1f M events/s  (%.2f s CPU)   nlr.c is %.1fx faster\n", k,
	       n / tref / 1e6, tref, tref / tnlr);
	printf("  outputs %s\n\n", same ? "identical" : "DIFFER");
	nlr_ref_free(&r);
	free(out);
	nlr_table_free(t);
	nlr_table_free(tr);
	return same ? 0 : 1;
}

int main(int argc, char **argv)
{
	bench_build();
	size_t n = argc > 1 ? (size_t)strtoull(argv[1], NULL, 10) : 100000000u;
	uint32_t *ev = xmalloc((n ? n : 1) * sizeof *ev);
	unsigned ks[16] = { 10 }, nk = 1;
	if (argc > 2)
		for (nk = 0; nk < 16 && (int)nk + 2 < argc; nk++)
			ks[nk] = (unsigned)strtoul(argv[nk + 2], NULL, 10);
	int bad = 0;
	workload_fill(ev, n, 42);
	for (unsigned i = 0; i < nk; i++)
		bad |= run("workload (nested loops, 1/64 irregular)", ev, n, ks[i]);
	irregular_fill(ev, n, 7);
	for (unsigned i = 0; i < nk; i++)
		bad |= run("irregular (varying trip counts, branches, rare calls)", ev, n, ks[i]);
	free(ev);
	return bad;
}
