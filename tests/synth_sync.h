/* synth_sync.h: synthetic runs of sync events for the order tests and benchmark.
 *
 * A run is simulated on one true clock (microseconds) in rounds, each round one pattern: blocking
 * point to point with wildcard receives, a nonblocking ring completed by Waitall (done records),
 * Irecv(ANY_SOURCE) completed by Wait, each collective kind, and OpenMP regions with a critical
 * section or a lock taken by every thread. Every causal dependency is strictly later on the true
 * clock. The recorded timestamps are then the true time seen through each host's clock, with a
 * skew and a drift per host; arrival orders are made from them with bounded random delays. */
#ifndef DT_SYNTH_SYNC_H
#define DT_SYNTH_SYNC_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "import/sync_event.h"

enum {
	SY_SEND, SY_RECV, SY_ISEND, SY_IRECV, SY_WAITALL, SY_WAIT, SY_BARRIER, SY_ALLREDUCE,
	SY_ALLGATHER, SY_ALLTOALL, SY_BCAST, SY_SCATTER, SY_REDUCE, SY_GATHER, SY_PARALLEL,
	SY_TASK, SY_CRIT_START, SY_CRIT_END, SY_SET_LOCK, SY_UNSET_LOCK, SY_NFUNC
};
static const char *const synth_names[SY_NFUNC] = {
	"MPI_Send", "MPI_Recv", "MPI_Isend", "MPI_Irecv", "MPI_Waitall", "MPI_Wait", "MPI_Barrier",
	"MPI_Allreduce", "MPI_Allgather", "MPI_Alltoall", "MPI_Bcast", "MPI_Scatter", "MPI_Reduce",
	"MPI_Gather", "GOMP_parallel", "GOMP_parallel_body", "GOMP_critical_start",
	"GOMP_critical_end", "omp_set_lock", "omp_unset_lock",
};

typedef struct synth {
	int nproc, nthr, per_host;
	int64_t skew_ns;       /* host h's clock is off by up to this (deterministic per host) */
	int64_t drift_ppm;     /* and runs fast or slow by up to this */
	uint64_t rng;
	dt_sync_event *ev;
	int64_t *tt;           /* true time of each event, ns */
	size_t n, cap;
	uint32_t *seq;         /* per trace */
	uint64_t *objseq;      /* per process: critical, lock, region instances */
	uint64_t *req;         /* per process */
	int64_t T;             /* true clock, us */
	int round;
} synth;

static inline uint64_t synth_rand(synth *s)
{
	s->rng ^= s->rng << 13;
	s->rng ^= s->rng >> 7;
	s->rng ^= s->rng << 17;
	return s->rng;
}

static inline void synth_init(synth *s, int nproc, int nthr, int per_host, int64_t skew_ns,
			      int64_t drift_ppm, uint64_t seed)
{
	memset(s, 0, sizeof *s);
	s->nproc = nproc;
	s->nthr = nthr;
	s->per_host = per_host;
	s->skew_ns = skew_ns;
	s->drift_ppm = drift_ppm;
	s->rng = seed * 2654435761u + 88172645463325252ull;
	s->seq = calloc((size_t)nproc * (size_t)nthr, sizeof *s->seq);
	s->objseq = calloc((size_t)nproc * 4, sizeof *s->objseq);
	s->req = calloc((size_t)nproc, sizeof *s->req);
	s->T = 10;
}

static inline void synth_free(synth *s)
{
	free(s->ev);
	free(s->tt);
	free(s->seq);
	free(s->objseq);
	free(s->req);
}

/* The recorded timestamp of true time t (us) on host h. */
static inline int64_t synth_clock(const synth *s, int h, int64_t t_us)
{
	uint64_t x = (uint64_t)h * 0x9e3779b97f4a7c15ull + 12345;
	x ^= x >> 29;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 32;
	int64_t skew = s->skew_ns ? (int64_t)(x % (uint64_t)(2 * s->skew_ns + 1)) - s->skew_ns : 0;
	int64_t ppm = s->drift_ppm ? (int64_t)((x >> 20) % (uint64_t)(2 * s->drift_ppm + 1)) - s->drift_ppm : 0;
	int64_t ns = t_us * 1000;
	return ns + ns / 1000000 * ppm + skew + 1000000000ll;
}

static inline dt_sync_event *synth_ev(synth *s, int p, int t, int func, int phase, int64_t t_us)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 4096;
		s->ev = realloc(s->ev, s->cap * sizeof *s->ev);
		s->tt = realloc(s->tt, s->cap * sizeof *s->tt);
	}
	dt_sync_event *e = &s->ev[s->n];
	s->tt[s->n++] = t_us * 1000;
	memset(e, 0, sizeof *e);
	e->proc = p;
	e->thread = t;
	e->seq = s->seq[(size_t)p * (size_t)s->nthr + (size_t)t]++;
	e->phase = (uint8_t)phase;
	e->func = (uint32_t)func;
	e->host = p / s->per_host;
	e->ts = synth_clock(s, e->host, t_us);
	e->comm = e->dest = e->stag = e->src = e->rtag = e->root = DT_SYNC_NONE;
	e->datatype = e->op = DT_SYNC_NONE;
	e->team = e->tnum = DT_SYNC_NONE;
	return e;
}

static inline void synth_call(synth *s, int p, int t, int func, int64_t t_in, int64_t t_out,
			      dt_sync_event *tmpl)
{
	dt_sync_event *a = synth_ev(s, p, t, func, DT_SYNC_ENTER, t_in);
	uint32_t sq = a->seq;
	int64_t ts = a->ts;
	*a = *tmpl;
	a->proc = p, a->thread = t, a->seq = sq, a->ts = ts, a->func = (uint32_t)func, a->host = p / s->per_host;
	a->phase = DT_SYNC_ENTER;
	dt_sync_event *b = synth_ev(s, p, t, func, DT_SYNC_EXIT, t_out);
	sq = b->seq;
	ts = b->ts;
	*b = *tmpl;
	b->proc = p, b->thread = t, b->seq = sq, b->ts = ts, b->func = (uint32_t)func, b->host = p / s->per_host;
	b->phase = DT_SYNC_EXIT;
}

static inline dt_sync_event synth_tmpl(void)
{
	dt_sync_event e;
	memset(&e, 0, sizeof e);
	e.comm = e.dest = e.stag = e.src = e.rtag = e.root = DT_SYNC_NONE;
	e.datatype = e.op = DT_SYNC_NONE;
	e.team = e.tnum = DT_SYNC_NONE;
	return e;
}

/* One round of the run; `kind` picks the pattern (0..13), -1 for the round's turn (0..12:
 * 13, two tags on one channel received in the other order, only when asked for, so that the
 * runs of the tests that take turns stay what they were). */
static inline void synth_round(synth *s, int kind)
{
	int P = s->nproc;
	int64_t T = s->T;
	if (kind < 0)
		kind = s->round % 13;
	s->round++;
	if (kind == 0) { /* blocking exchange between pairs, the receive with wildcards */
		for (int i = 0; i + 1 < P; i += 2) {
			int lo = i, hi = i + 1;
			dt_sync_event x = synth_tmpl();
			x.comm = 0, x.dest = hi, x.stag = 5, x.count = 4;
			synth_call(s, lo, 0, SY_SEND, T + 1, T + 3, &x);
			x = synth_tmpl();
			x.comm = 0, x.src = DT_SYNC_ANY_SOURCE, x.rtag = DT_SYNC_ANY_TAG;
			synth_call(s, lo, 0, SY_RECV, T + 4, T + 8, &x);
			s->ev[s->n - 1].src = hi, s->ev[s->n - 1].rtag = 6;
			x = synth_tmpl();
			x.comm = 0, x.src = DT_SYNC_ANY_SOURCE, x.rtag = 5;
			synth_call(s, hi, 0, SY_RECV, T + 1, T + 4, &x);
			s->ev[s->n - 1].src = lo;
			x = synth_tmpl();
			x.comm = 0, x.dest = lo, x.stag = 6;
			synth_call(s, hi, 0, SY_SEND, T + 5, T + 6, &x);
		}
		s->T += 10;
	} else if (kind == 13) { /* two tags on one channel, received in the other order: sends
				   * of tag 21 then 22 that complete at once, receives of 22 then 21 */
		for (int i = 0; i + 1 < P; i += 2) {
			int lo = i, hi = i + 1;
			dt_sync_event x = synth_tmpl();
			x.comm = 0, x.dest = hi, x.stag = 21, x.count = 2;
			synth_call(s, lo, 0, SY_SEND, T + 1, T + 2, &x);
			x.stag = 22;
			synth_call(s, lo, 0, SY_SEND, T + 3, T + 4, &x);
			x = synth_tmpl();
			x.comm = 0, x.src = lo, x.rtag = 22, x.count = 2;
			synth_call(s, hi, 0, SY_RECV, T + 1, T + 5, &x);
			x.rtag = 21;
			synth_call(s, hi, 0, SY_RECV, T + 6, T + 7, &x);
		}
		s->T += 10;
	} else if (kind == 1 || kind == 2) { /* ring: Irecv + Isend + Waitall, or Irecv + Send + Wait */
		for (int i = 0; i < P; i++) {
			int prev = (i + P - 1) % P, next = (i + 1) % P;
			uint64_t r1 = ++s->req[i], r2 = ++s->req[i];
			dt_sync_event x = synth_tmpl();
			x.comm = 0, x.src = kind == 2 ? DT_SYNC_ANY_SOURCE : prev, x.rtag = 7;
			synth_call(s, i, 0, SY_IRECV, T + 1, T + 2, &x);
			s->ev[s->n - 1].req = r1;
			x = synth_tmpl();
			x.comm = 0, x.dest = next, x.stag = 7;
			synth_call(s, i, 0, kind == 1 ? SY_ISEND : SY_SEND, T + 3, T + 4, &x);
			if (kind == 1)
				s->ev[s->n - 1].req = r2;
			x = synth_tmpl();
			if (kind == 1) {
				synth_call(s, i, 0, SY_WAITALL, T + 5, T + 9, &x);
				dt_sync_event *d = synth_ev(s, i, 0, SY_WAITALL, DT_SYNC_DONE, T + 9);
				d->req = r1, d->src = prev, d->rtag = 7;
				d = synth_ev(s, i, 0, SY_WAITALL, DT_SYNC_DONE, T + 9);
				d->req = r2;
			} else {
				synth_call(s, i, 0, SY_WAIT, T + 5, T + 9, &x);
				s->ev[s->n - 1].req = r1, s->ev[s->n - 1].src = prev, s->ev[s->n - 1].rtag = 7;
			}
		}
		s->T += 12;
	} else if (kind <= 10) { /* collectives */
		static const int fn[] = { SY_BARRIER, SY_ALLREDUCE, SY_ALLGATHER, SY_ALLTOALL,
					  SY_BCAST, SY_SCATTER, SY_REDUCE, SY_GATHER };
		int f = fn[kind - 3], root = s->round % P;
		int64_t late = 0;
		int64_t *in = malloc((size_t)P * sizeof *in);
		for (int i = 0; i < P; i++) {
			in[i] = T + 1 + (int64_t)(synth_rand(s) % 4);
			if (in[i] > late)
				late = in[i];
		}
		for (int i = 0; i < P; i++) {
			dt_sync_event x = synth_tmpl();
			x.comm = 0, x.csize = P, x.count = 8;
			if (f >= SY_BCAST)
				x.root = root;
			/* rooted ones can leave earlier: after the root, or (the root of Reduce/Gather)
			 * after all; keep it simple and true: everyone leaves after every entry */
			synth_call(s, i, 0, f, in[i], late + 2 + (int64_t)(synth_rand(s) % 3), &x);
		}
		free(in);
		s->T += 10;
	} else { /* OpenMP region with a critical section (11) or a lock (12) taken by all */
		int nt = s->nthr;
		for (int i = 0; i < P; i++) {
			uint64_t inst = ++s->objseq[(size_t)i * 4 + 2];
			dt_sync_event x = synth_tmpl();
			x.obj = 0x100, x.objseq = inst, x.team = nt, x.tnum = 0;
			dt_sync_event *fk = synth_ev(s, i, 0, SY_PARALLEL, DT_SYNC_ENTER, T + 1);
			fk->obj = 0x100, fk->objseq = inst, fk->team = nt, fk->tnum = 0;
			int *perm = malloc((size_t)nt * sizeof *perm);
			for (int t = 0; t < nt; t++)
				perm[t] = t;
			for (int t = nt - 1; t > 0; t--) {
				int j = (int)(synth_rand(s) % (uint64_t)(t + 1)), tmp = perm[t];
				perm[t] = perm[j];
				perm[j] = tmp;
			}
			int64_t *k_of = malloc((size_t)nt * sizeof *k_of);
			for (int k = 0; k < nt; k++)
				k_of[perm[k]] = k;
			uint64_t obj = kind == 11 ? 0x300 : 0x200;
			int fs = kind == 11 ? SY_CRIT_START : SY_SET_LOCK, fe = kind == 11 ? SY_CRIT_END : SY_UNSET_LOCK;
			uint64_t base = s->objseq[(size_t)i * 4 + (kind == 11 ? 0 : 1)];
			for (int t = 0; t < nt; t++) {
				int64_t k = k_of[t];
				if (t > 0) {
					dt_sync_event *b = synth_ev(s, i, t, SY_TASK, DT_SYNC_ENTER, T + 2);
					b->obj = 0x100, b->objseq = inst, b->team = nt, b->tnum = t;
				}
				dt_sync_event y = synth_tmpl();
				y.obj = obj, y.objseq = base + (uint64_t)k + 1;
				synth_call(s, i, t, fs, T + 3, T + 4 + 3 * k, &y);
				synth_call(s, i, t, fe, T + 5 + 3 * k, T + 6 + 3 * k, &y);
				if (t > 0) {
					dt_sync_event *b = synth_ev(s, i, t, SY_TASK, DT_SYNC_EXIT, T + 8 + 3 * nt);
					b->obj = 0x100, b->objseq = inst, b->team = nt, b->tnum = t;
				}
			}
			s->objseq[(size_t)i * 4 + (kind == 11 ? 0 : 1)] += (uint64_t)nt;
			dt_sync_event *jn = synth_ev(s, i, 0, SY_PARALLEL, DT_SYNC_EXIT, T + 10 + 3 * nt);
			jn->obj = 0x100, jn->objseq = inst, jn->team = nt, jn->tnum = 0;
			(void)x;
			free(perm);
			free(k_of);
		}
		s->T += 12 + 3 * nt;
	}
}

/* An arrival order of events [from, to): each event is seen after its recorded timestamp plus
 * a random delay of up to max_delay_ns (never before its thread's previous event), as when the
 * streams of many hosts are merged. Writes to order[0 .. to-from) absolute indices. */
typedef struct synth_key {
	int64_t k;
	uint64_t i;
} synth_key;

static inline int synth_key_cmp(const void *a, const void *b)
{
	const synth_key *x = a, *y = b;
	if (x->k != y->k)
		return x->k < y->k ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

static inline void synth_arrival(synth *s, size_t from, size_t to, int64_t max_delay_ns,
				 uint64_t *order)
{
	size_t n = to - from, nt = (size_t)s->nproc * (size_t)s->nthr;
	synth_key *k = malloc((n ? n : 1) * sizeof *k);
	int64_t *last = malloc(nt * sizeof *last);
	for (size_t i = 0; i < nt; i++)
		last[i] = INT64_MIN;
	for (size_t i = 0; i < n; i++) {
		const dt_sync_event *e = &s->ev[from + i];
		size_t t = (size_t)e->proc * (size_t)s->nthr + (size_t)e->thread;
		int64_t a = e->ts + (max_delay_ns ? (int64_t)(synth_rand(s) % (uint64_t)max_delay_ns) : 0);
		if (a < last[t])
			a = last[t];
		last[t] = a;
		k[i] = (synth_key){ a, from + i };
	}
	qsort(k, n, sizeof *k, synth_key_cmp);
	for (size_t i = 0; i < n; i++)
		order[i] = k[i].i;
	free(k);
	free(last);
}

/* The true order (a valid one): by true time, then as generated. */
static inline void synth_true_order(synth *s, uint64_t *order)
{
	synth_key *k = malloc((s->n ? s->n : 1) * sizeof *k);
	for (size_t i = 0; i < s->n; i++)
		k[i] = (synth_key){ s->tt[i], i };
	qsort(k, s->n, sizeof *k, synth_key_cmp);
	for (size_t i = 0; i < s->n; i++)
		order[i] = k[i].i;
	free(k);
}

#endif
