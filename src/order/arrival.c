/* arrival.c: the arrival order of a run's sync events (arrival.h). */
#include <stdlib.h>

#include "order/arrival.h"
#include "util/util.h"

int64_t *ord_host_offsets(const dt_sync_event *ev, size_t n, const store_sync_clock *ck,
			  size_t nck, size_t *nhost)
{
	size_t nh = 0;
	for (size_t i = 0; i < n; i++)
		if (ev[i].host >= 0 && (size_t)ev[i].host + 1 > nh)
			nh = (size_t)ev[i].host + 1;
	int64_t *off = xcalloc(nh ? nh : 1, sizeof *off);
	unsigned char *known = xcalloc(nh ? nh : 1, 1);
	for (size_t i = 0; i < n; i++) {
		int32_t h = ev[i].host;
		if (h < 0 || known[h])
			continue;
		for (size_t k = 0; k < nck; k++)
			if (ck[k].proc == ev[i].proc && ck[k].thread == ev[i].thread &&
			    ck[k].real_ns && ck[k].mono_ns) {
				off[h] = ck[k].real_ns - ck[k].mono_ns;
				known[h] = 1;
				break;
			}
	}
	int64_t base = known[0] ? off[0] : 0;
	for (size_t h = 0; h < nh; h++)
		off[h] = known[h] ? off[h] - base : 0;
	free(known);
	*nhost = nh;
	return off;
}

struct akey {
	int64_t ts; /* aligned */
	int32_t proc, thread;
	uint32_t seq;
	size_t i;
};

/* By aligned timestamp; a thread's own events keep their order. */
static int by_arrival(const void *a, const void *b)
{
	const struct akey *x = a, *y = b;
	if (x->proc == y->proc && x->thread == y->thread)
		return x->seq < y->seq ? -1 : x->seq > y->seq;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	return x->thread < y->thread ? -1 : 1;
}

/* A thread's events from b to e, in seq order, and the aligned time of the one at b. */
struct run {
	size_t b, e;
	int64_t ts;
	int32_t proc, thread;
};

static int run_less(const struct run *x, const struct run *y)
{
	if (x->ts != y->ts)
		return x->ts < y->ts;
	if (x->proc != y->proc)
		return x->proc < y->proc;
	return x->thread < y->thread;
}

static void sift_down(struct run *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		if (l < n && run_less(&h[l], &h[m]))
			m = l;
		if (l + 1 < n && run_less(&h[l + 1], &h[m]))
			m = l + 1;
		if (m == i)
			return;
		struct run t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

/* The common case, as the store gives the events: sorted by thread and seq, each thread's
 * aligned times never going back. Then by_arrival is a total order that agrees with each
 * thread's order, and merging the threads by their heads' (time, proc, thread) gives the same
 * order as the sort, in O(n log threads). 0 when the input is not of that shape. */
static int merge_threads(const dt_sync_event *ev, size_t n, const int64_t *off, size_t *idx)
{
	struct run *h = NULL;
	size_t nh = 0, cap = 0;
	int64_t prev = 0;
	for (size_t i = 0; i < n; i++) {
		int64_t ts = ev[i].ts + (ev[i].host >= 0 ? off[ev[i].host] : 0);
		if (i && ev[i].proc == ev[i - 1].proc && ev[i].thread == ev[i - 1].thread) {
			if (ev[i].seq <= ev[i - 1].seq || ts < prev) {
				free(h);
				return 0;
			}
		} else {
			if (i && (ev[i].proc < ev[i - 1].proc ||
				  (ev[i].proc == ev[i - 1].proc && ev[i].thread < ev[i - 1].thread))) {
				free(h);
				return 0; /* a thread seen again later: not one run per thread */
			}
			if (nh)
				h[nh - 1].e = i;
			GROW(h, cap, nh + 1);
			h[nh++] = (struct run){ i, n, ts, ev[i].proc, ev[i].thread };
		}
		prev = ts;
	}
	for (size_t i = nh / 2; i-- > 0;)
		sift_down(h, nh, i);
	for (size_t k = 0; nh; k++) {
		struct run *r = &h[0];
		idx[k] = r->b++;
		if (r->b < r->e)
			r->ts = ev[r->b].ts + (ev[r->b].host >= 0 ? off[ev[r->b].host] : 0);
		else
			h[0] = h[--nh];
		sift_down(h, nh, 0);
	}
	free(h);
	return 1;
}

void ord_arrival(const dt_sync_event *ev, size_t n, const int64_t *off, size_t *idx)
{
	if (merge_threads(ev, n, off, idx))
		return;
	struct akey *k = xmalloc((n ? n : 1) * sizeof *k);
	for (size_t i = 0; i < n; i++)
		k[i] = (struct akey){ ev[i].ts + (ev[i].host >= 0 ? off[ev[i].host] : 0), ev[i].proc,
				      ev[i].thread, ev[i].seq, i };
	qsort(k, n, sizeof *k, by_arrival);
	for (size_t i = 0; i < n; i++)
		idx[i] = k[i].i;
	free(k);
}
