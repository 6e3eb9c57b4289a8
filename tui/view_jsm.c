/* view_jsm.c: the Jaccard similarity matrix (JSM) of a run as a heat map of characters, and
 * JSM_D = |JSM_faulty - JSM_normal| of the marked pair of runs.
 *
 * Each row of the matrix is a line of the framework's list, so rows scroll, page and search
 * like any view; columns scroll with a second cursor kept here. The cell under the cursor is
 * framed by [ ] and spelled out (both traces, the exact value, their clusters) in the title
 * line, which is always on screen, and in more detail in the message line. Shades are
 * characters first (an ASCII ramp, or block elements on a UTF-8 terminal) and ST_SHADE styles
 * second, so the map reads without colour and in screen dumps.
 *
 * Zoomed out, a cell stands for a block of traces: its shade is the block's mean for a JSM and
 * its maximum for JSM_D, so that a single changed pair still shows among 1,024 traces. */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/rank.h"
#include "tui.h"
#include "util/util.h"

struct jsm {
	char run[128];            /* the run whose JSM is shown, unless delta */
	int delta;                /* showing JSM_D of normal and faulty */
	char normal[128], faulty[128];
	int state;                /* 1 ready, 0 being computed, -1 failed */
	char why[512];            /* why it failed, when the framework did not say */
	size_t n;                 /* traces: rows = columns */
	const float *m;           /* nm x nm, the values shown: row i is row mc[i] of m */
	size_t nm;
	const uint32_t *mc;
	uint32_t *own_mc;         /* mc when this view computed it (JSM_D) */
	int utf8;                 /* the shades are block elements (the legend says so) */
	float *own;               /* m when this view computed it (JSM_D) */
	rank_key *keys;           /* the P.T of row i */
	const an_result *r;       /* the run, or the normal run for JSM_D */
	const an_result *rf;      /* the faulty run for JSM_D */
	size_t *row_a, *row_b;    /* object of row i in r and rf (JSM_D); NULL: object i */
	size_t only_normal, only_faulty;
	int labw;                 /* columns of the widest P.T */
	size_t zoom;              /* traces per side of a cell */
	size_t col, left;         /* cursor column, first column shown (in cells) */
	rank_key want_row, want_col; /* the traces under the cursor, kept across reopening */
	int have_want;
};

static const tui_keyhelp keys[] = {
	{ "Up Down  k j", "the row above, below" },
	{ "Left Right  h l", "the column left, right (q, Esc: back)" },
	{ "PgUp PgDn  C-b C-f  - Space", "a page of rows (C-u C-d: half a page)" },
	{ "H  L", "a page of columns left, right" },
	{ "g G  Home End", "the first, last row" },
	{ "0  $", "the first, last column" },
	{ "1  2", "the JSM of the marked normal, faulty run" },
	{ "3", "JSM_D = |faulty - normal| of the marked pair" },
	{ "Enter", "diff the two traces (JSM_D: normal vs faulty)" },
	{ "Enter", "zoomed out: zoom in on the cell" },
	{ "d", "diff the row's trace, normal vs faulty run" },
	{ "*", "the most changed (JSM_D), least similar pair" },
	{ "z  Z", "zoom out, in (a cell: mean; JSM_D: maximum)" },
	{ "=", "zoom out to fit the whole matrix" },
	{ NULL, NULL },
};

/* ---- the matrix ---- */

static void drop(struct jsm *d)
{
	free(d->own);
	free(d->own_mc);
	d->own_mc = NULL;
	d->mc = NULL;
	free(d->keys);
	free(d->row_a);
	free(d->row_b);
	d->own = NULL;
	d->keys = NULL;
	d->row_a = d->row_b = NULL;
	d->m = NULL;
	d->r = d->rf = NULL;
	d->n = 0;
	d->only_normal = d->only_faulty = 0;
}

static int ready(const struct jsm *d)
{
	return d->state == 1 && d->n;
}

static size_t ncells(const struct jsm *d)
{
	return (d->n + d->zoom - 1) / d->zoom;
}

static void label(const struct jsm *d, size_t tr, char *buf, size_t n)
{
	snprintf(buf, n, "%d.%d", d->keys[tr].proc, d->keys[tr].thread);
}

/* The block of cell (ci, cj): its mean, minimum and maximum. */
static float val(const struct jsm *d, size_t i, size_t j)
{
	return d->m[(size_t)d->mc[i] * d->nm + d->mc[j]];
}

static void block(const struct jsm *d, size_t ci, size_t cj, float *mean, float *lo, float *hi)
{
	size_t i0 = ci * d->zoom, j0 = cj * d->zoom;
	size_t i1 = i0 + d->zoom < d->n ? i0 + d->zoom : d->n;
	size_t j1 = j0 + d->zoom < d->n ? j0 + d->zoom : d->n;
	double sum = 0;
	float mn = 1, mx = 0;
	for (size_t i = i0; i < i1; i++)
		for (size_t j = j0; j < j1; j++) {
			float x = val(d, i, j);
			sum += x;
			if (x < mn)
				mn = x;
			if (x > mx)
				mx = x;
		}
	*mean = (float)(sum / (double)((i1 - i0) * (j1 - j0)));
	*lo = mn;
	*hi = mx;
}

static float shade_value(const struct jsm *d, size_t ci, size_t cj)
{
	if (d->zoom == 1)
		return val(d, ci, cj);
	float mean, lo, hi;
	block(d, ci, cj, &mean, &lo, &hi);
	return d->delta ? hi : mean;
}

/* Levels: only an exact 0 is blank, so that the smallest change in JSM_D still shows. */
static int level(float x, int nlevels)
{
	if (!(x > 0))
		return 0;
	int k = 1 + (int)(x * (float)(nlevels - 1));
	return k > nlevels - 1 ? nlevels - 1 : k;
}

static const char *shade_char(float x, int utf8)
{
	static const char *const ramp[] = { " ", ".", ":", "-", "=", "+", "*", "#", "%", "@" };
	static const char *const blocks[] = { " ", "\xe2\x96\x91", "\xe2\x96\x92", "\xe2\x96\x93",
					      "\xe2\x96\x88" };
	return utf8 ? blocks[level(x, 5)] : ramp[level(x, 10)];
}

static int shade_style(float x)
{
	return ST_SHADE0 + level(x, 5);
}

static uint32_t cluster_of(const an_result *r, const size_t *rows, size_t i)
{
	return r->cluster[rows ? rows[i] : i];
}

/* The value of one pair of traces in the normal (which 0) or faulty (1) matrix of JSM_D. */
static float pair_value(const struct jsm *d, int which, size_t i, size_t j)
{
	const an_result *r = which ? d->rf : d->r;
	const size_t *rows = which ? d->row_b : d->row_a;
	return analysis_sim(r, rows[i], rows[j]);
}

/* ---- layout: shared by the header, the lines and the keys, so that they agree ---- */

struct lay {
	int x0;      /* display column of the first cell */
	int cw;      /* columns per cell: a slot for the cursor's brackets, then the shade */
	size_t nvis; /* cells shown */
};

static void lay_out(struct jsm *d, int width, struct lay *L)
{
	size_t nc = ncells(d);
	L->x0 = d->labw + 1;
	/* every column gets its label when the matrix is narrow enough (with a blank between
	 * labels when it is narrower still), else cells are two wide */
	L->cw = 2;
	for (int cw = d->labw + 2; cw > d->labw; cw--)
		if ((size_t)L->x0 + nc * (size_t)cw + 1 <= (size_t)width) {
			L->cw = cw;
			break;
		}
	int room = width - L->x0 - 1;
	size_t vis = room >= L->cw ? (size_t)(room / L->cw) : 1;
	L->nvis = vis < nc ? vis : nc;
	if (d->col >= nc)
		d->col = nc ? nc - 1 : 0;
	if (d->col < d->left)
		d->left = d->col;
	if (d->col >= d->left + L->nvis)
		d->left = d->col - L->nvis + 1;
	if (d->left + L->nvis > nc)
		d->left = nc - L->nvis;
}

static int list_width(tui *t)
{
	return tui_cols(t) - 2; /* the framework's gutter */
}

static size_t page_rows(tui *t)
{
	int r = tui_rows(t) - 4; /* title, header, status, message */
	return r > 1 ? (size_t)r : 1;
}

/* ---- the title and the message: what the cursor is on ---- */

/* Copies src into dst[n], cut at n - 1 bytes. */
static void set_str(char *dst, size_t n, const char *src)
{
	size_t l = strlen(src);
	if (l >= n)
		l = n - 1;
	memcpy(dst, src, l);
	dst[l] = 0;
}

static void set_title(struct jsm *d, view *v)
{
	char what[300], title[1024];
	if (d->delta)
		snprintf(what, sizeof what, "|%s - %s|", d->faulty, d->normal);
	else
		snprintf(what, sizeof what, "of %s", d->run);
	const char *name = d->delta ? "JSM_D" : "JSM";
	if (!ready(d)) {
		snprintf(title, sizeof title, "difftrace: %s %s", name, what);
		set_str(v->title, sizeof v->title, title);
		return;
	}
	char a[32], b[32], zoom[32] = "";
	size_t i = v->cur * d->zoom, j = d->col * d->zoom;
	label(d, i, a, sizeof a);
	label(d, j, b, sizeof b);
	char cell[200];
	if (d->zoom > 1) {
		char a1[32], b1[32];
		float mean, lo, hi;
		size_t ie = i + d->zoom < d->n ? i + d->zoom - 1 : d->n - 1;
		size_t je = j + d->zoom < d->n ? j + d->zoom - 1 : d->n - 1;
		label(d, ie, a1, sizeof a1);
		label(d, je, b1, sizeof b1);
		block(d, v->cur, d->col, &mean, &lo, &hi);
		snprintf(zoom, sizeof zoom, " 1:%zu", d->zoom);
		snprintf(cell, sizeof cell, "%s..%s x %s..%s  mean %.3f min %.3f max %.3f", a, a1, b,
			 b1, mean, lo, hi);
	} else if (d->delta) {
		snprintf(cell, sizeof cell, "%s x %s = %.4f (%.3f -> %.3f)", a, b,
			 val(d, i, j), pair_value(d, 0, i, j), pair_value(d, 1, i, j));
	} else {
		snprintf(cell, sizeof cell, "%s x %s = %.4f  (clusters %u, %u)", a, b,
			 val(d, i, j), cluster_of(d->r, d->row_a, i),
			 cluster_of(d->r, d->row_a, j));
	}
	char extra[64] = "";
	if (d->only_normal || d->only_faulty)
		snprintf(extra, sizeof extra, "  [+%zu in one run only]",
			 d->only_normal + d->only_faulty);
	/* the cell first: the run names may be long */
	if (d->delta)
		snprintf(title, sizeof title, "difftrace: JSM_D%s %s  %s  [%.200s]%s", zoom, cell, what,
			 d->r->filter_alias, extra);
	else
		snprintf(title, sizeof title, "difftrace: JSM %s%s  %s  [%.200s]%s", what, zoom, cell,
			 d->r->filter_alias, extra);
	/* the legend of the shades, as they are drawn */
	size_t tl = strlen(title);
	snprintf(title + tl, sizeof title - tl, "  legend: blank 0, then %s up to 1",
		 d->utf8 ? "\xe2\x96\x91 \xe2\x96\x92 \xe2\x96\x93 \xe2\x96\x88"
			 : ". : - = + * # % @");
	set_str(v->title, sizeof v->title, title);
}

/* The cell in full, in the message line: exact values and both traces' classes. */
static void cell_msg(tui *t, struct jsm *d, view *v)
{
	if (!ready(d) || d->zoom > 1)
		return;
	size_t i = v->cur, j = d->col;
	char a[32], b[32];
	label(d, i, a, sizeof a);
	label(d, j, b, sizeof b);
	if (d->delta) {
		tui_msg(t, ST_NORMAL, "%s: cluster %u->%u  %s: cluster %u->%u  |%.6f - %.6f| = %.6f",
			a, cluster_of(d->r, d->row_a, i), cluster_of(d->rf, d->row_b, i), b,
			cluster_of(d->r, d->row_a, j), cluster_of(d->rf, d->row_b, j),
			pair_value(d, 1, i, j), pair_value(d, 0, i, j), val(d, i, j));
		return;
	}
	size_t oi = d->row_a ? d->row_a[i] : i, oj = d->row_a ? d->row_a[j] : j;
	tui_msg(t, ST_NORMAL, "%s: class %u, cluster %u   %s: class %u, cluster %u   J = %.6f", a,
		d->r->identical[oi], d->r->cluster[oi], b, d->r->identical[oj], d->r->cluster[oj],
		val(d, i, j));
}

/* ---- opening ---- */

static void load_run(tui *t, struct jsm *d)
{
	const an_result *r;
	d->state = tui_analysis(t, d->run, &r);
	if (d->state != 1)
		return;
	d->r = r;
	d->n = r->n;
	d->m = r->jsm;
	d->nm = r->nrows;
	d->mc = r->row;
	d->keys = analysis_keys(r);
}

static void keys_and_matrix(const an_result *r, rank_key **k, double **m)
{
	*k = analysis_keys(r);
	*m = analysis_jsm(r);
}

static void load_delta(tui *t, struct jsm *d)
{
	const an_result *rn, *rf;
	/* both asked for before looking at either, so that both get computed */
	int a = tui_analysis(t, d->normal, &rn);
	int b = tui_analysis(t, d->faulty, &rf);
	if (a < 0 || b < 0) {
		d->state = -1;
		return;
	}
	if (!a || !b) {
		d->state = 0;
		return;
	}
	rank_key *kn, *kf;
	double *jn, *jf;
	keys_and_matrix(rn, &kn, &jn);
	keys_and_matrix(rf, &kf, &jf);
	rank_jsmd j;
	dt_err e;
	dt_err_clear(&e);
	int r = rank_jsmd_build_rows(kn, rn->row, jn, rn->nrows, rn->n, kf, rf->row, jf, rf->nrows,
				     rf->n, &j, &e);
	free(kn);
	free(kf);
	free(jn);
	free(jf);
	if (r) {
		d->state = -1;
		snprintf(d->why, sizeof d->why, "%s", e.msg);
		return;
	}
	d->state = 1;
	d->r = rn;
	d->rf = rf;
	d->n = j.n;
	d->own = xmalloc((j.nc ? j.nc * j.nc : 1) * sizeof *d->own);
	for (size_t i = 0; i < j.nc * j.nc; i++)
		d->own[i] = (float)j.cd[i];
	d->m = d->own;
	d->nm = j.nc;
	d->mc = d->own_mc = j.cls;
	j.cls = NULL;
	/* the view keeps the match: steal it from j before freeing the rest */
	d->keys = j.keys;
	d->row_a = j.row_normal;
	d->row_b = j.row_faulty;
	j.keys = NULL;
	j.row_normal = j.row_faulty = NULL;
	d->only_normal = j.n_only_normal;
	d->only_faulty = j.n_only_faulty;
	rank_jsmd_free(&j);
}

static size_t find_key(const struct jsm *d, rank_key k)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->keys[i].proc == k.proc && d->keys[i].thread == k.thread)
			return i;
	return 0;
}

static int jsm_open(tui *t, view *v)
{
	struct jsm *d = v->data;
	if (ready(d)) {
		d->want_row = d->keys[v->cur * d->zoom < d->n ? v->cur * d->zoom : 0];
		d->want_col = d->keys[d->col * d->zoom < d->n ? d->col * d->zoom : 0];
		d->have_want = 1;
	}
	drop(d);
	d->why[0] = 0;
	if (d->delta)
		load_delta(t, d);
	else
		load_run(t, d);
	if (!ready(d)) {
		v->nlines = 1;
		v->cur = 0;
		set_title(d, v);
		return 0;
	}
	d->labw = 3;
	for (size_t i = 0; i < d->n; i++) {
		char b[32];
		label(d, i, b, sizeof b);
		if ((int)strlen(b) > d->labw)
			d->labw = (int)strlen(b);
	}
	if (d->zoom > 1 && d->zoom >= d->n * 2)
		d->zoom = 1; /* a smaller matrix than the one zoomed out on */
	v->nlines = ncells(d);
	if (d->have_want) {
		v->cur = find_key(d, d->want_row) / d->zoom;
		d->col = find_key(d, d->want_col) / d->zoom;
	}
	if (v->cur >= v->nlines)
		v->cur = v->nlines - 1;
	if (d->col >= v->nlines)
		d->col = v->nlines - 1;
	set_title(d, v);
	return 0;
}

/* ---- drawing ---- */

static void not_ready_line(tui *t, struct jsm *d, tui_out *o)
{
	char what[128];
	int pct = tui_job_progress(t, what, sizeof what);
	if (d->state == 0) {
		if (d->delta)
			out_printf(o, ST_DIM, "computing the analyses of %s and %s ... %s %s",
				   d->normal, d->faulty, pct < 0 ? "" : what, tui_job_pct(t, pct));
		else
			out_printf(o, ST_DIM, "computing the analysis of %s ... %s", d->run,
				   tui_job_pct(t, pct));
	} else if (d->state < 0) {
		if (d->why[0])
			out_printf(o, ST_WARN, "no matrix: %s", d->why);
		else
			out_text(o, ST_WARN, "no matrix (see the message below)");
	} else {
		out_text(o, ST_DIM, d->delta ? "the two runs have no trace in common"
					     : "the run has no traces");
	}
}

static void jsm_line(tui *t, view *v, size_t i, tui_out *o)
{
	struct jsm *d = v->data;
	if (!ready(d)) {
		not_ready_line(t, d, o);
		return;
	}
	struct lay L;
	lay_out(d, o->width, &L);
	char lab[32];
	label(d, i * d->zoom, lab, sizeof lab);
	out_text(o, i == v->cur ? ST_HEADER : ST_NORMAL, lab);
	out_pad(o, L.x0);
	int on_row = i == v->cur;
	if (on_row)
		set_title(d, v); /* the framework may have moved the row (a mouse click) */
	for (size_t c = 0; c < L.nvis; c++) {
		size_t j = d->left + c;
		float x = shade_value(d, i, j);
		const char *ch = shade_char(x, o->utf8);
		int st = shade_style(x);
		/* the slot before each cell: the cursor's brackets, else blank in ASCII (the cells
		 * stay apart) or the shade itself in UTF-8 (the blocks join into a map) */
		if (on_row && j == d->col)
			out_text(o, ST_MATCH, "[");
		else if (on_row && j == d->col + 1)
			out_text(o, ST_MATCH, "]");
		else
			out_text(o, o->utf8 ? st : ST_NORMAL, o->utf8 ? ch : " ");
		for (int k = 1; k < L.cw; k++)
			out_text(o, st, ch);
	}
	if (on_row && d->col == d->left + L.nvis - 1)
		out_text(o, ST_MATCH, "]");
}

/* Column labels: every column's when cells are wide enough, else the first thread of each
 * process where there is room; the cursor's column always, after a 'v' over its bracket. */
static void jsm_header(tui *t, view *v, tui_out *o)
{
	(void)t;
	struct jsm *d = v->data;
	if (!ready(d))
		return;
	struct lay L;
	lay_out(d, o->width, &L);
	size_t w = (size_t)L.x0 + L.nvis * (size_t)L.cw + 2;
	size_t cap = w + (size_t)d->labw + 8;
	char *buf = xmalloc(cap);
	memset(buf, ' ', cap);
	const char *corner = d->left ? "<" : "P.T";
	memcpy(buf, corner, strlen(corner));
	size_t last = 0;
	for (size_t c = 0; c < L.nvis; c++) {
		size_t j = d->left + c, tr = j * d->zoom;
		if (L.cw == 2 && c && d->keys[tr].proc == d->keys[(j - 1) * d->zoom].proc)
			continue;
		char lab[32];
		label(d, tr, lab, sizeof lab);
		size_t x = (size_t)L.x0 + c * (size_t)L.cw + 1, len = strlen(lab);
		if (x > last && x + len < w - 1) {
			memcpy(buf + x, lab, len);
			last = x + len;
		}
	}
	if (d->left + L.nvis < ncells(d))
		buf[w - 1] = '>';
	/* the cursor's column, clearing the labels it overlaps or touches: "v3.0" over the
	 * bracket, or "3.0v" when it would run past the edge */
	char lab[32], mark[40];
	label(d, d->col * d->zoom, lab, sizeof lab);
	size_t x = (size_t)L.x0 + (d->col - d->left) * (size_t)L.cw, len = strlen(lab) + 1;
	size_t at = x;
	if (x + len > (size_t)o->width && x + 1 >= len) {
		at = x + 1 - len;
		snprintf(mark, sizeof mark, "%sv", lab);
	} else {
		snprintf(mark, sizeof mark, "v%s", lab);
	}
	for (size_t k = at; k <= at + len && k < w - 1; k++) {
		if (buf[k] == ' ')
			continue;
		size_t a = k, b = k;
		while (a > (size_t)L.x0 && buf[a - 1] != ' ')
			a--;
		while (b < w - 1 && buf[b] != ' ')
			b++;
		memset(buf + a, ' ', b - a);
	}
	memcpy(buf + at, mark, len);
	size_t end = at + len > w ? at + len : w;
	while (end > at + len && buf[end - 1] == ' ')
		end--;
	out_textn(o, ST_HEADER, buf, at);
	out_textn(o, ST_MATCH, buf + at, len);
	out_textn(o, ST_HEADER, buf + at + len, end - at - len);
	free(buf);
}

/* ---- keys ---- */

static void retitle(tui *t, struct jsm *d, view *v)
{
	struct lay L;
	if (ready(d))
		lay_out(d, list_width(t), &L);
	set_title(d, v);
	cell_msg(t, d, v);
}

static void set_zoom(tui *t, struct jsm *d, view *v, size_t z)
{
	size_t row = v->cur * d->zoom, col = d->col * d->zoom;
	d->zoom = z;
	v->nlines = ncells(d);
	v->cur = row / z;
	d->col = col / z;
	if (z > 1)
		tui_msg(t, ST_DIM, "zoom 1:%zu: a cell is the %s of %zux%zu traces", z,
			d->delta ? "maximum" : "mean", z, z);
}

/* The smallest zoom at which every cell is on the screen. */
static size_t fit_zoom(tui *t, const struct jsm *d)
{
	size_t rows = page_rows(t);
	int room = list_width(t) - d->labw - 2;
	size_t cols = room > 2 ? (size_t)room / 2 : 1, side = rows < cols ? rows : cols;
	return (d->n + side - 1) / side;
}

/* The most changed pair of JSM_D, or the least similar pair of a JSM, off the diagonal. */
static void extreme(tui *t, struct jsm *d, view *v)
{
	if (d->n < 2) {
		tui_msg(t, ST_WARN, "one trace: no pair");
		return;
	}
	/* by classes of rows: the first pair (i < j) of a pair of classes is its first traces'
	 * (the first two of one class); the first pair at the extreme value wins */
	size_t nm = d->nm, *first = xmalloc(nm * sizeof *first), *second = xmalloc(nm * sizeof *second);
	for (size_t c = 0; c < nm; c++)
		first[c] = second[c] = SIZE_MAX;
	for (size_t i = 0; i < d->n; i++) {
		uint32_t c = d->mc[i];
		if (first[c] == SIZE_MAX)
			first[c] = i;
		else if (second[c] == SIZE_MAX)
			second[c] = i;
	}
	size_t bi = SIZE_MAX, bj = SIZE_MAX;
	float best = 0;
	for (size_t a = 0; a < nm; a++)
		for (size_t b = a; b < nm; b++) {
			if (first[a] == SIZE_MAX || first[b] == SIZE_MAX || (a == b && second[a] == SIZE_MAX))
				continue;
			size_t i = a == b ? first[a] : first[a] < first[b] ? first[a] : first[b];
			size_t j = a == b ? second[a] : first[a] < first[b] ? first[b] : first[a];
			float x = d->m[a * nm + b];
			if (bi == SIZE_MAX || (d->delta ? x > best : x < best) ||
			    (x == best && (i < bi || (i == bi && j < bj)))) {
				best = x;
				bi = i;
				bj = j;
			}
		}
	free(first);
	free(second);
	v->cur = bi / d->zoom;
	d->col = bj / d->zoom;
}

static int pair(tui *t, const char **normal, const char **faulty)
{
	if (tui_get_pair(t, normal, faulty) && **normal && **faulty)
		return 1;
	tui_msg(t, ST_WARN,
		"mark the normal and the faulty run first (1 and 2 in the runs view, or :rank "
		"NORMAL FAULTY)");
	return 0;
}

/* 1, 2, 3: the normal run's JSM, the faulty run's, their JSM_D. */
static void show(tui *t, struct jsm *d, view *v, int which)
{
	const char *normal, *faulty;
	tui_get_pair(t, &normal, &faulty);
	const char *run = which == 1 ? normal : faulty;
	if (which < 3 && (!run || !*run)) {
		tui_msg(t, ST_WARN, "no %s run marked: %s in the runs view, or :rank NORMAL FAULTY",
			which == 1 ? "normal" : "faulty", which == 1 ? "1" : "2");
		return;
	}
	if (which == 3 && !pair(t, &normal, &faulty))
		return;
	if (which < 3) {
		d->delta = 0;
		snprintf(d->run, sizeof d->run, "%s", run);
	} else {
		d->delta = 1;
		snprintf(d->normal, sizeof d->normal, "%s", normal);
		snprintf(d->faulty, sizeof d->faulty, "%s", faulty);
	}
	jsm_open(t, v);
	if (d->delta && ready(d))
		tui_msg(t, ST_DIM,
			"JSM_D over the %zu traces both runs have (%zu only in %s, %zu only in %s)",
			d->n, d->only_normal, d->normal, d->only_faulty, d->faulty);
	else if (ready(d))
		cell_msg(t, d, v);
}

static int jsm_key(tui *t, view *v, int k)
{
	struct jsm *d = v->data;
	if (k == '1' || k == '2' || k == '3') {
		show(t, d, v, k - '0');
		return 1;
	}
	if (!ready(d))
		/* nothing to move over; h and l must not go back all the same */
		return k == 'h' || k == 'l' || k == KEY_LEFT || k == KEY_RIGHT;
	size_t nc = ncells(d), last = nc - 1, page = page_rows(t);
	struct lay L;
	lay_out(d, list_width(t), &L);
	switch (k) {
	case 'j':
	case KEY_DOWN:
		v->cur = v->cur < last ? v->cur + 1 : last;
		break;
	case 'k':
	case KEY_UP:
		v->cur = v->cur ? v->cur - 1 : 0;
		break;
	case 'h':
	case KEY_LEFT:
		d->col = d->col ? d->col - 1 : 0;
		break;
	case 'l':
	case KEY_RIGHT:
		d->col = d->col < last ? d->col + 1 : last;
		break;
	case KEY_NPAGE:
	case ' ':
	case 6: /* C-f */
	case 4: /* C-d */
		v->cur += k == 4 ? (page + 1) / 2 : page;
		if (v->cur > last)
			v->cur = last;
		break;
	case KEY_PPAGE:
	case '-':
	case 2:  /* C-b */
	case 21: /* C-u */ {
		size_t step = k == 21 ? (page + 1) / 2 : page;
		v->cur = v->cur > step ? v->cur - step : 0;
		break;
	}
	case 'g':
	case KEY_HOME:
		v->cur = 0;
		break;
	case 'G':
	case KEY_END:
		v->cur = last;
		break;
	case '0':
		d->col = 0;
		break;
	case '$':
		d->col = last;
		break;
	case 'H':
		d->col = d->col > L.nvis ? d->col - L.nvis : 0;
		break;
	case 'L':
		d->col = d->col + L.nvis < last ? d->col + L.nvis : last;
		break;
	case 'z':
		if (d->zoom < d->n)
			set_zoom(t, d, v, d->zoom * 2);
		set_title(d, v);
		return 1;
	case 'Z':
		if (d->zoom > 1)
			set_zoom(t, d, v, d->zoom / 2);
		retitle(t, d, v);
		return 1;
	case '=':
		set_zoom(t, d, v, fit_zoom(t, d));
		set_title(d, v);
		return 1;
	case '*':
		extreme(t, d, v);
		break;
	case 'd': {
		const char *normal, *faulty;
		if (pair(t, &normal, &faulty)) {
			rank_key a = d->keys[v->cur * d->zoom];
			view_diff_open(t, normal, a.proc, a.thread, faulty, a.proc, a.thread);
		}
		return 1;
	}
	default:
		return 0;
	}
	retitle(t, d, v);
	return 1;
}

static void jsm_enter(tui *t, view *v, size_t i)
{
	struct jsm *d = v->data;
	if (!ready(d))
		return;
	if (d->zoom > 1) {
		set_zoom(t, d, v, 1);
		retitle(t, d, v);
		return;
	}
	rank_key a = d->keys[i], b = d->keys[d->col];
	if (d->delta)
		view_diff_open(t, d->normal, a.proc, a.thread, d->faulty, a.proc, a.thread);
	else
		view_diff_open(t, d->run, a.proc, a.thread, d->run, b.proc, b.thread);
}

static void jsm_close(view *v)
{
	drop(v->data);
	free(v->data);
}

static const view_ops jsm_ops = {
	.name = "jsm", .keys = keys, .open = jsm_open, .line = jsm_line, .enter = jsm_enter,
	.key = jsm_key, .close = jsm_close, .header = jsm_header,
};

int view_jsm_open(tui *t, const char *run, int delta)
{
	struct jsm *d = xcalloc(1, sizeof *d);
	d->zoom = 1;
	d->utf8 = tui_utf8(t);
	const char *normal, *faulty;
	if (delta && tui_get_pair(t, &normal, &faulty) && *normal && *faulty) {
		d->delta = 1;
		snprintf(d->normal, sizeof d->normal, "%s", normal);
		snprintf(d->faulty, sizeof d->faulty, "%s", faulty);
	} else if (delta && !run) {
		free(d);
		pair(t, &normal, &faulty);
		return -1;
	}
	if (run)
		snprintf(d->run, sizeof d->run, "%s", run);
	else
		snprintf(d->run, sizeof d->run, "%s", d->faulty);
	view *v = tui_push(t, &jsm_ops, d, "difftrace: JSM");
	if (!v)
		return -1;
	if (delta && !d->delta)
		pair(t, &normal, &faulty); /* says why it shows the run's JSM instead */
	return 0;
}
