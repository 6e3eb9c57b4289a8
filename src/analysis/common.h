/* common.h: the change that every trace of a class makes in the same way (issue 23).
 *
 * A faulty run started with other arguments, or reading another input, changes every trace
 * that parses them the same way: more strtol calls at the start of every main thread, another
 * iteration count everywhere. That is the input, not the bug. Each trace's change is
 * summarised as the difference of its call counts, function by function (faulty less
 * normal). The common change of a trace is the functions whose calls changed the same way
 * (more, or fewer; by how many may differ, rank 0 parsing more than the others) in every
 * trace of its class (its behaviour in the normal run), or, for a trace alone in its class,
 * in every trace that changed, when three or more did (the ranks of a halo exchange parse the
 * same arguments but differ in the rest; two changed traces are as likely the two sides of one
 * bug). A trace whose calls, those functions left out, are its counterpart's
 * changed only as its peers did; any other departs from them where the two then part.
 *
 * Pure: sequences of events (0 a return, else a function), no store. */
#ifndef DT_COMMON_H
#define DT_COMMON_H

#include <stddef.h>
#include <stdint.h>

typedef struct cc_delta {
	uint32_t f; /* the function */
	int64_t d;  /* its calls in the faulty trace less those in the normal one (never 0); in a
		       common change, the smallest such difference of the traces sharing it */
} cc_delta;

typedef struct cc_set {
	cc_delta *d; /* by function */
	size_t n;
} cc_set;

/* The differences of b's call counts against a's (returns are not counted). */
void cc_deltas(const uint32_t *a, size_t na, const uint32_t *b, size_t nb, cc_set *out);
void cc_free(cc_set *c);
int cc_equal(const cc_set *a, const cc_set *b);
/* The same functions (whatever the differences). */
int cc_same_functions(const cc_set *a, const cc_set *b);
/* The common change of each of n traces into out[k]: the differences shared by every trace of
 * its class (cls[k]) when the class has two traces or more, else those shared by every trace
 * that changed (ds[k].n > 0), when three or more did. */
void cc_common(const cc_set *ds, const int64_t *cls, size_t n, cc_set *out);
/* a and b compared with every return and the calls of c's functions dropped: 1 when they are
 * the same (the change is c's alone); else 0, with the calls in common at the start (*at) and
 * the first that differ (0 past the end). */
int cc_reduced_same(const uint32_t *a, size_t na, const uint32_t *b, size_t nb, const cc_set *c,
		    uint64_t *at, uint32_t *ev_a, uint32_t *ev_b);
/* The position in v of its call number at (from 0) once every return and the calls of c's
 * functions are dropped, as cc_reduced_same counts them; n past the end. */
size_t cc_reduced_index(const uint32_t *v, size_t n, const cc_set *c, uint64_t at);
/* Of the n traces whose flag is set, the common change (cs[k]) shared by the most of them
 * (the same functions), copied into out; returns how many share it (0: none flagged, out
 * empty). For a header: "3 traces changed only as their peers did (+2 strtol)". */
size_t cc_most_shared(const cc_set *cs, const int *flag, size_t n, cc_set *out);
#endif
