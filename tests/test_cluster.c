/* test_cluster.c: equivalence classes: identical attribute sets, hierarchical clustering with
 * every linkage on cases worked out by hand, ties, cuts, the automatic k; and the compact P.T
 * sets (ptrange) the classes are shown with. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>

#include "check.h"
#include "analysis/cluster.h"
#include "analysis/jaccard.h"
#include "util/ptrange.h"

#define CHECK_NEAR(a, b)                                                                   \
	do {                                                                               \
		double x_ = (a), y_ = (b);                                                 \
		if (!(fabs(x_ - y_) <= 1e-9 * (1 + fabs(y_)))) {                           \
			fprintf(stderr, "%s:%d: %s ~ %s failed: %.12g != %.12g\n", __FILE__, \
				__LINE__, #a, #b, x_, y_);                                 \
			check_failures++;                                          \
		}                                                                          \
	} while (0)

typedef struct wmerge {
	uint32_t a, b;
	double h;
	uint32_t size;
} wmerge;

static void check_merges(const double *d, size_t n, enum clu_linkage l, const wmerge *w)
{
	clu_merge m[8];
	dt_err e;
	dt_err_clear(&e);
	CHECK(clu_linkage(d, n, l, m, &e) == 0);
	for (size_t s = 0; s + 1 < n; s++) {
		if (m[s].a != w[s].a || m[s].b != w[s].b || m[s].size != w[s].size)
			fprintf(stderr, "%s merge %zu: got %u %u size %u\n", clu_linkage_name(l), s,
				m[s].a, m[s].b, m[s].size);
		CHECK_EQ_INT(m[s].a, w[s].a);
		CHECK_EQ_INT(m[s].b, w[s].b);
		CHECK_EQ_INT(m[s].size, w[s].size);
		CHECK_NEAR(m[s].height, w[s].h);
	}
}

/* Four points; condensed order (0,1) (0,2) (0,3) (1,2) (1,3) (2,3). Every linkage joins 0 and 1
 * at 1, then 2 with {0,1} (cluster 4), then 3 with {0,1,2} (cluster 5); the heights are the
 * Lance-Williams formulas worked by hand:
 *   after {0,1}: single d(4,2) = min(2,3) = 2, d(4,3) = min(10,8) = 8, d(2,3) = 4 ...
 *   ward: d(4,2) = sqrt((2*4 + 2*9 - 1)/3) = sqrt(25/3); d(4,3) = sqrt((2*100 + 2*64 - 1)/3)
 *         = sqrt(109); then d(5,3) = sqrt((3*109 + 2*16 - 25/3)/4)
 *   centroid: d(4,2) = sqrt(13/2 - 1/4) = 2.5, d(4,3) = sqrt(164/2 - 1/4) = sqrt(81.75),
 *         d(5,3) = sqrt((2*81.75 + 16)/3 - 2*6.25/9)
 *   median: d(4,2) = 2.5, d(4,3) = sqrt(81.75), d(5,3) = sqrt(81.75/2 + 16/2 - 6.25/4) */
static void by_hand(void)
{
	static const double d[] = { 1, 2, 10, 3, 8, 4 };
	const wmerge single[] = { { 0, 1, 1, 2 }, { 2, 4, 2, 3 }, { 3, 5, 4, 4 } };
	const wmerge complete[] = { { 0, 1, 1, 2 }, { 2, 4, 3, 3 }, { 3, 5, 10, 4 } };
	const wmerge average[] = { { 0, 1, 1, 2 }, { 2, 4, 2.5, 3 }, { 3, 5, 22.0 / 3, 4 } };
	const wmerge weighted[] = { { 0, 1, 1, 2 }, { 2, 4, 2.5, 3 }, { 3, 5, 6.5, 4 } };
	const wmerge ward[] = { { 0, 1, 1, 2 },
			      { 2, 4, sqrt(25.0 / 3), 3 },
			      { 3, 5, sqrt((3 * 109 + 2 * 16 - 25.0 / 3) / 4), 4 } };
	const wmerge centroid[] = { { 0, 1, 1, 2 },
				  { 2, 4, 2.5, 3 },
				  { 3, 5, sqrt((2 * 81.75 + 16) / 3 - 2 * 6.25 / 9), 4 } };
	const wmerge median[] = { { 0, 1, 1, 2 },
				{ 2, 4, 2.5, 3 },
				{ 3, 5, sqrt(81.75 / 2 + 8 - 6.25 / 4), 4 } };
	check_merges(d, 4, CLU_SINGLE, single);
	check_merges(d, 4, CLU_COMPLETE, complete);
	check_merges(d, 4, CLU_AVERAGE, average);
	check_merges(d, 4, CLU_WEIGHTED, weighted);
	check_merges(d, 4, CLU_WARD, ward);
	check_merges(d, 4, CLU_CENTROID, centroid);
	check_merges(d, 4, CLU_MEDIAN, median);

	/* Points 0, 2, 3.9, 5 on a line: single chains 1 then 0 onto {2,3}; complete, average and
	 * ward pair {0,1} against {2,3}. */
	static const double l[] = { 2, 3.9, 5, 1.9, 3, 1.1 };
	const wmerge lsingle[] = { { 2, 3, 1.1, 2 }, { 1, 4, 1.9, 3 }, { 0, 5, 2, 4 } };
	const wmerge lcomplete[] = { { 2, 3, 1.1, 2 }, { 0, 1, 2, 2 }, { 4, 5, 5, 4 } };
	const wmerge laverage[] = { { 2, 3, 1.1, 2 }, { 0, 1, 2, 2 }, { 4, 5, 13.8 / 4, 4 } };
	const wmerge lward[] = { { 2, 3, 1.1, 2 }, { 0, 1, 2, 2 }, { 4, 5, sqrt(95.22 / 4), 4 } };
	check_merges(l, 4, CLU_SINGLE, lsingle);
	check_merges(l, 4, CLU_COMPLETE, lcomplete);
	check_merges(l, 4, CLU_AVERAGE, laverage);
	check_merges(l, 4, CLU_WARD, lward);

	clu_merge m[3];
	uint32_t lab[4];
	dt_err e;
	dt_err_clear(&e);
	CHECK(clu_linkage(l, 4, CLU_SINGLE, m, &e) == 0);
	clu_cut(m, 4, 2, lab);
	CHECK(lab[0] == 0 && lab[1] == 1 && lab[2] == 1 && lab[3] == 1);
	CHECK(clu_linkage(l, 4, CLU_COMPLETE, m, &e) == 0);
	clu_cut(m, 4, 2, lab);
	CHECK(lab[0] == 0 && lab[1] == 0 && lab[2] == 1 && lab[3] == 1);
	clu_cut(m, 4, 3, lab);
	CHECK(lab[0] == 0 && lab[1] == 1 && lab[2] == 2 && lab[3] == 2);
	clu_cut(m, 4, 1, lab);
	CHECK(lab[0] == 0 && lab[1] == 0 && lab[2] == 0 && lab[3] == 0);
	clu_cut(m, 4, 0, lab); /* clamped to 1 */
	CHECK(lab[0] == 0 && lab[3] == 0);
	clu_cut(m, 4, 9, lab); /* clamped to 4 */
	CHECK(lab[0] == 0 && lab[1] == 1 && lab[2] == 2 && lab[3] == 3);
}

/* Equal distances: the pair with the lowest slots goes first, every time. */
static void ties(void)
{
	static const double all1[] = { 1, 1, 1, 1, 1, 1 };
	const wmerge w[] = { { 0, 1, 1, 2 }, { 2, 4, 1, 3 }, { 3, 5, 1, 4 } };
	for (int l = CLU_WARD; l <= CLU_AVERAGE; l++) {
		if (l == CLU_WARD)
			continue; /* ward's heights grow with sizes: checked below */
		check_merges(all1, 4, (enum clu_linkage)l, w);
	}
	/* (0,1) and (2,3) both at 1: (0,1) first although (2,3) comes later in no order */
	static const double two[] = { 1, 5, 5, 5, 5, 1 };
	const wmerge w2[] = { { 0, 1, 1, 2 }, { 2, 3, 1, 2 }, { 4, 5, 5, 4 } };
	check_merges(two, 4, CLU_COMPLETE, w2);
	/* trace 3 closest to 0: labels follow the first trace of each cluster */
	static const double near03[] = { 9, 9, 1, 2, 9, 9 };
	clu_merge m[3];
	uint32_t lab[4];
	dt_err e;
	dt_err_clear(&e);
	CHECK(clu_linkage(near03, 4, CLU_AVERAGE, m, &e) == 0);
	clu_cut(m, 4, 2, lab);
	CHECK(lab[0] == 0 && lab[1] == 1 && lab[2] == 1 && lab[3] == 0);
	/* the same input twice gives the same output, bit for bit */
	enum { N = 40 };
	double *d = malloc(N * (N - 1) / 2 * sizeof *d);
	for (size_t k = 0; k < N * (N - 1) / 2; k++)
		d[k] = (double)((k * 7919) % 5) / 4; /* many ties */
	clu_merge a[N - 1], b[N - 1];
	for (int l = CLU_WARD; l <= CLU_MEDIAN; l++) {
		CHECK(clu_linkage(d, N, (enum clu_linkage)l, a, &e) == 0);
		CHECK(clu_linkage(d, N, (enum clu_linkage)l, b, &e) == 0);
		for (size_t s = 0; s < N - 1; s++)
			CHECK(a[s].a == b[s].a && a[s].b == b[s].b && a[s].height == b[s].height &&
			      a[s].size == b[s].size);
		/* every trace ends in the root exactly once: sizes add up */
		CHECK_EQ_INT(a[N - 2].size, N);
		for (size_t s = 0; s < N - 1; s++)
			CHECK(a[s].a < a[s].b && a[s].b < N + s);
	}
	free(d);
}

/* The primitive algorithm restated without a neighbour cache, for comparison on random input:
 * the closest pair of alive slots (lowest slots on ties), Lance-Williams on a full matrix. */
static void reference(const double *cd, size_t n, enum clu_linkage l, clu_merge *out)
{
	double *D = malloc(n * n * sizeof *D);
	uint32_t *id = malloc(n * sizeof *id), *sz = malloc(n * sizeof *sz);
	int *alive = malloc(n * sizeof *alive);
	for (size_t i = 0; i < n; i++) {
		id[i] = (uint32_t)i;
		sz[i] = 1;
		alive[i] = 1;
		for (size_t j = i + 1; j < n; j++)
			D[i * n + j] = D[j * n + i] = cd[clu_cidx(n, i, j)];
	}
	for (size_t s = 0; s + 1 < n; s++) {
		size_t bi = 0, bj = 0;
		double best = INFINITY;
		for (size_t i = 0; i < n; i++)
			for (size_t j = i + 1; j < n; j++)
				if (alive[i] && alive[j] && D[i * n + j] < best) {
					best = D[i * n + j];
					bi = i;
					bj = j;
				}
		double ni = sz[bi], nj = sz[bj];
		for (size_t k = 0; k < n; k++) {
			if (!alive[k] || k == bi || k == bj)
				continue;
			double a = D[k * n + bi], b = D[k * n + bj], c = best, nk = sz[k], v = 0;
			switch (l) {
			case CLU_SINGLE: v = fmin(a, b); break;
			case CLU_COMPLETE: v = fmax(a, b); break;
			case CLU_AVERAGE: v = (ni * a + nj * b) / (ni + nj); break;
			case CLU_WEIGHTED: v = (a + b) / 2; break;
			case CLU_WARD:
				v = sqrt(fmax(0, ((ni + nk) * a * a + (nj + nk) * b * b - nk * c * c) /
							 (ni + nj + nk)));
				break;
			case CLU_CENTROID:
				v = sqrt(fmax(0, (ni * a * a + nj * b * b) / (ni + nj) -
							 ni * nj * c * c / ((ni + nj) * (ni + nj))));
				break;
			case CLU_MEDIAN: v = sqrt(fmax(0, a * a / 2 + b * b / 2 - c * c / 4)); break;
			}
			D[k * n + bi] = D[bi * n + k] = v;
		}
		out[s].a = id[bi] < id[bj] ? id[bi] : id[bj];
		out[s].b = id[bi] < id[bj] ? id[bj] : id[bi];
		out[s].height = best;
		out[s].size = sz[bi] + sz[bj];
		alive[bj] = 0;
		id[bi] = (uint32_t)(n + s);
		sz[bi] += sz[bj];
	}
	free(D);
	free(id);
	free(sz);
	free(alive);
}

static void random_against_reference(void)
{
	uint64_t r = 88172645463325252ULL;
	enum { N = 30 };
	double d[N * (N - 1) / 2];
	clu_merge a[N - 1], b[N - 1];
	dt_err e;
	dt_err_clear(&e);
	for (int t = 0; t < 60; t++) {
		size_t n = 2 + (size_t)t % (N - 1);
		for (size_t k = 0; k < n * (n - 1) / 2; k++) {
			r ^= r << 13;
			r ^= r >> 7;
			r ^= r << 17;
			d[k] = t % 2 ? (double)(r % 1000) / 999 : (double)(r % 4) / 3; /* ties */
		}
		for (int l = CLU_WARD; l <= CLU_MEDIAN; l++) {
			CHECK(clu_linkage(d, n, (enum clu_linkage)l, a, &e) == 0);
			reference(d, n, (enum clu_linkage)l, b);
			for (size_t s = 0; s + 1 < n; s++)
				if (a[s].a != b[s].a || a[s].b != b[s].b || a[s].size != b[s].size ||
				    a[s].height != b[s].height) {
					fprintf(stderr, "%s n=%zu merge %zu differs\n",
						clu_linkage_name((enum clu_linkage)l), n, s);
					check_failures++;
					break;
				}
		}
	}
}

static void bad_input(void)
{
	dt_err e;
	dt_err_clear(&e);
	clu_merge m[3];
	double d[] = { 1, 2, -1, 3, 4, 5 };
	CHECK(clu_linkage(d, 4, CLU_WARD, m, &e) == -1);
	CHECK(strstr(e.msg, "not a non-negative number") != NULL);
	dt_err_clear(&e);
	d[2] = NAN;
	CHECK(clu_linkage(d, 4, CLU_WARD, m, &e) == -1);
	dt_err_clear(&e);
	CHECK(clu_linkage(d, 1, CLU_WARD, m, &e) == 0); /* nothing to merge */
	enum clu_linkage l;
	CHECK(clu_linkage_parse("average", &l, &e) == 0 && l == CLU_AVERAGE);
	CHECK(clu_linkage_parse("ward", &l, &e) == 0 && l == CLU_WARD);
	CHECK(clu_linkage_parse("wards", &l, &e) == -1);
	CHECK_EQ_INT(e.status, DT_EUSAGE);
	CHECK_EQ_STR(clu_linkage_name(CLU_MEDIAN), "median");
}

static void auto_k(void)
{
	/* heights 1 2 4 (single above): the gap 2 -> 4 leaves two clusters */
	clu_merge m[5] = { { 0, 1, 1, 2 }, { 2, 4, 2, 3 }, { 3, 5, 4, 4 } };
	CHECK_EQ_INT(clu_auto_k(m, 4, 10), 2);
	CHECK_EQ_INT(clu_auto_k(m, 4, 1), 1);
	/* heights 0 0 .5 .75 1 over six traces: the jump from 0 to .5 leaves four classes */
	clu_merge h[5] = { { 0, 1, 0, 2 },   { 2, 6, 0, 3 },   { 3, 4, .5, 2 },
			   { 5, 8, .75, 2 }, { 7, 9, 1.0, 6 } };
	CHECK_EQ_INT(clu_auto_k(h, 6, 10), 4);
	/* capped at 3: the two small gaps tie, the smaller k wins */
	CHECK_EQ_INT(clu_auto_k(h, 6, 3), 2);
	/* all identical: nothing separates them */
	clu_merge z[3] = { { 0, 1, 0, 2 }, { 2, 4, 0, 3 }, { 3, 5, 0, 4 } };
	CHECK_EQ_INT(clu_auto_k(z, 4, 10), 1);
	/* all unlike each other at one distance: each its own class, unless the cap forbids */
	clu_merge u[3] = { { 0, 1, 1, 2 }, { 2, 4, 1, 3 }, { 3, 5, 1, 4 } };
	CHECK_EQ_INT(clu_auto_k(u, 4, 10), 4);
	CHECK_EQ_INT(clu_auto_k(u, 4, 3), 1);
	CHECK_EQ_INT(clu_auto_k(u, 1, 3), 1);
	CHECK_EQ_INT(clu_auto_k(u, 0, 3), 0);
}

static void identical(void)
{
	/* rows A B A C B, and two empty rows: classes in order of first trace */
	ctx_bits c;
	ctx_init(&c, 7, 130);
	size_t A[] = { 0, 1, 129 }, B[] = { 1, 64 }, C[] = { 0, 1, 128 };
	for (int i = 0; i < 3; i++) {
		ctx_set(&c, 0, A[i]);
		ctx_set(&c, 2, A[i]);
		ctx_set(&c, 3, C[i]);
	}
	for (int i = 0; i < 2; i++) {
		ctx_set(&c, 1, B[i]);
		ctx_set(&c, 4, B[i]);
	}
	uint32_t lab[7];
	CHECK_EQ_INT(clu_identical(&c, lab), 4);
	static const uint32_t want[] = { 0, 1, 0, 2, 1, 3, 3 };
	CHECK(memcmp(lab, want, sizeof want) == 0);
	/* the JSM agrees: identical rows are at distance 0, empty ones included */
	double J[49], d[21];
	jac_matrix(&c, J);
	clu_condensed_from_jsm(J, 7, d);
	CHECK_NEAR(d[clu_cidx(7, 0, 2)], 0);
	CHECK_NEAR(d[clu_cidx(7, 5, 6)], 0);
	CHECK_NEAR(d[clu_cidx(7, 0, 1)], 1 - 1.0 / 4);
	CHECK_NEAR(d[clu_cidx(7, 0, 3)], 1 - 2.0 / 4);
	CHECK_NEAR(d[clu_cidx(7, 0, 5)], 1);
	ctx_free(&c);
	ctx_init(&c, 0, 0);
	CHECK_EQ_INT(clu_identical(&c, lab), 0);
	ctx_free(&c);
}

/* ---- compact P.T sets ---- */

static void fmt_is(const ptr_pt *p, size_t n, const char *want)
{
	char *s = ptr_format(p, n);
	CHECK_EQ_STR(s, want);
	/* and it reads back as the same set */
	ptr_pt *q;
	size_t nq;
	dt_err e;
	dt_err_clear(&e);
	CHECK(ptr_parse(s, &q, &nq, &e) == 0);
	char *t = ptr_format(q, nq);
	CHECK_EQ_STR(t, want);
	free(t);
	free(q);
	free(s);
}

static void ranges(void)
{
	static const uint32_t v[] = { 5, 3, 0, 1, 2, 3 };
	char *s = ptr_format_list(v, 6);
	CHECK_EQ_STR(s, "0-3,5");
	free(s);
	s = ptr_format_list(v, 0);
	CHECK_EQ_STR(s, "");
	free(s);
	static const uint32_t w[] = { 9, 4, 7, 5 };
	s = ptr_format_list(w, 4);
	CHECK_EQ_STR(s, "4-5,7,9");
	free(s);
	static const uint32_t big[] = { 4294967295u, 10, 0, 99, 100, 101 };
	s = ptr_format_list(big, 6);
	CHECK_EQ_STR(s, "0,10,99-101,4294967295");
	free(s);

	const ptr_pt u[] = { { 5, 0 }, { 0, 0 }, { 1, 0 }, { 2, 0 }, { 3, 0 }, { 1, 0 } };
	fmt_is(u, 6, "P 0-3,5 T 0");
	const ptr_pt one[] = { { 2, 3 }, { 2, 0 }, { 2, 1 }, { 2, 2 }, { 2, 7 } };
	fmt_is(one, 5, "P 2 T 0-3,7");
	const ptr_pt g[] = { { 0, 0 }, { 0, 1 }, { 0, 2 }, { 3, 1 }, { 5, 0 }, { 5, 1 } };
	fmt_is(g, 6, "0.0-2, 3.1, 5.0-1");
	const ptr_pt br[] = { { 0, 0 }, { 0, 2 }, { 1, 0 }, { 1, 2 }, { 4, 2 }, { 4, 0 }, { 2, 0 } };
	fmt_is(br, 7, "[0-1,4].[0,2], 2.0");
	fmt_is(u, 0, "");

	/* spaces and brackets are optional where nothing is ambiguous */
	ptr_pt *q;
	size_t nq;
	dt_err e;
	dt_err_clear(&e);
	CHECK(ptr_parse(" P [0-1, 3] T 0,2 ", &q, &nq, &e) == 0);
	CHECK_EQ_INT(nq, 6);
	CHECK(q[0].p == 0 && q[0].t == 0 && q[1].p == 0 && q[1].t == 2 && q[5].p == 3);
	free(q);
	CHECK(ptr_parse("3.1,0.0-2", &q, &nq, &e) == 0);
	CHECK_EQ_INT(nq, 4);
	CHECK(q[0].p == 0 && q[3].p == 3 && q[3].t == 1);
	free(q);

	static const char *const bad[] = { "P 0-3",   "0.",       "3-1.0",    "0.0,",
					   "x",       "P 0 T 0 z", "[0,1.0",  "0.0 1.1",
					   "0-1,2.0", "99999999999.0", "P 0-4000000000 T 0-10" };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		dt_err_clear(&e);
		q = NULL;
		if (ptr_parse(bad[i], &q, &nq, &e) == 0) {
			fprintf(stderr, "parsed bad set '%s'\n", bad[i]);
			check_failures++;
			free(q);
		}
		CHECK_EQ_INT(e.status, DT_EUSAGE);
		CHECK(strstr(e.msg, "column") != NULL);
	}
	dt_err_clear(&e);
	CHECK(ptr_parse("0.0 1.1", &q, &nq, &e) == -1);
	CHECK(strstr(e.msg, "column 5: expected ','") != NULL);

	/* random sets: print, read back, same set */
	uint64_t r = 1234567;
	for (int t = 0; t < 300; t++) {
		ptr_pt p[40];
		size_t n = (size_t)t % 40;
		for (size_t i = 0; i < n; i++) {
			r = r * 6364136223846793005ULL + 1442695040888963407ULL;
			p[i].p = (uint32_t)(r >> 33) % 9;
			p[i].t = (uint32_t)(r >> 45) % (t % 3 ? 4 : 1);
		}
		char *x = ptr_format(p, n);
		CHECK(ptr_parse(x, &q, &nq, &e) == 0);
		/* q is the distinct pairs of p, sorted */
		size_t distinct = 0;
		for (size_t i = 0; i < n; i++) {
			int seen = 0;
			for (size_t j = 0; j < i; j++)
				seen |= p[j].p == p[i].p && p[j].t == p[i].t;
			distinct += !seen;
			int found = 0;
			for (size_t j = 0; j < nq; j++)
				found |= q[j].p == p[i].p && q[j].t == p[i].t;
			CHECK(found);
		}
		CHECK_EQ_INT(nq, distinct);
		for (size_t j = 1; j < nq; j++)
			CHECK(q[j - 1].p < q[j].p || (q[j - 1].p == q[j].p && q[j - 1].t < q[j].t));
		free(q);
		free(x);
	}
}

int main(void)
{
	by_hand();
	ties();
	random_against_reference();
	bad_input();
	auto_k();
	identical();
	ranges();
	CHECK_DONE();
}
