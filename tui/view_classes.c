/* view_classes.c: the equivalence classes of a run under the current filter, attributes and
 * K: traces with identical attribute sets, then the clusters of the hierarchical clustering,
 * each with its size and compact P.T ranges, then the run's outliers, the traces least like
 * their own cluster, as `rank --run` ranks them (dg_outliers, diagnosis.h). Enter lists a
 * class's traces, or shows an outlier. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/diagnosis.h"
#include "util/ptrange.h"
#include "tui.h"
#include "util/util.h"

struct classes {
	char run[128];
	const an_result *r; /* NULL while it is being computed */
	int state;          /* 1 ready, 0 computing, -1 failed */
	size_t nident;      /* lines 0 .. nident-1: identical sets; then a title; then clusters */
	/* the traces of each class, made once for r (a line lists its class's without going
	 * through every trace): class k of kind x is mem[x][start[x][k] .. start[x][k + 1]) */
	const an_result *ir;
	uint32_t *start[2], *mem[2];
	size_t nk[2];
	/* the outliers of r, most unlike their class first (the first OUTLIERS of them shown) */
	const an_result *or;
	rank_outlier *out;
	size_t nout;
};

#define OUTLIERS 10

static void index_free(struct classes *d)
{
	for (int x = 0; x < 2; x++) {
		free(d->start[x]);
		free(d->mem[x]);
		d->start[x] = d->mem[x] = NULL;
	}
	d->ir = NULL;
	free(d->out);
	d->out = NULL;
	d->or = NULL;
	d->nout = 0;
}

/* The outliers of r, as rank --run ranks them; none when they cannot be computed. */
static void outliers_build(struct classes *d, const an_result *r)
{
	free(d->out);
	d->out = xmalloc((r->n ? r->n : 1) * sizeof *d->out);
	d->nout = 0;
	dt_err e;
	dt_err_clear(&e);
	if (!dg_outliers(r, d->out, &e))
		d->nout = r->n < OUTLIERS ? r->n : OUTLIERS;
	d->or = r;
}

/* The traces of each class of r, in trace order (a counting sort of the labels). */
static void index_build(struct classes *d, const an_result *r)
{
	index_free(d);
	for (int x = 0; x < 2; x++) {
		const uint32_t *label = x == 0 ? r->identical : r->cluster;
		size_t nk = x == 0 ? r->nidentical : r->kcut;
		for (size_t i = 0; i < r->n; i++)
			nk = label[i] + 1 > nk ? label[i] + 1 : nk;
		uint32_t *st = xcalloc(nk + 2, sizeof *st);
		for (size_t i = 0; i < r->n; i++)
			st[label[i] + 2]++;
		for (size_t k = 2; k < nk + 2; k++)
			st[k] += st[k - 1];
		uint32_t *m = xmalloc((r->n ? r->n : 1) * sizeof *m);
		for (size_t i = 0; i < r->n; i++)
			m[st[label[i] + 1]++] = (uint32_t)i;
		d->start[x] = st; /* st[k] .. st[k + 1] now: class k's */
		d->mem[x] = m;
		d->nk[x] = nk;
	}
	d->ir = r;
}

static const tui_keyhelp keys[] = {
	{ "Enter", "the traces of the class; an outlier: the trace" },
	{ "x", "the concept lattice of the run" },
	{ "m", "the similarity matrix of the run" },
	{ NULL, NULL },
};

static int classes_open(tui *t, view *v)
{
	struct classes *d = v->data;
	index_free(d); /* made again for this result, at the first line drawn */
	d->state = tui_analysis(t, d->run, &d->r);
	if (d->state != 1) {
		d->r = NULL;
		v->nlines = 1;
		return 0;
	}
	d->nident = d->r->nidentical;
	outliers_build(d, d->r);
	/* a title line before each section */
	v->nlines = 1 + d->nident + 1 + d->r->kcut + (d->nout ? 1 + d->nout : 0);
	snprintf(v->title, sizeof v->title, "difftrace: classes of %s  (filter %s, attributes %s)",
		 d->run, d->r->filter_alias, d->r->meta.attrs);
	return 0;
}

/* Which class a line is: kind 0 identical, 1 cluster, 2 the k-th outlier, -1 a title line. */
static int which(const struct classes *d, size_t i, uint32_t *k)
{
	size_t nclu = d->r->kcut, out = d->nident + 2 + nclu; /* the outliers' title */
	if (i == 0 || i == d->nident + 1 || i == out)
		return -1;
	if (i <= d->nident) {
		*k = (uint32_t)(i - 1);
		return 0;
	}
	if (i > out) {
		*k = (uint32_t)(i - out - 1);
		return 2;
	}
	*k = (uint32_t)(i - d->nident - 2);
	return 1;
}

/* The traces of class k of kind (0 identical, 1 cluster), in trace order: *n of them. */
static const uint32_t *members(struct classes *d, int kind, uint32_t k, size_t *n)
{
	if (d->ir != d->r)
		index_build(d, d->r);
	if (k >= d->nk[kind]) {
		*n = 0;
		return d->mem[kind];
	}
	*n = d->start[kind][k + 1] - d->start[kind][k];
	return d->mem[kind] + d->start[kind][k];
}

static void classes_line(tui *t, view *v, size_t i, tui_out *o)
{
	struct classes *d = v->data;
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
	uint32_t k;
	int kind = which(d, i, &k);
	if (kind < 0) {
		if (i == 0)
			out_printf(o, ST_HEADER, "%zu classes of traces with identical attribute sets",
				   d->nident);
		else if (i == d->nident + 1)
			out_printf(o, ST_HEADER, "%zu clusters (%s linkage on 1 - Jaccard)", d->r->kcut,
				   d->r->linkage);
		else
			out_printf(o, ST_HEADER,
				   "outliers, the traces least like their own cluster (rank --run): "
				   "#  trace  score  class size");
		return;
	}
	if (kind == 2) {
		if (d->or != d->r)
			outliers_build(d, d->r);
		if (k >= d->nout)
			return;
		const rank_outlier *x = &d->out[k];
		char pt[32];
		snprintf(pt, sizeof pt, "%d.%d", d->r->traces[x->i].proc, d->r->traces[x->i].thread);
		out_printf(o, x->class_size == 1 ? ST_WARN : ST_NORMAL, "%4u  %-9s  %.3f  %zu%s",
			   k + 1, pt, x->score, x->class_size, x->class_size == 1 ? " (alone)" : "");
		return;
	}
	size_t n;
	const uint32_t *m = members(d, kind, k, &n);
	ptr_pt *pts = xmalloc((n ? n : 1) * sizeof *pts);
	for (size_t j = 0; j < n; j++)
		pts[j] = (ptr_pt){ (uint32_t)d->r->traces[m[j]].proc,
				   (uint32_t)d->r->traces[m[j]].thread };
	char *ranges = ptr_format(pts, n);
	out_printf(o, ST_NORMAL, "%5u %6zu  ", k, n);
	out_text(o, n == 1 ? ST_WARN : ST_NORMAL, ranges);
	free(ranges);
	free(pts);
}

static void classes_enter(tui *t, view *v, size_t i)
{
	struct classes *d = v->data;
	uint32_t k;
	int kind;
	if (d->state != 1 || (kind = which(d, i, &k)) < 0)
		return;
	if (kind == 2) {
		if (d->or != d->r || k >= d->nout)
			return;
		uint32_t obj = (uint32_t)d->out[k].i;
		char what[64];
		snprintf(what, sizeof what, "outlier %u", k + 1);
		view_traces_open(t, d->run, &obj, 1, what);
		return;
	}
	size_t n;
	const uint32_t *m = members(d, kind, k, &n);
	uint32_t *objs = xmalloc((n ? n : 1) * sizeof *objs); /* the index may be rebuilt */
	memcpy(objs, m, n * sizeof *objs);
	char what[64];
	snprintf(what, sizeof what, "%s %u", kind == 0 ? "class" : "cluster", k);
	view_traces_open(t, d->run, objs, n, what);
	free(objs);
}

static int classes_key(tui *t, view *v, int k)
{
	struct classes *d = v->data;
	if (k == 'x') {
		view_lattice_open(t, d->run);
		return 1;
	}
	if (k == 'm') {
		view_jsm_open(t, d->run, 0);
		return 1;
	}
	return 0;
}

/* The columns of the class lines. */
static void classes_header(tui *t, view *v, tui_out *o)
{
	(void)t;
	(void)v;
	out_text(o, ST_HEADER, "CLASS   SIZE  TRACES (P.T ranges; a class of one in bold)");
}

static void classes_close(view *v)
{
	index_free(v->data);
	free(v->data);
}

const view_ops view_classes_ops = {
	.name = "classes", .keys = keys, .open = classes_open, .line = classes_line,
	.enter = classes_enter, .key = classes_key, .close = classes_close,
	.header = classes_header,
};

int view_classes_open(tui *t, const char *run)
{
	struct classes *d = xcalloc(1, sizeof *d);
	snprintf(d->run, sizeof d->run, "%s", run);
	return tui_push(t, &view_classes_ops, d, "difftrace: classes of %s", run) ? 0 : -1;
}
