/* hangrank.c: the hang-safe record's evidence for the ranking of a hung run (see hangrank.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/hangrank.h"
#include "import/sync_file.h"
#include "order/hang.h"
#include "order/hangscan.h"
#include "order/stream.h"
#include "store/store_sync.h"
#include "store/store_sync_stream.h"
#include "util/esc.h"
#include "util/util.h"

/* The fields that identify a call across runs. Not the request, the object (a per-process
 * address), the timestamps or an exit's actual source: those differ between correct runs. */
#define HR_NFIELDS 12
static int64_t field(const dt_sync_event *x, size_t k)
{
	switch (k) {
	case 0: return x->comm;
	case 1: return x->dest;
	case 2: return x->stag;
	case 3: return x->src;
	case 4: return x->rtag;
	case 5: return x->root;
	case 6: return x->count;
	case 7: return x->datatype;
	case 8: return x->op;
	case 9: return x->disp;
	case 10: return x->rassert;
	default: return x->lock;
	}
}

const char *hr_field_name(size_t k)
{
	static const char *const n[HR_NFIELDS] = { "comm", "dest",  "tag",	"source",
						   "tag",  "root",  "count",	"datatype",
						   "op",   "disp",  "assert",	"lock" };
	return k < HR_NFIELDS ? n[k] : "?";
}

/* An entry with none of the fields (as a call without arguments has it): an OTF2 archive
 * writes a receive's source and tag and a collective's communicator when the call completes,
 * so the entry of one that never returned has none of them. It is compared by its call. */
static int bare(const dt_sync_event *x)
{
	for (size_t k = 0; k < HR_NFIELDS; k++)
		if (field(x, k) != (k < 9 ? DT_SYNC_NONE : 0))
			return 0;
	return 1;
}

/* The same call, an argument of it changed as every thread changed it (c) aside; an entry
 * without arguments (bare) is the same as any of its call. */
static int same_call_but(const dt_sync_event *a, const dt_sync_event *b, const ac_set *c)
{
	if (a->func != b->func)
		return 0;
	if (bare(a) || bare(b))
		return 1;
	for (size_t k = 0; k < HR_NFIELDS; k++) {
		int64_t x = field(a, k), y = field(b, k);
		if (x != y && !ac_is_common(c, a->func, k, x, y))
			return 0;
	}
	return 1;
}

int hr_same_call(const dt_sync_event *a, const dt_sync_event *b)
{
	return same_call_but(a, b, NULL);
}

/* The entries of a thread's events, as indices. */
static size_t entries(const dt_sync_event *ev, size_t n, size_t *out)
{
	size_t m = 0;
	for (size_t k = 0; k < n; k++)
		if (ev[k].phase == DT_SYNC_ENTER)
			out[m++] = k;
	return m;
}

void hr_compare(const dt_sync_event *a, size_t na, const dt_sync_event *b, size_t nb,
		hr_thread *t)
{
	hr_compare_but(a, na, b, nb, NULL, t);
}

/* The arguments of the calls a thread makes as its counterpart does, up to the first other
 * call, into seen (argchange.h). */
static void see_args(const dt_sync_event *a, size_t na, const dt_sync_event *b, size_t nb,
		     size_t trace, ac_set *seen)
{
	size_t i = 0, j = 0;
	for (;;) {
		while (i < na && a[i].phase != DT_SYNC_ENTER)
			i++;
		while (j < nb && b[j].phase != DT_SYNC_ENTER)
			j++;
		if (i == na || j == nb || a[i].func != b[j].func)
			return;
		for (size_t k = 0; k < HR_NFIELDS && !bare(&a[i]) && !bare(&b[j]); k++)
			ac_see(seen, a[i].func, k, field(&a[i], k), field(&b[j], k), trace, 0);
		i++;
		j++;
	}
}

void hr_compare_but(const dt_sync_event *a, size_t na, const dt_sync_event *b, size_t nb,
		    const ac_set *c, hr_thread *t)
{
	size_t *ia = xcalloc(na ? na : 1, sizeof *ia), *ib = xcalloc(nb ? nb : 1, sizeof *ib);
	size_t ma = entries(a, na, ia), mb = entries(b, nb, ib);
	size_t pre = 0, lim = ma < mb ? ma : mb;
	while (pre < lim && same_call_but(&a[ia[pre]], &b[ib[pre]], c))
		pre++;
	t->at = pre;
	t->nn = ma;
	t->nf = mb;
	memset(&t->en, 0, sizeof t->en);
	memset(&t->ef, 0, sizeof t->ef);
	if (pre < ma)
		t->en = a[ia[pre]];
	if (pre < mb)
		t->ef = b[ib[pre]];
	t->cmp = pre == ma && pre == mb ? HR_SAME : pre == mb ? HR_PREFIX : HR_DIVERGED;
	free(ia);
	free(ib);
}

/* [lo, hi) of each thread's events in ev (sorted by proc, thread, seq) */
typedef struct span {
	int32_t proc, thread;
	size_t lo, hi;
} span;

static size_t spans(const dt_sync_event *ev, size_t n, span **out)
{
	size_t m = 0, cap = 0;
	*out = NULL;
	for (size_t k = 0; k < n;) {
		size_t j = k;
		while (j < n && ev[j].proc == ev[k].proc && ev[j].thread == ev[k].thread)
			j++;
		if (m == cap) {
			cap = cap ? 2 * cap : 16;
			*out = xrealloc(*out, cap * sizeof **out);
		}
		(*out)[m++] = (span){ ev[k].proc, ev[k].thread, k, j };
		k = j;
	}
	return m;
}

/* Each thread's state at the end from the faulty run's hang report (ev: the events its
 * indices refer to): the wait-for graph's edges into and out of it, its call and where the
 * program made it. rep->threads is in P.T order, as out->t. */
static void hr_ends(const hang_report *rep, const dt_sync_event *ev, const store_sites *sites,
		    hr_info *out)
{
	size_t *in = xcalloc(rep->nthreads ? rep->nthreads : 1, sizeof *in);
	unsigned char *outd = xcalloc(rep->nthreads ? rep->nthreads : 1, 1);
	for (size_t k = 0; k < rep->nedges; k++)
		if (rep->edges[k].from != rep->edges[k].to) {
			in[rep->edges[k].to]++;
			outd[rep->edges[k].from] = 1;
		}
	size_t r = 0;
	for (size_t k = 0; k < out->n; k++) {
		hr_thread *t = &out->t[k];
		while (r < rep->nthreads && (rep->threads[r].proc < t->proc ||
					     (rep->threads[r].proc == t->proc &&
					      rep->threads[r].thread < t->thread)))
			r++;
		if (r == rep->nthreads || rep->threads[r].proc != t->proc ||
		    rep->threads[r].thread != t->thread)
			continue;
		t->waiters = in[r];
		t->waits = outd[r];
		t->state = rep->threads[r].state;
		t->func = rep->threads[r].func;
		t->occurrence = rep->threads[r].occurrence;
		char b[1800];
		const store_site *site =
			t->func ? store_site_get(sites, ev[rep->threads[r].entry].site) : NULL;
		if (site) {
			esc_str(store_site_str(site, b, sizeof b), t->where, sizeof t->where);
			t->site = ev[rep->threads[r].entry].site;
		}
	}
	free(in);
	free(outd);
}

static int hung(const hang_report *rep)
{
	for (size_t k = 0; k < rep->nthreads; k++)
		if (rep->threads[k].state == HANG_IN_CALL)
			return 1;
	return 0;
}

int hr_build_whole(store *s, int64_t run_normal, int64_t run_faulty, hr_info *out, dt_err *e)
{
	memset(out, 0, sizeof *out);
	dt_sync_event *en = NULL, *ef = NULL;
	size_t nn = 0, nf = 0;
	if (store_sync_list(s, run_faulty, &ef, &nf, e))
		return -1;
	if (!nf)
		return 0;
	if (store_sync_list(s, run_normal, &en, &nn, e)) {
		free(ef);
		return -1;
	}
	if (!nn) {
		free(ef);
		return 0;
	}
	size_t nnames = 0;
	const char *const *names = store_func_names(s, &nnames);
	hang_report rep;
	if (hang_analyze(ef, nf, names, nnames, &rep, e)) {
		free(en);
		free(ef);
		return -1;
	}
	store_sites sites = { 0 };
	int rc = 0;
	if (hung(&rep) && !(rc = store_sync_sites(s, run_faulty, &sites, e))) {
		span *sn, *sf;
		size_t mn = spans(en, nn, &sn), mf = spans(ef, nf, &sf);
		out->t = xcalloc(mf ? mf : 1, sizeof *out->t);
		/* the arguments every thread changed alike (a changed input), then the comparison
		 * with them left out */
		ac_set seen = { 0 };
		for (int pass = 0; pass < 2; pass++) {
			size_t a = 0;
			for (size_t b = 0; b < mf; b++) {
				while (a < mn &&
				       (sn[a].proc < sf[b].proc ||
					(sn[a].proc == sf[b].proc && sn[a].thread < sf[b].thread)))
					a++;
				if (a == mn || sn[a].proc != sf[b].proc ||
				    sn[a].thread != sf[b].thread)
					continue;
				const dt_sync_event *x = en + sn[a].lo, *y = ef + sf[b].lo;
				size_t nx = sn[a].hi - sn[a].lo, ny = sf[b].hi - sf[b].lo;
				if (!pass) {
					see_args(x, nx, y, ny, b, &seen);
					continue;
				}
				hr_thread *t = &out->t[out->n++];
				t->proc = sf[b].proc;
				t->thread = sf[b].thread;
				hr_compare_but(x, nx, y, ny, &out->args, t);
			}
			if (!pass)
				ac_decide(&seen, &out->args);
		}
		hr_ends(&rep, ef, &sites, out);
		free(sn);
		free(sf);
	}
	store_sites_free(&sites);
	hang_report_free(&rep);
	free(en);
	free(ef);
	return rc ? -1 : 0;
}

/* A thread's events streamed: the traces [k, end) of a run's stream, which are that thread
 * (store_sync_list puts them one after the other, in the same order). */
typedef struct cursor {
	store_sync_stream *ss;
	size_t k, end;
	const dt_sync_event *ev;
	size_t n, i;
} cursor;

/* The traces of ss from k on that are one thread: *end past them. */
static void thread_of(const store_sync_stream *ss, size_t k, int32_t *proc, int32_t *thread,
		      size_t *end)
{
	int32_t host, p, t;
	store_sync_stream_trace(ss, k, proc, thread, &host);
	size_t j = k + 1, nt = store_sync_stream_ntraces(ss);
	while (j < nt) {
		store_sync_stream_trace(ss, j, &p, &t, &host);
		if (p != *proc || t != *thread)
			break;
		j++;
	}
	*end = j;
}

/* The thread's next entry (*out NULL at its end): it points into the stream, valid until the
 * next call. */
static int next_entry(cursor *c, const dt_sync_event **out, dt_err *e)
{
	for (;;) {
		while (c->i < c->n) {
			const dt_sync_event *v = &c->ev[c->i++];
			if (v->phase == DT_SYNC_ENTER) {
				*out = v;
				return 0;
			}
		}
		*out = NULL;
		if (c->k == c->end)
			return 0;
		if (store_sync_stream_next(c->ss, c->k, &c->ev, &c->n, e))
			return -1;
		c->i = 0;
		if (!c->n)
			c->k++;
	}
}

/* see_args of two threads streamed (a normal, b faulty), into seen. */
static int see_stream(cursor *a, cursor *b, size_t trace, ac_set *seen, dt_err *e)
{
	const dt_sync_event *x, *y;
	for (;;) {
		if (next_entry(a, &x, e) || next_entry(b, &y, e))
			return -1;
		if (!x || !y || x->func != y->func)
			return 0;
		for (size_t k = 0; k < HR_NFIELDS && !bare(x) && !bare(y); k++)
			ac_see(seen, x->func, k, field(x, k), field(y, k), trace, 0);
	}
}

/* hr_compare_but of two threads streamed (a normal, b faulty; c the arguments every thread
 * changed alike): the entries in common at the start, the first that differ, how many each
 * has. */
static int compare_stream(cursor *a, cursor *b, const ac_set *c, hr_thread *t, dt_err *e)
{
	const dt_sync_event *x, *y;
	uint64_t pre = 0;
	for (;;) {
		if (next_entry(a, &x, e) || next_entry(b, &y, e))
			return -1;
		if (!x || !y || !same_call_but(x, y, c))
			break;
		pre++;
	}
	memset(&t->en, 0, sizeof t->en);
	memset(&t->ef, 0, sizeof t->ef);
	uint64_t ma = pre, mb = pre;
	if (x)
		t->en = *x;
	if (y)
		t->ef = *y;
	for (; x; ma++)
		if (next_entry(a, &x, e))
			return -1;
	for (; y; mb++)
		if (next_entry(b, &y, e))
			return -1;
	t->at = pre;
	t->nn = ma;
	t->nf = mb;
	t->cmp = pre == ma && pre == mb ? HR_SAME : pre == mb ? HR_PREFIX : HR_DIVERGED;
	return 0;
}

/* Each thread of the faulty run with a counterpart in the normal one, a chunk at a time: with
 * seen, their arguments into it (see_args), else compared (with out->args left out). */
static int pair_runs(store *s, int64_t run_normal, int64_t run_faulty, ac_set *seen,
		     hr_info *out, dt_err *e)
{
	store_sync_stream *sn, *sf;
	if (store_sync_stream_open(s, run_normal, &sn, e))
		return -1;
	if (store_sync_stream_open(s, run_faulty, &sf, e)) {
		store_sync_stream_close(sn);
		return -1;
	}
	size_t nf = sf ? store_sync_stream_ntraces(sf) : 0;
	size_t nn = sn ? store_sync_stream_ntraces(sn) : 0, cap = 0;
	size_t a = 0, aend = 0;
	int32_t ap = 0, at = 0;
	if (nn)
		thread_of(sn, 0, &ap, &at, &aend);
	int rc = 0;
	for (size_t b = 0, bend; !rc && b < nf; b = bend) {
		int32_t bp, bt;
		thread_of(sf, b, &bp, &bt, &bend);
		while (a < nn && (ap < bp || (ap == bp && at < bt)) && (a = aend) < nn)
			thread_of(sn, a, &ap, &at, &aend);
		if (a == nn || ap != bp || at != bt)
			continue;
		cursor ca = { sn, a, aend, NULL, 0, 0 }, cb = { sf, b, bend, NULL, 0, 0 };
		if (seen) {
			rc = see_stream(&ca, &cb, b, seen, e);
			continue;
		}
		GROW(out->t, cap, out->n + 1);
		hr_thread *t = &out->t[out->n++];
		memset(t, 0, sizeof *t);
		t->proc = bp;
		t->thread = bt;
		rc = compare_stream(&ca, &cb, &out->args, t, e);
	}
	store_sync_stream_close(sf);
	store_sync_stream_close(sn);
	return rc;
}

/* The arguments every thread changed alike (a changed input), then the comparison with them
 * left out: two passes over both runs, as hr_build_whole makes them over the whole records. */
static int compare_runs(store *s, int64_t run_normal, int64_t run_faulty, hr_info *out,
			dt_err *e)
{
	ac_set seen = { 0 };
	int rc = pair_runs(s, run_normal, run_faulty, &seen, out, e);
	if (!rc)
		ac_decide(&seen, &out->args);
	ac_free(&seen);
	return rc ? rc : pair_runs(s, run_normal, run_faulty, NULL, out, e);
}

/* The comparison after the faulty run's report, with the normal run's stream open. */
static int build(store *s, int64_t run_normal, int64_t run_faulty, const hang_report *rep,
		 const dt_sync_event *ev, hr_info *out, dt_err *e)
{
	if (!hung(rep))
		return 0;
	store_sites sites = { 0 };
	if (store_sync_sites(s, run_faulty, &sites, e))
		return -1;
	int rc = compare_runs(s, run_normal, run_faulty, out, e);
	if (!rc)
		hr_ends(rep, ev, &sites, out);
	else
		hr_free(out);
	store_sites_free(&sites);
	return rc;
}

int hr_build_report(store *s, int64_t run_normal, int64_t run_faulty, const hang_report *rep,
		    const dt_sync_event *ev, hr_info *out, dt_err *e)
{
	memset(out, 0, sizeof *out);
	store_sync_stream *sn;
	if (store_sync_stream_open(s, run_normal, &sn, e))
		return -1;
	if (!sn)
		return 0;
	int rc = build(s, run_normal, run_faulty, rep, ev, out, e);
	store_sync_stream_close(sn);
	return rc;
}

int hr_build(store *s, int64_t run_normal, int64_t run_faulty, hr_info *out, dt_err *e)
{
	memset(out, 0, sizeof *out);
	ord_stream *st = NULL;
	store_sync_stream *sn = NULL;
	if (ord_stream_open(s, run_faulty, &st, e))
		return -1;
	if (!st)
		return 0;
	int rc = store_sync_stream_open(s, run_normal, &sn, e);
	if (rc || !sn) {
		ord_stream_close(st);
		return rc;
	}
	size_t nnames = 0;
	const char *const *names = store_func_names(s, &nnames);
	hang_scan *h = hang_scan_new(names, nnames, ord_stream_ntraces(st));
	const dt_sync_event *v;
	while (!(rc = ord_stream_next(st, &v, e)) && v)
		if ((rc = hang_scan_push(h, ord_stream_trace(st), v, e)))
			break;
	ord_stream_close(st);
	hang_report rep;
	memset(&rep, 0, sizeof rep);
	dt_sync_event *ev = NULL;
	size_t nev = 0;
	if (!rc && !(rc = hang_scan_report(h, &rep, &ev, &nev, e)))
		rc = build(s, run_normal, run_faulty, &rep, ev, out, e);
	hang_scan_free(h);
	hang_report_free(&rep);
	free(ev);
	store_sync_stream_close(sn);
	return rc ? -1 : 0;
}

const hr_thread *hr_find(const hr_info *h, int proc, int thread)
{
	size_t lo = 0, hi = h->n;
	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;
		const hr_thread *t = &h->t[m];
		if (t->proc == proc && t->thread == thread)
			return t;
		if (t->proc < proc || (t->proc == proc && t->thread < thread))
			lo = m + 1;
		else
			hi = m;
	}
	return NULL;
}

void hr_free(hr_info *h)
{
	free(h->t);
	ac_free(&h->args);
	memset(h, 0, sizeof *h);
}

static void peer_text(char *b, size_t cap, int64_t v)
{
	if (v == DT_SYNC_ANY_SOURCE)
		snprintf(b, cap, "ANY");
	else if (v == DT_SYNC_PROC_NULL)
		snprintf(b, cap, "PROC_NULL");
	else
		snprintf(b, cap, "%" PRId64, v);
}

void hr_event_text(store *s, const dt_sync_event *x, const dt_sync_event *other, char *buf,
		   size_t cap)
{
	if (!cap)
		return;
	if (!x->func) {
		snprintf(buf, cap, "(end)");
		return;
	}
	const char *nm = store_func_name(s, x->func);
	char name[128];
	esc_str(nm ? nm : "?", name, sizeof name);
	int same = other && other->func == x->func;
	struct {
		const char *key;
		int64_t v, o;
		int kind; /* 0 number, 1 peer, 2 datatype, 3 op, 4 a one-sided number (0 none) */
	} f[] = {
		{ "comm", x->comm, other ? other->comm : 0, 0 },
		{ "dest", x->dest, other ? other->dest : 0, 1 },
		{ "tag", x->stag, other ? other->stag : 0, 1 },
		{ "source", x->src, other ? other->src : 0, 1 },
		{ "tag", x->rtag, other ? other->rtag : 0, 1 },
		{ "root", x->root, other ? other->root : 0, 0 },
		{ "count", x->count, other ? other->count : 0, 0 },
		{ "datatype", x->datatype, other ? other->datatype : 0, 2 },
		{ "op", x->op, other ? other->op : 0, 3 },
		{ "disp", x->disp, other ? other->disp : 0, 4 },
		{ "assert", x->rassert, other ? other->rassert : 0, 4 },
		{ "lock", x->lock, other ? other->lock : 0, 4 },
	};
	size_t k = (size_t)snprintf(buf, cap, "%s", name);
	int open = 0;
	for (size_t i = 0; i < sizeof f / sizeof *f && k < cap; i++) {
		if (f[i].v == DT_SYNC_NONE || (same && f[i].v == f[i].o))
			continue;
		/* the one-sided fields: 0 is none */
		if (f[i].kind == 4 && !f[i].v && (!same || !f[i].o))
			continue;
		/* without a counterpart, the communicator only when not WORLD, no count */
		if (!same && ((i == 0 && f[i].v == 0) || i == 6))
			continue;
		char v[48];
		if (f[i].kind == 1)
			peer_text(v, sizeof v, f[i].v);
		else if (f[i].kind == 2)
			snprintf(v, sizeof v, "%s", sync_type_name((int32_t)f[i].v));
		else if (f[i].kind == 3)
			snprintf(v, sizeof v, "%s", sync_op_name((int32_t)f[i].v));
		else
			snprintf(v, sizeof v, "%" PRId64, f[i].v);
		k += (size_t)snprintf(buf + k, cap - k, "%s%s=%s", open ? "," : "[", f[i].key, v);
		open = 1;
	}
	if (open && k < cap)
		snprintf(buf + k, cap - k, "]");
}

static void value_text(size_t k, int64_t v, char *b, size_t cap)
{
	if (k >= 1 && k <= 4)
		peer_text(b, cap, v);
	else if (k == 7)
		snprintf(b, cap, "%s", sync_type_name((int32_t)v));
	else if (k == 8)
		snprintf(b, cap, "%s", sync_op_name((int32_t)v));
	else
		snprintf(b, cap, "%" PRId64, v);
}

void hr_args_text(store *s, const ac_set *c, char *buf, size_t cap)
{
	size_t k = 0;
	if (cap)
		buf[0] = 0;
	unsigned char *done = xcalloc(c->n ? c->n : 1, 1);
	for (size_t i = 0; i < c->n && k < cap; i++) {
		if (done[i])
			continue;
		const ac_change *x = &c->c[i];
		char f[48], t[48], nm[128];
		value_text(x->key, x->from, f, sizeof f);
		value_text(x->key, x->to, t, sizeof t);
		k += (size_t)snprintf(buf + k, cap - k, "%s%s %s -> %s in ", k ? "; " : "",
				      hr_field_name(x->key), f, t);
		/* every call whose same argument changed the same way */
		for (size_t j = i, m = 0; j < c->n && k < cap; j++) {
			const ac_change *y = &c->c[j];
			if (done[j] || strcmp(hr_field_name(y->key), hr_field_name(x->key)) ||
			    y->from != x->from || y->to != x->to)
				continue;
			done[j] = 1;
			const char *n = store_func_name(s, (uint32_t)y->func);
			esc_str(n ? n : "?", nm, sizeof nm);
			k += (size_t)snprintf(buf + k, cap - k, "%s%s", m++ ? ", " : "", nm);
		}
	}
	free(done);
}
