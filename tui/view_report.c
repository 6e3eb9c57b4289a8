/* view_report.c: the per-function report of two traces (difftrace report --trace, for a trace
 * of each run): calls, total and self time side by side with their change, the largest change
 * first. Opened with R from the diff view or with ':report RUN:P.T RUN:P.T'. One trace of each
 * side is read, not whole runs, so the view opens at once on large stores; `difftrace report`
 * gives whole runs. */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/fstats.h"
#include "tui.h"
#include "util/util.h"

struct report {
	char run[2][128];
	int p[2], t[2];
	fstats s[2];
	fdelta *d;
	size_t n;
	int has_time;
	int sort;
	uint64_t barmax; /* the longest time the bars show (ns) */
};

/* Columns of the bar of a line's time. */
#define BARW 12

/* The time a line's bar shows: the sort's (total or self; total when sorted by calls). */
static uint64_t bar_ns(const struct report *r, const fstat *f)
{
	return r->sort == FD_SELF ? f->self : f->total;
}

static const tui_keyhelp keys[] = {
	{ "s", "sort by the change of total time, self time, calls (cycles)" },
	{ "", "the bar: the time both runs spent, then + what the faulty run spent more," },
	{ "", "  - less (total time, or self time when sorted by it)" },
	{ NULL, NULL },
};

static const char *const sort_name[] = { "total time", "self time", "calls" };

static void resort(struct report *r, view *v)
{
	free(r->d);
	fstats_delta(&r->s[0], &r->s[1], r->has_time ? r->sort : FD_CALLS, &r->d, &r->n);
	v->nlines = r->n ? r->n : 1;
	r->barmax = 0;
	for (size_t i = 0; i < r->n; i++) {
		uint64_t a = bar_ns(r, &r->d[i].a), b = bar_ns(r, &r->d[i].b);
		if (a > r->barmax)
			r->barmax = a;
		if (b > r->barmax)
			r->barmax = b;
	}
	char title[600];
	snprintf(title, sizeof title,
		 "difftrace: report %s %d.%d | %s %d.%d: per function, largest change of %s first",
		 r->run[0], r->p[0], r->t[0], r->run[1], r->p[1], r->t[1],
		 sort_name[r->has_time ? r->sort : FD_CALLS]);
	size_t l = strlen(title);
	if (l >= sizeof v->title)
		l = sizeof v->title - 1;
	memcpy(v->title, title, l);
	v->title[l] = 0;
}

static int report_open(tui *t, view *v)
{
	struct report *r = v->data;
	if (r->d) {
		v->nlines = r->n ? r->n : 1;
		return 0;
	}
	dt_err e;
	dt_err_clear(&e);
	for (int i = 0; i < 2; i++) {
		fstats_init(&r->s[i]);
		if (fstats_load(tui_store(t), r->run[i], r->p[i], r->t[i], &r->s[i], &e)) {
			tui_msg(t, ST_WARN, "%s", e.msg);
			return -1;
		}
	}
	r->has_time = r->s[0].has_time && r->s[1].has_time;
	resort(r, v);
	return 0;
}

/* A duration in 11 columns: 812 ns, 12.345 us, 1.234 ms, 2.500 s; signed for a change. */
static void dur(tui_out *o, int style, uint64_t a, uint64_t b, int diff)
{
	uint64_t ns = diff ? (a > b ? a - b : b - a) : a;
	const char *s = !diff ? "" : b < a ? "+" : a < b ? "-" : " ";
	char buf[32];
	if (ns < 1000)
		snprintf(buf, sizeof buf, "%s%llu ns", s, (unsigned long long)ns);
	else if (ns < 1000000)
		snprintf(buf, sizeof buf, "%s%.3f us", s, (double)ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, sizeof buf, "%s%.3f ms", s, (double)ns / 1e6);
	else
		snprintf(buf, sizeof buf, "%s%.3f s", s, (double)ns / 1e9);
	out_printf(o, style, " %11s", buf);
}

static void report_line(tui *t, view *v, size_t i, tui_out *o)
{
	struct report *r = v->data;
	if (!r->n) {
		out_text(o, ST_DIM, "no calls in either trace");
		return;
	}
	const fdelta *x = &r->d[i];
	long long dc = (long long)x->b.calls - (long long)x->a.calls;
	out_printf(o, ST_NORMAL, "%8llu %8llu", (unsigned long long)x->a.calls,
		   (unsigned long long)x->b.calls);
	out_printf(o, dc ? ST_CHANGED : ST_DIM, " %+7lld", dc);
	if (r->has_time) {
		dur(o, ST_NORMAL, x->a.total, 0, 0);
		dur(o, ST_NORMAL, x->b.total, 0, 0);
		dur(o, x->a.total != x->b.total ? ST_CHANGED : ST_DIM, x->b.total, x->a.total, 1);
		dur(o, ST_NORMAL, x->a.self, 0, 0);
		dur(o, ST_NORMAL, x->b.self, 0, 0);
		dur(o, x->a.self != x->b.self ? ST_CHANGED : ST_DIM, x->b.self, x->a.self, 1);
		/* the two runs' times as one bar: the part both spent, then what the faulty run
		 * spent more (+) or less (-), to the scale of the longest */
		uint64_t a = bar_ns(r, &x->a), b = bar_ns(r, &x->b);
		size_t wa = r->barmax ? (size_t)((double)a / (double)r->barmax * BARW + 0.5) : 0,
		       wb = r->barmax ? (size_t)((double)b / (double)r->barmax * BARW + 0.5) : 0;
		size_t lo = wa < wb ? wa : wb, hi = wa < wb ? wb : wa;
		out_text(o, ST_NORMAL, "  ");
		for (size_t c = 0; c < lo; c++)
			out_text(o, ST_NORMAL, o->utf8 ? "\xe2\x96\x88" : "#");
		for (size_t c = lo; c < hi; c++)
			out_text(o, ST_CHANGED, wb > wa ? (o->utf8 ? "\xe2\x96\x92" : "+")
							: (o->utf8 ? "\xe2\x96\x91" : "-"));
		for (size_t c = hi; c < BARW; c++)
			out_text(o, ST_DIM, " ");
	}
	const char *name = store_func_name(tui_store(t), x->fid);
	out_text(o, ST_NORMAL, "  ");
	out_text(o, ST_NORMAL, name ? name : "?");
}

static void report_header(tui *t, view *v, tui_out *o)
{
	(void)t;
	struct report *r = v->data;
	out_printf(o, ST_HEADER, "%8s %8s %7s", "N CALLS", "F CALLS", "DIFF");
	if (r->has_time)
		out_printf(o, ST_HEADER, " %11s %11s %11s %11s %11s %11s  %-*s", "N TOTAL", "F TOTAL",
			   "DIFF", "N SELF", "F SELF", "DIFF", BARW,
			   r->sort == FD_SELF ? "SELF N|F" : "TOTAL N|F");
	out_text(o, ST_HEADER, "  FUNCTION");
	if (!r->has_time)
		out_text(o, ST_DIM, "  (no timestamps: calls only)");
}

static int report_key(tui *t, view *v, int k)
{
	struct report *r = v->data;
	if (k != 's')
		return 0;
	if (!r->has_time) {
		tui_msg(t, ST_DIM, "no timestamps in these traces: sorted by calls only");
		return 1;
	}
	r->sort = (r->sort + 1) % 3;
	resort(r, v);
	v->cur = v->top = 0;
	tui_msg(t, ST_DIM, "sorted by the change of %s", sort_name[r->sort]);
	return 1;
}

static void report_close(view *v)
{
	struct report *r = v->data;
	free(r->d);
	fstats_free(&r->s[0]);
	fstats_free(&r->s[1]);
	free(r);
}

static const view_ops report_ops = {
	.name = "report", .keys = keys, .open = report_open, .line = report_line,
	.key = report_key, .close = report_close, .header = report_header,
};

int view_report_open(tui *t, const char *run_a, int pa, int ta, const char *run_b, int pb, int tb)
{
	struct report *r = xcalloc(1, sizeof *r);
	snprintf(r->run[0], sizeof r->run[0], "%s", run_a);
	snprintf(r->run[1], sizeof r->run[1], "%s", run_b);
	r->p[0] = pa;
	r->t[0] = ta;
	r->p[1] = pb;
	r->t[1] = tb;
	return tui_push(t, &report_ops, r, "difftrace: report") ? 0 : -1;
}
