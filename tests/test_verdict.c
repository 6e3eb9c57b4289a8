/* test_verdict.c: the default ranking's exact comparison of kept events (verdict.h): what
 * counts as identical, stopped early and diverged; that a trace whose kept events differ never
 * scores 0 and ranks above every identical trace whatever the row sums; ties sharing their
 * position; the sweep table's scores with tied traces grouped; and, for hung runs, the
 * hang-safe record's comparison of call entries and its tiers (culprits before victims); the
 * calls the filter drops, compared when the filter singles out no trace (verdict_own.h). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "analysis/hangrank.h"
#include "analysis/rank.h"
#include "analysis/verdict.h"
#include "analysis/verdict_data.h"
#include "analysis/verdict_own.h"
#include "order/hang.h"
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

static dt_sync_event ent(uint32_t func, int32_t root, int32_t stag, int phase)
{
	dt_sync_event x;
	memset(&x, 0, sizeof x);
	x.func = func;
	x.phase = (uint8_t)phase;
	x.comm = 0;
	x.dest = x.src = x.rtag = DT_SYNC_NONE;
	x.root = root;
	x.stag = stag;
	x.datatype = x.op = DT_SYNC_NONE;
	x.req = 0x1000 + func; /* requests and objects differ between correct runs: not compared */
	x.obj = 0x5000 + (uint64_t)phase;
	x.ts = 123 * (int64_t)func;
	return x;
}

/* hr_compare: only entries count, compared by the call and its identifying arguments */
static void test_hang_compare(void)
{
	dt_sync_event n[] = { ent(1, DT_SYNC_NONE, 7, 0), ent(1, DT_SYNC_NONE, 7, 1),
			      ent(2, 0, DT_SYNC_NONE, 0), ent(2, 0, DT_SYNC_NONE, 1),
			      ent(3, DT_SYNC_NONE, DT_SYNC_NONE, 0), ent(3, DT_SYNC_NONE, DT_SYNC_NONE, 1) };
	dt_sync_event same[6], root[3], tag[2], prefix[3];
	memcpy(same, n, sizeof same);
	for (int k = 0; k < 6; k++) {
		same[k].req += 77; /* another run: other requests, objects, times */
		same[k].obj += 99;
		same[k].ts += 1000;
	}
	hr_thread t;
	memset(&t, 0, sizeof t);
	hr_compare(n, 6, same, 6, &t);
	CHECK_EQ_INT(t.cmp, HR_SAME);
	CHECK(t.at == 3 && t.nn == 3 && t.nf == 3);
	/* a wrong root: diverged at the second entry, even though the run stopped there */
	memcpy(root, n, sizeof root);
	root[2].root = 1;
	hr_compare(n, 6, root, 3, &t);
	CHECK_EQ_INT(t.cmp, HR_DIVERGED);
	CHECK(t.at == 1 && t.en.root == 0 && t.ef.root == 1 && t.ef.func == 2);
	/* another tag in the first call */
	memcpy(tag, n, sizeof tag);
	tag[0].stag = 99;
	tag[1].stag = 99;
	hr_compare(n, 6, tag, 2, &t);
	CHECK_EQ_INT(t.cmp, HR_DIVERGED);
	CHECK_EQ_INT((int)t.at, 0);
	/* the same calls, stopped inside the second (an entry without its exit): a victim */
	memcpy(prefix, n, sizeof prefix);
	hr_compare(n, 6, prefix, 3, &t);
	CHECK_EQ_INT(t.cmp, HR_PREFIX);
	CHECK(t.at == 2 && t.nf == 2 && t.ef.func == 0 && t.en.func == 3);
	/* stopped inside the second call, whose entry has no arguments (an OTF2 archive's: they
	 * come when the call completes): the same call, a victim */
	memcpy(prefix, n, sizeof prefix);
	prefix[2].comm = prefix[2].root = prefix[2].stag = DT_SYNC_NONE;
	prefix[2].count = DT_SYNC_NONE;
	hr_compare(n, 6, prefix, 3, &t);
	CHECK_EQ_INT(t.cmp, HR_PREFIX);
	CHECK_EQ_INT((int)t.at, 2);
	/* an argument given where the normal run has it otherwise still departs */
	prefix[2].root = 1;
	hr_compare(n, 6, prefix, 3, &t);
	CHECK_EQ_INT(t.cmp, HR_DIVERGED);
}

/* An argument every trace making the call changed alike is common (argchange.h); one trace
 * that kept it, or changed it otherwise, vetoes it; one trace alone is not enough. Left out,
 * hr_compare_but sees the same calls. */
static void test_arg_change(void)
{
	ac_set seen = { 0 }, c;
	/* the count of call 5 (key 6) from 64 to 200000 in traces 0, 1, 2; of call 6 in 0 and 1;
	 * call 7's count changed in trace 0 alone; call 8's in 0 and 1, otherwise */
	for (size_t t = 0; t < 3; t++)
		ac_see(&seen, 5, 6, 64, 200000, t, 0);
	ac_see(&seen, 5, 1, (int64_t)1, (int64_t)1, 0, 0); /* an argument kept */
	ac_see(&seen, 6, 6, 64, 200000, 0, 0);
	ac_see(&seen, 6, 6, 64, 200000, 1, 0);
	ac_see(&seen, 7, 6, 64, 200000, 0, 0);
	ac_see(&seen, 8, 6, 64, 200000, 0, 0);
	ac_see(&seen, 8, 6, 64, 100, 1, 0);
	ac_decide(&seen, &c);
	CHECK_EQ_INT((int)c.n, 2);
	CHECK(ac_is_common(&c, 5, 6, 64, 200000) && ac_is_common(&c, 6, 6, 64, 200000));
	CHECK(!ac_is_common(&c, 7, 6, 64, 200000) && !ac_is_common(&c, 8, 6, 64, 200000));
	CHECK(!ac_is_common(&c, 5, 1, 1, 1) && !ac_is_common(&c, 5, 6, 64, 100));
	CHECK(c.c[0].traces == 3 && ac_back(&c, 5, 6, 200000) == &c.c[0]);
	/* a trace that kept the value vetoes it */
	ac_see(&seen, 5, 6, 64, 200000, 0, 0);
	ac_see(&seen, 5, 6, 64, 200000, 1, 0);
	ac_see(&seen, 5, 6, 64, 64, 2, 0);
	ac_set d;
	ac_decide(&seen, &d);
	CHECK_EQ_INT((int)d.n, 0);
	ac_free(&d);
	/* the hang-safe comparison with the common change left out */
	dt_sync_event n[2], f[2];
	memset(n, 0, sizeof n);
	n[0].func = n[1].func = 5;
	n[0].phase = DT_SYNC_ENTER;
	n[1].phase = DT_SYNC_EXIT;
	n[0].count = n[1].count = 64;
	memcpy(f, n, sizeof f);
	f[0].count = f[1].count = 200000;
	hr_thread t;
	memset(&t, 0, sizeof t);
	hr_compare(n, 2, f, 2, &t);
	CHECK_EQ_INT(t.cmp, HR_DIVERGED);
	hr_compare_but(n, 2, f, 2, &c, &t);
	CHECK_EQ_INT(t.cmp, HR_SAME);
	f[0].count = 100; /* another change is still one */
	hr_compare_but(n, 2, f, 2, &c, &t);
	CHECK_EQ_INT(t.cmp, HR_DIVERGED);
	ac_free(&c);
}

/* The tiers come before everything: a culprit that the trace recording saw only stop early
 * ranks above victims with higher scores, and the one the others wait for comes next. */
static void test_hang_tiers(void)
{
	vd_item it[4];
	memset(it, 0, sizeof it);
	for (size_t k = 0; k < 4; k++) {
		it[k].i = k;
		it[k].change = VD_STOPPED;
		it[k].kept_n = 100;
		it[k].kept_f = it[k].at = 30;
		it[k].share = 0.5;
		it[k].rowsum = 1.0 + (double)k; /* victims with lost calls: high row sums */
	}
	it[1].tier = 2;
	it[1].s_at = 40;
	it[1].s_nn = 100;
	it[1].rowsum = 0.1;
	it[2].tier = 1;
	vd_order(it, 4);
	CHECK_EQ_INT((int)it[0].i, 1);
	CHECK_EQ_INT((int)it[1].i, 2);
	CHECK(it[0].pos == 1 && it[1].pos == 2 && it[2].pos == 3);
	/* two that broke the pattern: the earlier departure first */
	memset(it, 0, sizeof it);
	for (size_t k = 0; k < 2; k++) {
		it[k].i = k;
		it[k].change = VD_DIVERGED;
		it[k].tier = 2;
		it[k].kept_n = it[k].s_nn = 50;
		it[k].share = 0.2;
	}
	it[0].s_at = 30;
	it[0].rowsum = 3;
	it[1].s_at = 10;
	vd_order(it, 2);
	CHECK_EQ_INT((int)it[0].i, 1);
	CHECK(it[0].pos == 1 && it[1].pos == 2);
}

/* The calls the filter drops: 1, 2 are MPI calls the filter keeps; 0 a return; 7, 8, 9 the
 * program's own functions. */
static void test_own_calls(void)
{
	uint32_t fa[] = { 1, 2, 2, 1 }, fb[] = { 1, 2, 2, 2, 1 }; /* one more poll */
	uint32_t ea[] = { 7, 0, 8, 1, 0, 2, 0, 2, 0, 1, 0, 0 };
	uint32_t noise[] = { 7, 0, 8, 1, 0, 2, 0, 2, 0, 2, 0, 1, 0, 0 };
	uint32_t extra[] = { 7, 0, 8, 9, 0, 1, 0, 2, 0, 2, 0, 2, 0, 1, 0, 0 };
	vd_item x = { 0 };
	vd_own_compare(fa, 4, fb, 5, ea, 12, noise, 14, 0, &x);
	CHECK(!x.own && x.own_n == 2 && x.own_at == 2); /* the noise is the filter's */
	vd_own_compare(fa, 4, fb, 5, ea, 12, extra, 16, 0, &x);
	CHECK(x.own && x.own_n == 2 && x.own_at == 2 && x.own_ev_n == 0 && x.own_ev_f == 9);
	/* a function the filter keeps in the faulty trace only is still the filter's */
	uint32_t fc[] = { 1, 2, 3 }, ec[] = { 7, 0, 1, 0, 2, 0, 3, 0 };
	vd_own_compare(fa, 4, fc, 3, ea, 12, ec, 8, 0, &x);
	CHECK(x.own && x.own_at == 1 && x.own_ev_n == 8 && x.own_ev_f == 0);
	/* in a run that was cut, own calls that only stopped early are no sign */
	vd_own_compare(fa, 4, fc, 3, ea, 12, ec, 8, 1, &x);
	CHECK(!x.own);
	vd_own_compare(fa, 4, fb, 5, ea, 12, extra, 16, 1, &x);
	CHECK(x.own);

	/* undecided: every trace differs, or the first place is tied; not with one difference */
	vd_item it[3] = {
		{ .i = 0, .change = VD_DIVERGED, .rowsum = 1, .share = .5, .at = 1, .kept_n = 4 },
		{ .i = 1, .change = VD_DIVERGED, .rowsum = 1, .share = .25, .at = 1, .kept_n = 4 },
		{ .i = 2, .change = VD_SAME },
	};
	vd_order(it, 3);
	vd_rank v = { .n = 3, .it = it, .ndiff = 2 };
	CHECK(!vd_own_undecided(&v)); /* 0 is first, alone */
	it[1].change = VD_DIVERGED; /* all three differ */
	it[2].change = VD_DIVERGED;
	it[2].share = .1;
	it[2].at = 1;
	it[2].kept_n = 4;
	v.ndiff = 3;
	vd_order(it, 3);
	CHECK(vd_own_undecided(&v));
	/* the one whose own calls differ comes first within its class, whatever its score */
	for (int k = 0; k < 3; k++)
		it[k].own = it[k].i == 2;
	vd_order(it, 3);
	CHECK(it[0].i == 2 && it[0].pos == 1 && it[1].i == 0 && it[1].pos == 2);
	/* but a diverged trace stays above a stopped one whose own calls differ */
	it[0].change = VD_STOPPED;
	vd_order(it, 3);
	CHECK(it[2].i == 2);
	vd_item one = { .change = VD_DIVERGED };
	vd_rank v1 = { .n = 1, .it = &one, .ndiff = 1 };
	CHECK(!vd_own_undecided(&v1));
}

/* Of the traces that only stopped early, the one that stopped earliest relative to its
 * counterpart's length comes first (the one the others wait for), whatever the scores; equal
 * there, the higher score first. */
static void test_stopped_order(void)
{
	vd_item it[3];
	memset(it, 0, sizeof it);
	for (size_t k = 0; k < 3; k++) {
		it[k].i = k;
		it[k].change = VD_STOPPED;
		it[k].kept_n = 100;
		it[k].share = 0.1;
	}
	it[0].at = it[0].kept_f = 60;
	it[0].rowsum = 5.0; /* a victim stopped later, with the highest score */
	it[1].at = it[1].kept_f = 30;
	it[1].rowsum = 0.5;
	it[2].at = it[2].kept_f = 60;
	it[2].rowsum = 1.0;
	vd_order(it, 3);
	CHECK_EQ_INT((int)it[0].i, 1);
	CHECK_EQ_INT((int)it[1].i, 0); /* at 60 both: the higher score */
	CHECK_EQ_INT((int)it[2].i, 2);
	CHECK(it[0].pos == 1 && it[1].pos == 2 && it[2].pos == 3);
}

/* Where a thread stopped: the hang-safe record's call before the trace's last call. */
static void test_stop_call(void)
{
	vd_item x = { 0 };
	int sync = -1, outside = -1;
	x.last_f = 5; /* the trace lost the call the thread is blocked in */
	CHECK_EQ_INT((int)vd_stop_call(&x, &sync, &outside), 5);
	CHECK(!sync && !outside);
	x.s_func = 9;
	x.s_state = HANG_IN_CALL;
	CHECK_EQ_INT((int)vd_stop_call(&x, &sync, &outside), 9);
	CHECK(sync && !outside);
	x.s_state = HANG_OUTSIDE;
	CHECK_EQ_INT((int)vd_stop_call(&x, &sync, &outside), 9);
	CHECK(sync && outside);
	x.s_state = HANG_FINISHED; /* returned from MPI_Finalize: the trace says as much */
	CHECK_EQ_INT((int)vd_stop_call(&x, &sync, &outside), 5);
	CHECK(!sync && !outside);
}

/* The data and one-sided arguments of calls that agree (verdict_data.h): the first entry whose
 * digest or argument differs, counted among the entries of its kind; exits and a thread that
 * ended early are no change of data. */
static void test_data(void)
{
	dt_sync_event a[8], b[8];
	memset(a, 0, sizeof a);
	for (int k = 0; k < 8; k++) {
		a[k].phase = k % 2 ? DT_SYNC_EXIT : DT_SYNC_ENTER;
		a[k].func = 7;
		a[k].dest = 2;
		a[k].stag = 5;
		a[k].digest = 100 + (uint64_t)k;
	}
	memcpy(b, a, sizeof a);
	size_t at = 99, other = 99;
	uint64_t nth = 0;
	CHECK_EQ_INT(vd_data_compare(a, 8, b, 8, &at, &other, &nth), 0);
	/* an exit's digest is not compared; the 3rd send's is */
	b[3].digest = 1;
	CHECK_EQ_INT(vd_data_compare(a, 8, b, 8, &at, &other, &nth), 0);
	b[4].digest = 1;
	CHECK_EQ_INT(vd_data_compare(a, 8, b, 8, &at, &other, &nth), 1);
	CHECK_EQ_INT(at, 4);
	CHECK_EQ_INT(other, 4);
	CHECK_EQ_INT((int)nth, 3);
	/* no digest on one side (recorded without --payload): not a difference */
	b[4].digest = 0;
	CHECK_EQ_INT(vd_data_compare(a, 8, b, 8, &at, &other, &nth), 0);
	/* an argument of a one-sided call, before: 2 */
	b[2].disp = 3;
	CHECK_EQ_INT(vd_data_compare(a, 8, b, 8, &at, &other, &nth), 2);
	CHECK_EQ_INT(at, 2);
	CHECK_EQ_INT((int)nth, 2);
	/* the faulty thread ended early: nothing differs in what both have */
	b[2].disp = 0;
	CHECK_EQ_INT(vd_data_compare(a, 8, b, 3, &at, &other, &nth), 0);
	/* a send's buffer written while the send was in flight (--payload): an MPI_Isend (7)
	 * to 2 tag 5, its request 9 made at its exit, completed by an MPI_Wait (8) whose exit
	 * has the digest of the buffer then; then an MPI_Waitall (6) of request 10, its
	 * completion a record of its own */
	dt_sync_event f[11];
	memset(f, 0, sizeof f);
	const struct { uint8_t ph; uint32_t fn; uint64_t req, dig; } w[11] = {
		{ DT_SYNC_ENTER, 7, 0, 50 }, { DT_SYNC_EXIT, 7, 9, 50 }, { DT_SYNC_ENTER, 8, 9, 0 },
		{ DT_SYNC_EXIT, 8, 9, 50 },   { DT_SYNC_ENTER, 7, 0, 60 }, { DT_SYNC_EXIT, 7, 10, 60 },
		{ DT_SYNC_ENTER, 6, 0, 0 },   { DT_SYNC_EXIT, 6, 0, 0 },   { DT_SYNC_DONE, 6, 10, 60 },
		{ DT_SYNC_ENTER, 5, 0, 0 },   { DT_SYNC_EXIT, 5, 0, 0 },
	};
	for (int k = 0; k < 11; k++) {
		f[k].phase = w[k].ph;
		f[k].func = w[k].fn;
		f[k].req = w[k].req;
		f[k].digest = w[k].dig;
		f[k].dest = w[k].fn == 7 ? 2 : -1;
		f[k].stag = w[k].fn == 7 ? 5 : -1;
	}
	dt_sync_event g[11];
	memcpy(g, f, sizeof f);
	CHECK_EQ_INT(vd_data_compare(f, 11, g, 11, &at, &other, &nth), 0);
	g[8].digest = 61; /* the 2nd send's buffer changed before its Waitall */
	CHECK_EQ_INT(vd_data_compare(f, 11, g, 11, &at, &other, &nth), 3);
	CHECK_EQ_INT(at, 4);
	CHECK_EQ_INT((int)nth, 2);
	g[3].digest = 51; /* and the 1st's before its Wait: that one first */
	CHECK_EQ_INT(vd_data_compare(f, 11, g, 11, &at, &other, &nth), 3);
	CHECK_EQ_INT(at, 0);
	CHECK_EQ_INT((int)nth, 1);
	/* the normal run wrote the 1st in flight too: not a difference; the 2nd still is */
	f[3].digest = 52;
	CHECK_EQ_INT(vd_data_compare(f, 11, g, 11, &at, &other, &nth), 3);
	CHECK_EQ_INT(at, 4);
	/* without the completion's digest (no --payload at the wait): none */
	g[8].digest = 0;
	CHECK_EQ_INT(vd_data_compare(f, 11, g, 11, &at, &other, &nth), 0);
	/* the order: data before the time of own functions, the earliest in causal order first */
	vd_item it[3];
	memset(it, 0, sizeof it);
	for (int k = 0; k < 3; k++)
		it[k].i = (size_t)k;
	it[0].slow = 1;
	it[0].slow_gain = 1000;
	it[1].data = 1;
	it[1].data_ord = 2;
	it[2].data = 2;
	it[2].data_ord = 1;
	vd_order(it, 3);
	CHECK_EQ_INT((int)it[0].i, 2);
	CHECK_EQ_INT((int)it[1].i, 1);
	CHECK_EQ_INT((int)it[2].i, 0);
	CHECK_EQ_INT((int)it[2].pos, 3);
}

int main(void)
{
	test_compare();
	test_never_blind();
	test_order_ties();
	test_sweep_scores();
	test_hang_compare();
	test_arg_change();
	test_hang_tiers();
	test_own_calls();
	test_stop_call();
	test_stopped_order();
	test_data();
	CHECK_DONE();
}
