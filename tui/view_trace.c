/* view_trace.c: one trace as its nested loops (NLR, under the current analysis parameters),
 * drawn as a tree: one line per entry of the compressed trace; a loop line `L<id> ×count`
 * folds and unfolds to show its body one level deeper, where nested loops fold in turn. `t`
 * turns the view into the trace's loop table (`L<id> = (body)`), `d` diffs the trace against
 * the same P.T of the other run of the marked pair.
 *
 * The tree is kept as the list of the lines on screen: unfolding a loop inserts its body's
 * lines below it, folding removes them. A loop shows one iteration of its body, never `count`
 * copies, so even a fully unfolded tree is bounded by the loop table, not by the events; it is
 * still capped (TREE_MAX_LINES) because nested bodies multiply.
 *
 * The calls are a tree too, as in uftrace tui: each kept event has a call depth (the kept calls
 * open around it, evtimes_depth), a line is indented by its depth less the depth its loop level
 * starts at, and a call folds the lines of its callees below it. Folding a call moves those
 * lines (loops, bodies and folded calls among them) into its stash; unfolding puts them back,
 * so what was folded inside stays folded. */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/evsites.h"
#include "analysis/evtimes.h"
#include "analysis/nlr.h"
#include "source.h"
#include "store/store_analysis.h"
#include "tui.h"
#include "util/util.h"

/* `*` and `+` refuse to unfold more lines than this at once. */
#define TREE_MAX_LINES 200000u

/* Bytes of a folded loop's body shown on its line. */
#define PREVIEW_MAX 400u

/* Depths past this get no tree guides (the picture is unreadable long before). */
#define GUIDE_DEPTH 64u

struct tbuf;

struct tline {
	nlr_entry e;
	uint32_t depth;  /* 0: an entry of the trace; d: in the body of a loop d - 1 deep */
	uint32_t idx;    /* its position in the trace or in its loop's body */
	uint8_t open;    /* a loop whose body is on the lines below */
	uint8_t last;    /* the last entry of its body */
	uint64_t guides; /* bit k - 1: the ancestor at depth k has more entries below it */
	uint64_t fpos;   /* its first kept event (of its first iteration, inside a loop) */
	uint16_t cd;     /* its call depth (of a loop: the least of its first iteration) */
	uint16_t ind;    /* cd less the call depth its loop level starts at: the indent */
	struct tbuf *hid; /* a folded call: the lines below it that it hides */
	uint64_t nhid;   /* the calls those lines stand for */
};

struct tbuf {
	struct tline *l;
	size_t n, cap;
};

struct trace {
	char run[128];
	int p, thr;
	int opened;          /* open ran once: later failures show a line instead of failing */
	int state;           /* 1 ready, 0 computing, -1 failed */
	const an_result *r;
	tui_params as;       /* the setting of the analysis when own_as (opened from a ranking
				made under another), else the interface's */
	int own_as;
	int64_t aid;         /* the analysis the lines come from; 0 when nothing is loaded */
	int obj;
	char why[600];       /* set when there is nothing to show but this */
	nlr_entry *v;        /* the trace's entries */
	size_t n;
	nlr_table *loops;
	uint32_t nids;       /* the largest loop id of the trace + 1: the size of the tables below */
	uint64_t *evlen;     /* events one iteration of loop id stands for (saturating) */
	uint64_t *size;      /* lines loop id's body takes fully unfolded (capped) */
	uint32_t *used;      /* loop ids the trace uses, nested ones included, ascending */
	size_t nused;
	size_t nloops;       /* top-level entries that are loops */
	int numw;            /* digits of the entry numbers */
	struct tbuf t;       /* the tree's lines */
	int table;           /* showing the loop table instead of the tree */
	size_t tree_cur, tree_top;
	store_srclines *lines; /* where the run's functions are defined */
	store_sites sites;   /* the run's call sites (store_sync.h) */
	int sstate;          /* the kept events' sites: 0 not read, 1 read, -1 none (swhy) */
	uint32_t *ksite;     /* the site of each kept event (evsites.h), NULL when none has one */
	char swhy[300];
	int tmode;           /* the time column: 0 none, 1 since the trace's start, 2 duration */
	int tstate;          /* the times: 0 not read, 1 read, -1 none (twhy says why) */
	evtimes tm;
	char twhy[300];
	int dstate;          /* the call depths: 0 not read, 1 read, -1 none (dwhy says why) */
	uint16_t *dep;       /* the call depth of each kept event */
	size_t ndep;
	uint16_t cd0;        /* the least call depth of the trace */
	char dwhy[300];
};

static const tui_keyhelp keys[] = {
	{ "Enter  o", "fold or unfold the loop or the call under the cursor: a call's callees are "
		      "indented below it, [-] when shown, [+], \"N calls folded\" and the calls "
		      "(which a search finds) when hidden" },
	{ "C", "fold every call that has callees (the tree down to its top calls)" },
	{ "E", "unfold every folded call" },
	{ "+", "unfold this loop and every loop inside it" },
	{ "*", "unfold every loop (and every call)" },
	{ "z", "fold every loop (calls unfold)" },
	{ "u", "up to the enclosing call or loop" },
	{ "c", "fold the enclosing call or loop" },
	{ "t", "the loop table: L<id> = (body) of each loop;" },
	{ "", "  there Enter shows its first use, t or q back" },
	{ "d", "diff against the same P.T of the other run" },
	{ "", "  of the marked pair" },
	{ "U", "the trace's own recording in uftrace tui (runs recorded with uftrace): its "
	       "functions with their arguments and times, beside this tree of kept calls" },
	{ "D", "time column: since the trace's start, duration, none (recordings with" },
	{ "", "  timestamps; a loop line: all its iterations, a line in a body: the first)" },
	{ "e", "the call's source in $EDITOR (+LINE FILE; programs built with -g): where the "
	       "program made it (an MPI or OpenMP call of the sync record), else its function's "
	       "definition" },
	{ NULL, NULL },
};

/* ---- loading ---- */

static void tb_free_lines(struct tline *l, size_t n);

/* Frees what folded call l hides, and what the folded calls in it hide. */
static void stash_free(struct tline *l)
{
	if (!l->hid)
		return;
	tb_free_lines(l->hid->l, l->hid->n);
	free(l->hid->l);
	free(l->hid);
	l->hid = NULL;
	l->nhid = 0;
}

static void tb_free_lines(struct tline *l, size_t n)
{
	for (size_t i = 0; i < n; i++)
		stash_free(&l[i]);
}

static void free_data(struct trace *d)
{
	free(d->v);
	nlr_table_free(d->loops);
	free(d->evlen);
	free(d->size);
	free(d->used);
	tb_free_lines(d->t.l, d->t.n);
	free(d->t.l);
	free(d->dep);
	d->dep = NULL;
	free(d->ksite);
	d->ksite = NULL;
	d->sstate = 0;
	d->ndep = 0;
	d->dstate = 0;
	d->v = NULL;
	d->loops = NULL;
	d->evlen = d->size = NULL;
	d->used = NULL;
	d->t.l = NULL;
	d->n = d->nused = d->nloops = d->t.n = d->t.cap = 0;
	d->nids = 0;
	d->aid = 0;
	d->table = 0;
	d->tree_cur = d->tree_top = 0;
	evtimes_free(&d->tm);
	d->tstate = 0;
}

struct loadctx {
	nlr_table *t;
	dt_err *e;
};

static int load_loop(void *ctx, uint32_t id, const nlr_entry *body, size_t n)
{
	struct loadctx *c = ctx;
	return nlr_table_load(c->t, id, body, n, c->e);
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
	return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

static const nlr_entry *body_of(const struct trace *d, uint32_t id, size_t *len)
{
	if (id >= nlr_table_count(d->loops)) {
		*len = 0;
		return NULL;
	}
	return nlr_table_body(d->loops, id, len);
}

/* The loops the trace uses and, for each, its events per iteration and its unfolded size. A
 * body only names smaller ids, so one pass down the ids finds the nested loops and one pass up
 * has every inner loop's figures ready before the loops around it need them. */
static void loop_figures(struct trace *d)
{
	uint32_t max = 0;
	int any = 0;
	for (size_t i = 0; i < d->n; i++)
		if (nlr_is_loop(d->v[i])) {
			any = 1;
			d->nloops++;
			if (nlr_loop_id(d->v[i]) > max)
				max = nlr_loop_id(d->v[i]);
		}
	d->nids = any ? max + 1 : 0;
	uint8_t *mark = xcalloc(d->nids ? d->nids : 1, 1);
	for (size_t i = 0; i < d->n; i++)
		if (nlr_is_loop(d->v[i]))
			mark[nlr_loop_id(d->v[i])] = 1;
	for (uint32_t id = d->nids; id-- > 0;) {
		if (!mark[id])
			continue;
		size_t len;
		const nlr_entry *b = body_of(d, id, &len);
		for (size_t j = 0; j < len; j++)
			if (nlr_is_loop(b[j]))
				mark[nlr_loop_id(b[j])] = 1;
	}
	d->evlen = xcalloc(d->nids ? d->nids : 1, sizeof *d->evlen);
	d->size = xcalloc(d->nids ? d->nids : 1, sizeof *d->size);
	d->used = xmalloc((d->nids ? d->nids : 1) * sizeof *d->used);
	for (uint32_t id = 0; id < d->nids; id++) {
		if (!mark[id])
			continue;
		d->used[d->nused++] = id;
		size_t len;
		const nlr_entry *b = body_of(d, id, &len);
		uint64_t ev = 0, sz = 0;
		for (size_t j = 0; j < len; j++) {
			if (nlr_is_loop(b[j])) {
				uint32_t c = nlr_loop_id(b[j]);
				ev = sat_add(ev, sat_mul(b[j].count, d->evlen[c]));
				sz = sat_add(sz, 1 + d->size[c]);
			} else {
				ev = sat_add(ev, 1);
				sz = sat_add(sz, 1);
			}
		}
		d->evlen[id] = ev;
		d->size[id] = sz > TREE_MAX_LINES ? TREE_MAX_LINES + 1 : sz;
	}
	free(mark);
}

static void tb_push(struct tbuf *b, struct tline l)
{
	GROW(b->l, b->cap, b->n + 1);
	b->l[b->n++] = l;
}

static uint64_t child_guides(const struct tline *p)
{
	uint64_t g = p->guides;
	if (p->depth >= 1 && p->depth <= GUIDE_DEPTH && !p->last)
		g |= (uint64_t)1 << (p->depth - 1);
	return g;
}

/* Appends the body of loop line p to b, every nested loop unfolded too when deep. */
/* Kept events an entry stands for: 1 for a call, count iterations of its body for a loop. */
static uint64_t entry_events(const struct trace *d, nlr_entry x)
{
	if (!nlr_is_loop(x))
		return 1;
	uint32_t id = nlr_loop_id(x);
	return id < d->nids ? sat_mul(x.count, d->evlen[id]) : 0;
}

/* Events of a loop's first iteration scanned at most for its least call depth. */
#define CD_SCAN (1u << 20)

/* The call depth of an entry at kept event fpos: of a call its own, of a loop the least of
 * its first iteration (the loop sits at the level of its shallowest call). */
static uint16_t cd_of(const struct trace *d, uint64_t fpos, nlr_entry e)
{
	if (d->dstate != 1 || fpos >= d->ndep)
		return 0;
	uint64_t n = 1;
	if (nlr_is_loop(e) && nlr_loop_id(e) < d->nids)
		n = d->evlen[nlr_loop_id(e)];
	if (n > d->ndep - fpos)
		n = d->ndep - fpos;
	if (n > CD_SCAN)
		n = CD_SCAN;
	uint16_t m = d->dep[fpos];
	for (uint64_t k = 1; k < n; k++)
		if (d->dep[fpos + k] < m)
			m = d->dep[fpos + k];
	return m;
}

/* Sets the call depth and the indent of l, whose loop level starts at call depth base. */
static void set_cd(const struct trace *d, struct tline *l, uint16_t base)
{
	l->cd = cd_of(d, l->fpos, l->e);
	l->ind = l->cd > base ? (uint16_t)(l->cd - base) : 0;
}

static void emit_body(const struct trace *d, struct tbuf *b, struct tline p, int deep)
{
	size_t len;
	const nlr_entry *body = body_of(d, nlr_loop_id(p.e), &len);
	uint64_t pos = p.fpos;
	for (size_t j = 0; j < len; j++) {
		struct tline c = { body[j], p.depth + 1, (uint32_t)j, 0, j + 1 == len,
				   child_guides(&p), pos, 0, 0, NULL, 0 };
		set_cd(d, &c, p.cd);
		c.open = deep && nlr_is_loop(c.e);
		tb_push(b, c);
		if (c.open)
			emit_body(d, b, c, 1);
		pos = sat_add(pos, entry_events(d, body[j]));
	}
}

/* Rebuilds the whole tree: every loop folded, or every loop unfolded. */
static void build_tree(struct trace *d, int deep)
{
	tb_free_lines(d->t.l, d->t.n);
	d->t.n = 0;
	uint64_t pos = 0;
	for (size_t i = 0; i < d->n; i++) {
		struct tline l = { d->v[i], 0, (uint32_t)i, 0, i + 1 == d->n, 0, pos, 0, 0, NULL, 0 };
		set_cd(d, &l, d->cd0);
		l.open = deep && nlr_is_loop(l.e);
		tb_push(&d->t, l);
		if (l.open)
			emit_body(d, &d->t, l, 1);
		pos = sat_add(pos, entry_events(d, d->v[i]));
	}
}

/* Kept events up to this many have their call depths read when the view opens; a longer
 * trace reads them at the first key that folds a call. */
#define DEPTH_AT_OPEN (1u << 20)

/* Reads the call depths and gives every line of the tree its depth and indent; 1 when they
 * are there, 0 when the trace has none (a message says why). */
static int load_depths(tui *t, struct trace *d)
{
	if (d->dstate == 0) {
		dt_err e;
		dt_err_clear(&e);
		int r = evtimes_depth(tui_store(t), d->r, d->obj, &d->dep, &d->ndep, d->dwhy,
				      sizeof d->dwhy, &e);
		if (r < 0)
			dt_err_format(&e, d->dwhy, sizeof d->dwhy);
		d->dstate = r == 1 ? 1 : -1;
		if (d->dstate == 1) {
			d->cd0 = UINT16_MAX;
			for (size_t i = 0; i < d->ndep; i++)
				if (d->dep[i] < d->cd0)
					d->cd0 = d->dep[i];
			/* the lines so far: each level's base is the depth of the loop line above */
			uint16_t *base = xmalloc((d->t.n + 1) * sizeof *base);
			for (size_t i = 0; i < d->t.n; i++) {
				struct tline *l = &d->t.l[i];
				set_cd(d, l, l->depth ? base[l->depth - 1] : d->cd0);
				if (l->depth <= d->t.n)
					base[l->depth] = l->cd;
			}
			free(base);
		}
	}
	if (d->dstate < 0)
		tui_msg(t, ST_WARN, "no call tree: %s", d->dwhy);
	return d->dstate == 1;
}

/* Reads where the program made each kept event (the sync record's call sites); 1 when they
 * are there. */
static int load_sites(tui *t, struct trace *d)
{
	if (d->sstate == 0) {
		dt_err e;
		dt_err_clear(&e);
		d->swhy[0] = 0;
		int r = d->sites.n ? evsites_kept_run(tui_store(t), d->r, d->run, d->obj, NULL, 0,
						      &d->ksite, d->swhy, sizeof d->swhy, &e)
				   : 1;
		if (r < 0)
			dt_err_format(&e, d->swhy, sizeof d->swhy);
		d->sstate = r == 1 ? 1 : -1;
	}
	return d->sstate == 1;
}

/* The call site of line l's call (0: none known). */
static uint32_t line_site(const struct trace *d, const struct tline *l)
{
	if (d->sstate != 1 || !d->ksite || nlr_is_loop(l->e) || d->obj < 0 ||
	    l->fpos >= d->r->nfiltered[d->obj])
		return 0;
	return d->ksite[l->fpos];
}

static int load(tui *t, struct trace *d)
{
	dt_err e;
	dt_err_clear(&e);
	store *s = tui_store(t);
	d->obj = analysis_object(d->r, d->p, d->thr);
	if (d->obj < 0) {
		snprintf(d->why, sizeof d->why, "no trace %d.%d in run %s", d->p, d->thr, d->run);
		return -1;
	}
	if (store_analysis_get_trace(s, d->r->meta.id, d->obj, NULL, NULL, &d->v, &d->n, NULL,
				     NULL, &e))
		goto fail;
	d->loops = nlr_table_new();
	struct loadctx lc = { d->loops, &e };
	if (store_loops_each(s, load_loop, &lc, &e))
		goto fail;
	for (size_t i = 0; i < d->n; i++)
		if (nlr_is_loop(d->v[i]) && nlr_loop_id(d->v[i]) >= nlr_table_count(d->loops)) {
			dt_errf(&e, DT_EDATA, "trace %d.%d names loop L%u, which the store lacks",
				d->p, d->thr, nlr_loop_id(d->v[i]));
			goto fail;
		}
	loop_figures(d);
	int w = 1;
	for (size_t k = d->n; k >= 10; k /= 10)
		w++;
	d->numw = w;
	build_tree(d, 0);
	d->aid = d->r->meta.id;
	if (d->r->nfiltered[d->obj] <= DEPTH_AT_OPEN) {
		load_depths(t, d);
		load_sites(t, d);
	}
	return 0;
fail:
	dt_err_format(&e, d->why, sizeof d->why);
	free_data(d);
	return -1;
}

static void set_lines(view *v)
{
	struct trace *d = v->data;
	if (d->state != 1 || d->why[0] || !d->n)
		v->nlines = 1;
	else
		v->nlines = d->table ? d->nused : d->t.n;
}

/* Traces longer than this are not searched for a better K when the view opens: each K tried is
 * one more compression, and the view must open at once. */
#define SUGGEST_MAX_EVENTS 65536

/* When K folds nothing but a larger K would, the message line says which. */
static void suggest_k(tui *t, const struct trace *d)
{
	size_t body;
	dt_err e;
	dt_err_clear(&e);
	unsigned kk = d->loops ? nlr_suggest_k(d->loops, d->v, d->n, (unsigned)d->r->meta.k,
					       NLR_KMAX, SUGGEST_MAX_EVENTS, &body, &e)
			       : 0;
	if (kk)
		tui_msg(t, ST_WARN, "K %d folds nothing; :K %u folds a loop of %zu calls", d->r->meta.k,
			kk, body);
}

static int trace_open(tui *t, view *v)
{
	struct trace *d = v->data;
	int first = !d->opened;
	d->opened = 1;
	d->state = d->own_as ? tui_analysis_as(t, d->run, &d->as, &d->r)
			     : tui_analysis(t, d->run, &d->r);
	if (d->state == 1 && d->aid && d->aid == d->r->meta.id) {
		/* the same analysis (another one finished): keep what is folded */
		set_lines(v);
		return 0;
	}
	free_data(d);
	d->why[0] = 0;
	if (d->state < 0) {
		if (first)
			return -1;
		snprintf(d->why, sizeof d->why, "no analysis of %s (see the message below)", d->run);
	} else if (d->state == 1) {
		if (load(t, d) && first) {
			tui_msg(t, ST_WARN, "%s", d->why);
			return -1;
		}
		snprintf(v->title, sizeof v->title,
			 "difftrace: trace %d.%d of %s, nested loops (filter %s, K %d)", d->p, d->thr,
			 d->run, d->r->filter_alias, d->r->meta.k);
		suggest_k(t, d);
	}
	set_lines(v);
	return 0;
}

/* ---- drawing ---- */

static void token(tui *t, tui_out *o, int style, nlr_entry x)
{
	if (nlr_is_loop(x))
		out_printf(o, style, "L%u %s%u", nlr_loop_id(x), o->utf8 ? "\u00d7" : "x", x.count);
	else
		out_text(o, style, store_func_name(tui_store(t), x.sym));
}

static void body_text(tui *t, const struct trace *d, tui_out *o, int style, uint32_t id)
{
	size_t len;
	const nlr_entry *b = body_of(d, id, &len);
	out_text(o, style, "(");
	for (size_t j = 0; j < len; j++) {
		if (j)
			out_text(o, style, " - ");
		token(t, o, style, b[j]);
	}
	out_text(o, style, ")");
}

/* A folded loop's body with the bodies of the loops inside it, so that a search finds a call
 * however deep it is folded; cut with "..." once the line passes limit bytes. */
static void body_inline(tui *t, const struct trace *d, tui_out *o, int style, uint32_t id,
			size_t limit)
{
	size_t len;
	const nlr_entry *b = body_of(d, id, &len);
	out_text(o, style, "(");
	for (size_t j = 0; j < len; j++) {
		if (o->len > limit) {
			out_text(o, style, " ...");
			break;
		}
		if (j)
			out_text(o, style, " - ");
		token(t, o, style, b[j]);
		if (nlr_is_loop(b[j])) {
			out_text(o, style, " ");
			body_inline(t, d, o, style, nlr_loop_id(b[j]), limit);
		}
	}
	out_text(o, style, ")");
}

static void count_text(char *buf, size_t n, uint64_t v)
{
	if (v == UINT64_MAX)
		snprintf(buf, n, "too many");
	else
		snprintf(buf, n, "%llu", (unsigned long long)v);
}

/* The time column of line l: when it began (since the trace's first event) or how long it
 * took (a loop: all its iterations), blank where it is not known. */
static void time_cell(const struct trace *d, const struct tline *l, tui_out *o)
{
	char buf[32] = "";
	uint64_t n = entry_events(d, l->e);
	if (d->tstate == 1 && n && l->fpos < d->tm.n && n - 1 < d->tm.n - l->fpos) {
		uint64_t a = d->tm.start[l->fpos], b = d->tm.end[l->fpos + n - 1];
		if (d->tmode == 1)
			evtimes_fmt(a >= d->tm.t0 ? a - d->tm.t0 : 0, buf, sizeof buf);
		else
			evtimes_fmt(b >= a ? b - a : 0, buf, sizeof buf);
	}
	out_printf(o, ST_DIM, "%10s ", buf);
}

/* The calls a folded call hides, in their order (a loop with its body, the calls a folded call
 * among them hides after it), so that a search finds them; cut with "..." past limit bytes.
 * *n: entries written so far. */
static void hidden_inline(tui *t, const struct trace *d, tui_out *o, const struct tbuf *h,
			  uint32_t depth, size_t limit, size_t *n)
{
	for (size_t k = 0; k < h->n; k++) {
		const struct tline *x = &h->l[k];
		if (x->depth != depth || (!nlr_is_loop(x->e) && x->e.sym == DT_RET))
			continue;
		if (o->len > limit) {
			if (*n != SIZE_MAX)
				out_text(o, ST_DIM, " ...");
			*n = SIZE_MAX;
			return;
		}
		if ((*n)++)
			out_text(o, ST_DIM, " - ");
		token(t, o, ST_DIM, x->e);
		if (nlr_is_loop(x->e)) {
			out_text(o, ST_DIM, " ");
			body_inline(t, d, o, ST_DIM, nlr_loop_id(x->e), limit);
		}
		if (x->hid)
			hidden_inline(t, d, o, x->hid, depth, limit, n);
		if (*n == SIZE_MAX)
			return;
	}
}

/* Indents past this many call levels show as a number. */
#define IND_MAX 24u

/* Call line i has callees on the lines below it (shown, not folded). */
static int has_callees(const struct trace *d, size_t i)
{
	const struct tline *l = &d->t.l[i];
	return d->dstate == 1 && !nlr_is_loop(l->e) && i + 1 < d->t.n &&
	       d->t.l[i + 1].depth == l->depth && d->t.l[i + 1].cd > l->cd;
}

static void tree_line(tui *t, const struct trace *d, size_t i, tui_out *o)
{
	const struct tline *l = &d->t.l[i];
	if (l->depth == 0)
		out_printf(o, ST_DIM, "%*u ", d->numw, l->idx + 1);
	else
		out_printf(o, ST_NORMAL, "%*s ", d->numw, "");
	if (d->tmode)
		time_cell(d, l, o);
	const char *bar = o->utf8 ? "\u2502  " : "|  ";
	for (uint32_t k = 1; k < l->depth; k++)
		out_text(o, ST_DIM,
			 k <= GUIDE_DEPTH && (l->guides >> (k - 1) & 1) ? bar : "   ");
	if (l->depth)
		out_text(o, ST_DIM,
			 l->last ? (o->utf8 ? "\u2514\u2500 " : "`- ")
				 : (o->utf8 ? "\u251c\u2500 " : "|- "));
	if (d->dstate == 1 && l->ind) {
		for (unsigned k = 0; k < l->ind && k < IND_MAX; k++)
			out_text(o, ST_NORMAL, "  ");
		if (l->ind > IND_MAX)
			out_printf(o, ST_DIM, "(+%u) ", l->ind - IND_MAX);
	}
	if (!nlr_is_loop(l->e)) {
		if (l->hid || has_callees(d, i))
			out_text(o, ST_KEY, l->hid ? "[+] " : "[-] ");
		token(t, o, ST_NORMAL, l->e);
		if (l->hid) {
			char n[32];
			count_text(n, sizeof n, l->nhid);
			out_printf(o, ST_DIM, "  %s call%s folded", n, l->nhid == 1 ? "" : "s");
		}
		uint32_t site = line_site(d, l);
		if (site)
			tui_site_suffix(o, &d->sites, site);
		else
			tui_src_suffix(o, d->lines, store_func_name(tui_store(t), l->e.sym));
		if (l->hid) {
			size_t k = 0;
			out_text(o, ST_DIM, "  (");
			hidden_inline(t, d, o, l->hid, l->depth, o->len + PREVIEW_MAX, &k);
			out_text(o, ST_DIM, ")");
		}
		return;
	}
	uint32_t id = nlr_loop_id(l->e);
	size_t len;
	body_of(d, id, &len);
	out_text(o, ST_KEY, l->open ? "[-] " : "[+] ");
	token(t, o, ST_HEADER, l->e);
	char ev[32];
	count_text(ev, sizeof ev, sat_mul(l->e.count, d->evlen[id]));
	out_printf(o, ST_DIM, "  body %zu, %s events", len, ev);
	if (!l->open) {
		out_text(o, ST_DIM, "  ");
		body_inline(t, d, o, ST_DIM, id, o->len + PREVIEW_MAX);
	}
}

static void table_line(tui *t, const struct trace *d, size_t i, tui_out *o)
{
	uint32_t id = d->used[i];
	size_t len;
	body_of(d, id, &len);
	out_printf(o, ST_HEADER, "L%u", id);
	out_text(o, ST_NORMAL, " = ");
	body_text(t, d, o, ST_NORMAL, id);
	char ev[32];
	count_text(ev, sizeof ev, d->evlen[id]);
	out_printf(o, ST_DIM, "  body %zu, %s event%s per iteration", len, ev,
		   d->evlen[id] == 1 ? "" : "s");
}

static void trace_line(tui *t, view *v, size_t i, tui_out *o)
{
	struct trace *d = v->data;
	if (d->state == 0) {
		char what[128];
		int pct = tui_job_progress(t, what, sizeof what);
		out_printf(o, ST_DIM, "computing the analysis of %s ... %s", d->run,
			   tui_job_pct(t, pct));
	} else if (d->why[0]) {
		out_text(o, ST_WARN, d->why);
	} else if (!d->n) {
		out_printf(o, ST_DIM, "no event of trace %d.%d is left after the filter %s", d->p,
			   d->thr, d->r->filter_alias);
	} else if (d->table) {
		table_line(t, d, i, o);
	} else {
		tree_line(t, d, i, o);
	}
}

static void trace_header(tui *t, view *v, tui_out *o)
{
	(void)t;
	struct trace *d = v->data;
	if (d->state != 1 || d->why[0] || d->obj < 0) {
		out_printf(o, ST_HEADER, "run %s, trace %d.%d", d->run, d->p, d->thr);
		return;
	}
	if (d->table) {
		out_printf(o, ST_HEADER,
			   "%zu loop%s in trace %d.%d of %s  (Enter: first use in the tree; t, q: back)",
			   d->nused, d->nused == 1 ? "" : "s", d->p, d->thr, d->run);
		return;
	}
	if (d->tmode)
		out_printf(o, ST_HEADER, "%*s %10s ", d->numw, "#",
			   d->tmode == 1 ? "START" : "DURATION");
	out_printf(o, ST_HEADER, "%llu events, %llu kept by the filter, %zu entr%s, %zu loop%s",
		   (unsigned long long)d->r->traces[d->obj].nevents,
		   (unsigned long long)d->r->nfiltered[d->obj], d->n, d->n == 1 ? "y" : "ies",
		   d->nloops, d->nloops == 1 ? "" : "s");
	if (d->nused)
		out_printf(o, ST_HEADER, " (%zu distinct)", d->nused);
}

/* ---- folding ---- */

static int ready(const struct trace *d)
{
	return d->state == 1 && !d->why[0] && d->n;
}

/* The lines below line i that belong to it: [i + 1, end). */
static size_t subtree_end(const struct trace *d, size_t i)
{
	size_t j = i + 1;
	while (j < d->t.n && d->t.l[j].depth > d->t.l[i].depth)
		j++;
	return j;
}

static void splice(struct trace *d, size_t at, size_t drop, const struct tbuf *ins)
{
	size_t n2 = d->t.n - drop + ins->n;
	GROW(d->t.l, d->t.cap, n2 ? n2 : 1);
	memmove(d->t.l + at + ins->n, d->t.l + at + drop, (d->t.n - at - drop) * sizeof *d->t.l);
	if (ins->n)
		memcpy(d->t.l + at, ins->l, ins->n * sizeof *d->t.l);
	d->t.n = n2;
}

static void fold(struct trace *d, view *v, size_t i)
{
	size_t end = subtree_end(d, i);
	struct tbuf none = { NULL, 0, 0 };
	tb_free_lines(d->t.l + i + 1, end - i - 1);
	splice(d, i + 1, end - i - 1, &none);
	d->t.l[i].open = 0;
	if (v->cur > i && v->cur < end)
		v->cur = i;
	else if (v->cur >= end)
		v->cur -= end - i - 1;
	v->nlines = d->t.n;
}

/* Unfolds loop line i (deep: with every loop inside it); 0, or -1 when too big. */
static int unfold(tui *t, struct trace *d, view *v, size_t i, int deep)
{
	struct tline *l = &d->t.l[i];
	uint32_t id = nlr_loop_id(l->e);
	if (deep && d->t.n + d->size[id] > TREE_MAX_LINES) {
		tui_msg(t, ST_WARN, "L%u unfolds into more than %u lines: unfold it level by level",
			id, TREE_MAX_LINES);
		return -1;
	}
	size_t end = subtree_end(d, i);
	struct tbuf b = { NULL, 0, 0 };
	emit_body(d, &b, *l, deep);
	l->open = 1;
	tb_free_lines(d->t.l + i + 1, end - i - 1);
	splice(d, i + 1, end - i - 1, &b);
	free(b.l);
	if (v->cur >= end)
		v->cur = v->cur - (end - i - 1) + b.n;
	else if (v->cur > i)
		v->cur = i;
	v->nlines = d->t.n;
	return 0;
}

/* The lines below call line i of l[0..n) that are its callees (with the loops among them and
 * their bodies): [i + 1, end). */
static size_t call_end(const struct tline *l, size_t n, size_t i)
{
	size_t j = i + 1;
	while (j < n && (l[j].depth > l[i].depth || (l[j].depth == l[i].depth && l[j].cd > l[i].cd)))
		j++;
	return j;
}

/* The calls lines l[a..b) at loop level depth stand for (a loop: all its iterations). */
static uint64_t calls_in(const struct trace *d, const struct tline *l, size_t a, size_t b,
			 uint32_t depth)
{
	uint64_t c = 0;
	for (size_t k = a; k < b; k++)
		if (l[k].depth == depth && (nlr_is_loop(l[k].e) || l[k].e.sym != DT_RET))
			c = sat_add(sat_add(c, entry_events(d, l[k].e)), l[k].nhid);
	return c;
}

/* Folds call line i: the lines of its callees go into its stash. */
static void cfold(struct trace *d, view *v, size_t i)
{
	size_t end = call_end(d->t.l, d->t.n, i);
	struct tline *l = &d->t.l[i];
	l->hid = xcalloc(1, sizeof *l->hid);
	l->hid->n = l->hid->cap = end - i - 1;
	l->hid->l = xmalloc((l->hid->n ? l->hid->n : 1) * sizeof *l->hid->l);
	memcpy(l->hid->l, l + 1, l->hid->n * sizeof *l->hid->l);
	l->nhid = calls_in(d, l + 1, 0, l->hid->n, l->depth);
	struct tbuf none = { NULL, 0, 0 };
	splice(d, i + 1, end - i - 1, &none);
	if (v->cur > i && v->cur < end)
		v->cur = i;
	else if (v->cur >= end)
		v->cur -= end - i - 1;
	v->nlines = d->t.n;
}

/* Unfolds call line i one level: what it hid comes back as it was (folded calls in it stay
 * folded). */
static void cunfold(struct trace *d, view *v, size_t i)
{
	struct tbuf *h = d->t.l[i].hid;
	d->t.l[i].hid = NULL;
	d->t.l[i].nhid = 0;
	splice(d, i + 1, 0, h);
	if (v->cur > i)
		v->cur += h->n;
	free(h->l);
	free(h);
	v->nlines = d->t.n;
}

/* Copies l[a..b) to out with every call that has callees folded, innermost first; top: the
 * lines are the tree's, and *cur (a line of them) becomes its line in out. */
static void fold_calls(const struct trace *d, struct tline *l, size_t a, size_t b,
		       struct tbuf *out, size_t *cur)
{
	size_t i = a;
	while (i < b) {
		struct tline x = l[i];
		size_t end = i + 1;
		if (!nlr_is_loop(x.e) && !x.hid && d->dstate == 1)
			end = call_end(l, b, i);
		if (cur && *cur >= i && *cur < end)
			*cur = out->n;
		if (end > i + 1) {
			x.hid = xcalloc(1, sizeof *x.hid);
			fold_calls(d, l, i + 1, end, x.hid, NULL);
			x.nhid = calls_in(d, l, i + 1, end, x.depth);
		}
		tb_push(out, x);
		i = end;
	}
}

/* Copies l[0..n) to out with every folded call unfolded (the stashes move into out). */
static void unfold_calls(struct tline *l, size_t n, struct tbuf *out, size_t *cur)
{
	for (size_t i = 0; i < n; i++) {
		struct tline x = l[i];
		struct tbuf *h = x.hid;
		x.hid = NULL;
		x.nhid = 0;
		if (cur && *cur == i) {
			*cur = out->n;
			cur = NULL;
		}
		tb_push(out, x);
		if (h) {
			unfold_calls(h->l, h->n, out, NULL);
			free(h->l);
			free(h);
		}
	}
}

/* C (fold 1) and E (fold 0): every call folded, unfolded; the cursor stays on its call, or
 * goes to the call that now hides it. */
static void all_calls(tui *t, struct trace *d, view *v, int fold)
{
	if (!load_depths(t, d))
		return;
	struct tbuf out = { NULL, 0, 0 };
	size_t cur = v->cur;
	if (fold)
		fold_calls(d, d->t.l, 0, d->t.n, &out, &cur);
	else
		unfold_calls(d->t.l, d->t.n, &out, &cur);
	free(d->t.l);
	d->t = out;
	if (!d->t.l)
		GROW(d->t.l, d->t.cap, 1);
	v->cur = cur < d->t.n ? cur : 0;
	v->nlines = d->t.n;
	tui_msg(t, ST_DIM, fold ? "every call folded (E unfolds them)" : "every call unfolded");
}

static size_t parent_line(const struct trace *d, size_t i)
{
	uint32_t dp = d->t.l[i].depth;
	while (i-- > 0)
		if (d->t.l[i].depth < dp)
			return i;
	return SIZE_MAX;
}

/* The line of the call or the loop that line i is in, or SIZE_MAX. */
static size_t enclosing(const struct trace *d, size_t i)
{
	const struct tline *l = &d->t.l[i];
	while (i-- > 0) {
		const struct tline *p = &d->t.l[i];
		if (p->depth < l->depth ||
		    (d->dstate == 1 && p->depth == l->depth && p->cd < l->cd && !nlr_is_loop(p->e)))
			return i;
	}
	return SIZE_MAX;
}

/* The position of line i in the tree: path[k] is its ancestor's index at depth k. */
static size_t path_of(const struct trace *d, size_t i, uint32_t **path)
{
	size_t n = d->t.l[i].depth + 1;
	*path = xmalloc(n * sizeof **path);
	for (size_t k = n; k-- > 0;) {
		(*path)[k] = d->t.l[i].idx;
		if (k)
			i = parent_line(d, i);
	}
	return n;
}

/* Unfolds what is needed to show the entry at path and returns its line. */
static size_t reveal(tui *t, struct trace *d, view *v, const uint32_t *path, size_t n)
{
	size_t i = 0;
	while (i < d->t.n && !(d->t.l[i].depth == 0 && d->t.l[i].idx == path[0]))
		i++;
	for (size_t k = 1; k < n && i < d->t.n; k++) {
		if (!d->t.l[i].open && unfold(t, d, v, i, 0))
			break;
		size_t end = subtree_end(d, i), j = i + 1;
		while (j < end && !(d->t.l[j].depth == k && d->t.l[j].idx == path[k]))
			j++;
		if (j == end)
			break;
		i = j;
	}
	return i < d->t.n ? i : 0;
}

static void all(tui *t, struct trace *d, view *v, int deep)
{
	if (deep) {
		uint64_t total = d->n;
		for (size_t i = 0; i < d->n; i++)
			if (nlr_is_loop(d->v[i]))
				total = sat_add(total, d->size[nlr_loop_id(d->v[i])]);
		if (total > TREE_MAX_LINES) {
			tui_msg(t, ST_WARN,
				"every loop unfolded makes more than %u lines: unfold them one by one",
				TREE_MAX_LINES);
			return;
		}
	}
	uint32_t *path;
	size_t n = path_of(d, v->cur, &path);
	build_tree(d, deep);
	v->nlines = d->t.n;
	v->cur = reveal(t, d, v, path, deep ? n : 1);
	free(path);
	tui_msg(t, ST_DIM, deep ? "every loop unfolded" : "every loop folded");
}

/* Shows the first place loop id is used, unfolded, in the tree. */
static void jump(tui *t, struct trace *d, view *v, uint32_t id)
{
	/* has[x]: loop x's body holds id, however deep */
	uint8_t *has = xcalloc(d->nids, 1);
	for (size_t u = 0; u < d->nused && d->used[u] < d->nids; u++) {
		uint32_t x = d->used[u];
		size_t len;
		const nlr_entry *b = body_of(d, x, &len);
		for (size_t j = 0; j < len && !has[x]; j++)
			if (nlr_is_loop(b[j]) &&
			    (nlr_loop_id(b[j]) == id || has[nlr_loop_id(b[j])]))
				has[x] = 1;
	}
	uint32_t *path = xmalloc((d->nids + 1) * sizeof *path);
	size_t n = 0;
	const nlr_entry *cur = d->v;
	/* the loop may be under a folded call: unfold the calls of the tree first */
	struct tbuf out = { NULL, 0, 0 };
	size_t tc = d->tree_cur;
	unfold_calls(d->t.l, d->t.n, &out, &tc);
	free(d->t.l);
	d->t = out;
	d->tree_cur = tc;
	size_t len = d->n;
	for (;;) {
		size_t j = 0;
		while (j < len && !(nlr_is_loop(cur[j]) && (nlr_loop_id(cur[j]) == id ||
							     has[nlr_loop_id(cur[j])])))
			j++;
		if (j == len || n > d->nids)
			break;
		path[n++] = (uint32_t)j;
		if (nlr_loop_id(cur[j]) == id)
			break;
		cur = body_of(d, nlr_loop_id(cur[j]), &len);
	}
	d->table = 0;
	v->nlines = d->t.n;
	v->cur = d->tree_cur;
	v->top = d->tree_top;
	if (n) {
		size_t i = reveal(t, d, v, path, n);
		if (nlr_is_loop(d->t.l[i].e) && !d->t.l[i].open)
			unfold(t, d, v, i, 0);
		/* the loop with a little of what leads to it */
		size_t top = i > 2 ? i - 2 : 0, p = i;
		while (p != SIZE_MAX && i - p < (size_t)tui_rows(t) / 2) {
			top = p;
			p = parent_line(d, p);
		}
		v->cur = i;
		v->top = top;
		tui_msg(t, ST_DIM, "the first use of L%u", id);
	}
	free(path);
	free(has);
}

static void show_table(tui *t, struct trace *d, view *v)
{
	if (!d->nused) {
		tui_msg(t, ST_DIM, "trace %d.%d has no loop", d->p, d->thr);
		return;
	}
	d->tree_cur = v->cur;
	d->tree_top = v->top;
	size_t at = 0;
	const struct tline *l = &d->t.l[v->cur];
	if (nlr_is_loop(l->e))
		while (at + 1 < d->nused && d->used[at] < nlr_loop_id(l->e))
			at++;
	d->table = 1;
	v->nlines = d->nused;
	v->cur = at;
	v->top = 0;
}

static void hide_table(struct trace *d, view *v)
{
	d->table = 0;
	v->nlines = d->t.n;
	v->cur = d->tree_cur;
	v->top = d->tree_top;
}

static void trace_enter(tui *t, view *v, size_t i)
{
	struct trace *d = v->data;
	if (!ready(d))
		return;
	if (d->table) {
		jump(t, d, v, d->used[i]);
		return;
	}
	if (!nlr_is_loop(d->t.l[i].e)) {
		if (!load_depths(t, d))
			return;
		if (d->t.l[i].hid)
			cunfold(d, v, i);
		else if (has_callees(d, i))
			cfold(d, v, i);
		else
			tui_msg(t, ST_DIM, "a call without callees: nothing to fold");
		return;
	}
	if (d->t.l[i].open)
		fold(d, v, i);
	else
		unfold(t, d, v, i, 0);
}

static void diff_key(tui *t, struct trace *d)
{
	const char *normal, *faulty;
	if (!tui_get_pair(t, &normal, &faulty) || !*normal || !*faulty) {
		tui_msg(t, ST_WARN, "choose the normal and faulty runs first (1 and 2 in the runs view)");
		return;
	}
	if (strcmp(d->run, normal) && strcmp(d->run, faulty)) {
		tui_msg(t, ST_WARN, "%s is not in the marked pair (normal %s, faulty %s)", d->run,
			normal, faulty);
		return;
	}
	view_diff_open(t, normal, d->p, d->thr, faulty, d->p, d->thr);
}

/* U: uftrace tui on the directory the trace was imported from ($UFTRACE, else uftrace). */
static void uftrace_tui(tui *t, struct trace *d)
{
	store *s = tui_store(t);
	dt_err e;
	dt_err_clear(&e);
	store_run run;
	if (store_run_get_lite(s, d->run, &run, &e)) {
		tui_msg(t, ST_WARN, "%s", e.msg);
		return;
	}
	int ok = run.format && !strcmp(run.format, "uftrace");
	store_trace tr;
	int have = ok && !store_trace_get(s, run.id, d->p, d->thr, &tr, &e);
	store_run_free(&run);
	if (!ok) {
		tui_msg(t, ST_WARN, "run %s was not recorded with uftrace: no recording to open",
			d->run);
		return;
	}
	if (!have) {
		tui_msg(t, ST_WARN, "%s", e.msg);
		return;
	}
	/* the source is DIR/TID.dat: uftrace reads DIR */
	char dir[4096], tid[32];
	snprintf(dir, sizeof dir, "%s", tr.source ? tr.source : "");
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = 0;
	snprintf(tid, sizeof tid, "%lld", (long long)tr.tid);
	store_trace_free(&tr);
	const char *uf = getenv("UFTRACE");
	char *argv[] = { (char *)(uf && *uf ? uf : "uftrace"), "tui", "-d", dir, "--tid", tid,
			 NULL };
	int rc = tui_run_program(t, argv);
	if (rc >= 0 && rc != 127)
		tui_msg(t, rc ? ST_WARN : ST_DIM, "uftrace tui -d %s --tid %s ended%s", dir, tid,
			rc ? " with an error" : "");
}

/* D: the time column, since the start, then duration, then none. The times are read on the
 * first use (one pass over the trace's events). */
static void time_key(tui *t, struct trace *d)
{
	if (d->tmode) {
		d->tmode = d->tmode == 1 ? 2 : 0;
		tui_msg(t, ST_DIM, d->tmode ? "time column: duration of each call or loop"
					    : "time column off");
		return;
	}
	if (d->tstate == 0) {
		dt_err e;
		dt_err_clear(&e);
		int r = evtimes_load(tui_store(t), d->r, d->obj, &d->tm, d->twhy, sizeof d->twhy,
				     &e);
		if (r < 0)
			dt_err_format(&e, d->twhy, sizeof d->twhy);
		d->tstate = r == 1 ? 1 : -1;
	}
	if (d->tstate < 0) {
		tui_msg(t, ST_WARN, "%s", d->twhy);
		return;
	}
	d->tmode = 1;
	tui_msg(t, ST_DIM, "time column: since the trace's first event (D again: duration)");
}

/* e: the source of the call under the cursor */
static void edit_key(tui *t, struct trace *d, view *v)
{
	if (d->table || v->cur >= d->t.n) {
		tui_msg(t, ST_WARN, "no call on this line: nothing to open in the editor");
		return;
	}
	const struct tline *l = &d->t.l[v->cur];
	if (nlr_is_loop(l->e)) {
		tui_msg(t, ST_WARN, "a loop, not a call: unfold it (Enter) and choose a call");
		return;
	}
	/* a call of the sync record: where the program made it; else its function's definition */
	uint32_t site = 0;
	char why[300] = "";
	if (d->sites.n && d->sstate == 0 && d->r->nfiltered[d->obj] > DEPTH_AT_OPEN) {
		/* a long trace: the sites of its kept events were not read, this one's is */
		dt_err e;
		dt_err_clear(&e);
		uint64_t pos = l->fpos;
		uint32_t *one = NULL;
		int r = evsites_kept_run(tui_store(t), d->r, d->run, d->obj, &pos, 1, &one, why,
					 sizeof why, &e);
		if (r < 0)
			dt_err_format(&e, why, sizeof why);
		site = r == 1 && one ? one[0] : 0;
		free(one);
	} else if (d->sites.n) {
		if (!load_sites(t, d))
			snprintf(why, sizeof why, "%s", d->swhy);
		site = line_site(d, l);
	}
	if (why[0])
		tui_msg(t, ST_WARN, "no call site: %s", why);
	else if (site)
		tui_site_edit(t, &d->sites, site, 1);
	else
		tui_src_edit(t, d->lines, store_func_name(tui_store(t), l->e.sym));
}

static int trace_key(tui *t, view *v, int k)
{
	struct trace *d = v->data;
	if (ready(d) && k == 'D') {
		time_key(t, d);
		return 1;
	}
	if (ready(d) && k == 'e') {
		edit_key(t, d, v);
		return 1;
	}
	if (k == 'd' && d->state == 1 && d->obj >= 0) {
		diff_key(t, d);
		return 1;
	}
	if (k == 'U') {
		uftrace_tui(t, d);
		return 1;
	}
	if (!ready(d))
		return 0;
	if (d->table) {
		/* back to the tree, not out of the view: the table is a page of the tree */
		if (k == 't' || k == 'q' || k == 27 || k == 'h' || k == KEY_LEFT) {
			hide_table(d, v);
			return 1;
		}
		return 0;
	}
	struct tline *l = &d->t.l[v->cur];
	size_t p;
	switch (k) {
	case 'o':
		trace_enter(t, v, v->cur);
		return 1;
	case '+':
		if (!nlr_is_loop(l->e))
			tui_msg(t, ST_DIM, "a call, not a loop: + unfolds loops (Enter a call)");
		else
			unfold(t, d, v, v->cur, 1);
		return 1;
	case '*':
		all(t, d, v, 1);
		return 1;
	case 'z':
		all(t, d, v, 0);
		return 1;
	case 'C':
	case 'E':
		all_calls(t, d, v, k == 'C');
		return 1;
	case 'u':
	case 'c':
		if (d->dstate == 0 && l->depth == 0)
			load_depths(t, d);
		p = enclosing(d, v->cur);
		if (p == SIZE_MAX) {
			tui_msg(t, ST_DIM, "entry %u of the trace is in no call or loop", l->idx + 1);
			return 1;
		}
		if (k == 'c' && nlr_is_loop(d->t.l[p].e))
			fold(d, v, p);
		else if (k == 'c')
			cfold(d, v, p);
		v->cur = p;
		return 1;
	case 't':
		show_table(t, d, v);
		return 1;
	}
	return 0;
}

static void trace_close(view *v)
{
	struct trace *d = v->data;
	store_srclines_free(d->lines);
	store_sites_free(&d->sites);
	free_data(v->data);
	free(v->data);
}

static const view_ops trace_ops = {
	.name = "trace", .keys = keys, .open = trace_open, .line = trace_line,
	.enter = trace_enter, .key = trace_key, .close = trace_close, .header = trace_header,
};

int view_trace_open(tui *t, const char *run, int p, int thr)
{
	return view_trace_open_as(t, NULL, run, p, thr);
}

int view_trace_open_as(tui *t, const tui_params *as, const char *run, int p, int thr)
{
	struct trace *d = xcalloc(1, sizeof *d);
	if (as) {
		d->as = *as;
		d->own_as = 1;
	}
	snprintf(d->run, sizeof d->run, "%s", run);
	d->p = p;
	d->thr = thr;
	d->obj = -1;
	d->lines = tui_src_load(t, run);
	tui_sites_load(t, run, &d->sites, NULL, 0);
	return tui_push(t, &trace_ops, d, "difftrace: trace %d.%d of %s, nested loops%s%s%s", p,
			thr, run, as ? " under filter " : "", as ? as->filter : "",
			as ? ", as ranked" : "")
		       ? 0
		       : -1;
}
