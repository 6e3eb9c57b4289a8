/* hangscan.c: the hang report of a streamed run (hangscan.h). */
#include <stdlib.h>
#include <string.h>

#include "order/hangscan.h"
#include "util/util.h"

/* ---- a map from a pair of numbers to an index: open addressing, linear probing ------------ */

typedef struct kslot {
	uint64_t a, b;
	size_t v;
	int used;
} kslot;

typedef struct kmap {
	kslot *s;
	size_t cap, n; /* cap a power of two */
} kmap;

static uint64_t khash(uint64_t a, uint64_t b)
{
	uint64_t h = a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E019ull);
	h ^= h >> 29;
	h *= 0xBF58476D1CE4E5B9ull;
	h ^= h >> 32;
	return h;
}

static size_t *kmap_get(const kmap *m, uint64_t a, uint64_t b)
{
	if (!m->cap)
		return NULL;
	for (size_t i = khash(a, b) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		if (!m->s[i].used)
			return NULL;
		if (m->s[i].a == a && m->s[i].b == b)
			return &m->s[i].v;
	}
}

/* The value of (a, b), made SIZE_MAX when new. */
static size_t *kmap_put(kmap *m, uint64_t a, uint64_t b)
{
	if (2 * (m->n + 1) > m->cap) {
		kmap o = *m;
		m->cap = o.cap ? 2 * o.cap : 64;
		m->s = xcalloc(m->cap, sizeof *m->s);
		m->n = 0;
		for (size_t i = 0; i < o.cap; i++)
			if (o.s[i].used)
				*kmap_put(m, o.s[i].a, o.s[i].b) = o.s[i].v;
		free(o.s);
	}
	size_t i = khash(a, b) & (m->cap - 1);
	for (; m->s[i].used; i = (i + 1) & (m->cap - 1))
		if (m->s[i].a == a && m->s[i].b == b)
			return &m->s[i].v;
	m->s[i] = (kslot){ a, b, SIZE_MAX, 1 };
	m->n++;
	return &m->s[i].v;
}

/* Removes (a, b), moving back the slots after it that probed past it. */
static void kmap_del(kmap *m, uint64_t a, uint64_t b)
{
	size_t *v = kmap_get(m, a, b);
	if (!v)
		return;
	size_t mask = m->cap - 1, i = (size_t)((kslot *)((char *)v - offsetof(kslot, v)) - m->s);
	m->s[i].used = 0;
	m->n--;
	for (size_t j = (i + 1) & mask; m->s[j].used; j = (j + 1) & mask) {
		size_t h = khash(m->s[j].a, m->s[j].b) & mask;
		/* j's home is cyclically in (i, j]: it stays */
		if (i <= j ? (i < h && h <= j) : (i < h || h <= j))
			continue;
		m->s[i] = m->s[j];
		m->s[j].used = 0;
		i = j;
	}
}

static void kmap_free(kmap *m)
{
	free(m->s);
	memset(m, 0, sizeof *m);
}

static uint64_t pair(int32_t x, int32_t y)
{
	return (uint64_t)(uint32_t)x << 32 | (uint32_t)y;
}

/* ---- state ---------------------------------------------------------------------------------- */

/* An open call of a thread: its entry, the event before it, which of its calls it is. */
struct frame {
	dt_sync_event ev, prev;
	int has_prev;
	uint64_t occ, kcoll;
	size_t at, atprev; /* indices into the report's events, once made */
};

struct fcount {
	uint32_t func;
	uint64_t n;
};

struct tst {
	int32_t proc, thread;
	uint64_t nev;
	struct frame *st;
	size_t sp, cap;
	dt_sync_event *held; /* the acquisitions of the locks it holds */
	size_t nheld, caph;
	size_t nmpi;
	dt_sync_event last, lastin; /* its last event, its last entry */
	uint64_t lastin_occ;
	int has_in;
	struct fcount *fc; /* entries by call */
	size_t nfc, capfc;
};

/* A run of collectives alike of one thread on one communicator. */
struct crun {
	uint32_t func;
	int64_t count;
	int32_t datatype, root, op;
	uint64_t len;
};

/* The collectives of (comm, proc, thread): all of them by call (for the wait-for graph), and
 * those whose members must agree with their arguments (for the cause). */
struct clist {
	int32_t comm, proc, thread;
	uint64_t ncoll, nmis;
	struct crun *c, *m;
	size_t nc, capc, nm, capm;
};

/* A request made and not completed yet (for the graph: by a call other than a start; for
 * the pending completions of a Waitall: by another call). */
struct maker {
	dt_sync_event ev;
	uint64_t kcoll;
	int an_open, pe_open;
	size_t next; /* the one made before with the same number, SIZE_MAX none */
	size_t at;
};

/* Completions of a request not made yet (in another thread, earlier in time: a completion
 * recorded while the call that made the request was returning, in the same process, on the
 * same clock). Kept for the next EARLY_WINDOW events, then dropped: a completion of a request
 * whose maker is gone (a second completion of it) makes one too. */
struct early {
	uint64_t key, req, at;
	int an_done, multi;
	uint32_t f1;
};

#define EARLY_WINDOW 65536

/* Sends of one envelope no receive took yet, first first; debt: receives before sends. */
struct env {
	int32_t from, to, tag;
	dt_sync_event *q;
	size_t head, n, cap;
	uint64_t debt;
	size_t *at;
};

struct hang_scan {
	const char *const *names;
	size_t nnames;
	unsigned char *kind, *mpi, *probe, *maker, *ckind, *notpar;
	struct tst *t;
	size_t nt;
	uint64_t count;
	int32_t maxproc;
	kmap members;
	int32_t (*mem)[2];
	size_t nmem, capmem;
	kmap clm; /* (comm, proc), thread -> clists */
	struct clist *cl;
	size_t ncl, capcl;
	kmap reqs, earlies; /* (proc, req) -> makers, early */
	struct maker *mk;
	size_t nmk, capmk, freemk;
	struct early *ea; /* from eahead on, the live ones; ea[i] is number eabase + i */
	size_t nea, capea, eahead, eabase;
	kmap locks; /* (proc, obj) -> highest acquisition */
	kmap envs;  /* (from, to), tag -> envs */
	struct env *en;
	size_t nen, capen, freeen;
	/* the cause's collective: which events to capture, and them */
	struct want {
		int32_t comm, proc, thread;
		uint64_t k, seen;
		int got;
		dt_sync_event ev;
	} want[2];
	int nwant;
};

hang_scan *hang_scan_new(const char *const *names, size_t nnames, size_t ntraces)
{
	hang_scan *h = xcalloc(1, sizeof *h);
	size_t nn = nnames ? nnames : 1;
	h->names = names;
	h->nnames = nnames;
	h->kind = xcalloc(nn, 1);
	h->mpi = xcalloc(nn, 1);
	h->probe = xcalloc(nn, 1);
	h->maker = xcalloc(nn, 1);
	h->ckind = xcalloc(nn, 1);
	h->notpar = xcalloc(nn, 1);
	for (size_t f = 0; f < nnames; f++) {
		const char *s = names[f];
		if (!s)
			continue;
		h->kind[f] = (unsigned char)hang_call_kind(s);
		h->mpi[f] = !strncmp(s, "MPI_", 4);
		h->probe[f] = !strcmp(s, "MPI_Probe") || !strcmp(s, "MPI_Iprobe") ||
			      !strcmp(s, "MPI_Mprobe") || !strcmp(s, "MPI_Improbe");
		h->maker[f] = (unsigned char)hang_makes_comm(s);
		h->ckind[f] = (unsigned char)hang_coll_kind(s);
		h->notpar[f] = strncmp(s, "GOMP_parallel", 13) != 0;
	}
	h->t = xcalloc(ntraces ? ntraces : 1, sizeof *h->t);
	h->nt = ntraces;
	h->maxproc = -1;
	h->freemk = h->freeen = SIZE_MAX;
	return h;
}

void hang_scan_free(hang_scan *h)
{
	if (!h)
		return;
	for (size_t k = 0; k < h->nt; k++) {
		free(h->t[k].st);
		free(h->t[k].held);
		free(h->t[k].fc);
	}
	free(h->t);
	for (size_t i = 0; i < h->ncl; i++) {
		free(h->cl[i].c);
		free(h->cl[i].m);
	}
	free(h->cl);
	for (size_t i = 0; i < h->nen; i++) {
		free(h->en[i].q);
		free(h->en[i].at);
	}
	free(h->en);
	free(h->mk);
	free(h->ea);
	free(h->mem);
	kmap_free(&h->members);
	kmap_free(&h->clm);
	kmap_free(&h->reqs);
	kmap_free(&h->earlies);
	kmap_free(&h->locks);
	kmap_free(&h->envs);
	free(h->kind);
	free(h->mpi);
	free(h->probe);
	free(h->maker);
	free(h->ckind);
	free(h->notpar);
	free(h);
}

uint64_t hang_scan_count(const hang_scan *h)
{
	return h->count;
}

static int kind_of(const hang_scan *h, uint32_t f)
{
	return f < h->nnames ? h->kind[f] : 0;
}

static int collective(int k)
{
	return k == HANG_K_COLL || k == HANG_K_ICOLL;
}

static void member(hang_scan *h, int32_t comm, int32_t proc)
{
	size_t *v = kmap_put(&h->members, pair(comm, proc), 0);
	if (*v != SIZE_MAX)
		return;
	*v = h->nmem;
	GROW(h->mem, h->capmem, h->nmem + 1);
	h->mem[h->nmem][0] = comm;
	h->mem[h->nmem++][1] = proc;
}

static struct clist *clist_of(hang_scan *h, int32_t comm, int32_t proc, int32_t thread)
{
	size_t *v = kmap_put(&h->clm, pair(comm, proc), (uint32_t)thread);
	if (*v == SIZE_MAX) {
		*v = h->ncl;
		GROW(h->cl, h->capcl, h->ncl + 1);
		h->cl[h->ncl] = (struct clist){ .comm = comm, .proc = proc, .thread = thread };
		h->ncl++;
	}
	return &h->cl[*v];
}

static void run_add(struct crun **r, size_t *n, size_t *cap, const struct crun *x)
{
	if (*n) {
		struct crun *l = &(*r)[*n - 1];
		if (l->func == x->func && l->count == x->count && l->datatype == x->datatype &&
		    l->root == x->root && l->op == x->op) {
			l->len++;
			return;
		}
	}
	GROW(*r, *cap, *n + 1);
	(*r)[(*n)++] = *x;
}

/* A collective's entry: k of the graph's collectives of its thread on its communicator. */
static uint64_t coll_entry(hang_scan *h, const dt_sync_event *v, int k)
{
	int ck = v->func < h->nnames ? h->ckind[v->func] : 0;
	int graph = collective(k) && v->comm >= 0, cause = ck && v->comm >= 0 && v->comm != 1;
	if (!graph && !cause)
		return 0;
	struct clist *c = clist_of(h, v->comm, v->proc, v->thread);
	if (graph) {
		struct crun x = { v->func, 0, 0, 0, 0, 1 };
		run_add(&c->c, &c->nc, &c->capc, &x);
		c->ncoll++;
	}
	if (cause) {
		struct crun x = { v->func, v->count, v->datatype, v->root, v->op, 1 };
		run_add(&c->m, &c->nm, &c->capm, &x);
		c->nmis++;
	}
	return c->ncoll;
}

static uint64_t coll_count(hang_scan *h, const dt_sync_event *v)
{
	if (v->comm < 0)
		return 0;
	size_t *i = kmap_get(&h->clm, pair(v->comm, v->proc), (uint32_t)v->thread);
	return i ? h->cl[*i].ncoll : 0;
}

/* ---- requests ------------------------------------------------------------------------------ */

static void maker_free(hang_scan *h, size_t i)
{
	h->mk[i].next = h->freemk;
	h->freemk = i;
}

/* An event that carries a request and is no entry: it completes the requests made before
 * with the same number (for the graph when no start made it; for the pending completions when
 * another call made them). */
static void early_expire(hang_scan *h)
{
	while (h->eahead < h->nea && h->count - h->ea[h->eahead].at > EARLY_WINDOW) {
		kmap_del(&h->earlies, h->ea[h->eahead].key, h->ea[h->eahead].req);
		h->eahead++;
	}
	if (h->eahead > 1024 && 2 * h->eahead > h->nea) {
		memmove(h->ea, h->ea + h->eahead, (h->nea - h->eahead) * sizeof *h->ea);
		h->nea -= h->eahead;
		h->eabase += h->eahead;
		h->eahead = 0;
	}
}

/* own: the exit of the call that made the request (it completes only other makers of the
 * same number). */
static void completion(hang_scan *h, const dt_sync_event *v, int k, int own)
{
	int an = k != HANG_K_ISTART && k != HANG_K_ICOLL;
	size_t *head = kmap_get(&h->reqs, pair(v->proc, 0), v->req);
	if (!head) {
		if (own)
			return;
		early_expire(h);
		size_t *x = kmap_put(&h->earlies, pair(v->proc, 0), v->req);
		if (*x == SIZE_MAX) {
			*x = h->eabase + h->nea;
			GROW(h->ea, h->capea, h->nea + 1);
			h->ea[h->nea++] =
				(struct early){ pair(v->proc, 0), v->req, h->count, an, 0, v->func };
		} else {
			struct early *y = &h->ea[*x - h->eabase];
			y->an_done |= an;
			y->multi |= y->f1 != v->func;
		}
		return;
	}
	size_t *link = head;
	while (*link != SIZE_MAX) {
		struct maker *m = &h->mk[*link];
		if (an)
			m->an_open = 0;
		if (v->func != m->ev.func)
			m->pe_open = 0;
		if (!m->an_open && !m->pe_open) {
			size_t i = *link;
			*link = m->next;
			maker_free(h, i);
		} else {
			link = &m->next;
		}
	}
	if (*head == SIZE_MAX)
		kmap_del(&h->reqs, pair(v->proc, 0), v->req);
}

static void make_request(hang_scan *h, const dt_sync_event *v, int k)
{
	struct maker m = { *v, coll_count(h, v), 1, k == HANG_K_ISTART, SIZE_MAX, 0 };
	size_t *x = kmap_get(&h->earlies, pair(v->proc, 0), v->req);
	if (x) {
		const struct early *y = &h->ea[*x - h->eabase];
		if (y->an_done)
			m.an_open = 0;
		if (y->multi || y->f1 != v->func)
			m.pe_open = 0;
	}
	if (!m.an_open && !m.pe_open)
		return;
	size_t i;
	if (h->freemk != SIZE_MAX) {
		i = h->freemk;
		h->freemk = h->mk[i].next;
	} else {
		GROW(h->mk, h->capmk, h->nmk + 1);
		i = h->nmk++;
	}
	size_t *head = kmap_put(&h->reqs, pair(v->proc, 0), v->req);
	m.next = *head;
	h->mk[i] = m;
	*head = i;
}

/* ---- messages ------------------------------------------------------------------------------ */

static struct env *env_of(hang_scan *h, int32_t from, int32_t to, int32_t tag, int make)
{
	size_t *v = make ? kmap_put(&h->envs, pair(from, to), (uint32_t)tag)
			 : kmap_get(&h->envs, pair(from, to), (uint32_t)tag);
	if (!v)
		return NULL;
	if (*v == SIZE_MAX) {
		size_t i;
		if (h->freeen != SIZE_MAX) {
			i = h->freeen;
			h->freeen = h->en[i].head;
		} else {
			GROW(h->en, h->capen, h->nen + 1);
			i = h->nen++;
			memset(&h->en[i], 0, sizeof h->en[i]);
		}
		struct env *n = &h->en[i];
		n->from = from;
		n->to = to;
		n->tag = tag;
		n->head = n->n = 0;
		n->debt = 0;
		*v = i;
	}
	return &h->en[*v];
}

static void env_done(hang_scan *h, struct env *n)
{
	if (n->n || n->debt)
		return;
	size_t i = (size_t)(n - h->en);
	kmap_del(&h->envs, pair(n->from, n->to), (uint32_t)n->tag);
	/* kept for reuse (its queue's memory too); head links the free ones */
	n->head = h->freeen;
	h->freeen = i;
}

static void send_msg(hang_scan *h, const dt_sync_event *v)
{
	struct env *n = env_of(h, v->proc, v->dest, v->stag, 1);
	if (n->debt) {
		n->debt--;
		env_done(h, n);
		return;
	}
	if (n->head && n->head + n->n == n->cap) {
		memmove(n->q, n->q + n->head, n->n * sizeof *n->q);
		n->head = 0;
	}
	/* most envelopes hold one send at a time (a tag per message makes one each): from one */
	if (n->head + n->n == n->cap) {
		n->cap = n->cap ? 2 * n->cap : 1;
		n->q = xrealloc(n->q, n->cap * sizeof *n->q);
	}
	n->q[n->head + n->n++] = *v;
}

static void recv_msg(hang_scan *h, const dt_sync_event *v)
{
	struct env *n = env_of(h, v->src, v->proc, v->rtag, 1);
	if (n->n) {
		n->head++;
		if (!--n->n)
			n->head = 0;
	} else {
		n->debt++;
	}
	env_done(h, n);
}

/* ---- the events ---------------------------------------------------------------------------- */

static uint64_t count_entry(struct tst *t, uint32_t f)
{
	for (size_t i = 0; i < t->nfc; i++)
		if (t->fc[i].func == f)
			return ++t->fc[i].n;
	GROW(t->fc, t->capfc, t->nfc + 1);
	t->fc[t->nfc++] = (struct fcount){ f, 1 };
	return 1;
}

/* Where the thread is: its open calls, the locks it holds (hang.c's position). */
static void position(hang_scan *h, struct tst *t, const dt_sync_event *v, int k)
{
	if (v->phase == DT_SYNC_ENTER) {
		uint64_t kc = coll_entry(h, v, k);
		GROW(t->st, t->cap, t->sp + 1);
		struct frame *f = &t->st[t->sp++];
		memset(f, 0, sizeof *f);
		f->ev = *v;
		if (t->nev) {
			f->prev = t->last;
			f->has_prev = 1;
		}
		f->occ = count_entry(t, v->func);
		f->kcoll = kc;
		t->lastin = *v;
		t->lastin_occ = f->occ;
		t->has_in = 1;
		if (k == HANG_K_RELEASE)
			for (size_t j = t->nheld; j-- > 0;)
				if (t->held[j].obj == v->obj) {
					memmove(t->held + j, t->held + j + 1,
						(t->nheld - j - 1) * sizeof *t->held);
					t->nheld--;
					break;
				}
	} else if (v->phase == DT_SYNC_EXIT) {
		for (size_t s = t->sp; s-- > 0;)
			if (t->st[s].ev.func == v->func) {
				t->sp = s;
				break;
			}
		if (k == HANG_K_ACQUIRE) {
			GROW(t->held, t->caph, t->nheld + 1);
			t->held[t->nheld++] = *v;
		}
	}
}

int hang_scan_push(hang_scan *h, size_t tk, const dt_sync_event *v, dt_err *e)
{
	if (tk >= h->nt) {
		dt_errf(e, DT_EDATA, "sync event of an unknown trace");
		return -1;
	}
	struct tst *t = &h->t[tk];
	if (v->proc < 0) {
		dt_errf(e, DT_EDATA, "sync event %llu has no process number",
			(unsigned long long)h->count);
		return -1;
	}
	if (t->nev && (v->proc != t->proc || v->thread != t->thread || v->seq <= t->last.seq)) {
		dt_errf(e, DT_EDATA, "sync events of %d.%d not in seq order at %u", t->proc,
			t->thread, v->seq);
		return -1;
	}
	if (!t->nev) {
		t->proc = v->proc;
		t->thread = v->thread;
		if (v->proc > h->maxproc)
			h->maxproc = v->proc;
	}
	int k = kind_of(h, v->func);
	t->nmpi += v->func < h->nnames && h->mpi[v->func];
	position(h, t, v, k);
	if (v->comm >= 0)
		member(h, v->comm, v->proc);
	if (v->phase == DT_SYNC_EXIT && v->func < h->nnames && h->maker[v->func] && v->obj > 1 &&
	    v->obj <= INT32_MAX)
		member(h, (int32_t)v->obj, v->proc);
	int makes = v->phase == DT_SYNC_EXIT && v->req && (k == HANG_K_ISTART || k == HANG_K_ICOLL);
	if (v->phase != DT_SYNC_ENTER && v->req)
		completion(h, v, k, makes);
	if (makes)
		make_request(h, v, k);
	if (v->obj && v->objseq && v->func < h->nnames && h->names[v->func] && h->notpar[v->func]) {
		size_t *m = kmap_put(&h->locks, pair(v->proc, 0), v->obj);
		if (*m == SIZE_MAX || *m < v->objseq)
			*m = (size_t)v->objseq;
	}
	if (v->phase == DT_SYNC_ENTER && v->dest >= 0 &&
	    (k == HANG_K_SEND || k == HANG_K_ISTART || k == HANG_K_RECV))
		send_msg(h, v);
	else if (v->phase != DT_SYNC_ENTER && v->src >= 0 && v->rtag >= 0 && k != HANG_K_ISTART &&
		 k != HANG_K_PINIT && !(v->func < h->nnames && h->probe[v->func]))
		recv_msg(h, v);
	t->last = *v;
	t->nev++;
	h->count++;
	return 0;
}

/* ---- the report ---------------------------------------------------------------------------- */

/* An event the report refers to, and where its index goes. */
struct ref {
	const dt_sync_event *ev;
	size_t *dst;
	uint64_t kcoll;
};

static int cmp_ref(const void *a, const void *b)
{
	const dt_sync_event *x = ((const struct ref *)a)->ev, *y = ((const struct ref *)b)->ev;
	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static int cmp_mem(const void *a, const void *b)
{
	const int32_t *x = a, *y = b;
	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return (x[1] > y[1]) - (x[1] < y[1]);
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return (x > y) - (x < y);
}

/* The clists by (comm, proc, thread), for hang_scan_kth and the cause. */
static size_t *sorted_lists(const hang_scan *h)
{
	size_t *o = xmalloc((h->ncl ? h->ncl : 1) * sizeof *o);
	for (size_t i = 0; i < h->ncl; i++)
		o[i] = i;
	/* insertion by key: few lists */
	for (size_t i = 1; i < h->ncl; i++) {
		size_t x = o[i], j = i;
		const struct clist *c = &h->cl[x];
		while (j) {
			const struct clist *p = &h->cl[o[j - 1]];
			if (p->comm < c->comm ||
			    (p->comm == c->comm &&
			     (p->proc < c->proc || (p->proc == c->proc && p->thread < c->thread))))
				break;
			o[j] = o[j - 1];
			j--;
		}
		o[j] = x;
	}
	return o;
}

struct kth_ctx {
	const hang_scan *h;
	const size_t *ord;
};

/* The first of the sorted clists of (comm, proc). */
static size_t lists_of(const hang_scan *h, const size_t *ord, int32_t comm, int32_t proc)
{
	size_t lo = 0, hi = h->ncl;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct clist *c = &h->cl[ord[mid]];
		if (c->comm < comm || (c->comm == comm && c->proc < proc))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int kth(const void *kst, int32_t comm, int32_t proc, uint64_t k, uint32_t *func)
{
	const struct kth_ctx *x = kst;
	const hang_scan *h = x->h;
	if (!k)
		return 0;
	for (size_t i = lists_of(h, x->ord, comm, proc); i < h->ncl; i++) {
		const struct clist *c = &h->cl[x->ord[i]];
		if (c->comm != comm || c->proc != proc)
			break;
		if (k > c->ncoll) {
			k -= c->ncoll;
			continue;
		}
		for (size_t r = 0; r < c->nc; r++) {
			if (k <= c->c[r].len) {
				*func = c->c[r].func;
				return 1;
			}
			k -= c->c[r].len;
		}
		return 0;
	}
	return 0;
}

/* Where each thread is at the end, with the refs to the events that says. */
static void threads_of(hang_scan *h, hang_report *r, struct ref **refs, size_t *nref,
		       size_t *capref)
{
	size_t n = 0;
	for (size_t k = 0; k < h->nt; k++)
		n += h->t[k].nev > 0;
	r->threads = xcalloc(n ? n : 1, sizeof *r->threads);
	r->nthreads = 0;
	for (size_t k = 0; k < h->nt; k++) {
		struct tst *t = &h->t[k];
		if (!t->nev)
			continue;
		hang_thread *ht = &r->threads[r->nthreads++];
		ht->proc = t->proc;
		ht->thread = t->thread;
		const dt_sync_event *at;
		if (t->sp) {
			struct frame *f = &t->st[t->sp - 1];
			ht->state = HANG_IN_CALL;
			ht->occurrence = f->occ;
			at = &f->ev;
			for (size_t s = 0; s < t->sp; s++) {
				GROW(*refs, *capref, *nref + 1);
				(*refs)[(*nref)++] = (struct ref){ &t->st[s].ev, &t->st[s].at,
								   t->st[s].kcoll };
			}
			if (f->has_prev) {
				GROW(*refs, *capref, *nref + 1);
				(*refs)[(*nref)++] = (struct ref){ &f->prev, &f->atprev, 0 };
			}
		} else {
			ht->state = kind_of(h, t->last.func) == HANG_K_FINALIZE ? HANG_FINISHED
										 : HANG_OUTSIDE;
			at = t->has_in ? &t->lastin : &t->last;
			ht->occurrence = t->has_in ? t->lastin_occ : 0;
			GROW(*refs, *capref, *nref + 1);
			(*refs)[(*nref)++] = (struct ref){ at, &ht->entry, 0 };
		}
		ht->func = at->func;
		ht->nheld = t->nheld;
		ht->held = t->nheld ? xmalloc(t->nheld * sizeof *ht->held) : NULL;
		for (size_t i = 0; i < t->nheld; i++) {
			GROW(*refs, *capref, *nref + 1);
			(*refs)[(*nref)++] = (struct ref){ &t->held[i], &ht->held[i], 0 };
		}
	}
}

/* The requests not completed, per process, and the sends no receive took, as refs. */
static void open_refs(hang_scan *h, struct ref **refs, size_t *nref, size_t *capref)
{
	for (size_t i = 0; i < h->reqs.cap; i++) {
		if (!h->reqs.s[i].used)
			continue;
		for (size_t m = h->reqs.s[i].v; m != SIZE_MAX; m = h->mk[m].next)
			if (h->mk[m].an_open) {
				GROW(*refs, *capref, *nref + 1);
				(*refs)[(*nref)++] =
					(struct ref){ &h->mk[m].ev, &h->mk[m].at, h->mk[m].kcoll };
			}
	}
	for (size_t i = 0; i < h->envs.cap; i++) {
		if (!h->envs.s[i].used)
			continue;
		struct env *n = &h->en[h->envs.s[i].v];
		n->at = xrealloc(n->at, (n->n ? n->n : 1) * sizeof *n->at);
		for (size_t q = 0; q < n->n; q++) {
			GROW(*refs, *capref, *nref + 1);
			(*refs)[(*nref)++] = (struct ref){ &n->q[n->head + q], &n->at[q], 0 };
		}
	}
}

int hang_scan_report(hang_scan *h, hang_report *r, dt_sync_event **evp, size_t *nevp, dt_err *e)
{
	memset(r, 0, sizeof *r);
	*evp = NULL;
	*nevp = 0;
	/* the traces by (proc, thread): one per thread, as hang_analyze requires */
	const struct tst *prev = NULL;
	for (size_t k = 0; k < h->nt; k++) {
		const struct tst *t = &h->t[k];
		if (!t->nev)
			continue;
		if (prev && (t->proc < prev->proc ||
			     (t->proc == prev->proc && t->thread <= prev->thread))) {
			dt_errf(e, DT_EDATA, "sync events not in (proc, thread, seq) order at %d.%d",
				t->proc, t->thread);
			return -1;
		}
		prev = t;
	}
	struct ref *refs = NULL;
	size_t nref = 0, capref = 0;
	threads_of(h, r, &refs, &nref, &capref);
	open_refs(h, &refs, &nref, &capref);
	if (nref)
		qsort(refs, nref, sizeof *refs, cmp_ref);
	dt_sync_event *ev = xmalloc((nref ? nref : 1) * sizeof *ev);
	uint64_t *kc = xcalloc(nref ? nref : 1, sizeof *kc);
	size_t nev = 0;
	for (size_t i = 0; i < nref; i++) {
		if (!nev || cmp_ref(&refs[i], &refs[i - 1]))
			ev[nev++] = *refs[i].ev;
		*refs[i].dst = nev - 1;
		if (refs[i].kcoll)
			kc[nev - 1] = refs[i].kcoll;
	}
	free(refs);
	/* the stacks, the open requests by process, the unreceived sends */
	size_t nth = r->nthreads, np = (size_t)(h->maxproc + 1);
	size_t **stack = xcalloc(nth ? nth : 1, sizeof *stack);
	size_t *nstack = xcalloc(nth ? nth : 1, sizeof *nstack);
	size_t *nmpi = xcalloc(nth ? nth : 1, sizeof *nmpi);
	for (size_t k = 0, t = 0; k < h->nt; k++) {
		struct tst *s = &h->t[k];
		if (!s->nev)
			continue;
		stack[t] = xmalloc((s->sp ? s->sp : 1) * sizeof **stack);
		for (size_t i = 0; i < s->sp; i++)
			stack[t][i] = s->st[i].at;
		nstack[t] = s->sp;
		nmpi[t] = s->nmpi;
		if (s->sp)
			r->threads[t].entry = s->st[s->sp - 1].at;
		t++;
	}
	size_t **open = xcalloc(np ? np : 1, sizeof *open), *nopen = xcalloc(np ? np : 1, sizeof *nopen);
	size_t *capo = xcalloc(np ? np : 1, sizeof *capo);
	for (size_t i = 0; i < h->reqs.cap; i++) {
		if (!h->reqs.s[i].used)
			continue;
		for (size_t m = h->reqs.s[i].v; m != SIZE_MAX; m = h->mk[m].next) {
			const struct maker *x = &h->mk[m];
			if (!x->an_open || x->ev.proc < 0 || (size_t)x->ev.proc >= np)
				continue;
			size_t p = (size_t)x->ev.proc;
			GROW(open[p], capo[p], nopen[p] + 1);
			open[p][nopen[p]++] = x->at;
		}
	}
	for (size_t p = 0; p < np; p++)
		if (nopen[p] > 1)
			qsort(open[p], nopen[p], sizeof **open, cmp_size);
	hang_msg *un = NULL;
	size_t nun = 0, capun = 0;
	for (size_t i = 0; i < h->envs.cap; i++) {
		if (!h->envs.s[i].used)
			continue;
		const struct env *n = &h->en[h->envs.s[i].v];
		for (size_t q = 0; q < n->n; q++) {
			GROW(un, capun, nun + 1);
			un[nun++] = (hang_msg){ n->from, n->to, n->tag, n->at[q] };
		}
	}
	/* the sends are in ev now: their queues go before the filter's pass */
	for (size_t i = 0; i < h->nen; i++) {
		free(h->en[i].q);
		free(h->en[i].at);
	}
	free(h->en);
	h->en = NULL;
	h->nen = h->capen = 0;
	h->freeen = SIZE_MAX;
	kmap_free(&h->envs);
	if (h->nmem)
		qsort(h->mem, h->nmem, sizeof *h->mem, cmp_mem);
	size_t *ord = sorted_lists(h);
	struct kth_ctx kx = { h, ord };
	hang_facts st = { ev,	 nev,	 kc,	r->threads, nth,	 stack,	  nstack,
			  nmpi,	 h->maxproc, open, nopen,     (const int32_t(*)[2])h->mem,
			  h->nmem, un,	 nun,	kth,	    &kx };
	hang_report rep;
	hang_from_state(&st, h->names, h->nnames, &rep);
	*r = rep;
	for (size_t t = 0; t < nth; t++)
		free(stack[t]);
	for (size_t p = 0; p < np; p++)
		free(open[p]);
	free(stack);
	free(nstack);
	free(nmpi);
	free(open);
	free(nopen);
	free(capo);
	free(un);
	free(ord);
	free(kc);
	*evp = ev;
	*nevp = nev;
	return 0;
}

/* ---- the pending completions --------------------------------------------------------------- */

static int cmp_seq(const void *a, const void *b)
{
	const dt_sync_event *x = *(const dt_sync_event *const *)a;
	const dt_sync_event *y = *(const dt_sync_event *const *)b;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static void put(dt_sync_event **out, size_t **thread_of, size_t **trace, size_t *n, size_t *cap,
		const dt_sync_event *x, size_t t, size_t k)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 8;
		*out = xrealloc(*out, *cap * sizeof **out);
		*thread_of = xrealloc(*thread_of, *cap * sizeof **thread_of);
		*trace = xrealloc(*trace, *cap * sizeof **trace);
	}
	(*out)[*n] = *x;
	(*thread_of)[*n] = t;
	(*trace)[(*n)++] = k;
}

/* The requests thread (proc, thread) made before seq with a start, not completed by another
 * call, in program order (malloc'ed). */
static size_t started(const hang_scan *h, int32_t proc, int32_t thread, uint32_t seq,
		      const dt_sync_event ***out)
{
	size_t n = 0, cap = 0;
	*out = NULL;
	for (size_t i = 0; i < h->reqs.cap; i++) {
		if (!h->reqs.s[i].used || h->reqs.s[i].a != pair(proc, 0))
			continue;
		for (size_t m = h->reqs.s[i].v; m != SIZE_MAX; m = h->mk[m].next) {
			const struct maker *x = &h->mk[m];
			if (!x->pe_open || x->ev.thread != thread || x->ev.seq >= seq ||
			    kind_of(h, x->ev.func) != HANG_K_ISTART)
				continue;
			GROW(*out, cap, n + 1);
			(*out)[n++] = &x->ev;
		}
	}
	if (n > 1)
		qsort(*out, n, sizeof **out, cmp_seq);
	return n;
}

size_t hang_scan_pending(hang_scan *h, const hang_report *r, const dt_sync_event *ev,
			 dt_sync_event **out, size_t **thread_of, size_t **trace)
{
	size_t n = 0, cap = 0;
	*out = NULL;
	*thread_of = NULL;
	*trace = NULL;
	size_t k = 0;
	for (size_t t = 0; t < r->nthreads; t++, k++) {
		while (k < h->nt && !h->t[k].nev)
			k++;
		const hang_thread *ht = &r->threads[t];
		if (ht->state != HANG_IN_CALL || k >= h->nt)
			continue;
		const struct tst *s = &h->t[k];
		const dt_sync_event *e = &ev[ht->entry];
		dt_sync_event x = *e;
		x.phase = DT_SYNC_EXIT;
		x.seq = s->last.seq + 1;
		x.ts = s->last.ts;
		const char *name = e->func < h->nnames ? h->names[e->func] : NULL;
		if (name && kind_of(h, e->func) == HANG_K_ACQUIRE && e->obj) {
			size_t *m = kmap_get(&h->locks, pair(e->proc, 0), e->obj);
			x.objseq = (m ? (uint64_t)*m : 0) + 1;
		}
		put(out, thread_of, trace, &n, &cap, &x, t, k);
		if (!name || (strcmp(name, "MPI_Waitall") && strcmp(name, "MPI_Waitsome")))
			continue;
		(*out)[n - 1].req = 0;
		const dt_sync_event **st;
		size_t ns = started(h, e->proc, e->thread, e->seq, &st);
		uint32_t seq = x.seq;
		for (size_t i = 0; i < ns; i++) {
			dt_sync_event d = x;
			d.phase = DT_SYNC_DONE;
			d.seq = ++seq;
			d.req = st[i]->req;
			d.src = d.rtag = d.dest = d.stag = DT_SYNC_NONE;
			put(out, thread_of, trace, &n, &cap, &d, t, k);
		}
		free(st);
	}
	return n;
}

/* ---- the cause's collective ---------------------------------------------------------------- */

/* A process's collectives on a communicator, one at a time: list li of ord (up to hi), run
 * ri, left of it from the one at pos (from 1 in its list). */
struct mcur {
	size_t li, hi, ri, pos;
	uint64_t left;
	int valid;
};

static void mcur_skip(const hang_scan *h, const size_t *ord, struct mcur *c)
{
	while (c->li < c->hi && c->ri >= h->cl[ord[c->li]].nm) {
		c->li++;
		c->ri = 0;
		c->pos = 1;
	}
	c->valid = c->li < c->hi;
	if (c->valid)
		c->left = h->cl[ord[c->li]].m[c->ri].len;
}

static void mcur_adv(const hang_scan *h, const size_t *ord, struct mcur *c, uint64_t step)
{
	while (step && c->valid) {
		if (step < c->left) {
			c->pos += step;
			c->left -= step;
			return;
		}
		step -= c->left;
		c->pos += c->left;
		c->ri++;
		mcur_skip(h, ord, c);
	}
}

static const struct crun *mcur_run(const hang_scan *h, const size_t *ord, const struct mcur *c)
{
	return &h->cl[ord[c->li]].m[c->ri];
}

static int same_run(const struct crun *a, const struct crun *b, int strict)
{
	if (a->func != b->func)
		return 0;
	return !strict || (a->count == b->count && a->datatype == b->datatype &&
			   a->root == b->root && a->op == b->op);
}

static int strict_of(const hang_scan *h, uint32_t f)
{
	return f < h->nnames && h->ckind[f] == 2;
}

/* The instance at the cursors (cur[0..n), by process): the usual one (*usual), and whether
 * the unlike ones are a strict minority. */
static int instance_odd(const hang_scan *h, const size_t *ord, const struct mcur *cur, size_t n,
			size_t *usual)
{
	size_t best = 0, bi = 0;
	for (size_t i = 0; i < n; i++) {
		const struct crun *x = mcur_run(h, ord, &cur[i]);
		size_t like = 0;
		for (size_t j = 0; j < n; j++)
			like += same_run(x, mcur_run(h, ord, &cur[j]), strict_of(h, x->func));
		if (like > best) {
			best = like;
			bi = i;
		}
	}
	*usual = bi;
	return 2 * best > n && best < n;
}

static void want(hang_scan *h, int i, const size_t *ord, const struct mcur *c)
{
	const struct clist *l = &h->cl[ord[c->li]];
	h->want[i] = (struct want){ l->comm, l->proc, l->thread, c->pos, 0, 0, { 0 } };
}

void hang_scan_odd(hang_scan *h, const hang_report *r, hang_coll_odd *odd)
{
	memset(odd, 0, sizeof *odd);
	h->nwant = 0;
	size_t *ord = sorted_lists(h);
	size_t m = h->ncl ? h->ncl : 1;
	struct mcur *cur = xmalloc(m * sizeof *cur), *act = xmalloc(m * sizeof *act);
	uint64_t bestk = UINT64_MAX;
	for (size_t b = 0; b < h->ncl;) {
		int32_t comm = h->cl[ord[b]].comm;
		size_t e = b, np = 0;
		while (e < h->ncl && h->cl[ord[e]].comm == comm)
			e++;
		/* a cursor per process */
		for (size_t i = b; i < e;) {
			size_t j = i;
			while (j < e && h->cl[ord[j]].proc == h->cl[ord[i]].proc)
				j++;
			cur[np] = (struct mcur){ i, j, 0, 1, 0, 0 };
			mcur_skip(h, ord, &cur[np]);
			np++;
			i = j;
		}
		for (uint64_t k = 1; k < bestk;) {
			size_t na = 0, u;
			uint64_t step = UINT64_MAX;
			for (size_t i = 0; i < np; i++)
				if (cur[i].valid) {
					act[na++] = cur[i];
					if (cur[i].left < step)
						step = cur[i].left;
				}
			if (na < 3)
				break;
			if (instance_odd(h, ord, act, na, &u)) {
				bestk = k;
				free(odd->threads);
				odd->threads = NULL;
				odd->n = 0;
				odd->members = na;
				const struct crun *y = mcur_run(h, ord, &act[u]);
				int strict = strict_of(h, y->func);
				for (size_t i = 0; i < na; i++) {
					if (same_run(mcur_run(h, ord, &act[i]), y, strict))
						continue;
					const struct clist *l = &h->cl[ord[act[i].li]];
					if (!odd->n)
						want(h, 0, ord, &act[i]);
					size_t t = hang_thread_find(r, l->proc, l->thread);
					if (t == SIZE_MAX)
						continue;
					odd->threads = xrealloc(odd->threads,
								(odd->n + 1) * sizeof *odd->threads);
					odd->threads[odd->n++] = t;
				}
				want(h, 1, ord, &act[u]);
				h->nwant = 2;
				break;
			}
			for (size_t i = 0; i < np; i++)
				mcur_adv(h, ord, &cur[i], step);
			k += step;
		}
		b = e;
	}
	free(cur);
	free(act);
	free(ord);
}

void hang_scan_capture(void *hs, const dt_sync_event *v)
{
	hang_scan *h = hs;
	if (!h->nwant || v->phase != DT_SYNC_ENTER || v->func >= h->nnames || !h->ckind[v->func])
		return;
	for (int i = 0; i < h->nwant; i++) {
		struct want *w = &h->want[i];
		if (!w->got && v->proc == w->proc && v->thread == w->thread && v->comm == w->comm &&
		    ++w->seen == w->k) {
			w->ev = *v;
			w->got = 1;
		}
	}
}

void hang_scan_odd_events(hang_scan *h, hang_coll_odd *odd, dt_sync_event **ev, size_t *nev)
{
	if (!h->nwant)
		return;
	*ev = xrealloc(*ev, (*nev + 2) * sizeof **ev);
	(*ev)[*nev] = h->want[0].ev;
	(*ev)[*nev + 1] = h->want[1].ev;
	odd->odd = *nev;
	odd->usual = *nev + 1;
	*nev += 2;
}
