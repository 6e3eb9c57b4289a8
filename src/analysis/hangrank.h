/* hangrank.h: culprits before victims in a hung run, from the hang-safe record (METHOD.md §8,
 * difftrace-sync(5)).
 *
 * A trace recording (uftrace) of a hung run loses the calls its threads are blocked in and, on
 * a loaded machine, more; the sync record does not (every entry is in the file before the
 * call can block). When both runs have a sync record and the faulty run ended with a thread
 * inside a call, each thread's sequence of call entries (the call and the arguments that
 * identify it: communicator, peers, tags, root, count, datatype, op) is compared with its
 * counterpart's in the normal run:
 *   - a thread whose entries depart from its counterpart's (not merely shorter) broke the
 *     pattern: the rank that left its loop, broadcast from another root, sent with a tag
 *     nobody receives, received first, did not send its result;
 *   - a thread whose entries are the beginning of its counterpart's stopped where it was
 *     made to wait; of these, one that others wait for at the end (the wait-for graph of the
 *     hang report, hang.h) and that waits for nobody is where the run is held (a thread
 *     computing or spinning outside the recorded calls).
 * An argument that every thread making a call changed alike (argchange.h: the count of every
 * MPI_Send and MPI_Recv, the faulty run started with another size) is the input, not the
 * bug: it is left out of the comparison, and named (hr_info's args).
 * verdict.c ranks the first kind first, then the second, then the rest by the trace
 * comparison; bystanders (waiting in MPI_Finalize, in a final barrier) are neither. */
#ifndef DT_HANGRANK_H
#define DT_HANGRANK_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/argchange.h"
#include "import/sync_event.h"
#include "order/hang.h"
#include "store/store.h"

enum hr_cmp { HR_SAME = 0, HR_PREFIX = 1, HR_DIVERGED = 2 };

typedef struct hr_thread {
	int32_t proc, thread;
	int cmp;              /* enum hr_cmp: this thread's entries against its counterpart's */
	uint64_t at;          /* entries in common at the start */
	uint64_t nn, nf;      /* entries in the normal and the faulty run */
	dt_sync_event en, ef; /* the first entries that differ (func 0: past the end) */
	size_t waiters;       /* threads that wait for it at the end */
	int waits;            /* it waits for another thread at the end */
	int state;            /* enum hang_state at the end */
	uint32_t func;        /* the call it is in at the end (or its last call) */
	uint64_t occurrence;  /* which call of func that is */
	char where[200];      /* where the program made that call, "file:line (function)",
			       * escaped; "" when not known */
	uint32_t site;        /* and its site id (the faulty run's sites), 0 when not known */
} hr_thread;

typedef struct hr_info {
	hr_thread *t; /* threads present in both sync records, in (proc, thread) order */
	size_t n;     /* 0: no comparison (a run without a sync record, or no hang) */
	/* the arguments every thread changed alike, left out (func: a function id; key: the
	 * field, hr_field_name) */
	ac_set args;
} hr_info;

/* Compares the sync records of the two runs when the faulty one hung (a thread left inside a
 * call). out->n is 0 when there is nothing to compare. The faulty run's hang report is made
 * as `difftrace hang` streams it (order/hangscan.h), and each thread's entries are compared
 * with its counterpart's a chunk of both at a time (store_sync_stream.h): memory for the
 * report and a chunk of each thread, not for the records. */
int hr_build(store *s, int64_t run_normal, int64_t run_faulty, hr_info *out, dt_err *e);
/* hr_build with the faulty run's report made already (rep, and ev the events its indices
 * refer to). */
int hr_build_report(store *s, int64_t run_normal, int64_t run_faulty, const hang_report *rep,
		    const dt_sync_event *ev, hr_info *out, dt_err *e);
/* hr_build of both records loaded whole (store_sync_list) and the faulty run's report by
 * hang_analyze: the same result, memory for both records (`difftrace hang --whole`). */
int hr_build_whole(store *s, int64_t run_normal, int64_t run_faulty, hr_info *out, dt_err *e);
/* Compares two threads' entry sequences (pure: events of one thread each, in seq order, any
 * phase; only entries count). Sets cmp, at, nn, nf, en, ef. */
void hr_compare(const dt_sync_event *a, size_t na, const dt_sync_event *b, size_t nb,
		hr_thread *t);
/* The same, an argument changed as c has it (a common change, argchange.h) not a change. */
void hr_compare_but(const dt_sync_event *a, size_t na, const dt_sync_event *b, size_t nb,
		    const ac_set *c, hr_thread *t);
/* The name of field k of a common change of hr_info's args ("count", "dest"). */
const char *hr_field_name(size_t k);
/* The common changes of the arguments for people: "count 64 -> 200000 in MPI_Send, MPI_Recv";
 * "" when none; names escaped. */
void hr_args_text(store *s, const ac_set *c, char *buf, size_t cap);
/* Whether two entries are the same call with the same arguments (those that identify it across
 * runs: not the request, the object, the timestamps, the payload digest). */
int hr_same_call(const dt_sync_event *a, const dt_sync_event *b);
const hr_thread *hr_find(const hr_info *h, int proc, int thread);
void hr_free(hr_info *h);
/* An entry for people: "MPI_Bcast[root=1]" with the fields that tell it from other (all its
 * fields when other is NULL or another call); names escaped. */
void hr_event_text(store *s, const dt_sync_event *x, const dt_sync_event *other, char *buf,
		   size_t cap);

#endif
