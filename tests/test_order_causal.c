/* test_order_causal.c: the causality filter (src/order/filter.c) and the shipped rules
 * (the files of rules/, read by src/order/rules.c) against a reference that shares no code with
 * them: what MPI and OpenMP guarantee, written out here from the events' fields alone.
 *   - program order: each thread's events in their order;
 *   - a message: a receive completes (Recv's exit, the Wait or Waitall DONE of an Irecv) after
 *     the entry of the send it matched, the k-th completion of process i from j with tag t
 *     matching the k-th send of j to i with tag t (MPI's non-overtaking order);
 *   - a collective (the k-th of each member): every member leaves a barrier, an allreduce, an
 *     allgather or an alltoall after every member entered it, a bcast or a scatter after the
 *     root entered it; the root leaves a reduce or a gather after every member entered it;
 *   - OpenMP: a critical section or lock is acquired (the exit of its k-th start) after its
 *     (k-1)-th release was entered; a worker starts its part of a region after the fork and
 *     the join comes after every worker's part ended.
 * Random synthetic runs (tests/synth_sync.h, with its pattern of two tags on one channel received
 * in the other order) in random arrival orders, under every policy: every
 * event of a complete run is released, and the order respects every edge above. A rule that
 * matched a receive by the wrong tag, or let a collective's exit through early, fails here even
 * though the filter's own tables and the checker agree with it. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "order/filter.h"
#include "order/rules.h"
#include "synth_sync.h"

typedef struct edge {
	size_t a, b; /* a must come before b */
} edge;

typedef struct edges {
	edge *e;
	size_t n, cap;
} edges;

static void add(edges *g, size_t a, size_t b)
{
	if (g->n == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 4096;
		g->e = realloc(g->e, g->cap * sizeof *g->e);
	}
	g->e[g->n++] = (edge){ a, b };
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* The events of s, in generation order (each thread's in program order), as the reference sees
 * them: an index list per key, matched in order. */
typedef struct fifo {
	int64_t key[4];
	size_t *v;
	size_t n, cap, next;
} fifo;

static fifo *find(fifo **f, size_t *nf, const int64_t key[4])
{
	for (size_t i = 0; i < *nf; i++)
		if (!memcmp((*f)[i].key, key, sizeof (*f)[i].key))
			return &(*f)[i];
	*f = realloc(*f, (*nf + 1) * sizeof **f);
	fifo *x = &(*f)[(*nf)++];
	memset(x, 0, sizeof *x);
	memcpy(x->key, key, sizeof x->key);
	return x;
}

static void push_fifo(fifo *x, size_t i)
{
	if (x->n == x->cap) {
		x->cap = x->cap ? 2 * x->cap : 16;
		x->v = realloc(x->v, x->cap * sizeof *x->v);
	}
	x->v[x->n++] = i;
}

static int is_send(uint32_t f)
{
	return f == SY_SEND || f == SY_ISEND;
}

static int is_coll(uint32_t f)
{
	return f >= SY_BARRIER && f <= SY_GATHER;
}

/* The edges of run s (program order aside). */
static void causal_edges(const synth *s, edges *g)
{
	fifo *sends = NULL, *recvs = NULL, *coll = NULL, *rel = NULL, *acq = NULL, *fork = NULL;
	size_t ns = 0, nr = 0, nc = 0, nrel = 0, nacq = 0, nfork = 0;
	for (size_t i = 0; i < s->n; i++) {
		const dt_sync_event *x = &s->ev[i];
		if (x->phase == DT_SYNC_ENTER && is_send(x->func)) {
			int64_t k[4] = { x->comm, x->proc, x->dest, x->stag };
			push_fifo(find(&sends, &ns, k), i);
		}
		/* a completed receive: its actual source and tag are set */
		int done = (x->func == SY_RECV && x->phase == DT_SYNC_EXIT) ||
			   (x->func == SY_WAIT && x->phase == DT_SYNC_EXIT && x->src >= 0) ||
			   (x->func == SY_WAITALL && x->phase == DT_SYNC_DONE && x->src >= 0);
		if (done) {
			int64_t k[4] = { 0, x->src, x->proc, x->rtag };
			push_fifo(find(&recvs, &nr, k), i);
		}
		if (is_coll(x->func) && x->phase != DT_SYNC_DONE) {
			int64_t k[4] = { x->comm, x->proc, x->phase, 0 };
			push_fifo(find(&coll, &nc, k), i);
		}
		int start = x->func == SY_CRIT_START || x->func == SY_SET_LOCK;
		int end = x->func == SY_CRIT_END || x->func == SY_UNSET_LOCK;
		if (start && x->phase == DT_SYNC_EXIT) {
			int64_t k[4] = { x->proc, (int64_t)x->obj, (int64_t)x->objseq, 0 };
			push_fifo(find(&acq, &nacq, k), i);
		}
		if (end && x->phase == DT_SYNC_ENTER) {
			int64_t k[4] = { x->proc, (int64_t)x->obj, (int64_t)x->objseq, 0 };
			push_fifo(find(&rel, &nrel, k), i);
		}
		if (x->func == SY_PARALLEL || x->func == SY_TASK) {
			int64_t k[4] = { x->proc, (int64_t)x->objseq, x->func, x->phase };
			push_fifo(find(&fork, &nfork, k), i);
		}
	}
	/* messages: the k-th completion from j at i with tag t after the k-th such send */
	for (size_t r = 0; r < nr; r++) {
		int64_t k[4] = { 0, recvs[r].key[1], recvs[r].key[2], recvs[r].key[3] };
		fifo *sf = find(&sends, &ns, k);
		for (size_t q = 0; q < recvs[r].n; q++)
			if (q < sf->n)
				add(g, sf->v[q], recvs[r].v[q]);
	}
	/* collectives, the k-th of each member: what MPI guarantees of each kind. Barrier and
	 * the all-to-all kinds: every member leaves after every member entered; Bcast and
	 * Scatter: a member leaves after the root entered; Reduce and Gather: the root leaves
	 * after every member entered. */
	for (size_t c = 0; c < nc; c++) {
		if (coll[c].key[2] != DT_SYNC_EXIT)
			continue;
		for (size_t d = 0; d < nc; d++) {
			if (coll[d].key[2] != DT_SYNC_ENTER || coll[d].key[0] != coll[c].key[0])
				continue;
			for (size_t q = 0; q < coll[c].n && q < coll[d].n; q++) {
				const dt_sync_event *out = &s->ev[coll[c].v[q]];
				const dt_sync_event *in = &s->ev[coll[d].v[q]];
				uint32_t f = out->func;
				int all = f == SY_BARRIER || f == SY_ALLREDUCE || f == SY_ALLGATHER ||
					  f == SY_ALLTOALL;
				int from_root = (f == SY_BCAST || f == SY_SCATTER) &&
						in->proc == out->root;
				int to_root = (f == SY_REDUCE || f == SY_GATHER) &&
					      out->proc == out->root;
				if (all || from_root || to_root)
					add(g, coll[d].v[q], coll[c].v[q]);
			}
		}
	}
	/* OpenMP: acquisition m after the release of m - 1 */
	for (size_t a = 0; a < nacq; a++) {
		int64_t k[4] = { acq[a].key[0], acq[a].key[1], acq[a].key[2] - 1, 0 };
		for (size_t r = 0; r < nrel; r++)
			if (!memcmp(rel[r].key, k, sizeof k))
				add(g, rel[r].v[0], acq[a].v[0]);
	}
	/* regions: the fork before every part, every part's end before the join */
	for (size_t f = 0; f < nfork; f++) {
		if (fork[f].key[2] != SY_PARALLEL)
			continue;
		int enter = fork[f].key[3] == DT_SYNC_ENTER;
		int64_t k[4] = { fork[f].key[0], fork[f].key[1], SY_TASK,
				 enter ? DT_SYNC_ENTER : DT_SYNC_EXIT };
		fifo *parts = find(&fork, &nfork, k);
		for (size_t q = 0; q < parts->n; q++)
			add(g, enter ? fork[f].v[0] : parts->v[q], enter ? parts->v[q] : fork[f].v[0]);
	}
	fifo *all[] = { sends, recvs, coll, rel, acq, fork };
	size_t alln[] = { ns, nr, nc, nrel, nacq, nfork };
	for (int t = 0; t < 6; t++) {
		for (size_t i = 0; i < alln[t]; i++)
			free(all[t][i].v);
		free(all[t]);
	}
}

typedef struct outs {
	uint64_t *id;
	size_t n, cap;
} outs;

static void keep(void *ctx, const ord_out *o)
{
	outs *c = ctx;
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 1024;
		c->id = realloc(c->id, c->cap * sizeof *c->id);
	}
	c->id[c->n++] = o->id;
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

/* One random complete run; returns the edges checked. */
static size_t one(const ord_rules *r, uint64_t seed, int policy)
{
	uint64_t g = seed * 0x9e3779b97f4a7c15ull + 7;
	int nproc = 2 + (int)(rnd(&g) % 7), nthr = 1 + (int)(rnd(&g) % 3);
	synth s;
	synth_init(&s, nproc, nthr, 1 + (int)(rnd(&g) % 3), (int64_t)(rnd(&g) % 20000),
		   (int64_t)(rnd(&g) % 20), seed);
	size_t want = 40 + rnd(&g) % 600;
	while (s.n < want)
		synth_round(&s, rnd(&g) % 3 ? -1 : (int)(rnd(&g) % 14));
	uint64_t *arr = malloc(s.n * sizeof *arr);
	synth_arrival(&s, 0, s.n, (int64_t)(rnd(&g) % 100000), arr);
	ord_filter_opts o = { policy, NULL, 0, 0, 0 };
	outs out = { 0 };
	ord_filter *f = ord_filter_new(r, &o, keep, &out);
	int failed = 0;
	for (size_t i = 0; i < s.n && !failed; i++) {
		dt_err e;
		dt_err_clear(&e);
		failed = ord_filter_push(f, &s.ev[arr[i]], arr[i], &e) != 0;
		if (failed)
			fprintf(stderr, "seed %" PRIu64 ": push %zu failed: %s\n", seed, i, e.msg);
	}
	CHECK(!failed);
	ord_filter_drain(f);
	ord_filter_free(f);
	/* every event of a complete run, each once */
	if (out.n != s.n)
		fprintf(stderr, "seed %" PRIu64 " (%s): %zu of %zu events released\n", seed,
			ord_policy_name(policy), out.n, s.n);
	CHECK_EQ_INT(out.n, s.n);
	size_t *pos = malloc(s.n * sizeof *pos);
	for (size_t i = 0; i < s.n; i++)
		pos[i] = SIZE_MAX;
	for (size_t i = 0; i < out.n; i++)
		if (out.id[i] < s.n)
			pos[out.id[i]] = i;
	size_t bad = 0;
	/* program order */
	for (size_t i = 0; i < s.n; i++)
		for (size_t j = i + 1; j < s.n; j++)
			if (s.ev[j].proc == s.ev[i].proc && s.ev[j].thread == s.ev[i].thread) {
				bad += pos[i] == SIZE_MAX || pos[j] == SIZE_MAX || pos[i] > pos[j];
				break;
			}
	edges ge = { 0 };
	causal_edges(&s, &ge);
	for (size_t k = 0; k < ge.n; k++) {
		size_t a = ge.e[k].a, b = ge.e[k].b;
		if (pos[a] == SIZE_MAX || pos[b] == SIZE_MAX || pos[a] > pos[b]) {
			if (!bad)
				fprintf(stderr,
					"seed %" PRIu64 " (%s): %s (%d.%d #%u phase %d) released after "
					"%s (%d.%d #%u phase %d), which must follow it\n",
					seed, ord_policy_name(policy), synth_names[s.ev[a].func],
					s.ev[a].proc, s.ev[a].thread, s.ev[a].seq, s.ev[a].phase,
					synth_names[s.ev[b].func], s.ev[b].proc, s.ev[b].thread,
					s.ev[b].seq, s.ev[b].phase);
			bad++;
		}
	}
	CHECK_EQ_INT(bad, 0);
	size_t ne = ge.n;
	free(ge.e);
	free(pos);
	free(out.id);
	free(arr);
	synth_free(&s);
	return ne;
}

int main(void)
{
	ord_rules *r = shipped();
	size_t edges_seen = 0;
	for (uint64_t seed = 1; seed <= 60; seed++)
		for (int p = 0; p < 3; p++)
			edges_seen += one(r, seed, p);
	/* the reference found edges of every kind to check (a generator that made none would
	 * make this test blind) */
	CHECK(edges_seen > 1000);
	ord_rules_free(r);
	CHECK_DONE();
}
