/* chrome_calls.h: the program's calls of a run as Chrome trace events, beside its sync events
 * in `difftrace order --format chrome`: each call of each trace with timestamps a complete
 * ("X") event on the trace's row (pid P, tid T), from its entry to its return, so that the
 * slices nest as the calls did. The times are the trace's (the host's monotonic clock) moved by
 * the host's offset, as the sync events are (order/arrival.h). */
#ifndef DT_EXPORT_CHROME_CALLS_H
#define DT_EXPORT_CHROME_CALLS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "import/sync_event.h"
#include "store/store.h"
#include "util/err.h"

typedef struct chrome_calls {
	store *s;
	int64_t run_id;
	const dt_sync_event *ev; /* the run's sync events in store order (proc, thread, seq) */
	size_t nev;
	const int64_t *off;      /* ns to add per host (ord_host_offsets) */
	size_t nhost;
	uint64_t max_calls;      /* calls written in all, shared evenly among the traces */
	/* out: what was left out */
	size_t ncut;             /* traces cut short */
	uint64_t nshown, nall;   /* calls written, calls of the traces with times */
	size_t nnotime;          /* traces without timestamps (none of their calls written) */
	int first;               /* no event written yet */
} chrome_calls;

/* Writes the calls, each event as ",\n{...}" ("\n{...}" for the first when first: nothing was
 * written before them).
 * A trace with more calls than its share gets its first ones and an instant event "calls
 * cut here" where the rest begin. */
int chrome_calls_write(FILE *out, int first, chrome_calls *cc, dt_err *e);

#endif
