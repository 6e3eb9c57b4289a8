/* bench_tl_stages.c: where the time of the interface's timeline and hang views goes, stage by
 * stage, on a run of a store: the same calls as their background tasks (tui/view_timeline.c,
 * tui/view_hang.c), each timed in thread CPU time, the best of REPS.
 *
 *   bench_tl_stages STORE RUN [REPS]   (default 5) */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "order/arrival.h"
#include "order/explain.h"
#include "order/filter.h"
#include "order/hang.h"
#include "order/rules.h"
#include "store/store.h"
#include "store/store_sync.h"

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

enum { S_READ, S_CLOCKS, S_ARRIVAL, S_RULES, S_ORDER, S_EXPLAIN, S_PEER, S_HANG, S_N };
static const char *const sname[S_N] = {
	"read the sync events (store_sync_list)", "read the clocks (store_sync_clocks)",
	"arrival order (ord_arrival)", "load and bind the rules", "causality filter (ord_order)",
	"explain index (ord_explain_new)", "message partners (ord_explain_peer)",
	"hang report (hang_analyze)",
};

static void die(const dt_err *e)
{
	fprintf(stderr, "bench_tl_stages: %s\n", e->msg);
	exit(1);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: bench_tl_stages STORE RUN [REPS]\n");
		return 2;
	}
	int reps = argc > 3 ? atoi(argv[3]) : 5;
	dt_err e;
	dt_err_clear(&e);
	store *s;
	if (store_open(argv[1], STORE_OPEN_READ, &s, &e))
		die(&e);
	store_run run;
	if (store_run_get(s, argv[2], &run, &e))
		die(&e);
	double best[S_N];
	for (int k = 0; k < S_N; k++)
		best[k] = 1e30;
	size_t n = 0;
	for (int r = 0; r < reps; r++) {
		double t[S_N + 1];
		dt_sync_event *ev;
		store_sync_clock *ck;
		size_t nck;
		t[0] = now_ms();
		if (store_sync_list(s, run.id, &ev, &n, &e))
			die(&e);
		t[1] = now_ms();
		if (store_sync_clocks(s, run.id, &ck, &nck, &e))
			die(&e);
		t[2] = now_ms();
		size_t nhost;
		int64_t *off = ord_host_offsets(ev, n, ck, nck, &nhost);
		size_t *idx = malloc((n ? n : 1) * sizeof *idx);
		dt_sync_event *av = malloc((n ? n : 1) * sizeof *av);
		ord_arrival(ev, n, off, idx);
		for (size_t i = 0; i < n; i++)
			av[i] = ev[idx[i]];
		t[3] = now_ms();
		size_t nn;
		const char *const *names = store_func_names(s, &nn);
		ord_rules *rules = ord_rules_new();
		if (ord_rules_load_default(rules, &e) || ord_rules_bind(rules, names, (uint32_t)nn, &e))
			die(&e);
		t[4] = now_ms();
		ord_filter_opts fo = { ORD_CONCURRENT, off, nhost, 0, 0 };
		ord_item *it;
		size_t nit;
		char *held = NULL;
		if (ord_order_levelled(rules, &fo, av, n, &it, &nit, &held, &e))
			die(&e);
		t[5] = now_ms();
		uint64_t *order = malloc((nit ? nit : 1) * sizeof *order);
		for (size_t i = 0; i < nit; i++)
			order[i] = it[i].id;
		ord_explain *x = ord_explain_new(rules, av, n, order, nit);
		t[6] = now_ms();
		ord_explain_peer(x, 0);
		t[7] = now_ms();
		hang_report hr;
		if (hang_analyze(ev, n, names, nn, &hr, &e))
			die(&e);
		t[8] = now_ms();
		hang_report_free(&hr);
		for (int k = 0; k < S_N; k++)
			if (t[k + 1] - t[k] < best[k])
				best[k] = t[k + 1] - t[k];
		ord_explain_free(x);
		free(order);
		free(it);
		free(held);
		ord_rules_free(rules);
		free(av);
		free(idx);
		free(off);
		free(ck);
		free(ev);
	}
	printf("bench_tl_stages: run %s, %zu sync events, thread CPU ms, best of %d\n", argv[2], n,
	       reps);
	double tl = 0;
	for (int k = 0; k < S_N; k++) {
		printf("  %-42s %8.1f\n", sname[k], best[k]);
		if (k != S_HANG)
			tl += best[k];
	}
	printf("  %-42s %8.1f  (the timeline's rows not included)\n", "timeline: all of the above but the hang report", tl);
	printf("  %-42s %8.1f\n", "hang view: read + hang report", best[S_READ] + best[S_HANG]);
	store_run_free(&run);
	store_close(s);
	return 0;
}
