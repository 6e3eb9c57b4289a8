/* hang.c: the hang report of hang.h, from a run's sync events. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "order/hang.h"
#include "util/util.h"

enum kind {
	K_OTHER = 0,
	K_RECV,     /* src; Sendrecv also dest */
	K_SEND,     /* dest */
	K_WAIT,     /* Wait, Waitall, Waitany, Waitsome */
	K_ISTART,   /* Isend, Irecv ...: makes a request */
	K_COLL,     /* a blocking collective (communicator makers included) */
	K_FINALIZE,
	K_ACQUIRE,
	K_RELEASE,
	K_BARRIER,  /* GOMP_barrier */
	K_PARALLEL, /* GOMP_parallel: the master's fork and join */
	K_BODY,     /* GOMP_parallel_body: a thread's part of a region */
	K_ICOLL,    /* a nonblocking collective: makes a request, counts among the collectives */
	K_PINIT,    /* Send_init, Recv_init ...: a persistent request, not active until started */
};

static const struct {
	const char *name;
	int kind;
} kinds[] = {
	{ "MPI_Recv", K_RECV },		 { "MPI_Probe", K_RECV },
	{ "MPI_Sendrecv", K_RECV },	 { "MPI_Sendrecv_replace", K_RECV },
	{ "MPI_Send", K_SEND },		 { "MPI_Ssend", K_SEND },
	{ "MPI_Bsend", K_SEND },	 { "MPI_Rsend", K_SEND },
	{ "MPI_Wait", K_WAIT },		 { "MPI_Waitall", K_WAIT },
	{ "MPI_Waitany", K_WAIT },	 { "MPI_Waitsome", K_WAIT },
	{ "MPI_Isend", K_ISTART },	 { "MPI_Issend", K_ISTART },
	{ "MPI_Ibsend", K_ISTART },	 { "MPI_Irsend", K_ISTART },
	{ "MPI_Irecv", K_ISTART },	 { "MPI_Barrier", K_COLL },
	{ "MPI_Bcast", K_COLL },	 { "MPI_Reduce", K_COLL },
	{ "MPI_Allreduce", K_COLL },	 { "MPI_Gather", K_COLL },
	{ "MPI_Gatherv", K_COLL },	 { "MPI_Scatter", K_COLL },
	{ "MPI_Scatterv", K_COLL },	 { "MPI_Allgather", K_COLL },
	{ "MPI_Allgatherv", K_COLL },	 { "MPI_Alltoall", K_COLL },
	{ "MPI_Alltoallv", K_COLL },	 { "MPI_Reduce_scatter", K_COLL },
	{ "MPI_Reduce_scatter_block", K_COLL }, { "MPI_Scan", K_COLL },
	{ "MPI_Exscan", K_COLL },	 { "MPI_Comm_dup", K_COLL },
	{ "MPI_Comm_split", K_COLL },	 { "MPI_Comm_create", K_COLL },
	{ "MPI_Comm_split_type", K_COLL }, { "MPI_Finalize", K_FINALIZE },
	/* one-sided: the window's makers, free and fence are collectives of its communicator
	 * (comm); a lock, unlock or flush waits on its target (dest) */
	{ "MPI_Win_create", K_COLL },	 { "MPI_Win_allocate", K_COLL },
	{ "MPI_Win_free", K_COLL },	 { "MPI_Win_fence", K_COLL },
	{ "MPI_Win_lock", K_SEND },	 { "MPI_Win_unlock", K_SEND },
	{ "MPI_Win_flush", K_SEND },
	{ "GOMP_critical_start", K_ACQUIRE }, { "GOMP_critical_name_start", K_ACQUIRE },
	{ "omp_set_lock", K_ACQUIRE },	 { "omp_set_nest_lock", K_ACQUIRE },
	{ "GOMP_critical_end", K_RELEASE }, { "GOMP_critical_name_end", K_RELEASE },
	{ "omp_unset_lock", K_RELEASE }, { "omp_unset_nest_lock", K_RELEASE },
	{ "GOMP_barrier", K_BARRIER },	 { "GOMP_parallel", K_PARALLEL },
	{ "GOMP_parallel_body", K_BODY },
	{ "MPI_Ibarrier", K_ICOLL },	 { "MPI_Ibcast", K_ICOLL },
	{ "MPI_Ireduce", K_ICOLL },	 { "MPI_Iallreduce", K_ICOLL },
	{ "MPI_Igather", K_ICOLL },	 { "MPI_Iscatter", K_ICOLL },
	{ "MPI_Iallgather", K_ICOLL },	 { "MPI_Ialltoall", K_ICOLL },
	{ "MPI_Iscan", K_ICOLL },	 { "MPI_Iexscan", K_ICOLL },
	{ "MPI_Ireduce_scatter", K_ICOLL }, { "MPI_Ireduce_scatter_block", K_ICOLL },
	/* a persistent request's MPI_Start is recorded with its init's arguments and a request
	 * of its own, as an Isend or Irecv */
	{ "MPI_Start", K_ISTART },	 { "MPI_Send_init", K_PINIT },
	{ "MPI_Ssend_init", K_PINIT },	 { "MPI_Bsend_init", K_PINIT },
	{ "MPI_Rsend_init", K_PINIT },	 { "MPI_Recv_init", K_PINIT },
};

_Static_assert((int)K_ISTART == HANG_K_ISTART && (int)K_COLL == HANG_K_COLL &&
		       (int)K_FINALIZE == HANG_K_FINALIZE && (int)K_ACQUIRE == HANG_K_ACQUIRE &&
		       (int)K_RELEASE == HANG_K_RELEASE && (int)K_ICOLL == HANG_K_ICOLL &&
		       (int)K_PINIT == HANG_K_PINIT && (int)K_SEND == HANG_K_SEND &&
		       (int)K_RECV == HANG_K_RECV,
	       "hang.h's kinds");

int hang_call_kind(const char *name)
{
	for (size_t k = 0; name && k < sizeof kinds / sizeof *kinds; k++)
		if (!strcmp(name, kinds[k].name))
			return kinds[k].kind;
	return K_OTHER;
}

/* The calls that make a communicator: the new one's number is in obj on the exit. */
int hang_makes_comm(const char *name)
{
	return !strcmp(name, "MPI_Comm_dup") || !strcmp(name, "MPI_Comm_split") ||
	       !strcmp(name, "MPI_Comm_create") || !strcmp(name, "MPI_Comm_split_type");
}

static int collective(int k)
{
	return k == K_COLL || k == K_ICOLL;
}

const char *hang_why_name(int why)
{
	static const char *const n[] = { "receive", "send", "request", "collective",
					 "finalize", "lock", "barrier", "join" };
	return why >= 0 && (size_t)why < sizeof n / sizeof *n ? n[why] : "?";
}

/* Per thread, while analysing. */
struct th {
	size_t b, e;        /* its events */
	size_t *stack;      /* open entries */
	size_t sp, cap;
	size_t nmpi;        /* MPI events */
};

typedef struct ctx {
	const dt_sync_event *ev;
	size_t n;
	unsigned char *kind; /* by function id */
	unsigned char *mpi;  /* by function id: an MPI call */
	size_t nkind;
	hang_report *r;
	struct th *th;
	int32_t maxproc;
	size_t *mpi_thread;  /* by proc: the thread that makes its MPI calls; SIZE_MAX none */
	size_t *pfirst, *pend; /* by proc: its threads */
	hang_edge *edges;
	size_t nedges, capedges;
	struct cref *colls;
	size_t ncolls;
	struct pref *members;
	size_t nmembers;
	struct rref *done;
	size_t ndone;
	struct missing *miss;
	size_t nmiss, capmiss;
	struct open_reqs *open; /* by proc */
	unsigned char *probe;   /* by function id: a probe (looks at a message, takes none) */
	unsigned char *maker;   /* by function id: makes a communicator */
	/* a streamed run (hang_from_state): k of a collective by event, the k-th's func */
	const uint64_t *kcoll;
	int (*kth)(const void *kst, int32_t comm, int32_t proc, uint64_t k, uint32_t *func);
	const void *kst;
} ctx;

struct open_reqs {
	size_t *ev; /* indices of the events */
	size_t n;
	int built;
};

static int kind_of(const ctx *c, uint32_t f)
{
	return f < c->nkind ? c->kind[f] : K_OTHER;
}

static int is_mpi(const ctx *c, uint32_t f)
{
	return f < c->nkind && c->mpi[f];
}

static void edge(ctx *c, size_t from, size_t to, int why)
{
	if (to == SIZE_MAX || to == from)
		return;
	GROW(c->edges, c->capedges, c->nedges + 1);
	c->edges[c->nedges++] = (hang_edge){ from, to, why };
}

/* The thread of process p that makes MPI calls. */
static size_t mpi_of(const ctx *c, int32_t p)
{
	return p >= 0 && p <= c->maxproc ? c->mpi_thread[p] : SIZE_MAX;
}

static const dt_sync_event *open_call(const ctx *c, size_t t)
{
	const hang_thread *h = &c->r->threads[t];
	return h->state == HANG_IN_CALL ? &c->ev[h->entry] : NULL;
}

/* Index entries, sorted for binary search: a collective entered (the k-th of its process on
 * its communicator), a (communicator, process) that has events, a completed request. */
struct cref {
	int32_t comm, proc;
	uint64_t k;
	uint32_t func;
};
struct pref {
	int32_t comm, proc;
};
struct rref {
	int32_t proc;
	uint64_t req;
};

static int cmp_cref(const void *a, const void *b)
{
	const struct cref *x = a, *y = b;
	if (x->comm != y->comm)
		return x->comm < y->comm ? -1 : 1;
	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	return (x->k > y->k) - (x->k < y->k);
}

static int cmp_pref(const void *a, const void *b)
{
	const struct pref *x = a, *y = b;
	if (x->comm != y->comm)
		return x->comm < y->comm ? -1 : 1;
	return (x->proc > y->proc) - (x->proc < y->proc);
}

static int cmp_rref(const void *a, const void *b)
{
	const struct rref *x = a, *y = b;
	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	return (x->req > y->req) - (x->req < y->req);
}

/* First index of a sorted array whose key is not below the key (cmp on a probe). */
static size_t lower(const void *base, size_t n, size_t size, const void *key,
		    int (*cmp)(const void *, const void *))
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cmp((const char *)base + mid * size, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The members of a communicator that a thread in its k-th collective there (func) waits
 * for, computed once per (communicator, k, func). */
struct missing {
	int32_t comm;
	uint64_t k;
	uint32_t func;
	int32_t *procs;
	size_t n;
};

static const struct missing *coll_missing(ctx *c, int32_t comm, uint64_t k, uint32_t func)
{
	for (size_t i = 0; i < c->nmiss; i++)
		if (c->miss[i].comm == comm && c->miss[i].k == k && c->miss[i].func == func)
			return &c->miss[i];
	GROW(c->miss, c->capmiss, c->nmiss + 1);
	struct missing *m = &c->miss[c->nmiss++];
	*m = (struct missing){ comm, k, func, NULL, 0 };
	size_t cap = 0;
	/* members: every process for WORLD, else the processes with events on it */
	struct pref key = { comm, INT32_MIN };
	size_t i = lower(c->members, c->nmembers, sizeof *c->members, &key, cmp_pref);
	for (int32_t p = 0;; p++) {
		int32_t proc;
		if (comm == 0) {
			if (p > c->maxproc)
				break;
			proc = p;
		} else {
			if (i >= c->nmembers || c->members[i].comm != comm)
				break;
			proc = c->members[i++].proc;
		}
		uint32_t kf = 0;
		int have;
		if (c->kth) {
			have = c->kth(c->kst, comm, proc, k, &kf);
		} else {
			struct cref ck = { comm, proc, 0, 0 };
			size_t f = lower(c->colls, c->ncolls, sizeof *c->colls, &ck, cmp_cref);
			size_t cnt = 0;
			while (f + cnt < c->ncolls && c->colls[f + cnt].comm == comm &&
			       c->colls[f + cnt].proc == proc)
				cnt++;
			have = cnt >= k;
			if (have)
				kf = c->colls[f + k - 1].func;
		}
		if (!have || kf != func) {
			GROW(m->procs, cap, m->n + 1);
			m->procs[m->n++] = proc;
		}
	}
	return m;
}

/* The thread of a process whose events hold event i. */
static size_t thread_of_event(const ctx *c, int32_t p, size_t i)
{
	for (size_t u = c->pfirst[p]; u < c->pend[p]; u++)
		if (i >= c->th[u].b && i < c->th[u].e)
			return u;
	return SIZE_MAX;
}

/* A collective whose communicator the record does not name (OTF2 writes it when the call
 * completes; a recorder that could not number it): it counts among no communicator's
 * collectives, and waits for the MPI thread of every other process not inside the same call
 * (the members it waits for cannot be told from the others). */
static void unnamed_coll_edges(ctx *c, size_t t, const dt_sync_event *v)
{
	int32_t me = c->r->threads[t].proc;
	for (int32_t p = 0; p <= c->maxproc; p++) {
		size_t u = mpi_of(c, p);
		if (p == me || u == SIZE_MAX)
			continue;
		const dt_sync_event *o = open_call(c, u);
		if (!o || o->func != v->func)
			edge(c, t, u, HANG_W_COLL);
	}
}

/* Edges of a collective (v its entry, or a nonblocking one's exit that thread t waits on):
 * to the members of its communicator that have not entered the same one (the k-th on that
 * communicator, blocking or not), or entered another there. */
static void coll_edges(ctx *c, size_t t, const dt_sync_event *v)
{
	int32_t me = c->r->threads[t].proc;
	if (v->comm == 1)
		return; /* MPI_COMM_SELF */
	if (v->comm < 0) {
		if (v == open_call(c, t))
			unnamed_coll_edges(c, t, v);
		return; /* a nonblocking one's request: which members, not told */
	}
	uint64_t k = 0;
	if (c->kcoll) {
		k = c->kcoll[v - c->ev];
		const struct missing *m = coll_missing(c, v->comm, k, v->func);
		for (size_t i = 0; i < m->n; i++)
			if (m->procs[i] != me)
				edge(c, t, mpi_of(c, m->procs[i]), HANG_W_COLL);
		return;
	}
	size_t u = thread_of_event(c, me, (size_t)(v - c->ev));
	if (u == SIZE_MAX)
		return;
	for (size_t i = c->th[u].b; i <= (size_t)(v - c->ev); i++)
		if (c->ev[i].phase == DT_SYNC_ENTER && c->ev[i].comm == v->comm &&
		    collective(kind_of(c, c->ev[i].func)))
			k++;
	const struct missing *m = coll_missing(c, v->comm, k, v->func);
	for (size_t i = 0; i < m->n; i++)
		if (m->procs[i] != me)
			edge(c, t, mpi_of(c, m->procs[i]), HANG_W_COLL);
}

/* A receive whose source the record does not have: an OTF2 archive writes it when the call
 * completes, so a receive that never returned has none (nor its tag). An Irecv's request
 * without a source has no destination either. */
static int unnamed_source(const ctx *c, const dt_sync_event *v)
{
	int k = kind_of(c, v->func);
	return v->src == DT_SYNC_NONE &&
	       (k == K_RECV || (k == K_ISTART && v->dest == DT_SYNC_NONE));
}

static void peer_edge(ctx *c, size_t t, int32_t peer, int why)
{
	if (peer >= 0) {
		edge(c, t, mpi_of(c, peer), why);
	} else if (peer == DT_SYNC_ANY_SOURCE) {
		for (int32_t p = 0; p <= c->maxproc; p++)
			if (p != c->r->threads[t].proc)
				edge(c, t, mpi_of(c, p), why);
	}
}

/* The requests of process p not completed (the exits of the calls that made them), found
 * once per process: every thread of a process waiting would otherwise pass over all its
 * events. */
static const struct open_reqs *open_reqs_of(ctx *c, int32_t p)
{
	struct open_reqs *o = &c->open[p];
	if (o->built)
		return o;
	o->built = 1;
	size_t cap = 0;
	for (size_t u = c->pfirst[p]; u < c->pend[p]; u++)
		for (size_t i = c->th[u].b; i < c->th[u].e; i++) {
			const dt_sync_event *v = &c->ev[i];
			int k = kind_of(c, v->func);
			if (v->phase != DT_SYNC_EXIT || !v->req || (k != K_ISTART && k != K_ICOLL))
				continue;
			struct rref key = { p, v->req };
			size_t j = lower(c->done, c->ndone, sizeof *c->done, &key, cmp_rref);
			if (j < c->ndone && !cmp_rref(&c->done[j], &key))
				continue; /* completed */
			GROW(o->ev, cap, o->n + 1);
			o->ev[o->n++] = i;
		}
	return o;
}

/* A wait: for the peers of its request, or of every request of the process not completed; for
 * a nonblocking collective's, the members of its communicator not in it. */
static void wait_edges(ctx *c, size_t t, const dt_sync_event *w)
{
	const struct open_reqs *o = open_reqs_of(c, c->r->threads[t].proc);
	for (size_t k = 0; k < o->n; k++) {
		const dt_sync_event *v = &c->ev[o->ev[k]];
		if (w->req && v->req != w->req)
			continue;
		if (kind_of(c, v->func) == K_ICOLL) {
			coll_edges(c, t, v);
			continue;
		}
		if (v->src != DT_SYNC_NONE || unnamed_source(c, v))
			peer_edge(c, t, unnamed_source(c, v) ? DT_SYNC_ANY_SOURCE : v->src,
				  HANG_W_REQUEST);
		if (v->dest != DT_SYNC_NONE)
			peer_edge(c, t, v->dest, HANG_W_REQUEST);
	}
}

/* Builds the indexes the edges are looked up in. */
static void index_events(ctx *c)
{
	size_t capc = 0, capm = 0, capd = 0;
	for (size_t t = 0; t < c->r->nthreads; t++) {
		int32_t p = c->r->threads[t].proc;
		for (size_t i = c->th[t].b; i < c->th[t].e; i++) {
			const dt_sync_event *v = &c->ev[i];
			int k = kind_of(c, v->func);
			if (v->comm >= 0) {
				GROW(c->members, capm, c->nmembers + 1);
				c->members[c->nmembers++] = (struct pref){ v->comm, p };
			}
			/* a process that made a communicator is a member before it calls there */
			if (v->phase == DT_SYNC_EXIT && v->func < c->nkind && c->maker[v->func] &&
			    v->obj > 1 && v->obj <= INT32_MAX) {
				GROW(c->members, capm, c->nmembers + 1);
				c->members[c->nmembers++] = (struct pref){ (int32_t)v->obj, p };
			}
			if (v->phase == DT_SYNC_ENTER && collective(k) && v->comm >= 0) {
				GROW(c->colls, capc, c->ncolls + 1);
				c->colls[c->ncolls++] = (struct cref){ v->comm, p, c->ncolls, v->func };
			}
			if (v->phase != DT_SYNC_ENTER && v->req && k != K_ISTART && k != K_ICOLL) {
				GROW(c->done, capd, c->ndone + 1);
				c->done[c->ndone++] = (struct rref){ p, v->req };
			}
		}
	}
	/* the collectives in program order per (comm, proc): k counts them from 1 */
	if (c->ncolls)
		qsort(c->colls, c->ncolls, sizeof *c->colls, cmp_cref);
	for (size_t i = 0; i < c->ncolls; i++)
		c->colls[i].k = i && c->colls[i - 1].comm == c->colls[i].comm &&
					c->colls[i - 1].proc == c->colls[i].proc
				? c->colls[i - 1].k + 1
				: 1;
	if (c->nmembers)
		qsort(c->members, c->nmembers, sizeof *c->members, cmp_pref);
	size_t k = 0;
	for (size_t i = 0; i < c->nmembers; i++)
		if (!k || cmp_pref(&c->members[k - 1], &c->members[i]))
			c->members[k++] = c->members[i];
	c->nmembers = k;
	if (c->ndone)
		qsort(c->done, c->ndone, sizeof *c->done, cmp_rref);
}

static int same_region(const dt_sync_event *a, const dt_sync_event *b)
{
	return a->obj == b->obj && a->objseq == b->objseq;
}

/* The open GOMP_parallel_body of thread u for the region of v, or NULL. */
static const dt_sync_event *in_region(const ctx *c, size_t u, const dt_sync_event *v)
{
	const struct th *h = &c->th[u];
	for (size_t s = 0; s < h->sp; s++) {
		const dt_sync_event *x = &c->ev[h->stack[s]];
		if (kind_of(c, x->func) == K_BODY && same_region(x, v))
			return x;
	}
	return NULL;
}

static void omp_edges(ctx *c, size_t t, const dt_sync_event *v, int k)
{
	int32_t me = c->r->threads[t].proc;
	for (size_t u = c->pfirst[me]; u < c->pend[me]; u++) {
		const hang_thread *h = &c->r->threads[u];
		if (u == t)
			continue;
		if (k == K_ACQUIRE) {
			for (size_t i = 0; i < h->nheld; i++)
				if (c->ev[h->held[i]].obj == v->obj)
					edge(c, t, u, HANG_W_LOCK);
		} else if (k == K_BARRIER) {
			if (!in_region(c, u, v))
				continue;
			const dt_sync_event *o = open_call(c, u);
			if (!o || kind_of(c, o->func) != K_BARRIER || !same_region(o, v))
				edge(c, t, u, HANG_W_BARRIER);
		} else if (k == K_PARALLEL) {
			if (in_region(c, u, v))
				edge(c, t, u, HANG_W_JOIN);
		}
	}
}

static int cmp_edge(const void *a, const void *b)
{
	const hang_edge *x = a, *y = b;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return (x->to > y->to) - (x->to < y->to);
}

/* The longest cycle through v inside its strongly connected part (comp[] == c, m threads),
 * into *out (malloc'ed); returns its length. A depth-first search that stops when the cycle
 * holds every thread of the part, or after a bounded number of steps (the longest found then):
 * a walk along the first edges printed a ring of four ranks as two of them when a receive
 * from any source or a collective added edges across it. */
static size_t longest_cycle(const hang_report *r, const size_t *first, const size_t *comp,
			    size_t c, size_t v, size_t m, size_t **out)
{
	size_t n = r->nthreads;
	size_t *path = xmalloc(m * sizeof *path), *it = xmalloc(m * sizeof *it);
	unsigned char *on = xcalloc(n ? n : 1, 1);
	size_t *best = xmalloc(m * sizeof *best), nbest = 0, len = 1;
	unsigned long budget = 200000;
	path[0] = v;
	it[0] = first[v];
	on[v] = 1;
	while (len && nbest < m && budget--) {
		size_t u = path[len - 1];
		if (it[len - 1] == first[u + 1]) {
			on[u] = 0;
			len--;
			continue;
		}
		size_t w = r->edges[it[len - 1]++].to;
		if (comp[w] != c)
			continue;
		if (w == v && len > nbest) {
			memcpy(best, path, len * sizeof *best);
			nbest = len;
		} else if (!on[w] && len < m) {
			on[w] = 1;
			path[len] = w;
			it[len++] = first[w];
		}
	}
	if (!nbest) {
		/* out of steps before any cycle closed: the shortest one back to v (breadth
		 * first, it[] as the parents) */
		size_t head = 0, tail = 0, u = SIZE_MAX;
		memset(on, 0, n ? n : 1);
		size_t *q = xmalloc(n * sizeof *q), *par = xmalloc(n * sizeof *par);
		q[tail++] = v;
		on[v] = 1;
		while (head < tail && u == SIZE_MAX) {
			size_t x = q[head++];
			for (size_t e = first[x]; e < first[x + 1] && u == SIZE_MAX; e++) {
				size_t w = r->edges[e].to;
				if (comp[w] != c)
					continue;
				if (w == v)
					u = x;
				else if (!on[w]) {
					on[w] = 1;
					par[w] = x;
					q[tail++] = w;
				}
			}
		}
		for (size_t x = u; x != SIZE_MAX && nbest < m; x = x == v ? SIZE_MAX : par[x])
			best[nbest++] = x;
		for (size_t i = 0; i < nbest / 2; i++) { /* v first */
			size_t t = best[i];
			best[i] = best[nbest - 1 - i];
			best[nbest - 1 - i] = t;
		}
		free(q);
		free(par);
	}
	free(path);
	free(it);
	free(on);
	*out = best;
	return nbest;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return (x > y) - (x < y);
}

/* Tarjan's strongly connected components, without recursion; a cycle is reported for every
 * component of more than one thread. */
static void cycles(ctx *c)
{
	hang_report *r = c->r;
	size_t n = r->nthreads, *first = xcalloc(n + 1, sizeof *first);
	for (size_t i = 0; i < r->nedges; i++)
		first[r->edges[i].from + 1]++;
	for (size_t i = 0; i < n; i++)
		first[i + 1] += first[i];
	size_t *idx = xmalloc((n ? n : 1) * sizeof *idx), *low = xmalloc((n ? n : 1) * sizeof *low);
	size_t *stk = xmalloc((n ? n : 1) * sizeof *stk), *cs = xmalloc((n ? n : 1) * sizeof *cs);
	size_t *it = xmalloc((n ? n : 1) * sizeof *it), *comp = xmalloc((n ? n : 1) * sizeof *comp);
	unsigned char *on = xcalloc(n ? n : 1, 1);
	for (size_t i = 0; i < n; i++)
		idx[i] = SIZE_MAX;
	size_t counter = 0, sp = 0, csp = 0, ncomp = 0, cap = 0;
	for (size_t root = 0; root < n; root++) {
		if (idx[root] != SIZE_MAX)
			continue;
		cs[csp++] = root;
		idx[root] = low[root] = counter++;
		it[root] = first[root];
		stk[sp++] = root;
		on[root] = 1;
		while (csp) {
			size_t v = cs[csp - 1];
			if (it[v] < first[v + 1]) {
				size_t w = r->edges[it[v]++].to;
				if (idx[w] == SIZE_MAX) {
					idx[w] = low[w] = counter++;
					it[w] = first[w];
					stk[sp++] = w;
					on[w] = 1;
					cs[csp++] = w;
				} else if (on[w] && idx[w] < low[v]) {
					low[v] = idx[w];
				}
				continue;
			}
			csp--;
			if (csp && low[v] < low[cs[csp - 1]])
				low[cs[csp - 1]] = low[v];
			if (low[v] != idx[v])
				continue;
			size_t m = 0, w;
			do {
				w = stk[--sp];
				on[w] = 0;
				comp[w] = ncomp;
				m++;
			} while (w != v);
			if (m > 1) {
				GROW(r->cycles, cap, r->ncycles + 1);
				hang_cycle *cy = &r->cycles[r->ncycles++];
				cy->nknot = m;
				cy->knot = xmalloc(m * sizeof *cy->knot);
				memcpy(cy->knot, stk + sp, m * sizeof *cy->knot);
				qsort(cy->knot, m, sizeof *cy->knot, cmp_size);
				cy->n = longest_cycle(r, first, comp, ncomp, v, m, &cy->threads);
			}
			ncomp++;
		}
	}
	free(first);
	free(idx);
	free(low);
	free(stk);
	free(cs);
	free(it);
	free(comp);
	free(on);
}

static int cmp_group(const void *a, const void *b)
{
	const hang_group *x = a, *y = b;
	if (x->state != y->state)
		return x->state < y->state ? -1 : 1;
	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return (x->threads[0] > y->threads[0]) - (x->threads[0] < y->threads[0]);
}

static void group(hang_report *r)
{
	size_t cap = 0;
	for (size_t t = 0; t < r->nthreads; t++) {
		const hang_thread *h = &r->threads[t];
		hang_group *g = NULL;
		for (size_t i = 0; i < r->ngroups && !g; i++)
			if (r->groups[i].state == h->state &&
			    (h->state != HANG_IN_CALL ||
			     (r->groups[i].func == h->func && r->groups[i].occurrence == h->occurrence)))
				g = &r->groups[i];
		if (!g) {
			GROW(r->groups, cap, r->ngroups + 1);
			g = &r->groups[r->ngroups++];
			memset(g, 0, sizeof *g);
			g->state = h->state;
			if (h->state == HANG_IN_CALL) {
				g->func = h->func;
				g->occurrence = h->occurrence;
			}
			g->threads = xmalloc(r->nthreads * sizeof *g->threads);
		}
		g->threads[g->n++] = t;
	}
	if (r->ngroups)
		qsort(r->groups, r->ngroups, sizeof *r->groups, cmp_group);
}

/* ---- near-matches ---------------------------------------------------------------------- */

/* A point-to-point message (hang_msg) by its envelope (communicators left out: a completed
 * receive's exit, or a Wait's, does not always carry one), and the event that sent or
 * received it. */

static int cmp_msg_ft(const void *a, const void *b)
{
	const hang_msg *x = a, *y = b;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	if (x->tag != y->tag)
		return x->tag < y->tag ? -1 : 1;
	return (x->ev > y->ev) - (x->ev < y->ev);
}

static int cmp_msg_tf(const void *a, const void *b)
{
	const hang_msg *x = a, *y = b;
	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	if (x->tag != y->tag)
		return x->tag < y->tag ? -1 : 1;
	return (x->ev > y->ev) - (x->ev < y->ev);
}

/* The first unreceived send to `to` (sorted by cmp_msg_tf) that fits (from, tag), either of
 * them -1 for any; SIZE_MAX when none. */
static size_t unrec_to(const hang_msg *u, size_t n, int32_t to, int32_t from, int32_t tag)
{
	hang_msg key = { INT32_MIN, to, INT32_MIN, 0 };
	for (size_t i = lower(u, n, sizeof *u, &key, cmp_msg_tf); i < n && u[i].to == to; i++)
		if ((from < 0 || u[i].from == from) && (tag < 0 || u[i].tag == tag))
			return i;
	return SIZE_MAX;
}

size_t hang_thread_find(const hang_report *r, int32_t proc, int32_t thread)
{
	size_t lo = 0, hi = r->nthreads;
	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;
		const hang_thread *h = &r->threads[m];
		if (h->proc == proc && h->thread == thread)
			return m;
		if (h->proc < proc || (h->proc == proc && h->thread < thread))
			lo = m + 1;
		else
			hi = m;
	}
	return SIZE_MAX;
}

static void add_near(ctx *c, size_t *cap, size_t t, int kind, size_t recv, size_t send)
{
	hang_report *r = c->r;
	size_t from = hang_thread_find(r, c->ev[send].proc, c->ev[send].thread);
	GROW(r->nears, *cap, r->nnears + 1);
	r->nears[r->nnears++] = (hang_near){ t, kind, recv, send, from };
}

/* One blocked receive (event v, of thread t): a match with another count or datatype, or a
 * send alike but for its tag or peer that no receive took. */
static void near_one(ctx *c, size_t *cap, size_t t, const dt_sync_event *v,
		     const hang_msg *byto, const hang_msg *byfrom, size_t nu)
{
	int32_t me = c->r->threads[t].proc, src = v->src, tag = v->rtag;
	size_t recv = (size_t)(v - c->ev);
	size_t i;
	if (unnamed_source(c, v)) {
		/* what it waits for is not recorded: a send to it that no receive took did not
		 * fit it, in its source, its tag or its communicator */
		if ((i = unrec_to(byto, nu, me, -1, -1)) != SIZE_MAX)
			add_near(c, cap, t, HANG_NEAR_UNNAMED, recv, byto[i].ev);
		return;
	}
	if (src == DT_SYNC_PROC_NULL || src == DT_SYNC_NONE)
		return;
	int32_t s = src >= 0 ? src : -1, g = tag >= 0 ? tag : -1;
	i = unrec_to(byto, nu, me, s, g);
	if (i != SIZE_MAX) {
		/* it matches: say so only when the sizes differ */
		const dt_sync_event *x = &c->ev[byto[i].ev];
		if ((v->count >= 0 && x->count >= 0 && v->count != x->count) ||
		    (v->datatype >= 0 && x->datatype >= 0 && v->datatype != x->datatype))
			add_near(c, cap, t, HANG_NEAR_COUNT, recv, byto[i].ev);
		return;
	}
	if (s >= 0 && (i = unrec_to(byto, nu, me, s, -1)) != SIZE_MAX) {
		add_near(c, cap, t, HANG_NEAR_TAG, recv, byto[i].ev);
		return;
	}
	if (g >= 0 && (i = unrec_to(byto, nu, me, -1, g)) != SIZE_MAX) {
		add_near(c, cap, t, HANG_NEAR_PEER, recv, byto[i].ev);
		return;
	}
	if (s < 0)
		return;
	/* its source sent the tag to another process */
	hang_msg key = { s, INT32_MIN, INT32_MIN, 0 };
	for (size_t k = lower(byfrom, nu, sizeof *byfrom, &key, cmp_msg_ft);
	     k < nu && byfrom[k].from == s; k++)
		if (byfrom[k].to != me && (g < 0 || byfrom[k].tag == g)) {
			add_near(c, cap, t, HANG_NEAR_PEER, recv, byfrom[k].ev);
			return;
		}
}

static void near_of(ctx *c, hang_msg *snd, size_t nu);

/* The near-matches of the blocked receives: the sends of the run are paired with the
 * completed receives of the same envelope, in order (MPI does not overtake); the sends left
 * over are the unreceived ones, and a blocked receive with none that fits is compared with
 * them. */
static void near_matches(ctx *c)
{
	hang_msg *snd = NULL, *rcv = NULL;
	size_t ns = 0, nr = 0, caps = 0, capr = 0;
	for (size_t i = 0; i < c->n; i++) {
		const dt_sync_event *v = &c->ev[i];
		int k = kind_of(c, v->func);
		if (v->phase == DT_SYNC_ENTER && v->dest >= 0 &&
		    (k == K_SEND || k == K_ISTART || k == K_RECV)) {
			GROW(snd, caps, ns + 1);
			snd[ns++] = (hang_msg){ v->proc, v->dest, v->stag, i };
		} else if (v->phase != DT_SYNC_ENTER && v->src >= 0 && v->rtag >= 0 &&
			   k != K_ISTART && k != K_PINIT &&
			   !(v->func < c->nkind && c->probe[v->func])) {
			GROW(rcv, capr, nr + 1);
			rcv[nr++] = (hang_msg){ v->src, v->proc, v->rtag, i };
		}
	}
	if (ns)
		qsort(snd, ns, sizeof *snd, cmp_msg_ft);
	if (nr)
		qsort(rcv, nr, sizeof *rcv, cmp_msg_ft);
	/* keep the sends beyond the number of receives of their envelope */
	size_t nu = 0, j = 0;
	for (size_t i = 0; i < ns;) {
		size_t e = i;
		while (e < ns && snd[e].from == snd[i].from && snd[e].to == snd[i].to &&
		       snd[e].tag == snd[i].tag)
			e++;
		hang_msg key = { snd[i].from, snd[i].to, snd[i].tag, 0 };
		j = lower(rcv, nr, sizeof *rcv, &key, cmp_msg_ft);
		size_t got = 0;
		while (j + got < nr && rcv[j + got].from == key.from && rcv[j + got].to == key.to &&
		       rcv[j + got].tag == key.tag)
			got++;
		for (size_t k = i + got; k < e; k++)
			snd[nu++] = snd[k];
		i = e;
	}
	free(rcv);
	near_of(c, snd, nu);
}

/* The near-matches, from the unreceived sends (by cmp_msg_ft; taken). */
static int cmp_size_t(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return (x > y) - (x < y);
}

/* A receive posted and not completed (an open MPI_Irecv) took the first send of its envelope
 * that came to it, in the order the receives were posted, as MPI matches a message with the
 * first posted receive it fits: such a send is not unreceived, and a wait on that receive's
 * process blocks on another request. took[2 k] is the receive's event, took[2 k + 1] the send's;
 * the sends taken are removed from byto and byfrom (*nu updated). */
static size_t *posted_take(ctx *c, hang_msg *byto, hang_msg *byfrom, size_t *nu, size_t *ntook)
{
	size_t n = *nu, cap = 0, nt = 0;
	size_t *took = NULL;
	unsigned char *tk = xcalloc(n ? n : 1, 1);
	for (size_t t = 0; n && t < c->r->nthreads; t++) {
		int32_t p = c->r->threads[t].proc;
		if (t && c->r->threads[t - 1].proc == p)
			continue; /* once a process */
		const struct open_reqs *o = open_reqs_of(c, p);
		for (size_t q = 0; q < o->n; q++) {
			const dt_sync_event *x = &c->ev[o->ev[q]];
			if (kind_of(c, x->func) != K_ISTART || x->src == DT_SYNC_NONE ||
			    x->src == DT_SYNC_PROC_NULL || x->dest >= 0 || unnamed_source(c, x))
				continue;
			int32_t from = x->src >= 0 ? x->src : -1, tag = x->rtag >= 0 ? x->rtag : -1;
			hang_msg key = { INT32_MIN, p, INT32_MIN, 0 };
			for (size_t i = lower(byto, n, sizeof *byto, &key, cmp_msg_tf);
			     i < n && byto[i].to == p; i++)
				if (!tk[i] && (from < 0 || byto[i].from == from) &&
				    (tag < 0 || byto[i].tag == tag)) {
					tk[i] = 1;
					GROW(took, cap, 2 * nt + 2);
					took[2 * nt] = o->ev[q];
					took[2 * nt + 1] = byto[i].ev;
					nt++;
					break;
				}
		}
	}
	if (nt) {
		size_t *gone = xmalloc(nt * sizeof *gone), m = 0, k = 0;
		for (size_t i = 0; i < n; i++) {
			if (tk[i])
				gone[k++] = byto[i].ev;
			else
				byto[m++] = byto[i];
		}
		qsort(gone, nt, sizeof *gone, cmp_size_t);
		m = 0;
		for (size_t i = 0; i < n; i++)
			if (!bsearch(&byfrom[i].ev, gone, nt, sizeof *gone, cmp_size_t))
				byfrom[m++] = byfrom[i];
		free(gone);
		*nu = m;
	}
	free(tk);
	*ntook = nt;
	return took;
}

static void near_of(ctx *c, hang_msg *snd, size_t nu)
{
	hang_msg *byfrom = snd, *byto = xmalloc((nu ? nu : 1) * sizeof *byto);
	if (nu)
		memcpy(byto, byfrom, nu * sizeof *byto);
	if (nu)
		qsort(byto, nu, sizeof *byto, cmp_msg_tf);
	size_t ntook = 0, *took = posted_take(c, byto, byfrom, &nu, &ntook);
	size_t cap = 0;
	for (size_t t = 0; (nu || ntook) && t < c->r->nthreads; t++) {
		const dt_sync_event *v = open_call(c, t);
		if (!v)
			continue;
		int k = kind_of(c, v->func);
		if (k == K_RECV) {
			near_one(c, &cap, t, v, byto, byfrom, nu);
		} else if (k == K_WAIT) {
			/* the receives among the requests it waits for */
			const struct open_reqs *o = open_reqs_of(c, c->r->threads[t].proc);
			size_t before = c->r->nnears;
			for (size_t q = 0; q < o->n && c->r->nnears == before; q++) {
				const dt_sync_event *x = &c->ev[o->ev[q]];
				if ((v->req && x->req != v->req) ||
				    (x->src == DT_SYNC_NONE && !unnamed_source(c, x)))
					continue;
				size_t w = 0;
				while (w < ntook && took[2 * w] != o->ev[q])
					w++;
				if (w == ntook) {
					near_one(c, &cap, t, x, byto, byfrom, nu);
					continue;
				}
				/* it took a send: a mismatch only when their sizes differ */
				const dt_sync_event *y = &c->ev[took[2 * w + 1]];
				if ((x->count >= 0 && y->count >= 0 && x->count != y->count) ||
				    (x->datatype >= 0 && y->datatype >= 0 && x->datatype != y->datatype))
					add_near(c, &cap, t, HANG_NEAR_COUNT, o->ev[q], took[2 * w + 1]);
			}
		}
	}
	free(took);
	free(byto);
	free(byfrom);
}

const char *hang_near_name(int kind)
{
	return kind == HANG_NEAR_TAG	 ? "tag"
	       : kind == HANG_NEAR_PEER	 ? "peer"
	       : kind == HANG_NEAR_COUNT ? "count"
					 : "envelope";
}

static void peer_word(char *b, size_t n, int32_t p)
{
	if (p == DT_SYNC_ANY_SOURCE)
		snprintf(b, n, "any process");
	else
		snprintf(b, n, "%" PRId32, p);
}

static void size_word(char *b, size_t n, const dt_sync_event *v, const char *(*tn)(int32_t))
{
	char ty[48];
	if (v->datatype < 0)
		snprintf(ty, sizeof ty, "elements");
	else if (tn && tn(v->datatype))
		snprintf(ty, sizeof ty, "%s", tn(v->datatype));
	else
		snprintf(ty, sizeof ty, "of type %" PRId32, v->datatype);
	snprintf(b, n, "%" PRId64 " %s, ", v->count, ty);
}

void hang_near_text(const hang_report *r, const dt_sync_event *ev, const hang_near *m,
		    const char *(*type_name)(int32_t), char *b, size_t n)
{
	const hang_thread *h = &r->threads[m->thread];
	const dt_sync_event *v = &ev[m->recv], *x = &ev[m->send];
	char from[32], tag[32], cw[80] = "", xw[80] = "";
	if (m->kind == HANG_NEAR_UNNAMED) {
		snprintf(b, n,
			 "%" PRId32 ".%" PRId32 " waits for a message whose source and tag the record "
			 "does not have; %" PRId32 ".%" PRId32 " sent tag %" PRId32 " to %" PRId32
			 " (unreceived)",
			 h->proc, h->thread, x->proc, x->thread, x->stag, x->dest);
		return;
	}
	peer_word(from, sizeof from, v->src);
	if (v->rtag == DT_SYNC_ANY_TAG)
		snprintf(tag, sizeof tag, "any tag");
	else
		snprintf(tag, sizeof tag, "tag %" PRId32, v->rtag);
	if (m->kind == HANG_NEAR_COUNT) {
		size_word(cw, sizeof cw, v, type_name);
		size_word(xw, sizeof xw, x, type_name);
	}
	snprintf(b, n,
		 "%" PRId32 ".%" PRId32 " waits for %s%s from %s; %" PRId32 ".%" PRId32
		 " sent %stag %" PRId32 " to %" PRId32 " (%s)",
		 h->proc, h->thread, cw, tag, from, x->proc, x->thread, xw, x->stag, x->dest,
		 m->kind == HANG_NEAR_COUNT ? "another size" : "unreceived");
}

/* What each function id is: its kind, an MPI call, a probe, a communicator maker. */
static void ctx_init(ctx *c, const dt_sync_event *ev, size_t n, const char *const *names,
		     size_t nnames, hang_report *r)
{
	memset(r, 0, sizeof *r);
	memset(c, 0, sizeof *c);
	c->ev = ev;
	c->n = n;
	c->kind = xcalloc(nnames ? nnames : 1, 1);
	c->mpi = xcalloc(nnames ? nnames : 1, 1);
	c->probe = xcalloc(nnames ? nnames : 1, 1);
	c->maker = xcalloc(nnames ? nnames : 1, 1);
	c->nkind = nnames;
	c->r = r;
	c->maxproc = -1;
	for (size_t f = 0; f < nnames; f++) {
		if (!names[f])
			continue;
		c->mpi[f] = !strncmp(names[f], "MPI_", 4);
		c->probe[f] = !strcmp(names[f], "MPI_Probe") || !strcmp(names[f], "MPI_Iprobe") ||
			      !strcmp(names[f], "MPI_Mprobe") || !strcmp(names[f], "MPI_Improbe");
		c->maker[f] = hang_makes_comm(names[f]);
		for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
			if (!strcmp(names[f], kinds[k].name))
				c->kind[f] = (unsigned char)kinds[k].kind;
	}
}

static void ctx_free(ctx *c)
{
	for (size_t t = 0; t < c->r->nthreads && c->th; t++)
		free(c->th[t].stack);
	free(c->th);
	free(c->kind);
	free(c->mpi);
	free(c->probe);
	free(c->maker);
	free(c->mpi_thread);
	free(c->pfirst);
	free(c->pend);
	free(c->colls);
	free(c->members);
	free(c->done);
	for (size_t i = 0; i < c->nmiss; i++)
		free(c->miss[i].procs);
	free(c->miss);
	for (int32_t p = 0; c->open && p <= c->maxproc; p++)
		free(c->open[p].ev);
	free(c->open);
	free(c->edges);
}

/* The threads: one per (proc, thread) run of the events, which must be in order. */
static int find_threads(ctx *c, dt_err *e)
{
	const dt_sync_event *ev = c->ev;
	hang_report *r = c->r;
	size_t capt = 0, capth = 0;
	for (size_t i = 0; i < c->n; i++) {
		if (i && (ev[i].proc < ev[i - 1].proc ||
			  (ev[i].proc == ev[i - 1].proc && ev[i].thread < ev[i - 1].thread) ||
			  (ev[i].proc == ev[i - 1].proc && ev[i].thread == ev[i - 1].thread &&
			   ev[i].seq <= ev[i - 1].seq))) {
			dt_errf(e, DT_EDATA, "sync events not in (proc, thread, seq) order at %zu", i);
			return -1;
		}
		if (ev[i].proc < 0) {
			dt_errf(e, DT_EDATA, "sync event %zu has no process number", i);
			return -1;
		}
		if (!i || ev[i].proc != ev[i - 1].proc || ev[i].thread != ev[i - 1].thread) {
			GROW(r->threads, capt, r->nthreads + 1);
			GROW(c->th, capth, r->nthreads + 1);
			memset(&r->threads[r->nthreads], 0, sizeof *r->threads);
			memset(&c->th[r->nthreads], 0, sizeof *c->th);
			r->threads[r->nthreads].proc = ev[i].proc;
			r->threads[r->nthreads].thread = ev[i].thread;
			c->th[r->nthreads].b = i;
			r->nthreads++;
			if (ev[i].proc > c->maxproc)
				c->maxproc = ev[i].proc;
		}
		c->th[r->nthreads - 1].e = i + 1;
	}
	return 0;
}

/* Where thread t is at the end: its open calls, the locks it holds, its state. */
static void position(ctx *c, size_t t)
{
	const dt_sync_event *ev = c->ev;
	struct th *h = &c->th[t];
	hang_thread *ht = &c->r->threads[t];
	size_t caph = 0;
	for (size_t i = h->b; i < h->e; i++) {
		const dt_sync_event *v = &ev[i];
		int k = kind_of(c, v->func);
		h->nmpi += is_mpi(c, v->func);
		if (v->phase == DT_SYNC_ENTER) {
			GROW(h->stack, h->cap, h->sp + 1);
			h->stack[h->sp++] = i;
			if (k == K_RELEASE)
				for (size_t j = ht->nheld; j-- > 0;)
					if (ev[ht->held[j]].obj == v->obj) {
						memmove(ht->held + j, ht->held + j + 1,
							(ht->nheld - j - 1) * sizeof *ht->held);
						ht->nheld--;
						break;
					}
		} else if (v->phase == DT_SYNC_EXIT) {
			/* the innermost open entry of the same call */
			for (size_t s = h->sp; s-- > 0;)
				if (ev[h->stack[s]].func == v->func) {
					h->sp = s;
					break;
				}
			if (k == K_ACQUIRE) {
				GROW(ht->held, caph, ht->nheld + 1);
				ht->held[ht->nheld++] = i;
			}
		}
	}
	size_t last = h->sp ? h->stack[h->sp - 1] : h->e - 1;
	if (h->sp) {
		ht->state = HANG_IN_CALL;
	} else {
		ht->state = kind_of(c, ev[last].func) == K_FINALIZE ? HANG_FINISHED : HANG_OUTSIDE;
		/* the last call's entry */
		for (size_t i = last + 1; i-- > h->b;)
			if (ev[i].phase == DT_SYNC_ENTER) {
				last = i;
				break;
			}
	}
	ht->func = ev[last].func;
	ht->entry = last;
	for (size_t i = h->b; i <= last; i++)
		ht->occurrence += ev[i].phase == DT_SYNC_ENTER && ev[i].func == ht->func;
}

/* The processes' threads, and which thread of each makes its MPI calls: one inside an MPI
 * call, else the one with most MPI events. */
static void processes(ctx *c)
{
	hang_report *r = c->r;
	size_t np = (size_t)(c->maxproc + 1 > 0 ? c->maxproc + 1 : 1);
	c->mpi_thread = xmalloc(np * sizeof(size_t));
	c->pfirst = xcalloc(np, sizeof(size_t));
	c->pend = xcalloc(np, sizeof(size_t));
	c->open = xcalloc(np, sizeof *c->open);
	for (int32_t p = 0; p <= c->maxproc; p++)
		c->mpi_thread[p] = SIZE_MAX;
	for (size_t t = r->nthreads; t-- > 0;) {
		int32_t p = r->threads[t].proc;
		c->pfirst[p] = t;
		if (!c->pend[p])
			c->pend[p] = t + 1;
	}
	for (size_t t = 0; t < r->nthreads; t++) {
		int32_t p = r->threads[t].proc;
		if (p < 0 || !c->th[t].nmpi)
			continue;
		size_t cur = c->mpi_thread[p];
		const dt_sync_event *o = open_call(c, t);
		int in_mpi = o && is_mpi(c, o->func);
		const dt_sync_event *co = cur == SIZE_MAX ? NULL : open_call(c, cur);
		int cur_in = co && is_mpi(c, co->func);
		if (cur == SIZE_MAX || (in_mpi && !cur_in) ||
		    (in_mpi == cur_in && c->th[t].nmpi > c->th[cur].nmpi))
			c->mpi_thread[p] = t;
	}
}

/* MPI_Finalize waits for the processes not in it (found once for all who wait there). */
static void finalize_edges(ctx *c, size_t t, size_t **notfin, size_t *nnotfin, int *done)
{
	hang_report *r = c->r;
	if (!*done) {
		size_t cap = 0;
		for (int32_t p = 0; p <= c->maxproc; p++) {
			size_t u = mpi_of(c, p);
			if (u == SIZE_MAX)
				continue;
			const dt_sync_event *o = open_call(c, u);
			if (r->threads[u].state != HANG_FINISHED &&
			    !(o && kind_of(c, o->func) == K_FINALIZE)) {
				GROW(*notfin, cap, *nnotfin + 1);
				(*notfin)[(*nnotfin)++] = u;
			}
		}
		*done = 1;
	}
	for (size_t i = 0; i < *nnotfin; i++)
		if (r->threads[(*notfin)[i]].proc != r->threads[t].proc)
			edge(c, t, (*notfin)[i], HANG_W_FINALIZE);
}

/* The wait-for graph: the edges of every thread inside a call, sorted, one per pair. */
static void graph(ctx *c)
{
	hang_report *r = c->r;
	size_t *notfin = NULL, nnotfin = 0;
	int fin_done = 0;
	for (size_t t = 0; t < r->nthreads; t++) {
		const dt_sync_event *v = open_call(c, t);
		if (!v)
			continue;
		int k = kind_of(c, v->func);
		switch (k) {
		case K_RECV: /* a source not recorded: any of them, as MPI_ANY_SOURCE */
			peer_edge(c, t, unnamed_source(c, v) ? DT_SYNC_ANY_SOURCE : v->src,
				  HANG_W_RECV);
			if (v->dest != DT_SYNC_NONE)
				peer_edge(c, t, v->dest, HANG_W_SEND);
			break;
		case K_SEND:
			peer_edge(c, t, v->dest, HANG_W_SEND);
			break;
		case K_WAIT:
			wait_edges(c, t, v);
			break;
		case K_COLL:
			coll_edges(c, t, v);
			break;
		case K_FINALIZE:
			finalize_edges(c, t, &notfin, &nnotfin, &fin_done);
			break;
		case K_ACQUIRE:
		case K_BARRIER:
		case K_PARALLEL:
			omp_edges(c, t, v, k);
			break;
		default:
			break;
		}
	}
	free(notfin);
	if (c->nedges) {
		qsort(c->edges, c->nedges, sizeof *c->edges, cmp_edge);
		size_t k = 0;
		for (size_t i = 0; i < c->nedges; i++)
			if (!k || c->edges[i].from != c->edges[k - 1].from ||
			    c->edges[i].to != c->edges[k - 1].to)
				c->edges[k++] = c->edges[i];
		c->nedges = k;
	}
	r->edges = c->edges;
	r->nedges = c->nedges;
	c->edges = NULL;
}

int hang_analyze(const dt_sync_event *ev, size_t n, const char *const *names, size_t nnames,
		 hang_report *r, dt_err *e)
{
	ctx c;
	ctx_init(&c, ev, n, names, nnames, r);
	if (find_threads(&c, e)) {
		ctx_free(&c);
		hang_report_free(r);
		return -1;
	}
	for (size_t t = 0; t < r->nthreads; t++)
		position(&c, t);
	processes(&c);
	index_events(&c);
	graph(&c);
	cycles(&c);
	group(r);
	near_matches(&c);
	ctx_free(&c);
	return 0;
}

void hang_from_state(const hang_facts *st, const char *const *names, size_t nnames,
		     hang_report *r)
{
	ctx c;
	ctx_init(&c, st->ev, st->nev, names, nnames, r);
	r->threads = st->threads;
	r->nthreads = st->nthreads;
	c.maxproc = st->maxproc;
	c.th = xcalloc(r->nthreads ? r->nthreads : 1, sizeof *c.th);
	for (size_t t = 0; t < r->nthreads; t++) {
		struct th *h = &c.th[t];
		h->sp = h->cap = st->nstack[t];
		h->stack = xmalloc((h->sp ? h->sp : 1) * sizeof *h->stack);
		if (h->sp)
			memcpy(h->stack, st->stack[t], h->sp * sizeof *h->stack);
		h->nmpi = st->nmpi[t];
	}
	processes(&c);
	for (int32_t p = 0; p <= c.maxproc; p++) {
		struct open_reqs *o = &c.open[p];
		o->built = 1;
		o->n = st->nopen[p];
		o->ev = xmalloc((o->n ? o->n : 1) * sizeof *o->ev);
		if (o->n)
			memcpy(o->ev, st->open[p], o->n * sizeof *o->ev);
	}
	c.members = xmalloc((st->nmembers ? st->nmembers : 1) * sizeof *c.members);
	for (size_t i = 0; i < st->nmembers; i++)
		c.members[i] = (struct pref){ st->members[i][0], st->members[i][1] };
	c.nmembers = st->nmembers;
	c.kcoll = st->kcoll;
	c.kth = st->kth;
	c.kst = st->kst;
	graph(&c);
	cycles(&c);
	group(r);
	hang_msg *u = xmalloc((st->nunrecv ? st->nunrecv : 1) * sizeof *u);
	if (st->nunrecv)
		memcpy(u, st->unrecv, st->nunrecv * sizeof *u);
	if (st->nunrecv)
		qsort(u, st->nunrecv, sizeof *u, cmp_msg_ft);
	near_of(&c, u, st->nunrecv);
	ctx_free(&c);
}

void hang_report_free(hang_report *r)
{
	for (size_t i = 0; i < r->nthreads; i++)
		free(r->threads[i].held);
	free(r->threads);
	for (size_t i = 0; i < r->ngroups; i++)
		free(r->groups[i].threads);
	free(r->groups);
	free(r->edges);
	for (size_t i = 0; i < r->ncycles; i++) {
		free(r->cycles[i].threads);
		free(r->cycles[i].knot);
	}
	free(r->cycles);
	free(r->nears);
	memset(r, 0, sizeof *r);
}

/* A request completed in a process: by a call other than the one that made it. */
struct rdone {
	uint64_t req;
	uint32_t func;
};

static int cmp_rdone(const void *a, const void *b)
{
	const struct rdone *x = a, *y = b;
	if (x->req != y->req)
		return x->req < y->req ? -1 : 1;
	return (x->func > y->func) - (x->func < y->func);
}

/* The highest acquisition number of a lock in a process. */
struct lmax {
	uint64_t obj, max;
};

static int cmp_lmax(const void *a, const void *b)
{
	const struct lmax *x = a, *y = b;
	return (x->obj > y->obj) - (x->obj < y->obj);
}

/* What hang_pending looks up in a process, built once per process and only for those that
 * need it: a look-up per open call instead of a pass over the process's events (a pass per
 * request of a Waitall made the report quadratic: millions of events never finished). */
struct pinfo {
	size_t b, e; /* its events */
	struct rdone *done;
	size_t ndone;
	int done_built;
	struct lmax *locks;
	size_t nlocks;
	int locks_built;
};

static void pinfo_done(struct pinfo *p, const dt_sync_event *ev)
{
	size_t cap = 0;
	p->done_built = 1;
	for (size_t j = p->b; j < p->e; j++)
		if (ev[j].req && ev[j].phase != DT_SYNC_ENTER) {
			GROW(p->done, cap, p->ndone + 1);
			p->done[p->ndone++] = (struct rdone){ ev[j].req, ev[j].func };
		}
	if (p->ndone)
		qsort(p->done, p->ndone, sizeof *p->done, cmp_rdone);
}

/* Whether request req, made by func, was completed by another call. */
static int pinfo_completed(const struct pinfo *p, uint64_t req, uint32_t func)
{
	struct rdone key = { req, 0 };
	for (size_t j = lower(p->done, p->ndone, sizeof *p->done, &key, cmp_rdone);
	     j < p->ndone && p->done[j].req == req; j++)
		if (p->done[j].func != func)
			return 1;
	return 0;
}

static void pinfo_locks(struct pinfo *p, const dt_sync_event *ev, const char *const *names,
			size_t nnames)
{
	size_t cap = 0;
	p->locks_built = 1;
	for (size_t j = p->b; j < p->e; j++)
		if (ev[j].obj && ev[j].objseq && ev[j].func < nnames && names[ev[j].func] &&
		    strncmp(names[ev[j].func], "GOMP_parallel", 13)) {
			GROW(p->locks, cap, p->nlocks + 1);
			p->locks[p->nlocks++] = (struct lmax){ ev[j].obj, ev[j].objseq };
		}
	if (p->nlocks)
		qsort(p->locks, p->nlocks, sizeof *p->locks, cmp_lmax);
	size_t k = 0;
	for (size_t j = 0; j < p->nlocks; j++) {
		if (k && p->locks[k - 1].obj == p->locks[j].obj) {
			if (p->locks[j].max > p->locks[k - 1].max)
				p->locks[k - 1].max = p->locks[j].max;
		} else {
			p->locks[k++] = p->locks[j];
		}
	}
	p->nlocks = k;
}

size_t hang_pending(const dt_sync_event *ev, size_t n, const char *const *names, size_t nnames,
		    const hang_report *r, dt_sync_event **out, size_t **thread_of)
{
	size_t k = 0, cap = 0;
	*out = NULL;
	*thread_of = NULL;
	/* the processes' spans of events (ev is in (proc, thread, seq) order) */
	int32_t maxproc = -1;
	for (size_t t = 0; t < r->nthreads; t++)
		if (r->threads[t].proc > maxproc)
			maxproc = r->threads[t].proc;
	size_t np = maxproc >= 0 ? (size_t)maxproc + 1 : 0;
	struct pinfo *pi = xcalloc(np ? np : 1, sizeof *pi);
	unsigned char *kd = xcalloc(nnames ? nnames : 1, 1); /* kinds by function id */
	for (size_t f = 0; f < nnames; f++)
		for (size_t i = 0; names[f] && i < sizeof kinds / sizeof *kinds; i++)
			if (!strcmp(names[f], kinds[i].name))
				kd[f] = (unsigned char)kinds[i].kind;
	for (size_t i = 0; i < n; i++)
		if (ev[i].proc >= 0 && ev[i].proc <= maxproc) {
			struct pinfo *p = &pi[ev[i].proc];
			if (!p->e)
				p->b = i;
			p->e = i + 1;
		}
	for (size_t t = 0; t < r->nthreads; t++) {
		const hang_thread *h = &r->threads[t];
		if (h->state != HANG_IN_CALL || h->entry >= n)
			continue;
		const dt_sync_event *e = &ev[h->entry];
		if (e->proc < 0 || e->proc > maxproc)
			continue;
		struct pinfo *p = &pi[e->proc];
		size_t last = h->entry;
		while (last + 1 < n && ev[last + 1].proc == e->proc && ev[last + 1].thread == e->thread)
			last++;
		dt_sync_event x = *e;
		x.phase = DT_SYNC_EXIT;
		x.seq = ev[last].seq + 1;
		x.ts = ev[last].ts;
		const char *name = e->func < nnames ? names[e->func] : NULL;
		if (name && kd[e->func] == K_ACQUIRE && e->obj) {
			/* the acquisitions of the lock in the process so far: the next is ours */
			if (!p->locks_built)
				pinfo_locks(p, ev, names, nnames);
			struct lmax key = { e->obj, 0 };
			size_t j = lower(p->locks, p->nlocks, sizeof *p->locks, &key, cmp_lmax);
			x.objseq = (j < p->nlocks && p->locks[j].obj == e->obj ? p->locks[j].max : 0) + 1;
		}
		GROW(*out, cap, k + 1);
		*thread_of = xrealloc(*thread_of, cap * sizeof **thread_of);
		(*out)[k] = x;
		(*thread_of)[k++] = t;
		/* a wait for several requests: after its exit, one completion per request the
		 * thread started and nothing completed (which of them it waits for is not
		 * recorded: all of them) */
		if (!name || (strcmp(name, "MPI_Waitall") && strcmp(name, "MPI_Waitsome")))
			continue;
		(*out)[k - 1].req = 0;
		if (!p->done_built)
			pinfo_done(p, ev);
		size_t b = h->entry;
		while (b > p->b && ev[b - 1].thread == e->thread)
			b--;
		uint32_t seq = x.seq;
		for (size_t i = b; i < h->entry; i++) {
			const dt_sync_event *v = &ev[i];
			if (v->phase != DT_SYNC_EXIT || !v->req || v->func >= nnames ||
			    kd[v->func] != K_ISTART)
				continue;
			if (pinfo_completed(p, v->req, v->func))
				continue;
			dt_sync_event d = x;
			d.phase = DT_SYNC_DONE;
			d.seq = ++seq;
			d.req = v->req;
			d.src = d.rtag = d.dest = d.stag = DT_SYNC_NONE;
			GROW(*out, cap, k + 1);
			*thread_of = xrealloc(*thread_of, cap * sizeof **thread_of);
			(*out)[k] = d;
			(*thread_of)[k++] = t;
		}
	}
	for (size_t i = 0; i < np; i++) {
		free(pi[i].done);
		free(pi[i].locks);
	}
	free(pi);
	free(kd);
	return k;
}
