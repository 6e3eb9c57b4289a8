/* view_traces.c: a list of traces of a run (all of them, or one class's): P.T, pid, tid, events,
 * events kept by the filter, flags. Enter opens the trace's compressed form. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/sink.h"
#include "tui.h"
#include "util/util.h"

struct traces {
	char run[128];
	uint32_t *objs; /* the analysis objects shown; NULL: all */
	size_t nobjs;
	const an_result *r;
	int state;
};

static const tui_keyhelp keys[] = {
	{ "Enter", "the trace's nested loops (NLR)" },
	{ "d", "diff this trace against the same P.T of the other run of the pair" },
	{ NULL, NULL },
};

static int traces_open(tui *t, view *v)
{
	struct traces *d = v->data;
	d->state = tui_analysis(t, d->run, &d->r);
	if (d->state != 1) {
		v->nlines = 1;
		return 0;
	}
	v->nlines = d->objs ? d->nobjs : d->r->n;
	return 0;
}

static size_t obj_of(const struct traces *d, size_t i)
{
	return d->objs ? d->objs[i] : i;
}

static void traces_header(tui *t, view *v, tui_out *o)
{
	(void)t;
	(void)v;
	out_text(o, ST_HEADER, "P.T           PID        TID        EVENTS      KEPT  FLAGS");
}

static void traces_line(tui *t, view *v, size_t i, tui_out *o)
{
	struct traces *d = v->data;
	if (d->state != 1) {
		char what[128];
		int pct = tui_job_progress(t, what, sizeof what);
		if (d->state == 0)
			out_printf(o, ST_DIM, "computing the analysis of %s ... %s", d->run,
				   tui_job_pct(t, pct));
		else
			out_printf(o, ST_WARN, "no analysis of %s (see the message below)", d->run);
		return;
	}
	size_t j = obj_of(d, i);
	const store_trace *tr = &d->r->traces[j];
	char pt[32], f[200];
	snprintf(pt, sizeof pt, "%d.%d", tr->proc, tr->thread);
	dt_flags_str(tr->flags, f, sizeof f);
	out_printf(o, ST_NORMAL, "%-9s %10lld %10lld %13llu %9llu  ", pt, (long long)tr->pid,
		   (long long)tr->tid, (unsigned long long)tr->nevents,
		   (unsigned long long)d->r->nfiltered[j]);
	out_text(o, tr->flags ? ST_WARN : ST_DIM, f);
}

static void traces_enter(tui *t, view *v, size_t i)
{
	struct traces *d = v->data;
	if (d->state != 1)
		return;
	const store_trace *tr = &d->r->traces[obj_of(d, i)];
	view_trace_open(t, d->run, tr->proc, tr->thread);
}

static int traces_key(tui *t, view *v, int k)
{
	struct traces *d = v->data;
	if (k != 'd' || d->state != 1 || !v->nlines)
		return 0;
	const char *normal, *faulty;
	if (!tui_get_pair(t, &normal, &faulty) || !*normal || !*faulty) {
		tui_msg(t, ST_WARN, "choose the normal and faulty runs first (1 and 2 in the runs view)");
		return 1;
	}
	const store_trace *tr = &d->r->traces[obj_of(d, v->cur)];
	view_diff_open(t, normal, tr->proc, tr->thread, faulty, tr->proc, tr->thread);
	return 1;
}

static void traces_close(view *v)
{
	struct traces *d = v->data;
	free(d->objs);
	free(d);
}

static const view_ops traces_ops = {
	.name = "traces", .keys = keys, .open = traces_open, .line = traces_line,
	.enter = traces_enter, .key = traces_key, .close = traces_close, .header = traces_header,
};

int view_traces_open(tui *t, const char *run, const uint32_t *objs, size_t n, const char *what)
{
	struct traces *d = xcalloc(1, sizeof *d);
	snprintf(d->run, sizeof d->run, "%s", run);
	if (objs) {
		d->objs = xmalloc((n ? n : 1) * sizeof *d->objs);
		memcpy(d->objs, objs, n * sizeof *objs);
		d->nobjs = n;
	}
	return tui_push(t, &traces_ops, d, "difftrace: %s of %s", what, run) ? 0 : -1;
}
