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

void ord_arrival(const dt_sync_event *ev, size_t n, const int64_t *off, size_t *idx)
{
	struct akey *k = xmalloc((n ? n : 1) * sizeof *k);
	for (size_t i = 0; i < n; i++)
		k[i] = (struct akey){ ev[i].ts + (ev[i].host >= 0 ? off[ev[i].host] : 0), ev[i].proc,
				      ev[i].thread, ev[i].seq, i };
	qsort(k, n, sizeof *k, by_arrival);
	for (size_t i = 0; i < n; i++)
		idx[i] = k[i].i;
	free(k);
}
