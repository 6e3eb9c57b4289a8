/* rank.c: JSM_D, the trace and pair orderings, the Fowlkes-Mallows B-score, single-run outliers
 * and the sweep table (METHOD.md §8). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/rank.h"
#include "util/util.h"

/* ---- JSM_D ---------------------------------------------------------------------------------- */

typedef struct keyed {
	rank_key k;
	size_t row;
} keyed;

static int key_cmp(rank_key a, rank_key b)
{
	if (a.proc != b.proc)
		return a.proc < b.proc ? -1 : 1;
	if (a.thread != b.thread)
		return a.thread < b.thread ? -1 : 1;
	return 0;
}

static int keyed_cmp(const void *x, const void *y)
{
	const keyed *a = x, *b = y;
	int c = key_cmp(a->k, b->k);
	if (c)
		return c;
	return a->row < b->row ? -1 : a->row > b->row;
}

/* The keys sorted, or -1 when one appears twice (identity must be one to one). */
static int sort_keys(const rank_key *k, size_t n, const char *run, keyed **out, dt_err *e)
{
	keyed *s = xmalloc(n * sizeof *s);
	for (size_t i = 0; i < n; i++)
		s[i] = (keyed){ k[i], i };
	if (n)
		qsort(s, n, sizeof *s, keyed_cmp);
	for (size_t i = 1; i < n; i++) {
		if (!key_cmp(s[i - 1].k, s[i].k)) {
			dt_errf(e, DT_EDATA, "%s run: trace %d.%d appears twice (rows %zu and %zu)",
				run, s[i].k.proc, s[i].k.thread, s[i - 1].row, s[i].row);
			free(s);
			return -1;
		}
	}
	*out = s;
	return 0;
}

/* A Jaccard similarity is a number in [0, 1]; anything else is a bug upstream, not a suspect. */
static int check_jsm(const double *m, size_t n, const char *what, dt_err *e)
{
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++) {
			double v = m[i * n + j];
			if (!(v >= 0.0 && v <= 1.0))
				return dt_errf(e, DT_EDATA,
					       "%s JSM: entry (%zu, %zu) = %g is not a similarity in [0, 1]",
					       what, i, j, v);
		}
	return 0;
}

/* An open-addressing map from 64-bit keys to ids 0, 1, ... in order of insertion. */
typedef struct idmap {
	uint64_t *k;
	uint32_t *v; /* UINT32_MAX: empty */
	size_t mask;
	uint32_t n;
} idmap;

static void idmap_init(idmap *m, size_t n)
{
	size_t cap = 16;
	while (cap < 2 * n)
		cap *= 2;
	m->k = xmalloc(cap * sizeof *m->k);
	m->v = xmalloc(cap * sizeof *m->v);
	memset(m->v, 0xff, cap * sizeof *m->v);
	m->mask = cap - 1;
	m->n = 0;
}

static uint32_t idmap_get(idmap *m, uint64_t key)
{
	size_t h = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 17) & m->mask;
	while (m->v[h] != UINT32_MAX && m->k[h] != key)
		h = (h + 1) & m->mask;
	if (m->v[h] == UINT32_MAX) {
		m->k[h] = key;
		m->v[h] = m->n++;
	}
	return m->v[h];
}

static void idmap_free(idmap *m)
{
	free(m->k);
	free(m->v);
}

int rank_jsmd_build(const rank_key *kn, const double *jn, size_t nn, const rank_key *kf,
		    const double *jf, size_t nf, rank_jsmd *out, dt_err *e)
{
	return rank_jsmd_build_rows(kn, NULL, jn, nn, nn, kf, NULL, jf, nf, nf, out, e);
}

int rank_jsmd_build_rows(const rank_key *kn, const uint32_t *rn, const double *jn, size_t dn,
			 size_t nn, const rank_key *kf, const uint32_t *rf, const double *jf,
			 size_t df, size_t nf, rank_jsmd *out, dt_err *e)
{
	memset(out, 0, sizeof *out);
	if (check_jsm(jn, dn, "normal", e) || check_jsm(jf, df, "faulty", e))
		return -1;
	keyed *sn = NULL, *sf = NULL;
	if (sort_keys(kn, nn, "normal", &sn, e))
		return -1;
	if (sort_keys(kf, nf, "faulty", &sf, e)) {
		free(sn);
		return -1;
	}
	size_t cap = nn < nf ? nn : nf;
	out->keys = xmalloc((cap ? cap : 1) * sizeof *out->keys);
	out->row_normal = xmalloc((cap ? cap : 1) * sizeof *out->row_normal);
	out->row_faulty = xmalloc((cap ? cap : 1) * sizeof *out->row_faulty);
	out->only_normal = xmalloc((nn ? nn : 1) * sizeof *out->only_normal);
	out->only_faulty = xmalloc((nf ? nf : 1) * sizeof *out->only_faulty);
	size_t i = 0, j = 0, n = 0;
	while (i < nn || j < nf) {
		int c = i == nn ? 1 : j == nf ? -1 : key_cmp(sn[i].k, sf[j].k);
		if (c < 0) {
			out->only_normal[out->n_only_normal++] = sn[i++].k;
		} else if (c > 0) {
			out->only_faulty[out->n_only_faulty++] = sf[j++].k;
		} else {
			out->keys[n] = sn[i].k;
			out->row_normal[n] = sn[i++].row;
			out->row_faulty[n++] = sf[j++].row;
		}
	}
	out->n = n;
	/* the classes: the pairs (normal row, faulty row) */
	idmap m;
	idmap_init(&m, n);
	out->cls = xmalloc((n ? n : 1) * sizeof *out->cls);
	uint32_t *an = xmalloc((n ? n : 1) * sizeof *an), *af = xmalloc((n ? n : 1) * sizeof *af);
	for (size_t a = 0; a < n; a++) {
		uint32_t x = rn ? rn[out->row_normal[a]] : (uint32_t)out->row_normal[a];
		uint32_t y = rf ? rf[out->row_faulty[a]] : (uint32_t)out->row_faulty[a];
		uint32_t c = idmap_get(&m, (uint64_t)x << 32 | y);
		out->cls[a] = c;
		an[c] = x;
		af[c] = y;
	}
	size_t nc = out->nc = m.n;
	idmap_free(&m);
	out->mult = xcalloc(nc ? nc : 1, sizeof *out->mult);
	for (size_t a = 0; a < n; a++)
		out->mult[out->cls[a]]++;
	out->cd = xmalloc((nc ? nc * nc : 1) * sizeof *out->cd);
	out->diag = xmalloc((nc ? nc : 1) * sizeof *out->diag);
	for (size_t a = 0; a < nc; a++) {
		const double *xn = jn + (size_t)an[a] * dn, *xf = jf + (size_t)af[a] * df;
		for (size_t b = 0; b < nc; b++)
			out->cd[a * nc + b] = fabs(xf[af[b]] - xn[an[b]]);
		out->diag[a] = out->cd[a * nc + a];
	}
	free(an);
	free(af);
	free(sn);
	free(sf);
	return 0;
}

void rank_jsmd_free(rank_jsmd *j)
{
	free(j->keys);
	free(j->row_normal);
	free(j->row_faulty);
	free(j->cls);
	free(j->mult);
	free(j->cd);
	free(j->diag);
	free(j->only_normal);
	free(j->only_faulty);
	free(j->running);
	memset(j, 0, sizeof *j);
}

void rank_jsmd_rowsums(const rank_jsmd *j, double *sum)
{
	size_t nc = j->nc;
	for (size_t a = 0; a < nc; a++) {
		double s = 0;
		for (size_t b = 0; b < nc; b++)
			s += (double)(b == a ? j->mult[b] - 1 : j->mult[b]) * j->cd[a * nc + b];
		sum[a] = s + j->diag[a];
	}
}

/* ---- orderings ------------------------------------------------------------------------------ */

typedef struct sum_item {
	double key; /* the sum rounded to 1e-9: the ordering key */
	rank_item it;
} sum_item;

static int sum_cmp(const void *x, const void *y)
{
	const sum_item *a = x, *b = y;
	if (a->key != b->key)
		return a->key > b->key ? -1 : 1;
	return a->it.i < b->it.i ? -1 : a->it.i > b->it.i;
}

void rank_traces(const double *d, size_t n, rank_item *out)
{
	rank_top_traces(d, n, n, out);
}

static size_t top_of(sum_item *s, size_t n, size_t top, rank_item *out);

size_t rank_top_traces(const double *d, size_t n, size_t top, rank_item *out)
{
	sum_item *s = xmalloc((n ? n : 1) * sizeof *s);
	for (size_t i = 0; i < n; i++) {
		double sum = 0;
		for (size_t j = 0; j < n; j++)
			sum += d[i * n + j];
		s[i].it = (rank_item){ i, sum };
		s[i].key = nearbyint(sum * 1e9);
	}
	return top_of(s, n, top, out);
}

/* The JSM_D row sums of j's traces, ordered as rank_top_traces orders a dense matrix's. */
static size_t jsmd_top(const rank_jsmd *j, size_t top, rank_item *out)
{
	size_t n = j->n;
	double *cs = xmalloc((j->nc ? j->nc : 1) * sizeof *cs);
	rank_jsmd_rowsums(j, cs);
	sum_item *s = xmalloc((n ? n : 1) * sizeof *s);
	for (size_t i = 0; i < n; i++) {
		s[i].it = (rank_item){ i, cs[j->cls[i]] };
		s[i].key = nearbyint(cs[j->cls[i]] * 1e9);
	}
	free(cs);
	return top_of(s, n, top, out);
}

static size_t top_of(sum_item *s, size_t n, size_t top, rank_item *out)
{
	if (n)
		qsort(s, n, sizeof *s, sum_cmp);
	size_t m = top < n ? top : n;
	for (size_t r = 0; r < m; r++)
		out[r] = s[r].it;
	free(s);
	return m;
}

size_t rank_order(const rank_jsmd *j, size_t top, rank_item *out)
{
	size_t n = j->n;
	if (!j->running || !j->n_running)
		return jsmd_top(j, top, out);
	rank_item *all = xmalloc((n ? n : 1) * sizeof *all);
	jsmd_top(j, n, all);
	size_t m = 0;
	for (int pass = 1; pass >= 0; pass--)
		for (size_t r = 0; r < n && m < top; r++)
			if ((j->running[all[r].i] != 0) == pass)
				out[m++] = all[r];
	free(all);
	return m;
}

typedef struct end_item {
	uint64_t last;
	size_t i;
} end_item;

static int end_cmp(const void *x, const void *y)
{
	const end_item *a = x, *b = y;
	if (a->last != b->last)
		return a->last < b->last ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

size_t rank_running(const uint64_t *first, const uint64_t *last, const uint8_t *valid, size_t n,
		    uint8_t *running, double *quiet)
{
	memset(running, 0, n);
	*quiet = 0;
	end_item *e = xmalloc((n ? n : 1) * sizeof *e);
	size_t m = 0;
	uint64_t start = UINT64_MAX;
	for (size_t i = 0; i < n; i++) {
		if (!valid[i] || last[i] < first[i])
			continue;
		e[m++] = (end_item){ last[i], i };
		start = first[i] < start ? first[i] : start;
	}
	size_t nrun = 0;
	if (m >= 3) {
		qsort(e, m, sizeof *e, end_cmp);
		uint64_t span = e[m - 1].last - start, gap = 0;
		size_t cut = 0;
		for (size_t r = 1; r < m; r++)
			if (e[r].last - e[r - 1].last > gap) {
				gap = e[r].last - e[r - 1].last;
				cut = r;
			}
		if (span && gap * 2 >= span && (m - cut) * 2 < m) {
			for (size_t r = cut; r < m; r++)
				running[e[r].i] = 1;
			nrun = m - cut;
			*quiet = (double)gap / 1e9;
		}
	}
	free(e);
	return nrun;
}

size_t rank_top_procs(const rank_jsmd *j, const rank_item *it, size_t nit, int *out, size_t max)
{
	return rank_top_procs_scored(j, it, nit, out, NULL, max);
}

size_t rank_top_procs_scored(const rank_jsmd *j, const rank_item *it, size_t nit, int *out,
			     double *scores, size_t max)
{
	int maxp = -1;
	for (size_t i = 0; i < j->n; i++)
		if (j->keys[i].proc > maxp)
			maxp = j->keys[i].proc;
	double *sum = xcalloc((size_t)maxp + 2, sizeof *sum);
	uint8_t *run = xcalloc((size_t)maxp + 2, 1);
	for (size_t i = 0; i < nit; i++)
		if (j->keys[it[i].i].proc >= 0) {
			sum[j->keys[it[i].i].proc] += it[i].score;
			if (j->running && j->running[it[i].i])
				run[j->keys[it[i].i].proc] = 1;
		}
	size_t k = 0;
	for (; k < max; k++) {
		int best = -1;
		for (int p = 0; p <= maxp; p++)
			if ((sum[p] > 1e-12 || run[p]) &&
			    (best < 0 || run[p] > run[best] ||
			     (run[p] == run[best] && sum[p] > sum[best])))
				best = p;
		if (best < 0)
			break;
		out[k] = best;
		if (scores)
			scores[k] = sum[best];
		sum[best] = 0; /* taken */
		run[best] = 0;
	}
	free(run);
	free(sum);
	return k;
}

/* a ranks before b: larger score, then smaller (i, j). NaN cannot occur (rank_jsmd checks). */
static int pair_before(const rank_pair *a, const rank_pair *b)
{
	if (a->score != b->score)
		return a->score > b->score;
	if (a->i != b->i)
		return a->i < b->i;
	return a->j < b->j;
}

static int pair_cmp(const void *x, const void *y)
{
	return pair_before(x, y) ? -1 : pair_before(y, x) ? 1 : 0;
}

/* A heap whose root is the pair that ranks last, so that the n(n-1)/2 pairs of a large run
 * need not be held at once. */
static void heap_down(rank_pair *h, size_t m, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, w = i;
		if (l < m && pair_before(&h[w], &h[l]))
			w = l;
		if (r < m && pair_before(&h[w], &h[r]))
			w = r;
		if (w == i)
			return;
		rank_pair t = h[i];
		h[i] = h[w];
		h[w] = t;
		i = w;
	}
}

static void heap_up(rank_pair *h, size_t i)
{
	while (i) {
		size_t p = (i - 1) / 2;
		if (!pair_before(&h[p], &h[i]))
			return;
		rank_pair t = h[i];
		h[i] = h[p];
		h[p] = t;
		i = p;
	}
}

size_t rank_top_pairs(const double *d, size_t n, size_t top, rank_pair *out)
{
	size_t m = 0;
	if (!top)
		return 0;
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++) {
			rank_pair p = { i, j, d[i * n + j] };
			if (m < top) {
				out[m] = p;
				heap_up(out, m++);
			} else if (pair_before(&p, &out[0])) {
				out[0] = p;
				heap_down(out, m, 0);
			}
		}
	if (m)
		qsort(out, m, sizeof *out, pair_cmp);
	return m;
}

/* A class pair's value, for rank_jsmd_top_pairs. */
typedef struct cpair {
	double v;
	uint32_t a, b; /* a ≤ b */
} cpair;

static int cpair_cmp(const void *x, const void *y)
{
	const cpair *p = x, *q = y;
	if (p->v != q->v)
		return p->v > q->v ? -1 : 1;
	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	return (p->b > q->b) - (p->b < q->b);
}

static int size_cmp(const void *x, const void *y)
{
	size_t a = *(const size_t *)x, b = *(const size_t *)y;
	return (a > b) - (a < b);
}

size_t rank_jsmd_top_pairs(const rank_jsmd *j, size_t top, rank_pair *out)
{
	size_t n = j->n, nc = j->nc, m = 0;
	if (!top || n < 2)
		return 0;
	/* the traces of each class, ascending */
	size_t *off = xcalloc(nc + 2, sizeof *off), *memb = xmalloc(n * sizeof *memb);
	for (size_t i = 0; i < n; i++)
		off[j->cls[i] + 2]++;
	for (size_t c = 0; c < nc; c++)
		off[c + 2] += off[c + 1];
	for (size_t i = 0; i < n; i++)
		memb[off[j->cls[i] + 1]++] = i;
	/* each class pair that holds a pair of traces gives at least one: only those at or above
	 * the top-th largest of their values can be listed (a min-heap of top values finds it) */
	double *hp = xmalloc(top * sizeof *hp);
	size_t hn = 0;
	for (size_t a = 0; a < nc; a++)
		for (size_t b = a; b < nc; b++) {
			if (b == a && j->mult[a] < 2)
				continue;
			double v = j->cd[a * nc + b];
			size_t i;
			if (hn < top) {
				for (i = hn++; i && hp[(i - 1) / 2] > v; i = (i - 1) / 2)
					hp[i] = hp[(i - 1) / 2];
			} else if (v > hp[0]) {
				for (i = 0;;) {
					size_t l = 2 * i + 1, r = l + 1, w = l;
					if (l >= hn)
						break;
					if (r < hn && hp[r] < hp[l])
						w = r;
					if (hp[w] >= v)
						break;
					hp[i] = hp[w];
					i = w;
				}
			} else {
				continue;
			}
			hp[i] = v;
		}
	double thr = hn < top ? -INFINITY : hp[0];
	free(hp);
	/* those class pairs, by value */
	size_t np = 0, capp = 16;
	cpair *cp = xmalloc(capp * sizeof *cp);
	for (uint32_t a = 0; a < nc; a++)
		for (uint32_t b = a; b < nc; b++)
			if ((b > a || j->mult[a] > 1) && j->cd[(size_t)a * nc + b] >= thr) {
				GROW(cp, capp, np + 1);
				cp[np++] = (cpair){ j->cd[(size_t)a * nc + b], a, b };
			}
	if (np)
		qsort(cp, np, sizeof *cp, cpair_cmp);
	/* per group of equal values: each class's partners in the group, then the pairs of traces
	 * in (i, j) order until enough; every group gives at least one pair */
	uint32_t *pn = xcalloc(nc ? nc : 1, sizeof *pn);
	uint32_t **pl = xcalloc(nc ? nc : 1, sizeof *pl);
	size_t ncand;
	for (size_t g = 0; g < np && m < top;) {
		size_t h = g;
		while (h < np && cp[h].v == cp[g].v)
			h++;
		for (size_t q = g; q < h; q++) {
			pn[cp[q].a]++;
			if (cp[q].b != cp[q].a)
				pn[cp[q].b]++;
		}
		for (size_t q = g; q < h; q++) {
			uint32_t a = cp[q].a, b = cp[q].b;
			if (!pl[a])
				pl[a] = xmalloc(pn[a] * sizeof **pl), pn[a] = 0;
			if (!pl[b])
				pl[b] = xmalloc(pn[b] * sizeof **pl), pn[b] = 0;
			pl[a][pn[a]++] = b;
			if (b != a)
				pl[b][pn[b]++] = a;
		}
		size_t need = top - m;
		size_t *buf = xmalloc(need * (h - g) * 2 * sizeof *buf + sizeof *buf);
		for (size_t i = 0; i < n && need; i++) {
			uint32_t a = j->cls[i];
			if (!pl[a])
				continue;
			ncand = 0;
			for (uint32_t q = 0; q < pn[a]; q++) {
				uint32_t b = pl[a][q];
				size_t lo = off[b], hi = off[b + 1];
				while (lo < hi) { /* the first trace of b after i */
					size_t mid = lo + (hi - lo) / 2;
					if (memb[mid] <= i)
						lo = mid + 1;
					else
						hi = mid;
				}
				for (size_t r = lo; r < off[b + 1] && r - lo < need; r++)
					buf[ncand++] = memb[r];
			}
			if (ncand > 1)
				qsort(buf, ncand, sizeof *buf, size_cmp);
			for (size_t r = 0; r < ncand && need; r++, need--)
				out[m++] = (rank_pair){ i, buf[r], cp[g].v };
		}
		free(buf);
		for (size_t q = g; q < h; q++) {
			free(pl[cp[q].a]);
			pl[cp[q].a] = NULL;
			free(pl[cp[q].b]);
			pl[cp[q].b] = NULL;
			pn[cp[q].a] = pn[cp[q].b] = 0;
		}
		g = h;
	}
	free(pn);
	free(pl);
	free(cp);
	free(off);
	free(memb);
	return m;
}

/* ---- B-score ------------------------------------------------------------------------------- */

/* Sum over distinct keys of (occurrences of the key)^2, by counting in an open-addressing table
 * (tab, with mask + 1 slots, cleared here). O(n): the B-score is asked for every k of a run of
 * thousands of traces, where sorting the labels each time dominated the ranking's cost. */
static uint64_t sum_sq_counts(const uint64_t *keys, size_t n, uint64_t *tk, uint32_t *tc,
			      size_t mask)
{
	memset(tc, 0, (mask + 1) * sizeof *tc);
	uint64_t sum = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t k = keys[i];
		size_t h = (size_t)((k * 0x9E3779B97F4A7C15ull) >> 17) & mask;
		while (tc[h] && tk[h] != k)
			h = (h + 1) & mask;
		tk[h] = k;
		/* (c + 1)^2 - c^2 = 2c + 1: the sum of squares grows as the counts do */
		sum += 2 * (uint64_t)tc[h] + 1;
		tc[h]++;
	}
	return sum;
}

double rank_bscore(const int *la, const int *lb, size_t n)
{
	size_t cap = 16;
	while (cap < 2 * n)
		cap *= 2;
	uint64_t *a = xmalloc((n ? n : 1) * sizeof *a), *b = xmalloc((n ? n : 1) * sizeof *b);
	uint64_t *ab = xmalloc((n ? n : 1) * sizeof *ab);
	uint64_t *tk = xmalloc(cap * sizeof *tk);
	uint32_t *tc = xmalloc(cap * sizeof *tc);
	for (size_t i = 0; i < n; i++) {
		a[i] = (uint32_t)la[i];
		b[i] = (uint32_t)lb[i];
		ab[i] = (uint64_t)(uint32_t)la[i] << 32 | (uint32_t)lb[i];
	}
	/* Each sum of squares is at least n (all singletons) so these cannot wrap. */
	uint64_t t = sum_sq_counts(ab, n, tk, tc, cap - 1) - n;
	uint64_t p = sum_sq_counts(a, n, tk, tc, cap - 1) - n;
	uint64_t q = sum_sq_counts(b, n, tk, tc, cap - 1) - n;
	free(a);
	free(b);
	free(ab);
	free(tk);
	free(tc);
	if (!p && !q)
		return 1.0;
	if (!p || !q)
		return 0.0;
	return (double)t / (sqrt((double)p) * sqrt((double)q));
}

int rank_bscore_mean(size_t n, rank_cut_fn cut, void *ctx, double *mean, double *bk, dt_err *e)
{
	if (n <= 2) {
		*mean = 1.0;
		return 0;
	}
	int *la = xmalloc(n * sizeof *la), *lb = xmalloc(n * sizeof *lb);
	double sum = 0;
	for (size_t k = 2; k <= n - 1; k++) {
		if (cut(ctx, k, la, lb, e)) {
			free(la);
			free(lb);
			return -1;
		}
		double b = rank_bscore(la, lb, n);
		if (bk)
			bk[k - 2] = b;
		sum += b;
	}
	free(la);
	free(lb);
	*mean = sum / (double)(n - 2);
	return 0;
}

double rank_bscore_mean_arr(const int *la, const int *lb, size_t n, double *bk)
{
	if (n <= 2)
		return 1.0;
	double sum = 0;
	for (size_t k = 2; k <= n - 1; k++) {
		double b = rank_bscore(la + (k - 2) * n, lb + (k - 2) * n, n);
		if (bk)
			bk[k - 2] = b;
		sum += b;
	}
	return sum / (double)(n - 2);
}

/* B_k from the contingency table's sums of squares, as rank_bscore computes it. */
static double bscore_of(uint64_t st, uint64_t sp, uint64_t sq, size_t n)
{
	uint64_t t = st - n, p = sp - n, q = sq - n;
	if (!p && !q)
		return 1.0;
	if (!p || !q)
		return 0.0;
	return (double)t / (sqrt((double)p) * sqrt((double)q));
}

/* A side of rank_bscore_mean_classes: the order of its zero-height merges. */
typedef struct zside {
	uint32_t *seq; /* the trace each zero-height merge adds, in merge order */
	uint32_t *lab; /* the trace's current label: its class once added, else nc + trace */
	uint64_t *size;
} zside;

static void zside_init(zside *z, size_t n, const uint32_t *c, size_t nc)
{
	size_t *off = xcalloc(nc + 2, sizeof *off);
	/* a flag, set once: a count in a byte wrapped at a class's 257th trace, which then took
	 * its class's place as first, and seq was left short of n - nc traces (issue 19) */
	uint8_t *first = xcalloc(nc ? nc : 1, 1);
	z->seq = xmalloc((n ? n : 1) * sizeof *z->seq);
	z->lab = xmalloc((n ? n : 1) * sizeof *z->lab);
	z->size = xcalloc(nc ? nc : 1, sizeof *z->size);
	for (size_t i = 0; i < n; i++) {
		off[c[i] + 2] += first[c[i]];
		first[c[i]] = 1;
	}
	for (size_t k = 0; k < nc; k++)
		off[k + 2] += off[k + 1];
	memset(first, 0, nc ? nc : 1);
	for (size_t i = 0; i < n; i++) {
		uint8_t seen = first[c[i]];
		first[c[i]] = 1;
		if (seen) {
			z->seq[off[c[i] + 1]++] = (uint32_t)i;
			z->lab[i] = (uint32_t)(nc + i);
		} else {
			z->lab[i] = c[i];
			z->size[c[i]] = 1;
		}
	}
	free(off);
	free(first);
}

static void zside_free(zside *z)
{
	free(z->seq);
	free(z->lab);
	free(z->size);
}

/* The counts of the contingency table's cells, keyed by the two labels. */
typedef struct cells {
	uint64_t *k;
	uint64_t *c;
	size_t mask;
} cells;

static uint64_t *cell(cells *t, uint64_t key)
{
	size_t h = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 17) & t->mask;
	while (t->c[h] != UINT64_MAX && t->k[h] != key)
		h = (h + 1) & t->mask;
	if (t->c[h] == UINT64_MAX) {
		t->k[h] = key;
		t->c[h] = 0;
	}
	return &t->c[h];
}

int rank_bscore_mean_classes(size_t n, const uint32_t *ca, const clu_merge *ma, size_t da,
			     const uint32_t *cb, const clu_merge *mb, size_t db, double *mean,
			     double *bk)
{
	if (n <= 2) {
		*mean = 1.0;
		return 0;
	}
	double *b = xmalloc((n - 2) * sizeof *b);
	size_t kmax = da > db ? da : db; /* cuts at k <= kmax: one by one */
	/* k = n - 1 down to kmax + 1: both in their zero-height merges, one trace added each */
	if (kmax + 1 <= n - 1) {
		zside x, y;
		zside_init(&x, n, ca, da);
		zside_init(&y, n, cb, db);
		cells t;
		size_t cap = 16;
		while (cap < 4 * n)
			cap *= 2;
		t.k = xmalloc(cap * sizeof *t.k);
		t.c = xmalloc(cap * sizeof *t.c);
		memset(t.c, 0xff, cap * sizeof *t.c);
		t.mask = cap - 1;
		for (size_t i = 0; i < n; i++)
			(*cell(&t, (uint64_t)x.lab[i] << 32 | y.lab[i]))++;
		uint64_t st = n, sp = n, sq = n; /* all singletons */
		for (size_t z = 1; n - z >= kmax + 1; z++) {
			uint32_t i = x.seq[z - 1], c = ca[i];
			(*cell(&t, (uint64_t)x.lab[i] << 32 | y.lab[i]))--; /* was 1 */
			uint64_t *q = cell(&t, (uint64_t)c << 32 | y.lab[i]);
			st += 2 * *q; /* - 1 + (q + 1)^2 - q^2 */
			(*q)++;
			sp += 2 * x.size[c]++;
			x.lab[i] = c;
			i = y.seq[z - 1];
			c = cb[i];
			(*cell(&t, (uint64_t)x.lab[i] << 32 | y.lab[i]))--;
			q = cell(&t, (uint64_t)x.lab[i] << 32 | c);
			st += 2 * *q;
			(*q)++;
			sq += 2 * y.size[c]++;
			y.lab[i] = c;
			b[n - z - 2] = bscore_of(st, sp, sq, n);
		}
		free(t.k);
		free(t.c);
		zside_free(&x);
		zside_free(&y);
	}
	uint32_t *la = xmalloc(n * sizeof *la), *lb = xmalloc(n * sizeof *lb);
	int *ia = xmalloc(n * sizeof *ia), *ib = xmalloc(n * sizeof *ib);
	for (size_t k = 2; k <= kmax && k <= n - 1; k++) {
		clu_cut_classes(ma, da, ca, n, k, la);
		clu_cut_classes(mb, db, cb, n, k, lb);
		for (size_t i = 0; i < n; i++) {
			ia[i] = (int)la[i];
			ib[i] = (int)lb[i];
		}
		b[k - 2] = rank_bscore(ia, ib, n);
	}
	free(la);
	free(lb);
	free(ia);
	free(ib);
	double sum = 0;
	for (size_t k = 2; k <= n - 1; k++) {
		if (bk)
			bk[k - 2] = b[k - 2];
		sum += b[k - 2];
	}
	free(b);
	*mean = sum / (double)(n - 2);
	return 0;
}

/* ---- one run only -------------------------------------------------------------------------- */

static int outlier_cmp(const void *x, const void *y)
{
	const rank_outlier *a = x, *b = y;
	if (a->score != b->score)
		return a->score > b->score ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

int rank_outliers(const double *jsm, const int *cls, size_t n, rank_outlier *out, dt_err *e)
{
	if (check_jsm(jsm, n, "run", e))
		return -1;
	for (size_t i = 0; i < n; i++) {
		double same = 0, all = 0;
		size_t nsame = 0;
		for (size_t j = 0; j < n; j++) {
			if (j == i)
				continue;
			all += jsm[i * n + j];
			if (cls[j] == cls[i]) {
				same += jsm[i * n + j];
				nsame++;
			}
		}
		double score;
		if (nsame)
			score = 1.0 - same / (double)nsame;
		else if (n > 1)
			score = 1.0 - all / (double)(n - 1);
		else
			score = 0.0;
		out[i] = (rank_outlier){ i, score, nsame + 1 };
	}
	if (n)
		qsort(out, n, sizeof *out, outlier_cmp);
	return 0;
}

int rank_outliers_rows(const double *jsm, size_t nr, const uint32_t *row, const int *cls,
		       size_t n, rank_outlier *out, dt_err *e)
{
	if (check_jsm(jsm, nr, "run", e))
		return -1;
	/* groups: the distinct (class, row) pairs, in order of their first trace; each class's
	 * groups listed with their counts */
	idmap gm, cm;
	idmap_init(&gm, n);
	idmap_init(&cm, n);
	uint32_t *g = xmalloc((n ? n : 1) * sizeof *g), *gc = xmalloc((n ? n : 1) * sizeof *gc);
	uint32_t *gr = xmalloc((n ? n : 1) * sizeof *gr);
	size_t *gcount = xcalloc(n ? n : 1, sizeof *gcount);
	size_t *rmult = xcalloc(nr ? nr : 1, sizeof *rmult);
	for (size_t i = 0; i < n; i++) {
		uint32_t c = idmap_get(&cm, (uint64_t)(uint32_t)cls[i]);
		g[i] = idmap_get(&gm, (uint64_t)c << 32 | row[i]);
		gc[g[i]] = c;
		gr[g[i]] = row[i];
		gcount[g[i]]++;
		rmult[row[i]]++;
	}
	size_t ng = gm.n, ncl = cm.n;
	idmap_free(&gm);
	idmap_free(&cm);
	size_t *coff = xcalloc(ncl + 2, sizeof *coff), *cg = xmalloc((ng ? ng : 1) * sizeof *cg);
	size_t *csize = xcalloc(ncl ? ncl : 1, sizeof *csize);
	for (size_t q = 0; q < ng; q++) {
		coff[gc[q] + 2]++;
		csize[gc[q]] += gcount[q];
	}
	for (size_t c = 0; c < ncl; c++)
		coff[c + 2] += coff[c + 1];
	for (size_t q = 0; q < ng; q++)
		cg[coff[gc[q] + 1]++] = q;
	double *score = xmalloc((ng ? ng : 1) * sizeof *score);
	size_t *nsame = xmalloc((ng ? ng : 1) * sizeof *nsame);
	for (size_t q = 0; q < ng; q++) {
		const double *x = jsm + (size_t)gr[q] * nr;
		double same = 0, all = 0;
		for (size_t r = coff[gc[q]]; r < coff[gc[q] + 1]; r++) {
			size_t o = cg[r];
			same += (double)(o == q ? gcount[o] - 1 : gcount[o]) * x[gr[o]];
		}
		for (size_t r = 0; r < nr; r++)
			all += (double)(r == gr[q] ? rmult[r] - 1 : rmult[r]) * x[r];
		nsame[q] = csize[gc[q]] - 1;
		if (nsame[q])
			score[q] = 1.0 - same / (double)nsame[q];
		else if (n > 1)
			score[q] = 1.0 - all / (double)(n - 1);
		else
			score[q] = 0.0;
	}
	for (size_t i = 0; i < n; i++)
		out[i] = (rank_outlier){ i, score[g[i]], nsame[g[i]] + 1 };
	if (n)
		qsort(out, n, sizeof *out, outlier_cmp);
	free(score);
	free(nsame);
	free(coff);
	free(cg);
	free(csize);
	free(g);
	free(gc);
	free(gr);
	free(gcount);
	free(rmult);
	return 0;
}

/* ---- the sweep table ----------------------------------------------------------------------- */

static int str_cmp0(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

int rank_row_cmp(const rank_row *a, const rank_row *b)
{
	int na = isnan(a->bscore), nb = isnan(b->bscore);
	if (na != nb)
		return na - nb;
	if (!na && a->bscore != b->bscore)
		return a->bscore < b->bscore ? -1 : 1;
	int c = str_cmp0(a->filter, b->filter);
	if (!c)
		c = str_cmp0(a->attrs, b->attrs);
	if (!c)
		c = (a->k > b->k) - (a->k < b->k);
	return c;
}

static int row_cmp(const void *x, const void *y)
{
	return rank_row_cmp(x, y);
}

void rank_rows_sort(rank_row *rows, size_t n)
{
	if (n)
		qsort(rows, n, sizeof *rows, row_cmp);
}

static int wrote(FILE *f, dt_err *e)
{
	if (ferror(f))
		return dt_errf(e, DT_EDATA, "cannot write the ranking: output error");
	return 0;
}

/* Appends "name" items with their scores, equal scores (to 1e-9) grouped: "5.0 1.250,
 * [3.1 4.0] 0.500"; without scores, "5.0, 3.1". more: how many tie with the last item but
 * were cut ("[3.1 4.0 +2] 0.500"). empty: what an empty list means (rank_row's). */
static void join_scored(const char names[][24], const double *score, size_t n, size_t more,
			int empty, char *buf, size_t cap)
{
	size_t len = 0;
	buf[0] = 0;
	if (!n) {
		snprintf(buf, cap, "%s",
			 empty == RANK_ROW_SAME	   ? "- (no difference)"
			 : empty == RANK_ROW_BLIND ? "- (kept events differ)"
						   : "-");
		return;
	}
	if (!score)
		more = 0;
	for (size_t i = 0; i < n && len < cap;) {
		size_t g = i + 1;
		while (score && g < n && nearbyint(score[g] * 1e9) == nearbyint(score[i] * 1e9))
			g++;
		int cut = g == n && more; /* the group goes on past the list */
		len += (size_t)snprintf(buf + len, cap - len, "%s%s", i ? ", " : "",
					g - i > 1 || cut ? "[" : "");
		for (size_t q = i; q < g && len < cap; q++)
			len += (size_t)snprintf(buf + len, cap - len, "%s%s", q > i ? " " : "",
						names[q]);
		if (len < cap && cut)
			len += (size_t)snprintf(buf + len, cap - len, " +%zu", more);
		if (len < cap && (g - i > 1 || cut))
			len += (size_t)snprintf(buf + len, cap - len, "]");
		if (len < cap && score)
			len += (size_t)snprintf(buf + len, cap - len, " %.3f", score[i]);
		i = g;
	}
}

static void join_procs(const rank_row *r, char *buf, size_t cap)
{
	char names[RANK_TOP_MAX][24];
	size_t n = r->n_procs < RANK_TOP_MAX ? r->n_procs : RANK_TOP_MAX;
	for (size_t i = 0; i < n; i++)
		snprintf(names[i], sizeof names[i], "%d", r->top_procs[i]);
	join_scored(names, r->scored ? r->proc_score : NULL, n, r->more_procs, 0, buf, cap);
}

static void join_threads(const rank_row *r, char *buf, size_t cap)
{
	char names[RANK_TOP_MAX][24];
	size_t n = r->n_threads < RANK_TOP_MAX ? r->n_threads : RANK_TOP_MAX;
	for (size_t i = 0; i < n; i++)
		snprintf(names[i], sizeof names[i], "%d.%d", r->top_threads[i].proc,
			 r->top_threads[i].thread);
	join_scored(names, r->scored ? r->thread_score : NULL, n, r->more_threads, r->empty, buf,
		    cap);
}

static int max_int(int a, int b)
{
	return a > b ? a : b;
}

int rank_rows_render(FILE *f, const rank_row *rows, size_t n, dt_err *e)
{
	int wf = 6, wa = 10, wk = 1, wp = 13;
	char buf[RANK_TOP_MAX * 40];
	for (size_t r = 0; r < n; r++) {
		wf = max_int(wf, (int)strlen(rows[r].filter ? rows[r].filter : "-"));
		wa = max_int(wa, (int)strlen(rows[r].attrs ? rows[r].attrs : "-"));
		wk = max_int(wk, snprintf(buf, sizeof buf, "%d", rows[r].k));
		join_procs(&rows[r], buf, sizeof buf);
		wp = max_int(wp, (int)strlen(buf));
	}
	fprintf(f, "%-*s  %-*s  %*s  %-7s  %-*s  %s\n", wf, "Filter", wa, "Attributes", wk, "K",
		"B-score", wp, "Top processes", "Top threads");
	for (size_t r = 0; r < n; r++) {
		const rank_row *w = &rows[r];
		char procs[sizeof buf], threads[sizeof buf];
		join_procs(w, procs, sizeof procs);
		join_threads(w, threads, sizeof threads);
		fprintf(f, "%-*s  %-*s  %*d  %7.3f  %-*s  %s\n", wf, w->filter ? w->filter : "-",
			wa, w->attrs ? w->attrs : "-", wk, w->k, w->bscore, wp, procs, threads);
	}
	return wrote(f, e);
}

int rank_traces_render(FILE *f, const rank_item *it, size_t n, const rank_key *keys,
		       const uint8_t *running, dt_err *e)
{
	fprintf(f, "%4s  %-9s  %s\n", "#", "trace", "JSM_D row sum");
	for (size_t r = 0; r < n; r++) {
		char t[32];
		snprintf(t, sizeof t, "%d.%d", keys[it[r].i].proc, keys[it[r].i].thread);
		fprintf(f, "%4zu  %-9s  %.3f%s\n", r + 1, t, it[r].score,
			running && running[it[r].i] ? "  running at the stop" : "");
	}
	return wrote(f, e);
}

int rank_pairs_render(FILE *f, const rank_pair *p, size_t n, const rank_key *keys, dt_err *e)
{
	fprintf(f, "%4s  %-9s  %-9s  %s\n", "#", "trace", "trace", "JSM_D");
	for (size_t r = 0; r < n; r++) {
		char a[32], b[32];
		snprintf(a, sizeof a, "%d.%d", keys[p[r].i].proc, keys[p[r].i].thread);
		snprintf(b, sizeof b, "%d.%d", keys[p[r].j].proc, keys[p[r].j].thread);
		fprintf(f, "%4zu  %-9s  %-9s  %.3f\n", r + 1, a, b, p[r].score);
	}
	return wrote(f, e);
}

int rank_outliers_render(FILE *f, const rank_outlier *o, size_t n, const rank_key *keys,
			 dt_err *e)
{
	fprintf(f, "%4s  %-9s  %-5s  %s\n", "#", "trace", "score", "class size");
	for (size_t r = 0; r < n; r++) {
		char t[32];
		snprintf(t, sizeof t, "%d.%d", keys[o[r].i].proc, keys[o[r].i].thread);
		fprintf(f, "%4zu  %-9s  %.3f  %zu%s\n", r + 1, t, o[r].score, o[r].class_size,
			o[r].class_size == 1 ? " (alone)" : "");
	}
	return wrote(f, e);
}

/* JSM_D's diagonal as the paper has it: a trace compared with itself, |1 - 1| = 0. What
 * analysis_compare puts there instead, the trace's change against its own counterpart (1 - J of
 * its normal and faulty attributes) plus what it does that the normal run never did, is the
 * self term of --score jsmd-self and of the default score. */
void rank_jsmd_pure(rank_jsmd *j)
{
	if (j->diag)
		memset(j->diag, 0, j->nc * sizeof *j->diag);
}
