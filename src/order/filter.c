/* filter.c: the causality filter of filter.h.
 *
 * The paper checks the head of every hold queue in every round. Done literally that costs the
 * number of threads per released event, so a head that failed is parked on the facts its
 * condition read (the table entries of its atoms) and checked again only when one of them
 * changes: the rounds see the same heads valid as a full scan would. Facts are one entry per
 * (kind, key): the highest n delivered (`hw`), the next number to give (`cnt`), the adjusted
 * timestamps of the last few instances (for the timestamp policy's bound), and the parked
 * queues; count indexes (#KIND(...)) are entries of the same table. */
#include "order/filter.h"
#include "order/retired.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

#define RING 8
#define MAXINST 8
#define NOTS INT64_MIN

/* One entry of the facts: 128 bytes on a 128-byte boundary, what a lookup and the rules read
 * first (nk, hw, cnt, tsmax and the key's first three values) in its first cache line. */
typedef struct fent {
	uint32_t waiters;          /* first node, 0 for none */
	uint8_t nk;
	uint64_t last;             /* the output index when it was last read or changed */
	int64_t hw, cnt, tsmax;
	int64_t k[ORD_MAXKEY + 2]; /* tag, values */
	int64_t ihw;
	int64_t minneed;           /* the lowest level a parked queue waits for */
	int64_t pad_;
} fent;
_Static_assert(sizeof(fent) == 128, "a fact entry is two cache lines");
_Static_assert(ORD_MAXKEY == 6, "check_event copies up to six key values");

typedef struct qev {
	dt_sync_event ev;
	uint64_t id;
} qev;

typedef struct oq {
	int32_t proc, thread;
	qev *buf;
	size_t cap, head, len; /* cap: 0 or a power of two */
	uint32_t gen;
	uint8_t inready;
	uint8_t seen, off; /* its first event came; the thread is off (`start`, `end`) */
	int32_t offscope;  /* off after an `end ... within SCOPE`: the scope kind, else -1 */
	int64_t lastts;
} oq;

/* The threads a process's forks announced (`fork`) less those that started since: while above
 * 0, so many queues without a head, which hold back the rounds of maximal concurrency. */
typedef struct pent {
	int32_t proc;
	uint8_t used;
	int64_t bal;
} pent;

typedef struct lent {
	int32_t proc;
	uint8_t used;
	uint64_t req;
	ord_link l;
} lent;

/* A parked queue: woken when the entry's level (hw for an instance key, the count for a count
 * index) reaches need, so that the members of a collective do not all wake on every entry. */
typedef struct wnode {
	uint32_t q, gen, next;
	int64_t need;
} wnode;

typedef struct chosen {
	uint32_t q;
	int ninst;
	ord_inst in[MAXINST];
	uint32_t own[MAXINST];
	int64_t bound;
} chosen;

struct ord_filter {
	const ord_rules *r;
	ord_filter_opts o;
	ord_emit_fn emit;
	void *ctx;
	/* queues */
	oq *q;
	uint32_t nq, capq;
	uint32_t *qslot; /* open addressing over (proc, thread) -> q + 1 */
	size_t qslotcap;
	uint32_t *ready;
	size_t nready, capready;
	uint32_t *cur;
	size_t capcur;
	/* facts */
	fent *ent;
	size_t nent, capent;
	/* per entry, the timestamp policy's numbers and adjusted timestamps of the last RING
	 * instances (kept apart: the other policies do not need them) */
	struct ring { int64_t n[RING], ts[RING]; } *ring;
	uint32_t *slot;  /* -> ent + 1 */
	size_t slotcap;
	/* the entries found last, by hash: a small direct-mapped table in front of slot (which
	 * is large and read at random: a cache miss for most lookups). Emptied when entries move */
	struct recent { uint32_t tag, ent; } *recent; /* ent + 1, 0 for none */
	/* parked queues */
	wnode *wn;
	uint32_t nwn, capwn, wfree;
	/* request links */
	lent *link;
	size_t linkcap, nlink;
	/* the evaluation in progress */
	uint32_t touched[64];
	int64_t tneed[64];
	int ntouched;
	int64_t hint; /* the need of the next count read (a >= comparison's other side) */
	/* the round */
	chosen *step;
	size_t nstep, capstep;
	uint64_t index, stepno;
	int64_t lastout; /* ORD_TIMESTAMP: the adjusted timestamp of the last event delivered */
	uint64_t nempty; /* queues without a head, and the announced threads not yet started
			  * (`fork`): while there is one, a round is not decided */
	pent *pend;      /* per process, open addressing */
	size_t pendcap, npend;
	int whole;       /* ORD_CONCURRENT: the rounds only at ord_filter_drain */
	uint64_t ignored; /* events of threads that were off, not delivered */
	size_t held, peak;
	uint64_t next_sweep;
	/* instance keys idle for retire_after deliveries, put aside with their numbers */
	ord_retired *retired;
	uint64_t retire_after;
	/* per kind: whether some rule reads its facts (an atom KIND(...)); the facts of a kind no
	 * rule reads and that is not numbered by counting are never looked up */
	uint8_t *kread;
	/* per kind, the count indexes over it: cixlist[cixstart[k] .. cixstart[k + 1]) */
	int *cixstart, *cixlist;
};

/* ---- hashing -------------------------------------------------------------------------------------- */

static inline uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	h *= 0xff51afd7ed558ccdull;
	return h ^ (h >> 32);
}

/* A key's hash: a multiply per value, then one mixing round so that both the low bits (the
 * large table) and the high bits (the recent table) depend on every value. */
static inline uint64_t khash(const int64_t *k, int nk)
{
	uint64_t h = 0x12345;
	for (int i = 0; i < nk; i++)
		h = (h ^ (uint64_t)k[i]) * 0x9e3779b97f4a7c15ull;
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 32);
}

static void slots_grow(ord_filter *f)
{
	size_t cap = f->slotcap ? f->slotcap * 2 : 1024;
	uint32_t *s = xcalloc(cap, sizeof *s);
	for (size_t i = 0; i < f->nent; i++) {
		size_t j = khash(f->ent[i].k, f->ent[i].nk) & (cap - 1);
		while (s[j])
			j = (j + 1) & (cap - 1);
		s[j] = (uint32_t)i + 1;
	}
	free(f->slot);
	f->slot = s;
	f->slotcap = cap;
}

#define RECENT_BITS 14

static inline int key_eq(const fent *e, const int64_t *k, int nk)
{
	if (e->nk != nk)
		return 0;
	for (int i = 0; i < nk; i++)
		if (e->k[i] != k[i])
			return 0;
	return 1;
}

/* The entry of key k (tag first), made when absent. */
static uint32_t fact(ord_filter *f, const int64_t *k, int nk, const ord_kind *kind)
{
	uint64_t h = khash(k, nk);
	struct recent *rc = &f->recent[h >> (64 - RECENT_BITS)];
	uint32_t tag = (uint32_t)h;
	if (rc->ent && rc->tag == tag) {
		fent *e = &f->ent[rc->ent - 1];
		if (key_eq(e, k, nk)) {
			e->last = f->index;
			return rc->ent - 1;
		}
	}
	if ((f->nent + 1) * 2 > f->slotcap)
		slots_grow(f);
	size_t j = h & (f->slotcap - 1);
	for (;;) {
		uint32_t s = f->slot[j];
		if (!s)
			break;
		fent *e = &f->ent[s - 1];
		if (key_eq(e, k, nk)) {
			e->last = f->index;
			*rc = (struct recent){ tag, s };
			return s - 1;
		}
		j = (j + 1) & (f->slotcap - 1);
	}
	if (f->nent == f->capent) {
		size_t cap = f->capent ? f->capent * 2 : 1024;
		fent *ne = aligned_alloc(sizeof(fent), cap * sizeof *ne);
		if (!ne) /* (then xmalloc reports the lack of memory) */
			ne = xmalloc(cap * sizeof *ne);
		if (f->nent)
			memcpy(ne, f->ent, f->nent * sizeof *ne);
		free(f->ent);
		f->ent = ne;
		f->capent = cap;
		if (f->o.policy == ORD_TIMESTAMP)
			f->ring = xrealloc(f->ring, f->capent * sizeof *f->ring);
	}
	fent *e = &f->ent[f->nent];
	memset(e, 0, sizeof *e);
	memcpy(e->k, k, (size_t)nk * sizeof *k);
	e->nk = (uint8_t)nk;
	e->last = f->index;
	e->ihw = kind ? ord_initial(kind, k + 1) : ORD_NONE_HW;
	e->hw = e->ihw;
	e->tsmax = NOTS;
	if (f->retired)
		(void)ord_retired_take(f->retired, k, nk, &e->hw, &e->cnt);
	if (f->ring)
		for (int i = 0; i < RING; i++)
			f->ring[f->nent].n[i] = ORD_NONE_HW;
	f->slot[j] = (uint32_t)f->nent + 1;
	*rc = (struct recent){ tag, (uint32_t)f->nent + 1 };
	return (uint32_t)f->nent++;
}

/* The entries of a long run: instance keys (a message envelope, a lock, a collective's
 * communicator) are numbered, and a record whose messages each have a tag of their own makes a
 * key per message; count indexes (#KIND(...)) have one entry per value of their given
 * positions, which for a collective or a region includes its instance number. An entry nobody
 * waits for and nobody read, numbered or counted in the last retire_after deliveries is put
 * aside with its numbers (retired.h, about 20 bytes instead of 140) and taken back, numbers
 * and all, when its key comes again: the output is that of a filter that keeps every entry.
 * Under the timestamp policy, whose bounds read the adjusted times of an entry's last
 * instances, nothing is put aside: a count index nobody used in the last 8 x max_held
 * deliveries is dropped (an event that still needed it would be held and reported, never
 * released early), and the instance keys stay. */
static int idle_drop(const ord_filter *f, const fent *e, uint64_t cutoff, uint64_t rcutoff)
{
	if (e->waiters)
		return 0;
	if (!f->retired)
		return (e->k[0] >> 40) && e->last < cutoff;
	if (e->last >= rcutoff)
		return 0;
	if (e->hw == e->ihw && !e->cnt)
		return 1; /* as a new entry would be: nothing to keep */
	return ord_retired_put(f->retired, e->k, e->nk, e->hw, e->cnt) == 0;
}

static void sweep(ord_filter *f)
{
	uint64_t horizon = 8 * (uint64_t)f->o.max_held;
	uint64_t every = horizon;
	if (f->retired && f->retire_after / 2 < every)
		every = f->retire_after / 2 ? f->retire_after / 2 : 1;
	f->next_sweep = f->index + every;
	uint64_t cutoff = f->index < horizon ? 0 : f->index - horizon;
	uint64_t rcutoff = f->index < f->retire_after ? 0 : f->index - f->retire_after;
	if (!cutoff && !rcutoff)
		return;
	size_t o = 0;
	for (size_t i = 0; i < f->nent; i++) {
		fent *e = &f->ent[i];
		if (idle_drop(f, e, cutoff, rcutoff))
			continue;
		if (o != i) {
			f->ent[o] = *e;
			if (f->ring)
				f->ring[o] = f->ring[i];
		}
		o++;
	}
	if (o == f->nent)
		return;
	f->nent = o;
	memset(f->recent, 0, ((size_t)1 << RECENT_BITS) * sizeof *f->recent);
	memset(f->slot, 0, f->slotcap * sizeof *f->slot);
	for (size_t i = 0; i < f->nent; i++) {
		size_t j = khash(f->ent[i].k, f->ent[i].nk) & (f->slotcap - 1);
		while (f->slot[j])
			j = (j + 1) & (f->slotcap - 1);
		f->slot[j] = (uint32_t)i + 1;
	}
}

/* ---- queues -------------------------------------------------------------------------------------- */

static uint64_t qhash(int32_t p, int32_t t)
{
	return mix(mix(7, (uint64_t)(uint32_t)p), (uint64_t)(uint32_t)t);
}

static uint32_t queue_of(ord_filter *f, int32_t p, int32_t t)
{
	if ((f->nq + 1) * 2 > f->qslotcap) {
		size_t cap = f->qslotcap ? f->qslotcap * 2 : 256;
		uint32_t *s = xcalloc(cap, sizeof *s);
		for (uint32_t i = 0; i < f->nq; i++) {
			size_t j = qhash(f->q[i].proc, f->q[i].thread) & (cap - 1);
			while (s[j])
				j = (j + 1) & (cap - 1);
			s[j] = i + 1;
		}
		free(f->qslot);
		f->qslot = s;
		f->qslotcap = cap;
	}
	size_t j = qhash(p, t) & (f->qslotcap - 1);
	while (f->qslot[j]) {
		oq *q = &f->q[f->qslot[j] - 1];
		if (q->proc == p && q->thread == t)
			return f->qslot[j] - 1;
		j = (j + 1) & (f->qslotcap - 1);
	}
	if (f->nq == f->capq) {
		f->capq = f->capq ? f->capq * 2 : 64;
		f->q = xrealloc(f->q, f->capq * sizeof *f->q);
	}
	oq *q = &f->q[f->nq];
	memset(q, 0, sizeof *q);
	q->proc = p;
	q->thread = t;
	q->lastts = NOTS;
	q->offscope = -1;
	f->nempty++;
	f->qslot[j] = f->nq + 1;
	return f->nq++;
}

static void make_ready(ord_filter *f, uint32_t qi)
{
	oq *q = &f->q[qi];
	if (q->inready || !q->len)
		return;
	q->inready = 1;
	if (f->nready == f->capready) {
		f->capready = f->capready ? f->capready * 2 : 64;
		f->ready = xrealloc(f->ready, f->capready * sizeof *f->ready);
	}
	f->ready[f->nready++] = qi;
}

/* ---- request links ------------------------------------------------------------------------------- */

static size_t link_slot(const ord_filter *f, int32_t proc, uint64_t req)
{
	return mix(mix(3, (uint64_t)(uint32_t)proc), req) & (f->linkcap - 1);
}

static lent *link_find(ord_filter *f, int32_t proc, uint64_t req)
{
	if (!f->linkcap)
		return NULL;
	for (size_t j = link_slot(f, proc, req);; j = (j + 1) & (f->linkcap - 1)) {
		lent *l = &f->link[j];
		if (!l->used)
			return NULL;
		if (l->proc == proc && l->req == req)
			return l;
	}
}

static void link_put(ord_filter *f, int32_t proc, uint64_t req, const ord_link *v)
{
	if ((f->nlink + 1) * 2 > f->linkcap) {
		size_t cap = f->linkcap ? f->linkcap * 2 : 256;
		lent *old = f->link;
		size_t oc = f->linkcap;
		f->link = xcalloc(cap, sizeof *f->link);
		f->linkcap = cap;
		f->nlink = 0;
		for (size_t i = 0; i < oc; i++)
			if (old[i].used)
				link_put(f, old[i].proc, old[i].req, &old[i].l);
		free(old);
	}
	lent *l = link_find(f, proc, req);
	if (!l) {
		size_t j = link_slot(f, proc, req);
		while (f->link[j].used)
			j = (j + 1) & (f->linkcap - 1);
		l = &f->link[j];
		l->used = 1;
		l->proc = proc;
		l->req = req;
		f->nlink++;
	}
	l->l = *v;
}

static void link_del(ord_filter *f, lent *l)
{
	/* backward-shift deletion keeps probe chains whole */
	size_t i = (size_t)(l - f->link), m = f->linkcap - 1;
	l->used = 0;
	f->nlink--;
	for (size_t j = (i + 1) & m; f->link[j].used; j = (j + 1) & m) {
		size_t h = link_slot(f, f->link[j].proc, f->link[j].req);
		/* can the entry at j move to the hole at i? (h not cyclically in (i, j]) */
		if ((j > i && (h <= i || h > j)) || (j < i && (h <= i && h > j))) {
			f->link[i] = f->link[j];
			f->link[j].used = 0;
			i = j;
		}
	}
}

/* ---- evaluation --------------------------------------------------------------------------------- */

static void touch(ord_filter *f, uint32_t ent, int64_t need)
{
	for (int i = 0; i < f->ntouched; i++)
		if (f->touched[i] == ent) {
			if (need < f->tneed[i])
				f->tneed[i] = need;
			return;
		}
	if (f->ntouched < (int)(sizeof f->touched / sizeof *f->touched)) {
		f->tneed[f->ntouched] = need;
		f->touched[f->ntouched++] = ent;
	}
}

static int64_t num(ord_filter *f, const ord_expr *x, const dt_sync_event *e, const int64_t *param,
		   int64_t *bound);

/* A rule's operand: its leaves (a number, a parameter, a field) without a call. */
static inline int64_t val(ord_filter *f, const ord_expr *x, const dt_sync_event *e,
			  const int64_t *param, int64_t *bound)
{
	switch (x->op) {
	case ORD_X_INT: return x->v;
	case ORD_X_PARAM: return param[x->v];
	case ORD_X_FIELD: return ord_field_get(e, (int)x->v);
	}
	return num(f, x, e, param, bound);
}

/* #KIND(...): the count of its entry, the entry touched with the pending hint. */
static int64_t count_of(ord_filter *f, const ord_expr *x, const dt_sync_event *e,
			const int64_t *param, int64_t *bound)
{
	int64_t k[ORD_MAXKEY + 2];
	int nk = 1;
	k[0] = ((int64_t)1 << 40) | x->countix;
	for (int i = 0; i < x->narg; i++)
		if (x->arg[i])
			k[nk++] = val(f, x->arg[i], e, param, bound);
	uint32_t en = fact(f, k, nk, NULL);
	touch(f, en, f->hint);
	f->hint = INT64_MIN;
	fent *fe = &f->ent[en];
	if (fe->tsmax > *bound)
		*bound = fe->tsmax;
	return fe->cnt;
}

static int64_t num(ord_filter *f, const ord_expr *x, const dt_sync_event *e, const int64_t *param,
		   int64_t *bound)
{
	switch (x->op) { /* (the leaves are val's) */
	case ORD_X_ADD: return val(f, x->a, e, param, bound) + val(f, x->b, e, param, bound);
	case ORD_X_SUB: return val(f, x->a, e, param, bound) - val(f, x->b, e, param, bound);
	case ORD_X_NEG: return -val(f, x->a, e, param, bound);
	case ORD_X_COUNT: return count_of(f, x, e, param, bound);
	}
	return ord_eval_int(x, e, param);
}

/* Whether x holds; *bound gets the latest adjusted timestamp among the delivered events that
 * make it hold (NOTS when none). */
static int holds(ord_filter *f, const ord_expr *x, const dt_sync_event *e, const int64_t *param,
		 int64_t *bound)
{
	*bound = NOTS;
	switch (x->op) {
	case ORD_X_AND: {
		int64_t b1, b2;
		if (!holds(f, x->a, e, param, &b1))
			return 0;
		if (!holds(f, x->b, e, param, &b2))
			return 0;
		*bound = b1 > b2 ? b1 : b2;
		return 1;
	}
	case ORD_X_OR: {
		int64_t b1, b2;
		int h1 = holds(f, x->a, e, param, &b1);
		/* only the timestamp policy needs the bound of both sides; otherwise a true first
		 * side decides, and what the second would read need not be parked on (as with
		 * `&&`: a check that fails is parked on the facts that made it fail) */
		if (h1 && f->o.policy != ORD_TIMESTAMP) {
			*bound = b1;
			return 1;
		}
		int h2 = holds(f, x->b, e, param, &b2);
		if (h1 && h2)
			*bound = b1 < b2 ? b1 : b2;
		else if (h1 || h2)
			*bound = h1 ? b1 : b2;
		return h1 || h2;
	}
	case ORD_X_NOT: {
		int64_t b;
		return !holds(f, x->a, e, param, &b);
	}
	case ORD_X_ATOM: {
		const ord_kind *kd = &f->r->kind[x->kind];
		int64_t k[ORD_MAXKEY + 2], m;
		int64_t ignore = NOTS;
		k[0] = x->kind;
		for (int i = 0; i < kd->nkey; i++)
			k[i + 1] = val(f, x->arg[i], e, param, &ignore);
		m = val(f, x->arg[kd->nkey], e, param, &ignore);
		uint32_t en = fact(f, k, kd->nkey + 1, kd);
		touch(f, en, m);
		const fent *fe = &f->ent[en];
		if (fe->hw == ORD_NONE_HW || fe->hw < m)
			return 0;
		if (fe->ihw != ORD_NONE_HW && m <= fe->ihw)
			return 1;
		*bound = fe->tsmax;
		if (f->ring)
			for (int i = 0; i < RING; i++)
				if (f->ring[en].n[i] == m) {
					*bound = f->ring[en].ts[i];
					break;
				}
		return 1;
	}
	default: {
		int64_t b1 = NOTS, b2 = NOTS, a, b;
		if ((x->op == ORD_X_GE || x->op == ORD_X_GT) && x->a->op == ORD_X_COUNT) {
			/* #K(...) >= b: park until the count reaches b */
			b = val(f, x->b, e, param, &b2);
			f->hint = x->op == ORD_X_GE ? b : b + 1;
			a = num(f, x->a, e, param, &b1);
			f->hint = INT64_MIN;
		} else {
			a = val(f, x->a, e, param, &b1);
			b = val(f, x->b, e, param, &b2);
		}
		int r = 0;
		switch (x->op) {
		case ORD_X_EQ: r = a == b; break;
		case ORD_X_NE: r = a != b; break;
		case ORD_X_LT: r = a < b; break;
		case ORD_X_LE: r = a <= b; break;
		case ORD_X_GT: r = a > b; break;
		case ORD_X_GE: r = a >= b; break;
		}
		if (r)
			*bound = b1 > b2 ? b1 : b2;
		return r;
	}
	}
}

/* The event with its request's fields, and the function of that request. */
/* The event as the rules see it: *use is in itself, or buf filled with its request's fields. */
static uint32_t resolve(ord_filter *f, const dt_sync_event *in, dt_sync_event *buf,
			const dt_sync_event **use)
{
	*use = in;
	if (!in->req || !ord_completes_request(f->r, in))
		return UINT32_MAX;
	lent *l = link_find(f, in->proc, in->req);
	if (!l)
		return UINT32_MAX;
	*buf = *in;
	ord_link_apply(buf, &l->l);
	*use = buf;
	return l->l.func;
}

/* The instances of e with their n (counted ones not yet taken), and whether every rule of
 * every instance holds. */
static int check_event(ord_filter *f, const dt_sync_event *e, ord_inst *in, uint32_t *own,
		       int *ninst, int64_t *bound)
{
	const ord_rules *r = f->r;
	*bound = NOTS;
	f->ntouched = 0;
	f->hint = INT64_MIN;
	if (!ord_may_have_instances(r, e)) { /* most events: no rule, nothing to resolve */
		*ninst = 0;
		return 1;
	}
	dt_sync_event buf;
	const dt_sync_event *res;
	uint32_t via = resolve(f, e, &buf, &res);
	int n = ord_instances(r, res, via, in, MAXINST);
	*ninst = n;
	int ok = 1;
	for (int i = 0; i < n && ok; i++) {
		const ord_kind *kd = &r->kind[in[i].kind];
		int64_t k[ORD_MAXKEY + 2];
		k[0] = in[i].kind;
		switch (kd->nkey) { /* (a loop here became a call to memcpy) */
		case 6: k[6] = in[i].t[5]; /* fall through */
		case 5: k[5] = in[i].t[4]; /* fall through */
		case 4: k[4] = in[i].t[3]; /* fall through */
		case 3: k[3] = in[i].t[2]; /* fall through */
		case 2: k[2] = in[i].t[1]; /* fall through */
		case 1: k[1] = in[i].t[0]; /* fall through */
		default: break;
		}
		own[i] = kd->seq == ORD_SEQ_COUNT || f->kread[in[i].kind]
				 ? fact(f, k, kd->nkey + 1, kd)
				 : UINT32_MAX;
		if (kd->seq == ORD_SEQ_FIELD) {
			in[i].t[kd->nkey] = ord_field_get(res, kd->seqarg);
		} else if (kd->seq == ORD_SEQ_AS) {
			for (int j = 0; j < i; j++)
				if (in[j].kind == kd->seqarg)
					in[i].t[kd->nkey] = in[j].t[r->kind[kd->seqarg].nkey];
		} else {
			in[i].t[kd->nkey] = f->ent[own[i]].cnt + 1;
		}
		for (int j = 0; j < kd->nrules && ok; j++) {
			int64_t b;
			ok = holds(f, r->rule[kd->rules[j]].cond, res, in[i].t, &b);
			if (ok && b > *bound)
				*bound = b;
		}
	}
	return ok;
}

static void park(ord_filter *f, uint32_t qi)
{
	oq *q = &f->q[qi];
	for (int i = 0; i < f->ntouched; i++) {
		uint32_t w;
		if (f->wfree) {
			w = f->wfree;
			f->wfree = f->wn[w].next;
		} else {
			if (f->nwn == f->capwn) {
				f->capwn = f->capwn ? f->capwn * 2 : 1024;
				f->wn = xrealloc(f->wn, f->capwn * sizeof *f->wn);
				if (!f->nwn)
					f->nwn = 1; /* node 0 means none */
			}
			w = f->nwn++;
		}
		fent *fe = &f->ent[f->touched[i]];
		int64_t need = f->tneed[i];
		f->wn[w] = (wnode){ qi, q->gen, fe->waiters, need };
		if (!fe->waiters || need < fe->minneed)
			fe->minneed = need;
		fe->waiters = w;
	}
}

/* The entry's level changed to `level`: wake the queues that waited for it. */
static void wake(ord_filter *f, fent *fe, int64_t level)
{
	if (!fe->waiters || level < fe->minneed)
		return;
	uint32_t w = fe->waiters, keep = 0;
	int64_t minneed = INT64_MAX;
	while (w) {
		wnode *n = &f->wn[w];
		uint32_t next = n->next;
		if (f->q[n->q].gen != n->gen || level >= n->need) {
			if (f->q[n->q].gen == n->gen)
				make_ready(f, n->q);
			n->next = f->wfree;
			f->wfree = w;
		} else {
			n->next = keep;
			keep = w;
			if (n->need < minneed)
				minneed = n->need;
		}
		w = next;
	}
	fe->waiters = keep;
	fe->minneed = minneed;
}

/* Takes the numbers of counted instances (so that a second instance of the same key in the
 * same round gets the next one). */
static void take_numbers(ord_filter *f, const ord_inst *in, const uint32_t *own, int n)
{
	for (int i = 0; i < n; i++) {
		const ord_kind *kd = &f->r->kind[in[i].kind];
		if (kd->seq == ORD_SEQ_COUNT)
			f->ent[own[i]].cnt = in[i].t[kd->nkey];
	}
}

/* Delivers e, the next event of queue qi (its head, or an event pushed to the empty queue). */
static void deliver_ev(ord_filter *f, uint32_t qi, const dt_sync_event *e, uint64_t id,
		       const ord_inst *in, const uint32_t *own, int n, int64_t bound)
{
	oq *q = &f->q[qi];
	int64_t base = e->ts;
	if (f->o.host_off && e->host >= 0 && (size_t)e->host < f->o.nhost)
		base += f->o.host_off[e->host];
	int64_t ts = base;
	if (f->o.policy == ORD_TIMESTAMP) {
		if (q->lastts != NOTS && q->lastts > ts)
			ts = q->lastts;
		if (bound != NOTS && bound + 1 > ts)
			ts = bound + 1;
		/* and no earlier than the event delivered before it, of any thread: a display
		 * that places the events by time in the order they arrive never sees time go
		 * back (Kraemer, section 6: consistent with the delivery order) */
		if (f->lastout != NOTS && f->lastout > ts)
			ts = f->lastout;
		f->lastout = ts;
	}
	q->lastts = ts;
	/* request links */
	if (ord_defines_request(f->r, e)) {
		ord_link l;
		ord_link_make(&l, e);
		link_put(f, e->proc, e->req, &l);
	} else if (ord_completes_request(f->r, e)) {
		lent *l = link_find(f, e->proc, e->req);
		if (l)
			link_del(f, l);
	}
	/* facts */
	for (int i = 0; i < n; i++) {
		const ord_kind *kd = &f->r->kind[in[i].kind];
		int64_t nn = in[i].t[kd->nkey];
		if (own[i] != UINT32_MAX) {
			fent *fe = &f->ent[own[i]];
			if (fe->hw == ORD_NONE_HW || nn > fe->hw)
				fe->hw = nn;
			if (kd->seq == ORD_SEQ_COUNT && nn > fe->cnt)
				fe->cnt = nn;
			if (f->ring) {
				int slot = (int)((uint64_t)nn % RING);
				f->ring[own[i]].n[slot] = nn;
				f->ring[own[i]].ts[slot] = ts;
			}
			if (ts > fe->tsmax)
				fe->tsmax = ts;
			wake(f, fe, fe->hw);
		}
		for (int ci = f->cixstart[in[i].kind]; ci < f->cixstart[in[i].kind + 1]; ci++) {
			int c = f->cixlist[ci];
			const ord_countix *cx = &f->r->cix[c];
			int64_t ck[ORD_MAXKEY + 2];
			int nk = 1;
			ck[0] = ((int64_t)1 << 40) | c;
			for (int j = 0; j <= kd->nkey; j++)
				if (cx->mask >> j & 1)
					ck[nk++] = in[i].t[j];
			uint32_t cen = fact(f, ck, nk, NULL);
			fent *ce = &f->ent[cen];
			ce->cnt++;
			if (ts > ce->tsmax)
				ce->tsmax = ts;
			wake(f, ce, ce->cnt);
		}
	}
	ord_out o = { e, id, f->index++, 0, ts, ts - base };
	o.step = f->o.policy == ORD_CONCURRENT ? f->stepno : o.index;
	if (f->emit)
		f->emit(f->ctx, &o);
	f->held--;
}

/* Delivers the head of queue qi and takes it off the queue. */
static void deliver(ord_filter *f, uint32_t qi, const ord_inst *in, const uint32_t *own, int n,
		    int64_t bound)
{
	oq *q = &f->q[qi];
	qev *qe = &q->buf[q->head];
	deliver_ev(f, qi, &qe->ev, qe->id, in, own, n, bound);
	q = &f->q[qi];
	q->head = (q->head + 1) & (q->cap - 1);
	q->len--;
	if (!q->len && !q->off)
		f->nempty++;
}

/* Minimal intervention and adjusted timestamp: release each head as soon as it is valid. */
static void run_minimal(ord_filter *f)
{
	ord_inst in[MAXINST];
	uint32_t own[MAXINST];
	while (f->nready) {
		uint32_t qi = f->ready[--f->nready];
		f->q[qi].inready = 0;
		while (f->q[qi].len) {
			int n;
			int64_t bound;
			oq *q = &f->q[qi];
			q->gen++;
			if (!check_event(f, &q->buf[q->head].ev, in, own, &n, &bound)) {
				park(f, qi);
				break;
			}
			take_numbers(f, in, own, n);
			deliver(f, qi, in, own, n, bound);
		}
	}
}

/* Maximal concurrency: every head valid against what was delivered before the round goes out in
 * the round's step. Online (`decided`), a round is made only when every queue has a head: a
 * thread without one might yet send an event valid in this round, so the round waits for it;
 * ord_filter_drain makes the rounds that remain. */
static void run_concurrent(ord_filter *f, int decided)
{
	while (f->nready && !(decided && f->nempty)) {
		if (f->capcur < f->nready) {
			f->capcur = f->capready;
			f->cur = xrealloc(f->cur, f->capcur * sizeof *f->cur);
		}
		size_t ncur = f->nready;
		memcpy(f->cur, f->ready, ncur * sizeof *f->cur);
		f->nready = 0;
		f->nstep = 0;
		for (size_t i = 0; i < ncur; i++) {
			uint32_t qi = f->cur[i];
			oq *q = &f->q[qi];
			q->inready = 0;
			if (!q->len)
				continue;
			if (f->nstep == f->capstep) {
				f->capstep = f->capstep ? f->capstep * 2 : 64;
				f->step = xrealloc(f->step, f->capstep * sizeof *f->step);
			}
			chosen *c = &f->step[f->nstep];
			q->gen++;
			if (!check_event(f, &q->buf[q->head].ev, c->in, c->own, &c->ninst, &c->bound)) {
				park(f, qi);
				continue;
			}
			take_numbers(f, c->in, c->own, c->ninst);
			c->q = qi;
			f->nstep++;
		}
		if (!f->nstep)
			break;
		for (size_t i = 0; i < f->nstep; i++) {
			chosen *c = &f->step[i];
			deliver(f, c->q, c->in, c->own, c->ninst, c->bound);
			f->q[c->q].gen++; /* parked nodes of the old head are stale */
			make_ready(f, c->q);
		}
		f->stepno++;
	}
}

static void mark_read(uint8_t *kread, const ord_expr *x)
{
	if (!x)
		return;
	if (x->op == ORD_X_ATOM)
		kread[x->kind] = 1;
	mark_read(kread, x->a);
	mark_read(kread, x->b);
	if (x->op == ORD_X_ATOM || x->op == ORD_X_COUNT)
		for (int i = 0; i < x->narg; i++)
			mark_read(kread, x->arg[i]);
}

/* ---- the interface -------------------------------------------------------------------------------- */

ord_filter *ord_filter_new(const ord_rules *r, const ord_filter_opts *o, ord_emit_fn emit, void *ctx)
{
	ord_filter *f = xcalloc(1, sizeof *f);
	f->r = r;
	if (o)
		f->o = *o;
	if (!f->o.max_held)
		f->o.max_held = (size_t)1 << 20;
	f->emit = emit;
	f->ctx = ctx;
	f->lastout = NOTS;
	if (f->o.policy != ORD_TIMESTAMP && f->o.retire_after != UINT64_MAX) {
		f->retired = ord_retired_new();
		f->retire_after = f->o.retire_after ? f->o.retire_after : ORD_RETIRE_AFTER;
		f->next_sweep = f->retire_after / 2;
	} else {
		f->next_sweep = 8 * (uint64_t)f->o.max_held;
	}
	f->recent = xcalloc((size_t)1 << RECENT_BITS, sizeof *f->recent);
	f->kread = xcalloc((size_t)r->nkind + 1, 1);
	for (int i = 0; i < r->nrule; i++)
		mark_read(f->kread, r->rule[i].cond);
	f->cixstart = xcalloc((size_t)r->nkind + 2, sizeof *f->cixstart);
	f->cixlist = xcalloc((size_t)r->ncix + 1, sizeof *f->cixlist);
	int nl = 0;
	for (int k = 0; k <= r->nkind; k++) {
		f->cixstart[k] = nl;
		for (int c = 0; c < r->ncix; c++)
			if (r->cix[c].kind == k)
				f->cixlist[nl++] = c;
	}
	f->cixstart[r->nkind + 1] = nl;
	return f;
}

void ord_filter_free(ord_filter *f)
{
	if (!f)
		return;
	for (uint32_t i = 0; i < f->nq; i++)
		free(f->q[i].buf);
	free(f->q);
	free(f->qslot);
	free(f->ready);
	free(f->cur);
	free(f->ent);
	free(f->ring);
	free(f->slot);
	free(f->recent);
	free(f->kread);
	free(f->cixstart);
	free(f->cixlist);
	free(f->wn);
	free(f->link);
	free(f->step);
	ord_retired_free(f->retired);
	free(f->pend);
	free(f);
}

/* Turns a thread off or on (`start`, `end`): a thread that is off has no head to wait for. */
static void set_off(ord_filter *f, uint32_t qi, int off)
{
	oq *q = &f->q[qi];
	if (q->off == off)
		return;
	if (!q->len) {
		if (off)
			f->nempty--;
		else
			f->nempty++;
	}
	q->off = (uint8_t)off;
	q->offscope = -1;
}

static size_t pend_slot(const ord_filter *f, int32_t proc)
{
	size_t j = mix(11, (uint64_t)(uint32_t)proc) & (f->pendcap - 1);
	while (f->pend[j].used && f->pend[j].proc != proc)
		j = (j + 1) & (f->pendcap - 1);
	return j;
}

/* Process proc's announced threads not yet started move by d (`fork`: up, a start: down); the
 * part above 0 counts among the empty queues. */
static void pend_add(ord_filter *f, int32_t proc, int64_t d)
{
	if ((f->npend + 1) * 2 > f->pendcap) {
		pent *old = f->pend;
		size_t oc = f->pendcap;
		f->pendcap = oc ? oc * 2 : 64;
		f->pend = xcalloc(f->pendcap, sizeof *f->pend);
		for (size_t i = 0; i < oc; i++)
			if (old[i].used)
				f->pend[pend_slot(f, old[i].proc)] = old[i];
		free(old);
	}
	pent *p = &f->pend[pend_slot(f, proc)];
	if (!p->used) {
		p->used = 1;
		p->proc = proc;
		p->bal = 0;
		f->npend++;
	}
	int64_t was = p->bal > 0 ? p->bal : 0;
	/* (a start before its fork arrives is credited: the stream keeps only each thread's own
	 * order; the balance is kept within +-2^40, far beyond any real team) */
	p->bal += d;
	if (p->bal > ((int64_t)1 << 40))
		p->bal = (int64_t)1 << 40;
	if (p->bal < -((int64_t)1 << 40))
		p->bal = -((int64_t)1 << 40);
	int64_t now = p->bal > 0 ? p->bal : 0;
	f->nempty += (uint64_t)(now - was);
}

/* The thread's life, decided in its own order as its events arrive (the paper's section 5): off
 * before its start when its first event is in a start's scope, and after its end until a start
 * (or, after an end with a scope, an event outside it); a fork announces threads that will
 * start. Returns 1 when e is ignored (its thread is off). */
static int life_step(ord_filter *f, uint32_t qi, const dt_sync_event *e, unsigned life)
{
	oq *q = &f->q[qi];
	if (!q->seen)
		set_off(f, qi, !(life & ORD_TM_START) && (life & ORD_TM_SCOPE));
	q->seen = 1;
	if (q->off && !(life & ORD_TM_START) &&
	    (q->offscope < 0 || ord_is_instance(f->r, e, q->offscope))) {
		f->ignored++;
		return 1;
	}
	set_off(f, qi, 0);
	if (f->r->nfork) {
		if (life & ORD_TM_START)
			pend_add(f, e->proc, -1);
		if (life & ORD_TM_FORK)
			pend_add(f, e->proc, ord_thread_forks(f->r, e));
	}
	return 0;
}

/* After an end: the thread is off, and what is ignored after it is the end's scope. */
static void life_end(ord_filter *f, uint32_t qi, const dt_sync_event *e)
{
	set_off(f, qi, 1);
	f->q[qi].offscope = ord_thread_end_scope(f->r, e);
}

int ord_filter_push(ord_filter *f, const dt_sync_event *e, uint64_t id, dt_err *err)
{
	if (f->held >= f->o.max_held) {
		if (f->o.policy == ORD_CONCURRENT)
			ord_filter_drain(f);
		if (f->held >= f->o.max_held) {
			/* one line: the first held thread; ord_filter_explain has them all */
			char *why = ord_filter_explain(f, 1);
			for (char *c = why; *c; c++)
				if (*c == '\n')
					*c = ' ';
			dt_errf(err, DT_EDATA,
				"the rules release nothing: %zu events held (limit %zu); first: %s", f->held,
				f->o.max_held, why);
			free(why);
			return -1;
		}
	}
	if (f->index >= f->next_sweep)
		sweep(f); /* between rounds: no entry index is held anywhere */
	uint32_t qi = queue_of(f, e->proc, e->thread);
	oq *q = &f->q[qi];
	unsigned life = ord_thread_mark(f->r, e);
	if ((f->r->nstart || f->r->nend || f->r->nfork) && life_step(f, qi, e, life))
		return 0;
	q->seen = 1;
	int ended = (life & ORD_TM_END) != 0;
	int parked = 0;
	if (q->len == 0 && f->nready == 0 && f->o.policy != ORD_CONCURRENT) {
		/* the thread has nothing held: check the event where it is (what run_minimal would
		 * do first), deliver it without copying it into the queue when it is valid, and
		 * else enqueue it parked on what the check read */
		ord_inst in[MAXINST];
		uint32_t own[MAXINST];
		int n;
		int64_t bound;
		q->gen++;
		if (check_event(f, e, in, own, &n, &bound)) {
			if (++f->held > f->peak)
				f->peak = f->held;
			take_numbers(f, in, own, n);
			deliver_ev(f, qi, e, id, in, own, n, bound);
			if (ended)
				life_end(f, qi, e);
			run_minimal(f);
			return 0;
		}
		parked = 1;
	}
	if (q->len == q->cap) {
		size_t cap = q->cap ? q->cap * 2 : 16;
		qev *b = xmalloc(cap * sizeof *b);
		for (size_t i = 0; i < q->len; i++)
			b[i] = q->buf[(q->head + i) & (q->cap - 1)];
		free(q->buf);
		q->buf = b;
		q->cap = cap;
		q->head = 0;
	}
	qev *qe = &q->buf[(q->head + q->len) & (q->cap - 1)];
	qe->ev = *e;
	qe->id = id;
	if (!q->len++ && !q->off)
		f->nempty--;
	if (++f->held > f->peak)
		f->peak = f->held;
	if (ended)
		life_end(f, qi, e);
	if (parked) {
		park(f, qi);
		return 0;
	}
	if (q->len == 1)
		make_ready(f, qi);
	if (f->o.policy != ORD_CONCURRENT)
		run_minimal(f);
	else if (!f->nempty && !f->whole)
		run_concurrent(f, 1); /* the heads of a round are decided: release it now */
	return 0;
}

void ord_filter_set_whole(ord_filter *f)
{
	f->whole = 1;
}

size_t ord_filter_drain(ord_filter *f)
{
	if (f->o.policy == ORD_CONCURRENT)
		run_concurrent(f, 0);
	else
		run_minimal(f);
	return f->held;
}

uint64_t ord_filter_ignored(const ord_filter *f)
{
	return f->ignored;
}

size_t ord_filter_held(const ord_filter *f)
{
	return f->held;
}

size_t ord_filter_peak_held(const ord_filter *f)
{
	return f->peak;
}

size_t ord_filter_bytes(const ord_filter *f)
{
	size_t b = sizeof *f + f->capq * sizeof *f->q + f->qslotcap * 4 + f->capent * sizeof *f->ent +
		   (f->ring ? f->capent * sizeof *f->ring : 0) +
		   f->slotcap * 4 + ((size_t)1 << RECENT_BITS) * sizeof *f->recent + f->capwn * sizeof *f->wn + f->linkcap * sizeof *f->link +
		   (f->capready + f->capcur) * 4 + f->capstep * sizeof *f->step +
		   (f->retired ? ord_retired_bytes(f->retired) : 0);
	for (uint32_t i = 0; i < f->nq; i++)
		b += f->q[i].cap * sizeof(qev);
	return b;
}

/* ---- reports ---------------------------------------------------------------------------------------- */

typedef struct sbuf {
	char *s;
	size_t n, cap;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#include <stdarg.h>
static void sb_printf(sbuf *b, const char *fmt, ...)
{
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		int w = vsnprintf(b->s ? b->s + b->n : NULL, b->s ? b->cap - b->n : 0, fmt, ap);
		va_end(ap);
		if (w < 0)
			return;
		if (b->s && b->n + (size_t)w < b->cap) {
			b->n += (size_t)w;
			return;
		}
		b->cap = (b->cap + (size_t)w + 64) * 2;
		b->s = xrealloc(b->s, b->cap);
	}
}

/* What is false in x, in words. */
static void why(ord_filter *f, const ord_expr *x, const dt_sync_event *e, const int64_t *param,
		sbuf *b)
{
	int64_t bd;
	switch (x->op) {
	case ORD_X_AND:
		if (!holds(f, x->a, e, param, &bd)) {
			why(f, x->a, e, param, b);
			if (!holds(f, x->b, e, param, &bd)) {
				sb_printf(b, "; ");
				why(f, x->b, e, param, b);
			}
		} else {
			why(f, x->b, e, param, b);
		}
		return;
	case ORD_X_OR:
		sb_printf(b, "neither: ");
		why(f, x->a, e, param, b);
		sb_printf(b, " nor: ");
		why(f, x->b, e, param, b);
		return;
	case ORD_X_NOT:
		sb_printf(b, "already delivered: ");
		if (x->a->op == ORD_X_ATOM) {
			const ord_kind *kd = &f->r->kind[x->a->kind];
			int64_t t[ORD_MAXKEY + 1];
			for (int i = 0; i <= kd->nkey; i++)
				t[i] = num(f, x->a->arg[i], e, param, &bd);
			char s[256];
			ord_tuple_str(f->r, x->a->kind, t, kd->nkey + 1, s, sizeof s);
			sb_printf(b, "%s", s);
		} else {
			sb_printf(b, "(a negated condition, line %d)", x->line);
		}
		return;
	case ORD_X_ATOM: {
		const ord_kind *kd = &f->r->kind[x->kind];
		int64_t t[ORD_MAXKEY + 1], k[ORD_MAXKEY + 2];
		for (int i = 0; i <= kd->nkey; i++)
			t[i] = num(f, x->arg[i], e, param, &bd);
		k[0] = x->kind;
		memcpy(k + 1, t, (size_t)kd->nkey * sizeof *t);
		uint32_t en = fact(f, k, kd->nkey + 1, kd);
		const fent *fe = &f->ent[en];
		char s[256];
		ord_tuple_str(f->r, x->kind, t, kd->nkey + 1, s, sizeof s);
		if (fe->hw == ORD_NONE_HW)
			sb_printf(b, "needs %s: none of that key delivered", s);
		else
			sb_printf(b, "needs %s: highest delivered %lld", s, (long long)fe->hw);
		return;
	}
	default: {
		int64_t a = num(f, x->a, e, param, &bd), c = num(f, x->b, e, param, &bd);
		static const char *const op[] = { "==", "!=", "<", "<=", ">", ">=" };
		if (x->a->op == ORD_X_COUNT)
			sb_printf(b, "needs #%s(...) %s %lld: it is %lld", f->r->kind[x->a->kind].name,
				  op[x->op - ORD_X_EQ], (long long)c, (long long)a);
		else
			sb_printf(b, "needs %lld %s %lld (line %d)", (long long)a, op[x->op - ORD_X_EQ],
				  (long long)c, x->line);
	}
	}
}

/* Why the head of queue qi is held: the rule and the words into h. */
static void held_one(ord_filter *f, uint32_t qi, ord_held *h)
{
	oq *q = &f->q[qi];
	memset(h, 0, sizeof *h);
	h->ev = q->buf[q->head].ev;
	h->id = q->buf[q->head].id;
	h->nheld = q->len;
	const dt_sync_event *e = &q->buf[q->head].ev;
	sbuf b = { 0 };
	ord_inst in[MAXINST];
	uint32_t own[MAXINST];
	int n;
	int64_t bound;
	if (check_event(f, e, in, own, &n, &bound)) {
		sb_printf(&b, "valid, not yet released");
		h->why = b.s;
		return;
	}
	dt_sync_event buf;
	const dt_sync_event *res;
	resolve(f, e, &buf, &res);
	for (int i = 0; i < n; i++) {
		const ord_kind *kd = &f->r->kind[in[i].kind];
		for (int j = 0; j < kd->nrules; j++) {
			const ord_rule *ru = &f->r->rule[kd->rules[j]];
			if (holds(f, ru->cond, res, in[i].t, &bound))
				continue;
			char ts[256];
			ord_tuple_str(f->r, in[i].kind, in[i].t, kd->nkey + 1, ts, sizeof ts);
			snprintf(h->rule, sizeof h->rule, "%s:%d", ru->file, ru->line);
			sb_printf(&b, "%s: ", ts);
			why(f, ru->cond, res, in[i].t, &b);
			h->why = b.s;
			return;
		}
	}
	sb_printf(&b, "held");
	h->why = b.s;
}

void ord_filter_held_list(ord_filter *f, ord_held **out, size_t *n)
{
	size_t k = 0;
	for (uint32_t qi = 0; qi < f->nq; qi++)
		k += f->q[qi].len > 0;
	*out = k ? xcalloc(k, sizeof **out) : NULL;
	*n = k;
	k = 0;
	for (uint32_t qi = 0; qi < f->nq; qi++)
		if (f->q[qi].len)
			held_one(f, qi, &(*out)[k++]);
}

void ord_held_free(ord_held *h, size_t n)
{
	for (size_t i = 0; h && i < n; i++)
		free(h[i].why);
	free(h);
}

char *ord_filter_explain(ord_filter *f, size_t max_lines)
{
	sbuf b = { 0 };
	size_t lines = 0, more = 0;
	for (uint32_t qi = 0; qi < f->nq; qi++) {
		oq *q = &f->q[qi];
		if (!q->len)
			continue;
		if (lines == max_lines) {
			more++;
			continue;
		}
		lines++;
		ord_held h;
		held_one(f, qi, &h);
		char es[200];
		ord_event_str(f->r, &h.ev, es, sizeof es);
		sb_printf(&b, "%s%s (%zu held): ", lines > 1 ? "\n" : "", es, h.nheld);
		/* the tuple, then the rule, then what it waits for */
		const char *colon = h.rule[0] ? strstr(h.why, ": ") : NULL;
		if (colon)
			sb_printf(&b, "%.*s, rule %s:%s", (int)(colon - h.why), h.why, h.rule,
				  colon + 1);
		else
			sb_printf(&b, "%s", h.why);
		free(h.why);
	}
	if (more)
		sb_printf(&b, "\n... and %zu more held threads", more);
	if (!b.s)
		sb_printf(&b, "nothing held");
	return b.s;
}

/* ---- arrays ---------------------------------------------------------------------------------------- */

typedef struct collect {
	ord_item *it;
	size_t n, cap;
} collect;

static void collect_one(void *ctx, const ord_out *o)
{
	collect *c = ctx;
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 1024;
		c->it = xrealloc(c->it, c->cap * sizeof *c->it);
	}
	c->it[c->n++] = (ord_item){ o->id, o->step, o->ts, o->adj };
}

static int order_any(const ord_rules *r, const ord_filter_opts *o, int whole,
		     const dt_sync_event *ev, size_t n, ord_item **out, size_t *nout, char **held,
		     ord_held **hl, size_t *nhl, uint64_t *ignored, dt_err *err)
{
	collect c = { 0 };
	ord_filter *f = ord_filter_new(r, o, collect_one, &c);
	if (whole)
		ord_filter_set_whole(f);
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		rc = ord_filter_push(f, &ev[i], i, err);
	}
	if (!rc)
		ord_filter_drain(f);
	if (held)
		*held = !rc && ord_filter_held(f) ? ord_filter_explain(f, 50) : NULL;
	if (hl) {
		*hl = NULL;
		*nhl = 0;
		if (!rc)
			ord_filter_held_list(f, hl, nhl);
	}
	if (ignored)
		*ignored = ord_filter_ignored(f);
	ord_filter_free(f);
	if (rc) {
		free(c.it);
		*out = NULL;
		*nout = 0;
		return -1;
	}
	*out = c.it;
	*nout = c.n;
	return 0;
}

int ord_order(const ord_rules *r, const ord_filter_opts *o, const dt_sync_event *ev, size_t n,
	      ord_item **out, size_t *nout, char **held, dt_err *err)
{
	return order_any(r, o, 0, ev, n, out, nout, held, NULL, NULL, NULL, err);
}

int ord_order_ignoring(const ord_rules *r, const ord_filter_opts *o, const dt_sync_event *ev,
		       size_t n, ord_item **out, size_t *nout, char **held, uint64_t *ignored,
		       dt_err *err)
{
	return order_any(r, o, 0, ev, n, out, nout, held, NULL, NULL, ignored, err);
}

int ord_order_levelled(const ord_rules *r, const ord_filter_opts *o, const dt_sync_event *ev,
		       size_t n, ord_item **out, size_t *nout, char **held, dt_err *err)
{
	return order_any(r, o, 1, ev, n, out, nout, held, NULL, NULL, NULL, err);
}

int ord_order_held(const ord_rules *r, const ord_filter_opts *o, const dt_sync_event *ev,
		   size_t n, ord_item **out, size_t *nout, ord_held **held, size_t *nheld,
		   dt_err *err)
{
	return order_any(r, o, 0, ev, n, out, nout, NULL, held, nheld, NULL, err);
}
