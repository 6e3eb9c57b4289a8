/* test_collapse: the analysis over classes of identical traces gives the results of the full
 * n x n computation, exactly: the dendrogram (every merge, height bits included), every cut,
 * JSM_D, the orderings, the top pairs, the outliers and the B-score, on random contexts with
 * repeated rows under every linkage; and, given store paths, the cached analyses of every run
 * computed both ways (an_params.uncollapsed) and every pair of runs compared both ways. */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/cluster.h"
#include "analysis/jaccard.h"
#include "analysis/rank.h"
#include "check.h"
#include "util/util.h"

static uint64_t rng = 88172645463325252ull;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

/* n objects drawn from d distinct random rows of m attributes (some rows may coincide). */
static void random_ctx(ctx_bits *c, size_t n, size_t d, size_t m)
{
	ctx_bits base;
	ctx_init(&base, d, m);
	for (size_t i = 0; i < d; i++)
		for (size_t a = 0; a < m; a++)
			if (rnd(3) == 0)
				ctx_set(&base, i, a);
	ctx_init(c, n, m);
	for (size_t i = 0; i < n; i++)
		memcpy(ctx_row(c, i), ctx_row(&base, rnd((uint32_t)d)), c->words * sizeof *c->bits);
	ctx_free(&base);
}

/* The JSM as the store keeps it (float32), back as doubles. */
static double *jsm_of(const ctx_bits *c)
{
	double *j = xmalloc((c->n ? c->n * c->n : 1) * sizeof *j);
	jac_matrix(c, j);
	for (size_t i = 0; i < c->n * c->n; i++)
		j[i] = (double)(float)j[i];
	return j;
}

/* The rows of a context with one row per class, and the classes. */
static size_t collapse(const ctx_bits *c, uint32_t *cls, ctx_bits *cc, uint32_t **mult)
{
	size_t d = clu_identical(c, cls);
	ctx_init(cc, d, c->m);
	*mult = xcalloc(d ? d : 1, sizeof **mult);
	for (size_t i = 0; i < c->n; i++) {
		memcpy(ctx_row(cc, cls[i]), ctx_row(c, i), c->words * sizeof *c->bits);
		(*mult)[cls[i]]++;
	}
	return d;
}

static int same_merges(const clu_merge *a, const clu_merge *b, size_t n)
{
	for (size_t s = 0; s + 1 < n; s++)
		if (a[s].a != b[s].a || a[s].b != b[s].b || a[s].size != b[s].size ||
		    memcmp(&a[s].height, &b[s].height, sizeof a[s].height))
			return 0;
	return 1;
}

/* One random run, every linkage: full dendrogram vs class dendrogram, every cut. */
static void test_dendrogram(size_t n, size_t d, size_t m)
{
	ctx_bits c, cc;
	random_ctx(&c, n, d, m);
	uint32_t *cls = xmalloc(n * sizeof *cls), *mult;
	size_t nc = collapse(&c, cls, &cc, &mult);
	double *jf = jsm_of(&c), *jc = jsm_of(&cc);
	/* the matrix: each pair's value is its classes' */
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++)
			if (jf[i * n + j] != jc[cls[i] * nc + cls[j]])
				CHECK(!"matrix value differs");
	double *dist = xmalloc((n * (n - 1) / 2 + 1) * sizeof *dist);
	clu_condensed_from_jsm(jf, n, dist);
	clu_merge *full = xmalloc(n * sizeof *full), *cm = xmalloc(n * sizeof *cm);
	clu_merge *ex = xmalloc(n * sizeof *ex);
	uint32_t *l1 = xmalloc(n * sizeof *l1), *l2 = xmalloc(n * sizeof *l2);
	dt_err e;
	dt_err_clear(&e);
	for (int l = CLU_WARD; l <= CLU_MEDIAN; l++) {
		CHECK(clu_linkage(dist, n, (enum clu_linkage)l, full, &e) == 0);
		CHECK(clu_linkage_classes(jc, nc, mult, (enum clu_linkage)l, cm, &e) == 0);
		clu_expand_merges(cm, nc, cls, n, ex);
		if (!same_merges(full, ex, n)) {
			fprintf(stderr, "linkage %s, n %zu, %zu classes: dendrograms differ\n",
				clu_linkage_name((enum clu_linkage)l), n, nc);
			CHECK(!"same dendrogram");
		}
		for (size_t k = 1; k <= n; k++) {
			clu_cut(full, n, k, l1);
			clu_cut_classes(cm, nc, cls, n, k, l2);
			if (memcmp(l1, l2, n * sizeof *l1)) {
				fprintf(stderr, "linkage %s, cut %zu differs\n",
					clu_linkage_name((enum clu_linkage)l), k);
				CHECK(!"same cut");
				break;
			}
		}
		size_t kmax = n < 16 ? n : 16;
		CHECK_EQ_INT(clu_auto_k(full, n, kmax),
			     nc > 1 ? clu_auto_k(cm, nc, kmax < nc ? kmax : nc) : 1);
	}
	free(l1);
	free(l2);
	free(ex);
	free(cm);
	free(full);
	free(dist);
	free(jf);
	free(jc);
	free(mult);
	free(cls);
	ctx_free(&c);
	ctx_free(&cc);
}

struct fullcuts {
	size_t n;
	const clu_merge *a, *b;
};

static int fullcut(void *ctx, size_t k, int *la, int *lb, dt_err *e)
{
	(void)e;
	struct fullcuts *f = ctx;
	uint32_t *x = xmalloc(f->n * sizeof *x), *y = xmalloc(f->n * sizeof *y);
	clu_cut(f->a, f->n, k, x);
	clu_cut(f->b, f->n, k, y);
	for (size_t i = 0; i < f->n; i++) {
		la[i] = (int)x[i];
		lb[i] = (int)y[i];
	}
	free(x);
	free(y);
	return 0;
}

/* Two random runs of the same n traces: JSM_D, orderings, pairs, outliers and the B-score. */
static void test_compare(size_t n, size_t d, size_t m, enum clu_linkage l)
{
	ctx_bits cn, cf, ccn, ccf;
	random_ctx(&cn, n, d, m);
	random_ctx(&cf, n, d + 1, m);
	uint32_t *clsn = xmalloc(n * sizeof *clsn), *clsf = xmalloc(n * sizeof *clsf), *mn, *mf;
	size_t dn = collapse(&cn, clsn, &ccn, &mn), df = collapse(&cf, clsf, &ccf, &mf);
	double *jn = jsm_of(&cn), *jf = jsm_of(&cf), *jcn = jsm_of(&ccn), *jcf = jsm_of(&ccf);
	rank_key *k = xmalloc(n * sizeof *k);
	for (size_t i = 0; i < n; i++)
		k[i] = (rank_key){ (int)(i / 4), (int)(i % 4) };
	dt_err e;
	dt_err_clear(&e);
	rank_jsmd a, b;
	CHECK(rank_jsmd_build(k, jn, n, k, jf, n, &a, &e) == 0);
	CHECK(rank_jsmd_build_rows(k, clsn, jcn, dn, n, k, clsf, jcf, df, n, &b, &e) == 0);
	CHECK_EQ_INT(a.n, b.n);
	CHECK(b.nc <= (dn * df < n ? dn * df : n));
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++)
			if (rank_jsmd_at(&a, i, j) != rank_jsmd_at(&b, i, j))
				CHECK(!"JSM_D differs");
	/* a diagonal of one's own, as analysis_compare sets it, per class */
	for (size_t c = 0; c < b.nc; c++)
		b.diag[c] = (double)rnd(1000) / 997.0;
	for (size_t i = 0; i < n; i++)
		a.diag[i] = b.diag[b.cls[i]];
	double *sa = xmalloc(n * sizeof *sa), *sb = xmalloc(b.nc * sizeof *sb);
	rank_jsmd_rowsums(&a, sa);
	rank_jsmd_rowsums(&b, sb);
	for (size_t i = 0; i < n; i++)
		if (sa[i] != sb[b.cls[i]])
			CHECK(!"row sums differ");
	rank_item *ia = xmalloc(n * sizeof *ia), *ib = xmalloc(n * sizeof *ib);
	CHECK_EQ_INT(rank_order(&a, n, ia), n);
	CHECK_EQ_INT(rank_order(&b, n, ib), n);
	for (size_t i = 0; i < n; i++)
		if (ia[i].i != ib[i].i || ia[i].score != ib[i].score)
			CHECK(!"orderings differ");
	/* the dense pairs from the full JSM_D (upper triangle) */
	double *dd = xmalloc(n * n * sizeof *dd);
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++)
			dd[i * n + j] = rank_jsmd_at(&a, i, j);
	size_t top = n * 2;
	rank_pair *pa = xmalloc(top * sizeof *pa), *pb = xmalloc(top * sizeof *pb);
	size_t na = rank_top_pairs(dd, n, top, pa), nb = rank_jsmd_top_pairs(&b, top, pb);
	CHECK_EQ_INT(na, nb);
	for (size_t i = 0; i < na && i < nb; i++)
		if (pa[i].i != pb[i].i || pa[i].j != pb[i].j || pa[i].score != pb[i].score) {
			fprintf(stderr, "pair %zu: %zu.%zu %g vs %zu.%zu %g\n", i, pa[i].i, pa[i].j,
				pa[i].score, pb[i].i, pb[i].j, pb[i].score);
			CHECK(!"top pairs differ");
			break;
		}
	/* outliers against the clusters at 3 */
	clu_merge *fa = xmalloc(n * sizeof *fa), *fb = xmalloc(n * sizeof *fb);
	clu_merge *ca = xmalloc(n * sizeof *ca), *cb = xmalloc(n * sizeof *cb);
	double *dist = xmalloc(n * n * sizeof *dist);
	clu_condensed_from_jsm(jn, n, dist);
	CHECK(clu_linkage(dist, n, l, fa, &e) == 0);
	clu_condensed_from_jsm(jf, n, dist);
	CHECK(clu_linkage(dist, n, l, fb, &e) == 0);
	CHECK(clu_linkage_classes(jcn, dn, mn, l, ca, &e) == 0);
	CHECK(clu_linkage_classes(jcf, df, mf, l, cb, &e) == 0);
	uint32_t *lab = xmalloc(n * sizeof *lab);
	int *cl = xmalloc(n * sizeof *cl);
	clu_cut(fa, n, 3, lab);
	for (size_t i = 0; i < n; i++)
		cl[i] = (int)lab[i];
	rank_outlier *oa = xmalloc(n * sizeof *oa), *ob = xmalloc(n * sizeof *ob);
	CHECK(rank_outliers(jn, cl, n, oa, &e) == 0);
	CHECK(rank_outliers_rows(jcn, dn, clsn, cl, n, ob, &e) == 0);
	for (size_t i = 0; i < n; i++)
		if (oa[i].i != ob[i].i || oa[i].score != ob[i].score ||
		    oa[i].class_size != ob[i].class_size)
			CHECK(!"outliers differ");
	/* the B-score: every B_k */
	double ma, mb2, *ba = xmalloc(n * sizeof *ba), *bb = xmalloc(n * sizeof *bb);
	struct fullcuts fc = { n, fa, fb };
	CHECK(rank_bscore_mean(n, fullcut, &fc, &ma, ba, &e) == 0);
	CHECK(rank_bscore_mean_classes(n, clsn, ca, dn, clsf, cb, df, &mb2, bb) == 0);
	CHECK(ma == mb2);
	for (size_t q = 0; q + 2 < n; q++)
		if (ba[q] != bb[q]) {
			fprintf(stderr, "B_%zu: %.17g vs %.17g\n", q + 2, ba[q], bb[q]);
			CHECK(!"B_k differs");
			break;
		}
	free(ba);
	free(bb);
	free(oa);
	free(ob);
	free(lab);
	free(cl);
	free(dist);
	free(fa);
	free(fb);
	free(ca);
	free(cb);
	free(pa);
	free(pb);
	free(dd);
	free(ia);
	free(ib);
	free(sa);
	free(sb);
	rank_jsmd_free(&a);
	rank_jsmd_free(&b);
	free(k);
	free(jn);
	free(jf);
	free(jcn);
	free(jcf);
	free(mn);
	free(mf);
	free(clsn);
	free(clsf);
	ctx_free(&cn);
	ctx_free(&cf);
	ctx_free(&ccn);
	ctx_free(&ccf);
}

/* ---- stores: the cached analyses computed both ways ---- */

static int run_both(store *s, const store_run *run, const an_params *p, an_result *rc,
		    an_result *ru, dt_err *e)
{
	int64_t id;
	int reused;
	an_params q = *p;
	q.force = 1;
	q.uncollapsed = 1;
	if (analysis_run(s, run, &q, &id, &reused, e) || analysis_load(s, id, ru, e))
		return -1;
	fca_lattice L;
	char *why;
	int g = analysis_lattice(s, id, &L, &why, e);
	q.uncollapsed = 0;
	if (analysis_run(s, run, &q, &id, &reused, e) || analysis_load(s, id, rc, e))
		return -1;
	fca_lattice M;
	char *why2;
	int h = analysis_lattice(s, id, &M, &why2, e);
	CHECK_EQ_INT(g, h);
	if (g == 1 && h == 1) {
		CHECK_EQ_INT(L.nconcepts, M.nconcepts);
		CHECK_EQ_INT(L.n, M.n);
		for (size_t c = 0; c < L.nconcepts && c < M.nconcepts; c++) {
			CHECK(L.c[c].next == M.c[c].next && L.c[c].nint == M.c[c].nint);
			CHECK(!memcmp(L.c[c].extent, M.c[c].extent, ctx_words(L.n) * 8));
			CHECK(!memcmp(L.c[c].intent, M.c[c].intent, ctx_words(L.m) * 8));
			CHECK(L.c[c].ndown == M.c[c].ndown &&
			      !memcmp(L.c[c].down, M.c[c].down, L.c[c].ndown * sizeof *L.c[c].down));
		}
		for (size_t i = 0; i < L.n; i++)
			CHECK(L.obj_concept[i] == M.obj_concept[i]);
	}
	if (g == 1)
		fca_free(&L);
	if (h == 1)
		fca_free(&M);
	free(why);
	free(why2);
	/* classes, matrix, clusters at every cut */
	CHECK_EQ_INT(rc->n, ru->n);
	CHECK_EQ_INT(ru->nrows, ru->n);
	CHECK_EQ_INT(rc->nrows, rc->nidentical);
	CHECK_EQ_INT(rc->kcut, ru->kcut);
	size_t n = rc->n;
	CHECK(!memcmp(rc->identical, ru->identical, n * sizeof *rc->identical));
	CHECK(!memcmp(rc->cluster, ru->cluster, n * sizeof *rc->cluster));
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++)
			if (analysis_sim(rc, i, j) != analysis_sim(ru, i, j))
				CHECK(!"stored matrix differs");
	uint32_t *l1 = xmalloc(n * sizeof *l1), *l2 = xmalloc(n * sizeof *l2);
	for (size_t k = 1; k <= n; k++) {
		clu_cut_classes(rc->merges, rc->nrows, rc->row, n, k, l1);
		clu_cut_classes(ru->merges, ru->nrows, ru->row, n, k, l2);
		if (memcmp(l1, l2, n * sizeof *l1)) {
			CHECK(!"stored clustering differs");
			break;
		}
	}
	free(l1);
	free(l2);
	return 0;
}

static void compare_both(store *s, an_result *rn, an_result *rf, enum clu_linkage l)
{
	(void)s;
	rank_jsmd a, b;
	double ba, bb;
	dt_err e;
	dt_err_clear(&e);
	CHECK(analysis_compare(&rn[0], &rf[0], l, &a, &ba, &e) == 0);
	CHECK(analysis_compare(&rn[1], &rf[1], l, &b, &bb, &e) == 0);
	CHECK(ba == bb || (isnan(ba) && isnan(bb)));
	CHECK_EQ_INT(a.n, b.n);
	size_t n = a.n < b.n ? a.n : b.n;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++)
			if (rank_jsmd_at(&a, i, j) != rank_jsmd_at(&b, i, j))
				CHECK(!"stored JSM_D differs");
	rank_item *ia = xmalloc((n ? n : 1) * sizeof *ia), *ib = xmalloc((n ? n : 1) * sizeof *ib);
	rank_order(&a, n, ia);
	rank_order(&b, n, ib);
	for (size_t i = 0; i < n; i++)
		if (ia[i].i != ib[i].i || ia[i].score != ib[i].score)
			CHECK(!"stored orderings differ");
	rank_pair *pa = xmalloc(64 * sizeof *pa), *pb = xmalloc(64 * sizeof *pb);
	size_t na = rank_jsmd_top_pairs(&a, 64, pa), nb = rank_jsmd_top_pairs(&b, 64, pb);
	CHECK_EQ_INT(na, nb);
	for (size_t i = 0; i < na && i < nb; i++)
		CHECK(pa[i].i == pb[i].i && pa[i].j == pb[i].j && pa[i].score == pb[i].score);
	free(pa);
	free(pb);
	free(ia);
	free(ib);
	rank_jsmd_free(&a);
	rank_jsmd_free(&b);
}

/* The worker pool: progress reported, the last report complete, and the results of two
 * threads those of one. */
struct prog {
	size_t calls;
	uint64_t done, total;
};

static void on_progress(void *arg, uint64_t done, uint64_t total)
{
	struct prog *g = arg;
	g->calls++;
	CHECK(done <= total);
	g->done = done;
	g->total = total;
}

static void test_pool(store *s, const store_run *run)
{
	dt_err e;
	dt_err_clear(&e);
	an_result r[2];
	for (int t = 0; t < 2; t++) {
		an_params p = { 0 };
		CHECK(attrs_mode_parse_args(AN_DEFAULT_ATTRS, &p.mode, &p.args, &e) == 0);
		p.threads = t + 1;
		p.force = 1;
		struct prog g = { 0 };
		p.progress = on_progress;
		p.progress_arg = &g;
		int64_t id;
		int reused;
		CHECK(analysis_run(s, run, &p, &id, &reused, &e) == 0);
		CHECK(g.calls >= 1 && g.done == g.total && g.total >= (uint64_t)run->nevents);
		CHECK(analysis_load(s, id, &r[t], &e) == 0);
	}
	CHECK_EQ_INT(r[0].nrows, r[1].nrows);
	CHECK(!memcmp(r[0].identical, r[1].identical, r[0].n * sizeof *r[0].identical));
	CHECK(!memcmp(r[0].jsm, r[1].jsm, r[0].nrows * r[0].nrows * sizeof *r[0].jsm));
	CHECK(same_merges(r[0].merges, r[1].merges, r[0].nrows));
	analysis_result_free(&r[0]);
	analysis_result_free(&r[1]);
}

/* An analysis cached before the collapse (a dense n x n matrix, no row map, an older version)
 * still reads back, with one row per trace, and is stale. The uncollapsed analysis stands in
 * for one: its row map is deleted and its version set back. */
static void test_dense(store **s, const char *path, const store_run *run)
{
	dt_err e;
	dt_err_clear(&e);
	an_params p = { 0 };
	CHECK(attrs_mode_parse_args(AN_DEFAULT_ATTRS, &p.mode, &p.args, &e) == 0);
	p.force = 1;
	p.uncollapsed = 1;
	int64_t id;
	int reused;
	an_result a, b;
	CHECK(analysis_run(*s, run, &p, &id, &reused, &e) == 0);
	CHECK(analysis_load(*s, id, &a, &e) == 0);
	store_close(*s);
	sqlite3 *db;
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	char sql[256];
	snprintf(sql, sizeof sql,
		 "DELETE FROM analysis_blobs WHERE analysis_id = %lld AND key = 'rows';"
		 "UPDATE analyses SET version = 'difftrace-analysis-3' WHERE id = %lld;",
		 (long long)id, (long long)id);
	CHECK(sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_close(db);
	CHECK(store_open(path, STORE_OPEN_EXISTING, s, &e) == 0);
	CHECK(analysis_load(*s, id, &b, &e) == 0);
	CHECK_EQ_INT(b.nrows, b.n);
	CHECK(!memcmp(a.jsm, b.jsm, a.nrows * a.nrows * sizeof *a.jsm));
	CHECK(!memcmp(a.cluster, b.cluster, a.n * sizeof *a.cluster));
	CHECK(!memcmp(a.identical, b.identical, a.n * sizeof *a.identical));
	fca_lattice L;
	char *why = NULL;
	int g = analysis_lattice(*s, id, &L, &why, &e);
	CHECK(g >= 0);
	if (g == 1) {
		CHECK_EQ_INT(L.n, a.n);
		fca_free(&L);
	}
	free(why);
	int64_t id2;
	p.uncollapsed = 0;
	CHECK(analysis_lookup(*s, run, &p, &id2, &e) == 0); /* stale: to be computed again */
	analysis_result_free(&a);
	analysis_result_free(&b);
}

static void test_store(const char *path)
{
	store *s;
	dt_err e;
	dt_err_clear(&e);
	if (store_open(path, STORE_OPEN_EXISTING, &s, &e)) {
		fprintf(stderr, "%s: %s\n", path, e.msg);
		CHECK(!"store opens");
		return;
	}
	store_run *runs;
	size_t nruns;
	CHECK(store_run_list(s, &runs, &nruns, &e) == 0);
	if (nruns) {
		test_pool(s, &runs[0]);
		test_dense(&s, path, &runs[0]);
	}
	const char *modes[] = { AN_DEFAULT_ATTRS, "doub.log10.w", "sing.orig" };
	for (size_t mi = 0; mi < 3; mi++)
		for (int l = CLU_WARD; l <= CLU_MEDIAN; l += 2) {
			an_params p = { 0 };
			CHECK(attrs_mode_parse_args(modes[mi], &p.mode, &p.args, &e) == 0);
			p.k = AN_DEFAULT_K;
			p.linkage = (enum clu_linkage)l;
			p.threads = 1;
			an_result (*r)[2] = xcalloc(nruns ? nruns : 1, sizeof *r);
			for (size_t i = 0; i < nruns; i++)
				if (run_both(s, &runs[i], &p, &r[i][0], &r[i][1], &e)) {
					fprintf(stderr, "%s: %s\n", runs[i].name, e.msg);
					CHECK(!"analysis");
				}
			for (size_t i = 0; i < nruns; i++)
				for (size_t j = 0; j < nruns; j++)
					if (i != j)
						compare_both(s, r[i], r[j], (enum clu_linkage)l);
			for (size_t i = 0; i < nruns; i++) {
				analysis_result_free(&r[i][0]);
				analysis_result_free(&r[i][1]);
			}
			free(r);
		}
	store_runs_free(runs, nruns);
	store_close(s);
}

/* Random classes of n traces, numbered in order of their first trace, d of them (d <= n); one
 * in two traces after the first d is in the first trace's class, so it holds over 256 from 600
 * traces on. */
static void random_classes(size_t n, size_t d, uint32_t *cls)
{
	uint32_t *ren = xmalloc(d * sizeof *ren), next = 0;
	for (size_t c = 0; c < d; c++)
		ren[c] = UINT32_MAX;
	for (size_t i = 0; i < n; i++) {
		/* every class has a trace */
		uint32_t c = i < d ? (uint32_t)i : rnd(2) ? 0 : rnd((uint32_t)d);
		if (ren[c] == UINT32_MAX)
			ren[c] = next++;
		cls[i] = ren[c];
	}
	free(ren);
}

/* The B-score of two runs of n traces in few classes of hundreds of traces each (issue 19: 2,048
 * traces in 12 and 13 classes crashed rank_bscore_mean_classes, whose count of a class's traces
 * wrapped at 256), da != db both ways: every B_k as the full dendrograms' cuts give it. */
static void test_bscore_large(size_t n, size_t da, size_t db)
{
	uint32_t *ca = xmalloc(n * sizeof *ca), *cb = xmalloc(n * sizeof *cb);
	random_classes(n, da, ca);
	random_classes(n, db, cb);
	ctx_bits xa, xb;
	random_ctx(&xa, da, da, 24);
	random_ctx(&xb, db, db, 24);
	double *ja = jsm_of(&xa), *jb = jsm_of(&xb);
	uint32_t *ma = xcalloc(da, sizeof *ma), *mb = xcalloc(db, sizeof *mb);
	for (size_t i = 0; i < n; i++) {
		ma[ca[i]]++;
		mb[cb[i]]++;
	}
	clu_merge *ga = xmalloc(da * sizeof *ga), *gb = xmalloc(db * sizeof *gb);
	clu_merge *fa = xmalloc(n * sizeof *fa), *fb = xmalloc(n * sizeof *fb);
	dt_err e;
	dt_err_clear(&e);
	CHECK(clu_linkage_classes(ja, da, ma, CLU_WARD, ga, &e) == 0);
	CHECK(clu_linkage_classes(jb, db, mb, CLU_WARD, gb, &e) == 0);
	clu_expand_merges(ga, da, ca, n, fa);
	clu_expand_merges(gb, db, cb, n, fb);
	double m1 = 0, m2 = 0, *b1 = xmalloc(n * sizeof *b1), *b2 = xmalloc(n * sizeof *b2);
	struct fullcuts fc = { n, fa, fb };
	CHECK(rank_bscore_mean_classes(n, ca, ga, da, cb, gb, db, &m2, b2) == 0);
	CHECK(m2 >= 0 && m2 <= 1);
	/* every cut up to 4,096 traces; beyond, the full cuts cost O(n) each: the first 60, one
	 * in 97 and the last (n - 1) */
	int every = n <= 4096;
	if (every) {
		CHECK(rank_bscore_mean(n, fullcut, &fc, &m1, b1, &e) == 0);
		if (m1 != m2)
			fprintf(stderr, "n %zu, %zu and %zu classes: mean B %.17g vs %.17g\n", n, da,
				db, m1, m2);
		CHECK(m1 == m2);
	}
	int *la = xmalloc(n * sizeof *la), *lb = xmalloc(n * sizeof *lb);
	for (size_t k = 2; k + 1 <= n; k++) {
		if (!every) {
			if (k > 62 && k % 97 && k != n - 1)
				continue;
			CHECK(fullcut(&fc, k, la, lb, &e) == 0);
			b1[k - 2] = rank_bscore(la, lb, n);
		}
		if (b1[k - 2] != b2[k - 2] || !(b2[k - 2] >= 0 && b2[k - 2] <= 1)) {
			fprintf(stderr, "n %zu: B_%zu: %.17g vs %.17g\n", n, k, b1[k - 2], b2[k - 2]);
			CHECK(!"B_k differs");
			break;
		}
	}
	free(la);
	free(lb);
	free(b1);
	free(b2);
	free(fa);
	free(fb);
	free(ga);
	free(gb);
	free(ma);
	free(mb);
	free(ja);
	free(jb);
	ctx_free(&xa);
	ctx_free(&xb);
	free(ca);
	free(cb);
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		for (int i = 1; i < argc; i++)
			test_store(argv[i]);
		CHECK_DONE();
	}
	size_t sizes[][3] = { { 2, 1, 4 },   { 3, 2, 4 },    { 12, 3, 6 },  { 40, 5, 8 },
			      { 64, 40, 10 }, { 90, 12, 12 }, { 130, 2, 3 }, { 200, 30, 16 } };
	for (size_t t = 0; t < sizeof sizes / sizeof *sizes; t++)
		for (int rep = 0; rep < 4; rep++)
			test_dendrogram(sizes[t][0], sizes[t][1], sizes[t][2]);
	for (size_t t = 0; t < sizeof sizes / sizeof *sizes; t++)
		for (int l = CLU_WARD; l <= CLU_MEDIAN; l++)
			test_compare(sizes[t][0], sizes[t][1], sizes[t][2], (enum clu_linkage)l);
	test_bscore_large(2048, 12, 13);
	test_bscore_large(2048, 13, 12);
	test_bscore_large(1500, 2, 40);
	test_bscore_large(16384, 12, 13);
	CHECK_DONE();
}
