/* check.c: the order checker of check.h. Written apart from the filter on purpose: no hold
 * queues, no parked heads, no hash tables; every instance is a record, the records are sorted by
 * key and then by position (or adjusted timestamp), and an atom is a binary search. */
#include "order/check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

#define MAXI 8
#define NKEY (ORD_MAXKEY + 2)

typedef struct rec {
	int64_t k[NKEY];
	int nk;
	uint64_t pos;
	int64_t n, ts;
	int64_t pmax; /* the highest n among the records of this key up to this one */
} rec;

typedef struct inst_at {
	uint64_t ev;  /* event index */
	int ninst;
	ord_inst in[MAXI];
	dt_sync_event res; /* with its request's fields */
} inst_at;

typedef struct chk {
	const ord_rules *r;
	rec *byp, *byt; /* atoms' records, by (key, pos) and by (key, ts) */
	size_t nrec;
	rec **cp, **ct; /* per count index: records by (projected key, pos) and (.., ts) */
	size_t *ncr;
	int tsmode;
} chk;

static int keycmp(const rec *a, const rec *b)
{
	if (a->nk != b->nk)
		return a->nk < b->nk ? -1 : 1;
	for (int i = 0; i < a->nk; i++)
		if (a->k[i] != b->k[i])
			return a->k[i] < b->k[i] ? -1 : 1;
	return 0;
}

static int by_pos(const void *x, const void *y)
{
	const rec *a = x, *b = y;
	int c = keycmp(a, b);
	if (c)
		return c;
	return a->pos < b->pos ? -1 : a->pos > b->pos;
}

static int by_ts(const void *x, const void *y)
{
	const rec *a = x, *b = y;
	int c = keycmp(a, b);
	if (c)
		return c;
	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	return a->pos < b->pos ? -1 : a->pos > b->pos;
}

static void prefix_max(rec *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		v[i].pmax = i && !keycmp(&v[i - 1], &v[i]) && v[i - 1].pmax > v[i].n ? v[i - 1].pmax : v[i].n;
}

/* The records of key k strictly before (pos, or ts in tsmode): how many, and the last one. */
static size_t before(const rec *v, size_t n, const rec *k, int tsmode, uint64_t pos, int64_t ts,
		     const rec **last)
{
	size_t lo = 0, hi = n;
	while (lo < hi) { /* first record of key >= k */
		size_t m = (lo + hi) / 2;
		if (keycmp(&v[m], k) < 0)
			lo = m + 1;
		else
			hi = m;
	}
	size_t first = lo;
	hi = n;
	while (lo < hi) { /* first record of the key not before */
		size_t m = (lo + hi) / 2;
		int c = keycmp(&v[m], k);
		int isbefore = c < 0 || (c == 0 && (tsmode ? v[m].ts < ts : v[m].pos < pos));
		if (isbefore)
			lo = m + 1;
		else
			hi = m;
	}
	*last = lo > first ? &v[lo - 1] : NULL;
	return lo - first;
}

static int64_t cnum(chk *c, const ord_expr *x, const dt_sync_event *e, const int64_t *param,
		    uint64_t pos, int64_t ts)
{
	switch (x->op) {
	case ORD_X_ADD: return cnum(c, x->a, e, param, pos, ts) + cnum(c, x->b, e, param, pos, ts);
	case ORD_X_SUB: return cnum(c, x->a, e, param, pos, ts) - cnum(c, x->b, e, param, pos, ts);
	case ORD_X_NEG: return -cnum(c, x->a, e, param, pos, ts);
	case ORD_X_COUNT: {
		rec k;
		k.nk = 0;
		for (int i = 0; i < x->narg; i++)
			if (x->arg[i])
				k.k[k.nk++] = cnum(c, x->arg[i], e, param, pos, ts);
		const rec *last;
		int ci = x->countix;
		return (int64_t)(c->tsmode ? before(c->ct[ci], c->ncr[ci], &k, 1, pos, ts, &last)
					   : before(c->cp[ci], c->ncr[ci], &k, 0, pos, ts, &last));
	}
	default: return ord_eval_int(x, e, param);
	}
}

static int cholds(chk *c, const ord_expr *x, const dt_sync_event *e, const int64_t *param,
		  uint64_t pos, int64_t ts)
{
	switch (x->op) {
	case ORD_X_AND: return cholds(c, x->a, e, param, pos, ts) && cholds(c, x->b, e, param, pos, ts);
	case ORD_X_OR: return cholds(c, x->a, e, param, pos, ts) || cholds(c, x->b, e, param, pos, ts);
	case ORD_X_NOT: return c->tsmode ? 1 : !cholds(c, x->a, e, param, pos, ts);
	case ORD_X_ATOM: {
		const ord_kind *kd = &c->r->kind[x->kind];
		rec k;
		k.nk = kd->nkey + 1;
		k.k[0] = x->kind;
		for (int i = 0; i < kd->nkey; i++)
			k.k[i + 1] = cnum(c, x->arg[i], e, param, pos, ts);
		int64_t m = cnum(c, x->arg[kd->nkey], e, param, pos, ts);
		int64_t init = ord_initial(kd, k.k + 1);
		if (init != ORD_NONE_HW && init >= m)
			return 1;
		const rec *last;
		if (c->tsmode)
			before(c->byt, c->nrec, &k, 1, pos, ts, &last);
		else
			before(c->byp, c->nrec, &k, 0, pos, ts, &last);
		return last && last->pmax >= m;
	}
	default: {
		int64_t a = cnum(c, x->a, e, param, pos, ts), b = cnum(c, x->b, e, param, pos, ts);
		switch (x->op) {
		case ORD_X_EQ: return a == b;
		case ORD_X_NE: return a != b;
		case ORD_X_LT: return a < b;
		case ORD_X_LE: return a <= b;
		case ORD_X_GT: return a > b;
		case ORD_X_GE: return a >= b;
		}
		return 0;
	}
	}
}

/* A small map from (a, b) pairs to values, sorted once: threads and requests. */
typedef struct pair {
	int64_t a;
	uint64_t b;
	uint64_t v;
} pair;

static int pair_cmp(const void *x, const void *y)
{
	const pair *p = x, *q = y;
	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	if (p->b != q->b)
		return p->b < q->b ? -1 : 1;
	return p->v < q->v ? -1 : p->v > q->v;
}

/* 1. The order is a permutation of a subset of the events. */
static int check_subset(const ord_rules *r, const dt_sync_event *ev, size_t n,
			const uint64_t *order, size_t norder, dt_err *e)
{
	char es[200];
	uint8_t *seen = xcalloc(n ? n : 1, 1);
	int rc = 0;
	for (size_t i = 0; i < norder && !rc; i++) {
		if (order[i] >= n) {
			rc = dt_errf(e, DT_EDATA, "position %zu: event %llu does not exist (%zu events)", i,
				     (unsigned long long)order[i], n);
		} else if (seen[order[i]]++) {
			ord_event_str(r, &ev[order[i]], es, sizeof es);
			rc = dt_errf(e, DT_EDATA, "position %zu: %s delivered twice", i, es);
		}
	}
	free(seen);
	return rc ? -1 : 0;
}

/* Each event's place in its thread (input order): the thread's number tid, its rank among the
 * thread's events, and ign when it falls while the thread is off (a thread's life, `start` and
 * `end`, walked in its own order: such an event has no rank and may not be delivered). Returns
 * the number of threads; e set (rc) when a thread's events do not follow their seq. */
static uint64_t thread_places(const ord_rules *r, const dt_sync_event *ev, size_t n,
			      uint64_t *rank, uint64_t *tid, uint8_t *ign, int *rc, dt_err *e)
{
	char es[200];
	pair *th = xmalloc((n ? n : 1) * sizeof *th);
	for (size_t i = 0; i < n; i++)
		th[i] = (pair){ ev[i].proc, (uint64_t)(uint32_t)ev[i].thread, i };
	qsort(th, n, sizeof *th, pair_cmp);
	uint64_t nth = 0, next = 0;
	int off = 0, scope = -1; /* scope: after an `end ... within`, what stays ignored */
	for (size_t i = 0; i < n; i++) {
		int same = i && th[i].a == th[i - 1].a && th[i].b == th[i - 1].b;
		if (i && !same)
			nth++;
		if (!same)
			next = 0;
		const dt_sync_event *x = &ev[th[i].v];
		unsigned m = ord_thread_mark(r, x);
		if (!same) {
			off = !(m & ORD_TM_START) && (m & ORD_TM_SCOPE);
			scope = -1;
		}
		if (off && !(m & ORD_TM_START) && (scope < 0 || ord_is_instance(r, x, scope))) {
			ign[th[i].v] = 1;
		} else {
			off = (m & ORD_TM_END) != 0;
			scope = off ? ord_thread_end_scope(r, x) : -1;
			rank[th[i].v] = next++;
		}
		tid[th[i].v] = nth;
		if (same && ev[th[i].v].seq <= ev[th[i - 1].v].seq) {
			ord_event_str(r, &ev[th[i].v], es, sizeof es);
			*rc = dt_errf(e, DT_EDATA,
				      "input: %s does not follow its thread's previous event (seq)", es);
		}
	}
	free(th);
	return nth;
}

/* 2. Program order: each thread's delivered events are its first ones, in its order, with
 * timestamps that do not go back (held events are the ones left). */
static int check_program_order(const ord_rules *r, const dt_sync_event *ev, size_t n,
			       const uint64_t *order, size_t norder, const int64_t *ts, dt_err *e)
{
	char es[200];
	int rc = 0;
	uint64_t *rank = xmalloc((n ? n : 1) * sizeof *rank), *tid = xmalloc((n ? n : 1) * sizeof *tid);
	uint8_t *ign = xcalloc(n ? n : 1, 1);
	uint64_t nth = thread_places(r, ev, n, rank, tid, ign, &rc, e);
	uint64_t *cursor = xcalloc(nth + 1, sizeof *cursor);
	int64_t *lastts = xmalloc((nth + 1) * sizeof *lastts);
	for (uint64_t i = 0; i <= nth; i++)
		lastts[i] = INT64_MIN;
	for (size_t i = 0; i < norder && !rc; i++) {
		uint64_t x = order[i];
		ord_event_str(r, &ev[x], es, sizeof es);
		if (ign[x]) {
			rc = dt_errf(e, DT_EDATA, "position %zu: %s is delivered while its thread is off "
				     "(outside its start and end; the rules' `start` and `end`)", i, es);
			break;
		}
		if (rank[x] != cursor[tid[x]]) {
			rc = dt_errf(e, DT_EDATA, "position %zu: %s breaks its thread's order (expected its event #%llu of that thread)",
				     i, es, (unsigned long long)cursor[tid[x]]);
			break;
		}
		cursor[tid[x]]++;
		if (ts) {
			if (ts[x] < lastts[tid[x]]) {
				rc = dt_errf(e, DT_EDATA, "position %zu: %s: adjusted timestamp %lld before its thread's previous %lld",
					     i, es, (long long)ts[x], (long long)lastts[tid[x]]);
				break;
			}
			lastts[tid[x]] = ts[x];
		}
	}
	free(ign);
	free(rank);
	free(tid);
	free(cursor);
	free(lastts);
	return rc ? -1 : 0;
}

/* The next number of the counted instance k (kind, key) along the order: counters kept in
 * an array sorted by key, *ctr growing. */
static int64_t count_next(rec **ctr, size_t *nctr, size_t *capctr, const rec *k)
{
	size_t lo = 0, hi = *nctr;
	while (lo < hi) {
		size_t m = (lo + hi) / 2;
		if (keycmp(&(*ctr)[m], k) < 0)
			lo = m + 1;
		else
			hi = m;
	}
	if (lo == *nctr || keycmp(&(*ctr)[lo], k)) {
		if (*nctr == *capctr) {
			*capctr = *capctr ? *capctr * 2 : 64;
			*ctr = xrealloc(*ctr, *capctr * sizeof **ctr);
		}
		memmove(&(*ctr)[lo + 1], &(*ctr)[lo], (*nctr - lo) * sizeof **ctr);
		(*ctr)[lo] = *k;
		(*ctr)[lo].n = 0;
		(*nctr)++;
	}
	return ++(*ctr)[lo].n;
}

/* The request the event at position i completes (its definer's fields applied to a->res), or
 * that it defines (remembered in links): the function of the definer, or UINT32_MAX. */
static uint32_t link_request(const ord_rules *r, const dt_sync_event *ev, const uint64_t *order,
			     size_t i, inst_at *a, pair **links, size_t *nlinks, size_t *caplinks)
{
	const dt_sync_event *x = &ev[order[i]];
	if (ord_completes_request(r, x)) {
		for (size_t j = *nlinks; j-- > 0;)
			if ((*links)[j].a == x->proc && (*links)[j].b == x->req) {
				const dt_sync_event *d = &ev[order[(*links)[j].v]];
				ord_link l;
				ord_link_make(&l, d);
				ord_link_apply(&a->res, &l);
				(*links)[j] = (*links)[--*nlinks]; /* completed: forget it */
				return d->func;
			}
	} else if (ord_defines_request(r, x)) {
		if (*nlinks == *caplinks) {
			*caplinks = *caplinks ? *caplinks * 2 : 64;
			*links = xrealloc(*links, *caplinks * sizeof **links);
		}
		(*links)[(*nlinks)++] = (pair){ x->proc, x->req, i };
	}
	return UINT32_MAX;
}

/* 3. The instances of every delivered event along the order, in at (one per position), their
 * links and numbers; their records in *recs (returned count). */
static size_t instances(const ord_rules *r, const dt_sync_event *ev, const uint64_t *order,
			size_t norder, const int64_t *ts, inst_at *at, rec **recs)
{
	pair *links = NULL; /* (proc, req) -> position of the definer; a flat list searched back */
	size_t nlinks = 0, caplinks = 0, nrec = 0, caprec = 0;
	rec *ctr = NULL; /* counters for counted kinds: a growing array kept sorted by key */
	size_t nctr = 0, capctr = 0;
	*recs = NULL;
	for (size_t i = 0; i < norder; i++) {
		inst_at *a = &at[i];
		a->ev = order[i];
		a->res = ev[order[i]];
		uint32_t via = link_request(r, ev, order, i, a, &links, &nlinks, &caplinks);
		a->ninst = ord_instances(r, &a->res, via, a->in, MAXI);
		for (int j = 0; j < a->ninst; j++) {
			const ord_kind *kd = &r->kind[a->in[j].kind];
			int64_t nn = 0;
			if (kd->seq == ORD_SEQ_FIELD) {
				nn = ord_field_get(&a->res, kd->seqarg);
			} else if (kd->seq == ORD_SEQ_AS) {
				for (int q = 0; q < j; q++)
					if (a->in[q].kind == kd->seqarg)
						nn = a->in[q].t[r->kind[kd->seqarg].nkey];
			} else {
				rec k;
				k.nk = kd->nkey + 1;
				k.k[0] = a->in[j].kind;
				memcpy(k.k + 1, a->in[j].t, (size_t)kd->nkey * sizeof *k.k);
				nn = count_next(&ctr, &nctr, &capctr, &k);
			}
			a->in[j].t[kd->nkey] = nn;
			if (nrec == caprec) {
				caprec = caprec ? caprec * 2 : 1024;
				*recs = xrealloc(*recs, caprec * sizeof **recs);
			}
			rec *rr = &(*recs)[nrec++];
			rr->nk = kd->nkey + 1;
			rr->k[0] = a->in[j].kind;
			memcpy(rr->k + 1, a->in[j].t, (size_t)kd->nkey * sizeof *rr->k);
			rr->pos = i;
			rr->n = nn;
			rr->ts = ts ? ts[order[i]] : 0;
		}
	}
	free(links);
	free(ctr);
	return nrec;
}

/* 4. The indexes an atom searches: the records by (key, position) and (key, timestamp), and
 * per count index the records projected on its key. */
static void index_records(chk *c, const rec *recs, size_t nrec, const int64_t *ts)
{
	c->nrec = nrec;
	c->byp = xmalloc((nrec ? nrec : 1) * sizeof *c->byp);
	if (nrec) /* recs is NULL when nothing was an instance (no kinds: an empty rule file) */
		memcpy(c->byp, recs, nrec * sizeof *recs);
	qsort(c->byp, nrec, sizeof *c->byp, by_pos);
	prefix_max(c->byp, nrec);
	if (ts) {
		c->byt = xmalloc((nrec ? nrec : 1) * sizeof *c->byt);
		if (nrec)
			memcpy(c->byt, recs, nrec * sizeof *recs);
		qsort(c->byt, nrec, sizeof *c->byt, by_ts);
		prefix_max(c->byt, nrec);
	}
	int nci = c->r->ncix;
	c->cp = xcalloc((size_t)nci + 1, sizeof *c->cp);
	c->ct = xcalloc((size_t)nci + 1, sizeof *c->ct);
	c->ncr = xcalloc((size_t)nci + 1, sizeof *c->ncr);
	for (int ci = 0; ci < nci; ci++) {
		const ord_countix *cx = &c->r->cix[ci];
		rec *v = xmalloc((nrec ? nrec : 1) * sizeof *v);
		size_t m = 0;
		for (size_t i = 0; i < nrec; i++) {
			if (recs[i].k[0] != cx->kind)
				continue;
			rec *o = &v[m++];
			*o = recs[i];
			o->nk = 0;
			for (int j = 0; j < recs[i].nk; j++) {
				int64_t val = j + 1 < recs[i].nk ? recs[i].k[j + 1] : recs[i].n;
				if (cx->mask >> j & 1)
					o->k[o->nk++] = val;
			}
		}
		c->ncr[ci] = m;
		c->cp[ci] = v;
		qsort(v, m, sizeof *v, by_pos);
		if (ts) {
			c->ct[ci] = xmalloc((m ? m : 1) * sizeof *v);
			memcpy(c->ct[ci], v, m * sizeof *v);
			qsort(c->ct[ci], m, sizeof *v, by_ts);
		}
	}
}

static void index_free(chk *c)
{
	free(c->byp);
	free(c->byt);
	for (int ci = 0; ci < c->r->ncix; ci++) {
		free(c->cp[ci]);
		free(c->ct[ci]);
	}
	free(c->cp);
	free(c->ct);
	free(c->ncr);
}

/* 5. Every rule of every delivered event holds (under the adjusted timestamps too, with ts). */
static int check_rules(chk *c, const dt_sync_event *ev, const inst_at *at, size_t norder,
		       const int64_t *ts, dt_err *e)
{
	const ord_rules *r = c->r;
	char es[200], b2[256];
	for (size_t i = 0; i < norder; i++) {
		const inst_at *a = &at[i];
		for (int j = 0; j < a->ninst; j++) {
			const ord_kind *kd = &r->kind[a->in[j].kind];
			for (int q = 0; q < kd->nrules; q++) {
				const ord_rule *ru = &r->rule[kd->rules[q]];
				for (int mode = 0; mode < (ts ? 2 : 1); mode++) {
					c->tsmode = mode;
					int64_t t = ts ? ts[a->ev] : 0;
					if (cholds(c, ru->cond, &a->res, a->in[j].t, i, t))
						continue;
					ord_event_str(r, &ev[a->ev], es, sizeof es);
					ord_tuple_str(r, a->in[j].kind, a->in[j].t, kd->nkey + 1, b2, sizeof b2);
					return dt_errf(e, DT_EDATA, "position %zu: %s as %s breaks rule %s:%d `%s`%s", i,
						       es, b2, ru->file, ru->line, ru->text,
						       mode ? " under the adjusted timestamps" : "");
				}
			}
		}
	}
	return 0;
}

int ord_check(const ord_rules *r, const dt_sync_event *ev, size_t n, const uint64_t *order,
	      size_t norder, const int64_t *ts, dt_err *e)
{
	if (check_subset(r, ev, n, order, norder, e) ||
	    check_program_order(r, ev, n, order, norder, ts, e))
		return -1;
	inst_at *at = xcalloc(norder ? norder : 1, sizeof *at);
	rec *recs;
	size_t nrec = instances(r, ev, order, norder, ts, at, &recs);
	chk c = { r, NULL, NULL, 0, NULL, NULL, NULL, 0 };
	index_records(&c, recs, nrec, ts);
	free(recs);
	int rc = check_rules(&c, ev, at, norder, ts, e);
	index_free(&c);
	free(at);
	return rc ? -1 : 0;
}
