/* hangdiag.c: the hang report of a stopped run, for every front-end (hangdiag.h). */
#include <stdlib.h>
#include <string.h>

#include "analysis/hangdiag.h"
#include "order/hangscan.h"
#include "order/never.h"
#include "order/stream.h"

static int step(const hang_diag_opts *o, const char *what)
{
	return o->step && o->step(o->ctx, what);
}

/* The report streamed from the store (order/hangscan.h): a pass for the analysis, then one
 * through the causality filter with the open calls' completions after each thread's last
 * event (and the capture of the cause's collective). */
static int streamed(store *s, int64_t run, const hang_diag_opts *o, hang_diag *d, dt_err *e)
{
	size_t nnames = 0;
	const char *const *names = store_func_names(s, &nnames);
	ord_stream *st = NULL;
	if (ord_stream_open(s, run, &st, e))
		return -1;
	if (!st)
		return 0;
	hang_scan *h = hang_scan_new(names, nnames, ord_stream_ntraces(st));
	const dt_sync_event *v;
	int rc;
	while (!(rc = ord_stream_next(st, &v, e)) && v)
		if ((rc = hang_scan_push(h, ord_stream_trace(st), v, e)))
			break;
	ord_stream_close(st);
	d->n = (size_t)hang_scan_count(h);
	if (rc || !d->n) {
		hang_scan_free(h);
		return rc ? -1 : 0;
	}
	dt_sync_event *pend = NULL;
	size_t *trace = NULL;
	rc = -1;
	if (hang_scan_report(h, &d->rep, &d->ev, &d->nev, e))
		goto out;
	size_t np = hang_scan_pending(h, &d->rep, d->ev, &pend, &d->thread_of, &trace);
	hang_scan_odd(h, &d->rep, &d->odd);
	if (step(o, "putting the open calls' completions through the causality filter")) {
		rc = 1;
		goto out;
	}
	if (hang_never_stream(s, run, names, nnames, pend, np, trace, d->n, o->rules_file,
			      o->max_held, hang_scan_capture, h, &d->held, &d->nheld, &d->stopped, e))
		goto out;
	hang_scan_odd_events(h, &d->odd, &d->ev, &d->nev);
	rc = 0;
out:
	free(pend);
	free(trace);
	hang_scan_free(h);
	return rc;
}

/* The report of the whole record, read at once (`difftrace hang --whole`). */
static int whole(store *s, int64_t run, const hang_diag_opts *o, hang_diag *d, dt_err *e)
{
	size_t nnames = 0, nck = 0;
	const char *const *names = store_func_names(s, &nnames);
	if (hang_analyze(d->ev, d->n, names, nnames, &d->rep, e))
		return -1;
	if (step(o, "putting the open calls' completions through the causality filter"))
		return 1;
	store_sync_clock *ck = NULL;
	if (store_sync_clocks(s, run, &ck, &nck, e))
		return -1;
	int rc = hang_never(&d->ev, d->n, names, nnames, &d->rep, ck, nck, o->rules_file,
			    o->max_held, &d->held, &d->nheld, &d->thread_of, &d->stopped, e);
	free(ck);
	d->nev = d->n;
	return rc;
}

/* The most likely cause, against the normal run when one is named. */
static int cause(store *s, int64_t run, const hang_diag_opts *o, hang_diag *d, dt_err *e)
{
	if (o->normal) {
		if (step(o, "comparing the sync record with the normal run's"))
			return 1;
		store_run nr = { 0 };
		if (store_run_get(s, o->normal, &nr, e))
			return -1;
		int rc = o->whole ? hr_build_whole(s, nr.id, run, &d->hr, e)
				  : hr_build_report(s, nr.id, run, &d->rep, d->ev, &d->hr, e);
		store_run_free(&nr);
		if (rc)
			return -1;
	}
	size_t nnames = 0;
	const char *const *names = store_func_names(s, &nnames);
	if (o->whole)
		hang_cause_find(&d->rep, d->ev, d->n, &d->hr, names, nnames, &d->cause);
	else
		hang_cause_find_odd(&d->rep, &d->odd, &d->hr, names, nnames, &d->cause);
	hang_cause_text_sites(s, &d->rep, d->ev, &d->cause, &d->sites, d->cause_text,
			      sizeof d->cause_text);
	if (d->hr.args.n)
		hr_args_text(s, &d->hr.args, d->args_text, sizeof d->args_text);
	return 0;
}

int hang_diagnose(store *s, int64_t run, const hang_diag_opts *o, hang_diag *d, dt_err *e)
{
	memset(d, 0, sizeof *d);
	if (step(o, o->whole ? "reading the sync events"
			     : "finding where each thread is as the sync events stream by"))
		return 1;
	int rc = o->whole ? store_sync_list(s, run, &d->ev, &d->n, e) : streamed(s, run, o, d, e);
	if (rc || !d->n)
		return rc;
	if (store_sync_sites(s, run, &d->sites, e))
		return -1;
	if (o->whole && (rc = whole(s, run, o, d, e)) != 0)
		return rc;
	return cause(s, run, o, d, e);
}

void hang_diag_free(hang_diag *d)
{
	ord_held_free(d->held, d->nheld);
	free(d->thread_of);
	free(d->stopped);
	hang_cause_free(&d->cause);
	free(d->odd.threads);
	hr_free(&d->hr);
	hang_report_free(&d->rep);
	store_sites_free(&d->sites);
	free(d->ev);
	memset(d, 0, sizeof *d);
}
