/* test_rank.c: JSM_D matching, the trace and pair orderings, the B-score on hand-computed
 * contingency tables, single-run outliers, and the sweep table's sort and rendering. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>

#include "check.h"
#include "analysis/rank.h"
#include "util/util.h"

#define NEAR(a, b) (fabs((a) - (b)) < 1e-12)

static void test_jsmd(void)
{
	dt_err e;
	dt_err_clear(&e);
	/* normal: 0.0 0.1 1.0 ; faulty: 1.0 0.0 2.0 (rows in another order). 0.1 is only in the
	 * normal run, 2.0 only in the faulty one. */
	rank_key kn[3] = { { 0, 0 }, { 0, 1 }, { 1, 0 } };
	double jn[9] = { 1, .5, .25, .5, 1, .75, .25, .75, 1 };
	rank_key kf[3] = { { 1, 0 }, { 0, 0 }, { 2, 0 } };
	double jf[9] = { 1, .875, 0, .875, 1, .5, 0, .5, 1 };
	rank_jsmd j;
	CHECK(rank_jsmd_build(kn, jn, 3, kf, jf, 3, &j, &e) == 0);
	CHECK_EQ_INT(j.n, 2);
	CHECK(j.keys[0].proc == 0 && j.keys[0].thread == 0);
	CHECK(j.keys[1].proc == 1 && j.keys[1].thread == 0);
	CHECK_EQ_INT(j.row_normal[0], 0);
	CHECK_EQ_INT(j.row_normal[1], 2);
	CHECK_EQ_INT(j.row_faulty[0], 1);
	CHECK_EQ_INT(j.row_faulty[1], 0);
	/* |0.875 - 0.25| off the diagonal, 0 on it */
	CHECK(NEAR(rank_jsmd_at(&j, 0, 0), 0) && NEAR(rank_jsmd_at(&j, 1, 1), 0));
	CHECK(NEAR(rank_jsmd_at(&j, 0, 1), .625) && NEAR(rank_jsmd_at(&j, 1, 0), .625));
	CHECK_EQ_INT(j.n_only_normal, 1);
	CHECK(j.only_normal[0].proc == 0 && j.only_normal[0].thread == 1);
	CHECK_EQ_INT(j.n_only_faulty, 1);
	CHECK(j.only_faulty[0].proc == 2 && j.only_faulty[0].thread == 0);
	rank_jsmd_free(&j);

	/* a key twice in one run: the identity is ambiguous, refuse */
	rank_key dup[3] = { { 0, 0 }, { 1, 0 }, { 0, 0 } };
	CHECK(rank_jsmd_build(kn, jn, 3, dup, jf, 3, &j, &e) == -1);
	CHECK(e.status == DT_EDATA && strstr(e.msg, "0.0 appears twice"));
	dt_err_clear(&e);
	/* not a similarity */
	double bad[9];
	memcpy(bad, jf, sizeof bad);
	bad[5] = 1.5;
	CHECK(rank_jsmd_build(kn, jn, 3, kf, bad, 3, &j, &e) == -1);
	CHECK(strstr(e.msg, "faulty JSM: entry (1, 2)") != NULL);
	dt_err_clear(&e);
	bad[5] = NAN;
	CHECK(rank_jsmd_build(kn, bad, 3, kf, jf, 3, &j, &e) == -1);
	CHECK(strstr(e.msg, "normal JSM") != NULL);
	dt_err_clear(&e);
	/* no common trace at all */
	CHECK(rank_jsmd_build(kn, jn, 3, kf, jf, 0, &j, &e) == 0);
	CHECK_EQ_INT(j.n, 0);
	CHECK_EQ_INT(j.n_only_normal, 3);
	CHECK_EQ_INT(j.n_only_faulty, 0);
	rank_jsmd_free(&j);
}

static void test_traces(void)
{
	/* Row sums, the diagonal included (difftrace puts there a trace's change against itself
	 * in the other run): r0 = 0.3+0.2+0.1 = 0.6 in floating point, r3 = 0.1+0.2+0.3 =
	 * 0.6000000000000001: a tie once rounded, so the lower index comes first. r1's diagonal
	 * .5 counts and puts it first. */
	double d[16] = {
		0, .3, .2, .1,
		.3, .5, .05, .05,
		.2, .05, 0, .5,
		.1, .2, .3, 0,
	};
	CHECK(.1 + .2 + .3 != .3 + .2 + .1); /* the premise of the tie test */
	rank_item it[4];
	rank_traces(d, 4, it);
	CHECK_EQ_INT(it[0].i, 1); /* .9, with its diagonal */
	CHECK_EQ_INT(it[1].i, 2); /* .75 */
	CHECK_EQ_INT(it[2].i, 0);
	CHECK_EQ_INT(it[3].i, 3);
	CHECK(NEAR(it[0].score, .9) && NEAR(it[1].score, .75));
	rank_item top[4];
	CHECK_EQ_INT(rank_top_traces(d, 4, 2, top), 2);
	CHECK(top[0].i == 1 && top[1].i == 2);
	CHECK_EQ_INT(rank_top_traces(d, 4, 10, top), 4);
	CHECK_EQ_INT(rank_top_traces(d, 0, 10, top), 0);
}

static int pair_ref_cmp(const void *x, const void *y)
{
	const rank_pair *a = x, *b = y;
	if (a->score != b->score)
		return a->score > b->score ? -1 : 1;
	if (a->i != b->i)
		return a->i < b->i ? -1 : 1;
	return (a->j > b->j) - (a->j < b->j);
}

static void test_pairs(void)
{
	uint32_t x = 12345;
	for (int round = 0; round < 200; round++) {
		size_t n = (size_t)(round % 9);
		double d[64];
		for (size_t i = 0; i < n * n; i++) {
			x = x * 1103515245u + 12345u;
			d[i] = (double)((x >> 16) % 5) / 4; /* few values: many ties */
		}
		rank_pair all[36], got[36];
		size_t m = 0;
		for (size_t i = 0; i < n; i++)
			for (size_t j = i + 1; j < n; j++)
				all[m++] = (rank_pair){ i, j, d[i * n + j] };
		if (m)
			qsort(all, m, sizeof *all, pair_ref_cmp);
		size_t top = (size_t)(round % 7);
		size_t want = top < m ? top : m;
		CHECK_EQ_INT(rank_top_pairs(d, n, top, got), want);
		for (size_t r = 0; r < want; r++)
			CHECK(got[r].i == all[r].i && got[r].j == all[r].j &&
			      got[r].score == all[r].score);
	}
}

/* Hand-computed: A = {a,a,a,b,b,b}, B = {c,c,d,d,d,d}. Contingency (a,c)=2 (a,d)=1 (b,d)=3:
 * T = 4+1+9-6 = 8, P = 9+9-6 = 12, Q = 4+16-6 = 14, B = 8/√168. */
static void test_bscore(void)
{
	int a[6] = { 7, 7, 7, -3, -3, -3 }, b[6] = { 5, 5, 9, 9, 9, 9 };
	CHECK(NEAR(rank_bscore(a, b, 6), 8 / sqrt(168)));
	CHECK(NEAR(rank_bscore(b, a, 6), 8 / sqrt(168)));
	/* the same partition under other labels */
	int c[6] = { 1, 1, 1, 0, 0, 0 };
	CHECK(NEAR(rank_bscore(a, c, 6), 1));
	/* crossing partitions: every m_ab = 1, T = 0, P = Q = 4 */
	int x[4] = { 0, 0, 1, 1 }, y[4] = { 0, 1, 0, 1 };
	CHECK(NEAR(rank_bscore(x, y, 4), 0));
	/* one cluster vs two: m = (0,0)=2 (0,1)=2, T = 8-4 = 4, P = 16-4 = 12, Q = 8-4 = 4 */
	int one[4] = { 0, 0, 0, 0 };
	CHECK(NEAR(rank_bscore(one, x, 4), 4 / sqrt(48)));
	/* degenerate: both all singletons → 1, one all singletons → 0, n ≤ 1 → 1 */
	int s1[4] = { 0, 1, 2, 3 }, s2[4] = { 9, 8, 7, 6 };
	CHECK(NEAR(rank_bscore(s1, s2, 4), 1));
	CHECK(NEAR(rank_bscore(s1, x, 4), 0));
	CHECK(NEAR(rank_bscore(x, s1, 4), 0));
	CHECK(NEAR(rank_bscore(s1, s2, 1), 1));
	CHECK(NEAR(rank_bscore(NULL, NULL, 0), 1));
}

/* n = 4: k = 2 gives the same partition (B = 1), k = 3 gives {0,1}{2}{3} vs {0}{1}{2,3}:
 * T = 0, P = Q = 2, B = 0. Mean 0.5. */
static const int cut_a[2 * 4] = { 0, 0, 1, 1, /* k=3 */ 0, 0, 1, 2 };
static const int cut_b[2 * 4] = { 5, 5, 6, 6, /* k=3 */ 0, 1, 2, 2 };

static int cut_fn(void *ctx, size_t k, int *la, int *lb, dt_err *e)
{
	int *calls = ctx;
	(*calls)++;
	if (k < 2 || k > 3)
		return dt_errf(e, DT_EDATA, "no cut at %zu", k);
	memcpy(la, cut_a + (k - 2) * 4, 4 * sizeof *la);
	memcpy(lb, cut_b + (k - 2) * 4, 4 * sizeof *lb);
	return 0;
}

static int cut_fail(void *ctx, size_t k, int *la, int *lb, dt_err *e)
{
	(void)ctx, (void)la, (void)lb;
	return dt_errf(e, DT_EDATA, "dendrogram missing at k=%zu", k);
}

static void test_bscore_mean(void)
{
	double bk[2] = { -1, -1 };
	CHECK(NEAR(rank_bscore_mean_arr(cut_a, cut_b, 4, bk), .5));
	CHECK(NEAR(bk[0], 1) && NEAR(bk[1], 0));
	CHECK(NEAR(rank_bscore_mean_arr(NULL, NULL, 2, NULL), 1));
	dt_err e;
	dt_err_clear(&e);
	int calls = 0;
	double mean = -1;
	bk[0] = bk[1] = -1;
	CHECK(rank_bscore_mean(4, cut_fn, &calls, &mean, bk, &e) == 0);
	CHECK_EQ_INT(calls, 2);
	CHECK(NEAR(mean, .5) && NEAR(bk[0], 1) && NEAR(bk[1], 0));
	calls = 0;
	CHECK(rank_bscore_mean(2, cut_fn, &calls, &mean, NULL, &e) == 0);
	CHECK(calls == 0 && NEAR(mean, 1));
	CHECK(rank_bscore_mean(4, cut_fail, NULL, &mean, NULL, &e) == -1);
	CHECK(strstr(e.msg, "k=2") != NULL);
}

static void test_outliers(void)
{
	/* class 0 = {0, 1, 2}, class 1 = {3}. Trace 2 is the odd one of class 0. */
	double j[16] = {
		1, .9, .3, .1,
		.9, 1, .5, .2,
		.3, .5, 1, .6,
		.1, .2, .6, 1,
	};
	int cls[4] = { 0, 0, 0, 1 };
	rank_outlier o[4];
	dt_err e;
	dt_err_clear(&e);
	CHECK(rank_outliers(j, cls, 4, o, &e) == 0);
	/* 0: 1-(.9+.3)/2 = .4 ; 1: 1-(.9+.5)/2 = .3 ; 2: 1-(.3+.5)/2 = .6 ;
	 * 3 (alone): 1-(.1+.2+.6)/3 = .7 */
	CHECK(o[0].i == 3 && NEAR(o[0].score, .7) && o[0].class_size == 1);
	CHECK(o[1].i == 2 && NEAR(o[1].score, .6) && o[1].class_size == 3);
	CHECK(o[2].i == 0 && NEAR(o[2].score, .4));
	CHECK(o[3].i == 1 && NEAR(o[3].score, .3));
	CHECK(rank_outliers(j, cls, 1, o, &e) == 0);
	CHECK(o[0].i == 0 && o[0].score == 0 && o[0].class_size == 1);
	j[6] = -0.1;
	CHECK(rank_outliers(j, cls, 4, o, &e) == -1);
	CHECK(strstr(e.msg, "(1, 2)") != NULL);
}

static char *render_rows(const rank_row *rows, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	dt_err e;
	dt_err_clear(&e);
	CHECK(rank_rows_render(f, rows, n, &e) == 0);
	fclose(f);
	return buf;
}

static void test_rows(void)
{
	rank_row r[4] = {
		{ .filter = "11.mpi.cust.0K10", .attrs = "sing.actual", .k = 10, .bscore = .5,
		  .top_procs = { 5, 3 }, .n_procs = 2,
		  .top_threads = { { 5, 0 }, { 3, 1 } }, .n_threads = 2 },
		{ .filter = "11.1K10", .attrs = "doub.log10", .k = 10, .bscore = NAN },
		{ .filter = "01.plt.mem.cust.0K10", .attrs = "sing.noFreq", .k = 5, .bscore = .244,
		  .top_procs = { 1 }, .n_procs = 1, .top_threads = { { 1, 2 } }, .n_threads = 1 },
		{ .filter = "11.mpi.cust.0K10", .attrs = "doub.actual", .k = 10, .bscore = .5 },
	};
	rank_rows_sort(r, 4);
	CHECK(r[0].bscore == .244);
	CHECK(r[1].bscore == .5 && !strcmp(r[1].attrs, "doub.actual")); /* tie: by attributes */
	CHECK(r[2].bscore == .5 && !strcmp(r[2].attrs, "sing.actual"));
	CHECK(isnan(r[3].bscore));
	char *s = render_rows(r, 4);
	CHECK_EQ_STR(s,
		"Filter                Attributes    K  B-score  Top processes  Top threads\n"
		"01.plt.mem.cust.0K10  sing.noFreq   5    0.244  1              1.2\n"
		"11.mpi.cust.0K10      doub.actual  10    0.500  -              -\n"
		"11.mpi.cust.0K10      sing.actual  10    0.500  5, 3           5.0, 3.1\n"
		"11.1K10               doub.log10   10      nan  -              -\n");
	free(s);

	rank_key keys[2] = { { 0, 0 }, { 1, 3 } };
	rank_item it[2] = { { 1, 1.25 }, { 0, .5 } };
	rank_pair pr[1] = { { 0, 1, .625 } };
	rank_outlier ol[2] = { { 1, .7, 1 }, { 0, .25, 4 } };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	dt_err e;
	dt_err_clear(&e);
	CHECK(rank_traces_render(f, it, 2, keys, NULL, &e) == 0);
	uint8_t run[2] = { 0, 1 };
	CHECK(rank_traces_render(f, it, 2, keys, run, &e) == 0);
	CHECK(rank_pairs_render(f, pr, 1, keys, &e) == 0);
	CHECK(rank_outliers_render(f, ol, 2, keys, &e) == 0);
	fclose(f);
	CHECK_EQ_STR(buf,
		"   #  trace      JSM_D row sum\n"
		"   1  1.3        1.250\n"
		"   2  0.0        0.500\n"
		"   #  trace      JSM_D row sum\n"
		"   1  1.3        1.250  running at the stop\n"
		"   2  0.0        0.500\n"
		"   #  trace      trace      JSM_D\n"
		"   1  0.0        1.3        0.625\n"
		"   #  trace      score  class size\n"
		"   1  1.3        0.700  1 (alone)\n"
		"   2  0.0        0.250  4\n");
	free(buf);
}

static void test_running(void)
{
	/* an infinite loop: eleven traces go quiet at about 0.5 s, one records up to 6 s */
	uint64_t first[12], last[12];
	uint8_t valid[12], run[12];
	double quiet;
	for (int i = 0; i < 12; i++) {
		first[i] = 1000000000ull + (uint64_t)i * 1000;
		last[i] = first[i] + 500000000ull + (uint64_t)i * 7000;
		valid[i] = 1;
	}
	last[7] = first[0] + 6000000000ull;
	CHECK_EQ_INT(rank_running(first, last, valid, 12, run, &quiet), 1);
	for (int i = 0; i < 12; i++)
		CHECK_EQ_INT(run[i], i == 7);
	CHECK(quiet > 5.4 && quiet < 5.6);
	/* without times it takes no part */
	valid[7] = 0;
	CHECK_EQ_INT(rank_running(first, last, valid, 12, run, &quiet), 0);
	CHECK_EQ_INT(run[7], 0);
	valid[7] = 1;
	/* a gap of less than half the span: nothing stands out */
	last[7] = first[0] + 900000000ull;
	CHECK_EQ_INT(rank_running(first, last, valid, 12, run, &quiet), 0);
	CHECK(quiet == 0);
	/* half the traces or more after the gap: they are the many, not the odd ones out */
	for (int i = 0; i < 6; i++)
		last[i] = first[0] + 6000000000ull;
	CHECK_EQ_INT(rank_running(first, last, valid, 12, run, &quiet), 0);
	for (int i = 0; i < 5; i++)
		last[i] = first[i] + 500000000ull;
	CHECK_EQ_INT(rank_running(first, last, valid, 12, run, &quiet), 1);
	CHECK_EQ_INT(run[5], 1);
	/* fewer than three traces with times: no judgement */
	CHECK_EQ_INT(rank_running(first, last, valid, 2, run, &quiet), 0);

	/* rank_order puts the running traces first, in their row-sum order, then the others */
	double d[9] = { 3, 0, 0, 0, 1, 0, 0, 0, 2 }, dg[3] = { 3, 1, 2 };
	uint32_t cl[3] = { 0, 1, 2 }, mu[3] = { 1, 1, 1 };
	rank_jsmd j = { 0 };
	j.n = 3;
	j.nc = 3;
	j.cd = d;
	j.diag = dg;
	j.cls = cl;
	j.mult = mu;
	rank_item it[3];
	CHECK_EQ_INT(rank_order(&j, 3, it), 3);
	CHECK(it[0].i == 0 && it[1].i == 2 && it[2].i == 1);
	uint8_t r3[3] = { 0, 1, 0 };
	j.running = r3;
	j.n_running = 1;
	CHECK_EQ_INT(rank_order(&j, 2, it), 2);
	CHECK(it[0].i == 1 && it[0].score == 1 && it[1].i == 0);
	/* and its process first among the processes */
	rank_key keys[3] = { { 0, 0 }, { 1, 0 }, { 2, 0 } };
	j.keys = keys;
	rank_item all[3];
	rank_order(&j, 3, all);
	int procs[3];
	CHECK_EQ_INT(rank_top_procs(&j, all, 3, procs, 3), 3);
	CHECK(procs[0] == 1 && procs[1] == 0 && procs[2] == 2);
	j.running = NULL;
	j.n_running = 0;
	CHECK_EQ_INT(rank_top_procs(&j, all, 3, procs, 3), 3);
	CHECK(procs[0] == 0 && procs[1] == 2 && procs[2] == 1);
}

static void test_top_procs(void)
{
	/* process 2's two traces (.3 + .3) outrank process 0's single .5; process 1 did not change
	 * and is left out */
	rank_key keys[5] = { { 0, 0 }, { 1, 0 }, { 2, 0 }, { 2, 1 }, { 0, 1 } };
	rank_jsmd j = { 0 };
	j.n = 5;
	j.keys = keys;
	rank_item it[5] = { { 0, .5 }, { 2, .3 }, { 3, .3 }, { 4, 0 }, { 1, 0 } };
	int out[4];
	CHECK_EQ_INT(rank_top_procs(&j, it, 5, out, 4), 2);
	CHECK(out[0] == 2 && out[1] == 0);
	CHECK_EQ_INT(rank_top_procs(&j, it, 5, out, 1), 1);
	CHECK_EQ_INT(out[0], 2);
}

int main(void)
{
	test_top_procs();
	test_running();
	test_jsmd();
	test_traces();
	test_pairs();
	test_bscore();
	test_bscore_mean();
	test_outliers();
	test_rows();
	CHECK_DONE();
}
