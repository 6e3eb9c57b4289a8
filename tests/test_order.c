/* test_order.c: the causality filter and the independent checker on synthetic runs (point to
 * point with wildcards, nonblocking with Waitall and Wait, every collective kind, critical
 * sections, locks, fork/join), with clock skew and drift per host and shuffled arrival: every
 * policy's output passes the checker and keeps each thread's order; minimal intervention is the
 * identity on a valid input; the adjusted timestamps never put a receive before its send and move
 * less than a plain forward correction; the checker catches broken orders; rules that never
 * release an event are reported with the event and the reason. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "order/arrival.h"
#include "order/check.h"
#include "order/filter.h"
#include "order/rules.h"
#include "synth_sync.h"

static ord_rules *shipped(void)
{
	ord_rules *r = ord_rules_new();
	dt_err e;
	dt_err_clear(&e);
	if (ord_rules_load_default(r, &e) || ord_rules_bind(r, synth_names, SY_NFUNC, &e)) {
		char b[1024];
		dt_err_format(&e, b, sizeof b);
		fprintf(stderr, "cannot load the shipped rules: %s\n", b);
		exit(1);
	}
	return r;
}

/* Runs the events in arrival order `arr` through a filter; returns the output (ids are indices
 * into s->ev). */
static ord_item *run(const ord_rules *r, synth *s, const uint64_t *arr, int policy, size_t *nout,
		     char **held)
{
	dt_sync_event *in = malloc(s->n * sizeof *in);
	for (size_t i = 0; i < s->n; i++)
		in[i] = s->ev[arr[i]];
	ord_filter_opts o = { policy, NULL, 0, 0, 0 };
	ord_item *it;
	dt_err e;
	dt_err_clear(&e);
	if (ord_order(r, &o, in, s->n, &it, nout, held, &e)) {
		char b[1024];
		dt_err_format(&e, b, sizeof b);
		fprintf(stderr, "ord_order (%s) failed: %s\n", ord_policy_name(policy), b);
		exit(1);
	}
	for (size_t i = 0; i < *nout; i++)
		it[i].id = arr[it[i].id];
	free(in);
	return it;
}

static int checked(const ord_rules *r, synth *s, const uint64_t *order, size_t n, const int64_t *ts,
		   const char *what)
{
	dt_err e;
	dt_err_clear(&e);
	if (ord_check(r, s->ev, s->n, order, n, ts, &e) == 0)
		return 1;
	char b[1024];
	dt_err_format(&e, b, sizeof b);
	fprintf(stderr, "%s: the checker refused the order: %s\n", what, b);
	return 0;
}

static size_t kinds_in_run(synth *s, int *seen)
{
	size_t k = 0;
	memset(seen, 0, SY_NFUNC * sizeof *seen);
	for (size_t i = 0; i < s->n; i++)
		if (!seen[s->ev[i].func]++)
			k++;
	return k;
}

static void policies(const ord_rules *r, int nproc, int nthr, int per_host, int64_t skew, int64_t drift,
		     int64_t delay, uint64_t seed)
{
	synth s;
	synth_init(&s, nproc, nthr, per_host, skew, drift, seed);
	for (int i = 0; i < 39; i++)
		synth_round(&s, -1);
	int seen[SY_NFUNC];
	CHECK_EQ_INT(kinds_in_run(&s, seen), SY_NFUNC); /* every pattern is in the run */
	uint64_t *arr = malloc(s.n * sizeof *arr), *ord = malloc(s.n * sizeof *ord);
	int64_t *ts = malloc(s.n * sizeof *ts);
	synth_arrival(&s, 0, s.n, delay, arr);
	/* the arrival itself breaks the rules (else the test proves nothing) */
	dt_err e;
	dt_err_clear(&e);
	CHECK(ord_check(r, s.ev, s.n, arr, s.n, NULL, &e) != 0);
	char what[128];
	for (int p = 0; p < 3; p++) {
		size_t n;
		char *held = NULL;
		ord_item *it = run(r, &s, arr, p, &n, &held);
		snprintf(what, sizeof what, "policy %s, %d procs x %d threads, seed %llu",
			 ord_policy_name(p), nproc, nthr, (unsigned long long)seed);
		if (n != s.n)
			fprintf(stderr, "%s: %zu of %zu events released; held: %s\n", what, n, s.n,
				held ? held : "?");
		CHECK_EQ_INT(n, s.n);
		free(held);
		for (size_t i = 0; i < n; i++) {
			ord[i] = it[i].id;
			ts[it[i].id] = it[i].ts;
		}
		CHECK(checked(r, &s, ord, n, p == ORD_TIMESTAMP ? ts : NULL, what));
		if (p == ORD_CONCURRENT) {
			/* steps never go back, a step has at most one event of a thread, and any order
			 * of the events within each step is valid: try the reverse */
			int ok = 1;
			for (size_t i = 1; i < n; i++)
				ok &= it[i].step >= it[i - 1].step;
			CHECK(ok);
			size_t i = 0;
			while (i < n) {
				size_t j = i;
				while (j < n && it[j].step == it[i].step)
					j++;
				for (size_t a = i; a < j; a++)
					for (size_t b = a + 1; b < j && b < a + 64; b++)
						if (s.ev[it[a].id].proc == s.ev[it[b].id].proc &&
						    s.ev[it[a].id].thread == s.ev[it[b].id].thread)
							ok = 0;
				for (size_t a = i; a < j; a++)
					ord[a] = it[i + j - 1 - a].id;
				i = j;
			}
			CHECK(ok);
			char w2[160];
			snprintf(w2, sizeof w2, "%s, each step reversed", what);
			CHECK(checked(r, &s, ord, n, NULL, w2));
			CHECK(it[n - 1].step < n / 2); /* concurrency was found */
		}
		if (p == ORD_TIMESTAMP) {
			/* sorted by adjusted timestamp (stable), the events are in a valid order */
			synth_key *k = malloc(n * sizeof *k);
			for (size_t i = 0; i < n; i++)
				k[i] = (synth_key){ it[i].ts, i };
			qsort(k, n, sizeof *k, synth_key_cmp);
			for (size_t i = 0; i < n; i++)
				ord[i] = it[k[i].i].id;
			free(k);
			char w2[160];
			snprintf(w2, sizeof w2, "%s, sorted by adjusted timestamp", what);
			CHECK(checked(r, &s, ord, n, NULL, w2));
			/* fewer events moved, and by less, than a plain forward correction (every
			 * later event of a thread moved by the same amount as the receive) */
			size_t moved = 0, fmoved = 0;
			int64_t total = 0, ftotal = 0;
			int64_t *shift = calloc((size_t)nproc * (size_t)nthr, sizeof *shift);
			for (size_t i = 0; i < n; i++) {
				const dt_sync_event *x = &s.ev[it[i].id];
				size_t t = (size_t)x->proc * (size_t)nthr + (size_t)x->thread;
				if (it[i].adj) {
					moved++;
					total += it[i].adj;
				}
				int64_t need = it[i].adj > shift[t] ? it[i].adj : shift[t];
				shift[t] = need;
				if (need) {
					fmoved++;
					ftotal += need;
				}
			}
			free(shift);
			if (skew && !(moved < fmoved && total < ftotal))
				fprintf(stderr, "%s: moved %zu events by %lld ns in all; the forward correction %zu by %lld\n",
					what, moved, (long long)total, fmoved, (long long)ftotal);
			if (skew) {
				CHECK(moved > 0);
				CHECK(moved < fmoved);
				CHECK(total < ftotal);
			}
			/* never moved back, and never back in the order of delivery (the paper's
			 * adjustment: consistent with the order the events are delivered in) */
			int mono = 1;
			for (size_t i = 0; i < n; i++)
				mono &= it[i].adj >= 0 && (!i || it[i].ts >= it[i - 1].ts);
			CHECK(mono);
		}
		free(it);
	}
	/* minimal intervention is the identity on an order that is already valid */
	synth_true_order(&s, arr);
	CHECK(checked(r, &s, arr, s.n, NULL, "the true order"));
	size_t n;
	ord_item *it = run(r, &s, arr, ORD_MINIMAL, &n, NULL);
	CHECK_EQ_INT(n, s.n);
	size_t diff = 0;
	for (size_t i = 0; i < n; i++)
		diff += it[i].id != arr[i];
	if (diff)
		fprintf(stderr, "minimal intervention moved %zu of %zu events of a valid input\n", diff, n);
	CHECK_EQ_INT(diff, 0);
	free(it);
	if (!skew && !drift) {
		/* one clock and an input in its order: the timestamps need no move */
		it = run(r, &s, arr, ORD_TIMESTAMP, &n, NULL);
		size_t moved = 0;
		for (size_t i = 0; i < n; i++)
			moved += it[i].adj != 0;
		CHECK_EQ_INT(moved, 0);
		free(it);
	}
	free(arr);
	free(ord);
	free(ts);
	synth_free(&s);
}

/* The checker on orders that break a rule or a thread's order. */
static void checker_refuses(const ord_rules *r)
{
	synth s;
	synth_init(&s, 2, 1, 1, 0, 0, 7);
	synth_round(&s, 0); /* 0 sends to 1, 1 receives */
	uint64_t ord[64];
	synth_true_order(&s, ord);
	CHECK(checked(r, &s, ord, s.n, NULL, "exchange"));
	/* move 1's receive exit (its 2nd event) to the front: before 0's send */
	size_t rx = 0;
	for (size_t i = 0; i < s.n; i++)
		if (s.ev[ord[i]].proc == 1 && s.ev[ord[i]].seq == 1)
			rx = i;
	uint64_t bad[64];
	size_t m = 0;
	for (size_t i = 0; i < s.n; i++)
		if (s.ev[ord[i]].proc == 1 && s.ev[ord[i]].seq <= 1)
			bad[m++] = ord[i];
	for (size_t i = 0; i < s.n; i++)
		if (!(s.ev[ord[i]].proc == 1 && s.ev[ord[i]].seq <= 1))
			bad[m++] = ord[i];
	dt_err e;
	dt_err_clear(&e);
	CHECK(ord_check(r, s.ev, s.n, bad, s.n, NULL, &e) != 0);
	char b[1024];
	dt_err_format(&e, b, sizeof b);
	CHECK(strstr(b, "breaks rule") && strstr(b, "mpi-p2p.rules") && strstr(b, "RECV(0, 0, 1, 5, 1)"));
	(void)rx;
	/* a thread's order */
	uint64_t sw[64];
	memcpy(sw, ord, s.n * sizeof *sw);
	size_t a = 0, c = 0;
	for (size_t i = 0; i < s.n; i++) {
		if (s.ev[sw[i]].proc == 0 && s.ev[sw[i]].seq == 0)
			a = i;
		if (s.ev[sw[i]].proc == 0 && s.ev[sw[i]].seq == 1)
			c = i;
	}
	uint64_t t = sw[a];
	sw[a] = sw[c];
	sw[c] = t;
	dt_err_clear(&e);
	CHECK(ord_check(r, s.ev, s.n, sw, s.n, NULL, &e) != 0);
	dt_err_format(&e, b, sizeof b);
	CHECK(strstr(b, "breaks its thread's order") != NULL);
	/* delivered twice */
	sw[1] = sw[0];
	dt_err_clear(&e);
	CHECK(ord_check(r, s.ev, s.n, sw, s.n, NULL, &e) != 0);
	/* adjusted timestamps with a receive ending before its send began */
	int64_t ts[64];
	for (size_t i = 0; i < s.n; i++)
		ts[i] = s.ev[i].ts;
	for (size_t i = 0; i < s.n; i++)
		if (s.ev[i].proc == 1 && s.ev[i].seq == 1)
			ts[i] = 0, ts[i - 1] = 0;
	dt_err_clear(&e);
	CHECK(ord_check(r, s.ev, s.n, ord, s.n, ts, &e) != 0);
	dt_err_format(&e, b, sizeof b);
	CHECK(strstr(b, "under the adjusted timestamps") != NULL);
	synth_free(&s);
}

/* A missing send: the receive is held, and the report says what it waits for. */
static void missing_send(const ord_rules *r)
{
	synth s;
	synth_init(&s, 2, 1, 1, 0, 0, 9);
	synth_round(&s, 0);
	/* drop 0's send (its first two events) */
	dt_sync_event *ev = malloc(s.n * sizeof *ev);
	size_t m = 0;
	for (size_t i = 0; i < s.n; i++)
		if (!(s.ev[i].proc == 0 && s.ev[i].seq <= 1))
			ev[m++] = s.ev[i];
	ord_filter_opts o = { ORD_MINIMAL, NULL, 0, 0, 0 };
	ord_item *it;
	size_t n;
	char *held = NULL;
	dt_err e;
	dt_err_clear(&e);
	CHECK_EQ_INT(ord_order(r, &o, ev, m, &it, &n, &held, &e), 0);
	CHECK(n < m);
	CHECK(held != NULL);
	if (held && !strstr(held, "1.0 #1 MPI_Recv exit") )
		fprintf(stderr, "held report: %s\n", held);
	CHECK(held && strstr(held, "1.0 #1 MPI_Recv exit"));
	CHECK(held && strstr(held, "needs SEND(0, 0, 1, 5, 1): none of that key delivered"));
	free(held);
	free(it);
	free(ev);
	synth_free(&s);
}

/* A rule file that never releases an event is reported, not buffered without bound. */
static void never_releases(void)
{
	const char *text = "event SENT(proc) on exit /^MPI_Send$/;\n"
			   "event NEVER(proc) on exit /^MPI_Recv$/;\n"
			   "rule NEVER(p, n) <- SENT(p + 100, n);\n";
	ord_rules *r = ord_rules_new();
	dt_err e;
	dt_err_clear(&e);
	CHECK_EQ_INT(ord_rules_parse(r, text, strlen(text), "never.rules", &e), 0);
	CHECK_EQ_INT(ord_rules_bind(r, synth_names, SY_NFUNC, &e), 0);
	synth s;
	synth_init(&s, 4, 1, 1, 0, 0, 3);
	for (int i = 0; i < 200; i++)
		synth_round(&s, 0);
	ord_filter_opts o = { ORD_MINIMAL, NULL, 0, 100, 0 };
	ord_item *it;
	size_t n;
	dt_err_clear(&e);
	CHECK(ord_order(r, &o, s.ev, s.n, &it, &n, NULL, &e) != 0);
	char b[2048];
	dt_err_format(&e, b, sizeof b);
	if (!strstr(b, "the rules release nothing: 100 events held (limit 100)") ||
	    !strstr(b, "MPI_Recv exit") || !strstr(b, "rule never.rules:3") ||
	    !strstr(b, "needs SENT(100, 1)"))
		fprintf(stderr, "never-releasing rules were reported as: %s\n", b);
	CHECK(strstr(b, "the rules release nothing: 100 events held (limit 100)") != NULL);
	CHECK(strstr(b, "MPI_Recv exit") != NULL);
	CHECK(strstr(b, "rule never.rules:3") != NULL);
	CHECK(strstr(b, "needs SENT(100, 1)") != NULL);
	/* the same with the concurrent policy */
	o.policy = ORD_CONCURRENT;
	dt_err_clear(&e);
	CHECK(ord_order(r, &o, s.ev, s.n, &it, &n, NULL, &e) != 0);
	synth_free(&s);
	ord_rules_free(r);
}

/* Negation and the initial facts of a user's rules, and host offsets. */
static void user_rules(void)
{
	/* the paper's MUTEX_INIT: a lock is initialised once, before any acquisition */
	const char *text = "event INIT(proc) on enter /^MPI_Barrier$/ seq count;\n"
			   "event SEND(proc) on enter /^MPI_Send$/;\n"
			   "rule INIT(p, n) <- !INIT(p, 1) || n > 1;\n"
			   "initial INIT(_, 0);\n"
			   "rule SEND(p, n) <- INIT(p, n - 1);\n";
	ord_rules *r = ord_rules_new();
	dt_err e;
	dt_err_clear(&e);
	CHECK_EQ_INT(ord_rules_parse(r, text, strlen(text), "u.rules", &e), 0);
	CHECK_EQ_INT(ord_rules_bind(r, synth_names, SY_NFUNC, &e), 0);
	/* thread 0.1 sends twice; thread 0.0 enters a barrier twice; the sends arrive first */
	dt_sync_event ev[4];
	for (int i = 0; i < 4; i++) {
		ev[i] = synth_tmpl();
		ev[i].proc = 0;
		ev[i].phase = DT_SYNC_ENTER;
		ev[i].thread = i < 2;
		ev[i].seq = (uint32_t)(i % 2);
		ev[i].func = i < 2 ? SY_SEND : SY_BARRIER;
		ev[i].ts = i < 2 ? 100 + i : 150 + i - 2;
	}
	ord_filter_opts o = { ORD_TIMESTAMP, NULL, 0, 0, 0 };
	ord_item *it;
	size_t n;
	dt_err_clear(&e);
	CHECK_EQ_INT(ord_order(r, &o, ev, 4, &it, &n, NULL, &e), 0);
	CHECK_EQ_INT(n, 4);
	/* the first send needs INIT 0 (initial), the second INIT 1 */
	if (n == 4) {
		CHECK_EQ_INT(it[0].id, 0);
		CHECK_EQ_INT(it[1].id, 2);
		CHECK_EQ_INT(it[2].id, 1);
		CHECK_EQ_INT(it[3].id, 3);
		CHECK_EQ_INT(it[2].ts, 151); /* after INIT 1 (150) */
		CHECK_EQ_INT(it[2].adj, 50);
		uint64_t ord[4];
		int64_t ts[4];
		for (int i = 0; i < 4; i++)
			ord[i] = it[i].id, ts[it[i].id] = it[i].ts;
		CHECK_EQ_INT(ord_check(r, ev, 4, ord, 4, ts, &e), 0);
	}
	free(it);
	/* host offsets shift timestamps */
	int64_t off[1] = { 1000 };
	o.policy = ORD_MINIMAL;
	o.host_off = off;
	o.nhost = 1;
	CHECK_EQ_INT(ord_order(r, &o, ev, 4, &it, &n, NULL, &e), 0);
	CHECK_EQ_INT(it[0].ts, 1100);
	CHECK_EQ_INT(it[0].adj, 0);
	free(it);
	ord_rules_free(r);
}

/* Streaming a long run keeps the filter's tables bounded: held events stay few, and the count
 * entries of finished collectives and regions are dropped. */
static void bounded(const ord_rules *r)
{
	synth s;
	synth_init(&s, 8, 2, 2, 20000, 20, 4);
	ord_filter_opts o = { ORD_MINIMAL, NULL, 0, 256, 0 };
	ord_filter *f = ord_filter_new(r, &o, NULL, NULL);
	uint64_t *arr = NULL;
	size_t mid = 0, peak = 0;
	dt_err e;
	dt_err_clear(&e);
	for (int chunk = 0; chunk < 40; chunk++) {
		s.n = 0;
		for (int i = 0; i < 100; i++)
			synth_round(&s, -1);
		arr = realloc(arr, s.n * sizeof *arr);
		synth_arrival(&s, 0, s.n, 30000, arr);
		for (size_t i = 0; i < s.n; i++)
			CHECK_EQ_INT(ord_filter_push(f, &s.ev[arr[i]], i, &e), 0);
		size_t b = ord_filter_bytes(f);
		if (chunk == 9)
			mid = b;
		if (b > peak)
			peak = b;
	}
	CHECK_EQ_INT(ord_filter_drain(f), 0);
	if (peak > mid * 3 / 2)
		fprintf(stderr, "the filter's tables grew from %zu bytes (10 chunks) to %zu (40 chunks)\n", mid, peak);
	CHECK(peak <= mid * 3 / 2);
	CHECK(ord_filter_peak_held(f) < 256);
	ord_filter_free(f);
	free(arr);
	synth_free(&s);
}

/* ---- the arrival order (arrival.c): its merge of the threads against a plain sort ---- */

static const dt_sync_event *ref_ev;
static const int64_t *ref_off;

static int ref_cmp(const void *a, const void *b)
{
	const dt_sync_event *x = &ref_ev[*(const size_t *)a], *y = &ref_ev[*(const size_t *)b];
	if (x->proc == y->proc && x->thread == y->thread)
		return x->seq < y->seq ? -1 : x->seq > y->seq;
	int64_t tx = x->ts + ref_off[x->host], ty = y->ts + ref_off[y->host];
	if (tx != ty)
		return tx < ty ? -1 : 1;
	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	return x->thread < y->thread ? -1 : 1;
}

/* Threads x events, with timestamps that tie across threads and hosts with offsets; back: a
 * thread's clock goes back once (then the plain sort decides); shuffled: threads not grouped. */
static void arrival_case(int threads, int per, int back, int shuffled, unsigned seed)
{
	size_t n = (size_t)threads * (size_t)per;
	dt_sync_event *ev = calloc(n, sizeof *ev);
	size_t *got = malloc(n * sizeof *got), *want = malloc(n * sizeof *want);
	int64_t off[3] = { 0, -700, 1300 };
	srand(seed);
	for (int t = 0; t < threads; t++) {
		int64_t ts = rand() % 2 * 100; /* ties across threads and processes */
		for (int k = 0; k < per; k++) {
			dt_sync_event *e = &ev[(size_t)t * (size_t)per + (size_t)k];
			e->proc = t / 2;
			e->thread = t % 2;
			e->host = (t / 2) % 3;
			e->seq = (uint32_t)k * 2 + 1;
			ts += rand() % 3 * 100; /* steps of 0: ties within and across threads */
			if (back && t == threads / 2 && k == per / 2)
				ts -= 1000;
			e->ts = ts;
		}
	}
	if (shuffled && n > 1) { /* the last thread first */
		dt_sync_event *c = malloc(n * sizeof *c);
		memcpy(c, ev + n - (size_t)per, (size_t)per * sizeof *c);
		memcpy(c + per, ev, (n - (size_t)per) * sizeof *c);
		memcpy(ev, c, n * sizeof *c);
		free(c);
	}
	for (size_t i = 0; i < n; i++)
		want[i] = i;
	ref_ev = ev;
	ref_off = off;
	qsort(want, n, sizeof *want, ref_cmp);
	ord_arrival(ev, n, off, got);
	size_t diff = 0;
	for (size_t i = 0; i < n; i++)
		diff += !back && got[i] != want[i];
	if (diff)
		fprintf(stderr, "arrival order: %zu of %zu events differ from the plain sort "
			"(%d threads, shuffled %d)\n", diff, n, threads, shuffled);
	CHECK_EQ_INT(diff, 0);
	/* a clock going back: each thread's own order is kept all the same */
	uint32_t *last = calloc((size_t)threads, sizeof *last);
	for (size_t i = 0; i < n; i++) {
		const dt_sync_event *e = &ev[got[i]];
		size_t t = (size_t)e->proc * 2 + (size_t)e->thread;
		CHECK(e->seq > last[t]);
		last[t] = e->seq;
	}
	free(last);
	free(ev);
	free(got);
	free(want);
}

static void arrival(void)
{
	arrival_case(1, 10, 0, 0, 1);
	arrival_case(8, 200, 0, 0, 2);
	arrival_case(64, 50, 0, 0, 3);
	arrival_case(8, 200, 0, 1, 4);
	arrival_case(8, 200, 1, 0, 5);
	arrival_case(0, 0, 0, 0, 6);
}

int main(void)
{
	ord_rules *r = shipped();
	/* one host, then skewed and drifting hosts with more disorder */
	policies(r, 4, 3, 4, 0, 0, 5000, 1);
	policies(r, 6, 3, 2, 20000, 50, 30000, 2);
	policies(r, 9, 2, 3, 50000, 200, 100000, 3);
	checker_refuses(r);
	missing_send(r);
	never_releases();
	user_rules();
	bounded(r);
	arrival();
	ord_rules_free(r);
	CHECK_DONE();
}
