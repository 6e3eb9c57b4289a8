/* rankcache.c: the ranking kept in the store (rankcache.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/rankcache.h"
#include "store/store_analysis.h"
#include "util/util.h"

/* Identifies the encoding, so that a value of another layout is never read as this one. */
#define RK_MAGIC 0x4b52 /* "RK" */

void rk_opts(enum clu_linkage l, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s linkage=%s", RANK_CACHE_VERSION, clu_linkage_name(l));
}

void rk_tops(const rank_jsmd *j, rk_rank *out)
{
	rank_item *it = xmalloc((j->n ? j->n : 1) * sizeof *it);
	size_t m = rank_order(j, j->n, it);
	out->nord = 0;
	for (size_t i = 0; i < m && out->nord < RANK_TOP_MAX; i++)
		if (it[i].score > 1e-12) /* an unchanged trace is no suspect */
			out->ord[out->nord++] = it[i];
	out->nprocs = rank_top_procs_scored(j, it, m, out->procs, out->procscore, RANK_TOP_MAX);
	free(it);
}

void rk_from(const an_result *rn, const an_result *rf, rank_jsmd *j, double b, vd_rank *v,
	     int keep, rk_rank *out)
{
	memset(out, 0, sizeof *out);
	out->bscore = b;
	rk_tops(j, out);
	out->pairs = xmalloc(RANK_CACHE_PAIRS * sizeof *out->pairs);
	out->npairs = rank_jsmd_top_pairs(j, RANK_CACHE_PAIRS, out->pairs);
	out->pair_jn = xmalloc((out->npairs ? out->npairs : 1) * sizeof *out->pair_jn);
	out->pair_jf = xmalloc((out->npairs ? out->npairs : 1) * sizeof *out->pair_jf);
	for (size_t q = 0; q < out->npairs; q++) {
		const rank_pair *p = &out->pairs[q];
		out->pair_jn[q] = analysis_sim(rn, j->row_normal[p->i], j->row_normal[p->j]);
		out->pair_jf[q] = analysis_sim(rf, j->row_faulty[p->i], j->row_faulty[p->j]);
	}
	if (keep)
		goto move;
	/* the matrix is not kept: only what is shown */
	free(j->row_normal);
	free(j->row_faulty);
	free(j->cls);
	free(j->mult);
	free(j->cd);
	free(j->diag);
	j->row_normal = j->row_faulty = NULL;
	j->cls = j->mult = NULL;
	j->cd = j->diag = NULL;
	j->nc = 0;
move:
	out->j = *j;
	memset(j, 0, sizeof *j);
	out->v = *v;
	memset(v, 0, sizeof *v);
}

void rk_free(rk_rank *r)
{
	rank_jsmd_free(&r->j);
	vd_free(&r->v);
	free(r->pairs);
	free(r->pair_jn);
	free(r->pair_jf);
	memset(r, 0, sizeof *r);
}

/* ---- the encoding: LEB128 integers (signed ones zigzag), doubles as their 8 bytes ---- */

static void put_f64(dt_buf *b, double x)
{
	uint64_t u;
	memcpy(&u, &x, sizeof u);
	for (int k = 0; k < 8; k++)
		buf_byte(b, (uint8_t)(u >> (8 * k)));
}

static void put_keys(dt_buf *b, const rank_key *k, size_t n)
{
	buf_uvar(b, n);
	for (size_t i = 0; i < n; i++) {
		buf_svar(b, k[i].proc);
		buf_svar(b, k[i].thread);
	}
}

static void put_sev(dt_buf *b, const dt_sync_event *x)
{
	buf_svar(b, x->proc);
	buf_svar(b, x->thread);
	buf_uvar(b, x->seq);
	buf_uvar(b, x->phase);
	buf_uvar(b, x->func);
	buf_svar(b, x->ts);
	buf_svar(b, x->host);
	buf_svar(b, x->comm);
	buf_svar(b, x->dest);
	buf_svar(b, x->stag);
	buf_svar(b, x->src);
	buf_svar(b, x->rtag);
	buf_svar(b, x->root);
	buf_svar(b, x->count);
	buf_svar(b, x->datatype);
	buf_svar(b, x->op);
	buf_uvar(b, x->req);
	buf_uvar(b, x->obj);
	buf_uvar(b, x->objseq);
	buf_svar(b, x->team);
	buf_svar(b, x->tnum);
	buf_svar(b, x->csize);
	buf_svar(b, x->disp);
	buf_svar(b, x->rassert);
	buf_svar(b, x->lock);
	buf_uvar(b, x->digest);
	buf_uvar(b, x->site);
}

static int sev_zero(const dt_sync_event *x)
{
	static const dt_sync_event z;
	return x->proc == z.proc && x->thread == z.thread && x->seq == z.seq &&
	       x->phase == z.phase && x->func == z.func && x->ts == z.ts && x->host == z.host &&
	       x->comm == z.comm && x->dest == z.dest && x->stag == z.stag && x->src == z.src &&
	       x->rtag == z.rtag && x->root == z.root && x->count == z.count &&
	       x->datatype == z.datatype && x->op == z.op && x->req == z.req && x->obj == z.obj &&
	       x->objseq == z.objseq && x->team == z.team && x->tnum == z.tnum &&
	       x->csize == z.csize && x->disp == z.disp && x->rassert == z.rassert &&
	       x->lock == z.lock && x->digest == z.digest;
}

/* Whether the hang-safe record said anything of x (only a hung run's traces have it). */
static int hang_set(const vd_item *x)
{
	return x->tier || x->s_at || x->s_nn || x->waiters || x->s_state || x->s_func ||
	       !sev_zero(&x->s_en) || !sev_zero(&x->s_ef);
}

void rk_encode(const rk_rank *r, dt_buf *b)
{
	const rank_jsmd *j = &r->j;
	buf_uvar(b, RK_MAGIC);
	put_keys(b, j->keys, j->n);
	put_keys(b, j->only_normal, j->n_only_normal);
	put_keys(b, j->only_faulty, j->n_only_faulty);
	buf_byte(b, j->running != NULL);
	if (j->running)
		buf_put(b, j->running, j->n);
	buf_uvar(b, j->n_running);
	put_f64(b, j->quiet);
	put_f64(b, r->bscore);
	buf_uvar(b, r->v.n);
	buf_uvar(b, r->v.ndiff);
	for (size_t q = 0; q < r->v.n; q++) {
		const vd_item *x = &r->v.it[q];
		buf_uvar(b, x->i);
		buf_uvar(b, (uint64_t)x->change);
		put_f64(b, x->rowsum);
		put_f64(b, x->share);
		put_f64(b, x->score);
		buf_uvar(b, x->kept_n);
		buf_uvar(b, x->kept_f);
		buf_uvar(b, x->at);
		buf_uvar(b, x->ev_n);
		buf_uvar(b, x->ev_f);
		buf_uvar(b, x->last_f);
		buf_uvar(b, (uint64_t)(x->running != 0) | (uint64_t)(x->spun != 0) << 1 |
				    (uint64_t)(x->ended != 0) << 2 | (uint64_t)(x->s_only != 0) << 3);
		buf_uvar(b, x->pos);
		buf_uvar(b, (uint64_t)x->tier);
		if (hang_set(x)) { /* the hang-safe record's: a hung run's only */
			buf_byte(b, 1);
			buf_uvar(b, x->s_at);
			buf_uvar(b, x->s_nn);
			buf_uvar(b, x->waiters);
			buf_svar(b, x->s_state);
			buf_uvar(b, x->s_func);
			const char *z = memchr(x->s_where, 0, sizeof x->s_where);
			size_t wl = z ? (size_t)(z - x->s_where) : sizeof x->s_where - 1;
			buf_uvar(b, wl);
			buf_put(b, x->s_where, wl);
			buf_uvar(b, x->s_site);
			put_sev(b, &x->s_en);
			put_sev(b, &x->s_ef);
		} else {
			buf_byte(b, 0);
		}
	}
	buf_uvar(b, r->npairs);
	for (size_t q = 0; q < r->npairs; q++) {
		buf_uvar(b, r->pairs[q].i);
		buf_uvar(b, r->pairs[q].j);
		put_f64(b, r->pairs[q].score);
		put_f64(b, r->pair_jn[q]);
		put_f64(b, r->pair_jf[q]);
	}
	buf_uvar(b, r->nord);
	for (size_t q = 0; q < r->nord; q++) {
		buf_uvar(b, r->ord[q].i);
		put_f64(b, r->ord[q].score);
	}
	buf_uvar(b, r->nprocs);
	for (size_t q = 0; q < r->nprocs; q++) {
		buf_svar(b, r->procs[q]);
		put_f64(b, r->procscore[q]);
	}
}

/* A reader that stops at the first fault: every get after it reads 0. */
typedef struct rd {
	const uint8_t *p;
	size_t len, pos;
	int bad;
} rd;

static inline uint64_t get_u(rd *d)
{
	return uvar_next(d->p, d->len, &d->pos, &d->bad);
}

static int64_t get_s(rd *d)
{
	uint64_t z = get_u(d); /* zigzag, as buf_svar writes it */
	return (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
}

static double get_f64(rd *d)
{
	if (d->bad || d->len - d->pos < 8) {
		d->bad = 1;
		return 0;
	}
	uint64_t u = 0;
	for (int k = 0; k < 8; k++)
		u |= (uint64_t)d->p[d->pos + (size_t)k] << (8 * k);
	d->pos += 8;
	double x;
	memcpy(&x, &u, sizeof x);
	return x;
}

static uint8_t get_byte(rd *d)
{
	if (d->bad || d->pos >= d->len) {
		d->bad = 1;
		return 0;
	}
	return d->p[d->pos++];
}

/* A count of things of at least min bytes each: never more than the bytes left. */
static size_t get_n(rd *d, size_t min)
{
	uint64_t n = get_u(d);
	if (n > (d->len - d->pos) / (min ? min : 1)) {
		d->bad = 1;
		return 0;
	}
	return (size_t)n;
}

static rank_key *get_keys(rd *d, size_t *n)
{
	*n = get_n(d, 2);
	rank_key *k = xmalloc((*n ? *n : 1) * sizeof *k);
	for (size_t i = 0; i < *n; i++) {
		k[i].proc = (int)get_s(d);
		k[i].thread = (int)get_s(d);
	}
	return k;
}

static void get_sev(rd *d, dt_sync_event *x)
{
	x->proc = (int32_t)get_s(d);
	x->thread = (int32_t)get_s(d);
	x->seq = (uint32_t)get_u(d);
	x->phase = (uint8_t)get_u(d);
	x->func = (uint32_t)get_u(d);
	x->ts = get_s(d);
	x->host = (int32_t)get_s(d);
	x->comm = (int32_t)get_s(d);
	x->dest = (int32_t)get_s(d);
	x->stag = (int32_t)get_s(d);
	x->src = (int32_t)get_s(d);
	x->rtag = (int32_t)get_s(d);
	x->root = (int32_t)get_s(d);
	x->count = get_s(d);
	x->datatype = (int32_t)get_s(d);
	x->op = (int32_t)get_s(d);
	x->req = get_u(d);
	x->obj = get_u(d);
	x->objseq = get_u(d);
	x->team = (int32_t)get_s(d);
	x->tnum = (int32_t)get_s(d);
	x->csize = (int32_t)get_s(d);
	x->disp = get_s(d);
	x->rassert = (int32_t)get_s(d);
	x->lock = (int32_t)get_s(d);
	x->digest = get_u(d);
	x->site = (uint32_t)get_u(d);
}

int rk_decode(const uint8_t *p, size_t len, rk_rank *r)
{
	memset(r, 0, sizeof *r);
	rd d = { p, len, 0, 0 };
	if (get_u(&d) != RK_MAGIC)
		return -1;
	rank_jsmd *j = &r->j;
	j->keys = get_keys(&d, &j->n);
	j->only_normal = get_keys(&d, &j->n_only_normal);
	j->only_faulty = get_keys(&d, &j->n_only_faulty);
	if (get_byte(&d)) {
		if (d.len - d.pos < j->n) {
			d.bad = 1;
		} else {
			j->running = xmalloc(j->n ? j->n : 1);
			memcpy(j->running, d.p + d.pos, j->n);
			d.pos += j->n;
		}
	}
	j->n_running = (size_t)get_u(&d);
	j->quiet = get_f64(&d);
	r->bscore = get_f64(&d);
	r->v.n = get_n(&d, 40);
	r->v.ndiff = (size_t)get_u(&d);
	if (r->v.n != j->n)
		d.bad = 1;
	r->v.it = xcalloc(r->v.n ? r->v.n : 1, sizeof *r->v.it);
	for (size_t q = 0; !d.bad && q < r->v.n; q++) {
		vd_item *x = &r->v.it[q];
		x->i = (size_t)get_u(&d);
		if (x->i >= j->n)
			d.bad = 1;
		x->change = (int)get_u(&d);
		x->rowsum = get_f64(&d);
		x->share = get_f64(&d);
		x->score = get_f64(&d);
		x->kept_n = get_u(&d);
		x->kept_f = get_u(&d);
		x->at = get_u(&d);
		x->ev_n = (uint32_t)get_u(&d);
		x->ev_f = (uint32_t)get_u(&d);
		x->last_f = (uint32_t)get_u(&d);
		uint64_t fl = get_u(&d);
		x->running = (int)(fl & 1);
		x->spun = (int)(fl >> 1 & 1);
		x->ended = (int)(fl >> 2 & 1);
		x->s_only = (int)(fl >> 3 & 1);
		x->pos = (size_t)get_u(&d);
		x->tier = (int)get_u(&d);
		if (get_byte(&d)) {
			x->s_at = get_u(&d);
			x->s_nn = get_u(&d);
			x->waiters = (size_t)get_u(&d);
			x->s_state = (int)get_s(&d);
			x->s_func = (uint32_t)get_u(&d);
			size_t wl = get_n(&d, 1);
			if (wl >= sizeof x->s_where)
				d.bad = 1;
			if (!d.bad) {
				memcpy(x->s_where, d.p + d.pos, wl);
				x->s_where[wl] = 0;
				d.pos += wl;
			}
			x->s_site = (uint32_t)get_u(&d);
			get_sev(&d, &x->s_en);
			get_sev(&d, &x->s_ef);
		}
	}
	r->npairs = get_n(&d, 26);
	r->pairs = xmalloc((r->npairs ? r->npairs : 1) * sizeof *r->pairs);
	r->pair_jn = xmalloc((r->npairs ? r->npairs : 1) * sizeof *r->pair_jn);
	r->pair_jf = xmalloc((r->npairs ? r->npairs : 1) * sizeof *r->pair_jf);
	for (size_t q = 0; !d.bad && q < r->npairs; q++) {
		r->pairs[q].i = (size_t)get_u(&d);
		r->pairs[q].j = (size_t)get_u(&d);
		if (r->pairs[q].i >= j->n || r->pairs[q].j >= j->n)
			d.bad = 1;
		r->pairs[q].score = get_f64(&d);
		r->pair_jn[q] = get_f64(&d);
		r->pair_jf[q] = get_f64(&d);
	}
	r->nord = (size_t)get_u(&d);
	if (r->nord > RANK_TOP_MAX)
		d.bad = 1;
	for (size_t q = 0; !d.bad && q < r->nord; q++) {
		r->ord[q].i = (size_t)get_u(&d);
		if (r->ord[q].i >= j->n)
			d.bad = 1;
		r->ord[q].score = get_f64(&d);
	}
	r->nprocs = (size_t)get_u(&d);
	if (r->nprocs > RANK_TOP_MAX)
		d.bad = 1;
	for (size_t q = 0; !d.bad && q < r->nprocs; q++) {
		r->procs[q] = (int)get_s(&d);
		r->procscore[q] = get_f64(&d);
	}
	if (d.bad || d.pos != d.len) {
		rk_free(r);
		return -1;
	}
	return 0;
}

int rk_load(store *s, int64_t normal, int64_t faulty, enum clu_linkage l, rk_rank *r,
	    dt_err *e)
{
	char opts[128];
	rk_opts(l, opts, sizeof opts);
	uint8_t *p = NULL;
	size_t len = 0;
	int g = store_rank_cache_get(s, normal, faulty, opts, &p, &len, e);
	if (g == 1 && rk_decode(p, len, r))
		g = 0; /* not understood: computed again, and replaced */
	free(p);
	return g;
}

void rk_save(store *s, int64_t normal, int64_t faulty, enum clu_linkage l, const rk_rank *r)
{
	if (store_readonly(s))
		return;
	char opts[128];
	rk_opts(l, opts, sizeof opts);
	dt_buf b = { 0 };
	rk_encode(r, &b);
	dt_err e;
	dt_err_clear(&e);
	store_rank_cache_put(s, normal, faulty, opts, b.p, b.len, &e);
	buf_free(&b);
}
