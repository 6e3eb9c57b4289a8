/* evtimes.h: when the events an analysis kept of a trace happened.
 *
 * The analysis keeps of each trace the events its filter keeps (calls, and their returns when
 * the filter keeps those), and compresses them; their times stay in the store with all the
 * trace's events. evtimes_load filters the trace again with the analysis's filter and gives,
 * for kept event i (the i-th symbol of the NLR entries unrolled), when it happened and when
 * the call it opens returned, so a view can show the start and the duration of any entry or
 * loop iteration. The filter is rebuilt from the analysis's canonical form; when it no longer
 * keeps the same number of events (a family file edited since) the times are refused, never
 * shown against the wrong events. */
#ifndef DT_EVTIMES_H
#define DT_EVTIMES_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/analysis.h"

typedef struct evtimes {
	uint64_t *start; /* the time of kept event i (ns, the trace's clock) */
	uint64_t *end;   /* of a call: when it returned (its start when it never did) */
	size_t n;
	uint64_t t0;     /* the trace's first timestamp */
} evtimes;

/* Kept events above this many are not timed (the arrays take 16 bytes each). */
#define EVTIMES_MAX (64u << 20)

/* 1 and *out filled; 0 with *why set when the trace has no times (or too many events); -1 on
 * error. */
int evtimes_load(store *s, const an_result *r, int obj, evtimes *out, char *why, size_t nwhy,
		 dt_err *e);
void evtimes_free(evtimes *t);

/* The call depth of each kept event: how many kept calls are open around it (a kept return: the
 * depth of its call), saturated at 65535; *depth has *n entries (malloc'ed). The trace needs no
 * timestamps for this. 1, 0 with *why set, or -1, as evtimes_load. */
int evtimes_depth(store *s, const an_result *r, int obj, uint16_t **depth, size_t *n, char *why,
		  size_t nwhy, dt_err *e);

/* The position in the trace of the event each kept event comes from (a filter may keep copies
 * of one event), *raw of *n entries (malloc'ed). 1, 0 with *why set, or -1, as evtimes_load. */
int evtimes_raw(store *s, const an_result *r, int obj, uint64_t **raw, size_t *n, char *why,
		size_t nwhy, dt_err *e);

/* The same of trace t under filter (an analysis's canonical form, named alias for people),
 * which keeps want events of it: for an analysis known only by its head (analysis.h). With
 * only (nonly positions of kept events, ascending), *raw has the position of those alone, and
 * any number of kept events is followed. */
int evtimes_raw_trace(store *s, const char *filter, const char *alias, const store_trace *t,
		      uint64_t want, const uint64_t *only, size_t nonly, uint64_t **raw,
		      char *why, size_t nwhy, dt_err *e);

/* "12.345 us"-style text of a span of ns nanoseconds, at most 10 columns. */
void evtimes_fmt(uint64_t ns, char *buf, size_t n);

#endif
