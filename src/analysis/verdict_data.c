/* verdict_data.c: the data and the one-sided arguments of calls that agree (verdict_data.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/hangrank.h"
#include "analysis/verdict_data.h"
#include "order/arrival.h"
#include "order/filter.h"
#include "order/rules.h"
#include "store/store_sync.h"
#include "util/esc.h"
#include "util/util.h"

/* Whether x is of the kind of y, for counting "the 3rd MPI_Send to 2 tag 5". */
static int same_kind(const dt_sync_event *x, const dt_sync_event *y)
{
	return x->func == y->func && x->dest == y->dest && x->stag == y->stag &&
	       x->comm == y->comm;
}

struct reqev {
	uint64_t req;
	size_t k;
};

static int cmp_reqev(const void *p, const void *q)
{
	const struct reqev *a = p, *b = q;
	if (a->req != b->req)
		return a->req < b->req ? -1 : 1;
	return a->k < b->k ? -1 : a->k > b->k;
}

/* The entries of ev (one thread's events) of nonblocking sends whose buffer changed while the
 * send was in flight: with --payload, the completion of a send's request (the exit of its
 * MPI_Wait, or the record of the request in a Waitall ...) carries the digest of the send's
 * buffer then; it differs from the digest at the call. The request's first record after the
 * call is the call's own exit (the request made), its last the completion. NULL when none. */
static uint8_t *inflight(const dt_sync_event *ev, size_t n)
{
	size_t m = 0;
	for (size_t k = 0; k < n; k++)
		m += ev[k].phase != DT_SYNC_ENTER && ev[k].req && ev[k].digest;
	if (m < 2)
		return NULL;
	struct reqev *r = xmalloc(m * sizeof *r);
	m = 0;
	for (size_t k = 0; k < n; k++)
		if (ev[k].phase != DT_SYNC_ENTER && ev[k].req && ev[k].digest)
			r[m++] = (struct reqev){ ev[k].req, k };
	qsort(r, m, sizeof *r, cmp_reqev);
	uint8_t *mark = NULL;
	for (size_t g = 0, h; g < m; g = h) {
		for (h = g + 1; h < m && r[h].req == r[g].req;)
			h++;
		size_t made = r[g].k, done = r[h - 1].k;
		if (h - g < 2 || !made || ev[made - 1].phase != DT_SYNC_ENTER ||
		    ev[made - 1].func != ev[made].func || ev[done].digest == ev[made].digest)
			continue;
		if (!mark)
			mark = xcalloc(n, 1);
		mark[made - 1] = 1;
	}
	free(r);
	return mark;
}

int vd_data_compare(const dt_sync_event *a, size_t na, const dt_sync_event *b, size_t nb,
		    size_t *at, size_t *other, uint64_t *nth)
{
	size_t i = 0, j = 0;
	uint8_t *fa = inflight(a, na), *fb = inflight(b, nb);
	int kind = 0;
	for (;;) {
		while (i < na && a[i].phase != DT_SYNC_ENTER)
			i++;
		while (j < nb && b[j].phase != DT_SYNC_ENTER)
			j++;
		if (i == na || j == nb)
			break;
		kind = !hr_same_call(&a[i], &b[j]) ? 2
		       : a[i].digest && b[j].digest && a[i].digest != b[j].digest ? 1
		       : fb && fb[j] && !(fa && fa[i])				   ? 3
											   : 0;
		if (kind) {
			uint64_t c = 0;
			for (size_t k = 0; k <= j; k++)
				c += b[k].phase == DT_SYNC_ENTER && same_kind(&b[k], &b[j]);
			*at = j;
			*other = i;
			*nth = c;
			break;
		}
		i++;
		j++;
	}
	free(fa);
	free(fb);
	return kind;
}

/* [lo, hi) of the events of (proc, thread) in ev (sorted by proc, thread, seq); lo == hi when
 * none. */
static void span_of(const dt_sync_event *ev, size_t n, int proc, int thread, size_t *lo,
		    size_t *hi)
{
	size_t l = 0, h = n;
	while (l < h) {
		size_t m = l + (h - l) / 2;
		if (ev[m].proc < proc || (ev[m].proc == proc && ev[m].thread < thread))
			l = m + 1;
		else
			h = m;
	}
	size_t e = l;
	while (e < n && ev[e].proc == proc && ev[e].thread == thread)
		e++;
	*lo = l;
	*hi = e;
}

struct mark {
	vd_item *x;
	size_t ev;  /* the changed entry, an index into the faulty run's events */
	int64_t t;  /* its place in causal order (or its time on the common clock) */
};

static int cmp_mark(const void *p, const void *q)
{
	const struct mark *a = p, *b = q;
	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	return a->x->i < b->x->i ? -1 : a->x->i > b->x->i;
}

/* Marks the traces and returns how many; t gets their changed entries' times. */
static size_t mark(const dt_sync_event *en, size_t nn, const dt_sync_event *ef, size_t nf,
		   const int64_t *off, size_t nhost, const rank_key *keys, vd_rank *v,
		   struct mark *m)
{
	size_t nm = 0;
	for (size_t q = 0; q < v->n; q++) {
		vd_item *x = &v->it[q];
		x->data = 0;
		x->data_ord = 0;
		if (x->change != VD_SAME)
			continue;
		rank_key key = keys[x->i];
		size_t an, bn, af, bf, at, other;
		span_of(en, nn, key.proc, key.thread, &an, &bn);
		span_of(ef, nf, key.proc, key.thread, &af, &bf);
		uint64_t nth;
		int kind = vd_data_compare(en + an, bn - an, ef + af, bf - af, &at, &other, &nth);
		if (!kind)
			continue;
		x->data = kind;
		x->d_ef = ef[af + at];
		x->d_en = en[an + other];
		x->d_nth = nth;
		int h = x->d_ef.host;
		m[nm].x = x;
		m[nm].ev = af + at;
		m[nm].t = x->d_ef.ts + (h >= 0 && (size_t)h < nhost ? off[h] : 0);
		nm++;
	}
	return nm;
}

/* The causal order of the faulty run (the shipped rules' causality filter over its events in
 * arrival order, as `order` gives it): each marked entry's t becomes its position there. Left
 * at the recorded clock when the rules cannot be loaded or the entry was never released (a
 * run cut short). */
static void causal(store *s, const dt_sync_event *ef, size_t nf, const int64_t *off,
		   size_t nhost, struct mark *m, size_t nm)
{
	dt_err e;
	dt_err_clear(&e);
	ord_rules *r = ord_rules_new();
	size_t nnames = 0;
	const char *const *names = store_func_names(s, &nnames);
	size_t *idx = xmalloc((nf ? nf : 1) * sizeof *idx);
	dt_sync_event *arr = xmalloc((nf ? nf : 1) * sizeof *arr);
	ord_item *items = NULL;
	size_t nitems = 0;
	ord_arrival(ef, nf, off, idx);
	for (size_t i = 0; i < nf; i++)
		arr[i] = ef[idx[i]];
	ord_filter_opts fo = { ORD_MINIMAL, off, nhost, 0, 0 };
	int ok = !ord_rules_load_default(r, &e) && !ord_rules_bind(r, names, (uint32_t)nnames, &e);
	fo.policy = r->policy;
	if (ok && !ord_order(r, &fo, arr, nf, &items, &nitems, NULL, &e)) {
		/* pos[k]: the place of event k (of ef) in the order, 0 when never released */
		size_t *pos = xcalloc(nf ? nf : 1, sizeof *pos);
		for (size_t j = 0; j < nitems; j++)
			pos[idx[items[j].id]] = j + 1;
		int all = 1;
		for (size_t k = 0; k < nm; k++)
			all = all && pos[m[k].ev];
		for (size_t k = 0; all && k < nm; k++)
			m[k].t = (int64_t)pos[m[k].ev];
		free(pos);
	}
	free(items);
	free(arr);
	free(idx);
	ord_rules_free(r);
}

int vd_data_apply(store *s, int64_t run_normal, int64_t run_faulty, const rank_key *keys,
		  vd_rank *v, dt_err *e)
{
	dt_sync_event *en = NULL, *ef = NULL;
	size_t nn = 0, nf = 0, nck = 0, nhost = 0;
	store_sync_clock *ck = NULL;
	int rc = -1;
	v->ndata = 0;
	if (store_sync_list(s, run_faulty, &ef, &nf, e) ||
	    (nf && store_sync_list(s, run_normal, &en, &nn, e)))
		goto out;
	rc = 0;
	if (!nf || !nn)
		goto out;
	rc = -1;
	if (store_sync_clocks(s, run_faulty, &ck, &nck, e))
		goto out;
	int64_t *off = ord_host_offsets(ef, nf, ck, nck, &nhost);
	struct mark *m = xcalloc(v->n ? v->n : 1, sizeof *m);
	size_t nm = mark(en, nn, ef, nf, off, nhost, keys, v, m);
	if (nm > 1)
		causal(s, ef, nf, off, nhost, m, nm);
	qsort(m, nm, sizeof *m, cmp_mark);
	for (size_t k = 0; k < nm; k++)
		m[k].x->data_ord = k && m[k].t == m[k - 1].t ? m[k - 1].x->data_ord : k + 1;
	v->ndata = nm;
	if (nm)
		vd_order(v->it, v->n);
	free(m);
	free(off);
	rc = (int)nm;
out:
	free(ck);
	free(en);
	free(ef);
	return rc;
}

void vd_data_reason(store *s, const vd_item *it, char *buf, size_t cap)
{
	const dt_sync_event *x = &it->d_ef;
	const char *nm = store_func_name(s, x->func);
	char name[128], peer[64] = "", nth[32], ord[32], args[256];
	esc_str(nm ? nm : "?", name, sizeof name);
	if (x->dest >= 0 && x->stag >= 0)
		snprintf(peer, sizeof peer, " to %" PRId32 " tag %" PRId32, x->dest, x->stag);
	else if (x->dest >= 0)
		snprintf(peer, sizeof peer, " to %" PRId32, x->dest);
	ordinal(it->d_nth, nth, sizeof nth);
	if (it->data_ord == 1)
		snprintf(ord, sizeof ord, "first");
	else
		ordinal(it->data_ord, ord, sizeof ord);
	if (it->data == 1) {
		snprintf(buf, cap, "sent data differs: %s%s, the %s, %s in causal order", name, peer,
			 nth, ord);
		return;
	}
	if (it->data == 3) {
		snprintf(buf, cap,
			 "send buffer written in flight: %s%s, the %s, changed before the send "
			 "completed, %s in causal order",
			 name, peer, nth, ord);
		return;
	}
	hr_event_text(s, x, &it->d_en, args, sizeof args);
	char was[256];
	hr_event_text(s, &it->d_en, x, was, sizeof was);
	snprintf(buf, cap, "arguments differ: %s%s, the %s (%s, normally %s), %s in causal order",
		 name, peer, nth, args, was, ord);
}
