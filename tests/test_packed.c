/* test_packed.c: the values packed for the store read back exactly: the ranking cache
 * (rankcache.h: every field of every verdict item, the hang-safe record's included, doubles bit
 * for bit, the keys, the pairs with their similarities, JSM_D's own tops) and an analysis's
 * objects (objects.h: every field of each trace, strings sharing prefixes, kept events,
 * attribute ids); and that a damaged value (cut anywhere, or a byte changed in its header)
 * is refused, never read as something else. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "analysis/objects.h"
#include "analysis/rankcache.h"
#include "util/util.h"

static uint64_t seed = 88172645463325252ull;

static uint64_t rnd(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return seed;
}

static double rnd_d(void)
{
	return (double)(rnd() % 1000000) / 7919.0;
}

static dt_sync_event rnd_ev(void)
{
	dt_sync_event x;
	memset(&x, 0, sizeof x);
	x.proc = (int32_t)(rnd() % 100) - 3;
	x.thread = (int32_t)(rnd() % 8);
	x.seq = (uint32_t)rnd();
	x.phase = (uint8_t)(rnd() % 4);
	x.func = (uint32_t)rnd();
	x.ts = (int64_t)rnd();
	x.host = -1;
	x.comm = (int32_t)(rnd() % 5);
	x.dest = -2;
	x.stag = (int32_t)rnd();
	x.src = 7;
	x.rtag = -9;
	x.root = 0;
	x.count = -(int64_t)(rnd() % 1000);
	x.datatype = 3;
	x.op = -1;
	x.req = rnd();
	x.obj = rnd();
	x.objseq = rnd() % 10;
	x.team = 4;
	x.tnum = 2;
	x.csize = 16;
	return x;
}

static int same_ev(const dt_sync_event *a, const dt_sync_event *b)
{
	return a->proc == b->proc && a->thread == b->thread && a->seq == b->seq &&
	       a->phase == b->phase && a->func == b->func && a->ts == b->ts && a->host == b->host &&
	       a->comm == b->comm && a->dest == b->dest && a->stag == b->stag && a->src == b->src &&
	       a->rtag == b->rtag && a->root == b->root && a->count == b->count &&
	       a->datatype == b->datatype && a->op == b->op && a->req == b->req &&
	       a->obj == b->obj && a->objseq == b->objseq && a->team == b->team &&
	       a->tnum == b->tnum && a->csize == b->csize;
}

static void bits_eq(double a, double b, int *ok)
{
	if (memcmp(&a, &b, sizeof a))
		*ok = 0;
}

static void test_rank_cache(size_t n, int running)
{
	rk_rank r;
	memset(&r, 0, sizeof r);
	r.j.n = n;
	r.j.keys = xmalloc((n ? n : 1) * sizeof *r.j.keys);
	for (size_t i = 0; i < n; i++)
		r.j.keys[i] = (rank_key){ (int)(i / 4), (int)(i % 4) };
	r.j.n_only_normal = 2;
	r.j.only_normal = xmalloc(2 * sizeof *r.j.only_normal);
	r.j.only_normal[0] = (rank_key){ 900, 0 };
	r.j.only_normal[1] = (rank_key){ -1, 3 };
	r.j.n_only_faulty = 0;
	r.j.only_faulty = xmalloc(sizeof *r.j.only_faulty);
	if (running) {
		r.j.running = xcalloc(n ? n : 1, 1);
		for (size_t i = 0; i < n; i += 3)
			r.j.running[i] = 1, r.j.n_running++;
		r.j.quiet = 12.5;
	}
	r.bscore = n >= 3 ? 0.123456789012345 : NAN;
	r.v.n = n;
	r.v.it = xcalloc(n ? n : 1, sizeof *r.v.it);
	for (size_t q = 0; q < n; q++) {
		vd_item *x = &r.v.it[q];
		x->i = n - 1 - q;
		x->change = (int)(rnd() % 3);
		x->rowsum = rnd_d();
		x->share = rnd_d() / 1000;
		x->score = x->change ? x->rowsum + x->share : 0;
		x->kept_n = rnd() % 100000;
		x->kept_f = rnd() % 100000;
		x->at = rnd() % 1000;
		x->ev_n = (uint32_t)rnd();
		x->ev_f = (uint32_t)rnd();
		x->last_f = (uint32_t)(rnd() % 50);
		x->running = running && q % 3 == 0;
		x->spun = q % 5 == 1;
		x->ended = q % 7 == 2;
		x->pos = q + 1 - (q % 2);
		if (q % 4 == 0) { /* the hang-safe record's */
			x->tier = (int)(q % 3);
			x->s_at = rnd() % 100;
			x->s_nn = rnd() % 1000;
			x->waiters = (size_t)(rnd() % 9);
			x->s_only = q % 8 == 0;
			x->s_state = (int)(rnd() % 4);
			x->s_func = (uint32_t)rnd();
			x->s_en = rnd_ev();
			x->s_ef = rnd_ev();
		}
		r.v.ndiff += x->change != 0;
	}
	r.npairs = n > 1 ? n - 1 : 0;
	r.pairs = xmalloc((r.npairs ? r.npairs : 1) * sizeof *r.pairs);
	r.pair_jn = xmalloc((r.npairs ? r.npairs : 1) * sizeof *r.pair_jn);
	r.pair_jf = xmalloc((r.npairs ? r.npairs : 1) * sizeof *r.pair_jf);
	for (size_t q = 0; q < r.npairs; q++) {
		r.pairs[q] = (rank_pair){ q, q + 1, rnd_d() };
		r.pair_jn[q] = 1.0 / (double)(q + 3);
		r.pair_jf[q] = 0.1 + 1e-17 * (double)q;
	}
	r.nord = n < RANK_TOP_MAX ? n : RANK_TOP_MAX;
	for (size_t q = 0; q < r.nord; q++)
		r.ord[q] = (rank_item){ q, rnd_d() };
	r.nprocs = 3;
	for (size_t q = 0; q < 3; q++) {
		r.procs[q] = (int)q * 2 - 1;
		r.procscore[q] = rnd_d();
	}

	dt_buf b = { 0 };
	rk_encode(&r, &b);
	rk_rank d;
	CHECK(rk_decode(b.p, b.len, &d) == 0);
	int ok = d.j.n == n && d.j.n_only_normal == 2 && d.j.n_only_faulty == 0 &&
		 d.j.n_running == r.j.n_running && (d.j.running != NULL) == running &&
		 d.v.n == n && d.v.ndiff == r.v.ndiff && d.npairs == r.npairs &&
		 d.nord == r.nord && d.nprocs == 3;
	CHECK(ok);
	if (ok) {
		for (size_t i = 0; i < n; i++)
			ok &= d.j.keys[i].proc == r.j.keys[i].proc &&
			      d.j.keys[i].thread == r.j.keys[i].thread &&
			      (!running || d.j.running[i] == r.j.running[i]);
		ok &= d.j.only_normal[1].proc == -1 && d.j.only_normal[1].thread == 3 &&
		      d.j.only_normal[0].proc == 900;
		bits_eq(d.j.quiet, r.j.quiet, &ok);
		bits_eq(d.bscore, r.bscore, &ok);
		for (size_t q = 0; q < n; q++) {
			const vd_item *x = &r.v.it[q], *y = &d.v.it[q];
			ok &= x->i == y->i && x->change == y->change && x->kept_n == y->kept_n &&
			      x->kept_f == y->kept_f && x->at == y->at && x->ev_n == y->ev_n &&
			      x->ev_f == y->ev_f && x->last_f == y->last_f &&
			      x->running == y->running && x->spun == y->spun &&
			      x->ended == y->ended && x->tier == y->tier && x->s_at == y->s_at &&
			      x->s_nn == y->s_nn && x->waiters == y->waiters &&
			      x->s_only == y->s_only && x->s_state == y->s_state &&
			      x->s_func == y->s_func && same_ev(&x->s_en, &y->s_en) &&
			      same_ev(&x->s_ef, &y->s_ef) && x->pos == y->pos;
			bits_eq(x->rowsum, y->rowsum, &ok);
			bits_eq(x->share, y->share, &ok);
			bits_eq(x->score, y->score, &ok);
		}
		for (size_t q = 0; q < r.npairs; q++) {
			ok &= d.pairs[q].i == r.pairs[q].i && d.pairs[q].j == r.pairs[q].j;
			bits_eq(d.pairs[q].score, r.pairs[q].score, &ok);
			bits_eq(d.pair_jn[q], r.pair_jn[q], &ok);
			bits_eq(d.pair_jf[q], r.pair_jf[q], &ok);
		}
		for (size_t q = 0; q < r.nord; q++) {
			ok &= d.ord[q].i == r.ord[q].i;
			bits_eq(d.ord[q].score, r.ord[q].score, &ok);
		}
		for (size_t q = 0; q < 3; q++) {
			ok &= d.procs[q] == r.procs[q];
			bits_eq(d.procscore[q], r.procscore[q], &ok);
		}
		CHECK(ok);
	}
	rk_free(&d);
	/* cut anywhere: refused */
	for (size_t cut = 0; cut < b.len; cut += 1 + cut / 8) {
		rk_rank x;
		CHECK(rk_decode(b.p, cut, &x) == -1);
	}
	/* another layout's header: refused */
	uint8_t first = b.p[0];
	b.p[0] ^= 0x01;
	rk_rank x;
	CHECK(rk_decode(b.p, b.len, &x) == -1);
	b.p[0] = first;
	buf_free(&b);
	rk_free(&r);
}

static void test_objects(size_t n)
{
	store_trace *t = xcalloc(n ? n : 1, sizeof *t);
	uint64_t *nf = xmalloc((n ? n : 1) * sizeof *nf);
	uint32_t **ids = xcalloc(n ? n : 1, sizeof *ids);
	size_t *nids = xcalloc(n ? n : 1, sizeof *nids);
	an_objects_w w;
	an_objects_begin(&w, n);
	for (size_t i = 0; i < n; i++) {
		char src[64];
		snprintf(src, sizeof src, "/data/run/%zu.%zu.txt", i / 4, i % 4);
		t[i] = (store_trace){ .id = (int64_t)(1000 + i * 3 - (i % 2)), .run_id = 2,
				      .proc = (int)(i / 4), .thread = (int)(i % 4),
				      .pid = (int64_t)rnd() % 100000, .tid = -5, .rank = (int64_t)(i / 4),
				      .host = xstrdup(i % 3 ? "node-a" : "node-b"),
				      .source = xstrdup(src), .note = xstrdup(i == 2 ? "cut\n" : ""),
				      .nevents = rnd() % 100000, .ncalls = rnd() % 1000,
				      .maxdepth = (int)(rnd() % 30), .flags = (unsigned)(rnd() % 64),
				      .has_time = (int)(i % 2), .first_ts = rnd(), .last_ts = rnd(),
				      .bytes = (int64_t)(rnd() % 100000), .nargs = -1,
				      .ngaps = (int64_t)(i % 3) };
		nf[i] = rnd() % 5000;
		nids[i] = (size_t)(rnd() % 6);
		ids[i] = xmalloc((nids[i] ? nids[i] : 1) * sizeof *ids[i]);
		uint32_t a = 0;
		for (size_t k = 0; k < nids[i]; k++)
			ids[i][k] = a += 1 + (uint32_t)(rnd() % 300);
		an_objects_put(&w, &t[i], nf[i], ids[i], nids[i]);
	}
	store_trace *u = xcalloc(n ? n : 1, sizeof *u);
	uint64_t *unf = xcalloc(n ? n : 1, sizeof *unf);
	uint32_t **uids = xcalloc(n ? n : 1, sizeof *uids);
	size_t *unids = xcalloc(n ? n : 1, sizeof *unids);
	CHECK(an_objects_decode(w.b.p, w.b.len, n, u, unf, uids, unids, NULL) == 0);
	int ok = 1;
	for (size_t i = 0; i < n; i++) {
		ok &= u[i].id == t[i].id && u[i].run_id == t[i].run_id && u[i].proc == t[i].proc &&
		      u[i].thread == t[i].thread && u[i].pid == t[i].pid && u[i].tid == t[i].tid &&
		      u[i].rank == t[i].rank && !strcmp(u[i].host, t[i].host) &&
		      !strcmp(u[i].source, t[i].source) && !strcmp(u[i].note, t[i].note) &&
		      u[i].nevents == t[i].nevents && u[i].ncalls == t[i].ncalls &&
		      u[i].maxdepth == t[i].maxdepth && u[i].flags == t[i].flags &&
		      u[i].has_time == t[i].has_time && u[i].first_ts == t[i].first_ts &&
		      u[i].last_ts == t[i].last_ts && u[i].bytes == t[i].bytes &&
		      u[i].nargs == t[i].nargs && u[i].ngaps == t[i].ngaps && unf[i] == nf[i] &&
		      unids[i] == nids[i] &&
		      (!nids[i] || !memcmp(uids[i], ids[i], nids[i] * sizeof *ids[i]));
	}
	CHECK(ok);
	/* the same from an arena: the same values; a cut one refused, its arena freed */
	{
		store_trace *a = xcalloc(n ? n : 1, sizeof *a);
		uint64_t *anf = xcalloc(n ? n : 1, sizeof *anf);
		uint32_t **aids = xcalloc(n ? n : 1, sizeof *aids);
		size_t *anids = xcalloc(n ? n : 1, sizeof *anids);
		void *ar = NULL;
		CHECK(an_objects_decode(w.b.p, w.b.len, n, a, anf, aids, anids, &ar) == 0);
		int same = 1;
		for (size_t i = 0; i < n; i++)
			same &= a[i].id == t[i].id && !strcmp(a[i].host, t[i].host) &&
				!strcmp(a[i].source, t[i].source) && !strcmp(a[i].note, t[i].note) &&
				a[i].last_ts == t[i].last_ts && anf[i] == nf[i] && anids[i] == nids[i] &&
				(!nids[i] || !memcmp(aids[i], ids[i], nids[i] * sizeof *ids[i]));
		CHECK(same);
		an_arena_free(ar);
		if (w.b.len) {
			memset(a, 0, (n ? n : 1) * sizeof *a);
			CHECK(an_objects_decode(w.b.p, w.b.len - 1, n, a, anf, aids, anids, &ar) == -1);
			an_arena_free(ar);
		}
		free(a);
		free(anf);
		free(aids);
		free(anids);
	}
	/* another count of objects, a cut, a changed header: refused */
	for (int bad = 0; bad < 3; bad++) {
		store_trace *v = xcalloc(n + 1, sizeof *v);
		uint64_t *vnf = xcalloc(n + 1, sizeof *vnf);
		uint32_t **vids = xcalloc(n + 1, sizeof *vids);
		size_t *vnids = xcalloc(n + 1, sizeof *vnids);
		if (bad == 0) {
			CHECK(an_objects_decode(w.b.p, w.b.len, n + 1, v, vnf, vids, vnids, NULL) == -1);
		} else if (bad == 1) {
			CHECK(an_objects_decode(w.b.p, w.b.len - 1, n, v, vnf, vids, vnids, NULL) == -1);
		} else {
			w.b.p[0] ^= 0x02;
			CHECK(an_objects_decode(w.b.p, w.b.len, n, v, vnf, vids, vnids, NULL) == -1);
			w.b.p[0] ^= 0x02;
		}
		store_traces_free(v, n + 1);
		for (size_t i = 0; i <= n; i++)
			free(vids[i]);
		free(vids);
		free(vnf);
		free(vnids);
	}
	buf_free(&w.b);
	store_traces_free(t, n);
	store_traces_free(u, n);
	for (size_t i = 0; i < n; i++) {
		free(ids[i]);
		free(uids[i]);
	}
	free(ids);
	free(uids);
	free(nf);
	free(unf);
	free(nids);
	free(unids);
}

int main(void)
{
	test_rank_cache(0, 0);
	test_rank_cache(1, 1);
	test_rank_cache(37, 0);
	test_rank_cache(200, 1);
	test_objects(0);
	test_objects(1);
	test_objects(50);
	CHECK_DONE();
}
