/* view_runs.c: the first view: the runs of the store, with their traces, events, flags and
 * cached analyses. From here: a run's classes (Enter), traces, lattice and similarity matrix,
 * and the ranking of a normal run against a faulty one. The list follows the store: an import
 * by another command shows within a second. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "import/sink.h"
#include "store/store_analysis.h"
#include "tui.h"
#include "tui_int.h"
#include "util/util.h"

struct runs {
	store_run *r;
	size_t n;
	size_t *nan; /* cached analyses per run */
	int wname;   /* the run column: the widest name, at least 16 (a name has up to 64) */
	int64_t checked; /* when the store's runs were last compared with the list (ms) */
};

static const tui_keyhelp keys[] = {
	{ "Enter  c", "the equivalence classes of the run" },
	{ "t", "the traces of the run" },
	{ "x", "the concept lattice of the run" },
	{ "m", "the similarity matrix (JSM) of the run" },
	{ "1  2", "mark the run as the normal (1) or the faulty (2) one" },
	{ "r", "the ranking of the faulty run against the normal one" },
	{ "f", "the filter families (change the filter, recompute)" },
	{ "T", "the timeline of the run's MPI and OpenMP calls (its sync record)" },
	{ "S", "where each thread is stuck at the end (the hang report)" },
	{ "b", "variable blame of the run (a run recorded with --sample)" },
	{ "B", "the variables whose blame changed most from the normal run to the faulty one" },
	{ NULL, NULL },
};

static void free_runs(struct runs *d)
{
	store_runs_free(d->r, d->n);
	free(d->nan);
	d->r = NULL;
	d->nan = NULL;
	d->n = 0;
}

static int runs_open(tui *t, view *v)
{
	struct runs *d = v->data;
	free_runs(d);
	if (tui_runs(t, &d->r, &d->n))
		return -1;
	d->nan = xcalloc(d->n ? d->n : 1, sizeof *d->nan);
	for (size_t i = 0; i < d->n; i++) {
		store_analysis *a;
		size_t na;
		dt_err e;
		dt_err_clear(&e);
		if (store_analysis_list(tui_store(t), d->r[i].id, &a, &na, &e) == 0) {
			d->nan[i] = na;
			store_analyses_free(a, na);
		}
	}
	d->wname = 16;
	for (size_t i = 0; i < d->n; i++) {
		int w = tui_cols_of(d->r[i].name, strlen(d->r[i].name));
		d->wname = w > d->wname ? w : d->wname;
	}
	v->nlines = d->n;
	if (!d->n)
		tui_msg(t, ST_WARN, "the store has no runs: import some with 'difftrace import'");
	return 0;
}

static void runs_header(tui *t, view *v, tui_out *o)
{
	(void)t;
	struct runs *d = v->data;
	out_text(o, ST_HEADER, "  RUN");
	out_pad(o, 2 + d->wname);
	out_text(o, ST_HEADER, "  TRACES         EVENTS  FORMAT    ANALYSES  FLAGS");
	out_pad(o, 82 + d->wname - 16);
	out_text(o, ST_HEADER, "LABEL");
}

static void runs_line(tui *t, view *v, size_t i, tui_out *o)
{
	struct runs *d = v->data;
	const store_run *r = &d->r[i];
	const char *normal, *faulty;
	tui_get_pair(t, &normal, &faulty);
	const char *mark = normal && !strcmp(normal, r->name)   ? "N "
			   : faulty && !strcmp(faulty, r->name) ? "F "
								: "  ";
	out_text(o, ST_KEY, mark);
	out_text(o, ST_NORMAL, r->name);
	out_pad(o, 2 + d->wname);
	out_printf(o, ST_NORMAL, " %7lld %14lld  %-9s %8zu  ", (long long)r->ntraces,
		   (long long)r->nevents, r->format, d->nan[i]);
	char f[200];
	dt_flags_str(r->flags, f, sizeof f);
	out_text(o, r->flags ? ST_WARN : ST_DIM, f);
	out_pad(o, 82 + d->wname - 16);
	out_text(o, ST_DIM, r->label);
}

static void runs_enter(tui *t, view *v, size_t i)
{
	struct runs *d = v->data;
	view_classes_open(t, d->r[i].name);
}

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* While idle, once a second: the store's runs against the list, which is read again when an
 * import (or rm) by another command changed them; the cursor stays on its run. */
static void runs_refresh(tui *t, view *v, struct runs *d)
{
	int64_t now = now_ms();
	if (now - d->checked < 1000)
		return;
	d->checked = now;
	store_run *r;
	size_t n;
	dt_err e;
	dt_err_clear(&e);
	if (store_run_list_lite(tui_store(t), &r, &n, &e))
		return; /* locked by an import publishing: next time */
	int same = n == d->n;
	for (size_t i = 0; same && i < n; i++)
		same = r[i].id == d->r[i].id && r[i].nevents == d->r[i].nevents &&
		       r[i].flags == d->r[i].flags && !strcmp(r[i].name, d->r[i].name);
	store_runs_free(r, n);
	if (same)
		return;
	char *cur = d->n && v->cur < d->n ? xstrdup(d->r[v->cur].name) : NULL;
	size_t old = d->n;
	if (runs_open(t, v) == 0) {
		for (size_t i = 0; cur && i < d->n; i++)
			if (!strcmp(d->r[i].name, cur))
				v->cur = i;
		if (v->cur >= d->n)
			v->cur = d->n ? d->n - 1 : 0;
		if (d->n != old)
			tui_msg(t, ST_DIM, "the store has %zu run%s now", d->n, d->n == 1 ? "" : "s");
	}
	free(cur);
}

static void runs_idle(tui *t, view *v)
{
	runs_refresh(t, v, v->data);
}

static int runs_key(tui *t, view *v, int k)
{
	struct runs *d = v->data;
	if (!d->n) {
		if (k != 'f')
			return 0;
		view_filters_open(t);
		return 1;
	}
	const char *run = d->r[v->cur].name;
	const char *normal, *faulty;
	tui_get_pair(t, &normal, &faulty);
	switch (k) {
	case 'c':
		view_classes_open(t, run);
		return 1;
	case 't':
		view_traces_open(t, run, NULL, 0, "all traces");
		return 1;
	case 'x':
		view_lattice_open(t, run);
		return 1;
	case 'm':
		view_jsm_open(t, run, 0);
		return 1;
	case '1':
		tui_set_pair(t, run, faulty && strcmp(faulty, run) ? faulty : "");
		tui_msg(t, ST_DIM, "normal run: %s; mark the faulty one with 2", run);
		return 1;
	case '2':
		tui_set_pair(t, normal && strcmp(normal, run) ? normal : "", run);
		tui_msg(t, ST_DIM, "faulty run: %s; r opens the ranking", run);
		return 1;
	case 'r':
		if (normal && faulty && *normal && *faulty)
			view_rank_open(t, normal, faulty);
		else if (d->n == 2)
			view_rank_open(t, d->r[0].name, d->r[1].name);
		else
			tui_msg(t, ST_WARN, "mark the normal run with 1 and the faulty one with 2");
		return 1;
	case 'f':
		view_filters_open(t);
		return 1;
	case 'T':
		view_timeline_open(t, run, (tui_tl_at){ -1, -1, -1 });
		return 1;
	case 'S':
		view_hang_open(t, run, NULL);
		return 1;
	case 'b':
		view_blame_open(t, run, NULL, 0);
		return 1;
	case 'B':
		if (normal && faulty && *normal && *faulty)
			view_blame_change_open(t, normal, faulty);
		else
			tui_msg(t, ST_WARN, "mark the normal run with 1 and the faulty one with 2");
		return 1;
	}
	return 0;
}

static void runs_close(view *v)
{
	free_runs(v->data);
	free(v->data);
}

const view_ops view_runs_ops = {
	.name = "runs", .keys = keys, .open = runs_open, .line = runs_line, .enter = runs_enter,
	.key = runs_key, .close = runs_close, .header = runs_header, .idle = runs_idle,
};

int view_runs_open(tui *t)
{
	return tui_push(t, &view_runs_ops, xcalloc(1, sizeof(struct runs)), "difftrace: runs in %s",
			store_path(tui_store(t)))
		       ? 0
		       : -1;
}
