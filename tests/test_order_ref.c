/* test_order_ref.c: the causality filter (src/order/filter.c, whose tables were made faster)
 * against its previous version kept as the reference (tests/order_filter_ref.c), on random
 * synthetic runs: random sizes, seeds, clock skew, arrival delays, host offsets, held-event
 * limits small enough that finished count entries are dropped often, drains at random points,
 * and runs cut short so that events stay held. Under every policy both must release the same
 * events in the same order with the same index, step, timestamp and adjustment, fail on the
 * same push (the message's wording is not compared: it may change on its own), and explain the
 * held events in the same words. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "order/filter.h"
#include "order/rules.h"
#include "synth_sync.h"

ord_filter *ordref_filter_new(const ord_rules *r, const ord_filter_opts *o, ord_emit_fn emit,
			      void *ctx);
void ordref_filter_free(ord_filter *f);
int ordref_filter_push(ord_filter *f, const dt_sync_event *e, uint64_t id, dt_err *err);
size_t ordref_filter_drain(ord_filter *f);
size_t ordref_filter_held(const ord_filter *f);
size_t ordref_filter_peak_held(const ord_filter *f);
char *ordref_filter_explain(ord_filter *f, size_t max_lines);

typedef struct outs {
	ord_out *o;
	size_t n, cap;
} outs;

static void keep(void *ctx, const ord_out *o)
{
	outs *c = ctx;
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 1024;
		c->o = realloc(c->o, c->cap * sizeof *c->o);
	}
	c->o[c->n] = *o;
	c->o[c->n++].ev = NULL; /* valid during the callback only */
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

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

/* One random run through both filters; returns the number of events released. */
static size_t one(const ord_rules *r, uint64_t seed)
{
	uint64_t g = seed * 0x9e3779b97f4a7c15ull + 1;
	int nproc = 2 + (int)(rnd(&g) % 23), nthr = 1 + (int)(rnd(&g) % 4);
	int per_host = 1 + (int)(rnd(&g) % 4);
	int64_t skew = (int64_t)(rnd(&g) % 40000), drift = (int64_t)(rnd(&g) % 40);
	synth s;
	synth_init(&s, nproc, nthr, per_host, skew, drift, seed);
	size_t want = 200 + rnd(&g) % 6000;
	while (s.n < want)
		synth_round(&s, rnd(&g) % 4 ? -1 : (int)(rnd(&g) % 13));
	uint64_t *arr = malloc(s.n * sizeof *arr);
	synth_arrival(&s, 0, s.n, (int64_t)(rnd(&g) % 200000), arr);
	int policy = (int)(rnd(&g) % 3);
	int64_t off[64];
	size_t nhost = (size_t)(nproc + per_host - 1) / (size_t)per_host;
	for (size_t h = 0; h < nhost && h < 64; h++)
		off[h] = (int64_t)(rnd(&g) % 30000) - 15000;
	/* small limits: count entries are swept every 8 x limit deliveries */
	static const size_t limits[] = { 0, 64, 200, 1000, 5000 };
	const int64_t *use_off = rnd(&g) % 2 ? off : NULL;
	size_t limit = limits[rnd(&g) % 5];
	/* idle entries put aside after a few deliveries, and taken back (filter.c, sweep): the
	 * reference keeps every instance entry; the output must not tell them apart */
	static const uint64_t retire[] = { 0, 1, 2, 5, 40, UINT64_MAX };
	ord_filter_opts o = { policy, use_off, nhost < 64 ? nhost : 64, limit,
			      retire[rnd(&g) % 6] };
	/* cut short: the last events never come, so some stay held */
	size_t n = s.n;
	if (rnd(&g) % 3 == 0)
		n -= s.n / (2 + rnd(&g) % 8);
	outs a = { 0 }, b = { 0 };
	ord_filter *fa = ord_filter_new(r, &o, keep, &a), *fb = ordref_filter_new(r, &o, keep, &b);
	int fail_a = 0, fail_b = 0;
	for (size_t i = 0; i < n && !fail_a && !fail_b; i++) {
		dt_err ea, eb;
		dt_err_clear(&ea);
		dt_err_clear(&eb);
		fail_a = ord_filter_push(fa, &s.ev[arr[i]], arr[i], &ea) != 0;
		fail_b = ordref_filter_push(fb, &s.ev[arr[i]], arr[i], &eb) != 0;
		if (rnd(&g) % 64 == 0) {
			CHECK_EQ_INT(ord_filter_drain(fa), ordref_filter_drain(fb));
		}
	}
	CHECK_EQ_INT(fail_a, fail_b);
	if (!fail_a && !fail_b) {
		CHECK_EQ_INT(ord_filter_drain(fa), ordref_filter_drain(fb));
	}
	CHECK_EQ_INT(ord_filter_held(fa), ordref_filter_held(fb));
	CHECK_EQ_INT(ord_filter_peak_held(fa), ordref_filter_peak_held(fb));
	CHECK_EQ_INT(a.n, b.n);
	size_t bad = 0;
	for (size_t i = 0; i < a.n && i < b.n; i++) {
		const ord_out *x = &a.o[i], *y = &b.o[i];
		if (x->id != y->id || x->index != y->index || x->step != y->step || x->ts != y->ts ||
		    x->adj != y->adj) {
			if (!bad++)
				fprintf(stderr,
					"seed %" PRIu64 " (%s): output %zu differs: id %" PRIu64
					" step %" PRIu64 " ts %" PRId64 ", reference id %" PRIu64
					" step %" PRIu64 " ts %" PRId64 "\n",
					seed, ord_policy_name(policy), i, x->id, x->step, x->ts, y->id,
					y->step, y->ts);
		}
	}
	CHECK_EQ_INT(bad, 0);
	char *xa = ord_filter_explain(fa, 20), *xb = ordref_filter_explain(fb, 20);
	CHECK_EQ_STR(xa, xb);
	free(xa);
	free(xb);
	ord_filter_free(fa);
	ordref_filter_free(fb);
	free(a.o);
	free(b.o);
	free(arr);
	synth_free(&s);
	return a.n;
}

int main(int argc, char **argv)
{
	ord_rules *r = shipped();
	int runs = argc > 1 ? atoi(argv[1]) : 150;
	size_t total = 0;
	for (int i = 1; i <= runs && !check_failures; i++)
		total += one(r, (uint64_t)i);
	printf("%d random runs, %zu events released by both filters alike\n", runs, total);
	ord_rules_free(r);
	return check_failures ? 1 : 0;
}
