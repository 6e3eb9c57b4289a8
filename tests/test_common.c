/* test_common.c: the change common to a class of traces (common.h), on sequences whose
 * expected results are counted by hand below. Functions: 1 strtol, 2 strcmp, 3 compute,
 * 4 MPI_Allreduce, 5 printf; 0 is a return. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "analysis/common.h"

#define N(a) (sizeof(a) / sizeof *(a))

static void test_deltas(void)
{
	/* normal: strcmp, compute, compute, allreduce; faulty: strtol x2, strcmp, compute,
	 * allreduce, printf: +2 strtol, -1 compute, +1 printf */
	static const uint32_t a[] = { 2, 0, 3, 0, 3, 0, 4, 0 };
	static const uint32_t b[] = { 1, 0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0 };
	cc_set d;
	cc_deltas(a, N(a), b, N(b), &d);
	CHECK_EQ_INT(d.n, 3);
	CHECK(d.d[0].f == 1 && d.d[0].d == 2);
	CHECK(d.d[1].f == 3 && d.d[1].d == -1);
	CHECK(d.d[2].f == 5 && d.d[2].d == 1);
	cc_set same;
	cc_deltas(a, N(a), a, N(a), &same);
	CHECK_EQ_INT(same.n, 0);
	CHECK(!cc_equal(&d, &same));
	cc_free(&d);
	cc_free(&same);
}

static cc_set set2(uint32_t f1, int64_t d1, uint32_t f2, int64_t d2)
{
	cc_set s = { malloc(2 * sizeof(cc_delta)), 0 };
	if (f1)
		s.d[s.n++] = (cc_delta){ f1, d1 };
	if (f2)
		s.d[s.n++] = (cc_delta){ f2, d2 };
	return s;
}

static void test_common(void)
{
	/* traces 0-3: class 7 holds 1, 2, 3 (alike in the normal run), 0 alone. All four parse
	 * more (strtol: +2, and +4 in rank 0); 2 also calls compute once more; 4 is unchanged,
	 * of class 9 alone. */
	cc_set ds[5] = { set2(1, 4, 0, 0), set2(1, 2, 0, 0), set2(1, 2, 3, 1), set2(1, 2, 0, 0),
			 { NULL, 0 } };
	int64_t cls[5] = { 5, 7, 7, 7, 9 };
	cc_set out[5];
	cc_common(ds, cls, 5, out);
	/* class 7: strtol +2 in all three (compute only in 2) */
	for (int k = 1; k <= 3; k++) {
		CHECK_EQ_INT(out[k].n, 1);
		CHECK(out[k].n == 1 && out[k].d[0].f == 1 && out[k].d[0].d == 2);
	}
	/* 0, alone: what every trace that changed shares, strtol, by the smallest change */
	CHECK(out[0].n == 1 && out[0].d[0].f == 1 && out[0].d[0].d == 2);
	/* 4, alone and unchanged: the same, whatever it is (it has nothing to compare) */
	CHECK(out[4].n == 1 && out[4].d[0].f == 1);
	CHECK(cc_same_functions(&out[0], &out[1]));
	for (int k = 0; k < 5; k++) {
		cc_free(&out[k]);
		cc_free(&ds[k]);
	}
	/* an unchanged trace in a class: the class shares nothing; fewer calls in one trace and
	 * more in another are not the same change; one trace that changed shares nothing */
	cc_set e[3] = { set2(1, 2, 0, 0), { NULL, 0 }, set2(1, -2, 0, 0) };
	int64_t c2[3] = { 1, 1, 2 };
	cc_common(e, c2, 3, out);
	CHECK_EQ_INT(out[0].n, 0);
	CHECK_EQ_INT(out[1].n, 0);
	CHECK_EQ_INT(out[2].n, 0);
	for (int k = 0; k < 3; k++) {
		cc_free(&out[k]);
		cc_free(&e[k]);
	}
}

static void test_reduced(void)
{
	static const uint32_t a[] = { 2, 0, 3, 0, 4, 0, 3, 0, 4, 0 };
	/* the common change (+2 strtol) alone */
	static const uint32_t b[] = { 1, 0, 1, 0, 2, 0, 3, 0, 4, 0, 3, 0, 4, 0 };
	/* and one more compute in the second iteration: departs at call 4 (strcmp, compute,
	 * allreduce in common, strtol left out), compute where the normal run has allreduce */
	static const uint32_t c[] = { 1, 0, 2, 0, 1, 0, 3, 0, 4, 0, 3, 0, 3, 0, 4, 0 };
	cc_set com = set2(1, 2, 0, 0);
	uint64_t at = 99;
	uint32_t x = 99, y = 99;
	CHECK(cc_reduced_same(a, N(a), b, N(b), &com, &at, &x, &y) == 1);
	CHECK(cc_reduced_same(a, N(a), c, N(c), &com, &at, &x, &y) == 0);
	CHECK_EQ_INT(at, 4);
	CHECK_EQ_INT(x, 4);
	CHECK_EQ_INT(y, 3);
	/* without the common change nothing is left out: they part at the first call */
	cc_set none = { NULL, 0 };
	CHECK(cc_reduced_same(a, N(a), b, N(b), &none, &at, &x, &y) == 0);
	CHECK(at == 0 && x == 2 && y == 1);
	/* a trace that ends early: 0 past the end */
	static const uint32_t d[] = { 1, 0, 2, 0, 3, 0 };
	CHECK(cc_reduced_same(a, N(a), d, N(d), &com, &at, &x, &y) == 0);
	CHECK(at == 2 && x == 4 && y == 0);
	cc_free(&com);
}

int main(void)
{
	test_deltas();
	test_common();
	test_reduced();
	CHECK_DONE();
}
