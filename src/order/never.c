/* never.c: the calls of a stopped run that can never complete (never.h). The events go through
 * the filter in arrival order straight from the run's array: no copy of the run, no list of the
 * released events (a killed run has millions). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "order/arrival.h"
#include "order/never.h"
#include "order/rules.h"
#include "order/stream.h"
#include "util/util.h"

static int cmp_held(const void *a, const void *b)
{
	const ord_held *x = a, *y = b;
	if (x->ev.proc != y->ev.proc)
		return x->ev.proc < y->ev.proc ? -1 : 1;
	return (x->ev.thread > y->ev.thread) - (x->ev.thread < y->ev.thread);
}

static void drop_out(void *ctx, const ord_out *o)
{
	(void)ctx;
	(void)o;
}

/* The rules, bound to the run's names: 0, or 1 with *stopped set when the shipped ones cannot
 * be read (the report stands without), -1 on a bad rules_file. */
static int rules_for(const char *rules_file, const char *const *names, size_t nnames,
		     ord_rules **out, char **stopped, dt_err *e)
{
	ord_rules *rules = ord_rules_new();
	*out = NULL;
	if (rules_file && ord_rules_load_file(rules, rules_file, e)) {
		ord_rules_free(rules);
		return -1;
	}
	if (!rules_file) {
		dt_err re;
		dt_err_clear(&re);
		if (ord_rules_load_default(rules, &re)) {
			char b[1024];
			dt_err_format(&re, b, sizeof b);
			*stopped = xstrdup(b);
			ord_rules_free(rules);
			return 1;
		}
	}
	if (ord_rules_bind(rules, names, (uint32_t)nnames, e)) {
		ord_rules_free(rules);
		return -1;
	}
	*out = rules;
	return 0;
}

/* The held queue heads in P.T order, ids >= n the pending completions' (id - n), else
 * SIZE_MAX. */
static void held_of(ord_filter *f, int frc, const dt_err *fe, uint64_t n, ord_held **held,
		    size_t *nheld, char **stopped)
{
	if (frc) {
		char b[2048];
		dt_err_format(fe, b, sizeof b);
		*stopped = xstrdup(b);
	} else {
		ord_filter_drain(f);
		ord_filter_held_list(f, held, nheld);
	}
	if (*nheld > 1)
		qsort(*held, *nheld, sizeof **held, cmp_held);
	for (size_t i = 0; i < *nheld; i++)
		(*held)[i].id = (*held)[i].id >= n ? (*held)[i].id - n : SIZE_MAX;
}

int hang_never(dt_sync_event **ev, size_t n, const char *const *names, size_t nnames,
	       const hang_report *rep, const store_sync_clock *ck, size_t nck,
	       const char *rules_file, size_t max_held, ord_held **held, size_t *nheld,
	       size_t **thread_of, char **stopped, dt_err *e)
{
	size_t nhost = 0;
	dt_sync_event *pend = NULL;
	*held = NULL;
	*nheld = 0;
	*stopped = NULL;
	*thread_of = NULL;
	ord_rules *rules;
	int rr = rules_for(rules_file, names, nnames, &rules, stopped, e);
	if (rr)
		return rr < 0 ? -1 : 0;
	size_t np = hang_pending(*ev, n, names, nnames, rep, &pend, thread_of);
	if (np) {
		*ev = xrealloc(*ev, (n + np) * sizeof **ev);
		memcpy(*ev + n, pend, np * sizeof **ev);
	}
	const dt_sync_event *all = *ev;
	int64_t *off = ord_host_offsets(all, n + np, ck, nck, &nhost);
	size_t *idx = xmalloc((n + np ? n + np : 1) * sizeof *idx);
	ord_arrival(all, n + np, off, idx);
	ord_filter_opts fo = { ORD_MINIMAL, off, nhost, max_held, 0 };
	ord_filter *f = ord_filter_new(rules, &fo, drop_out, NULL);
	dt_err fe;
	dt_err_clear(&fe);
	int frc = 0;
	for (size_t i = 0; i < n + np && !frc; i++)
		frc = ord_filter_push(f, &all[idx[i]], idx[i], &fe);
	held_of(f, frc, &fe, n, held, nheld, stopped);
	ord_filter_free(f);
	free(idx);
	free(pend);
	free(off);
	ord_rules_free(rules);
	return 0;
}

/* Whether the stream gave one of pend (its tails) rather than an event of the run. */
static int is_pending(const dt_sync_event *v, const dt_sync_event *pend, size_t np)
{
	uintptr_t a = (uintptr_t)v, b = (uintptr_t)pend;
	return np && a >= b && a < b + np * sizeof *pend;
}

int hang_never_stream(store *s, int64_t run_id, const char *const *names, size_t nnames,
		      const dt_sync_event *pend, size_t np, const size_t *trace, uint64_t n,
		      const char *rules_file, size_t max_held,
		      void (*see)(void *, const dt_sync_event *), void *see_ctx, ord_held **held,
		      size_t *nheld, char **stopped, dt_err *e)
{
	*held = NULL;
	*nheld = 0;
	*stopped = NULL;
	ord_rules *rules;
	int rr = rules_for(rules_file, names, nnames, &rules, stopped, e);
	ord_stream *st = NULL;
	if (rr > 0) {
		/* no filter: the rest of the report still needs its pass */
		if (!see)
			return 0;
		if (ord_stream_open(s, run_id, &st, e))
			return -1;
		const dt_sync_event *v;
		int rc;
		while (st && !(rc = ord_stream_next(st, &v, e)) && v)
			see(see_ctx, v);
		ord_stream_close(st);
		return st && rc ? -1 : 0;
	}
	if (rr < 0)
		return -1;
	if (ord_stream_open(s, run_id, &st, e)) {
		ord_rules_free(rules);
		return -1;
	}
	int rc = 0;
	if (st) {
		for (size_t i = 0; i < np;) {
			size_t j = i;
			while (j < np && trace[j] == trace[i])
				j++;
			ord_stream_tail(st, trace[i], pend + i, j - i);
			i = j;
		}
		size_t nhost;
		const int64_t *off = ord_stream_offsets(st, &nhost);
		ord_filter_opts fo = { ORD_MINIMAL, off, nhost, max_held, 0 };
		ord_filter *f = ord_filter_new(rules, &fo, drop_out, NULL);
		dt_err fe;
		dt_err_clear(&fe);
		int frc = 0;
		uint64_t i = 0;
		const dt_sync_event *v;
		while (!frc && !(rc = ord_stream_next(st, &v, e)) && v) {
			int pending = is_pending(v, pend, np);
			if (!pending && see)
				see(see_ctx, v);
			frc = ord_filter_push(f, v, pending ? n + (uint64_t)(v - pend) : i++, &fe);
		}
		/* the rest of the run for the capture, after the filter stopped */
		while (frc && see && !rc && !(rc = ord_stream_next(st, &v, e)) && v)
			if (!is_pending(v, pend, np))
				see(see_ctx, v);
		if (!rc)
			held_of(f, frc, &fe, n, held, nheld, stopped);
		ord_filter_free(f);
	}
	ord_stream_close(st);
	ord_rules_free(rules);
	return rc ? -1 : 0;
}

