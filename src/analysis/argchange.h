/* argchange.h: the arguments every trace changed alike (a changed input, issue 23).
 *
 * A faulty run started with another size gives every MPI_Send and MPI_Recv another count, in
 * every rank alike: the input, not the bug. Each trace's calls are walked beside its
 * counterpart's while the two make the same calls (up to the first call that differs); at
 * each such call every argument is seen with its value in the normal run and in the faulty
 * one. An argument change (function, argument, normal value -> faulty value) is common when
 * two traces or more make that call with that normal value there, and every one of them
 * changed it to the same other value (a trace that kept it, or changed it otherwise, vetoes
 * it: one rank alone sending another count is not an input). Pure: functions, arguments and
 * values are numbers the caller chooses (ids, or hashes of names). */
#ifndef DT_ARGCHANGE_H
#define DT_ARGCHANGE_H

#include <stddef.h>
#include <stdint.h>

typedef struct ac_change {
	uint64_t func, key;  /* the call and the argument */
	int64_t from, to;    /* its value in the normal run, and in the faulty one */
	size_t traces;       /* the traces that make it */
	uint64_t ex;         /* the caller's: an example of the call (an event id) */
} ac_change;

typedef struct ac_set {
	ac_change *c; /* by func, key, from */
	size_t n, cap;
	size_t *idx;  /* while seeing: a hash of the entries (their index + 1), so that each
		       * (func, key, from, to, trace) is kept once however often it is seen */
	size_t nidx;
} ac_set;

/* One argument of a call seen in trace `trace` (traces seen in increasing order); kept once
 * per (func, key, from, to, trace): memory of the distinct values, not of the calls. */
void ac_see(ac_set *seen, uint64_t func, uint64_t key, int64_t from, int64_t to, size_t trace,
	    uint64_t ex);
/* The common changes of what was seen into out (seen is emptied). */
void ac_decide(ac_set *seen, ac_set *out);
/* Whether from -> to of that argument is a common change. */
int ac_is_common(const ac_set *c, uint64_t func, uint64_t key, int64_t from, int64_t to);
/* The common change of that argument to `to` (NULL: none). */
const ac_change *ac_back(const ac_set *c, uint64_t func, uint64_t key, int64_t to);
void ac_free(ac_set *c);

#endif
