/* fstats.c: per-function calls, total and self time of a run, and the delta of two runs. */
#include <stdlib.h>
#include <string.h>

#include "analysis/fstats.h"
#include "import/sink.h"
#include "util/util.h"

void fstats_init(fstats *s)
{
	memset(s, 0, sizeof *s);
	s->has_time = 1;
}

void fstats_free(fstats *s)
{
	free(s->f);
	free(s->stack);
	memset(s, 0, sizeof *s);
}

static fstat *slot(fstats *s, uint32_t fid)
{
	if (fid >= s->nf) {
		size_t n = s->nf ? s->nf : 64;
		while (n <= fid)
			n *= 2;
		s->f = xrealloc(s->f, n * sizeof *s->f);
		memset(s->f + s->nf, 0, (n - s->nf) * sizeof *s->f);
		s->nf = n;
	}
	return &s->f[fid];
}

void fstats_begin(fstats *s, int has_time)
{
	s->nstack = 0;
	s->last_ts = 0;
	s->fed = 1;
	if (!has_time)
		s->has_time = 0;
}

static void pop(fstats *s, uint64_t ts)
{
	struct fframe fr = s->stack[--s->nstack];
	uint64_t dur = ts > fr.start ? ts - fr.start : 0;
	fstat *f = slot(s, fr.fid);
	f->total += dur;
	f->self += dur > fr.child ? dur - fr.child : 0;
	if (s->nstack)
		s->stack[s->nstack - 1].child += dur;
}

void fstats_push(fstats *s, const uint32_t *ev, const uint64_t *ts, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t t = ts ? ts[i] : 0;
		if (ts)
			s->last_ts = t;
		if (ev[i] == DT_RET) {
			if (s->nstack)
				pop(s, t);
			continue;
		}
		slot(s, ev[i])->calls++;
		GROW(s->stack, s->capstack, s->nstack + 1);
		s->stack[s->nstack++] = (struct fframe){ ev[i], t, 0 };
	}
}

void fstats_end(fstats *s)
{
	while (s->nstack)
		pop(s, s->last_ts);
}

static uint64_t absdiff(uint64_t x, uint64_t y)
{
	return x > y ? x - y : y - x;
}

static uint64_t change(const fdelta *d, int sort)
{
	switch (sort) {
	case FD_SELF:
		return absdiff(d->a.self, d->b.self);
	case FD_CALLS:
		return absdiff(d->a.calls, d->b.calls);
	}
	return absdiff(d->a.total, d->b.total);
}

static int cmp(const void *x, const void *y)
{
	const fdelta *a = x, *b = y;
	if (a->key != b->key)
		return a->key < b->key ? 1 : -1;
	/* ties (every time zero without timestamps): the calls' change, then the id */
	uint64_t na = absdiff(a->a.calls, a->b.calls), nb = absdiff(b->a.calls, b->b.calls);
	if (na != nb)
		return na < nb ? 1 : -1;
	return a->fid < b->fid ? -1 : a->fid > b->fid;
}

void fstats_delta(const fstats *a, const fstats *b, int sort, fdelta **out, size_t *n)
{
	size_t nf = a->nf > b->nf ? a->nf : b->nf, k = 0;
	fdelta *d = xmalloc((nf ? nf : 1) * sizeof *d);
	for (size_t i = 0; i < nf; i++) {
		fstat fa = i < a->nf ? a->f[i] : (fstat){ 0 }, fb = i < b->nf ? b->f[i] : (fstat){ 0 };
		if (fa.calls || fb.calls) {
			d[k] = (fdelta){ (uint32_t)i, fa, fb, 0 };
			d[k].key = change(&d[k], sort);
			k++;
		}
	}
	qsort(d, k, sizeof *d, cmp);
	*out = d;
	*n = k;
}

#define LOAD_BLOCK 65536

int fstats_load(store *st, const char *run, int p, int t, fstats *s, dt_err *e)
{
	store_trace *tr = NULL;
	size_t n = 0;
	int rc = store_run_trace_list(st, run, &tr, &n, e);
	if (rc)
		return -1;
	uint32_t *ev = xmalloc(LOAD_BLOCK * sizeof *ev);
	uint64_t *ts = xmalloc(LOAD_BLOCK * sizeof *ts);
	int found = p < 0;
	for (size_t i = 0; i < n && !rc; i++) {
		if (p >= 0 && (tr[i].proc != p || tr[i].thread != t))
			continue;
		found = 1;
		store_cursor *c;
		if (store_cursor_open(st, &tr[i], 0, &c, e)) {
			rc = -1;
			break;
		}
		fstats_begin(s, tr[i].has_time);
		int64_t k;
		while ((k = store_cursor_next(c, ev, tr[i].has_time ? ts : NULL, LOAD_BLOCK, e)) > 0)
			fstats_push(s, ev, tr[i].has_time ? ts : NULL, (size_t)k);
		fstats_end(s);
		store_cursor_close(c);
		if (k < 0)
			rc = -1;
	}
	if (!rc && !found)
		rc = dt_errf(e, DT_EDATA, "no trace %d.%d in run %s (see 'difftrace traces %s')", p, t,
			     run, run);
	free(ev);
	free(ts);
	store_traces_free(tr, n);
	return rc;
}
