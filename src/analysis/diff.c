/* diff.c: Myers' linear-space diff over NLR entries, the loop-count refinement, the row model
 * and the three renderers (side by side, unified, DOT). */
#include <stdlib.h>
#include <string.h>

#include "analysis/diff.h"
#include "util/esc.h"
#include "util/util.h"

/* ---- Myers ---------------------------------------------------------------------------------- */

/* The diff runs on 64-bit keys so that one engine serves both passes: (sym, count) for the
 * alignment, loop identity for the count refinement. */
typedef struct myers {
	const uint64_t *a, *b;
	ptrdiff_t *vf, *vb; /* furthest x per diagonal k = x - y, forward and backward */
	ptrdiff_t off;      /* vf[k + off] */
	ptrdiff_t max_cost; /* differences searched per split before settling for the furthest */
} myers;

static void emit(diff_script *s, int kind, size_t a, size_t b, size_t n)
{
	if (!n)
		return;
	if (s->n) {
		diff_hunk *p = &s->h[s->n - 1];
		size_t pa = p->a + (p->kind == DIFF_ONLY_B ? 0 : p->n);
		size_t pb = p->b + (p->kind == DIFF_ONLY_A ? 0 : p->n);
		if (p->kind == kind && pa == a && pb == b) {
			p->n += n;
			return;
		}
	}
	GROW(s->h, s->cap, s->n + 1);
	s->h[s->n++] = (diff_hunk){ kind, a, b, n };
}

/* A point on an optimal path through [a0,a1) × [b0,b1), which differ at both ends. It is where
 * the furthest-reaching forward and backward paths first overlap (the end of the middle snake
 * on the side that found the overlap), so the two halves each hold about half the differences.
 * Past max_cost differences without an overlap, it settles for the furthest point reached
 * (forward or backward, whichever got further): a point on a valid path, not always an
 * optimal one, so the cost per split stays O((N+M)·max_cost). */
static void split(myers *m, size_t a0, size_t a1, size_t b0, size_t b1, size_t *sx, size_t *sy)
{
	const uint64_t *A = m->a + a0, *B = m->b + b0;
	ptrdiff_t N = (ptrdiff_t)(a1 - a0), M = (ptrdiff_t)(b1 - b0);
	ptrdiff_t *vf = m->vf + m->off, *vb = m->vb + m->off;
	ptrdiff_t dmin = -M, dmax = N, delta = N - M;
	int odd = (int)(delta & 1);
	ptrdiff_t fmin = 0, fmax = 0, bmin = delta, bmax = delta;
	/* The ends differ (the caller strips common ends), so no snake leaves either corner. */
	vf[0] = 0;
	vb[delta] = N;
	for (ptrdiff_t d = 1;; d++) {
		/* Diagonals outside [-M, N] leave the grid: the range stops growing there and the
		 * neighbour past its edge gets a value that never wins. */
		if (fmin > dmin)
			vf[--fmin - 1] = -1;
		else
			++fmin;
		if (fmax < dmax)
			vf[++fmax + 1] = -1;
		else
			--fmax;
		for (ptrdiff_t k = fmax; k >= fmin; k -= 2) {
			ptrdiff_t x = vf[k - 1] >= vf[k + 1] ? vf[k - 1] + 1 : vf[k + 1];
			ptrdiff_t y = x - k;
			while (x < N && y < M && A[x] == B[y])
				x++, y++;
			vf[k] = x;
			if (odd && bmin <= k && k <= bmax && vb[k] <= x) {
				*sx = a0 + (size_t)x;
				*sy = b0 + (size_t)y;
				return;
			}
		}
		if (bmin > dmin)
			vb[--bmin - 1] = PTRDIFF_MAX;
		else
			++bmin;
		if (bmax < dmax)
			vb[++bmax + 1] = PTRDIFF_MAX;
		else
			--bmax;
		for (ptrdiff_t k = bmax; k >= bmin; k -= 2) {
			ptrdiff_t x = vb[k - 1] < vb[k + 1] ? vb[k - 1] : vb[k + 1] - 1;
			ptrdiff_t y = x - k;
			while (x > 0 && y > 0 && A[x - 1] == B[y - 1])
				x--, y--;
			vb[k] = x;
			if (!odd && fmin <= k && k <= fmax && x <= vf[k]) {
				*sx = a0 + (size_t)x;
				*sy = b0 + (size_t)y;
				return;
			}
		}
		if (d >= m->max_cost) {
			ptrdiff_t best = 0, bx = 0, by = 0;
			for (ptrdiff_t k = fmax; k >= fmin; k -= 2) {
				ptrdiff_t x = vf[k], y = x - k;
				if (x <= N && y >= 0 && y <= M && x + y < N + M && x + y > best)
					best = x + y, bx = x, by = y;
			}
			for (ptrdiff_t k = bmax; k >= bmin; k -= 2) {
				ptrdiff_t x = vb[k], y = x - k;
				if (x >= 0 && y >= 0 && y <= M && x + y > 0 && N + M - (x + y) > best)
					best = N + M - (x + y), bx = x, by = y;
			}
			if (best > 0) {
				*sx = a0 + (size_t)bx;
				*sy = b0 + (size_t)by;
				return;
			}
		}
	}
}

static int piece_cmp(const void *x, const void *y)
{
	const diff_hunk *p = x, *q = y;
	size_t u = p->a + p->b, v = q->a + q->b;
	return (u > v) - (u < v);
}

/* Boxes of the edit graph still to solve, kept on a stack rather than recursing: a split cut
 * short by max_cost can land near a corner again and again, and recursion would then go as deep
 * as there are differences. Once common ends are stripped, both sides non-empty means at least
 * two differences, and a split is never a corner, so every box splits into two smaller ones
 * and the work ends. The pieces found tile one monotone path through the graph, so each starts
 * at its own a + b: sorted by that, they are the script in order. */
static void myers_diff(const uint64_t *a, size_t na, const uint64_t *b, size_t nb,
		       ptrdiff_t max_cost, diff_script *out)
{
	myers m = { a, b, NULL, NULL, (ptrdiff_t)nb + 1, max_cost };
	m.vf = xmalloc((na + nb + 3) * sizeof *m.vf);
	m.vb = xmalloc((na + nb + 3) * sizeof *m.vb);
	diff_hunk *pc = NULL; /* pieces */
	size_t npc = 0, cappc = 0;
	size_t (*box)[4] = NULL; /* a0, a1, b0, b1 */
	size_t nbox = 0, capbox = 0;
	GROW(box, capbox, 1);
	box[nbox][0] = 0, box[nbox][1] = na, box[nbox][2] = 0, box[nbox][3] = nb;
	nbox++;
	while (nbox) {
		nbox--;
		size_t a0 = box[nbox][0], a1 = box[nbox][1], b0 = box[nbox][2], b1 = box[nbox][3];
		size_t pre = 0, suf = 0;
		while (a0 + pre < a1 && b0 + pre < b1 && a[a0 + pre] == b[b0 + pre])
			pre++;
		while (a1 - suf > a0 + pre && b1 - suf > b0 + pre &&
		       a[a1 - suf - 1] == b[b1 - suf - 1])
			suf++;
		GROW(pc, cappc, npc + 3);
		if (pre)
			pc[npc++] = (diff_hunk){ DIFF_SAME, a0, b0, pre };
		if (suf)
			pc[npc++] = (diff_hunk){ DIFF_SAME, a1 - suf, b1 - suf, suf };
		a0 += pre;
		b0 += pre;
		a1 -= suf;
		b1 -= suf;
		if (a0 == a1 && b0 < b1) {
			pc[npc++] = (diff_hunk){ DIFF_ONLY_B, a0, b0, b1 - b0 };
		} else if (b0 == b1 && a0 < a1) {
			pc[npc++] = (diff_hunk){ DIFF_ONLY_A, a0, b0, a1 - a0 };
		} else if (a0 < a1) {
			size_t x, y;
			split(&m, a0, a1, b0, b1, &x, &y);
			GROW(box, capbox, nbox + 2);
			box[nbox][0] = a0, box[nbox][1] = x, box[nbox][2] = b0, box[nbox][3] = y;
			nbox++;
			box[nbox][0] = x, box[nbox][1] = a1, box[nbox][2] = y, box[nbox][3] = b1;
			nbox++;
		}
	}
	if (npc)
		qsort(pc, npc, sizeof *pc, piece_cmp);
	for (size_t i = 0; i < npc; i++)
		emit(out, pc[i].kind, pc[i].a, pc[i].b, pc[i].n);
	free(pc);
	free(box);
	free(m.vf);
	free(m.vb);
}

/* ---- the count refinement ------------------------------------------------------------------ */

/* Writes the gap A[a0,a1) / B[b0,b1) of a replaced region, A's side first. */
static void emit_gap(diff_script *s, size_t a0, size_t a1, size_t b0, size_t b1)
{
	emit(s, DIFF_ONLY_A, a0, b0, a1 - a0);
	emit(s, DIFF_ONLY_B, a1, b0, b1 - b0);
}

static int has_loop(const nlr_entry *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (nlr_is_loop(x[i]))
			return 1;
	return 0;
}

/* The region A[a0,a1) / B[b0,b1), none of whose entries match when the diff was minimal. */
static void refine_region(diff_script *s, const nlr_entry *a, size_t a0, size_t a1,
			  const nlr_entry *b, size_t b0, size_t b1, ptrdiff_t max_cost)
{
	size_t p = a1 - a0, q = b1 - b0;
	if (!p || !q || !has_loop(a + a0, p) || !has_loop(b + b0, q)) {
		emit_gap(s, a0, a1, b0, b1);
		return;
	}
	/* A loop's key is its sym (count dropped); any other entry gets a key no entry on the
	 * other side has (bit 63 is set only by loops). */
	uint64_t *ka = xmalloc(p * sizeof *ka), *kb = xmalloc(q * sizeof *kb);
	for (size_t i = 0; i < p; i++)
		ka[i] = nlr_is_loop(a[a0 + i]) ? (uint64_t)a[a0 + i].sym << 32 : i;
	for (size_t j = 0; j < q; j++)
		kb[j] = nlr_is_loop(b[b0 + j]) ? (uint64_t)b[b0 + j].sym << 32 : (1ull << 62) | j;
	diff_script sub = { 0 };
	myers_diff(ka, p, kb, q, max_cost, &sub);
	size_t ga = 0, gb = 0; /* the start of the current gap, relative */
	for (size_t h = 0; h < sub.n; h++) {
		diff_hunk *x = &sub.h[h];
		if (x->kind != DIFF_SAME)
			continue;
		emit_gap(s, a0 + ga, a0 + x->a, b0 + gb, b0 + x->b);
		/* After a search cut short by max_cost a region may hold equal loops */
		for (size_t i = 0; i < x->n; i++) {
			size_t ia = a0 + x->a + i, ib = b0 + x->b + i;
			emit(s, nlr_entry_eq(a[ia], b[ib]) ? DIFF_SAME : DIFF_COUNT, ia, ib, 1);
		}
		ga = x->a + x->n;
		gb = x->b + x->n;
	}
	emit_gap(s, a0 + ga, a1, b0 + gb, b1);
	diff_script_free(&sub);
	free(ka);
	free(kb);
}

/* Cheaper than sqrt() from libm, and as good for a budget. */
static size_t isqrt(size_t v)
{
	size_t r = 0;
	while ((r + 1) * (r + 1) <= v)
		r++;
	return r;
}

int diff_nlr(const nlr_entry *a, size_t na, const nlr_entry *b, size_t nb, const diff_opts *o,
	     diff_script *out, dt_err *e)
{
	(void)e;
	memset(out, 0, sizeof *out);
	ptrdiff_t max_cost = PTRDIFF_MAX;
	if (!o || !o->minimal) {
		size_t c = o && o->max_cost ? o->max_cost : isqrt(na + nb);
		if (!(o && o->max_cost) && c < DIFF_COST_MIN)
			c = DIFF_COST_MIN;
		max_cost = c > (size_t)PTRDIFF_MAX ? PTRDIFF_MAX : (ptrdiff_t)c;
	}
	out->na = na;
	out->nb = nb;
	uint64_t *ka = xmalloc(na * sizeof *ka), *kb = xmalloc(nb * sizeof *kb);
	for (size_t i = 0; i < na; i++)
		ka[i] = (uint64_t)a[i].sym << 32 | a[i].count;
	for (size_t j = 0; j < nb; j++)
		kb[j] = (uint64_t)b[j].sym << 32 | b[j].count;
	diff_script raw = { 0 };
	myers_diff(ka, na, kb, nb, max_cost, &raw);
	free(ka);
	free(kb);
	for (size_t h = 0; h < raw.n;) {
		if (raw.h[h].kind == DIFF_SAME) {
			emit(out, DIFF_SAME, raw.h[h].a, raw.h[h].b, raw.h[h].n);
			h++;
			continue;
		}
		size_t a0 = raw.h[h].a, b0 = raw.h[h].b, a1 = a0, b1 = b0;
		for (; h < raw.n && raw.h[h].kind != DIFF_SAME; h++) {
			if (raw.h[h].kind == DIFF_ONLY_A)
				a1 = raw.h[h].a + raw.h[h].n;
			else
				b1 = raw.h[h].b + raw.h[h].n;
		}
		refine_region(out, a, a0, a1, b, b0, b1, max_cost);
	}
	diff_script_free(&raw);
	return 0;
}

void diff_script_free(diff_script *s)
{
	free(s->h);
	memset(s, 0, sizeof *s);
}

/* ---- rows ---------------------------------------------------------------------------------- */

char diff_row_marker(int kind)
{
	switch (kind) {
	case DIFF_ROW_SAME:
		return ' ';
	case DIFF_ROW_LEFT:
		return '<';
	case DIFF_ROW_RIGHT:
		return '>';
	default:
		return '|';
	}
}

void diff_rows(const diff_script *s, diff_row **rows, size_t *n, diff_stats *st)
{
	size_t total = 0;
	for (size_t h = 0; h < s->n; h++)
		total += s->h[h].n;
	diff_row *r = xmalloc((total ? total : 1) * sizeof *r);
	diff_stats z = { 0 };
	size_t m = 0;
	for (size_t h = 0; h < s->n; h++) {
		const diff_hunk *x = &s->h[h];
		if (x->kind == DIFF_SAME || x->kind == DIFF_COUNT) {
			int k = x->kind == DIFF_SAME ? DIFF_ROW_SAME : DIFF_ROW_COUNT;
			for (size_t i = 0; i < x->n; i++)
				r[m++] = (diff_row){ k, x->a + i, x->b + i };
			*(k == DIFF_ROW_SAME ? &z.same : &z.count) += x->n;
		} else if (x->kind == DIFF_ONLY_A && h + 1 < s->n && s->h[h + 1].kind == DIFF_ONLY_B) {
			const diff_hunk *y = &s->h[++h];
			size_t pair = x->n < y->n ? x->n : y->n;
			for (size_t i = 0; i < pair; i++)
				r[m++] = (diff_row){ DIFF_ROW_REPLACE, x->a + i, y->b + i };
			for (size_t i = pair; i < x->n; i++)
				r[m++] = (diff_row){ DIFF_ROW_LEFT, x->a + i, y->b + pair };
			for (size_t i = pair; i < y->n; i++)
				r[m++] = (diff_row){ DIFF_ROW_RIGHT, x->a + pair, y->b + i };
			z.replace += pair;
			z.left += x->n - pair;
			z.right += y->n - pair;
		} else if (x->kind == DIFF_ONLY_A) {
			for (size_t i = 0; i < x->n; i++)
				r[m++] = (diff_row){ DIFF_ROW_LEFT, x->a + i, x->b };
			z.left += x->n;
		} else {
			for (size_t i = 0; i < x->n; i++)
				r[m++] = (diff_row){ DIFF_ROW_RIGHT, x->a, x->b + i };
			z.right += x->n;
		}
	}
	*rows = r;
	*n = m;
	if (st)
		*st = z;
}

/* ---- display lines ------------------------------------------------------------------------- */

/* A list of owned strings: the text of one side of one row, with its expansion. */
typedef struct lines {
	char **s;
	size_t n, cap;
} lines;

static void lines_push(lines *l, char *s)
{
	GROW(l->s, l->cap, l->n + 1);
	l->s[l->n++] = s;
}

static void lines_clear(lines *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->s[i]);
	l->n = 0;
}

static void lines_free(lines *l)
{
	lines_clear(l);
	free(l->s);
}

/* Loop bodies nest as deep as the NLR made them, a few levels; deeper means a loop table that
 * refers to itself, which must not hang the renderer. */
#define DIFF_MAX_DEPTH 64

static char *entry_text(const diff_render_opts *o, nlr_entry en, int depth)
{
	char tmp[48];
	const char *t = NULL;
	if (nlr_is_loop(en)) {
		snprintf(tmp, sizeof tmp, "L%u^%u", (unsigned)nlr_loop_id(en), (unsigned)en.count);
		t = tmp;
	} else {
		if (o->name)
			t = o->name(o->ctx, en.sym);
		if (!t) {
			snprintf(tmp, sizeof tmp, "?%u", (unsigned)en.sym);
			t = tmp;
		}
	}
	/* names come from other people's traces: their control characters are escaped here, so
	 * that every renderer (and a coloured one, which writes to the terminal directly) is safe */
	dt_buf b = { 0 };
	for (size_t i = 0; i < 2 * (size_t)depth; i++)
		buf_byte(&b, ' ');
	esc_append(&b, t, strlen(t), 0);
	buf_byte(&b, 0);
	return (char *)b.p;
}

static int entry_lines(const diff_render_opts *o, nlr_entry en, int depth, lines *out,
		       dt_err *e)
{
	lines_push(out, entry_text(o, en, depth));
	if (!o->expand || !nlr_is_loop(en))
		return 0;
	uint32_t id = nlr_loop_id(en);
	if (!o->loop_body)
		return dt_errf(e, DT_EUSAGE, "expanding loops needs the loop table");
	if (depth >= DIFF_MAX_DEPTH)
		return dt_errf(e, DT_EDATA, "loop L%u: loops nested over %d deep (a loop table cycle?)",
			       (unsigned)id, DIFF_MAX_DEPTH);
	const nlr_entry *body = NULL;
	size_t n = 0;
	if (o->loop_body(o->ctx, id, &body, &n))
		return dt_errf(e, DT_EDATA, "loop L%u: not in the loop table", (unsigned)id);
	for (size_t i = 0; i < n; i++)
		if (entry_lines(o, body[i], depth + 1, out, e))
			return -1;
	return 0;
}

/* The A-side and B-side display lines of a row. */
static int row_lines(const diff_render_opts *o, const nlr_entry *a, const nlr_entry *b,
		     const diff_row *r, lines *la, lines *lb, dt_err *e)
{
	lines_clear(la);
	lines_clear(lb);
	if (r->kind != DIFF_ROW_RIGHT && entry_lines(o, a[r->a], 0, la, e))
		return -1;
	if (r->kind != DIFF_ROW_LEFT && entry_lines(o, b[r->b], 0, lb, e))
		return -1;
	return 0;
}

static int write_status(FILE *f, dt_err *e)
{
	if (ferror(f))
		return dt_errf(e, DT_EDATA, "cannot write the diff: output error");
	return 0;
}

/* Which SAME rows a fold hides: hide[i] for rows [0, n). A common run keeps `context` rows next
 * to each change; a run of one hidden row is shown, since its fold line would take as much. */
static unsigned char *fold_mask(const diff_row *r, size_t n, int context)
{
	unsigned char *hide = xcalloc(n ? n : 1, 1);
	size_t c = context < 0 ? 0 : (size_t)context;
	for (size_t i = 0; i < n;) {
		if (r[i].kind != DIFF_ROW_SAME) {
			i++;
			continue;
		}
		size_t j = i;
		while (j < n && r[j].kind == DIFF_ROW_SAME)
			j++;
		size_t lo = i > 0 ? i + c : i;       /* keep c after a change */
		size_t hi = j < n ? j - (j - i < c ? j - i : c) : j; /* and c before one */
		if (lo < hi && hi - lo >= 2)
			memset(hide + lo, 1, hi - lo);
		i = j;
	}
	return hide;
}

/* ---- side by side -------------------------------------------------------------------------- */

static size_t cols_n(const char *s, size_t n);

/* Display columns: one per UTF-8 character (continuation bytes take none). */
static size_t str_cols(const char *s)
{
	size_t c = 0;
	for (; *s; s++)
		c += ((unsigned char)*s & 0xC0) != 0x80;
	return c;
}

#define SGR_RESET "\033[m"

static void buf_str(dt_buf *o, const char *s)
{
	buf_put(o, s, strlen(s));
}

/* One side's text into at most w columns: s with its differing bytes m (NULL: none) in reverse
 * video when colouring in sgr (NULL: no colour). Too long: a changed pair elides its common
 * part (diff_elide), and what is still too long is cut, ending in the cut mark. */
static size_t put_side(dt_buf *o, const char *s, const unsigned char *m, size_t w, const char *cut,
		       const char *sgr)
{
	size_t len = strlen(s), h = len, t = len;
	if (m) {
		size_t first = 0;
		while (first < len && !m[first])
			first++;
		if (!diff_elide(s, first, w, &h, &t))
			h = t = len;
	}
	size_t total = str_cols(s) - (h < t ? cols_n(s + h, t - h) - 1 : 0);
	size_t room = total > w ? (w ? w - 1 : 0) : w, used = 0;
	int on = -1; /* the attribute written last: -1 nothing yet, 0 plain colour, 1 the word's */
	for (size_t i = 0; i < len; i++) {
		if (i == h && h < t) {
			if (used == room)
				break;
			if (sgr && on != 0) {
				buf_str(o, SGR_RESET);
				buf_str(o, sgr);
				on = 0;
			}
			buf_str(o, cut);
			used++;
			i = t - 1;
			continue;
		}
		int c = ((unsigned char)s[i] & 0xC0) == 0x80;
		if (!c && used == room)
			break;
		if (sgr) {
			int want = m && m[i];
			if (want != on) {
				if (on >= 0)
					buf_str(o, SGR_RESET);
				buf_str(o, sgr);
				if (want)
					buf_str(o, "\033[7m");
				on = want;
			}
		}
		buf_byte(o, (uint8_t)s[i]);
		used += !c;
	}
	if (total > w && w) {
		if (sgr && on != 0) {
			buf_str(o, SGR_RESET);
			buf_str(o, sgr);
			on = 0;
		}
		buf_str(o, cut);
		used++;
	}
	if (sgr && on >= 0)
		buf_str(o, SGR_RESET);
	return used;
}

static void side_line(FILE *f, const diff_render_opts *opt, const char *l, char mark, const char *r,
		      size_t lw, size_t rw)
{
	dt_buf o = { 0 };
	const char *cut = opt->cut ? opt->cut : "~";
	unsigned char *ml = NULL, *mr = NULL;
	if (mark == '|' && *l && *r) {
		ml = xmalloc(strlen(l) + 1);
		mr = xmalloc(strlen(r) + 1);
		diff_words(l, r, ml, mr);
	}
	const char *red = NULL, *green = NULL;
	if (opt->color) {
		red = mark == '|' || mark == '<' ? "\033[31m" : NULL;
		green = mark == '|' || mark == '>' ? "\033[32m" : NULL;
	}
	size_t used = put_side(&o, l, ml, lw, cut, red);
	for (; used < lw; used++)
		buf_byte(&o, ' ');
	buf_byte(&o, ' ');
	buf_byte(&o, (uint8_t)mark);
	buf_byte(&o, ' ');
	put_side(&o, r, mr, rw, cut, green);
	while (o.len && o.p[o.len - 1] == ' ')
		o.len--;
	fwrite(o.p, 1, o.len, f);
	fputc('\n', f);
	buf_free(&o);
	free(ml);
	free(mr);
}

/* The marker of display line i of a row whose sides have la and lb lines. */
static char line_marker(int kind, size_t i, size_t la, size_t lb)
{
	if (i == 0)
		return diff_row_marker(kind);
	if (kind == DIFF_ROW_SAME || kind == DIFF_ROW_COUNT)
		return ' '; /* the same loop id: the same body */
	if (i < la && i < lb)
		return '|';
	return i < la ? '<' : '>';
}

/* The entries of loop x's body, nested bodies too, with their depths (1 under the loop). */
typedef struct flat {
	nlr_entry *e;
	int *depth;
	size_t n, cap, capd;
} flat;

static int flatten(const diff_render_opts *o, nlr_entry x, int depth, flat *f, dt_err *e)
{
	const nlr_entry *body;
	size_t n;
	if (depth > DIFF_MAX_DEPTH)
		return dt_errf(e, DT_EDATA, "loop L%u: loops nested over %d deep (a loop table cycle?)",
			       (unsigned)nlr_loop_id(x), DIFF_MAX_DEPTH);
	if (o->loop_body(o->ctx, nlr_loop_id(x), &body, &n))
		return dt_errf(e, DT_EDATA, "loop L%u: not in the loop table", (unsigned)nlr_loop_id(x));
	for (size_t i = 0; i < n; i++) {
		GROW(f->e, f->cap, f->n + 1);
		GROW(f->depth, f->capd, f->n + 1);
		f->e[f->n] = body[i];
		f->depth[f->n++] = depth;
		if (nlr_is_loop(body[i]) && flatten(o, body[i], depth + 1, f, e))
			return -1;
	}
	return 0;
}

/* Two different loops paired on a row, expanded: the row, then their bodies aligned by the same
 * diff as the traces (not zipped by position), so that the calls one body lacks show as such. */
static int side_loops(FILE *f, const diff_render_opts *o, nlr_entry x, nlr_entry y, size_t lw,
		      size_t rw, dt_err *e)
{
	if (!o->loop_body)
		return dt_errf(e, DT_EUSAGE, "expanding loops needs the loop table");
	flat fa = { 0 }, fb = { 0 };
	diff_script bs = { 0 };
	diff_row *br = NULL;
	size_t nbr = 0;
	int rc = -1;
	char *l = entry_text(o, x, 0), *r = entry_text(o, y, 0);
	side_line(f, o, l, '|', r, lw, rw);
	free(l);
	free(r);
	if (flatten(o, x, 1, &fa, e) || flatten(o, y, 1, &fb, e) ||
	    diff_nlr(fa.e, fa.n, fb.e, fb.n, NULL, &bs, e))
		goto out;
	diff_rows(&bs, &br, &nbr, NULL);
	for (size_t k = 0; k < nbr; k++) {
		const diff_row *row = &br[k];
		int ha = row->kind != DIFF_ROW_RIGHT, hb = row->kind != DIFF_ROW_LEFT;
		char mark = diff_row_marker(row->kind);
		if (row->kind == DIFF_ROW_SAME && fa.depth[row->a] != fb.depth[row->b])
			mark = '|'; /* the same call at another nesting */
		l = ha ? entry_text(o, fa.e[row->a], fa.depth[row->a]) : xstrdup("");
		r = hb ? entry_text(o, fb.e[row->b], fb.depth[row->b]) : xstrdup("");
		side_line(f, o, l, mark, r, lw, rw);
		free(l);
		free(r);
	}
	rc = 0;
out:
	free(br);
	diff_script_free(&bs);
	free(fa.e);
	free(fa.depth);
	free(fb.e);
	free(fb.depth);
	return rc;
}

/* One row of the side-by-side view: its lines (a loop pair expanded with its bodies aligned,
 * when asked), then the note on where two different loops part. */
static int side_row(FILE *f, const diff_render_opts *o, const nlr_entry *a, const nlr_entry *b,
		    const diff_row *r, size_t lw, size_t rw, lines *l1, lines *l2, dt_err *e)
{
	int loops2 = r->kind == DIFF_ROW_REPLACE && nlr_is_loop(a[r->a]) && nlr_is_loop(b[r->b]);
	if (loops2 && o->expand) {
		if (side_loops(f, o, a[r->a], b[r->b], lw, rw, e))
			return -1;
	} else {
		if (row_lines(o, a, b, r, l1, l2, e))
			return -1;
		size_t m = l1->n > l2->n ? l1->n : l2->n;
		for (size_t k = 0; k < m; k++)
			side_line(f, o, k < l1->n ? l1->s[k] : "", line_marker(r->kind, k, l1->n, l2->n),
				  k < l2->n ? l2->s[k] : "", lw, rw);
	}
	diff_part dp;
	if (loops2 && !diff_loop_part(o->loop_body, o->ctx, a[r->a], b[r->b], &dp)) {
		/* a note under the pair, across both columns, never cut */
		char note[256];
		diff_part_text(&dp, a[r->a], b[r->b], note, sizeof note);
		fprintf(f, "    (%s)\n", note);
	}
	return 0;
}

/* The hunk that begins with the change at row i: from c rows before it to c rows after the last
 * change within 2c common rows of the one before, rows [*start, *end). */
static void hunk_rows(const diff_row *r, size_t n, size_t i, size_t c, size_t *start, size_t *end)
{
	size_t last = i;
	for (size_t j = i + 1; j < n; j++) {
		if (r[j].kind == DIFF_ROW_SAME)
			continue;
		if (j - last - 1 > 2 * c)
			break;
		last = j;
	}
	*start = i > c ? i - c : 0;
	*end = last + 1 + c < n ? last + 1 + c : n;
}

static void hunk_range(FILE *f, char sign, size_t first, size_t count)
{
	/* 1-based; an empty side names the entry before it, as GNU diff does */
	fprintf(f, "%c%zu,%zu", sign, count ? first + 1 : first, count);
}

/* "@@ -a,b +c,d @@": where rows [start, end) are in A and in B (entries, from 1) */
static void hunk_header(FILE *f, const diff_row *r, size_t start, size_t end, int color)
{
	size_t ca = 0, cb = 0;
	for (size_t j = start; j < end; j++) {
		ca += r[j].kind != DIFF_ROW_RIGHT;
		cb += r[j].kind != DIFF_ROW_LEFT;
	}
	if (color)
		fputs("\033[36m", f);
	fputs("@@ ", f);
	hunk_range(f, '-', r[start].a, ca);
	fputc(' ', f);
	hunk_range(f, '+', r[start].b, cb);
	fputs(color ? " @@" SGR_RESET "\n" : " @@\n", f);
}

int diff_render_side(FILE *f, const nlr_entry *a, const nlr_entry *b, const diff_script *s,
		     const diff_render_opts *o, dt_err *e)
{
	int width = o->width ? o->width : 130;
	if (width < 20)
		return dt_errf(e, DT_EUSAGE, "side-by-side width %d is too narrow (at least 20)", width);
	size_t lw = (size_t)(width - 3) / 2, rw = (size_t)width - 3 - lw;
	diff_row *r;
	size_t n;
	diff_stats st;
	diff_rows(s, &r, &n, &st);
	char la[512], lb[1024];
	snprintf(la, sizeof la, "A: %s", o->label_a ? o->label_a : "A");
	if (st.count + st.replace + st.left + st.right)
		snprintf(lb, sizeof lb, "B: %s  (%zu changed, %zu only in A, %zu only in B)",
			 o->label_b ? o->label_b : "B", st.count + st.replace, st.left, st.right);
	else
		snprintf(lb, sizeof lb, "B: %s  (%s)", o->label_b ? o->label_b : "B",
			 o->same ? o->same : "identical");
	/* the header may run past the width: it is read, not aligned */
	side_line(f, o, la, ' ', lb, lw, (size_t)-1);
	lines l1 = { 0 }, l2 = { 0 };
	int rc = 0;
	if (o->changes) {
		/* the hunks around the changes, each under its @@ line, as unified shows them */
		size_t c = o->context < 0 ? 0 : (size_t)o->context;
		for (size_t i = 0; i < n && !rc;) {
			if (r[i].kind == DIFF_ROW_SAME) {
				i++;
				continue;
			}
			size_t start, end;
			hunk_rows(r, n, i, c, &start, &end);
			hunk_header(f, r, start, end, o->color);
			for (size_t j = start; j < end && !rc; j++)
				rc = side_row(f, o, a, b, &r[j], lw, rw, &l1, &l2, e);
			i = end;
		}
		lines_free(&l1);
		lines_free(&l2);
		free(r);
		return rc ? rc : write_status(f, e);
	}
	unsigned char *hide = o->fold ? fold_mask(r, n, o->context) : xcalloc(n ? n : 1, 1);
	for (size_t i = 0; i < n && !rc; i++) {
		if (hide[i]) {
			size_t j = i;
			while (j < n && hide[j])
				j++;
			/* one line across both columns, centred, never cut: it is a separator */
			char fl[64];
			int len = snprintf(fl, sizeof fl, "... %zu identical entries ...", j - i);
			fprintf(f, "%*s%s\n", len < width ? (width - len) / 2 : 0, "", fl);
			i = j - 1;
			continue;
		}
		rc = side_row(f, o, a, b, &r[i], lw, rw, &l1, &l2, e);
	}
	lines_free(&l1);
	lines_free(&l2);
	free(hide);
	free(r);
	return rc ? rc : write_status(f, e);
}

/* ---- unified ------------------------------------------------------------------------------- */

int diff_render_unified(FILE *f, const nlr_entry *a, const nlr_entry *b, const diff_script *s,
			const diff_render_opts *o, dt_err *e)
{
	diff_row *r;
	size_t n;
	diff_rows(s, &r, &n, NULL);
	size_t c = o->context < 0 ? 0 : (size_t)o->context;
	int rc = 0, header = 0;
	lines l1 = { 0 }, l2 = { 0 }, pend_a = { 0 }, pend_b = { 0 };
	for (size_t i = 0; i < n && !rc;) {
		if (r[i].kind == DIFF_ROW_SAME) {
			i++;
			continue;
		}
		size_t start, end;
		hunk_rows(r, n, i, c, &start, &end);
		if (!header) {
			const char *bold = o->color ? "\033[1m" : "", *off = o->color ? SGR_RESET : "";
			fprintf(f, "%s--- %s%s\n%s+++ %s%s\n", bold, o->label_a ? o->label_a : "A",
				off, bold, o->label_b ? o->label_b : "B", off);
			header = 1;
		}
		hunk_header(f, r, start, end, o->color);
		for (size_t j = start; j < end && !rc; j++) {
			if (row_lines(o, a, b, &r[j], &l1, &l2, e)) {
				rc = -1;
				break;
			}
			if (r[j].kind == DIFF_ROW_SAME) {
				for (size_t k = 0; k < l1.n; k++)
					fprintf(f, " %s\n", l1.s[k]);
				continue;
			}
			for (size_t k = 0; k < l1.n; k++)
				lines_push(&pend_a, xstrdup(l1.s[k]));
			for (size_t k = 0; k < l2.n; k++)
				lines_push(&pend_b, xstrdup(l2.s[k]));
			if (j + 1 == end || r[j + 1].kind == DIFF_ROW_SAME) {
				const char *red = o->color ? "\033[31m" : "",
					   *green = o->color ? "\033[32m" : "",
					   *off = o->color ? SGR_RESET : "";
				for (size_t k = 0; k < pend_a.n; k++)
					fprintf(f, "%s-%s%s\n", red, pend_a.s[k], off);
				for (size_t k = 0; k < pend_b.n; k++)
					fprintf(f, "%s+%s%s\n", green, pend_b.s[k], off);
				lines_clear(&pend_a);
				lines_clear(&pend_b);
			}
		}
		i = end;
	}
	lines_free(&l1);
	lines_free(&l2);
	lines_free(&pend_a);
	lines_free(&pend_b);
	free(r);
	return rc ? rc : write_status(f, e);
}

/* ---- DOT ----------------------------------------------------------------------------------- */

/* Record labels give { } | < > meaning and drop unescaped blanks; each line ends with \l so the
 * entries line up on the left. */
static void dot_record_line(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (strchr("{}|<>\"\\ ", *s))
			fputc('\\', f);
		fputc(*s, f);
	}
	fputs("\\l", f);
}

static void dot_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static const char *const dot_style[3] = {
	"color=darkgreen",
	"color=blue, style=bold",
	"color=red, style=dashed",
};

/* A block node from rows [i, j): side 0 = common, 1 = A, 2 = B. With fold, a common block
 * keeps context entries at each end that touches a change. */
static int dot_block(FILE *f, int id, int side, const nlr_entry *a, const nlr_entry *b,
		     const diff_row *r, size_t i, size_t j, const unsigned char *hide,
		     const diff_render_opts *o, dt_err *e)
{
	lines l1 = { 0 }, l2 = { 0 };
	fprintf(f, "\tn%d [label=\"", id);
	int rc = 0;
	for (size_t k = i; k < j; k++) {
		if (side == 0 && hide[k]) {
			size_t h = k;
			while (h < j && hide[h])
				h++;
			char fl[64];
			snprintf(fl, sizeof fl, "... %zu identical entries ...", h - k);
			dot_record_line(f, fl);
			k = h - 1;
			continue;
		}
		if ((side == 1 && r[k].kind == DIFF_ROW_RIGHT) ||
		    (side == 2 && r[k].kind == DIFF_ROW_LEFT))
			continue;
		if (row_lines(o, a, b, &r[k], &l1, &l2, e)) {
			rc = -1;
			break;
		}
		const lines *l = side == 2 ? &l2 : &l1;
		for (size_t m = 0; m < l->n; m++)
			dot_record_line(f, l->s[m]);
	}
	fprintf(f, "\", %s];\n", dot_style[side]);
	lines_free(&l1);
	lines_free(&l2);
	return rc;
}

int diff_render_dot(FILE *f, const nlr_entry *a, const nlr_entry *b, const diff_script *s,
		    const diff_render_opts *o, dt_err *e)
{
	diff_row *r;
	size_t n;
	diff_rows(s, &r, &n, NULL);
	unsigned char *hide = o->fold ? fold_mask(r, n, o->context) : xcalloc(n ? n : 1, 1);
	fputs("digraph diffnlr {\n\tgraph [labelloc=t, label=", f);
	char title[1100];
	snprintf(title, sizeof title, "A: %s (blue, bold)   B: %s (red, dashed)",
		 o->label_a ? o->label_a : "A", o->label_b ? o->label_b : "B");
	dot_string(f, title);
	fputs("];\n\tnode [shape=record, fontname=\"monospace\"];\n", f);
	fputs("\tn0 [shape=ellipse, label=\"Start\"];\n", f);
	int id = 0, rc = 0;
	int prev = 0; /* the stem node the next block hangs from */
	for (size_t i = 0; i < n && !rc;) {
		size_t j = i;
		if (r[i].kind == DIFF_ROW_SAME) {
			while (j < n && r[j].kind == DIFF_ROW_SAME)
				j++;
			if ((rc = dot_block(f, ++id, 0, a, b, r, i, j, hide, o, e)))
				break;
			fprintf(f, "\tn%d -> n%d [%s];\n", prev, id, dot_style[0]);
			prev = id;
			i = j;
			continue;
		}
		while (j < n && r[j].kind != DIFF_ROW_SAME)
			j++;
		int has[3] = { 0, 0, 0 }, node[3] = { 0, 0, 0 };
		for (size_t k = i; k < j; k++) {
			has[1] |= r[k].kind != DIFF_ROW_RIGHT;
			has[2] |= r[k].kind != DIFF_ROW_LEFT;
		}
		for (int side = 1; side <= 2 && !rc; side++) {
			if (!has[side])
				continue;
			node[side] = ++id;
			rc = dot_block(f, id, side, a, b, r, i, j, hide, o, e);
		}
		if (rc)
			break;
		if (has[1] && has[2])
			fprintf(f, "\t{ rank=same; n%d; n%d; }\n", node[1], node[2]);
		/* the stem node after the divergence: the next common block, or End */
		int next = j < n ? id + 1 : -1;
		for (int side = 1; side <= 2; side++) {
			if (has[side]) {
				fprintf(f, "\tn%d -> n%d [%s];\n", prev, node[side], dot_style[side]);
				if (next >= 0)
					fprintf(f, "\tn%d -> n%d [%s];\n", node[side], next, dot_style[side]);
				else
					fprintf(f, "\tn%d -> end [%s];\n", node[side], dot_style[side]);
			} else if (next >= 0) {
				fprintf(f, "\tn%d -> n%d [%s];\n", prev, next, dot_style[side]);
			} else {
				fprintf(f, "\tn%d -> end [%s];\n", prev, dot_style[side]);
			}
		}
		prev = -1; /* the next common block is already linked */
		i = j;
		if (j < n) {
			size_t h = j;
			while (h < n && r[h].kind == DIFF_ROW_SAME)
				h++;
			if ((rc = dot_block(f, ++id, 0, a, b, r, j, h, hide, o, e)))
				break;
			prev = id;
			i = h;
		}
	}
	if (!rc) {
		fputs("\tend [shape=ellipse, label=\"End\"];\n", f);
		if (prev >= 0)
			fprintf(f, "\tn%d -> end [%s];\n", prev, dot_style[0]);
		fputs("}\n", f);
	}
	free(hide);
	free(r);
	return rc ? rc : write_status(f, e);
}

void diff_render_opts_init(diff_render_opts *o)
{
	memset(o, 0, sizeof *o);
	o->width = 130;
	o->context = 3;
}

/* ---- word diff ---------------------------------------------------------------------------- */

static int word_byte(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.' || c == ':' || c == '@' || c >= 0x80;
}

/* The words of s: starts[i] .. starts[i+1]; at most max, returns the count or max + 1. */
static size_t split_words(const char *s, size_t *starts, size_t max)
{
	size_t n = 0, i = 0;
	while (s[i]) {
		if (n == max)
			return max + 1;
		starts[n++] = i;
		if (word_byte((unsigned char)s[i]))
			while (s[i] && word_byte((unsigned char)s[i]))
				i++;
		else
			i++;
	}
	starts[n] = i;
	return n;
}

static int word_eq(const char *a, const size_t *wa, size_t i, const char *b, const size_t *wb,
		   size_t j)
{
	size_t la = wa[i + 1] - wa[i], lb = wb[j + 1] - wb[j];
	return la == lb && !memcmp(a + wa[i], b + wb[j], la);
}

size_t diff_words(const char *a, const char *b, unsigned char *ma, unsigned char *mb)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t wa[DIFF_WORDS_MAX + 2], wb[DIFF_WORDS_MAX + 2];
	size_t na = split_words(a, wa, DIFF_WORDS_MAX), nb = split_words(b, wb, DIFF_WORDS_MAX);
	if (na > DIFF_WORDS_MAX || nb > DIFF_WORDS_MAX) {
		/* too long for the table: the common prefix and suffix are the same */
		size_t p = 0;
		while (p < la && p < lb && a[p] == b[p])
			p++;
		size_t q = 0;
		while (q < la - p && q < lb - p && a[la - 1 - q] == b[lb - 1 - q])
			q++;
		for (size_t i = 0; i < la; i++)
			ma[i] = i >= p && i < la - q;
		for (size_t i = 0; i < lb; i++)
			mb[i] = i >= p && i < lb - q;
		return p < la - q ? p : la;
	}
	/* LCS of the words, the table from the end so that the walk goes forwards */
	unsigned short(*t)[DIFF_WORDS_MAX + 1] = xcalloc(na + 1, sizeof *t);
	for (size_t i = na; i-- > 0;)
		for (size_t j = nb; j-- > 0;)
			t[i][j] = word_eq(a, wa, i, b, wb, j) ? (unsigned short)(t[i + 1][j + 1] + 1)
			      : t[i + 1][j] >= t[i][j + 1]     ? t[i + 1][j]
							       : t[i][j + 1];
	memset(ma, 1, la);
	memset(mb, 1, lb);
	size_t i = 0, j = 0;
	while (i < na && j < nb) {
		if (word_eq(a, wa, i, b, wb, j)) {
			memset(ma + wa[i], 0, wa[i + 1] - wa[i]);
			memset(mb + wb[j], 0, wb[j + 1] - wb[j]);
			i++;
			j++;
		} else if (t[i + 1][j] >= t[i][j + 1]) {
			i++;
		} else {
			j++;
		}
	}
	free(t);
	size_t first = 0;
	while (first < la && !ma[first])
		first++;
	return first;
}

/* Columns of s[0..n): UTF-8 characters. */
static size_t cols_n(const char *s, size_t n)
{
	size_t c = 0;
	for (size_t i = 0; i < n && s[i]; i++)
		c += ((unsigned char)s[i] & 0xC0) != 0x80;
	return c;
}

int diff_elide(const char *s, size_t first, size_t w, size_t *head, size_t *tail)
{
	size_t len = strlen(s);
	if (first > len)
		first = len;
	if (cols_n(s, len) <= w || cols_n(s, first) + 1 < w || w < 8)
		return 0;
	/* the tail starts at the argument the difference is in ("op=SUM", not "SUM"), or, in a
	 * long name, a few columns before the difference */
	size_t t = first;
	while (t > 0 && !strchr(", [(", s[t - 1]))
		t--;
	if (t == 0 || cols_n(s + t, first - t) + 2 > w / 2) {
		t = first;
		for (int k = 0; k < 8 && t > 0; k++)
			do
				t--;
			while (t > 0 && ((unsigned char)s[t] & 0xC0) == 0x80);
	}
	/* the head: the name up to its '[' or '(' when it leaves half the room to the tail */
	size_t h = 0;
	const char *br = strpbrk(s, "[(");
	if (br && (size_t)(br - s) < t && cols_n(s, (size_t)(br - s) + 1) + 1 <= w / 2)
		h = (size_t)(br - s) + 1;
	if (t <= h)
		h = 0;
	*head = h;
	*tail = t;
	return 1;
}

/* ---- a loop against a different loop ------------------------------------------------------ */

typedef struct calls {
	uint32_t *v;
	size_t n, cap;
} calls;

/* Appends the calls entry x makes, count times for a loop; -1 past DIFF_PART_MAX or deeper
 * than DIFF_MAX_DEPTH or on an unknown body. */
static int unroll(diff_body_fn body, void *ctx, nlr_entry x, uint32_t times, calls *c, int depth)
{
	if (!nlr_is_loop(x)) {
		if (c->n >= DIFF_PART_MAX)
			return -1;
		GROW(c->v, c->cap, c->n + 1);
		c->v[c->n++] = x.sym;
		return 0;
	}
	const nlr_entry *b;
	size_t bn;
	if (depth >= DIFF_MAX_DEPTH || body(ctx, nlr_loop_id(x), &b, &bn))
		return -1;
	for (uint32_t k = 0; k < times; k++)
		for (size_t i = 0; i < bn; i++)
			if (unroll(body, ctx, b[i], b[i].count, c, depth + 1))
				return -1;
	return 0;
}

int diff_loop_part(diff_body_fn body, void *ctx, nlr_entry a, nlr_entry b, diff_part *p)
{
	memset(p, 0, sizeof *p);
	if (!body || !nlr_is_loop(a) || !nlr_is_loop(b))
		return -1;
	calls ca = { 0 }, cb = { 0 }, ia = { 0 }, ib = { 0 };
	int r = -1;
	/* one iteration of each, then the whole loops */
	if (unroll(body, ctx, a, 1, &ia, 0) || unroll(body, ctx, b, 1, &ib, 0) || !ia.n || !ib.n ||
	    unroll(body, ctx, a, a.count, &ca, 0) || unroll(body, ctx, b, b.count, &cb, 0))
		goto out;
	size_t d = 0;
	while (d < ca.n && d < cb.n && ca.v[d] == cb.v[d])
		d++;
	p->agree = d;
	p->same = d == ca.n && d == cb.n;
	p->end_a = d == ca.n && !p->same;
	p->end_b = d == cb.n && !p->same;
	p->iter_a = d / ia.n + 1;
	p->call_a = d % ia.n + 1;
	p->iter_b = d / ib.n + 1;
	p->call_b = d % ib.n + 1;
	r = 0;
out:
	free(ca.v);
	free(cb.v);
	free(ia.v);
	free(ib.v);
	return r;
}

void diff_part_text(const diff_part *p, nlr_entry a, nlr_entry b, char *buf, size_t n)
{
	unsigned la = nlr_loop_id(a), lb = nlr_loop_id(b);
	char h[96];
	snprintf(h, sizeof h, "L%u^%u and L%u^%u", la, (unsigned)a.count, lb, (unsigned)b.count);
	if (p->same) {
		snprintf(buf, n, "%s make the same %zu calls, folded differently", h, p->agree);
		return;
	}
	if (p->end_a || p->end_b) {
		snprintf(buf, n, "%s make the same %zu calls, then L%u ends and L%u goes on (its "
				 "iteration %zu)",
			 h, p->agree, p->end_a ? la : lb, p->end_a ? lb : la,
			 p->end_a ? p->iter_b : p->iter_a);
		return;
	}
	if (!p->agree) {
		snprintf(buf, n, "%s differ from their first call", h);
		return;
	}
	snprintf(buf, n, "%s make the same %zu calls, then part in iteration %zu of L%u (call %zu) and "
			 "%zu of L%u (call %zu)",
		 h, p->agree, p->iter_a, la, p->call_a, p->iter_b, lb, p->call_b);
}
