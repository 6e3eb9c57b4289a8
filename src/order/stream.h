/* stream.h: a run's sync events from the store in arrival order (arrival.h), read a chunk of
 * a thread at a time (store_sync_stream.h) and merged by time as they are given: memory for
 * one chunk of each thread, not the record. The order is ord_arrival's: by aligned timestamp,
 * then proc and thread, a thread's events in their program order; a thread whose aligned
 * time goes back (ord_arrival sorts the whole record then) is merged at the time of its
 * latest event until its time passes it again. For `difftrace order`. */
#ifndef DT_ORDER_STREAM_H
#define DT_ORDER_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "import/sync_event.h"
#include "store/store.h"

typedef struct ord_stream ord_stream;

/* *out NULL (and 0) when the run has no sync events. */
int ord_stream_open(store *s, int64_t run_id, ord_stream **out, dt_err *e);
void ord_stream_close(ord_stream *st);
/* ns to add to each host's timestamps (ord_host_offsets of the run's events). */
const int64_t *ord_stream_offsets(const ord_stream *st, size_t *nhost);
/* The next event (*ev valid until the next call), NULL after the last. */
int ord_stream_next(ord_stream *st, const dt_sync_event **ev, dt_err *e);
/* The traces (store_sync_stream's). */
size_t ord_stream_ntraces(const ord_stream *st);
/* The trace (store_sync_stream's index) of the event the last ord_stream_next gave. */
size_t ord_stream_trace(const ord_stream *st);
/* Events to give after the last of trace k, as if recorded there (the hang report's pending
 * completions, at its last event's time); ev stays the caller's. Before the first
 * ord_stream_next; for a trace that has events. */
void ord_stream_tail(ord_stream *st, size_t k, const dt_sync_event *ev, size_t n);

#endif
