/* stream.c: the arrival order of stream.h, a k-way merge of the threads' chunk cursors. */
#include "order/stream.h"

#include <stdlib.h>

#include "order/arrival.h"
#include "store/store_sync.h"
#include "store/store_sync_stream.h"
#include "util/util.h"

/* A thread: its current chunk from pos on, and the aligned time of the event at pos (never
 * less than the one before). */
typedef struct cursor {
	int64_t ts;
	int32_t proc, thread;
	size_t k;
	const dt_sync_event *ev;
	size_t pos, n;
} cursor;

struct ord_stream {
	store_sync_stream *ss;
	int64_t *off;
	size_t nhost;
	cursor *h; /* a heap by (ts, proc, thread) */
	size_t nh;
	int popped; /* the top's event was given: advance it at the next call */
	size_t nt;
	const dt_sync_event **tail; /* by trace: events after its last (ord_stream_tail) */
	size_t *ntail;
	unsigned char *intail;
};

static int less(const cursor *x, const cursor *y)
{
	if (x->ts != y->ts)
		return x->ts < y->ts;
	if (x->proc != y->proc)
		return x->proc < y->proc;
	return x->thread < y->thread;
}

static void sift_down(cursor *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		if (l < n && less(&h[l], &h[m]))
			m = l;
		if (l + 1 < n && less(&h[l + 1], &h[m]))
			m = l + 1;
		if (m == i)
			return;
		cursor t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

static int64_t aligned(const ord_stream *st, const dt_sync_event *v)
{
	return v->ts + (v->host >= 0 && (size_t)v->host < st->nhost ? st->off[v->host] : 0);
}

int ord_stream_open(store *s, int64_t run_id, ord_stream **out, dt_err *e)
{
	*out = NULL;
	store_sync_stream *ss;
	if (store_sync_stream_open(s, run_id, &ss, e))
		return -1;
	if (!ss)
		return 0;
	store_sync_clock *ck;
	size_t nck, nt = store_sync_stream_ntraces(ss);
	if (store_sync_clocks(s, run_id, &ck, &nck, e)) {
		store_sync_stream_close(ss);
		return -1;
	}
	ord_stream *st = xcalloc(1, sizeof *st);
	st->ss = ss;
	st->nt = nt;
	st->h = xmalloc(nt * sizeof *st->h);
	/* the host offsets from one stand-in event per thread: ord_host_offsets reads only
	 * their proc, thread and host, in the store's order */
	dt_sync_event *one = xcalloc(nt, sizeof *one);
	for (size_t k = 0; k < nt; k++)
		store_sync_stream_trace(ss, k, &one[k].proc, &one[k].thread, &one[k].host);
	st->off = ord_host_offsets(one, nt, ck, nck, &st->nhost);
	free(one);
	free(ck);
	for (size_t k = 0; k < nt; k++) {
		cursor *c = &st->h[st->nh];
		c->k = k;
		c->pos = 0;
		if (store_sync_stream_next(ss, k, &c->ev, &c->n, e)) {
			ord_stream_close(st);
			return -1;
		}
		if (!c->n)
			continue;
		c->proc = c->ev[0].proc;
		c->thread = c->ev[0].thread;
		c->ts = aligned(st, &c->ev[0]);
		st->nh++;
	}
	for (size_t i = st->nh / 2; i-- > 0;)
		sift_down(st->h, st->nh, i);
	*out = st;
	return 0;
}

void ord_stream_close(ord_stream *st)
{
	if (!st)
		return;
	store_sync_stream_close(st->ss);
	free(st->tail);
	free(st->ntail);
	free(st->intail);
	free(st->off);
	free(st->h);
	free(st);
}

const int64_t *ord_stream_offsets(const ord_stream *st, size_t *nhost)
{
	*nhost = st->nhost;
	return st->off;
}

int ord_stream_next(ord_stream *st, const dt_sync_event **ev, dt_err *e)
{
	*ev = NULL;
	if (st->popped && st->nh) {
		/* the top's next event, from its chunk or the next one */
		cursor *c = &st->h[0];
		st->popped = 0;
		if (++c->pos == c->n) {
			c->pos = 0;
			if (st->intail && st->intail[c->k])
				c->n = 0;
			else if (store_sync_stream_next(st->ss, c->k, &c->ev, &c->n, e))
				return -1;
			if (!c->n && st->ntail && st->ntail[c->k] && !st->intail[c->k]) {
				c->ev = st->tail[c->k];
				c->n = st->ntail[c->k];
				st->intail[c->k] = 1;
			}
		}
		if (c->n) {
			int64_t ts = aligned(st, &c->ev[c->pos]);
			if (ts > c->ts)
				c->ts = ts;
		} else {
			st->h[0] = st->h[--st->nh];
		}
		sift_down(st->h, st->nh, 0);
	}
	if (!st->nh)
		return 0;
	*ev = &st->h[0].ev[st->h[0].pos];
	st->popped = 1;
	return 0;
}

size_t ord_stream_trace(const ord_stream *st)
{
	return st->nh ? st->h[0].k : SIZE_MAX;
}

void ord_stream_tail(ord_stream *st, size_t k, const dt_sync_event *ev, size_t n)
{
	if (k >= st->nt)
		return;
	if (!st->tail) {
		st->tail = xcalloc(st->nt, sizeof *st->tail);
		st->ntail = xcalloc(st->nt, sizeof *st->ntail);
		st->intail = xcalloc(st->nt, 1);
	}
	st->tail[k] = ev;
	st->ntail[k] = n;
}

size_t ord_stream_ntraces(const ord_stream *st)
{
	return st->nt;
}
