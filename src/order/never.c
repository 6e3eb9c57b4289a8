/* never.c: the calls of a stopped run that can never complete (never.h). The events go through
 * the filter in arrival order straight from the run's array: no copy of the run, no list of the
 * released events (a killed run has millions). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "order/arrival.h"
#include "order/never.h"
#include "order/rules.h"
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

int hang_never(dt_sync_event **ev, size_t n, const char *const *names, size_t nnames,
	       const hang_report *rep, const store_sync_clock *ck, size_t nck,
	       const char *rules_file, size_t max_held, ord_held **held, size_t *nheld,
	       size_t **thread_of, char **stopped, dt_err *e)
{
	size_t nhost = 0;
	dt_sync_event *pend = NULL;
	int64_t *off = NULL;
	size_t *idx = NULL;
	int rc = -1;
	*held = NULL;
	*nheld = 0;
	*stopped = NULL;
	*thread_of = NULL;
	ord_rules *rules = ord_rules_new();
	if (rules_file && ord_rules_load_file(rules, rules_file, e))
		goto out;
	if (!rules_file) {
		/* without the shipped rules the rest of the report still stands */
		dt_err re;
		dt_err_clear(&re);
		if (ord_rules_load_default(rules, &re)) {
			char b[1024];
			dt_err_format(&re, b, sizeof b);
			*stopped = xstrdup(b);
			rc = 0;
			goto out;
		}
	}
	if (ord_rules_bind(rules, names, (uint32_t)nnames, e))
		goto out;
	size_t np = hang_pending(*ev, n, names, nnames, rep, &pend, thread_of);
	if (np) {
		*ev = xrealloc(*ev, (n + np) * sizeof **ev);
		memcpy(*ev + n, pend, np * sizeof **ev);
	}
	const dt_sync_event *all = *ev;
	off = ord_host_offsets(all, n + np, ck, nck, &nhost);
	idx = xmalloc((n + np ? n + np : 1) * sizeof *idx);
	ord_arrival(all, n + np, off, idx);
	ord_filter_opts fo = { ORD_MINIMAL, off, nhost, max_held };
	ord_filter *f = ord_filter_new(rules, &fo, drop_out, NULL);
	dt_err fe;
	dt_err_clear(&fe);
	int frc = 0;
	for (size_t i = 0; i < n + np && !frc; i++)
		frc = ord_filter_push(f, &all[idx[i]], idx[i], &fe);
	if (frc) {
		char b[2048];
		dt_err_format(&fe, b, sizeof b);
		*stopped = xstrdup(b);
	} else {
		ord_filter_drain(f);
		ord_filter_held_list(f, held, nheld);
	}
	ord_filter_free(f);
	/* in P.T order, for people */
	if (*nheld > 1)
		qsort(*held, *nheld, sizeof **held, cmp_held);
	/* the ids are positions in *ev: say which are the pending completions */
	for (size_t i = 0; i < *nheld; i++)
		(*held)[i].id = (*held)[i].id >= n ? (*held)[i].id - n : SIZE_MAX;
	rc = 0;
out:
	free(idx);
	free(pend);
	free(off);
	ord_rules_free(rules);
	return rc;
}

