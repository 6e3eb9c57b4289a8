/* timing.h: a performance change among traces whose calls agree (issue 23).
 *
 * One rank's function does three times the work with the same calls: nothing the ranking
 * compares differs, but the store has every call's time. For every trace of both runs, each
 * function's self time (fstats.h); for each function, its factor in each trace (its faulty
 * self time over its normal one). A trace's function is a change when its factor stands out
 * from its peers' (the other traces with that function): at least TM_MIN_FACTOR times their
 * median, beyond three times the peers' own spread around it (the noise between runs and
 * between peers), and the time it gained over what its peers' factor would give is at least
 * TM_MIN_SHARE of the time the trace worked (the self time of its own functions) and
 * TM_MIN_GAIN_NS. The calls that wait for others (MPI,
 * OpenMP, threads, sleeping) are left out: their time grows in every trace that waits for a
 * slow one, and start-up time (MPI_Init) is noise. */
#ifndef DT_TIMING_H
#define DT_TIMING_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

#define TM_MIN_FACTOR 1.5
#define TM_MIN_SHARE 0.05
#define TM_MIN_GAIN_NS 100000

typedef struct tm_find {
	int32_t proc, thread;
	uint32_t func;        /* the function whose time grew most beyond its peers' */
	uint64_t self_n, self_f; /* its self time in the normal and the faulty trace, ns */
	double factor;        /* self_f / self_n */
	double peers;         /* the median factor of its peers */
	uint64_t gained;      /* ns beyond what the peers' factor gives */
	int significant;      /* it passes every bound above */
} tm_find;

/* Every matched trace with timestamps in both runs, its largest gain first (the significant
 * ones before the others); *out malloc'ed. Traces without timestamps are left out. */
int tm_compare(store *s, const char *normal, const char *faulty, tm_find **out, size_t *n,
	       dt_err *e);
/* Whether a function's time is waiting or start-up rather than work of its own. */
int tm_waits(const char *name);

#endif
