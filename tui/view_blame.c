/* view_blame.c: variable blame of a run (difftrace blame RUN): one table per blame point, the
 * variables with their type, the MPI calls that contributed, the blame per rank (count and
 * percent of the rank) when the screen has room, the total, node mean and deviation. Enter on
 * a variable shows its details: the functions that blamed it, the blame per rank, how many
 * containers took it, the allocation call path of its first container, and why: the largest
 * paths (relations and call sites, from the variable back to the sample) that brought its
 * blame (blame_compute_why). Opened with b on a run or ':blame RUN [FUNC]...'; p adds a blame
 * point. */
#include <curses.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blame/blame.h"
#include "import/sync_file.h"
#include "store/store_bindex.h"
#include "store/store_blame.h"
#include "tui.h"
#include "util/util.h"

struct bline {
	int table, var; /* var: -1 the point's title, -2 its Total row, -3 a blank line */
};

struct bview {
	char run[256];
	int64_t run_id;
	char **points;
	size_t np, capp;
	dt_blame_data d;
	blame_result r;
	int loaded;
	struct bline *l;
	size_t nl, capl;
};

static const tui_keyhelp keys[] = {
	{ "Enter", "the variable's functions, blame per rank, containers, allocation path and "
		   "why: the largest paths of relations and call sites that brought its blame" },
	{ "p", "add a blame point (a function): one more table" },
	{ NULL, NULL },
};

/* A line's var: a variable's row (>= 0), the table's title (-1), its Total (-2), a blank
 * (-3), or note k of what an optimized build lost (NOTE_LINE - k). */
#define NOTE_LINE (-10)

static void add_line(struct bview *b, int table, int var)
{
	grow((void **)&b->l, &b->capl, b->nl + 1, sizeof *b->l);
	b->l[b->nl++] = (struct bline){ table, var };
}

/* The tables of b's run at points (why: with the paths of that variable, the 5 largest),
 * joined with the program's blame index where the store has one (blame-index). */
static int compute(tui *t, struct bview *b, const char *const *points, size_t np,
		   const char *why, blame_result *r, dt_err *e)
{
	transfer_set tf = { 0 };
	bx_func *fns = NULL;
	size_t nf = 0;
	int rc = transfer_load_shipped(&tf, e);
	if (!rc)
		rc = store_bindex_src(tui_store(t), b->run_id, &b->d, &fns, &nf, e);
	blame_src src = { fns, nf, 0 };
	if (!rc)
		rc = blame_compute_why(&b->d, &tf, nf ? &src : NULL, points, np, BLAME_SAMPLES, why,
				       5, r, e);
	if (!rc)
		r->no_index = !nf;
	bx_funcs_free(fns, nf);
	transfer_free(&tf);
	return rc;
}

static int blame_open(tui *t, view *v)
{
	struct bview *b = v->data;
	if (!b->loaded) {
		dt_err e;
		dt_err_clear(&e);
		store_run sr;
		int rc = store_run_get_lite(tui_store(t), b->run, &sr, &e);
		int64_t run_id = rc ? -1 : sr.id;
		if (!rc) {
			rc = store_blame_read(tui_store(t), sr.id, &b->d, &e);
			store_run_free(&sr);
		}
		if (!rc && !b->d.nproc && !b->d.nsamp)
			rc = dt_errf(&e, DT_EDATA, "run '%s' has no samples (record it with "
						   "difftrace-record --sample)", b->run);
		b->run_id = run_id;
		if (!rc)
			rc = compute(t, b, (const char *const *)b->points, b->np, NULL, &b->r, &e);
		if (rc) {
			tui_msg(t, ST_WARN, "%s", e.msg);
			return -1;
		}
		/* what the blame lacked, as blame says it first */
		char why[512];
		if (blame_lack(&b->r, &b->d, 0, why, sizeof why))
			tui_msg(t, ST_DIM, "%s", why);
		b->loaded = 1;
	}
	b->nl = 0;
	for (size_t i = 0; i < b->r.ntables; i++) {
		if (i)
			add_line(b, (int)i, -3);
		add_line(b, (int)i, -1);
		const blame_table *bt = &b->r.tables[i];
		for (size_t j = 0; j < bt->nvars; j++)
			if (bt->vars[j].total != 0 || bt->vars[j].vkind == BV_VAR)
				add_line(b, (int)i, (int)j);
		add_line(b, (int)i, -2);
	}
	/* what an optimized build lost, per function, as blame's notes say it (blame.h) */
	char *lost;
	for (size_t k = 0; b->r.ntables && (lost = blame_lost_note(&b->d, k)); k++) {
		if (!k)
			add_line(b, 0, -3);
		add_line(b, 0, NOTE_LINE - (int)k);
		free(lost);
	}
	v->nlines = b->nl;
	return 0;
}

/* How many rank columns fit beside the fixed ones. */
static size_t rank_cols(const struct bview *b, int width)
{
	int room = width - (24 + 1 + 8 + 1 + 16 + 14 + 8 + 8);
	size_t n = room > 0 ? (size_t)room / 13 : 0;
	return b->r.nranks <= n ? b->r.nranks : 0;
}

/* Text cut to w - 1 columns (a '~' marks the cut; bytes, not characters, are counted, and a cut
 * never splits a UTF-8 sequence), then padded to w. */
static void fit(tui_out *o, int style, const char *s, int w)
{
	int c0 = out_cols(o);
	size_t n = strlen(s);
	if (n < (size_t)w) {
		out_text(o, style, s);
	} else {
		size_t k = (size_t)w - 2;
		while (k > 0 && ((unsigned char)s[k] & 0xc0) == 0x80)
			k--;
		out_textn(o, style, s, k);
		out_text(o, ST_DIM, "~");
	}
	out_pad(o, c0 + w);
}

static void cellf(tui_out *o, double v, double tot, int w)
{
	char buf[64];
	if (v == 0) {
		out_printf(o, ST_DIM, " %*s", w, "-");
		return;
	}
	double p = tot > 0 ? 100.0 * v / tot : 0;
	if (v == (double)(long long)v)
		snprintf(buf, sizeof buf, "%lld(%.1f)", (long long)v, p);
	else
		snprintf(buf, sizeof buf, "%.1f(%.1f)", v, p);
	out_printf(o, ST_NORMAL, " %*s", w, buf);
}

static void calls(tui_out *o, uint64_t c)
{
	dt_buf b = { 0 };
	for (unsigned i = 1; i <= 64; i++)
		if ((c & (1ull << (i - 1))) && sync_call_name(i)) {
			if (b.len)
				buf_byte(&b, ',');
			buf_put(&b, sync_call_name(i), strlen(sync_call_name(i)));
		}
	if (!b.len)
		buf_byte(&b, '-');
	buf_byte(&b, 0);
	fit(o, b.len > 2 ? ST_NORMAL : ST_DIM, (const char *)b.p, 16);
	buf_free(&b);
}

static void blame_line(tui *t, view *v, size_t i, tui_out *o)
{
	(void)t;
	struct bview *b = v->data;
	const struct bline *l = &b->l[i];
	const blame_table *bt = &b->r.tables[l->table];
	if (l->var == -3)
		return;
	if (l->var <= NOTE_LINE) {
		char *lost = blame_lost_note(&b->d, (size_t)(NOTE_LINE - l->var));
		out_printf(o, ST_DIM, "note: ");
		if (lost)
			out_printf(o, ST_DIM, "%s", lost);
		free(lost);
		return;
	}
	if (l->var == -1) {
		out_printf(o, ST_HEADER, "blame point %s", bt->point);
		out_printf(o, ST_DIM, ": %.0f %s, %zu rank%s, %llu sample records", bt->total,
			   b->r.unit, b->r.nranks, b->r.nranks == 1 ? "" : "s",
			   (unsigned long long)bt->nsamples);
		return;
	}
	const blame_var *x = l->var >= 0 ? &bt->vars[l->var] : NULL;
	int style = !x ? ST_HEADER : x->vkind != BV_VAR ? ST_DIM : ST_NORMAL;
	fit(o, style, x ? x->name : "Total", 25);
	fit(o, ST_DIM, x ? x->type : "-", 9);
	calls(o, x ? x->calls : 0);
	size_t nr = rank_cols(b, o->width);
	for (size_t c = 0; c < nr; c++)
		cellf(o, x ? x->rank[c] : bt->rank[c], bt->rank[c], 12);
	cellf(o, x ? x->total : bt->total, bt->total, 13);
	double mean, sd;
	blame_var tot = { .rank = bt->rank };
	blame_var_stats(&b->r, x ? x : &tot, &mean, &sd);
	out_printf(o, ST_NORMAL, " %7.1f %7.1f", mean, sd);
}

static void blame_header(tui *t, view *v, tui_out *o)
{
	(void)t;
	struct bview *b = v->data;
	int c0 = out_cols(o);
	out_text(o, ST_HEADER, "VARIABLE");
	out_pad(o, c0 + 25);
	out_text(o, ST_HEADER, "TYPE");
	out_pad(o, c0 + 34);
	out_text(o, ST_HEADER, "MPI CALLS");
	out_pad(o, c0 + 50);
	size_t nr = rank_cols(b, o->width);
	for (size_t c = 0; c < nr; c++) {
		char h[32];
		snprintf(h, sizeof h, "R%d(%%)", (int)b->r.ranks[c]);
		out_printf(o, ST_HEADER, " %12s", h);
	}
	out_printf(o, ST_HEADER, " %13s %7s %7s", "TOTAL(%)", "MEAN", "SD");
}

/* ---- the details of a variable ------------------------------------------------------------ */

struct vdetail {
	dt_buf text; /* lines, NUL-separated */
	size_t *off;
	size_t n, cap;
};

static void dline(struct vdetail *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void dline(struct vdetail *d, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	grow((void **)&d->off, &d->cap, d->n + 1, sizeof *d->off);
	d->off[d->n++] = d->text.len;
	buf_put(&d->text, buf, strlen(buf) + 1);
}

static int detail_open(tui *t, view *v)
{
	(void)t;
	struct vdetail *d = v->data;
	v->nlines = d->n;
	return 0;
}

static void detail_line(tui *t, view *v, size_t i, tui_out *o)
{
	(void)t;
	struct vdetail *d = v->data;
	const char *s = (const char *)d->text.p + d->off[i];
	out_text(o, s[0] != ' ' ? ST_HEADER : ST_NORMAL, s);
}

static void detail_close(view *v)
{
	struct vdetail *d = v->data;
	buf_free(&d->text);
	free(d->off);
	free(d);
}

static const tui_keyhelp no_keys[] = { { NULL, NULL } };

static const view_ops detail_ops = {
	.name = "blame-variable", .keys = no_keys, .open = detail_open, .line = detail_line,
	.close = detail_close,
};

static void blame_enter(tui *t, view *v, size_t i)
{
	struct bview *b = v->data;
	const struct bline *l = &b->l[i];
	if (l->var < 0)
		return;
	const blame_table *bt = &b->r.tables[l->table];
	const blame_var *x = &bt->vars[l->var];
	const dt_blame_data *dd = &b->d;
	struct vdetail *d = xcalloc(1, sizeof *d);
	dline(d, "%s", x->name);
	dline(d, "  type %s, %s", x->type,
	      x->vkind == BV_OTHER	  ? "the samples that reached no variable"
	      : x->vkind == BV_OUTPUT	  ? "the samples in output routines"
	      : x->ckind == DT_BC_GLOBAL ? "a global"
	      : x->ckind == DT_BC_STATIC ? "a static"
	      : x->ckind == DT_BC_MMAP	  ? "anonymous mappings"
	      : x->skind		  ? "a variable of the function, by the data flow"
	      : x->ckind == DT_BC_STACK  ? "a local variable (on the stack)"
					  : "heap blocks");
	dline(d, "  blame at %s: %.1f %s of %.1f (%.1f%%)", bt->point, x->total, b->r.unit, bt->total,
	      bt->total > 0 ? 100.0 * x->total / bt->total : 0.0);
	if (x->vkind == BV_VAR)
		dline(d, "  written directly by the samples' own lines: %.1f %s (%.1f%% of its blame)",
		      x->direct, b->r.unit, x->total > 0 ? 100.0 * x->direct / x->total : 0.0);
	dt_buf cb = { 0 };
	for (unsigned c = 1; c <= 64; c++)
		if ((x->calls & (1ull << (c - 1))) && sync_call_name(c)) {
			if (cb.len)
				buf_put(&cb, ", ", 2);
			buf_put(&cb, sync_call_name(c), strlen(sync_call_name(c)));
		}
	buf_byte(&cb, 0);
	dline(d, "  MPI calls that contributed: %s", cb.len > 1 ? (const char *)cb.p : "none");
	buf_free(&cb);
	if (x->vkind == BV_VAR)
		dline(d, "  containers that took blame: %zu", x->ncont);
	if (x->nfn) {
		dline(d, "functions that blamed it");
		int ord[BLAME_FUNCS];
		for (int q = 0; q < x->nfn; q++)
			ord[q] = q;
		for (int q = 1; q < x->nfn; q++) /* by blame, largest first */
			for (int j = q; j > 0 && x->fn_amount[ord[j]] > x->fn_amount[ord[j - 1]]; j--) {
				int tmp = ord[j];
				ord[j] = ord[j - 1];
				ord[j - 1] = tmp;
			}
		for (int q = 0; q < x->nfn; q++)
			dline(d, "  %-32s %10.1f", x->fn[ord[q]] >= 0 ? dd->locs[x->fn[ord[q]]].func : "?",
			      x->fn_amount[ord[q]]);
		if (x->fn_rest > 0)
			dline(d, "  %-32s %10.1f", "(other functions)", x->fn_rest);
	}
	dline(d, "blame per rank");
	for (size_t c = 0; c < b->r.nranks; c++)
		dline(d, "  R%-4d %10.1f  (%5.1f%% of the rank)", (int)b->r.ranks[c], x->rank[c],
		      bt->rank[c] > 0 ? 100.0 * x->rank[c] / bt->rank[c] : 0.0);
	if (x->first >= 0 && dd->cont[x->first].site >= 0) {
		const dt_bcontainer *ct = &dd->cont[x->first];
		if (ct->kind == DT_BC_STACK)
			dline(d, "declared in (%llu bytes on rank %d)", (unsigned long long)ct->size,
			      (int)ct->rank);
		else
			dline(d, "allocation call path (the first container, %llu bytes on rank %d)",
			      (unsigned long long)ct->size, (int)ct->rank);
		for (uint32_t j = dd->path_off[ct->site]; j < dd->path_off[ct->site + 1]; j++) {
			const dt_bloc *lc = &dd->locs[dd->pathv[j]];
			if (lc->file[0])
				dline(d, "  %s  %s:%d", lc->func, lc->file, (int)lc->line);
			else
				dline(d, "  %s  (%s)", lc->func, lc->module);
		}
	}
	/* why: the paths that brought the blame, for this point only */
	blame_result wr;
	dt_err e;
	dt_err_clear(&e);
	const char *pt = bt->point;
	if (compute(t, b, &pt, 1, x->name, &wr, &e) == 0 && wr.ntables) {
		const blame_table *wt = &wr.tables[0];
		dline(d, "why: the %zu largest of %zu paths to it (the variable first, the sample last)",
		      wt->nwhy, wt->why_all);
		for (size_t w = 0; w < wt->nwhy; w++) {
			const blame_path *p = &wt->why[w];
			dline(d, "  %5.1f%%  %.1f %s", wt->why_total > 0 ? 100.0 * p->blame / wt->why_total
								: 0.0, p->blame, b->r.unit);
			for (size_t j = 0; j < p->nsteps; j++)
				dline(d, "    %s%s", j ? "<- " : "", p->steps[j]);
		}
	} else {
		dline(d, "why: %s", e.msg[0] ? e.msg : "no table");
	}
	blame_result_free(&wr);
	tui_push(t, &detail_ops, d, "difftrace: blame of %s at %s in %s", x->name, bt->point, b->run);
}

static int blame_key(tui *t, view *v, int k)
{
	struct bview *b = v->data;
	if (k != 'p')
		return 0;
	char *f = tui_prompt(t, "blame point (function): ", "");
	if (!f)
		return 1;
	if (!*f) {
		free(f);
		return 1;
	}
	grow((void **)&b->points, &b->capp, b->np + 1, sizeof *b->points);
	b->points[b->np++] = f;
	blame_result_free(&b->r);
	dt_blame_data_free(&b->d);
	b->loaded = 0;
	if (blame_open(t, v) == 0)
		tui_msg(t, ST_DIM, "blame point %s added", f);
	return 1;
}

static void blame_close(view *v)
{
	struct bview *b = v->data;
	for (size_t i = 0; i < b->np; i++)
		free(b->points[i]);
	free(b->points);
	blame_result_free(&b->r);
	dt_blame_data_free(&b->d);
	free(b->l);
	free(b);
}

static const view_ops blame_ops = {
	.name = "blame", .keys = keys, .open = blame_open, .line = blame_line,
	.enter = blame_enter, .key = blame_key, .close = blame_close, .header = blame_header,
};

int view_blame_open(tui *t, const char *run, char *const *points, size_t np)
{
	struct bview *b = xcalloc(1, sizeof *b);
	snprintf(b->run, sizeof b->run, "%s", run);
	grow((void **)&b->points, &b->capp, np + 1, sizeof *b->points);
	b->points[b->np++] = xstrdup("main");
	for (size_t i = 0; i < np; i++)
		if (strcmp(points[i], "main"))
			b->points[b->np++] = xstrdup(points[i]);
	return tui_push(t, &blame_ops, b, "difftrace: variable blame of %s", run) ? 0 : -1;
}

/* ---- two runs: the variables whose share changed most, per rank ---------------------------- */

struct bchange {
	char run[2][256];
	dt_blame_data d[2];
	blame_result r[2];
	blame_change *ch;
	size_t n;
};

static const tui_keyhelp change_keys[] = { { NULL, NULL } };

static int change_open(tui *t, view *v)
{
	struct bchange *c = v->data;
	if (c->ch || c->r[1].ntables) {
		v->nlines = c->n ? c->n : 1;
		return 0;
	}
	dt_err e;
	dt_err_clear(&e);
	transfer_set tf = { 0 };
	int rc = transfer_load_shipped(&tf, &e);
	for (int i = 0; i < 2 && !rc; i++) {
		store_run sr;
		int64_t run_id = -1;
		rc = store_run_get_lite(tui_store(t), c->run[i], &sr, &e);
		if (!rc) {
			run_id = sr.id;
			rc = store_blame_read(tui_store(t), sr.id, &c->d[i], &e);
			store_run_free(&sr);
		}
		if (!rc && !c->d[i].nproc && !c->d[i].nsamp)
			rc = dt_errf(&e, DT_EDATA, "run '%s' has no samples (record it with "
						   "difftrace-record --sample)", c->run[i]);
		/* joined with the blame index as the command line's blame --normal --faulty */
		bx_func *fns = NULL;
		size_t nf = 0;
		if (!rc)
			rc = store_bindex_src(tui_store(t), run_id, &c->d[i], &fns, &nf, &e);
		blame_src src = { fns, nf, 0 };
		if (!rc)
			rc = blame_compute_src(&c->d[i], &tf, nf ? &src : NULL, NULL, 0, BLAME_SAMPLES,
					       &c->r[i], &e);
		bx_funcs_free(fns, nf);
	}
	transfer_free(&tf);
	if (rc) {
		tui_msg(t, ST_WARN, "%s", e.msg);
		return -1;
	}
	blame_diff(&c->r[0], &c->r[0].tables[0], &c->r[1], &c->r[1].tables[0], 0, &c->ch, &c->n);
	v->nlines = c->n ? c->n : 1;
	return 0;
}

static void change_line(tui *t, view *v, size_t i, tui_out *o)
{
	(void)t;
	struct bchange *c = v->data;
	if (!c->n) {
		out_text(o, ST_DIM, "no blame in either run");
		return;
	}
	const blame_change *x = &c->ch[i];
	out_printf(o, ST_NORMAL, "R%-4d ", (int)x->rank);
	fit(o, ST_NORMAL, x->name, 23);
	fit(o, ST_DIM, x->type, 9);
	out_printf(o, ST_NORMAL, " %7.1f(%5.1f) %7.1f(%5.1f)", x->a, x->pa, x->b, x->pb);
	double d = x->pb - x->pa;
	out_printf(o, d > 0.05 || d < -0.05 ? ST_CHANGED : ST_DIM, " %+8.1f%%", d);
}

static void change_header(tui *t, view *v, tui_out *o)
{
	(void)t, (void)v;
	out_text(o, ST_HEADER, "RANK  ");
	int c0 = out_cols(o);
	out_text(o, ST_HEADER, "VARIABLE");
	out_pad(o, c0 + 23);
	out_text(o, ST_HEADER, "TYPE");
	out_pad(o, c0 + 32);
	out_printf(o, ST_HEADER, " %13s %13s %9s", "NORMAL(%)", "FAULTY(%)", "CHANGE");
}

static void change_close(view *v)
{
	struct bchange *c = v->data;
	free(c->ch);
	for (int i = 0; i < 2; i++) {
		blame_result_free(&c->r[i]);
		dt_blame_data_free(&c->d[i]);
	}
	free(c);
}

static const view_ops change_ops = {
	.name = "blame-change", .keys = change_keys, .open = change_open, .line = change_line,
	.close = change_close, .header = change_header,
};

int view_blame_change_open(tui *t, const char *normal, const char *faulty)
{
	struct bchange *c = xcalloc(1, sizeof *c);
	snprintf(c->run[0], sizeof c->run[0], "%s", normal);
	snprintf(c->run[1], sizeof c->run[1], "%s", faulty);
	return tui_push(t, &change_ops, c,
			"difftrace: blame of %s against %s at main: per rank, largest change first",
			faulty, normal)
		       ? 0
		       : -1;
}
