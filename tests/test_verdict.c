/* test_verdict.c: the default ranking's exact comparison of kept events (verdict.h): what
 * counts as identical, stopped early and diverged; that a trace whose kept events differ never
 * scores 0 and ranks above every identical trace whatever the row sums; ties sharing their
 * position; and the sweep table's scores with tied traces grouped. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "analysis/rank.h"
#include "analysis/verdict.h"
#include "util/util.h"

static vd_item cmp(const uint32_t *a, size_t na, const uint32_t *b, size_t nb)
{
	vd_item x = { 0 };
	vd_compare(a, na, b, nb, &x);
	return x;
}

static void test_compare(void)
{
	uint32_t n[] = { 5, 6, 7, 6, 7, 8 };
	uint32_t same[] = { 5, 6, 7, 6, 7, 8 };
	uint32_t order[] = { 5, 7, 6, 6, 7, 8 };  /* two calls swapped */
	uint32_t count[] = { 5, 6, 7, 8 };        /* one iteration fewer (L^1 for L^2) */
	uint32_t prefix[] = { 5, 6, 7 };          /* stopped after three */
	uint32_t longer[] = { 5, 6, 7, 6, 7, 8, 9 };
	vd_item x = cmp(n, 6, same, 6);
	CHECK_EQ_INT(x.change, VD_SAME);
	CHECK(x.share == 0 && x.at == 6);
	x = cmp(n, 6, order, 6);
	CHECK_EQ_INT(x.change, VD_DIVERGED);
	CHECK_EQ_INT((int)x.at, 1);
	CHECK(x.ev_n == 6 && x.ev_f == 7);
	CHECK(fabs(x.share - 4.0 / 12) < 1e-12); /* 5 | 7 6 / 6 7 | 6 7 8 */
	x = cmp(n, 6, count, 4);
	CHECK_EQ_INT(x.change, VD_DIVERGED);
	CHECK(x.share > 0);
	x = cmp(n, 6, prefix, 3);
	CHECK_EQ_INT(x.change, VD_STOPPED);
	CHECK(x.last_f == 7 && x.share > 0);
	x = cmp(n, 6, longer, 7);
	CHECK_EQ_INT(x.change, VD_DIVERGED);
	CHECK(x.at == 6 && x.share > 0);
	x = cmp(n, 6, NULL, 0); /* nothing kept: the beginning of anything */
	CHECK_EQ_INT(x.change, VD_STOPPED);
	CHECK(x.share == 1);
}

/* Any sequence that differs scores above 0 and above every identical trace, whose score is 0
 * whatever its row sum. */
static void test_never_blind(void)
{
	srand(7);
	for (int round = 0; round < 200; round++) {
		vd_item it[6];
		uint32_t a[8], b[8];
		for (int k = 0; k < 6; k++) {
			size_t na = (size_t)(rand() % 8), nb = (size_t)(rand() % 8);
			for (size_t q = 0; q < 8; q++)
				a[q] = b[q] = (uint32_t)(rand() % 3 + 1);
			if (k % 2)
				nb = na; /* identical */
			else
				b[rand() % 8] = 9; /* may or may not fall inside */
			vd_item x = { 0 };
			vd_compare(a, na, b, nb, &x);
			x.i = (size_t)k;
			x.rowsum = (double)(rand() % 100) / 10; /* identical ones too */
			it[k] = x;
		}
		vd_order(it, 6);
		int seen_same = 0;
		for (int k = 0; k < 6; k++) {
			if (it[k].change == VD_SAME) {
				CHECK(it[k].score == 0);
				seen_same = 1;
			} else {
				CHECK(it[k].score > 0);
				CHECK(!seen_same); /* no differing trace below an identical one */
			}
		}
	}
}

static void test_order_ties(void)
{
	vd_item it[5] = {
		{ .i = 0, .change = VD_SAME, .rowsum = 9 },
		{ .i = 1, .change = VD_STOPPED, .rowsum = 5, .share = .5 },
		{ .i = 2, .change = VD_DIVERGED, .rowsum = 1, .share = .25, .at = 2, .kept_n = 10 },
		{ .i = 3, .change = VD_DIVERGED, .rowsum = 1, .share = .25, .at = 2, .kept_n = 10 },
		{ .i = 4, .change = VD_DIVERGED, .rowsum = 1, .share = .25, .at = 1, .kept_n = 10 },
	};
	vd_order(it, 5);
	/* diverged first; among equal scores who left the common pattern first; 2 and 3 tie */
	CHECK(it[0].i == 4 && it[0].pos == 1);
	CHECK(it[1].i == 2 && it[1].pos == 2);
	CHECK(it[2].i == 3 && it[2].pos == 2);
	CHECK(it[3].i == 1 && it[3].pos == 4); /* a victim that stopped, above a bigger row sum */
	CHECK(it[4].i == 0 && it[4].pos == 5 && it[4].score == 0);
}

static void test_sweep_scores(void)
{
	rank_row r = { .filter = "11.mpi.0K10", .attrs = "doub.log10", .k = 10, .bscore = .5,
		       .top_procs = { 2, 0, 1 }, .n_procs = 3, .top_threads = { { 2, 1 }, { 0, 1 }, { 1, 1 } },
		       .n_threads = 3, .scored = 1, .proc_score = { 3, 1, 1 },
		       .thread_score = { 2.5, .5, .5 } };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	dt_err e;
	dt_err_clear(&e);
	CHECK(rank_rows_render(f, &r, 1, &e) == 0);
	fclose(f);
	CHECK_EQ_STR(buf, "Filter       Attributes   K  B-score  Top processes         Top threads\n"
			  "11.mpi.0K10  doub.log10  10    0.500  2 3.000, [0 1] 1.000  2.1 2.500, [0.1 1.1] 0.500\n");
	free(buf);
}

int main(void)
{
	test_compare();
	test_never_blind();
	test_order_ties();
	test_sweep_scores();
	CHECK_DONE();
}
