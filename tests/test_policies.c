/* test_policies.c: the causality filter's policies as Kraemer's paper defines them (sections 5
 * and 6), on small streams made by hand, each with its expected output written out here by
 * hand (not computed by the code under test):
 *  - adjusted timestamps are monotone in the order of delivery, each moved by just enough;
 *  - maximal concurrency releases a round as soon as the heads of the round are decided,
 *    while events are still being pushed;
 *  - a thread's events before its start and after its end are ignored (`start` and `end`);
 *  - a fork makes the queues of the threads it starts (`fork`): a round of maximal concurrency
 *    waits for a forked worker that has sent nothing yet;
 *  - a rank whose MPI_Finalize returned holds back no round. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "order/check.h"
#include "order/filter.h"
#include "order/rules.h"
#include "synth_sync.h"

/* The synthetic streams' functions, and MPI_Finalize. */
enum { SY_FINALIZE = SY_NFUNC };
static const char *names[SY_NFUNC + 1];

/* A hand-made event: who, what, when, and the peers of a point to point call. */
typedef struct hev {
	int proc, thread, func, phase;
	int64_t ts;
	int peer, tag; /* dest and stag of a send's entry, src and rtag of a receive's exit */
	/* OpenMP: the object's instance, the thread's number in its team and the team's size
	 * (0, 0, 0: as an MPI call; the region is object 0x100, the critical section 0x300) */
	int objseq, tnum, team;
} hev;

static dt_sync_event make(const hev *h, uint32_t seq)
{
	dt_sync_event e = synth_tmpl();
	e.proc = h->proc;
	e.thread = h->thread;
	e.seq = seq;
	e.func = (uint32_t)h->func;
	e.phase = (uint8_t)h->phase;
	e.ts = h->ts;
	e.host = h->proc;
	e.comm = 0;
	if (h->func == SY_SEND && h->phase == DT_SYNC_ENTER)
		e.dest = h->peer, e.stag = h->tag;
	if (h->func == SY_RECV && h->phase == DT_SYNC_EXIT)
		e.src = h->peer, e.rtag = h->tag;
	if (h->func == SY_BARRIER)
		e.csize = 2; /* the two processes of these streams */
	if (h->func >= SY_PARALLEL && h->func < SY_NFUNC) {
		e.obj = h->func == SY_PARALLEL || h->func == SY_TASK ? 0x100 : 0x300;
		e.objseq = (uint64_t)h->objseq;
		e.tnum = h->tnum;
		e.team = h->team;
	}
	return e;
}

/* What came out: by output position, the input's index, step, timestamp and adjustment; and how
 * many were out after each push. */
typedef struct got {
	uint64_t id[64], step[64];
	int64_t ts[64], adj[64];
	size_t n;
} got;

static void collect(void *ctx, const ord_out *o)
{
	got *g = ctx;
	if (g->n < 64) {
		g->id[g->n] = o->id;
		g->step[g->n] = o->step;
		g->ts[g->n] = o->ts;
		g->adj[g->n] = o->adj;
	}
	g->n++;
}

static ord_rules *rules_of(const char *extra, int shipped)
{
	ord_rules *r = ord_rules_new();
	dt_err e;
	dt_err_clear(&e);
	if ((shipped && ord_rules_load_default(r, &e)) ||
	    (extra && ord_rules_parse(r, extra, strlen(extra), "extra.rules", &e)) ||
	    ord_rules_bind(r, names, SY_NFUNC + 1, &e)) {
		char b[1024];
		dt_err_format(&e, b, sizeof b);
		fprintf(stderr, "cannot load the rules: %s\n", b);
		exit(1);
	}
	return r;
}

static ord_rules *rules(const char *extra)
{
	return rules_of(extra, 1);
}

/* Pushes the n events one at a time in the given order (the arrival), numbering each thread's
 * events; after[i] gets how many events were out after push i. Drains at the end. */
static void feed_ign(const ord_rules *r, int policy, const hev *h, size_t n, got *g, size_t *after,
		     uint64_t *ignored, dt_sync_event *made)
{
	memset(g, 0, sizeof *g);
	ord_filter_opts o = { policy, NULL, 0, 0, 0 };
	ord_filter *f = ord_filter_new(r, &o, collect, g);
	uint32_t seq[8][4] = { { 0 } };
	for (size_t i = 0; i < n; i++) {
		dt_sync_event e = make(&h[i], seq[h[i].proc][h[i].thread]++);
		if (made)
			made[i] = e;
		dt_err err;
		dt_err_clear(&err);
		CHECK_EQ_INT(ord_filter_push(f, &e, i, &err), 0);
		if (after)
			after[i] = g->n;
	}
	ord_filter_drain(f);
	if (ignored)
		*ignored = ord_filter_ignored(f);
	ord_filter_free(f);
}

static void feed(const ord_rules *r, int policy, const hev *h, size_t n, got *g, size_t *after)
{
	feed_ign(r, policy, h, n, g, after, NULL, NULL);
}

/* Section 6: "the adjusted timestamp policy adjusts each timestamp by just enough so that it is
 * consistent with the order in which the event records are delivered". Process 1's clock runs
 * about 100 ns behind process 0's. Process 0 sends to 1 (tag 5) at 100, its send returns at 145;
 * process 1 entered its receive at 20 and returned from it at 90 (before the send began, by its
 * clock), then sends to 0 (tag 6) at 115, which 0 receives from 150 to 160. Everything arrives
 * in a valid order, so the order is the arrival's; the times must not go back along it:
 * before, they went 145 (0's send returns) then 20, 101 and 115. */
static void timestamps_monotone(void)
{
	static const hev h[] = {
		{ 0, 0, SY_SEND, DT_SYNC_ENTER, 100, 1, 5, 0, 0, 0 },
		{ 0, 0, SY_SEND, DT_SYNC_EXIT, 145, -1, -1, 0, 0, 0 },
		{ 1, 0, SY_RECV, DT_SYNC_ENTER, 20, -1, -1, 0, 0, 0 },
		{ 1, 0, SY_RECV, DT_SYNC_EXIT, 90, 0, 5, 0, 0, 0 },
		{ 1, 0, SY_SEND, DT_SYNC_ENTER, 115, 0, 6, 0, 0, 0 },
		{ 1, 0, SY_SEND, DT_SYNC_EXIT, 118, -1, -1, 0, 0, 0 },
		{ 0, 0, SY_RECV, DT_SYNC_ENTER, 150, -1, -1, 0, 0, 0 },
		{ 0, 0, SY_RECV, DT_SYNC_EXIT, 160, 1, 6, 0, 0, 0 },
	};
	/* by hand: each time is the largest of its own, the time delivered before it, and (for a
	 * receive's exit) its send's adjusted entry + 1 */
	static const int64_t want_ts[] = { 100, 145, 145, 145, 145, 145, 150, 160 };
	static const int64_t want_adj[] = { 0, 0, 125, 55, 30, 27, 0, 0 };
	ord_rules *r = rules(NULL);
	got g;
	feed(r, ORD_TIMESTAMP, h, 8, &g, NULL);
	CHECK_EQ_INT(g.n, 8);
	for (size_t i = 0; i < 8 && i < g.n; i++) {
		CHECK_EQ_INT(g.id[i], i);
		CHECK_EQ_INT(g.ts[i], want_ts[i]);
		CHECK_EQ_INT(g.adj[i], want_adj[i]);
	}
	/* the receive's exit arriving before its send: held, then out right after the send's
	 * entry, one past it; 1's later events and 0's return follow in time */
	static const hev h2[] = {
		{ 1, 0, SY_RECV, DT_SYNC_ENTER, 20, -1, -1, 0, 0, 0 },
		{ 1, 0, SY_RECV, DT_SYNC_EXIT, 90, 0, 5, 0, 0, 0 },
		{ 1, 0, SY_SEND, DT_SYNC_ENTER, 115, 0, 6, 0, 0, 0 },
		{ 0, 0, SY_SEND, DT_SYNC_ENTER, 100, 1, 5, 0, 0, 0 },
		{ 0, 0, SY_SEND, DT_SYNC_EXIT, 145, -1, -1, 0, 0, 0 },
	};
	static const uint64_t want2_id[] = { 0, 3, 1, 2, 4 };
	static const int64_t want2_ts[] = { 20, 100, 101, 115, 145 };
	feed(r, ORD_TIMESTAMP, h2, 5, &g, NULL);
	CHECK_EQ_INT(g.n, 5);
	for (size_t i = 0; i < 5 && i < g.n; i++) {
		CHECK_EQ_INT(g.id[i], want2_id[i]);
		CHECK_EQ_INT(g.ts[i], want2_ts[i]);
	}
	ord_rules_free(r);
}

/* Section 6: maximal concurrency batches "events that could be concurrent and that are found at
 * the head of their queues in the same round". A round is decided once every thread's queue has
 * a head (a thread without one could still send an event valid in it) and goes out then, while
 * events are still arriving: before, nothing came out before ord_filter_drain. Process 0 sends
 * to 1 (tag 5), then both enter and leave a barrier; the events arrive alternating. */
static void concurrent_online(void)
{
	static const hev h[] = {
		{ 0, 0, SY_SEND, DT_SYNC_ENTER, 10, 1, 5, 0, 0, 0 },    /* 0 */
		{ 1, 0, SY_RECV, DT_SYNC_ENTER, 11, -1, -1, 0, 0, 0 },  /* 1 */
		{ 0, 0, SY_SEND, DT_SYNC_EXIT, 12, -1, -1, 0, 0, 0 },   /* 2 */
		{ 1, 0, SY_RECV, DT_SYNC_EXIT, 13, 0, 5, 0, 0, 0 },     /* 3 */
		{ 0, 0, SY_BARRIER, DT_SYNC_ENTER, 14, -1, -1, 0, 0, 0 }, /* 4 */
		{ 0, 0, SY_BARRIER, DT_SYNC_EXIT, 15, -1, -1, 0, 0, 0 },  /* 5 */
		{ 1, 0, SY_BARRIER, DT_SYNC_ENTER, 16, -1, -1, 0, 0, 0 }, /* 6 */
		{ 1, 0, SY_BARRIER, DT_SYNC_EXIT, 17, -1, -1, 0, 0, 0 },  /* 7 */
	};
	/* by hand, push by push:
	 * 0: the only queue has a head, valid: step 0 = {0}; queue 0 is empty again
	 * 1: queue 0 has no head: wait
	 * 2: heads 2 and 1, both valid: step 1 = {2, 1}; both queues empty
	 * 3: queue 0 has no head: wait
	 * 4: heads 4 and 3 (the send began in step 0), both valid: step 2 = {4, 3}
	 * 5: queue 1 has no head: wait
	 * 6: heads 5 (the barrier's exit: one of two members entered, held) and 6: step 3 = {6};
	 *    queue 1 is empty: the next round waits
	 * 7: heads 5 and 7, both members entered: step 4 = {5, 7} */
	static const size_t want_after[] = { 1, 1, 3, 3, 5, 5, 6, 8 };
	static const uint64_t want_step[] = { 0, 1, 1, 2, 2, 4, 3, 4 }; /* by event */
	ord_rules *r = rules(NULL);
	got g;
	size_t after[8];
	feed(r, ORD_CONCURRENT, h, 8, &g, after);
	CHECK_EQ_INT(g.n, 8);
	for (size_t i = 0; i < 8; i++)
		CHECK_EQ_INT(after[i], want_after[i]);
	for (size_t i = 0; i < 8 && i < g.n; i++)
		CHECK_EQ_INT(g.step[i], want_step[g.id[i]]);
	/* the same events arriving thread by thread: while process 1 has sent nothing, its queue
	 * does not exist and the rounds go on without it (its receive's entry cannot go with the
	 * send's any more); process 0's barrier exit waits for 1's entry. By hand, events 0, 2, 4,
	 * 5, 1, 3, 6, 7 pushed: steps 0 = {0}, 1 = {2}, 2 = {4}, (5 held), 3 = {1}, 4 = {3},
	 * 5 = {6}, 6 = {5, 7} */
	hev h2[8];
	static const size_t byq[] = { 0, 2, 4, 5, 1, 3, 6, 7 };
	for (size_t i = 0; i < 8; i++)
		h2[i] = h[byq[i]];
	static const size_t want2_after[] = { 1, 2, 3, 3, 4, 5, 6, 8 };
	static const uint64_t want2_step[] = { 0, 1, 2, 6, 3, 4, 5, 6 }; /* by position in h2 */
	feed(r, ORD_CONCURRENT, h2, 8, &g, after);
	CHECK_EQ_INT(g.n, 8);
	for (size_t i = 0; i < 8; i++)
		CHECK_EQ_INT(after[i], want2_after[i]);
	for (size_t i = 0; i < 8 && i < g.n; i++)
		CHECK_EQ_INT(g.step[i], want2_step[g.id[i]]);
	ord_rules_free(r);
}

/* Section 5: "THREAD_INIT ... All prior events are ignored", "THREAD_EXIT ... Any succeeding
 * events recorded by this thread are ignored". The shipped OpenMP rules say it of a worker and
 * its parts of regions (`start TASK_BEGIN within OMP_WORKER; end TASK_END;`): a worker whose
 * first OpenMP call is not its part's start, and what it records between its parts, are
 * ignored; the main thread is not concerned. One process, its main thread 0 and a worker 1. */
static void thread_life(void)
{
	enum { EN = DT_SYNC_ENTER, EX = DT_SYNC_EXIT };
	static const hev h[] = {
		{ 0, 1, SY_CRIT_START, EN, 1, 0, 0, 0, 1, 2 },  /* 0: before the worker's start */
		{ 0, 1, SY_CRIT_START, EX, 2, 0, 0, 1, 1, 2 },  /* 1: likewise */
		{ 0, 0, SY_PARALLEL, EN, 3, 0, 0, 1, 0, 2 },    /* 2: the fork of region 1 */
		{ 0, 1, SY_TASK, EN, 4, 0, 0, 1, 1, 2 },        /* 3: the worker's start */
		{ 0, 0, SY_TASK, EN, 5, 0, 0, 1, 0, 2 },        /* 4: the master's part */
		{ 0, 1, SY_CRIT_START, EN, 6, 0, 0, 0, 1, 2 },  /* 5 */
		{ 0, 1, SY_CRIT_START, EX, 7, 0, 0, 1, 1, 2 },  /* 6 */
		{ 0, 1, SY_CRIT_END, EN, 8, 0, 0, 1, 1, 2 },    /* 7 */
		{ 0, 1, SY_CRIT_END, EX, 9, 0, 0, 1, 1, 2 },    /* 8 */
		{ 0, 1, SY_TASK, EX, 10, 0, 0, 1, 1, 2 },       /* 9: the worker's end */
		{ 0, 1, SY_SET_LOCK, EN, 11, 0, 0, 0, 1, 2 },   /* 10: after it */
		{ 0, 0, SY_TASK, EX, 12, 0, 0, 1, 0, 2 },       /* 11 */
		{ 0, 0, SY_PARALLEL, EX, 13, 0, 0, 1, 0, 2 },   /* 12: the join */
		{ 0, 0, SY_PARALLEL, EN, 14, 0, 0, 2, 0, 2 },   /* 13: the fork of region 2 */
		{ 0, 1, SY_TASK, EN, 15, 0, 0, 2, 1, 2 },       /* 14: the worker starts again */
		{ 0, 1, SY_TASK, EX, 16, 0, 0, 2, 1, 2 },       /* 15 */
	};
	/* by hand: 0, 1 and 10 ignored; the rest valid in the order they come */
	static const uint64_t want[] = { 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 14, 15 };
	ord_rules *r = rules(NULL);
	for (int p = 0; p < 3; p++) {
		got g;
		uint64_t ign = 0;
		dt_sync_event ev[16];
		feed_ign(r, p, h, 16, &g, NULL, &ign, ev);
		CHECK_EQ_INT(ign, 3);
		CHECK_EQ_INT(g.n, 13);
		/* (maximal concurrency releases them in rounds: the same events, another order) */
		uint8_t out[16] = { 0 };
		for (size_t i = 0; i < 13 && i < g.n; i++) {
			if (p != ORD_CONCURRENT)
				CHECK_EQ_INT(g.id[i], want[i]);
			out[g.id[i] & 15] = 1;
		}
		for (size_t i = 0; i < 13; i++)
			CHECK(out[want[i]]);
		/* the checker, written apart, agrees, and refuses an ignored event delivered (10,
		 * the worker's 9th event: seq 8) */
		dt_err e;
		dt_err_clear(&e);
		CHECK_EQ_INT(ord_check(r, ev, 16, want, 13, NULL, &e), 0);
		static const uint64_t bad[] = { 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };
		dt_err_clear(&e);
		CHECK(ord_check(r, ev, 16, bad, 14, NULL, &e) != 0);
		CHECK(strstr(e.msg, "position 8: 0.1 #8 omp_set_lock enter is delivered while its "
				    "thread is off") != NULL);
	}
	ord_rules_free(r);

	/* `start` without `within`: every thread is off until its start (the paper's INIT) */
	static const hev h2[] = {
		{ 0, 0, SY_SEND, EN, 1, 1, 5, 0, 0, 0 },    /* 0: before process 0's start */
		{ 1, 0, SY_SEND, EN, 2, 0, 6, 0, 0, 0 },    /* 1: before process 1's */
		{ 0, 0, SY_BARRIER, EN, 3, 0, 0, 0, 0, 0 }, /* 2: process 0 starts */
		{ 0, 0, SY_SEND, EN, 4, 1, 7, 0, 0, 0 },    /* 3 */
		{ 1, 0, SY_BARRIER, EN, 5, 0, 0, 0, 0, 0 }, /* 4: process 1 starts */
		{ 0, 0, SY_BARRIER, EX, 6, 0, 0, 0, 0, 0 }, /* 5: process 0 ends after this */
		{ 0, 0, SY_SEND, EN, 7, 1, 8, 0, 0, 0 },    /* 6: ignored */
		{ 1, 0, SY_SEND, EN, 8, 0, 9, 0, 0, 0 },    /* 7 */
	};
	static const uint64_t want2[] = { 2, 3, 4, 5, 7 };
	r = rules_of("event B(proc) on enter /^MPI_Barrier$/;\n"
		     "event E(proc) on exit /^MPI_Barrier$/ if proc == 0;\n"
		     "start B;\nend E;\n", 0);
	got g;
	uint64_t ign = 0;
	feed_ign(r, ORD_MINIMAL, h2, 8, &g, NULL, &ign, NULL);
	CHECK_EQ_INT(ign, 3);
	CHECK_EQ_INT(g.n, 5);
	for (size_t i = 0; i < 5 && i < g.n; i++)
		CHECK_EQ_INT(g.id[i], want2[i]);
	ord_rules_free(r);
}

/* The order out of g (the input's indices) judged by the checker, written apart from the filter:
 * 0 when it accepts it. */
static int checked(const ord_rules *r, const dt_sync_event *ev, size_t n, const got *g)
{
	uint64_t order[64];
	for (size_t i = 0; i < g->n && i < 64; i++)
		order[i] = g->id[i];
	dt_err e;
	dt_err_clear(&e);
	int rc = ord_check(r, ev, n, order, g->n < 64 ? g->n : 64, NULL, &e);
	if (rc)
		fprintf(stderr, "the checker refuses the order: %s\n", e.msg);
	return rc;
}

/* Section 5: "THREAD_FORK t ct ... An internal buffer is created for the child thread": the
 * child's queue exists from its parent's fork, so a round waits for a child that has sent
 * nothing yet. The shipped OpenMP rules say it with `fork TEAM starts team - 1`: the master's
 * part of a region (tnum 0, with the team's size, 2) announces one worker of its process, which
 * the worker's start (its part's entry, tnum 1) satisfies. Process 0: the fork (GOMP_parallel's
 * entry), the master's part, the worker's part, the join. */
static void fork_queues(void)
{
	enum { EN = DT_SYNC_ENTER, EX = DT_SYNC_EXIT };
	static const hev h[] = {
		{ 0, 0, SY_PARALLEL, EN, 1, 0, 0, 1, 0, -1 }, /* 0: the fork (size asked: default) */
		{ 0, 0, SY_TASK, EN, 2, 0, 0, 1, 0, 2 },      /* 1: the master's part: team of 2 */
		{ 0, 0, SY_TASK, EX, 3, 0, 0, 1, 0, 2 },      /* 2 */
		{ 0, 1, SY_TASK, EN, 4, 0, 0, 1, 1, 2 },      /* 3: the worker's start */
		{ 0, 1, SY_TASK, EX, 5, 0, 0, 1, 1, 2 },      /* 4: its end */
		{ 0, 0, SY_PARALLEL, EX, 6, 0, 0, 1, 0, 2 },  /* 5: the join */
	};
	/* by hand, push by push, under maximal concurrency:
	 * 0: the only queue has a head, valid: step 0 = {0}
	 * 1: the master's part announces a worker: a queue without a head, so wait
	 * 2: wait (the worker has still sent nothing)
	 * 3: the worker's start: every queue has a head: 1 and 3 (its fork is out) are valid:
	 *    step 1 = {1, 3}; the worker's queue is empty: wait
	 * 4: heads 2 and 4, valid: step 2 = {2, 4}; the worker is off after its end
	 * 5: the join, its worker's part ended: step 3 = {5}
	 * (before, 1 and 2 went out at once in steps of their own, as the worker did not exist) */
	static const size_t want_after[] = { 1, 1, 1, 3, 5, 6 };
	static const uint64_t want_step[] = { 0, 1, 2, 1, 2, 3 }; /* by event */
	ord_rules *r = rules(NULL);
	got g;
	size_t after[6];
	dt_sync_event ev[6];
	feed_ign(r, ORD_CONCURRENT, h, 6, &g, after, NULL, ev);
	CHECK_EQ_INT(g.n, 6);
	for (size_t i = 0; i < 6; i++)
		CHECK_EQ_INT(after[i], want_after[i]);
	for (size_t i = 0; i < 6 && i < g.n; i++)
		CHECK_EQ_INT(g.step[i], want_step[g.id[i]]);
	CHECK_EQ_INT(checked(r, ev, 6, &g), 0);
	/* the worker's start arriving before the announcement (the stream keeps only each
	 * thread's order): it is counted when the announcement comes. Events 0, 3, 1, 2, 4, 5
	 * pushed: step 0 = {0}; 3 waits for the master's queue; 1 comes: step 1 = {3, 1}; 2 waits
	 * for the worker; 4: step 2 = {2, 4}; step 3 = {5} */
	static const size_t byq[] = { 0, 3, 1, 2, 4, 5 };
	hev h2[6];
	for (size_t i = 0; i < 6; i++)
		h2[i] = h[byq[i]];
	static const size_t want2_after[] = { 1, 1, 3, 3, 5, 6 };
	static const uint64_t want2_step[] = { 0, 1, 1, 2, 2, 3 }; /* by position in h2 */
	feed_ign(r, ORD_CONCURRENT, h2, 6, &g, after, NULL, ev);
	CHECK_EQ_INT(g.n, 6);
	for (size_t i = 0; i < 6; i++)
		CHECK_EQ_INT(after[i], want2_after[i]);
	for (size_t i = 0; i < 6 && i < g.n; i++)
		CHECK_EQ_INT(g.step[i], want2_step[g.id[i]]);
	CHECK_EQ_INT(checked(r, ev, 6, &g), 0);
	/* minimal intervention is not concerned: each event out as it comes */
	feed_ign(r, ORD_MINIMAL, h, 6, &g, after, NULL, ev);
	CHECK_EQ_INT(g.n, 6);
	for (size_t i = 0; i < 6; i++)
		CHECK_EQ_INT(after[i], i + 1);
	ord_rules_free(r);
}

/* Section 5, THREAD_EXIT, for a rank: the shipped MPI rules end a rank's MPI life when its
 * MPI_Finalize returns (`end FINALIZED within MPI_CALL`). Process 1 finalizes first; process 0
 * goes on with a critical section and finalizes in turn. Before, process 1's empty queue held
 * back every round until the drain. After the end, an MPI call of process 1 is ignored and
 * anything else (an OpenMP call) turns it on again. */
static void rank_end(void)
{
	enum { EN = DT_SYNC_ENTER, EX = DT_SYNC_EXIT };
	static const hev h[] = {
		{ 1, 0, SY_FINALIZE, EN, 1, 0, 0, 0, 0, 0 },   /* 0 */
		{ 1, 0, SY_FINALIZE, EX, 2, 0, 0, 0, 0, 0 },   /* 1: process 1 ends after it */
		{ 0, 0, SY_CRIT_START, EN, 3, 0, 0, 0, 0, 1 }, /* 2 */
		{ 0, 0, SY_CRIT_START, EX, 4, 0, 0, 1, 0, 1 }, /* 3 */
		{ 0, 0, SY_CRIT_END, EN, 5, 0, 0, 1, 0, 1 },   /* 4 */
		{ 0, 0, SY_CRIT_END, EX, 6, 0, 0, 1, 0, 1 },   /* 5 */
		{ 1, 0, SY_SEND, EN, 7, 0, 9, 0, 0, 0 },       /* 6: an MPI call after the end */
		{ 1, 0, SY_CRIT_START, EN, 8, 0, 0, 0, 0, 1 }, /* 7: on again */
		{ 0, 0, SY_FINALIZE, EN, 9, 0, 0, 0, 0, 0 },   /* 8 */
		{ 1, 0, SY_CRIT_START, EX, 10, 0, 0, 1, 0, 1 }, /* 9 */
	};
	/* by hand, push by push, under maximal concurrency:
	 * 0: step 0 = {0}; 1: step 1 = {1}, process 1 is off: no queue waits
	 * 2, 3, 4, 5: process 0 alone: steps 2, 3, 4, 5 of one event each
	 * 6: ignored; 7: process 1 on again with a head, process 0 empty: wait
	 * 8: heads 7 and 8: step 6 = {7, 8}; 9: process 0 empty: wait; at the drain, step 7 = {9}
	 * (before: everything after 1 waited for process 1, until the drain) */
	static const size_t want_after[] = { 1, 2, 3, 4, 5, 6, 6, 6, 8, 8 };
	static const uint64_t want_step[] = { 0, 1, 2, 3, 4, 5, 99, 6, 6, 7 }; /* by event */
	static const uint64_t want_order[] = { 0, 1, 2, 3, 4, 5 };
	ord_rules *r = rules(NULL);
	got g;
	size_t after[10];
	uint64_t ign = 0;
	dt_sync_event ev[10];
	feed_ign(r, ORD_CONCURRENT, h, 10, &g, after, &ign, ev);
	CHECK_EQ_INT(ign, 1);
	CHECK_EQ_INT(g.n, 9);
	for (size_t i = 0; i < 10; i++)
		CHECK_EQ_INT(after[i], want_after[i]);
	for (size_t i = 0; i < 9 && i < g.n; i++) {
		CHECK(g.id[i] != 6);
		CHECK_EQ_INT(g.step[i], want_step[g.id[i] % 10]);
		if (i < 6)
			CHECK_EQ_INT(g.id[i], want_order[i]);
	}
	/* the checker agrees, and refuses the ignored MPI call delivered */
	CHECK_EQ_INT(checked(r, ev, 10, &g), 0);
	static const uint64_t bad[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	dt_err e;
	dt_err_clear(&e);
	CHECK(ord_check(r, ev, 10, bad, 10, NULL, &e) != 0);
	CHECK(strstr(e.msg, "position 6: 1.0 #2 MPI_Send enter is delivered while its thread is off") != NULL);
	ord_rules_free(r);
}

int main(void)
{
	memcpy(names, synth_names, sizeof synth_names);
	names[SY_FINALIZE] = "MPI_Finalize";
	fork_queues();
	rank_end();
	thread_life();
	timestamps_monotone();
	concurrent_online();
	CHECK_DONE();
}
