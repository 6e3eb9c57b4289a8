/* fstats.h: per-function call counts and times of a run, and the delta of two runs, as
 * `uftrace report` and `uftrace report --diff` give them.
 *
 * The caller feeds each trace's events (a function id for a call, DT_RET for a return) with
 * their timestamps; a call's total time is from its entry to its return, its self time that
 * minus the total time of the calls made inside it. A return with no call open (the trace began
 * inside a call) is skipped; calls still open at the end of a trace end at its last timestamp.
 * A recursive function's total counts each level (uftrace counts the outermost only): the
 * delta of two runs is what matters here, and both runs are counted the same way. No I/O. */
#ifndef DT_FSTATS_H
#define DT_FSTATS_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"
#include "util/err.h"

typedef struct fstat {
	uint64_t calls;
	uint64_t total, self; /* nanoseconds (the recording's clock) */
} fstat;

typedef struct fstats {
	fstat *f;       /* by function id */
	size_t nf;
	int has_time;   /* every trace fed had timestamps */
	int fed;        /* a trace was fed */
	/* the trace being fed */
	struct fframe {
		uint32_t fid;
		uint64_t start, child;
	} *stack;
	size_t nstack, capstack;
	uint64_t last_ts;
} fstats;

void fstats_init(fstats *s);
void fstats_free(fstats *s);
/* Starts a trace; has_time says whether its events carry timestamps. */
void fstats_begin(fstats *s, int has_time);
/* n events of the trace (ts NULL without timestamps). */
void fstats_push(fstats *s, const uint32_t *ev, const uint64_t *ts, size_t n);
/* Ends the trace: the calls still open end at its last timestamp. */
void fstats_end(fstats *s);

/* One function in the delta of two runs. */
typedef struct fdelta {
	uint32_t fid;
	fstat a, b;   /* normal, faulty */
	uint64_t key; /* the change it is sorted by */
} fdelta;

enum fdelta_sort { FD_TOTAL, FD_SELF, FD_CALLS };

/* Feeds every trace of run (or, when p >= 0, trace p.t only) from the store into s. */
int fstats_load(store *st, const char *run, int p, int t, fstats *s, dt_err *e);

/* The functions called in either run, largest change first (by the absolute difference of
 * total time, self time or calls; then by name order of id). *out is malloc'ed. */
void fstats_delta(const fstats *a, const fstats *b, int sort, fdelta **out, size_t *n);

#endif
