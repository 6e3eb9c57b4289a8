/* view_lattice.c: the concept lattice of a run (the cached one of its analysis): one line per
 * concept with its id, its extent as compact P.T ranges, its size, its parents and children
 * and its intent; for a small lattice, the Hasse diagram drawn in text above that list. From a
 * concept: up to a parent, down to a child, a page of its neighbours to pick from, its traces.
 *
 * Intents are shown reduced by default: the attributes a concept is the first (highest) to
 * hold, as in a labelled Hasse diagram. A concept's full intent is its own attributes plus all
 * its ancestors', so the reduced form names each attribute once and shows what sets a concept
 * apart from its parents, which is what one looks for in a faulty run; `i` shows full intents.
 *
 * The diagram puts concepts on levels by intent size (the top, fewest attributes, first), so a
 * level reads "traces sharing this many attributes"; an edge that skips levels passes through
 * them as a `|` in a gap between boxes. Boxes are ordered within a level by the barycenter of
 * their neighbours to cut crossings, placed near their parents, and joined with `|`, `/`, `\`
 * and `_`; it is laid out for 80 columns whatever the terminal's width, so a dump reads the
 * same everywhere, and a lattice that does not fit gets the list alone. */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/ptrange.h"
#include "tui.h"
#include "util/util.h"

#define DIAG_MAX_CONCEPTS 12
#define DIAG_MAX_ITEMS 96 /* concepts and the pass-through points of long edges */
#define DIAG_WIDTH 78     /* 80 columns less the cursor's gutter */
/* Centers are placed on a grid of units of DIAG_UNIT columns: two boxes on a level are two
 * units apart, a box and a line one; edges between levels then always have room to slant. */
#define DIAG_UNIT 4
#define DIAG_UNITS ((DIAG_WIDTH - DIAG_UNIT) / DIAG_UNIT + 1)

enum { M_LIST, M_DIAGRAM, M_NEIGH };

struct lattice {
	char run[128];
	int opened;           /* open ran once: later failures show a line instead of failing */
	int state;            /* 1 ready, 0 computing, -1 failed */
	const an_result *r;
	int loaded;           /* what is below comes from analysis aid */
	int64_t aid;
	int have;             /* L holds the lattice; else why says why not */
	fca_lattice L;
	char why[800];
	char **ext;           /* per concept: the extent as compact P.T */
	int extw;             /* width of the extent column */
	uint32_t *red;        /* reduced intents: red[redoff[c] .. redoff[c + 1]) */
	size_t *redoff;
	int mode, back;       /* back: the mode the neighbours page returns to */
	int full;             /* show full intents */
	uint32_t sel;         /* the concept selected in the diagram */
	uint32_t nb;          /* the concept whose neighbours are listed */
	size_t saved_cur, saved_top;
	/* the diagram, when there is one */
	char nodiag[200];     /* why there is none */
	char **rows;
	size_t nrows;
	int *row_of, *col_of, *wid; /* per concept: its box's row, first column, width */
	uint32_t *order;      /* concepts in reading order, for j and k over the diagram */
};

static const tui_keyhelp keys[] = {
	{ "Enter", "the traces of the concept (its extent)" },
	{ "p  u", "up to a parent (the first; e lists all)" },
	{ "c", "down to a child (the first; e lists all)" },
	{ "e", "the parents and children: Enter goes to one," },
	{ "", "  e or q back" },
	{ "Tab", "the Hasse diagram (12 concepts or fewer)" },
	{ "", "  above the list, or the list alone" },
	{ "j k  Down Up", "in the diagram: box to box, then the list" },
	{ "i", "intents: the attributes new at the concept," },
	{ "", "  or all of them" },
	{ NULL, NULL },
};

/* ---- loading ---- */

static void free_diagram(struct lattice *d)
{
	for (size_t i = 0; d->rows && i < d->nrows; i++)
		free(d->rows[i]);
	free(d->rows);
	free(d->row_of);
	free(d->col_of);
	free(d->wid);
	free(d->order);
	d->rows = NULL;
	d->nrows = 0;
	d->row_of = d->col_of = d->wid = NULL;
	d->order = NULL;
}

static void free_data(struct lattice *d)
{
	free_diagram(d);
	for (size_t i = 0; d->ext && i < d->L.nconcepts; i++)
		free(d->ext[i]);
	free(d->ext);
	free(d->red);
	free(d->redoff);
	d->ext = NULL;
	d->red = NULL;
	d->redoff = NULL;
	if (d->have)
		fca_free(&d->L);
	memset(&d->L, 0, sizeof d->L);
	d->have = 0;
	d->loaded = 0;
	d->why[0] = d->nodiag[0] = 0;
	d->mode = M_LIST;
	d->sel = d->nb = 0;
}

static const char *attr_name(const struct lattice *d, size_t a, char *buf, size_t n)
{
	if (a < d->r->nattrs && d->r->attr_names[a])
		return d->r->attr_names[a];
	snprintf(buf, n, "a%zu", a);
	return buf;
}

static void prepare(struct lattice *d)
{
	const fca_lattice *L = &d->L;
	size_t nc = L->nconcepts;
	d->ext = xcalloc(nc, sizeof *d->ext);
	ptr_pt *pts = xmalloc((L->n ? L->n : 1) * sizeof *pts);
	d->extw = 6;
	for (size_t c = 0; c < nc; c++) {
		size_t k = 0, lim = L->n < d->r->n ? L->n : d->r->n;
		const uint64_t *ext = L->c[c].extent;
		/* the extent's objects a word at a time: an extent of a few traces among 10^5
		 * costs its words, not a test of every bit */
		for (size_t w = 0; w * 64 < lim; w++)
			for (uint64_t x = ext[w]; x; x &= x - 1) {
				size_t g = w * 64 + (size_t)__builtin_ctzll(x);
				if (g >= lim)
					break;
				pts[k++] = (ptr_pt){ (uint32_t)d->r->traces[g].proc,
						     (uint32_t)d->r->traces[g].thread };
			}
		d->ext[c] = ptr_format(pts, k);
		int w = (int)strlen(d->ext[c]);
		if (w > d->extw)
			d->extw = w;
	}
	free(pts);
	if (d->extw > 24)
		d->extw = 24; /* longer extents push the intent right rather than the column */
	d->redoff = xcalloc(nc + 1, sizeof *d->redoff);
	for (size_t a = 0; a < L->m; a++)
		d->redoff[L->attr_concept[a] + 1]++;
	for (size_t c = 0; c < nc; c++)
		d->redoff[c + 1] += d->redoff[c];
	d->red = xmalloc((L->m ? L->m : 1) * sizeof *d->red);
	size_t *fill = xcalloc(nc, sizeof *fill);
	for (size_t a = 0; a < L->m; a++) {
		uint32_t c = L->attr_concept[a];
		d->red[d->redoff[c] + fill[c]++] = (uint32_t)a;
	}
	free(fill);
}

/* ---- the diagram's layout ---- */

struct item {
	int layer;
	int concept; /* -1: a point an edge passes through */
	int x;       /* the center column */
	int w;
	double key;
	int pos;     /* index in its layer */
};

struct dg {
	struct item *it;
	size_t ni;
	uint32_t (*ed)[2]; /* upper item, lower item, on adjacent layers */
	size_t ne;
	int nl;
	uint32_t **lay; /* items per layer, in order */
	size_t *nlay;
};

static int left_of(const struct item *a)
{
	return a->x - a->w / 2;
}

static int right_of(const struct item *a)
{
	return left_of(a) + a->w - 1;
}

/* The least distance, in units, between the centers of neighbours a, b on a level. */
static int sep(const struct item *a, const struct item *b)
{
	return a->concept >= 0 && b->concept >= 0 ? 2 : 1;
}

static int cmp_key(const void *pa, const void *pb)
{
	const struct item *a = *(struct item *const *)pa, *b = *(struct item *const *)pb;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return a->pos - b->pos;
}

/* Orders layer l by the mean position of each item's neighbours on layer l + dir. */
static void order_layer(struct dg *g, int l, int dir)
{
	size_t n = g->nlay[l];
	struct item **v = xmalloc((n ? n : 1) * sizeof *v);
	for (size_t i = 0; i < n; i++) {
		struct item *a = &g->it[g->lay[l][i]];
		double sum = 0;
		int k = 0;
		for (size_t e = 0; e < g->ne; e++) {
			uint32_t me = dir < 0 ? g->ed[e][1] : g->ed[e][0];
			uint32_t other = dir < 0 ? g->ed[e][0] : g->ed[e][1];
			if (me == g->lay[l][i]) {
				sum += g->it[other].pos;
				k++;
			}
		}
		a->key = k ? sum / k : a->pos;
		v[i] = a;
	}
	qsort(v, n, sizeof *v, cmp_key);
	for (size_t i = 0; i < n; i++) {
		g->lay[l][i] = (uint32_t)(v[i] - g->it);
		v[i]->pos = (int)i;
	}
	free(v);
}

static size_t crossings(const struct dg *g)
{
	size_t c = 0;
	for (size_t a = 0; a < g->ne; a++)
		for (size_t b = a + 1; b < g->ne; b++) {
			const struct item *u1 = &g->it[g->ed[a][0]], *v1 = &g->it[g->ed[a][1]];
			const struct item *u2 = &g->it[g->ed[b][0]], *v2 = &g->it[g->ed[b][1]];
			if (u1->layer == u2->layer &&
			    (long)(u1->pos - u2->pos) * (v1->pos - v2->pos) < 0)
				c++;
		}
	return c;
}

/* Places layer l's items, in order and spaced by sep, as near their wanted centers (units)
 * as can be: the least weighted squared displacement, found exactly by pooling adjacent
 * violators on the centers less their cumulated spacing. A pass-through point weighs more
 * than a box, so that long edges stay straight and boxes move aside. -1 when the items do
 * not fit in the width. */
static int place_layer(struct dg *g, int l, const int *want)
{
	size_t n = g->nlay[l];
	if (!n)
		return 0;
	double *y = xmalloc(n * sizeof *y), *w = xmalloc(n * sizeof *w);
	size_t *len = xmalloc(n * sizeof *len);
	int *off = xmalloc(n * sizeof *off);
	size_t nb = 0;
	for (size_t i = 0; i < n; i++) {
		const struct item *a = &g->it[g->lay[l][i]];
		off[i] = i ? off[i - 1] + sep(&g->it[g->lay[l][i - 1]], a) : 0;
		y[nb] = want[i] - off[i];
		w[nb] = a->concept >= 0 ? 1 : 4;
		len[nb++] = 1;
		while (nb > 1 && y[nb - 2] > y[nb - 1]) {
			double ww = w[nb - 2] + w[nb - 1];
			y[nb - 2] = (y[nb - 2] * w[nb - 2] + y[nb - 1] * w[nb - 1]) / ww;
			w[nb - 2] = ww;
			len[nb - 2] += len[nb - 1];
			nb--;
		}
	}
	int hi = DIAG_UNITS - 1 - off[n - 1];
	for (size_t b = 0, i = 0; b < nb; b++) {
		double v = y[b] < 0 ? 0 : y[b] > hi ? hi : y[b];
		for (size_t k = 0; k < len[b]; k++, i++)
			g->it[g->lay[l][i]].x = (int)(v + 0.5) + off[i];
	}
	free(y);
	free(w);
	free(len);
	free(off);
	return hi >= 0 ? 0 : -1;
}

/* Each item of layer l wants the mean center of its neighbours on layer l + dir. */
static int place_pass(struct dg *g, int l, int dir)
{
	size_t n = g->nlay[l];
	int *want = xmalloc((n ? n : 1) * sizeof *want);
	for (size_t i = 0; i < n; i++) {
		uint32_t me = g->lay[l][i];
		long sum = 0;
		int k = 0;
		for (size_t e = 0; e < g->ne; e++)
			if (g->ed[e][dir < 0 ? 1 : 0] == me) {
				sum += g->it[g->ed[e][dir < 0 ? 0 : 1]].x;
				k++;
			}
		want[i] = k ? (int)(sum / k) : g->it[me].x;
	}
	int r = place_layer(g, l, want);
	free(want);
	return r;
}

static void put(char *row, int x, char ch)
{
	if (x < 0 || x >= DIAG_WIDTH)
		return;
	char old = row[x];
	if (old == ' ' || (old == '_' && ch != '_'))
		row[x] = ch;
	else if ((old == '/' && ch == '\\') || (old == '\\' && ch == '/'))
		row[x] = 'X';
}

/* An edge leaving a box at column s on rows[0] and reaching column e on rows[n - 1], slanting
 * towards dir: one slash per row, `_` where it must go further sideways than the rows allow,
 * `|` under the last slash where it has fewer columns to cross than rows. */
static void draw_slant(char **rows, int n, int s, int e, int dir)
{
	char ch = dir < 0 ? '/' : '\\';
	int dist = dir * (e - s);
	if (dist < 0)
		dist = 0;
	int p = s;
	if (dist < n - 1) {
		for (int k = 0; k < n; k++) {
			if (k <= dist) {
				put(rows[k], p, ch);
				if (k < dist)
					p += dir;
			} else {
				put(rows[k], p + dir, '|');
			}
		}
		return;
	}
	int extra = dist - (n - 1);
	for (int j = 0; j < n; j++) {
		put(rows[j], p, ch);
		/* the sideways part goes on every row but the last, in equal shares */
		int u = n == 1 ? extra : extra * (j + 1) / (n - 1) - extra * j / (n - 1);
		if (j + 1 == n && n > 1)
			u = 0;
		for (int q = 1; q <= u; q++)
			put(rows[j], p + dir * q, '_');
		p += dir * (1 + u);
	}
}

/* How far an edge from a to b must go sideways between the boxes; -1 straight down. */
static int slant_dist(const struct item *a, const struct item *b)
{
	if (a->x == b->x)
		return -1;
	if (b->x < a->x)
		return left_of(a) - 1 - right_of(b);
	return left_of(b) - right_of(a) - 1;
}

static void free_dg(struct dg *g)
{
	for (int l = 0; l < g->nl; l++)
		free(g->lay[l]);
	free(g->lay);
	free(g->nlay);
	free(g->it);
	free(g->ed);
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return x < y ? -1 : x > y;
}

/* Lays the diagram out into d->rows; -1 with d->nodiag set when it is not drawn. */
static int layout(struct lattice *d)
{
	const fca_lattice *L = &d->L;
	size_t nc = L->nconcepts;
	if (nc > DIAG_MAX_CONCEPTS) {
		snprintf(d->nodiag, sizeof d->nodiag,
			 "%zu concepts: the diagram is drawn for %d or fewer", nc,
			 DIAG_MAX_CONCEPTS);
		return -1;
	}
	struct dg g;
	memset(&g, 0, sizeof g);
	/* levels: the distinct intent sizes */
	size_t *sizes = xmalloc(nc * sizeof *sizes);
	for (size_t c = 0; c < nc; c++)
		sizes[c] = L->c[c].nint;
	qsort(sizes, nc, sizeof *sizes, cmp_size);
	size_t nsz = 0;
	for (size_t c = 0; c < nc; c++)
		if (!nsz || sizes[nsz - 1] != sizes[c])
			sizes[nsz++] = sizes[c];
	g.nl = (int)nsz;
	g.it = xcalloc(DIAG_MAX_ITEMS, sizeof *g.it);
	g.ed = xmalloc((L->nedges * (nsz + 1) + 1) * sizeof *g.ed);
	int fits = 1;
	for (size_t c = 0; c < nc; c++) {
		struct item *a = &g.it[g.ni++];
		size_t l = 0;
		while (sizes[l] != L->c[c].nint)
			l++;
		a->layer = (int)l;
		a->concept = (int)c;
		char lab[32];
		a->w = snprintf(lab, sizeof lab, "[c%zu]", c);
	}
	free(sizes);
	for (size_t c = 0; c < nc && fits; c++)
		for (size_t j = 0; j < L->c[c].ndown && fits; j++) {
			uint32_t prev = (uint32_t)c, ch = L->c[c].down[j];
			for (int l = g.it[c].layer + 1; l < g.it[ch].layer; l++) {
				if (g.ni == DIAG_MAX_ITEMS) {
					fits = 0;
					break;
				}
				struct item *a = &g.it[g.ni];
				a->layer = l;
				a->concept = -1;
				a->w = 1;
				g.ed[g.ne][0] = prev;
				g.ed[g.ne++][1] = (uint32_t)g.ni;
				prev = (uint32_t)g.ni++;
			}
			g.ed[g.ne][0] = prev;
			g.ed[g.ne++][1] = ch;
		}
	if (!fits) {
		snprintf(d->nodiag, sizeof d->nodiag, "the lattice's edges cross too many levels "
						      "for a diagram");
		free_dg(&g);
		return -1;
	}
	g.lay = xcalloc((size_t)g.nl, sizeof *g.lay);
	g.nlay = xcalloc((size_t)g.nl, sizeof *g.nlay);
	for (int l = 0; l < g.nl; l++)
		g.lay[l] = xmalloc(g.ni * sizeof **g.lay);
	for (size_t i = 0; i < g.ni; i++) {
		int l = g.it[i].layer;
		g.it[i].pos = (int)g.nlay[l];
		g.lay[l][g.nlay[l]++] = (uint32_t)i;
	}
	/* barycenter sweeps, keeping the order with the fewest crossings */
	int *best = xmalloc(g.ni * sizeof *best);
	for (size_t i = 0; i < g.ni; i++)
		best[i] = g.it[i].pos;
	size_t bestc = crossings(&g);
	for (int it = 0; it < 8 && bestc; it++) {
		for (int l = 1; l < g.nl; l++)
			order_layer(&g, l, -1);
		for (int l = g.nl - 2; l >= 0; l--)
			order_layer(&g, l, 1);
		size_t c = crossings(&g);
		if (c < bestc) {
			bestc = c;
			for (size_t i = 0; i < g.ni; i++)
				best[i] = g.it[i].pos;
		}
	}
	for (size_t i = 0; i < g.ni; i++) {
		g.it[i].pos = best[i];
		g.lay[g.it[i].layer][best[i]] = (uint32_t)i;
	}
	free(best);
	/* centers: down from the top (near the parents), up (near the children), down again */
	for (size_t i = 0; i < g.ni; i++)
		g.it[i].x = DIAG_UNITS / 2;
	for (int l = 0; l < g.nl && fits; l++)
		fits = place_pass(&g, l, -1) == 0;
	for (int l = g.nl - 2; l >= 0 && fits; l--)
		fits = place_pass(&g, l, 1) == 0;
	for (int l = 1; l < g.nl && fits; l++)
		fits = place_pass(&g, l, -1) == 0;
	if (!fits) {
		snprintf(d->nodiag, sizeof d->nodiag, "the diagram is wider than 80 columns");
		free_dg(&g);
		return -1;
	}
	for (size_t i = 0; i < g.ni; i++)
		g.it[i].x = g.it[i].x * DIAG_UNIT + DIAG_UNIT / 2;
	int lo = DIAG_WIDTH, hi = 0;
	for (size_t i = 0; i < g.ni; i++) {
		if (left_of(&g.it[i]) < lo)
			lo = left_of(&g.it[i]);
		if (right_of(&g.it[i]) > hi)
			hi = right_of(&g.it[i]);
	}
	int shift = (DIAG_WIDTH - (hi - lo + 1)) / 2 - lo;
	for (size_t i = 0; i < g.ni; i++)
		g.it[i].x += shift;
	/* rows: one per level, and one or two between levels for the edges */
	int *y = xmalloc((size_t)g.nl * sizeof *y);
	size_t nrows = 0;
	for (int l = 0; l < g.nl; l++) {
		/* one row when every edge is straight or one slash crosses it; more rows for
		 * longer slants, so that their `_` runs stay short and crossings show */
		int far = 0;
		if (l)
			for (size_t e = 0; e < g.ne; e++)
				if (g.it[g.ed[e][1]].layer == l) {
					int s = slant_dist(&g.it[g.ed[e][0]], &g.it[g.ed[e][1]]);
					far = s > far ? s : far;
				}
		int gap = far == 0 ? 1 : far <= 4 ? 2 : far <= 8 ? 3 : 4;
		y[l] = (int)nrows + (l ? gap : 0);
		nrows = (size_t)y[l] + 1;
	}
	d->nrows = nrows;
	d->rows = xmalloc(nrows * sizeof *d->rows);
	for (size_t r = 0; r < nrows; r++) {
		d->rows[r] = xmalloc(DIAG_WIDTH + 1);
		memset(d->rows[r], ' ', DIAG_WIDTH);
		d->rows[r][DIAG_WIDTH] = 0;
	}
	for (size_t e = 0; e < g.ne; e++) {
		const struct item *a = &g.it[g.ed[e][0]], *b = &g.it[g.ed[e][1]];
		int ya = y[a->layer], yb = y[b->layer];
		if (a->x == b->x) {
			for (int r = ya + 1; r < yb; r++)
				put(d->rows[r], a->x, '|');
		} else if (b->x < a->x) {
			draw_slant(d->rows + ya + 1, yb - ya - 1, left_of(a) - 1, right_of(b), -1);
		} else {
			draw_slant(d->rows + ya + 1, yb - ya - 1, right_of(a) + 1, left_of(b), 1);
		}
	}
	d->row_of = xmalloc(nc * sizeof *d->row_of);
	d->col_of = xmalloc(nc * sizeof *d->col_of);
	d->wid = xmalloc(nc * sizeof *d->wid);
	for (size_t i = 0; i < g.ni; i++) {
		const struct item *a = &g.it[i];
		char *row = d->rows[y[a->layer]];
		if (a->concept < 0) {
			row[a->x] = '|';
			continue;
		}
		char lab[32];
		snprintf(lab, sizeof lab, "[c%d]", a->concept);
		memcpy(row + left_of(a), lab, (size_t)a->w);
		d->row_of[a->concept] = y[a->layer];
		d->col_of[a->concept] = left_of(a);
		d->wid[a->concept] = a->w;
	}
	for (size_t r = 0; r < nrows; r++) {
		size_t n = DIAG_WIDTH;
		while (n && d->rows[r][n - 1] == ' ')
			n--;
		d->rows[r][n] = 0;
	}
	d->order = xmalloc(nc * sizeof *d->order);
	size_t k = 0;
	for (int l = 0; l < g.nl; l++)
		for (size_t i = 0; i < g.nlay[l]; i++)
			if (g.it[g.lay[l][i]].concept >= 0)
				d->order[k++] = (uint32_t)g.it[g.lay[l][i]].concept;
	free(y);
	free_dg(&g);
	return 0;
}

/* ---- lines ---- */

static int ready(const struct lattice *d)
{
	return d->state == 1 && d->have;
}

/* The first line of the list under the diagram. */
static size_t list_base(const struct lattice *d)
{
	return d->nrows + 2;
}

/* Neighbours page: line i is a parent or child concept (>= 0), or a title (-1) or "none"
 * (-2). */
static long neigh_at(const struct lattice *d, size_t i)
{
	const fca_concept *k = &d->L.c[d->nb];
	size_t np = k->nup ? k->nup : 1;
	if (i == 0 || i == np + 1)
		return -1;
	if (i <= np)
		return k->nup ? (long)k->up[i - 1] : -2;
	i -= np + 2;
	return k->ndown ? (long)k->down[i] : -2;
}

static void set_lines(view *v)
{
	struct lattice *d = v->data;
	if (!ready(d)) {
		v->nlines = 1;
		return;
	}
	size_t nc = d->L.nconcepts;
	if (d->mode == M_DIAGRAM) {
		v->nlines = list_base(d) + nc;
	} else if (d->mode == M_NEIGH) {
		const fca_concept *k = &d->L.c[d->nb];
		v->nlines = 2 + (k->nup ? k->nup : 1) + (k->ndown ? k->ndown : 1);
	} else {
		v->nlines = nc;
	}
}

static int lattice_open(tui *t, view *v)
{
	struct lattice *d = v->data;
	int first = !d->opened;
	d->opened = 1;
	d->state = tui_analysis(t, d->run, &d->r);
	if (d->state == 1 && d->loaded && d->aid == d->r->meta.id) {
		set_lines(v); /* another analysis finished: keep the place */
		return 0;
	}
	free_data(d);
	if (d->state < 0) {
		if (first)
			return -1;
		snprintf(d->why, sizeof d->why, "no analysis of %s (see the message below)", d->run);
	} else if (d->state == 1) {
		dt_err e;
		dt_err_clear(&e);
		char *why = NULL;
		int g = analysis_lattice(tui_store(t), d->r->meta.id, &d->L, &why, &e);
		d->loaded = 1;
		d->aid = d->r->meta.id;
		if (g < 0) {
			char msg[600];
			dt_err_format(&e, msg, sizeof msg);
			snprintf(d->why, sizeof d->why, "cannot read the lattice of %s: %s", d->run,
				 msg);
			if (first) {
				tui_msg(t, ST_WARN, "%s", d->why);
				return -1;
			}
		} else if (g == 0) {
			snprintf(d->why, sizeof d->why, "no concept lattice for %s: %s", d->run,
				 why ? why : "none was computed");
		} else if (d->L.nconcepts == 0) {
			fca_free(&d->L);
			snprintf(d->why, sizeof d->why, "the lattice of %s has no concept", d->run);
		} else {
			d->have = 1;
			prepare(d);
			d->mode = layout(d) == 0 ? M_DIAGRAM : M_LIST;
		}
		free(why);
		snprintf(v->title, sizeof v->title,
			 "difftrace: lattice of %s (%s, %s): %zu concepts, %zu edges",
			 d->run, d->r->filter_alias, d->r->meta.attrs, d->L.nconcepts, d->L.nedges);
		v->cur = v->top = 0;
	}
	set_lines(v);
	return 0;
}

static void intent_text(const struct lattice *d, uint32_t c, tui_out *o)
{
	char buf[32];
	int any = 0;
	if (d->full) {
		for (size_t a = 0; a < d->L.m; a++)
			if (ctx_btest(d->L.c[c].intent, a)) {
				out_text(o, ST_NORMAL, any++ ? "; " : "");
				out_text(o, ST_NORMAL, attr_name(d, a, buf, sizeof buf));
			}
	} else {
		for (size_t j = d->redoff[c]; j < d->redoff[c + 1]; j++) {
			out_text(o, ST_NORMAL, any++ ? "; " : "+");
			out_text(o, ST_NORMAL, attr_name(d, d->red[j], buf, sizeof buf));
		}
	}
	if (!any)
		out_text(o, ST_DIM, "-");
}

static void concept_line(const struct lattice *d, uint32_t c, tui_out *o)
{
	const fca_concept *k = &d->L.c[c];
	char id[24];
	snprintf(id, sizeof id, "c%u", c);
	out_printf(o, ST_HEADER, "%-6s", id);
	out_printf(o, k->next ? ST_NORMAL : ST_DIM, " %6zu", k->next);
	out_printf(o, ST_NORMAL, " %3zu %3zu  ", k->nup, k->ndown);
	int col = out_cols(o);
	out_text(o, k->next ? ST_NORMAL : ST_DIM, d->ext[c][0] ? d->ext[c] : "-");
	out_pad(o, col + d->extw);
	out_printf(o, ST_NORMAL, "  %5zu  ", k->nint);
	intent_text(d, c, o);
}

static void list_heading(const struct lattice *d, tui_out *o)
{
	out_printf(o, ST_HEADER, "%-6s %6s %3s %3s  %-*s  %5s  %s", "ID", "TRACES", "UP", "DN",
		   d->extw, "EXTENT", "ATTRS",
		   d->full ? "INTENT (i: only the new ones)" : "INTENT: +NEW HERE (i: all)");
}

/* The concept the cursor is on: in the diagram, the selected box when the cursor is on its
 * row, else the first box of the cursor's row (after g, G, a search). */
static uint32_t cur_concept(const struct lattice *d, const view *v)
{
	if (d->mode == M_LIST)
		return (uint32_t)v->cur;
	if (d->mode == M_NEIGH) {
		long c = neigh_at(d, v->cur);
		return c >= 0 ? (uint32_t)c : d->nb;
	}
	if (v->cur >= list_base(d))
		return (uint32_t)(v->cur - list_base(d));
	if (v->cur < d->nrows && (size_t)d->row_of[d->sel] != v->cur) {
		uint32_t best = UINT32_MAX;
		for (uint32_t c = 0; c < d->L.nconcepts; c++)
			if ((size_t)d->row_of[c] == v->cur &&
			    (best == UINT32_MAX || d->col_of[c] < d->col_of[best]))
				best = c;
		if (best != UINT32_MAX)
			return best;
	}
	return d->sel;
}

static void diagram_row(const struct lattice *d, uint32_t sel, size_t i, tui_out *o)
{
	const char *s = d->rows[i];
	size_t n = strlen(s), at = 0;
	while (at < n) {
		uint32_t c = UINT32_MAX;
		for (uint32_t k = 0; k < d->L.nconcepts; k++)
			if ((size_t)d->row_of[k] == i && (size_t)d->col_of[k] == at)
				c = k;
		if (c == UINT32_MAX) {
			size_t end = at + 1;
			while (end < n && s[end] != '[')
				end++;
			out_textn(o, ST_DIM, s + at, end - at);
			at = end;
			continue;
		}
		size_t w = (size_t)d->wid[c];
		if (c == sel) {
			/* the selection shows without colour: >c3< for [c3] */
			out_text(o, ST_MATCH, ">");
			out_textn(o, ST_MATCH, s + at + 1, w - 2);
			out_text(o, ST_MATCH, "<");
		} else {
			out_textn(o, ST_HEADER, s + at, w);
		}
		at += w;
	}
}

static void lattice_line(tui *t, view *v, size_t i, tui_out *o)
{
	struct lattice *d = v->data;
	if (d->state == 0) {
		char what[128];
		int pct = tui_job_progress(t, what, sizeof what);
		out_printf(o, ST_DIM, "computing the analysis of %s ... %s", d->run,
			   tui_job_pct(t, pct));
		return;
	}
	if (!ready(d)) {
		out_text(o, ST_WARN, d->why[0] ? d->why : "no lattice");
		return;
	}
	if (d->mode == M_LIST) {
		concept_line(d, (uint32_t)i, o);
	} else if (d->mode == M_DIAGRAM) {
		if (i < d->nrows)
			diagram_row(d, cur_concept(d, v), i, o);
		else if (i == d->nrows + 1)
			list_heading(d, o);
		else if (i >= list_base(d))
			concept_line(d, (uint32_t)(i - list_base(d)), o);
	} else {
		long c = neigh_at(d, i);
		const fca_concept *k = &d->L.c[d->nb];
		if (c >= 0)
			concept_line(d, (uint32_t)c, o);
		else if (c == -2)
			out_printf(o, ST_DIM, "(none: c%u is the %s)", d->nb,
				   i == 1 ? "top concept" : "bottom concept");
		else if (i == 0)
			out_printf(o, ST_HEADER, "%zu parent%s of c%u: Enter goes there, e or q back",
				   k->nup, k->nup == 1 ? "" : "s", d->nb);
		else
			out_printf(o, ST_HEADER, "%zu child%s of c%u", k->ndown,
				   k->ndown == 1 ? "" : "ren", d->nb);
	}
}

static void lattice_header(tui *t, view *v, tui_out *o)
{
	(void)t;
	struct lattice *d = v->data;
	if (!ready(d)) {
		out_printf(o, ST_HEADER, "lattice of %s", d->run);
		return;
	}
	if (d->mode != M_DIAGRAM) {
		list_heading(d, o);
		return;
	}
	uint32_t c = cur_concept(d, v);
	const fca_concept *k = &d->L.c[c];
	out_printf(o, ST_HEADER, "c%u: %zu trace%s %s, %zu attributes, up", c, k->next,
		   k->next == 1 ? "" : "s", d->ext[c], k->nint);
	for (size_t j = 0; j < k->nup; j++)
		out_printf(o, ST_HEADER, " c%u", k->up[j]);
	if (!k->nup)
		out_text(o, ST_HEADER, " -");
	out_text(o, ST_HEADER, ", down");
	for (size_t j = 0; j < k->ndown; j++)
		out_printf(o, ST_HEADER, " c%u", k->down[j]);
	if (!k->ndown)
		out_text(o, ST_HEADER, " -");
}

/* ---- moving ---- */

static void goto_concept(struct lattice *d, view *v, uint32_t c)
{
	if (d->mode == M_LIST) {
		v->cur = c;
	} else if (d->mode == M_DIAGRAM) {
		d->sel = c;
		v->cur = v->cur >= d->nrows ? list_base(d) + c : (size_t)d->row_of[c];
	}
}

static void set_mode(struct lattice *d, view *v, int mode)
{
	uint32_t c = cur_concept(d, v);
	d->mode = mode;
	set_lines(v);
	v->top = 0;
	v->cur = mode == M_DIAGRAM ? (size_t)d->row_of[c] : c;
	d->sel = c;
}

static void neighbours(struct lattice *d, view *v)
{
	d->nb = cur_concept(d, v);
	d->back = d->mode;
	d->saved_cur = v->cur;
	d->saved_top = v->top;
	d->mode = M_NEIGH;
	set_lines(v);
	const fca_concept *k = &d->L.c[d->nb];
	v->top = 0;
	v->cur = k->nup ? 1 : 3;
}

static void leave_neighbours(struct lattice *d, view *v, long to)
{
	d->mode = d->back;
	set_lines(v);
	v->cur = d->saved_cur;
	v->top = d->saved_top;
	if (to >= 0)
		goto_concept(d, v, (uint32_t)to);
}

static void go(tui *t, struct lattice *d, view *v, int up)
{
	uint32_t c = cur_concept(d, v);
	const fca_concept *k = &d->L.c[c];
	size_t n = up ? k->nup : k->ndown;
	if (!n) {
		tui_msg(t, ST_DIM, "c%u is the %s concept: it has no %s", c, up ? "top" : "bottom",
			up ? "parent" : "child");
		return;
	}
	uint32_t to = up ? k->up[0] : k->down[0];
	goto_concept(d, v, to);
	if (n > 1)
		tui_msg(t, ST_DIM, "c%u has %zu %s; this is c%u (e lists them)", c, n,
			up ? "parents" : "children", to);
	else
		tui_msg(t, ST_DIM, "c%u: the %s of c%u", to, up ? "parent" : "child", c);
}

/* j and k over the diagram: from box to box in reading order, then down the list. */
static void step(struct lattice *d, view *v, int dir)
{
	size_t nc = d->L.nconcepts;
	size_t base = list_base(d);
	long at;
	if (v->cur >= base) {
		at = (long)(nc + v->cur - base);
	} else if (v->cur < d->nrows) {
		uint32_t c = cur_concept(d, v);
		at = 0;
		while ((size_t)at < nc && d->order[at] != c)
			at++;
	} else {
		at = dir > 0 ? (long)nc - 1 : (long)nc; /* the title lines between */
	}
	at += dir;
	if (at < 0)
		at = 0;
	if ((size_t)at >= 2 * nc)
		at = (long)(2 * nc - 1);
	if ((size_t)at < nc) {
		d->sel = d->order[at];
		v->cur = (size_t)d->row_of[d->sel];
	} else {
		d->sel = (uint32_t)((size_t)at - nc);
		v->cur = base + d->sel;
	}
}

static void lattice_enter(tui *t, view *v, size_t i)
{
	struct lattice *d = v->data;
	if (!ready(d))
		return;
	if (d->mode == M_NEIGH) {
		long c = neigh_at(d, i);
		if (c >= 0)
			leave_neighbours(d, v, c);
		return;
	}
	uint32_t c = cur_concept(d, v);
	const fca_concept *k = &d->L.c[c];
	if (!k->next) {
		tui_msg(t, ST_DIM, "c%u holds no trace", c);
		return;
	}
	uint32_t *objs = xmalloc(k->next * sizeof *objs);
	size_t n = 0;
	for (size_t g = 0; g < d->L.n && n < k->next; g++)
		if (ctx_btest(k->extent, g) && g < d->r->n)
			objs[n++] = (uint32_t)g;
	char what[48];
	snprintf(what, sizeof what, "concept c%u", c);
	view_traces_open(t, d->run, objs, n, what);
	free(objs);
}

static int lattice_key(tui *t, view *v, int k)
{
	struct lattice *d = v->data;
	if (!ready(d))
		return 0;
	if (d->mode == M_NEIGH) {
		/* the page is part of this view: back goes to the lattice, not out of it */
		if (k == 'e' || k == 'q' || k == 27 || k == 'h' || k == KEY_LEFT) {
			leave_neighbours(d, v, -1);
			return 1;
		}
		return 0;
	}
	switch (k) {
	case 'p':
	case 'u':
		go(t, d, v, 1);
		return 1;
	case 'c':
		go(t, d, v, 0);
		return 1;
	case 'e':
		neighbours(d, v);
		return 1;
	case 'i':
		d->full = !d->full;
		tui_msg(t, ST_DIM, d->full ? "intents: every attribute"
					   : "intents: the attributes new at each concept (+)");
		return 1;
	case '\t':
		if (d->mode == M_DIAGRAM)
			set_mode(d, v, M_LIST);
		else if (d->rows)
			set_mode(d, v, M_DIAGRAM);
		else
			tui_msg(t, ST_DIM, "no diagram: %s", d->nodiag);
		return 1;
	case 'j':
	case KEY_DOWN:
	case 'k':
	case KEY_UP:
		if (d->mode != M_DIAGRAM)
			return 0;
		step(d, v, k == 'j' || k == KEY_DOWN ? 1 : -1);
		return 1;
	}
	return 0;
}

static void lattice_close(view *v)
{
	free_data(v->data);
	free(v->data);
}

static const view_ops lattice_ops = {
	.name = "lattice", .keys = keys, .open = lattice_open, .line = lattice_line,
	.enter = lattice_enter, .key = lattice_key, .close = lattice_close,
	.header = lattice_header,
};

int view_lattice_open(tui *t, const char *run)
{
	struct lattice *d = xcalloc(1, sizeof *d);
	snprintf(d->run, sizeof d->run, "%s", run);
	return tui_push(t, &lattice_ops, d, "difftrace: lattice of %s", run) ? 0 : -1;
}
