/* view_diff.c: diffNLR of two traces side by side (METHOD.md §9): the compressed forms of trace
 * A (left, usually the normal run's) and trace B (right, the faulty run's) aligned by diff_nlr
 * and diff_rows, one screen line per row, two panes scrolling together.
 *
 * Every change is told by its gutter marker (' ' same, '|' changed, '<' only left, '>' only
 * right) as well as by its style, so it reads without colour. A loop row can be opened: its body
 * is shown under it on both sides, indented, nested loops too. Long common runs can be folded
 * into "... N identical entries ..." lines. Search (/ ? n N) looks in both panes, the focused
 * one (Tab) first on each line, and says which pane matched; H L and Left Right scroll the
 * focused pane sideways (as in tig's diff view; q and h go back).
 *
 * Opened without a setting (view_diff_open: :diff, Enter on a trace ranked under the
 * interface's filter), the traces are shown under the one the diagnosis chooses, as `diff`
 * without --filter shows them (dg_diff_setting): every call when the interface's filter sees
 * them identical and every call does not, the header naming that filter; and two traces whose
 * calls are alike under every filter, which rank puts first for their data or their time, say
 * so in the header instead of "identical". */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <curses.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/diagnosis.h"
#include "analysis/diff.h"
#include "analysis/evsites.h"
#include "analysis/evtimes.h"
#include "analysis/nlr.h"
#include "source.h"
#include "store/store_analysis.h"
#include "tui.h"
#include "tui_int.h" /* tui_help: ? and Enter before any search */
#include "util/esc.h"
#include "util/util.h"

/* Entries kept next to each change when common runs are folded, as the CLI's --fold. */
#define FOLD_CONTEXT 3
/* Loop bodies nest a few levels; deeper means a loop table that refers to itself. */
#define MAX_DEPTH 64
/* Display lines of one opened row, per side: bounds the cost of '*' on a strange table. */
#define BODY_MAX 4096
/* Columns H and L move the focused pane by. */
#define HSTEP 8

enum dkind {
	D_STATE, /* computing, failed, or nothing to show */
	D_ROW,   /* row `row` of the alignment */
	D_BODY,  /* a line of an opened loop under row `row` */
	D_FOLD,  /* rows row .. row+nfold-1, identical, folded */
};

typedef struct dline {
	int kind;
	char mark;               /* the gutter marker */
	unsigned char has[2];    /* D_BODY: the side has an entry on this line */
	unsigned short depth[2]; /* D_BODY: nesting of the entry (1 under the row) */
	nlr_entry e[2];          /* D_BODY: the entries */
	size_t row, nfold;
} dline;

struct diff {
	char run[2][128];
	int p[2], t[2];
	int state; /* 1 ready, 0 computing, -1 failed */
	int opened;
	char err[600];
	const an_result *r[2]; /* the analyses the entries come from */
	nlr_entry *v[2];
	size_t n[2];
	nlr_table *loops;
	diff_row *rows;
	size_t nrows;
	diff_stats st;
	unsigned char *exp;   /* per row: opened */
	unsigned char *shown; /* per row: unfolded by hand while folding is on */
	int fold;
	dline *dl;
	size_t ndl, capdl;
	int focus;            /* 0 left, 1 right */
	int hs[2];            /* columns each pane is scrolled by */
	pcre2_code *re;
	char pat[256];
	int dir; /* of the last search: 1 '/', -1 '?' */
	store *s;
	store_srclines *lines[2]; /* where each run's functions are defined */
	int tmode;             /* the time column of each pane: 0 none, 1 start, 2 duration */
	int tstate[2];         /* 0 not read, 1 read, -1 none */
	evtimes tm[2];
	uint64_t *pos[2];      /* per entry of each trace: its first kept event */
	tui_params as;         /* the setting of the analyses when own_as (opened from a ranking
				  made under another), else the interface's */
	int own_as;
	uint64_t *len[2];      /* and how many it stands for */
	/* No setting passed: the one the diagnosis chose (dg_diff_setting) for the interface's
	 * parameters asked, every call when its filter saw the traces identical, and what rank
	 * found of traces whose calls are alike. */
	dg_diff dd;
	int decided;
	tui_params asked;
	store_sites sites[2];  /* each run's call sites (store_sync.h) */
	int sstate[2];         /* the kept events' sites: 0 not read, 1 read, -1 none */
	uint32_t *ksite[2];    /* the site of each kept event (evsites.h), NULL when none has one */
};

static const tui_keyhelp keys[] = {
	{ "]  [", "next / previous change" },
	{ "Enter  o", "open / close a loop's body, on both sides" },
	{ "", "on '... N identical entries ...': show them" },
	{ "*  z", "open / close every loop" },
	{ "=", "fold long runs of identical entries (toggle)" },
	{ "Tab  BTab", "focus the other pane (its label in [ ])" },
	{ "/  ?  n  N", "search both panes (regex), the focused one first; ? upwards" },
	{ "H L  Left Right", "scroll the focused pane's long lines left / right" },
	{ "R", "the report of the two traces: calls, total and self time per function" },
	{ "T", "the timeline of the right trace's run at its first diverging event" },
	{ "D", "time column in both panes: since the trace's start, duration, none" },
	{ "e", "the source of the focused pane's call in $EDITOR (+LINE FILE): where the program "
	       "made it (a call of the sync record), else its function's definition" },
	{ NULL, NULL },
};

/* ---- loading ---- */

static int load_loop(void *ctx, uint32_t id, const nlr_entry *body, size_t n)
{
	dt_err e;
	dt_err_clear(&e);
	return nlr_table_load(ctx, id, body, n, &e);
}

static void data_free(struct diff *d)
{
	for (int i = 0; i < 2; i++) {
		free(d->v[i]);
		d->v[i] = NULL;
		d->n[i] = 0;
		d->r[i] = NULL;
	}
	nlr_table_free(d->loops);
	d->loops = NULL;
	for (int i = 0; i < 2; i++) {
		evtimes_free(&d->tm[i]);
		d->tstate[i] = 0;
		free(d->pos[i]);
		free(d->len[i]);
		d->pos[i] = d->len[i] = NULL;
		free(d->ksite[i]);
		d->ksite[i] = NULL;
		d->sstate[i] = 0;
	}
	d->tmode = 0;
	free(d->rows);
	free(d->exp);
	free(d->shown);
	d->rows = NULL;
	d->exp = d->shown = NULL;
	d->nrows = 0;
	memset(&d->st, 0, sizeof d->st);
}

/* Entries of both traces, the loop table, the alignment: -1 with d->err set. */
static int load(struct diff *d, const an_result *const r[2])
{
	dt_err e;
	dt_err_clear(&e);
	for (int i = 0; i < 2; i++) {
		int obj = analysis_object(r[i], d->p[i], d->t[i]);
		if (obj < 0) {
			snprintf(d->err, sizeof d->err, "no trace %d.%d in run %s", d->p[i], d->t[i],
				 d->run[i]);
			return -1;
		}
		if (store_analysis_get_trace(d->s, r[i]->meta.id, obj, NULL, NULL, &d->v[i], &d->n[i],
					     NULL, NULL, &e))
			goto fail;
		d->r[i] = r[i];
	}
	d->loops = nlr_table_new();
	if (store_loops_each(d->s, load_loop, d->loops, &e))
		goto fail;
	diff_script ds = { 0 };
	if (diff_nlr(d->v[0], d->n[0], d->v[1], d->n[1], NULL, &ds, &e))
		goto fail;
	diff_rows(&ds, &d->rows, &d->nrows, &d->st);
	diff_script_free(&ds);
	d->exp = xcalloc(d->nrows ? d->nrows : 1, 1);
	d->shown = xcalloc(d->nrows ? d->nrows : 1, 1);
	return 0;
fail:
	snprintf(d->err, sizeof d->err, "%s", e.msg);
	return -1;
}

/* ---- display lines ---- */

static void dl_push(struct diff *d, dline l)
{
	GROW(d->dl, d->capdl, d->ndl + 1);
	d->dl[d->ndl++] = l;
}

static int has_side(const diff_row *r, int side)
{
	return side ? r->kind != DIFF_ROW_LEFT : r->kind != DIFF_ROW_RIGHT;
}

static nlr_entry row_entry(const struct diff *d, const diff_row *r, int side)
{
	return side ? d->v[1][r->b] : d->v[0][r->a];
}

static int row_has_loop(const struct diff *d, size_t i)
{
	const diff_row *r = &d->rows[i];
	for (int s = 0; s < 2; s++)
		if (has_side(r, s) && nlr_is_loop(row_entry(d, r, s)))
			return 1;
	return 0;
}

struct body {
	nlr_entry *e;
	unsigned short *depth;
	size_t n, cap, capd;
};

static const nlr_entry *loop_body(const struct diff *d, nlr_entry x, size_t *n)
{
	uint32_t id = nlr_loop_id(x);
	if (!d->loops || id >= nlr_table_count(d->loops)) {
		*n = 0;
		return NULL;
	}
	return nlr_table_body(d->loops, id, n);
}

/* The body of loop x, nested loops opened too, one entry per line. */
static void body_lines(const struct diff *d, nlr_entry x, int depth, struct body *b)
{
	size_t n;
	const nlr_entry *v = loop_body(d, x, &n);
	for (size_t i = 0; i < n && b->n < BODY_MAX; i++) {
		GROW(b->e, b->cap, b->n + 1);
		GROW(b->depth, b->capd, b->n + 1);
		b->e[b->n] = v[i];
		b->depth[b->n++] = (unsigned short)depth;
		if (nlr_is_loop(v[i]) && depth < MAX_DEPTH)
			body_lines(d, v[i], depth + 1, b);
	}
}

/* Rows the fold hides: common runs but FOLD_CONTEXT rows next to each change; a run of one
 * hidden row stays, its fold line would take as much room. */
static unsigned char *fold_mask(const struct diff *d)
{
	size_t n = d->nrows, c = FOLD_CONTEXT;
	unsigned char *hide = xcalloc(n ? n : 1, 1);
	for (size_t i = 0; i < n;) {
		if (d->rows[i].kind != DIFF_ROW_SAME) {
			i++;
			continue;
		}
		size_t j = i;
		while (j < n && d->rows[j].kind == DIFF_ROW_SAME)
			j++;
		size_t lo = i > 0 ? i + c : i;
		size_t hi = j < n ? j - (j - i < c ? j - i : c) : j;
		if (lo < hi && hi - lo >= 2)
			for (size_t k = lo; k < hi; k++)
				hide[k] = !d->shown[k];
		i = j;
	}
	return hide;
}

/* The lines of opened row i: its two bodies aligned by the same diff as the traces, so that
 * "L1^20 | L2^20" opens into the one call that L2's body lacks, marked '<', not into pairs of
 * lines that merely share a position. */
static void body_pair(struct diff *d, size_t i, const struct body b[2])
{
	diff_script bs = { 0 };
	diff_row *br = NULL;
	size_t nbr = 0;
	dt_err e;
	dt_err_clear(&e);
	if (diff_nlr(b[0].e, b[0].n, b[1].e, b[1].n, NULL, &bs, &e)) {
		diff_script_free(&bs);
		return;
	}
	diff_rows(&bs, &br, &nbr, NULL);
	diff_script_free(&bs);
	for (size_t k = 0; k < nbr; k++) {
		const diff_row *r = &br[k];
		dline l = { .kind = D_BODY, .row = i, .mark = diff_row_marker(r->kind) };
		for (int s = 0; s < 2; s++)
			if (has_side(r, s)) {
				size_t x = s ? r->b : r->a;
				l.has[s] = 1;
				l.e[s] = b[s].e[x];
				l.depth[s] = b[s].depth[x];
			}
		if (r->kind == DIFF_ROW_SAME && l.depth[0] != l.depth[1])
			l.mark = '|'; /* the same call, at another nesting */
		dl_push(d, l);
	}
	free(br);
}

static void build_lines(struct diff *d)
{
	d->ndl = 0;
	unsigned char *hide = d->fold ? fold_mask(d) : NULL;
	struct body b[2];
	memset(b, 0, sizeof b);
	for (size_t i = 0; i < d->nrows; i++) {
		if (hide && hide[i]) {
			size_t j = i;
			while (j < d->nrows && hide[j])
				j++;
			dl_push(d, (dline){ .kind = D_FOLD, .mark = ' ', .row = i, .nfold = j - i });
			i = j - 1;
			continue;
		}
		const diff_row *r = &d->rows[i];
		dl_push(d, (dline){ .kind = D_ROW, .mark = diff_row_marker(r->kind), .row = i });
		if (!d->exp[i])
			continue;
		for (int s = 0; s < 2; s++) {
			b[s].n = 0;
			if (has_side(r, s) && nlr_is_loop(row_entry(d, r, s)))
				body_lines(d, row_entry(d, r, s), 1, &b[s]);
		}
		body_pair(d, i, b);
	}
	for (int s = 0; s < 2; s++) {
		free(b[s].e);
		free(b[s].depth);
	}
	free(hide);
	if (!d->ndl)
		dl_push(d, (dline){ .kind = D_STATE });
}

/* The display line of row, or of the fold hiding it. */
static size_t line_of_row(const struct diff *d, size_t row)
{
	for (size_t i = 0; i < d->ndl; i++) {
		const dline *l = &d->dl[i];
		if ((l->kind == D_ROW && l->row == row) ||
		    (l->kind == D_FOLD && row >= l->row && row < l->row + l->nfold))
			return i;
	}
	return 0;
}

/* Rebuilds the lines with the cursor staying on its row. */
static void relayout(struct diff *d, view *v)
{
	size_t row = v->cur < d->ndl ? d->dl[v->cur].row : 0;
	int state = v->cur < d->ndl && d->dl[v->cur].kind == D_STATE;
	build_lines(d);
	v->nlines = d->ndl;
	v->cur = state ? 0 : line_of_row(d, row);
}

/* The setting of a diff opened without one, as `diff` without --filter chooses it
 * (dg_diff_setting), made again when the interface's parameters changed: 1, 0 while analyses
 * are being computed, -1 with d->err set. */
static int decide(tui *t, struct diff *d)
{
	const tui_params *tp = tui_get_params(t);
	if (d->decided && !memcmp(&d->asked, tp, sizeof *tp))
		return 1;
	d->decided = 0;
	dt_err e;
	dt_err_clear(&e);
	dg_source src;
	tui_diag_source(t, !store_readonly(d->s), &src);
	const char *const run[2] = { d->run[0], d->run[1] };
	char what[128];
	/* the verdict's ranking is kept unless an analysis is being saved in the background */
	int g = dg_diff_setting(d->s, &src, run, d->p, d->t, CLU_WARD,
				tui_job_progress(t, what, sizeof what) < 0, &d->dd, &e);
	if (g < 0)
		snprintf(d->err, sizeof d->err, "%s", e.msg);
	if (g == 1) {
		d->decided = 1;
		d->asked = *tp;
	}
	return g;
}

static int diff_open(tui *t, view *v)
{
	struct diff *d = v->data;
	const an_result *r[2] = { NULL, NULL };
	/* the traces' rows are all it needs of the analyses: not their matrices */
	const tui_params *tp = d->own_as ? &d->as : tui_get_params(t);
	tui_params every;
	int sd = d->own_as ? 1 : decide(t, d), sa = sd, sb = sd;
	if (sd == 1 && !d->own_as && d->dd.every) {
		every = *tp;
		snprintf(every.filter, sizeof every.filter, "%s", AN_FALLBACK_FILTER);
		tp = &every;
	}
	if (sd == 1) {
		sa = tui_analysis_objects_as(t, d->run[0], tp, &r[0]);
		sb = tui_analysis_objects_as(t, d->run[1], tp, &r[1]);
	}
	if (sa == 1 && sb == 1 && d->state == 1 && r[0] == d->r[0] && r[1] == d->r[1]) {
		relayout(d, v); /* the same analyses: keep what is open and where the cursor is */
		return 0;
	}
	data_free(d);
	d->ndl = 0;
	d->state = sa < 0 || sb < 0 ? -1 : sa == 1 && sb == 1 ? 1 : 0;
	if (d->state < 0 && sd == 1)
		snprintf(d->err, sizeof d->err, "no diff: the analysis of %s failed",
			 sa < 0 ? d->run[0] : d->run[1]);
	if (d->state == 1 && load(d, r)) {
		data_free(d);
		d->state = -1;
	}
	if (d->state < 0 && !d->opened) {
		/* else tui_analysis said why */
		if ((sa >= 0 && sb >= 0) || (sd < 0 && strncmp(d->err, "the analysis of ", 16)))
			tui_msg(t, ST_WARN, "%s", d->err);
		return -1;
	}
	d->opened = 1;
	if (d->state == 1)
		build_lines(d);
	else
		dl_push(d, (dline){ .kind = D_STATE });
	v->nlines = d->ndl;
	v->cur = v->top = 0;
	return 0;
}

/* ---- drawing ---- */

static const char *fname(void *ctx, uint32_t fid)
{
	return store_func_name(ctx, fid);
}

static void entry_positions(struct diff *d, int s);

/* Kept events up to this many have their call sites read when a diff line is first drawn;
 * a longer trace reads them at e. */
#define SITES_AT_DRAW (1u << 20)

/* Reads where the program made each kept event of side s (the sync record's call sites); 1
 * when they are there. */
static int load_sites(struct diff *d, int s, char *why, size_t nwhy)
{
	if (d->sstate[s] == 0) {
		dt_err e;
		dt_err_clear(&e);
		why[0] = 0;
		int obj = analysis_object(d->r[s], d->p[s], d->t[s]);
		int r = !d->sites[s].n || obj < 0
				? 1
				: evsites_kept_run(d->s, d->r[s], d->run[s], obj, NULL, 0,
						   &d->ksite[s], why, nwhy, &e);
		if (r < 0)
			dt_err_format(&e, why, nwhy);
		d->sstate[s] = r == 1 ? 1 : -1;
		if (r == 1 && d->ksite[s] && !d->pos[s])
			entry_positions(d, s);
	}
	return d->sstate[s] == 1;
}

/* The call site of side s of row line l (0: none known, or not read yet). */
static uint32_t row_site(const struct diff *d, const dline *l, int s)
{
	if (l->kind != D_ROW || d->sstate[s] != 1 || !d->ksite[s] || !d->pos[s])
		return 0;
	const diff_row *r = &d->rows[l->row];
	if (!has_side(r, s))
		return 0;
	size_t i = s ? r->b : r->a;
	int obj = analysis_object(d->r[s], d->p[s], d->t[s]);
	if (obj < 0 || i >= d->n[s] || d->pos[s][i] >= d->r[s]->nfiltered[obj])
		return 0;
	return d->ksite[s][d->pos[s][i]];
}

/* The text of one side of a line: the entry (indented on body lines), and for a closed loop a
 * preview of its body, so that "L1^20 | L2^20" says what differs before it is opened. */
static int side_text(const struct diff *d, const dline *l, int side, char *txt, size_t n,
		     char *pre, size_t npre)
{
	txt[0] = pre[0] = 0;
	nlr_entry x;
	int depth = 0;
	if (l->kind == D_ROW) {
		const diff_row *r = &d->rows[l->row];
		if (!has_side(r, side))
			return 0;
		x = row_entry(d, r, side);
	} else if (l->kind == D_BODY) {
		if (!l->has[side])
			return 0;
		x = l->e[side];
		depth = l->depth[side];
	} else {
		return 0;
	}
	int ind = 2 * depth < (int)n - 1 ? 2 * depth : 0;
	memset(txt, ' ', (size_t)ind);
	nlr_token(txt + ind, n - (size_t)ind, x, fname, d->s);
	const char *file;
	int line;
	const store_site *site = l->kind == D_ROW && !nlr_is_loop(x)
					 ? store_site_get(&d->sites[side], row_site(d, l, side))
					 : NULL;
	if (site) {
		char b[1800], w[1800];
		snprintf(pre, npre, "  at %s", esc_str(store_site_str(site, b, sizeof b), w, sizeof w));
	} else if (!nlr_is_loop(x) &&
	    store_srclines_find(d->lines[side], store_func_name(d->s, x.sym), &file, &line)) {
		const char *base = strrchr(file, '/');
		snprintf(pre, npre, "  %s:%d", base ? base + 1 : file, line);
	}
	int opened = l->kind == D_ROW ? d->exp[l->row] : 1; /* body loops are open below */
	if (nlr_is_loop(x) && !opened) {
		size_t bn, k = 0;
		const nlr_entry *body = loop_body(d, x, &bn);
		k += (size_t)snprintf(pre + k, npre - k, " (");
		for (size_t i = 0; i < bn && k + 1 < npre; i++) {
			char tok[256];
			nlr_token(tok, sizeof tok, body[i], fname, d->s);
			k += (size_t)snprintf(pre + k, npre - k, "%s%s", i ? " - " : "", tok);
		}
		if (k + 1 < npre)
			snprintf(pre + k, npre - k, ")");
	}
	return 1;
}

/* Writes s[0..n) from display column *skip on, at most *room columns (a UTF-8 character is
 * one). */
static void put_cols(tui_out *o, int style, const char *s, size_t n, int *skip, int *room)
{
	const char *start = NULL;
	size_t len = 0;
	for (size_t i = 0; i < n; i++) {
		int cont = ((unsigned char)s[i] & 0xC0) == 0x80;
		if (!cont) {
			if (*skip > 0) {
				(*skip)--;
				continue;
			}
			if (*room <= 0)
				break;
			(*room)--;
		} else if (!start) {
			continue; /* the rest of a skipped character */
		}
		if (!start)
			start = s + i;
		len++;
	}
	if (start)
		out_textn(o, style, start, len);
}

static int cols(const char *s, size_t n)
{
	int c = 0;
	for (size_t i = 0; i < n; i++)
		c += ((unsigned char)s[i] & 0xC0) != 0x80;
	return c;
}

/* txt[a..b) in style, the bytes m marks (the differing words) in ST_WORD. */
static void put_marked(tui_out *o, int style, const char *txt, const unsigned char *m, size_t a,
		       size_t b, int *skip, int *room)
{
	while (a < b) {
		size_t e = a;
		int w = m && m[a];
		while (e < b && (m && m[e]) == w)
			e++;
		put_cols(o, w ? ST_WORD : style, txt + a, e - a, skip, room);
		a = e;
	}
}

/* One pane of a line in `room` columns: txt (its differing bytes m, or NULL) and the dim loop
 * preview pre. A changed pair too long for the pane shows its differing part, the common part
 * elided (diff_elide); a line still too long ends in the cut mark. Scrolling (hs) moves a long
 * line up to its end and leaves a line that fits where it is, so that no short line goes
 * blank. */
static void put_pane(tui_out *o, int style, const char *txt, const unsigned char *m,
		     const char *pre, int hs, int room)
{
	const char *cut = o->utf8 ? "\xe2\x80\xa6" : "~";
	size_t lt = strlen(txt), h = lt, t = lt;
	if (m && hs == 0) {
		size_t first = 0;
		while (first < lt && !m[first])
			first++;
		if (room < 1 || !diff_elide(txt, first, (size_t)room, &h, &t))
			h = t = lt;
	}
	int total = cols(txt, h) + (h < t) + cols(txt + t, lt - t) + cols(pre, strlen(pre));
	int skip = hs > total - room ? total - room : hs;
	if (skip < 0)
		skip = 0;
	int cutend = total - skip > room;
	int r = cutend ? room - 1 : room;
	if (skip > 0 && r > 0) {
		out_text(o, ST_DIM, cut); /* scrolled: cut on the left too */
		skip++;
		r--;
	}
	put_marked(o, style, txt, m, 0, h, &skip, &r);
	if (h < t)
		put_cols(o, ST_DIM, cut, strlen(cut), &skip, &r);
	put_marked(o, style, txt, m, t, lt, &skip, &r);
	put_cols(o, ST_DIM, pre, strlen(pre), &skip, &r);
	if (cutend && room > 0)
		out_text(o, ST_DIM, cut);
}

static int row_style(int kind, int side)
{
	switch (kind) {
	case DIFF_ROW_COUNT:
	case DIFF_ROW_REPLACE:
		return ST_CHANGED;
	case DIFF_ROW_LEFT:
		return side ? ST_NORMAL : ST_LEFT;
	case DIFF_ROW_RIGHT:
		return side ? ST_RIGHT : ST_NORMAL;
	}
	return ST_NORMAL;
}

static int mark_style(char m)
{
	return m == '|' ? ST_CHANGED : m == '<' ? ST_LEFT : m == '>' ? ST_RIGHT : ST_NORMAL;
}

static void pane_widths(const tui_out *o, int *lw, int *rw)
{
	int w = o->width >= 23 ? o->width : 80;
	*lw = (w - 3) / 2;
	*rw = w - 3 - *lw;
}

/* Columns of the time cell (evtimes_fmt), then a blank. */
#define TIME_W 10

/* The time cell of side s of line l: the row's entry (all of a loop's iterations); blank on
 * body lines, whose entries stand for many. */
static void time_cell(const struct diff *d, const dline *l, int s, tui_out *o)
{
	char buf[32] = "";
	const diff_row *r = l->kind == D_ROW ? &d->rows[l->row] : NULL;
	if (r && has_side(r, s) && d->tstate[s] == 1) {
		size_t i = s ? r->b : r->a;
		uint64_t p = d->pos[s][i], n = d->len[s][i];
		const evtimes *tm = &d->tm[s];
		if (n && p < tm->n && n - 1 < tm->n - p) {
			uint64_t a = tm->start[p], b = tm->end[p + n - 1];
			if (d->tmode == 1)
				evtimes_fmt(a >= tm->t0 ? a - tm->t0 : 0, buf, sizeof buf);
			else
				evtimes_fmt(b >= a ? b - a : 0, buf, sizeof buf);
		}
	}
	out_printf(o, ST_DIM, "%*s ", TIME_W, buf);
}

static void diff_line(tui *t, view *v, size_t i, tui_out *o)
{
	struct diff *d = v->data;
	const dline *l = &d->dl[i];
	if (l->kind == D_STATE) {
		if (d->state < 0) {
			out_text(o, ST_WARN, d->err);
		} else if (d->state == 0) {
			char what[128];
			int pct = tui_job_progress(t, what, sizeof what);
			out_printf(o, ST_DIM, "computing the analyses of %s and %s ... %s", d->run[0],
				   d->run[1], tui_job_pct(t, pct));
		} else {
			out_text(o, ST_DIM, "both traces are empty under this filter");
		}
		return;
	}
	int lw, rw;
	pane_widths(o, &lw, &rw);
	if (l->kind == D_FOLD) {
		char s[96];
		int n = snprintf(s, sizeof s, "... %zu identical entries ...", l->nfold);
		int w = lw + 3 + rw;
		out_pad(o, n < w ? (w - n) / 2 : 0);
		out_text(o, ST_DIM, s);
		return;
	}
	const diff_row *r = &d->rows[l->row];
	char txt[2][512], pre[2][512];
	int has[2];
	for (int s = 0; s < 2; s++) { /* the call sites, on the first line drawn */
		int obj = d->r[s] ? analysis_object(d->r[s], d->p[s], d->t[s]) : -1;
		if (!d->sstate[s] && obj >= 0 && d->r[s]->nfiltered[obj] <= SITES_AT_DRAW)
			load_sites(d, s, pre[s], sizeof pre[s]);
	}
	for (int s = 0; s < 2; s++)
		has[s] = side_text(d, l, s, txt[s], sizeof txt[s], pre[s], sizeof pre[s]);
	/* a changed pair: the words that differ */
	unsigned char m[2][512];
	int words = l->mark == '|' && has[0] && has[1];
	if (words)
		diff_words(txt[0], txt[1], m[0], m[1]);
	for (int s = 0; s < 2; s++) {
		int style = l->kind == D_ROW ? row_style(r->kind, s)
			    : l->mark == ' ' ? ST_DIM
					     : mark_style(l->mark);
		if (l->kind == D_BODY && l->mark != ' ' && !l->has[s])
			style = ST_NORMAL;
		int start = out_cols(o), w = s ? rw : lw;
		if (d->tmode && w > TIME_W + 8) {
			time_cell(d, l, s, o);
			w -= TIME_W + 1;
		}
		put_pane(o, style, txt[s], words ? m[s] : NULL, pre[s], d->hs[s], w);
		if (!s) {
			out_pad(o, start + lw);
			out_text(o, ST_NORMAL, " ");
			char mk[2] = { l->mark, 0 };
			out_text(o, mark_style(l->mark), mk);
			out_text(o, ST_NORMAL, " ");
		}
	}
}

static void diff_header(tui *t, view *v, tui_out *o)
{
	(void)t;
	struct diff *d = v->data;
	for (int s = 0; s < 2; s++) {
		char lab[300];
		snprintf(lab, sizeof lab, "%s %d.%d", d->run[s], d->p[s], d->t[s]);
		out_text(o, ST_DIM, s ? "  right " : "left ");
		if (d->focus == s)
			out_printf(o, ST_HEADER, "[%s]", lab);
		else
			out_text(o, ST_NORMAL, lab);
	}
	if (d->state != 1)
		return;
	size_t ch = d->st.count + d->st.replace;
	if (ch + d->st.left + d->st.right)
		out_printf(o, ST_HEADER, ":  %zu changed, %zu only left, %zu only right", ch, d->st.left,
			   d->st.right);
	else if (!d->own_as && d->dd.found[0])
		out_printf(o, ST_WARN, ":  %s", d->dd.found);
	else
		out_text(o, ST_HEADER, ":  identical");
	if (!d->own_as && d->dd.every)
		out_printf(o, ST_WARN,
			   "  (filter %s sees no difference; every call does: under filter "
			   AN_FALLBACK_FILTER ")", d->dd.blind);
}

/* ---- keys ---- */

static int is_change_start(const struct diff *d, const dline *l)
{
	return l->kind == D_ROW && d->rows[l->row].kind != DIFF_ROW_SAME &&
	       (l->row == 0 || d->rows[l->row - 1].kind == DIFF_ROW_SAME);
}

/* Puts line i at the cursor with a few lines of context above it. */
static void show_at(tui *t, view *v, size_t i)
{
	size_t rows = tui_rows(t) > 8 ? (size_t)tui_rows(t) - 4 : 4;
	v->cur = i;
	v->top = i > 3 ? i - 3 : 0;
	if (v->nlines > rows && v->top > v->nlines - rows)
		v->top = v->nlines - rows;
	if (v->nlines <= rows)
		v->top = 0;
}

static void jump(tui *t, view *v, int dir)
{
	struct diff *d = v->data;
	if (!(d->st.count + d->st.replace + d->st.left + d->st.right)) {
		tui_msg(t, ST_WARN, "no change: the two traces are the same");
		return;
	}
	if (dir > 0) {
		for (size_t i = v->cur + 1; i < d->ndl; i++)
			if (is_change_start(d, &d->dl[i])) {
				show_at(t, v, i);
				return;
			}
		tui_msg(t, ST_WARN, "no change below; [ goes back");
	} else {
		for (size_t i = v->cur; i-- > 0;)
			if (is_change_start(d, &d->dl[i])) {
				show_at(t, v, i);
				return;
			}
		tui_msg(t, ST_WARN, "no change above; ] goes on");
	}
}

static int body_fn(void *ctx, uint32_t id, const nlr_entry **body, size_t *n)
{
	const struct diff *d = ctx;
	if (!d->loops || id >= nlr_table_count(d->loops))
		return -1;
	*body = nlr_table_body(d->loops, id, n);
	return 0;
}

static void toggle(tui *t, view *v, size_t i)
{
	struct diff *d = v->data;
	const dline *l = &d->dl[i];
	if (l->kind == D_FOLD) {
		for (size_t k = l->row; k < l->row + l->nfold; k++)
			d->shown[k] = 1;
		relayout(d, v);
		return;
	}
	if (l->kind == D_BODY) {
		d->exp[l->row] = 0; /* closes the loop the line belongs to */
		relayout(d, v);
		return;
	}
	if (l->kind != D_ROW)
		return;
	if (!row_has_loop(d, l->row)) {
		tui_msg(t, ST_DIM, "not a loop: Enter and o open loops (L<id>^<count>)");
		return;
	}
	d->exp[l->row] = !d->exp[l->row];
	relayout(d, v);
	/* a loop against a different loop: where their calls part */
	const diff_row *r = &d->rows[l->row];
	diff_part dp;
	if (d->exp[l->row] && r->kind == DIFF_ROW_REPLACE && nlr_is_loop(d->v[0][r->a]) &&
	    nlr_is_loop(d->v[1][r->b]) &&
	    !diff_loop_part(body_fn, d, d->v[0][r->a], d->v[1][r->b], &dp)) {
		char note[256];
		diff_part_text(&dp, d->v[0][r->a], d->v[1][r->b], note, sizeof note);
		tui_msg(t, ST_DIM, "%s", note);
	}
}

static const char *side_name(const struct diff *d, int s, char *buf, size_t n)
{
	snprintf(buf, n, "%s pane, %s %d.%d", s ? "right" : "left", d->run[s], d->p[s], d->t[s]);
	return buf;
}

/* Which pane of line i matches: the focused one first; -1 when neither. */
static int line_matches(const struct diff *d, size_t i, pcre2_match_data *md)
{
	for (int k = 0; k < 2; k++) {
		int side = k ? !d->focus : d->focus;
		char txt[512], pre[512];
		if (side_text(d, &d->dl[i], side, txt, sizeof txt, pre, sizeof pre) &&
		    pcre2_match(d->re, (PCRE2_SPTR)txt, strlen(txt), 0, 0, md, NULL) >= 0)
			return side;
	}
	return -1;
}

/* dir 1: the way of the last search (n), -1 the other (N) */
static void search_next(tui *t, view *v, int dir)
{
	struct diff *d = v->data;
	char sn[300];
	if (!d->re) {
		tui_msg(t, ST_WARN, "no search: press / or ? first");
		return;
	}
	dir *= d->dir ? d->dir : 1;
	char c = d->dir < 0 ? '?' : '/';
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(d->re, NULL);
	size_t n = d->ndl;
	for (size_t k = 1; k <= n; k++) {
		size_t i = (v->cur + (dir > 0 ? k : n - k)) % n;
		int side = line_matches(d, i, md);
		if (side >= 0) {
			int wrapped = (dir > 0 && i <= v->cur) || (dir < 0 && i >= v->cur);
			tui_msg(t, ST_DIM, "%c%s in the %s%s", c, d->pat,
				side_name(d, side, sn, sizeof sn), wrapped ? " (wrapped)" : "");
			show_at(t, v, i);
			pcre2_match_data_free(md);
			return;
		}
	}
	pcre2_match_data_free(md);
	tui_msg(t, ST_WARN, "not found in either pane: %c%s", c, d->pat);
}

static void search(tui *t, view *v, int dir)
{
	struct diff *d = v->data;
	char *s = tui_prompt(t, dir > 0 ? "/" : "?", NULL);
	if (!s)
		return;
	if (!*s && !d->re && dir < 0) {
		free(s);
		tui_help(t); /* '?' Enter before any search: the help, as elsewhere */
		return;
	}
	if (*s) {
		int err;
		PCRE2_SIZE off;
		pcre2_code *re =
			pcre2_compile((PCRE2_SPTR)s, PCRE2_ZERO_TERMINATED, PCRE2_UTF, &err, &off, NULL);
		if (!re) {
			PCRE2_UCHAR msg[256];
			pcre2_get_error_message(err, msg, sizeof msg);
			tui_msg(t, ST_WARN, "bad pattern at column %zu: %s", (size_t)off + 1,
				(char *)msg);
			free(s);
			return;
		}
		if (d->re)
			pcre2_code_free(d->re);
		d->re = re;
		snprintf(d->pat, sizeof d->pat, "%s", s);
	}
	free(s);
	d->dir = dir;
	search_next(t, v, 1);
}

static uint64_t mul_sat(uint64_t a, uint64_t b)
{
	return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* Where each entry of side s begins in the kept events, and how many it stands for. A loop
 * body names only smaller loop ids, so one pass up the ids has every inner loop's count. */
static void entry_positions(struct diff *d, int s)
{
	size_t nt = nlr_table_count(d->loops);
	uint64_t *ev = xcalloc(nt ? nt : 1, sizeof *ev);
	for (size_t id = 0; id < nt; id++) {
		size_t bn;
		const nlr_entry *b = nlr_table_body(d->loops, (uint32_t)id, &bn);
		uint64_t sum = 0;
		for (size_t j = 0; j < bn; j++)
			sum = add_sat(sum, nlr_is_loop(b[j]) && nlr_loop_id(b[j]) < id
						   ? mul_sat(b[j].count, ev[nlr_loop_id(b[j])])
						   : 1);
		ev[id] = sum;
	}
	d->pos[s] = xmalloc((d->n[s] ? d->n[s] : 1) * sizeof *d->pos[s]);
	d->len[s] = xmalloc((d->n[s] ? d->n[s] : 1) * sizeof *d->len[s]);
	uint64_t at = 0;
	for (size_t i = 0; i < d->n[s]; i++) {
		nlr_entry x = d->v[s][i];
		uint64_t n = !nlr_is_loop(x) ? 1
			     : nlr_loop_id(x) < nt ? mul_sat(x.count, ev[nlr_loop_id(x)])
						  : 0;
		d->pos[s][i] = at;
		d->len[s][i] = n;
		at = add_sat(at, n);
	}
	free(ev);
}

/* D: both panes' time column, since the start, then duration, then none. */
static void time_key(tui *t, struct diff *d)
{
	if (d->tmode) {
		d->tmode = d->tmode == 1 ? 2 : 0;
		tui_msg(t, ST_DIM, d->tmode ? "time column: duration of each call or loop"
					    : "time column off");
		return;
	}
	char why[2][300] = { "", "" };
	for (int s = 0; s < 2; s++) {
		if (d->tstate[s])
			continue;
		dt_err e;
		dt_err_clear(&e);
		int obj = analysis_object(d->r[s], d->p[s], d->t[s]);
		int r = evtimes_load(d->s, d->r[s], obj, &d->tm[s], why[s], sizeof why[s], &e);
		if (r < 0)
			dt_err_format(&e, why[s], sizeof why[s]);
		d->tstate[s] = r == 1 ? 1 : -1;
		if (r == 1 && !d->pos[s])
			entry_positions(d, s);
	}
	if (d->tstate[0] < 0 && d->tstate[1] < 0) {
		tui_msg(t, ST_WARN, "no times: %s", why[1][0] ? why[1] : why[0]);
		return;
	}
	d->tmode = 1;
	if (d->tstate[0] < 0 || d->tstate[1] < 0)
		tui_msg(t, ST_WARN, "time column: the %s pane has none (%s)",
			d->tstate[0] < 0 ? "left" : "right", d->tstate[0] < 0 ? why[0] : why[1]);
	else
		tui_msg(t, ST_DIM, "time column: since each trace's first event (D again: duration)");
}

/* e: the source of the focused pane's call on the cursor's line */
static void edit_key(tui *t, struct diff *d, view *v)
{
	const dline *l = v->cur < d->ndl ? &d->dl[v->cur] : NULL;
	int s = d->focus, have = 0;
	nlr_entry x = { 0 };
	if (l && l->kind == D_ROW && has_side(&d->rows[l->row], s)) {
		x = row_entry(d, &d->rows[l->row], s);
		have = 1;
	} else if (l && l->kind == D_BODY && l->has[s]) {
		x = l->e[s];
		have = 1;
	}
	if (!have) {
		tui_msg(t, ST_WARN, "no call in the %s pane on this line (Tab: the other pane)",
			s ? "right" : "left");
		return;
	}
	if (nlr_is_loop(x)) {
		tui_msg(t, ST_WARN, "a loop, not a call: open it (Enter) and choose a call");
		return;
	}
	/* a call of the sync record: where the program made it; else its function's definition */
	char why[300] = "";
	uint32_t site = 0;
	int obj = analysis_object(d->r[s], d->p[s], d->t[s]);
	if (d->sites[s].n && d->sstate[s] == 0 && obj >= 0 && l->kind == D_ROW &&
	    d->r[s]->nfiltered[obj] > SITES_AT_DRAW) {
		/* a long trace: the sites of its kept events were not read, this row's is */
		if (!d->pos[s])
			entry_positions(d, s);
		const diff_row *r = &d->rows[l->row];
		uint64_t pos = d->pos[s][s ? r->b : r->a];
		uint32_t *one = NULL;
		dt_err e;
		dt_err_clear(&e);
		int rc = evsites_kept_run(d->s, d->r[s], d->run[s], obj, &pos, 1, &one, why,
					  sizeof why, &e);
		if (rc < 0)
			dt_err_format(&e, why, sizeof why);
		site = rc == 1 && one ? one[0] : 0;
		free(one);
	} else if (d->sites[s].n) {
		load_sites(d, s, why, sizeof why);
		site = row_site(d, l, s);
	}
	if (why[0])
		tui_msg(t, ST_WARN, "no call site: %s", why);
	else if (site)
		tui_site_edit(t, &d->sites[s], site, 1);
	else
		tui_src_edit(t, d->lines[s], store_func_name(d->s, x.sym));
}

static int diff_key(tui *t, view *v, int k)
{
	struct diff *d = v->data;
	char sn[300];
	if (d->state != 1)
		return 0;
	switch (k) {
	case 'D':
		time_key(t, d);
		return 1;
	case 'e':
		edit_key(t, d, v);
		return 1;
	case ']':
	case '[':
		jump(t, v, k == ']' ? 1 : -1);
		return 1;
	case 'o':
		toggle(t, v, v->cur);
		return 1;
	case '*':
	case 'z': {
		size_t n = 0;
		for (size_t i = 0; i < d->nrows; i++)
			if (row_has_loop(d, i)) {
				d->exp[i] = k == '*';
				n++;
			}
		relayout(d, v);
		if (n)
			tui_msg(t, ST_DIM, "%s %zu loop%s", k == '*' ? "opened" : "closed", n,
				n == 1 ? "" : "s");
		else
			tui_msg(t, ST_DIM, "no loop to open or close");
		return 1;
	}
	case '=': {
		d->fold = !d->fold;
		memset(d->shown, 0, d->nrows ? d->nrows : 1);
		relayout(d, v);
		size_t nf = 0, hidden = 0;
		for (size_t i = 0; i < d->ndl; i++)
			if (d->dl[i].kind == D_FOLD) {
				nf++;
				hidden += d->dl[i].nfold;
			}
		if (!d->fold)
			tui_msg(t, ST_DIM, "unfolded: every entry is shown");
		else if (nf)
			tui_msg(t, ST_DIM, "folded %zu identical entries in %zu runs (= unfolds)",
				hidden, nf);
		else
			tui_msg(t, ST_DIM, "no run of identical entries long enough to fold");
		return 1;
	}
	case '\t':
	case KEY_BTAB: /* two panes: back is forth */
		d->focus = !d->focus;
		tui_msg(t, ST_DIM, "focus: the %s (H L, Left Right scroll it; / ? search it first)",
			side_name(d, d->focus, sn, sizeof sn));
		return 1;
	case 'H':
	case KEY_LEFT: /* as in tig's diff: sideways here, q and h go back */
		d->hs[d->focus] = d->hs[d->focus] > HSTEP ? d->hs[d->focus] - HSTEP : 0;
		return 1;
	case 'L':
	case KEY_RIGHT:
		d->hs[d->focus] += HSTEP;
		return 1;
	case '/':
	case '?':
		search(t, v, k == '/' ? 1 : -1);
		return 1;
	case 'T':
		view_timeline_diverge(t, d->run[0], d->p[0], d->t[0], d->run[1], d->p[1], d->t[1]);
		return 1;
	case 'R':
		view_report_open(t, d->run[0], d->p[0], d->t[0], d->run[1], d->p[1], d->t[1]);
		return 1;
	case 'n':
	case 'N':
		search_next(t, v, k == 'n' ? 1 : -1);
		return 1;
	}
	return 0;
}

static void diff_enter(tui *t, view *v, size_t i)
{
	struct diff *d = v->data;
	if (d->state == 1 && i < d->ndl)
		toggle(t, v, i);
}

static void diff_close(view *v)
{
	struct diff *d = v->data;
	data_free(d);
	store_srclines_free(d->lines[0]);
	store_srclines_free(d->lines[1]);
	store_sites_free(&d->sites[0]);
	store_sites_free(&d->sites[1]);
	free(d->dl);
	if (d->re)
		pcre2_code_free(d->re);
	free(d);
}

static const view_ops diff_ops = {
	.name = "diff", .keys = keys, .open = diff_open, .line = diff_line, .enter = diff_enter,
	.key = diff_key, .close = diff_close, .header = diff_header,
};

int view_diff_open(tui *t, const char *run_a, int pa, int ta, const char *run_b, int pb, int tb)
{
	return view_diff_open_as(t, NULL, run_a, pa, ta, run_b, pb, tb);
}

int view_diff_open_as(tui *t, const tui_params *as, const char *run_a, int pa, int ta,
		      const char *run_b, int pb, int tb)
{
	struct diff *d = xcalloc(1, sizeof *d);
	if (as) {
		d->as = *as;
		d->own_as = 1;
	}
	snprintf(d->run[0], sizeof d->run[0], "%s", run_a);
	snprintf(d->run[1], sizeof d->run[1], "%s", run_b);
	d->p[0] = pa;
	d->t[0] = ta;
	d->p[1] = pb;
	d->t[1] = tb;
	d->s = tui_store(t);
	d->focus = 1; /* the faulty side is the one searched first */
	d->lines[0] = tui_src_load(t, run_a);
	d->lines[1] = tui_src_load(t, run_b);
	tui_sites_load(t, run_a, &d->sites[0], NULL, 0);
	tui_sites_load(t, run_b, &d->sites[1], NULL, 0);
	return tui_push(t, &diff_ops, d, "difftrace: diff %s %d.%d | %s %d.%d%s%s%s", run_a, pa,
			ta, run_b, pb, tb, as ? " under filter " : "", as ? as->filter : "",
			as ? ", as ranked" : "")
		       ? 0
		       : -1;
}
