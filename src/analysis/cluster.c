/* cluster.c: identical-set classes, hierarchical clustering with Lance-Williams updates, cuts.
 *
 * The clustering is the primitive algorithm (always join the globally closest pair), made
 * quadratic in practice by caching each slot's nearest neighbour among the higher slots: after a
 * merge only the slots whose neighbour was one of the two merged clusters are rescanned, and a
 * lower slot whose distance to the new cluster dropped below its cached one takes it. That also
 * keeps centroid and median (whose distances can shrink) exact. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/cluster.h"
#include "util/util.h"

static const char *const linkage_names[] = { "ward",     "single",   "complete", "average",
					     "weighted", "centroid", "median" };

int clu_linkage_parse(const char *s, enum clu_linkage *l, dt_err *e)
{
	for (int i = 0; i < (int)(sizeof linkage_names / sizeof *linkage_names); i++)
		if (!strcmp(s, linkage_names[i])) {
			*l = (enum clu_linkage)i;
			return 0;
		}
	return dt_errf(e, DT_EUSAGE,
		       "unknown linkage '%s' (ward, single, complete, average, weighted, centroid, "
		       "median)",
		       s);
}

const char *clu_linkage_name(enum clu_linkage l)
{
	return (unsigned)l < sizeof linkage_names / sizeof *linkage_names ? linkage_names[l] : "?";
}

/* ---- identical attribute sets ---- */

typedef struct rowref {
	const uint64_t *row;
	size_t words;
	uint32_t idx;
} rowref;

static int cmp_rowref(const void *x, const void *y)
{
	const rowref *a = x, *b = y;
	int c = memcmp(a->row, b->row, a->words * sizeof *a->row);
	if (c)
		return c;
	return (a->idx > b->idx) - (a->idx < b->idx);
}

size_t clu_identical(const ctx_bits *c, uint32_t *label)
{
	size_t n = c->n;
	if (!n)
		return 0;
	rowref *r = xmalloc(n * sizeof *r);
	for (size_t i = 0; i < n; i++)
		r[i] = (rowref){ ctx_row(c, i), c->words, (uint32_t)i };
	qsort(r, n, sizeof *r, cmp_rowref);
	/* rep[i]: the first object of i's class (rows sort with equal rows together, by index) */
	uint32_t *rep = xmalloc(n * sizeof *rep);
	for (size_t k = 0; k < n; k++) {
		if (k && ctx_bequal(r[k].row, r[k - 1].row, c->words))
			rep[r[k].idx] = rep[r[k - 1].idx];
		else
			rep[r[k].idx] = r[k].idx;
	}
	size_t nc = 0;
	for (size_t i = 0; i < n; i++)
		label[i] = rep[i] == i ? (uint32_t)nc++ : label[rep[i]];
	free(rep);
	free(r);
	return nc;
}

/* ---- linkage ---- */

void clu_condensed_from_jsm(const double *jsm, size_t n, double *d)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			d[k++] = 1.0 - jsm[i * n + j];
}

static double root(double x)
{
	return x > 0 ? sqrt(x) : 0; /* rounding can leave a tiny negative where 0 is meant */
}

/* Distance from k to i∪j (Lance-Williams) given d_ki, d_kj, d_ij and the sizes. */
static double lw(enum clu_linkage l, double dki, double dkj, double dij, double ni, double nj,
		 double nk)
{
	switch (l) {
	case CLU_SINGLE:
		return dki < dkj ? dki : dkj;
	case CLU_COMPLETE:
		return dki > dkj ? dki : dkj;
	case CLU_AVERAGE:
		return (ni * dki + nj * dkj) / (ni + nj);
	case CLU_WEIGHTED:
		return (dki + dkj) / 2;
	case CLU_WARD:
		return root(((ni + nk) * dki * dki + (nj + nk) * dkj * dkj - nk * dij * dij) /
			    (ni + nj + nk));
	case CLU_CENTROID:
		return root((ni * dki * dki + nj * dkj * dkj) / (ni + nj) -
			    ni * nj * dij * dij / ((ni + nj) * (ni + nj)));
	case CLU_MEDIAN:
		return root(dki * dki / 2 + dkj * dkj / 2 - dij * dij / 4);
	}
	return dki;
}

typedef struct hac {
	size_t n;
	double *d;      /* condensed, between slots */
	uint8_t *alive; /* slot holds a cluster */
	size_t *nn;     /* nearest alive slot above, or n */
	double *nd;     /* its distance, or INFINITY */
} hac;

static double dist(const hac *h, size_t i, size_t j)
{
	return i < j ? h->d[clu_cidx(h->n, i, j)] : h->d[clu_cidx(h->n, j, i)];
}

static void rescan(hac *h, size_t i)
{
	h->nn[i] = h->n;
	h->nd[i] = INFINITY;
	for (size_t k = i + 1; k < h->n; k++)
		if (h->alive[k] && h->d[clu_cidx(h->n, i, k)] < h->nd[i]) {
			h->nd[i] = h->d[clu_cidx(h->n, i, k)];
			h->nn[i] = k;
		}
}

/* The primitive algorithm on n slots with condensed distances d and initial sizes size0 (NULL:
 * all 1); d is taken over (freed here). */
static void hac_run(double *d, size_t n, const uint32_t *size0, enum clu_linkage l,
		    clu_merge *merges)
{
	hac h = { n, d, xmalloc(n), xmalloc(n * sizeof *h.nn), xmalloc(n * sizeof *h.nd) };
	memset(h.alive, 1, n);
	uint32_t *id = xmalloc(n * sizeof *id), *size = xmalloc(n * sizeof *size);
	for (size_t i = 0; i < n; i++) {
		id[i] = (uint32_t)i;
		size[i] = size0 ? size0[i] : 1;
	}
	for (size_t i = 0; i < n; i++)
		rescan(&h, i);
	for (size_t s = 0; s + 1 < n; s++) {
		size_t i = n;
		for (size_t k = 0; k < n; k++)
			if (h.alive[k] && h.nn[k] < n && (i == n || h.nd[k] < h.nd[i]))
				i = k;
		size_t j = h.nn[i];
		double dij = h.nd[i];
		uint32_t a = id[i], b = id[j];
		merges[s] = (clu_merge){ a < b ? a : b, a < b ? b : a, dij, size[i] + size[j] };
		for (size_t k = 0; k < n; k++)
			if (h.alive[k] && k != i && k != j) {
				double v = lw(l, dist(&h, k, i), dist(&h, k, j), dij, size[i],
					      size[j], size[k]);
				h.d[k < i ? clu_cidx(n, k, i) : clu_cidx(n, i, k)] = v;
			}
		h.alive[j] = 0;
		id[i] = (uint32_t)(n + s);
		size[i] += size[j];
		rescan(&h, i);
		for (size_t k = 0; k < j; k++) {
			if (!h.alive[k] || k == i)
				continue;
			if (h.nn[k] == i || h.nn[k] == j) {
				rescan(&h, k);
			} else if (k < i) {
				double v = h.d[clu_cidx(n, k, i)];
				if (v < h.nd[k] || (v == h.nd[k] && i < h.nn[k])) {
					h.nd[k] = v;
					h.nn[k] = i;
				}
			}
		}
	}
	free(id);
	free(size);
	free(h.d);
	free(h.alive);
	free(h.nn);
	free(h.nd);
}

static int check_dist(const double *d, size_t nd, dt_err *e)
{
	for (size_t k = 0; k < nd; k++)
		if (!(d[k] >= 0)) /* also catches NaN */
			return dt_errf(e, DT_EDATA,
				       "distance %g at condensed index %zu is not a non-negative "
				       "number",
				       d[k], k);
	return 0;
}

int clu_linkage(const double *d, size_t n, enum clu_linkage l, clu_merge *merges, dt_err *e)
{
	if (n > UINT32_MAX / 2)
		return dt_errf(e, DT_EDATA, "too many traces to cluster (%zu)", n);
	if (n < 2)
		return 0;
	size_t nd = n * (n - 1) / 2;
	if (check_dist(d, nd, e))
		return -1;
	double *c = xmalloc(nd * sizeof *c);
	memcpy(c, d, nd * sizeof *d);
	hac_run(c, n, NULL, l, merges);
	return 0;
}

/* ---- classes of identical traces ---- */

/* The distance, once both are collapsed, between the cluster of the wp copies of class P and
 * that of the wq copies of class Q, P's first trace coming before Q's, at distance x between
 * one copy of each: the Lance-Williams updates replayed in the order the full clustering makes
 * them (P collapses one copy at a time into its first slot while Q's copies are single, then Q
 * does the same against the whole of P), so that the value is the very double the full
 * clustering reaches, rounding included. */
static double collapsed_dist(enum clu_linkage l, double x, uint32_t wp, uint32_t wq)
{
	double y = x;
	for (uint32_t t = 1; t < wp; t++)
		y = lw(l, y, x, 0, t, 1, 1);
	double z = y;
	for (uint32_t s = 1; s < wq; s++)
		z = lw(l, z, y, 0, s, 1, wp);
	return z;
}

int clu_linkage_classes(const double *jsm, size_t nc, const uint32_t *mult, enum clu_linkage l,
			clu_merge *merges, dt_err *e)
{
	if (nc > UINT32_MAX / 2)
		return dt_errf(e, DT_EDATA, "too many traces to cluster (%zu)", nc);
	uint64_t total = 0;
	for (size_t i = 0; i < nc; i++)
		total += mult[i];
	if (total > UINT32_MAX / 2)
		return dt_errf(e, DT_EDATA, "too many traces to cluster (%llu)",
			       (unsigned long long)total);
	if (nc < 2)
		return 0;
	size_t nd = nc * (nc - 1) / 2;
	double *d = xmalloc(nd * sizeof *d);
	clu_condensed_from_jsm(jsm, nc, d);
	if (check_dist(d, nd, e)) {
		free(d);
		return -1;
	}
	for (size_t i = 0, k = 0; i < nc; i++)
		for (size_t j = i + 1; j < nc; j++, k++)
			if (mult[i] > 1 || mult[j] > 1)
				d[k] = collapsed_dist(l, d[k], mult[i], mult[j]);
	hac_run(d, nc, mult, l, merges);
	return 0;
}

/* The budget of zero-height merges z shared out over the classes in order: t[c] copies of class
 * c joined to its first one (0..mult[c]-1). */
static void chain_share(const uint32_t *mult, size_t nc, uint64_t z, uint32_t *t)
{
	for (size_t c = 0; c < nc; c++) {
		uint32_t w = mult[c] ? mult[c] - 1 : 0;
		t[c] = z >= w ? w : (uint32_t)z;
		z -= t[c];
	}
}

void clu_cut_classes(const clu_merge *m, size_t nc, const uint32_t *cls, size_t n, size_t k,
		     uint32_t *label)
{
	if (!n)
		return;
	if (k < 1)
		k = 1;
	if (k > n)
		k = n;
	if (nc == n) { /* every trace its own class: cls[i] = i */
		clu_cut(m, n, k, label);
		return;
	}
	uint32_t *lab = xmalloc((nc ? nc : 1) * sizeof *lab);
	if (k <= nc) {
		clu_cut(m, nc, k, lab);
		for (size_t i = 0; i < n; i++)
			label[i] = lab[cls[i]];
		free(lab);
		return;
	}
	/* more clusters than classes: the first n - k zero-height merges, class by class */
	uint32_t *mult = xcalloc(nc ? nc : 1, sizeof *mult), *t = xmalloc((nc ? nc : 1) * sizeof *t);
	for (size_t i = 0; i < n; i++)
		mult[cls[i]]++;
	chain_share(mult, nc, n - k, t);
	uint32_t *seen = xcalloc(nc ? nc : 1, sizeof *seen);
	for (size_t c = 0; c < nc; c++)
		lab[c] = UINT32_MAX;
	uint32_t next = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t c = cls[i], r = seen[c]++;
		if (r <= t[c]) { /* with its class's first trace */
			if (lab[c] == UINT32_MAX)
				lab[c] = next++;
			label[i] = lab[c];
		} else {
			label[i] = next++;
		}
	}
	free(seen);
	free(t);
	free(mult);
	free(lab);
}

void clu_expand_merges(const clu_merge *m, size_t nc, const uint32_t *cls, size_t n,
		       clu_merge *out)
{
	if (n < 2)
		return;
	/* id[c]: the full dendrogram's id of class c once collapsed */
	uint32_t *id = xmalloc((nc ? nc : 1) * sizeof *id), *sz = xcalloc(nc ? nc : 1, sizeof *sz);
	size_t s = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t c = cls[i];
		if (!sz[c]++)
			id[c] = (uint32_t)i;
	}
	/* the zero-height merges, classes in order of their first trace, copies in trace order */
	memset(sz, 0, (nc ? nc : 1) * sizeof *sz);
	uint32_t *members = xmalloc(n * sizeof *members);
	size_t *off = xcalloc(nc + 1, sizeof *off);
	for (size_t i = 0; i < n; i++)
		off[cls[i] + 1]++;
	for (size_t c = 0; c < nc; c++)
		off[c + 1] += off[c];
	for (size_t i = 0; i < n; i++)
		members[off[cls[i]] + sz[cls[i]]++] = (uint32_t)i;
	for (size_t c = 0; c < nc; c++)
		for (size_t q = off[c] + 1; q < off[c + 1]; q++) {
			uint32_t a = id[c], b = members[q];
			out[s] = (clu_merge){ a < b ? a : b, a < b ? b : a, 0,
					      (uint32_t)(q - off[c] + 1) };
			id[c] = (uint32_t)(n + s++);
		}
	size_t z = s;
	for (size_t q = 0; q + 1 < nc; q++) {
		uint32_t a = m[q].a < nc ? id[m[q].a] : (uint32_t)(n + z + (m[q].a - nc));
		uint32_t b = m[q].b < nc ? id[m[q].b] : (uint32_t)(n + z + (m[q].b - nc));
		out[s++] = (clu_merge){ a < b ? a : b, a < b ? b : a, m[q].height, m[q].size };
	}
	free(members);
	free(off);
	free(id);
	free(sz);
}

/* ---- cuts ---- */

static uint32_t find(uint32_t *up, uint32_t x)
{
	while (up[x] != x) {
		up[x] = up[up[x]];
		x = up[x];
	}
	return x;
}

void clu_cut(const clu_merge *m, size_t n, size_t k, uint32_t *label)
{
	if (!n)
		return;
	if (k < 1)
		k = 1;
	if (k > n)
		k = n;
	/* union-find over traces; rep[c] is a trace of cluster id c */
	uint32_t *up = xmalloc(n * sizeof *up), *rep = xmalloc((2 * n) * sizeof *rep);
	for (size_t i = 0; i < n; i++)
		up[i] = rep[i] = (uint32_t)i;
	for (size_t s = 0; s < n - k; s++) {
		uint32_t x = find(up, rep[m[s].a]), y = find(up, rep[m[s].b]);
		if (x < y)
			up[y] = x;
		else
			up[x] = y;
		rep[n + s] = x < y ? x : y;
	}
	uint32_t *lab = xmalloc(n * sizeof *lab);
	for (size_t i = 0; i < n; i++)
		lab[i] = UINT32_MAX;
	uint32_t next = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t r = find(up, (uint32_t)i);
		if (lab[r] == UINT32_MAX)
			lab[r] = next++;
		label[i] = lab[r];
	}
	free(lab);
	free(up);
	free(rep);
}

size_t clu_auto_k(const clu_merge *m, size_t n, size_t kmax)
{
	if (n <= 1)
		return n;
	if (kmax > n)
		kmax = n;
	double top = 0;
	for (size_t s = 0; s + 1 < n; s++)
		if (m[s].height > top)
			top = m[s].height;
	double best = 1e-9 * top;
	size_t bestk = 1;
	for (size_t k = 2; k <= kmax; k++) {
		size_t s = n - k; /* merges kept */
		double gap = m[s].height - (s ? m[s - 1].height : 0);
		if (gap > best) {
			best = gap;
			bestk = k;
		}
	}
	return bestk;
}
