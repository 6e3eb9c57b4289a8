/* explain.c: what each event of an order waited for (explain.h). */
#include <stdlib.h>
#include <string.h>

#include "order/explain.h"
#include "util/util.h"

#define MAXI 8

typedef struct irec {
	int kind;
	int64_t t[ORD_MAXKEY + 1]; /* key then n; unused positions 0 */
	size_t pos;                /* position in the order */
} irec;

struct ord_explain {
	const ord_rules *r;
	const dt_sync_event *ev;
	size_t n;
	const uint64_t *order;
	size_t norder;
	dt_sync_event *res;   /* per position: the event with its request's fields filled */
	size_t *istart;       /* per position: its instances in inst[istart[p] .. istart[p+1]) */
	irec *inst;           /* by position */
	irec *sorted;         /* by (kind, tuple) */
	size_t ninst;
	int64_t *posof;       /* per event: its position, -1 when not delivered */
	int64_t *peer;        /* per event, computed on demand */
};

static int irec_cmp(const void *a, const void *b)
{
	const irec *x = a, *y = b;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	for (int i = 0; i <= ORD_MAXKEY; i++)
		if (x->t[i] != y->t[i])
			return x->t[i] < y->t[i] ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* The counters of counted kinds: a hash table by (kind, key), open addressing. */
struct ctr {
	int kind; /* -1: empty */
	int64_t t[ORD_MAXKEY];
	int64_t n;
};

struct ctrs {
	struct ctr *v;
	size_t cap, n;
};

static uint64_t ctr_hash(int kind, const int64_t *t, int nk)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ (uint64_t)kind;
	for (int i = 0; i < nk; i++) {
		h ^= (uint64_t)t[i] + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
		h *= 0xff51afd7ed558ccdull;
	}
	return h ^ (h >> 33);
}

static struct ctr *ctr_slot(struct ctr *v, size_t cap, int kind, const int64_t *t, int nk)
{
	size_t i = (size_t)ctr_hash(kind, t, nk) & (cap - 1);
	for (;; i = (i + 1) & (cap - 1)) {
		struct ctr *c = &v[i];
		if (c->kind < 0)
			return c;
		if (c->kind == kind && !memcmp(c->t, t, (size_t)nk * sizeof *t))
			return c;
	}
}

static void ctrs_grow(struct ctrs *h, const ord_rules *r)
{
	size_t cap = h->cap ? h->cap * 2 : 1024;
	struct ctr *v = xmalloc(cap * sizeof *v);
	for (size_t i = 0; i < cap; i++)
		v[i].kind = -1;
	for (size_t i = 0; i < h->cap; i++)
		if (h->v[i].kind >= 0) {
			int nk = r->kind[h->v[i].kind].nkey;
			*ctr_slot(v, cap, h->v[i].kind, h->v[i].t, nk) = h->v[i];
		}
	free(h->v);
	h->v = v;
	h->cap = cap;
}

/* The next n of (kind, key). */
static int64_t ctr_next(struct ctrs *h, const ord_rules *r, int kind, const int64_t *t)
{
	int nk = r->kind[kind].nkey;
	if (2 * (h->n + 1) > h->cap)
		ctrs_grow(h, r);
	struct ctr *c = ctr_slot(h->v, h->cap, kind, t, nk);
	if (c->kind < 0) {
		memset(c, 0, sizeof *c);
		c->kind = kind;
		memcpy(c->t, t, (size_t)nk * sizeof *t);
		h->n++;
	}
	return ++c->n;
}

ord_explain *ord_explain_new(const ord_rules *r, const dt_sync_event *ev, size_t n,
			     const uint64_t *order, size_t norder)
{
	ord_explain *x = xcalloc(1, sizeof *x);
	x->r = r;
	x->ev = ev;
	x->n = n;
	x->order = order;
	x->norder = norder;
	x->res = xmalloc((norder ? norder : 1) * sizeof *x->res);
	x->istart = xmalloc((norder + 1) * sizeof *x->istart);
	x->posof = xmalloc((n ? n : 1) * sizeof *x->posof);
	for (size_t i = 0; i < n; i++)
		x->posof[i] = -1;
	size_t cap = 0;
	/* open requests: (proc, req) -> position of the call that made it */
	struct lk {
		int32_t proc;
		uint64_t req;
		size_t pos;
	} *links = NULL;
	size_t nlinks = 0, caplinks = 0;
	struct ctrs ctr = { NULL, 0, 0 };
	for (size_t p = 0; p < norder; p++) {
		const dt_sync_event *e = &ev[order[p]];
		x->posof[order[p]] = (int64_t)p;
		x->res[p] = *e;
		x->istart[p] = x->ninst;
		uint32_t via = UINT32_MAX;
		if (ord_completes_request(r, e)) {
			for (size_t j = nlinks; j-- > 0;)
				if (links[j].proc == e->proc && links[j].req == e->req) {
					const dt_sync_event *d = &ev[order[links[j].pos]];
					ord_link l;
					ord_link_make(&l, d);
					ord_link_apply(&x->res[p], &l);
					via = d->func;
					links[j] = links[--nlinks];
					break;
				}
		} else if (ord_defines_request(r, e)) {
			GROW(links, caplinks, nlinks + 1);
			links[nlinks++] = (struct lk){ e->proc, e->req, p };
		}
		ord_inst in[MAXI];
		int ni = ord_instances(r, &x->res[p], via, in, MAXI);
		for (int j = 0; j < ni; j++) {
			const ord_kind *kd = &r->kind[in[j].kind];
			int64_t nn = 0;
			if (kd->seq == ORD_SEQ_FIELD) {
				nn = ord_field_get(&x->res[p], kd->seqarg);
			} else if (kd->seq == ORD_SEQ_AS) {
				for (int q = 0; q < j; q++)
					if (in[q].kind == kd->seqarg)
						nn = in[q].t[r->kind[kd->seqarg].nkey];
			} else {
				nn = ctr_next(&ctr, r, in[j].kind, in[j].t);
			}
			in[j].t[kd->nkey] = nn;
			GROW(x->inst, cap, x->ninst + 1);
			irec *rr = &x->inst[x->ninst++];
			memset(rr, 0, sizeof *rr);
			rr->kind = in[j].kind;
			memcpy(rr->t, in[j].t, (size_t)(kd->nkey + 1) * sizeof *rr->t);
			rr->pos = p;
		}
	}
	x->istart[norder] = x->ninst;
	free(links);
	free(ctr.v);
	x->sorted = xmalloc((x->ninst ? x->ninst : 1) * sizeof *x->sorted);
	memcpy(x->sorted, x->inst, x->ninst * sizeof *x->sorted);
	qsort(x->sorted, x->ninst, sizeof *x->sorted, irec_cmp);
	return x;
}

void ord_explain_free(ord_explain *x)
{
	if (!x)
		return;
	free(x->res);
	free(x->istart);
	free(x->inst);
	free(x->sorted);
	free(x->posof);
	free(x->peer);
	free(x);
}

/* The first of kind's instances in sorted, and the end of them. */
static void kind_range(const ord_explain *x, int kind, size_t *lo, size_t *hi)
{
	size_t a = 0, b = x->ninst;
	while (a < b) {
		size_t m = (a + b) / 2;
		if (x->sorted[m].kind < kind)
			a = m + 1;
		else
			b = m;
	}
	*lo = a;
	b = x->ninst;
	while (a < b) {
		size_t m = (a + b) / 2;
		if (x->sorted[m].kind <= kind)
			a = m + 1;
		else
			b = m;
	}
	*hi = a;
}

static int has_atom(const ord_expr *e)
{
	if (!e)
		return 0;
	if (e->op == ORD_X_ATOM || e->op == ORD_X_COUNT)
		return 1;
	return has_atom(e->a) || has_atom(e->b);
}

/* A condition without atoms, on the event's fields and the rule's parameters. */
static int holds(const ord_expr *c, const dt_sync_event *e, const int64_t *param)
{
	switch (c->op) {
	case ORD_X_AND: return holds(c->a, e, param) && holds(c->b, e, param);
	case ORD_X_OR: return holds(c->a, e, param) || holds(c->b, e, param);
	case ORD_X_NOT: return !holds(c->a, e, param);
	case ORD_X_EQ: case ORD_X_NE: case ORD_X_LT: case ORD_X_LE: case ORD_X_GT: case ORD_X_GE: {
		int64_t a = ord_eval_int(c->a, e, param), b = ord_eval_int(c->b, e, param);
		switch (c->op) {
		case ORD_X_EQ: return a == b;
		case ORD_X_NE: return a != b;
		case ORD_X_LT: return a < b;
		case ORD_X_LE: return a <= b;
		case ORD_X_GT: return a > b;
		default: return a >= b;
		}
	}
	default: return ord_eval_int(c, e, param) != 0;
	}
}

struct walk {
	const ord_explain *x;
	size_t pos;
	const dt_sync_event *e;
	const int64_t *param;
	int rule;
	int no_counts; /* leave counts out (they may match many instances) */
	ord_dep *out;
	size_t max, n;
};

static void atom(struct walk *w, const ord_expr *c)
{
	const ord_explain *x = w->x;
	const ord_kind *kd = &x->r->kind[c->kind];
	ord_dep d;
	memset(&d, 0, sizeof d);
	d.rule = w->rule;
	d.kind = c->kind;
	d.nt = kd->nkey + 1;
	d.count = c->op == ORD_X_COUNT;
	d.ev = -1;
	unsigned given = 0;
	for (int i = 0; i < c->narg && i <= ORD_MAXKEY; i++) {
		if (c->arg[i]) {
			d.t[i] = ord_eval_int(c->arg[i], w->e, w->param);
			given |= 1u << i;
		} else {
			d.t[i] = -1;
		}
	}
	size_t lo, hi;
	kind_range(x, c->kind, &lo, &hi);
	/* narrow to the given positions before the first `_` (sorted by kind, then tuple) */
	int pre = 0;
	while (pre < d.nt && (given >> pre & 1))
		pre++;
	if (pre) {
		size_t a = lo, b = hi;
		while (a < b) { /* first with tuple prefix >= d.t[0..pre) */
			size_t m = (a + b) / 2;
			int cmp = 0;
			for (int i = 0; i < pre && !cmp; i++)
				if (x->sorted[m].t[i] != d.t[i])
					cmp = x->sorted[m].t[i] < d.t[i] ? -1 : 1;
			if (cmp < 0)
				a = m + 1;
			else
				b = m;
		}
		lo = a;
		b = hi;
		while (a < b) { /* first with tuple prefix > d.t[0..pre) */
			size_t m = (a + b) / 2;
			int cmp = 0;
			for (int i = 0; i < pre && !cmp; i++)
				if (x->sorted[m].t[i] != d.t[i])
					cmp = x->sorted[m].t[i] < d.t[i] ? -1 : 1;
			if (cmp <= 0)
				a = m + 1;
			else
				b = m;
		}
		hi = a;
	}
	size_t best = SIZE_MAX;
	for (size_t k = lo; k < hi; k++) {
		const irec *rr = &x->sorted[k];
		int ok = rr->pos < w->pos;
		for (int i = pre; i < d.nt && ok; i++)
			if ((given >> i & 1) && rr->t[i] != d.t[i])
				ok = 0;
		if (!ok)
			continue;
		d.nmatch++;
		if (best == SIZE_MAX || rr->pos > best)
			best = rr->pos;
	}
	if (best != SIZE_MAX)
		d.ev = (int64_t)x->order[best];
	d.given = given;
	if (w->n < w->max)
		w->out[w->n] = d;
	w->n++;
}

static void walk(struct walk *w, const ord_expr *c)
{
	if (!c)
		return;
	switch (c->op) {
	case ORD_X_COUNT:
		if (w->no_counts)
			return;
		/* fall through */
	case ORD_X_ATOM:
		atom(w, c);
		return;
	case ORD_X_AND:
		walk(w, c->a);
		walk(w, c->b);
		return;
	case ORD_X_OR:
		/* a side that holds by the event's own fields needed nothing */
		if ((!has_atom(c->a) && holds(c->a, w->e, w->param)) ||
		    (!has_atom(c->b) && holds(c->b, w->e, w->param)))
			return;
		walk(w, c->a);
		walk(w, c->b);
		return;
	case ORD_X_NOT:
		return; /* what must not have happened is nothing it waited for */
	default:
		if (has_atom(c->a) || has_atom(c->b)) {
			walk(w, c->a);
			walk(w, c->b);
		}
		return;
	}
}

static size_t deps(const ord_explain *x, size_t i, ord_dep *out, size_t max, int no_counts)
{
	if (i >= x->n || x->posof[i] < 0)
		return 0;
	size_t p = (size_t)x->posof[i];
	struct walk w = { x, p, &x->res[p], NULL, 0, no_counts, out, max, 0 };
	for (size_t k = x->istart[p]; k < x->istart[p + 1]; k++) {
		const irec *in = &x->inst[k];
		const ord_kind *kd = &x->r->kind[in->kind];
		w.param = in->t;
		for (int q = 0; q < kd->nrules; q++) {
			w.rule = kd->rules[q];
			walk(&w, x->r->rule[w.rule].cond);
		}
	}
	return w.n;
}

size_t ord_explain_deps(const ord_explain *x, size_t i, ord_dep *out, size_t max)
{
	return deps(x, i, out, max, 0);
}

int64_t ord_explain_peer(ord_explain *x, size_t i)
{
	if (!x->peer) {
		x->peer = xmalloc((x->n ? x->n : 1) * sizeof *x->peer);
		for (size_t k = 0; k < x->n; k++)
			x->peer[k] = -1;
		ord_dep d[16];
		for (size_t p = 0; p < x->norder; p++) {
			size_t e = (size_t)x->order[p];
			size_t nd = deps(x, e, d, 16, 1);
			for (size_t k = 0; k < nd && k < 16; k++) {
				if (d[k].count || d[k].ev < 0 || x->ev[d[k].ev].proc == x->ev[e].proc)
					continue;
				if (x->peer[e] < 0)
					x->peer[e] = d[k].ev;
				if (x->peer[d[k].ev] < 0)
					x->peer[d[k].ev] = (int64_t)e;
			}
		}
	}
	return i < x->n ? x->peer[i] : -1;
}
