/* view_rank.c: the ranking of a faulty run against a normal one (METHOD.md §8): JSM_D over the
 * traces both runs have, the traces and pairs whose similarity changed most, the B-score of the
 * two clusterings, and the sweep table over every setting both runs have a cached analysis of.
 * It is where a bug hunt starts: Enter on the top trace shows what changed in it.
 *
 * Enter on a pair (i, j) diffs i against j within the faulty run: the pair is ranked because
 * their similarity changed, and in the common case (i and j were alike in the normal run) that
 * diff is exactly what now sets them apart, the bug's trace; p shows the same pair in the normal
 * run, for the roles that differed from the start. Enter on a trace diffs it across the runs.
 *
 * Lines, top to bottom: a summary (two lines: the setting; matched traces, B-score and the
 * traces present in one run only), the ranked traces in the order of `rank` (verdict.h: what
 * changed in each, ties sharing a position) or "no difference found" when no trace's kept
 * events differ, the ranked pairs, and the sweep table (scores, tied traces grouped, a group
 * cut at the end of its list ending in +N, an empty row saying whether its setting sees no
 * difference) when at least two settings are cached for both runs. Everything is computed in
 * open, from the interface's cached analyses (the current setting) and from the store's cache
 * (the sweep), never recomputing an analysis; a sweep row is made as `rank --sweep` makes it
 * (sweep.h). What the ranking is (the setting's, or every call's when the filter is blind; the
 * other calls consulted) is the diagnosis of `rank`
 * (diagnosis.h), which reads the ranking kept in the store when it is there; an analysis of
 * every call it needs is computed in the background, and the view is reopened with it. The
 * views opened from a ranking made under every call use every call, the interface's own
 * setting unchanged. */
#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/ptrange.h"
#include "analysis/rank.h"
#include "analysis/rankcache.h"
#include "analysis/verdict.h"
#include "analysis/verdict_args.h"
#include "analysis/verdict_own.h"
#include "analysis/diagnosis.h"
#include "analysis/sweep.h"
#include "source.h"
#include "store/store_analysis.h"
#include "tui.h"
#include "util/util.h"

/* Bounds, so that opening stays quick on runs with thousands of traces and stores with many
 * cached settings: the pairs list is a top list, the sweep takes the newest settings. */
#define PAIRS_MAX 100
#define SWEEP_MAX 48
#define SWEEP_THREADS 4
#define SWEEP_PROCS 3
#define BAR 16

enum kind {
	L_STATE,   /* computing, or failed */
	L_SETTING, /* summary: filter, attributes, K */
	L_SUMMARY, /* summary: matched, B-score, only in one run */
	L_ONLY_N,
	L_ONLY_F,
	L_STOPPED, /* the faulty run was stopped: which traces were still running */
	L_NODIFF,  /* no trace's kept events differ: no ranking */
	L_BLIND,   /* the filter saw no difference, every call does: ranked under those */
	L_OWNWAIT, /* the filter saw no difference: every call being analysed */
	L_OTHER,   /* the filter singled out no trace: their other calls were compared too */
	L_ARGS,    /* MPI arguments every trace changed alike: a changed input */
	L_COMMON,  /* traces changed only as their peers did: a changed input */
	L_OWNCOMMON, /* the other calls of traces changed only as their peers' did */
	L_SLOW,    /* no calls differ; traces took longer than their peers */
	L_DATA,    /* no calls differ; traces sent other data (verdict_data.h) */
	L_HINT,
	L_BLANK,
	L_TTITLE,
	L_TRACE,
	L_PTITLE,
	L_PAIR,
	L_NOPAIR,
	L_STITLE,
	L_SHEAD,
	L_SWEEP,
};

struct rline {
	int kind;
	size_t i; /* index into the section's array */
};

struct sweep_row {
	int64_t idn, idf; /* the two cached analyses: a row is reused while they are the same */
	char *names;      /* the filter as family names, for tui_set_params */
	char *alias;      /* as the paper names it, with K */
	char *attrs;
	rank_row r;       /* the row as rank --sweep makes it (sweep.h): filter alias, attrs attrs */
};

/* What the cursor was on, to find it again after a reopen rebuilt the lines. */
struct where {
	int kind;
	rank_key a, b;
	int64_t idn, idf;
};

struct rank {
	char normal[128], faulty[128];
	int state;                 /* 1 ready, 0 computing, -1 failed */
	char err[600];
	/* the diagnosis (diagnosis.h), as `rank` makes it: rn, rf and k are its ranking shown
	 * (the interface's analyses, or only their names when it came from the store's cache):
	 * JSM_D without its matrix (k->j), the verdict (k->v), the top pairs with their
	 * similarities, JSM_D's own order for the sweep row */
	dg_verdict dv;
	const an_result *rn, *rf;
	rk_rank *k;
	int have_j;
	double b;                  /* NAN: fewer than 3 matched traces */
	rank_item *it;             /* all matched traces, most changed first */
	double topscore; /* the largest score, for the bars (running traces may come first) */
	const rank_pair *pr;       /* dv's pairs */
	size_t npr;
	char *only_n, *only_f;     /* compact P.T ranges */
	struct sweep_row *sw;
	size_t nsw, sw_more, sw_failed;
	int wf, wa;                /* widths of the sweep's filter and attributes columns */
	struct rline *ln;
	size_t nln, capln;
	struct where want;         /* kind L_STATE: none yet, go to the top trace */
	int opened;                /* a first open that fails pushes no view */
	/* The current setting's analyses the diagnosis was made for (by id, when the store can
	 * keep the ranking), to tell when it must be made again. */
	const an_result *asked_n, *asked_f;
	int64_t asked_idn, asked_idf;
	const char *blind;         /* dv.blind when the diagnosis ranked under every call, else
				      "" */
	int own_pending;           /* the analyses of every call are being computed */
	int own_same;              /* and they found no difference either */
	int other;                 /* the filter singled out no trace: its other calls compared
				      (verdict_own.h), the order is with them */
	/* The setting the ranking is under, for the views opened from it (the diff of a trace
	 * ranked under every call is shown under every call, the interface's own unchanged). */
	tui_params used;
	store_srclines *lines[2];  /* where the normal and faulty runs' functions are defined */
	store_sites sites;         /* the faulty run's call sites */
	char format[32];           /* the faulty run's format */
};

static const tui_keyhelp keys[] = {
	{ "Enter", "trace: its diff, normal | faulty" },
	{ "", "pair i j: diff of i | j in the faulty run" },
	{ "", "sweep row: use its filter, attributes and K" },
	{ "p", "pair i j: diff of i | j in the normal run" },
	{ "t", "trace: its nested loops in the faulty run" },
	{ "T", "trace (pair: its second): the timeline at its first diverging" },
	{ "", "  event, in the faulty run's sync record" },
	{ "S", "where each thread of the faulty run is stuck (hang report)" },
	{ "e", "trace: the source of the call where it changed, in $EDITOR: where the program "
	       "made it (a call of the sync record), else its function's definition" },
	{ "Tab  BTab", "next / previous section" },
	{ "", "traces as rank orders them: diverged, then stopped" },
	{ "", "  early, then identical (score 0); 3= marks a" },
	{ "", "  position tied traces share; no table when no" },
	{ "", "  trace's kept events differ ('no difference found');" },
	{ "", "  then every call is looked at (filter everything)" },
	{ "", "  and, when the program's own functions differ," },
	{ "", "  ranked under them: Enter, p, t show them" },
	{ NULL, NULL },
};

/* ---- the comparison ---- */

static char *keys_text(const rank_key *k, size_t n)
{
	ptr_pt *p = xmalloc((n ? n : 1) * sizeof *p);
	for (size_t i = 0; i < n; i++)
		p[i] = (ptr_pt){ (uint32_t)k[i].proc, (uint32_t)k[i].thread };
	char *s = ptr_format(p, n);
	free(p);
	return s;
}

/* ---- the sweep ---- */

static void sweep_row_free(struct sweep_row *w)
{
	free(w->names);
	free(w->alias);
	free(w->attrs);
}

static void sweep_free(struct rank *d)
{
	for (size_t i = 0; i < d->nsw; i++)
		sweep_row_free(&d->sw[i]);
	free(d->sw);
	d->sw = NULL;
	d->nsw = 0;
}

static int same_score(double a, double b)
{
	return nearbyint(a * 1e9) == nearbyint(b * 1e9);
}

/* One row from two cached analyses, as rank --sweep makes it (sweep.h) with the paper's row
 * sums and the lists this table has room for; -1 when they cannot be loaded or compared. */
static int sweep_compute(store *s, const store_analysis *a, const store_analysis *b,
			 struct sweep_row *w)
{
	dt_err e;
	dt_err_clear(&e);
	an_result rn, rf;
	if (analysis_load(s, a->id, &rn, &e))
		return -1;
	if (analysis_load(s, b->id, &rf, &e)) {
		analysis_result_free(&rn);
		return -1;
	}
	/* the interface clusters with ward, as the analyses it reads */
	sw_opts so = { CLU_WARD, 0, SWEEP_THREADS, SWEEP_PROCS };
	w->idn = a->id;
	w->idf = b->id;
	w->names = xstrndup(a->filter, strcspn(a->filter, "#"));
	w->alias = xstrdup(rn.filter_alias);
	w->attrs = xstrdup(a->attrs);
	w->r.filter = w->alias;
	w->r.attrs = w->attrs;
	int rc = sw_row(s, &rn, &rf, &so, &w->r, NULL, &e);
	analysis_result_free(&rn);
	analysis_result_free(&rf);
	return rc;
}

static int sweep_cmp(const void *x, const void *y)
{
	const struct sweep_row *a = x, *b = y;
	return rank_row_cmp(&a->r, &b->r);
}

static int current_version(const store_analysis *a)
{
	/* a stale version would be recomputed, and the interface has no compatibility mode */
	return a->version && a->filter && !strcmp(a->version, ANALYSIS_VERSION) &&
	       !strstr(a->filter, "+compat");
}

/* Every setting both runs have a current cached analysis of (the newest SWEEP_MAX), rows of the
 * previous build reused when their analyses are the same, so a reopen costs a store query. */
static void sweep_build(tui *t, struct rank *d)
{
	store *s = tui_store(t);
	dt_err e;
	dt_err_clear(&e);
	store_run r[2];
	store_analysis *a[2] = { NULL, NULL };
	size_t n[2] = { 0, 0 };
	int have = 0;
	for (int i = 0; i < 2; i++) {
		if (store_run_get_lite(s, i ? d->faulty : d->normal, &r[i], &e))
			break;
		int bad = store_analysis_list(s, r[i].id, &a[i], &n[i], &e);
		store_run_free(&r[i]);
		if (bad)
			break;
		have++;
	}
	struct sweep_row *rows = xcalloc(SWEEP_MAX, sizeof *rows);
	size_t nrows = 0;
	d->sw_more = d->sw_failed = 0;
	for (size_t x = 0; have == 2 && x < n[0]; x++) {
		const store_analysis *an = &a[0][x];
		if (!current_version(an))
			continue;
		const store_analysis *af = NULL;
		for (size_t y = 0; y < n[1] && !af; y++)
			if (current_version(&a[1][y]) && !strcmp(a[1][y].filter, an->filter) &&
			    !strcmp(a[1][y].attrs, an->attrs) && a[1][y].k == an->k)
				af = &a[1][y];
		if (!af)
			continue;
		if (nrows == SWEEP_MAX) {
			d->sw_more++;
			continue;
		}
		struct sweep_row *old = NULL;
		for (size_t q = 0; q < d->nsw && !old; q++)
			if (d->sw[q].idn == an->id && d->sw[q].idf == af->id && d->sw[q].names)
				old = &d->sw[q];
		if (old) {
			rows[nrows++] = *old;
			memset(old, 0, sizeof *old); /* moved */
		} else if (sweep_compute(s, an, af, &rows[nrows]) == 0) {
			nrows++;
		} else {
			sweep_row_free(&rows[nrows]);
			memset(&rows[nrows], 0, sizeof rows[nrows]);
			d->sw_failed++;
		}
	}
	for (int i = 0; i < 2; i++)
		store_analyses_free(a[i], n[i]);
	sweep_free(d);
	qsort(rows, nrows, sizeof *rows, sweep_cmp);
	d->sw = rows;
	d->nsw = nrows;
	d->wf = 6;
	d->wa = 5;
	for (size_t i = 0; i < nrows; i++) {
		int lf = (int)strlen(rows[i].alias), la = (int)strlen(rows[i].attrs);
		d->wf = lf > d->wf ? lf : d->wf;
		d->wa = la > d->wa ? la : d->wa;
	}
}

/* ---- lines ---- */

static void push(struct rank *d, int kind, size_t i)
{
	GROW(d->ln, d->capln, d->nln + 1);
	d->ln[d->nln++] = (struct rline){ kind, i };
}

static void comparison_free(struct rank *d)
{
	if (d->have_j)
		dg_free(&d->dv);
	d->have_j = 0;
	d->k = NULL;
	free(d->it);
	free(d->only_n);
	free(d->only_f);
	d->it = NULL;
	d->pr = NULL;
	d->only_n = d->only_f = NULL;
	d->npr = 0;
	d->rn = d->rf = NULL;
	d->blind = "";
	d->asked_n = d->asked_f = NULL;
	d->asked_idn = d->asked_idf = 0;
}

/* The first traces whose kept event where they diverged is mapped to its call site when the
 * ranking is laid out; e maps any other. */
#define SITES_AT_OPEN 64u

/* Where the traces it[from, to) of the ranking diverged (vd_fill_sites), when the faulty run
 * has call sites. */
static void fill_sites(tui *t, struct rank *d, size_t from, size_t to)
{
	dt_err e;
	dt_err_clear(&e);
	if (d->sites.n && to > from &&
	    vd_fill_sites(tui_store(t), d->rf, d->format, d->k->j.keys, d->k->v.it + from,
			  to - from, &e)) {
		char m[600];
		dt_err_format(&e, m, sizeof m);
		tui_msg(t, ST_WARN, "no call sites: %s", m);
	}
}

/* What the lines show, from the diagnosis in d->dv. */
static void lay_out(tui *t, struct rank *d)
{
	const dg_verdict *dv = &d->dv;
	d->have_j = 1;
	d->k = (rk_rank *)&dv->use->k;
	d->rn = dv->use->rn;
	d->rf = dv->use->rf;
	d->blind = dv->blind;
	d->own_pending = dv->pending;
	d->own_same = dv->every_same;
	d->other = dv->other[0] != 0;
	d->used = *tui_get_params(t);
	if (dv->blind[0])
		snprintf(d->used.filter, sizeof d->used.filter, "%s", AN_FALLBACK_FILTER);
	d->b = d->k->bscore;
	size_t n = d->k->j.n;
	fill_sites(t, d, 0, n < SITES_AT_OPEN ? n : SITES_AT_OPEN);
	d->it = xmalloc((n ? n : 1) * sizeof *d->it);
	for (size_t i = 0; i < n; i++)
		d->it[i] = (rank_item){ d->k->v.it[i].i, d->k->v.it[i].score };
	d->topscore = 0;
	for (size_t i = 0; i < n; i++)
		d->topscore = d->it[i].score > d->topscore ? d->it[i].score : d->topscore;
	d->pr = dv->pairs; /* the diagnosis's: those whose similarity changed */
	d->npr = dv->npairs;
	d->only_n = keys_text(d->k->j.only_normal, d->k->j.n_only_normal);
	d->only_f = keys_text(d->k->j.only_faulty, d->k->j.n_only_faulty);
}

static int nothing_differs(const struct rank *d)
{
	return d->dv.none;
}

static struct where where_of(const struct rank *d, size_t cur)
{
	struct where w = { L_STATE, { 0, 0 }, { 0, 0 }, 0, 0 };
	if (d->state != 1 || cur >= d->nln)
		return w;
	const struct rline *l = &d->ln[cur];
	w.kind = l->kind;
	if (l->kind == L_TRACE) {
		w.a = d->k->j.keys[d->it[l->i].i];
	} else if (l->kind == L_PAIR) {
		w.a = d->k->j.keys[d->pr[l->i].i];
		w.b = d->k->j.keys[d->pr[l->i].j];
	} else if (l->kind == L_SWEEP) {
		w.idn = d->sw[l->i].idn;
		w.idf = d->sw[l->i].idf;
	} else {
		w.kind = L_BLANK; /* a line with nothing to find again: stay about there */
	}
	return w;
}

static int key_eq(rank_key a, rank_key b)
{
	return a.proc == b.proc && a.thread == b.thread;
}

/* The line of w in the new lines, or of the top trace. */
static size_t find_where(const struct rank *d, const struct where *w, size_t fallback)
{
	size_t first_trace = fallback;
	for (size_t i = 0; i < d->nln; i++) {
		const struct rline *l = &d->ln[i];
		if (l->kind == L_TRACE && first_trace == fallback)
			first_trace = i;
		if (l->kind != w->kind)
			continue;
		if (l->kind == L_TRACE && key_eq(d->k->j.keys[d->it[l->i].i], w->a))
			return i;
		if (l->kind == L_PAIR && key_eq(d->k->j.keys[d->pr[l->i].i], w->a) &&
		    key_eq(d->k->j.keys[d->pr[l->i].j], w->b))
			return i;
		if (l->kind == L_SWEEP && d->sw[l->i].idn == w->idn && d->sw[l->i].idf == w->idf)
			return i;
	}
	return w->kind == L_BLANK ? fallback : first_trace;
}

static int rank_open(tui *t, view *v)
{
	struct rank *d = v->data;
	if (d->state == 1 && d->nln) {
		d->want = where_of(d, v->cur);
		/* the order waited for the other calls (look_at_other_calls): the top stays on top */
		if (d->own_pending && d->want.kind == L_TRACE && v->cur < d->nln &&
		    d->ln[v->cur].i == 0)
			d->want.kind = L_STATE;
	}
	const an_result *rn = NULL, *rf = NULL;
	int64_t idn = 0, idf = 0;
	/* the ranking kept in the store needs only the analyses' ids, not the analyses (not in a
	 * read-only store: the analyses made here are not in it, nor is a ranking kept) */
	int by_id = !store_readonly(tui_store(t));
	int sn = by_id ? tui_analysis_id(t, d->normal, &idn) : tui_analysis(t, d->normal, &rn);
	int sf = by_id ? tui_analysis_id(t, d->faulty, &idf) : tui_analysis(t, d->faulty, &rf);
	d->nln = 0;
	d->state = sn < 0 || sf < 0 ? -1 : sn == 1 && sf == 1 ? 1 : 0;
	if (d->state != 1) {
		comparison_free(d);
		if (d->state < 0 && !d->opened)
			return -1; /* tui_analysis said why (a run that does not exist, a bad filter) */
		if (d->state < 0)
			snprintf(d->err, sizeof d->err, "no ranking: the analysis of %s failed",
				 sn < 0 ? d->normal : d->faulty);
		d->opened = 1;
		push(d, L_STATE, 0);
		v->nlines = d->nln;
		v->cur = v->top = 0;
		return 0;
	}
	int stale = by_id ? !d->have_j || idn != d->asked_idn || idf != d->asked_idf
			  : rn != d->asked_n || rf != d->asked_f;
	if (stale || d->own_pending) {
		dt_err e;
		dt_err_clear(&e);
		comparison_free(d);
		/* the ranking is kept for the next time, unless an analysis is being saved in the
		 * background: the interface would wait for its write lock */
		char what[128];
		dg_source src;
		tui_diag_source(t, by_id, &src);
		const dg_opts o = { .normal = d->normal, .faulty = d->faulty, .linkage = CLU_WARD,
				    .keep = tui_job_progress(t, what, sizeof what) < 0,
				    .pairs = PAIRS_MAX };
		int g = dg_rank(tui_store(t), &src, &o, &d->dv, &e);
		if (g == 0) /* the analyses were there a moment ago: shown when they are again */
			g = dt_errf(&e, DT_EDATA, "the analyses of %s and %s are being computed",
				    d->normal, d->faulty);
		if (g < 0) {
			comparison_free(d);
			d->state = -1;
			snprintf(d->err, sizeof d->err, "no ranking: %s", e.msg);
			if (!d->opened) {
				tui_msg(t, ST_WARN, "%s", d->err);
				return -1;
			}
			push(d, L_STATE, 0);
			v->nlines = d->nln;
			v->cur = v->top = 0;
			return 0;
		}
		lay_out(t, d);
		d->asked_n = rn;
		d->asked_f = rf;
		d->asked_idn = idn;
		d->asked_idf = idf;
	}
	sweep_build(t, d);

	push(d, L_SETTING, 0);
	push(d, L_SUMMARY, 0);
	if (d->k->j.n_only_normal)
		push(d, L_ONLY_N, 0);
	if (d->k->j.n_only_faulty)
		push(d, L_ONLY_F, 0);
	if (d->k->j.n_running)
		push(d, L_STOPPED, 0);
	if (d->nsw < 2)
		push(d, L_HINT, 0);
	push(d, L_BLANK, 0);
	if (d->blind[0])
		push(d, L_BLIND, 0);
	if (d->other)
		push(d, L_OTHER, 0);
	if (d->k->v.args.n)
		push(d, L_ARGS, 0);
	if (d->k->v.ncommon)
		push(d, L_COMMON, 0);
	if (d->k->v.nown_common)
		push(d, L_OWNCOMMON, 0);
	if (d->k->v.ndata)
		push(d, L_DATA, 0);
	if (d->k->v.nslow)
		push(d, L_SLOW, 0);
	if (nothing_differs(d)) {
		push(d, L_NODIFF, 0);
		if (d->own_pending)
			push(d, L_OWNWAIT, 0);
	} else {
		if (d->own_pending)
			push(d, L_OWNWAIT, 0);
		push(d, L_TTITLE, 0);
		for (size_t i = 0; i < d->k->j.n; i++)
			push(d, L_TRACE, i);
		push(d, L_BLANK, 0);
		push(d, L_PTITLE, 0);
		for (size_t i = 0; i < d->npr; i++)
			push(d, L_PAIR, i);
		if (!d->npr)
			push(d, L_NOPAIR, 0);
	}
	if (d->nsw >= 2) {
		push(d, L_BLANK, 0);
		push(d, L_STITLE, 0);
		push(d, L_SHEAD, 0);
		for (size_t i = 0; i < d->nsw; i++)
			push(d, L_SWEEP, i);
	}
	v->nlines = d->nln;
	v->cur = find_where(d, &d->want, v->cur < d->nln ? v->cur : 0);
	d->opened = 1;
	return 0;
}

static void bar(tui_out *o, double score, double top)
{
	int fill = top > 0 ? (int)lround(score / top * BAR) : 0;
	if (score > 1e-12 && fill == 0)
		fill = 1; /* a change, however small, shows */
	for (int i = 0; i < BAR; i++)
		out_text(o, i < fill ? ST_WARN : ST_DIM,
			 i < fill ? (o->utf8 ? "\u2588" : "#") : (o->utf8 ? "\u00b7" : "."));
}

static void pt(char *buf, size_t n, rank_key k)
{
	snprintf(buf, n, "%d.%d", k.proc, k.thread);
}

static int is_current(const struct rank *d, const struct sweep_row *w)
{
	return d->rn && d->rf && w->idn == d->rn->meta.id && w->idf == d->rf->meta.id;
}

/* The call where trace x changed, as its reason names it: where it stopped or spun, or its
 * first call that differs; NULL when none (identical, or it ended early). */
static const char *changed_call(tui *t, const vd_item *x)
{
	uint32_t f = 0;
	int sync, outside;
	if (x->change == VD_STOPPED)
		f = vd_stop_call(x, &sync, &outside); /* as the reason names it */
	else if (x->spun)
		f = x->last_f;
	else if (x->change == VD_DIVERGED && !x->ended)
		f = x->ev_f ? x->ev_f : x->ev_n;
	return f ? store_func_name(tui_store(t), f) : NULL;
}

/* The faulty run's source lines when they place fn, else the normal run's. */
static const store_srclines *lines_of(const struct rank *d, const char *fn)
{
	const char *file;
	int line;
	return store_srclines_find(d->lines[1], fn, &file, &line) ? d->lines[1] : d->lines[0];
}

/* A row of the sweep table: B-score, setting, processes and threads with their scores, tied
 * ones in [brackets], a group cut at the end of its list ending in +N. */
static void sweep_line(const struct rank *d, const struct sweep_row *w, tui_out *o)
{
	char a[32];
	const rank_row *r = &w->r;
	int cur = is_current(d, w);
	out_text(o, cur ? ST_KEY : ST_NORMAL, cur ? "* " : "  ");
	if (isnan(r->bscore))
		out_text(o, ST_NORMAL, "      -  ");
	else
		out_printf(o, ST_NORMAL, "%7.3f  ", r->bscore);
	out_printf(o, ST_NORMAL, "%-*s  %-*s  %2d  ", d->wf, w->alias, d->wa, w->attrs, r->k);
	char procs[96] = "";
	size_t pl = 0;
	for (size_t q = 0; q < r->n_procs && pl < sizeof procs; q++) {
		/* a group cut at the end of the list says how many more tie: [0 1 +1] */
		int cut = q + 1 == r->n_procs && r->more_procs;
		int g = q + 1 < r->n_procs &&
			same_score(r->proc_score[q], r->proc_score[q + 1]);
		int gp = q && same_score(r->proc_score[q], r->proc_score[q - 1]);
		pl += (size_t)snprintf(procs + pl, sizeof procs - pl, "%s%s%d", q ? " " : "",
				       (g || cut) && !gp ? "[" : "", r->top_procs[q]);
		if (cut && pl < sizeof procs)
			pl += (size_t)snprintf(procs + pl, sizeof procs - pl, " +%zu",
					       r->more_procs);
		if (!g && pl < sizeof procs)
			pl += (size_t)snprintf(procs + pl, sizeof procs - pl, "%s %.2f",
					       gp || cut ? "]" : "", r->proc_score[q]);
	}
	out_printf(o, ST_NORMAL, "%-9s  ", r->n_procs ? procs : "-");
	for (size_t q = 0; q < r->n_threads; q++) {
		int cut = q + 1 == r->n_threads && r->more_threads;
		int g = q + 1 < r->n_threads &&
			same_score(r->thread_score[q], r->thread_score[q + 1]);
		int gp = q && same_score(r->thread_score[q], r->thread_score[q - 1]);
		pt(a, sizeof a, r->top_threads[q]);
		out_printf(o, ST_NORMAL, "%s%s%s", q ? " " : "",
			   (g || cut) && !gp ? "[" : "", a);
		if (cut)
			out_printf(o, ST_NORMAL, " +%zu", r->more_threads);
		if (!g)
			out_printf(o, ST_DIM, "%s %.2f", gp || cut ? "]" : "",
				   r->thread_score[q]);
	}
	if (!r->n_threads)
		out_text(o, ST_DIM,
			 r->empty == RANK_ROW_SAME    ? "- (no difference)"
			 : r->empty == RANK_ROW_BLIND ? "- (kept events differ)"
						      : "-");
}

static void rank_line(tui *t, view *v, size_t i, tui_out *o)
{
	struct rank *d = v->data;
	const struct rline *l = &d->ln[i];
	char a[32], b[32];
	switch (l->kind) {
	case L_STATE:
		if (d->state < 0) {
			out_text(o, ST_WARN, d->err);
		} else {
			char what[128];
			int pct = tui_job_progress(t, what, sizeof what);
			out_printf(o, ST_DIM, "computing the analyses of %s and %s ... %s %s",
				   d->normal, d->faulty, pct < 0 ? "" : what, tui_job_pct(t, pct));
		}
		break;
	case L_SETTING:
		out_printf(o, ST_NORMAL, "filter %s  attributes %s  K %d", d->rn->filter_alias,
			   d->rn->meta.attrs, d->rn->meta.k);
		break;
	case L_SUMMARY:
		if (isnan(d->b))
			out_text(o, ST_HEADER, "B-score - (under 3 traces)");
		else
			out_printf(o, ST_HEADER, "B-score %.3f", d->b);
		out_printf(o, ST_NORMAL, "  %zu traces matched  ", d->k->j.n);
		out_printf(o, d->k->j.n_only_normal + d->k->j.n_only_faulty ? ST_WARN : ST_NORMAL,
			   "%zu only in normal  %zu only in faulty", d->k->j.n_only_normal,
			   d->k->j.n_only_faulty);
		break;
	case L_ONLY_N:
		out_printf(o, ST_WARN, "only in %s: %s", d->normal, d->only_n);
		break;
	case L_ONLY_F:
		out_printf(o, ST_WARN, "only in %s: %s", d->faulty, d->only_f);
		break;
	case L_STOPPED:
		out_printf(o, ST_WARN,
			   "%s was stopped: %zu trace%s still running %.1f s after the others went "
			   "quiet",
			   d->faulty, d->k->j.n_running, d->k->j.n_running == 1 ? "" : "s", d->k->j.quiet);
		break;
	case L_NODIFF:
		out_printf(o, ST_HEADER,
			   "no difference found under %s/%s: every trace's kept events are identical "
			   "to its counterpart's", d->rn->filter_alias, d->rn->meta.attrs);
		if (d->own_same)
			out_text(o, ST_DIM, ", and so are all their calls (filter " AN_FALLBACK_FILTER ")");
		break;
	case L_BLIND:
		out_printf(o, ST_WARN,
			   "filter %s sees no difference; the program's own functions do: ranked "
			   "under filter " AN_FALLBACK_FILTER " (the views opened here use it)", d->blind);
		break;
	case L_DATA:
		out_printf(o, ST_WARN,
			   "no calls differ; %zu trace%s sent other data or passed other arguments "
			   "(sync record)",
			   d->k->v.ndata, d->k->v.ndata == 1 ? "" : "s");
		break;
	case L_SLOW:
		out_printf(o, ST_WARN,
			   "%s; %zu trace%s took longer than %s peers in a function of %s own",
			   d->k->v.all_input ? "no calls differ but as the input changed them"
					     : "no calls differ",
			   d->k->v.nslow, d->k->v.nslow == 1 ? "" : "s",
			   d->k->v.nslow == 1 ? "its" : "their", d->k->v.nslow == 1 ? "its" : "their");
		break;
	case L_ARGS: {
		char cc[512];
		vd_args_text(tui_store(t), &d->k->v.args, cc, sizeof cc);
		out_printf(o, ST_WARN,
			   "every trace that makes these calls changed their arguments alike (%s): "
			   "a changed input, left out of each trace's comparison",
			   cc);
		break;
	}
	case L_COMMON: {
		char cc[512];
		vd_common_text(tui_store(t), &d->k->v, cc, sizeof cc);
		out_printf(o, ST_WARN,
			   "%zu trace%s changed only as %s peers did (%s): a changed input, ranked "
			   "after the traces that changed more",
			   d->k->v.ncommon, d->k->v.ncommon == 1 ? "" : "s",
			   d->k->v.ncommon == 1 ? "its" : "their", cc);
		break;
	}
	case L_OWNCOMMON: {
		char cc[512];
		vd_cc_text(tui_store(t), &d->k->v.own_common, cc, sizeof cc);
		out_printf(o, ST_WARN,
			   "the other calls of %zu trace%s changed only as %s peers' did (%s): a "
			   "changed input, left out of their comparison",
			   d->k->v.nown_common, d->k->v.nown_common == 1 ? "" : "s",
			   d->k->v.nown_common == 1 ? "its" : "their", cc);
		break;
	}
	case L_OTHER:
		out_printf(o, ST_WARN,
			   "filter %s does not single out a trace (%s): the traces whose other calls "
			   "(filter " AN_FALLBACK_FILTER ") differ too come first in each class",
			   d->rn->filter_alias,
			   d->k->v.ndiff == d->k->v.n ? "every trace differs" : "the first place is tied");
		break;
	case L_OWNWAIT: {
		char what[128];
		int pct = tui_job_progress(t, what, sizeof what);
		out_printf(o, ST_DIM, "  looking at every call (filter " AN_FALLBACK_FILTER ") ... %s %s",
			   pct < 0 ? "" : what, tui_job_pct(t, pct));
		break;
	}
	case L_HINT:
		out_text(o, ST_DIM, "no sweep table: 'difftrace rank --sweep' caches more settings");
		break;
	case L_BLANK:
		break;
	case L_TTITLE:
		out_text(o, ST_HEADER, "   # TRACE      SCORE                    KEPT EVENTS  WHAT CHANGED");
		break;
	case L_TRACE: {
		const vd_item *x = &d->k->v.it[l->i];
		rank_key k = d->k->j.keys[x->i];
		pt(a, sizeof a, k);
		int tied = (l->i && d->k->v.it[l->i - 1].pos == x->pos) ||
			   (l->i + 1 < d->k->v.n && d->k->v.it[l->i + 1].pos == x->pos);
		char pos[24];
		snprintf(pos, sizeof pos, "%zu%s", x->pos, tied ? "=" : "");
		out_printf(o, ST_NORMAL, "%4s %-7s %7.3f  ", pos, a, x->score);
		bar(o, x->score, d->topscore);
		unsigned long long en = x->kept_n, ef = x->kept_f;
		out_printf(o, x->change ? ST_WARN : ST_DIM, "  %llu %s %llu  ", en,
			   x->change ? "->" : "==", ef);
		char why[512];
		vd_reason_sites(tui_store(t), x, &d->sites, why, sizeof why);
		out_text(o, x->change ? ST_WARN : ST_DIM, why);
		const char *fn = changed_call(t, x);
		if (fn && !vd_change_site(x)) /* else the reason says where the call was made */
			tui_src_suffix(o, lines_of(d, fn), fn);
		break;
	}
	case L_PTITLE:
		out_text(o, ST_HEADER, "   # PAIR             JSM_D  NORMAL  FAULTY");
		break;
	case L_PAIR: {
		const rank_pair *p = &d->pr[l->i];
		pt(a, sizeof a, d->k->j.keys[p->i]);
		pt(b, sizeof b, d->k->j.keys[p->j]);
		double jn = d->k->pair_jn[l->i], jf = d->k->pair_jf[l->i];
		out_printf(o, ST_NORMAL, "%4zu %-7s %-7s  %6.3f   %5.3f   %5.3f", l->i + 1, a, b,
			   p->score, jn, jf);
		break;
	}
	case L_NOPAIR:
		out_text(o, ST_DIM, "no pair of traces changed its similarity");
		break;
	case L_STITLE:
		out_printf(o, ST_HEADER,
			   "sweep over %zu settings cached for both runs, lowest B-score first"
			   " (*: current)", d->nsw);
		if (d->sw_more)
			out_printf(o, ST_DIM, " (%zu older not shown)", d->sw_more);
		if (d->sw_failed)
			out_printf(o, ST_WARN, " (%zu unreadable)", d->sw_failed);
		break;
	case L_SHEAD:
		out_printf(o, ST_HEADER, "  B-SCORE  %-*s  %-*s   K  TOP PROCS  TOP THREADS", d->wf,
			   "FILTER", d->wa, "ATTRS");
		break;
	case L_SWEEP:
		sweep_line(d, &d->sw[l->i], o);
		break;
	}
}

/* The setting the views opened from here use: the ranking's. A ranking made under every call
 * because the filter saw no difference shows its traces under every call too, without
 * changing the interface's filter (the next :rank is under it, as `difftrace rank` is); NULL:
 * the interface's own. */
static const tui_params *as_ranked(const struct rank *d)
{
	return d->blind[0] ? &d->used : NULL;
}

static void rank_enter(tui *t, view *v, size_t i)
{
	struct rank *d = v->data;
	if (d->state != 1 || i >= d->nln)
		return;
	const struct rline *l = &d->ln[i];
	if (l->kind == L_TRACE) {
		rank_key k = d->k->j.keys[d->it[l->i].i];
		view_diff_open_as(t, as_ranked(d), d->normal, k.proc, k.thread, d->faulty, k.proc,
				  k.thread);
	} else if (l->kind == L_PAIR) {
		rank_key a = d->k->j.keys[d->pr[l->i].i], b = d->k->j.keys[d->pr[l->i].j];
		view_diff_open_as(t, as_ranked(d), d->faulty, a.proc, a.thread, d->faulty, b.proc,
				  b.thread);
	} else if (l->kind == L_SWEEP) {
		const struct sweep_row *w = &d->sw[l->i];
		tui_params p = *tui_get_params(t);
		snprintf(p.filter, sizeof p.filter, "%s", w->names);
		snprintf(p.attrs, sizeof p.attrs, "%s", w->attrs);
		p.k = (unsigned)w->r.k;
		char alias[128];
		snprintf(alias, sizeof alias, "%s", w->alias);
		d->want = where_of(d, i);
		tui_set_params(t, &p); /* reopens this view: w is gone */
		tui_msg(t, ST_DIM, "now filter %s (%s), attributes %s, K %u", p.filter, alias, p.attrs,
			p.k);
	}
}

/* The first line of each section a Tab visits. */
static size_t sections(const struct rank *d, size_t *s)
{
	size_t n = 0;
	int last = -1;
	for (size_t i = 0; i < d->nln; i++) {
		int k = d->ln[i].kind;
		if ((k == L_TRACE || k == L_PAIR || k == L_NOPAIR || k == L_SWEEP) && k != last)
			s[n++] = i;
		if (k != L_BLANK)
			last = k;
	}
	return n;
}

static int rank_key_fn(tui *t, view *v, int k)
{
	struct rank *d = v->data;
	if (d->state != 1)
		return 0;
	const struct rline *l = v->cur < d->nln ? &d->ln[v->cur] : NULL;
	if (k == '\t' || k == KEY_BTAB) {
		size_t s[4], n = sections(d, s);
		if (!n)
			return 1;
		size_t at = n; /* the section the cursor is in; n: above the first */
		for (size_t q = 0; q < n; q++)
			if (v->cur >= s[q])
				at = q;
		size_t to = k == '\t' ? (at == n ? 0 : (at + 1) % n) : (at == n || at == 0 ? n - 1 : at - 1);
		v->cur = s[to];
		/* show the section's title with it, scrolling only when it is not in sight */
		size_t rows = tui_rows(t) > 4 ? (size_t)tui_rows(t) - 3 : 1;
		size_t title = v->cur >= 2 ? v->cur - 2 : 0;
		if (title < v->top || v->cur >= v->top + rows)
			v->top = title;
		return 1;
	}
	if (k == 'p' && l) {
		if (l->kind != L_PAIR) {
			tui_msg(t, ST_WARN, "p works on a pair (Tab goes to the pairs)");
			return 1;
		}
		rank_key a = d->k->j.keys[d->pr[l->i].i], b = d->k->j.keys[d->pr[l->i].j];
		view_diff_open_as(t, as_ranked(d), d->normal, a.proc, a.thread, d->normal, b.proc,
				  b.thread);
		return 1;
	}
	if (k == 'T' && l) {
		if (l->kind == L_TRACE) {
			rank_key a = d->k->j.keys[d->it[l->i].i];
			view_timeline_diverge(t, d->normal, a.proc, a.thread, d->faulty, a.proc, a.thread);
		} else if (l->kind == L_PAIR) {
			rank_key a = d->k->j.keys[d->pr[l->i].i], b = d->k->j.keys[d->pr[l->i].j];
			view_timeline_diverge(t, d->faulty, a.proc, a.thread, d->faulty, b.proc, b.thread);
		} else {
			tui_msg(t, ST_WARN, "T works on a trace or a pair");
		}
		return 1;
	}
	if (k == 'S') {
		view_hang_open(t, d->faulty, d->normal);
		return 1;
	}
	if (k == 'e' && l) {
		if (l->kind != L_TRACE) {
			tui_msg(t, ST_WARN, "e works on a trace: the call where it changed");
			return 1;
		}
		const char *fn = changed_call(t, &d->k->v.it[l->i]);
		if (!fn) {
			tui_msg(t, ST_WARN, "no call where trace changed (identical, or it ended early)");
			return 1;
		}
		/* where the program made the call, when the sync record has it */
		fill_sites(t, d, l->i, l->i + 1);
		uint32_t site = vd_change_site(&d->k->v.it[l->i]);
		if (site)
			tui_site_edit(t, &d->sites, site, 1);
		else
			tui_src_edit(t, lines_of(d, fn), fn);
		return 1;
	}
	if (k == 't' && l) {
		if (l->kind != L_TRACE) {
			tui_msg(t, ST_WARN, "t works on a trace");
			return 1;
		}
		rank_key a = d->k->j.keys[d->it[l->i].i];
		view_trace_open_as(t, as_ranked(d), d->faulty, a.proc, a.thread);
		return 1;
	}
	return 0;
}

static void rank_close(view *v)
{
	struct rank *d = v->data;
	comparison_free(d);
	sweep_free(d);
	store_srclines_free(d->lines[0]);
	store_srclines_free(d->lines[1]);
	store_sites_free(&d->sites);
	free(d->ln);
	free(d);
}

static const view_ops rank_ops = {
	.name = "rank", .keys = keys, .open = rank_open, .line = rank_line,
	.enter = rank_enter, .key = rank_key_fn, .close = rank_close,
};

int view_rank_open(tui *t, const char *normal, const char *faulty)
{
	struct rank *d = xcalloc(1, sizeof *d);
	/* copies first: the names may be the interface's pair, which tui_set_pair frees */
	snprintf(d->normal, sizeof d->normal, "%s", normal);
	snprintf(d->faulty, sizeof d->faulty, "%s", faulty);
	d->want.kind = L_STATE;
	d->b = NAN;
	d->blind = "";
	d->lines[0] = tui_src_load(t, normal);
	d->lines[1] = tui_src_load(t, faulty);
	tui_sites_load(t, faulty, &d->sites, d->format, sizeof d->format);
	if (!tui_push(t, &rank_ops, d, "difftrace: ranking %s against %s", d->faulty, d->normal))
		return -1; /* d is freed */
	tui_set_pair(t, d->normal, d->faulty);
	return 0;
}
