/* store_sync_stream.h: the sync events of a run read a thread at a time and a chunk at a time
 * (store_sync.h's store_sync_list reads them all at once): memory for one chunk of each
 * thread that has sync events, whatever the length of the record. For `difftrace order`, which
 * merges the threads by time as it goes (order/stream.h). */
#ifndef DT_STORE_SYNC_STREAM_H
#define DT_STORE_SYNC_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "import/sync_event.h"
#include "store/store.h"

typedef struct store_sync_stream store_sync_stream;

/* The run's traces that have sync events, by proc and thread, each with its first chunk read.
 * *out NULL (and 0) when the run has none. */
int store_sync_stream_open(store *s, int64_t run_id, store_sync_stream **out, dt_err *e);
void store_sync_stream_close(store_sync_stream *ss);
/* The traces (the same as store_sync_list's events' proc, thread, host). */
size_t store_sync_stream_ntraces(const store_sync_stream *ss);
void store_sync_stream_trace(const store_sync_stream *ss, size_t k, int32_t *proc,
			     int32_t *thread, int32_t *host);
/* The events of trace k not given yet, in seq order, as much as one chunk holds: *ev points
 * into the stream, valid until the next call for k; *n 0 at the trace's end. */
int store_sync_stream_next(store_sync_stream *ss, size_t k, const dt_sync_event **ev, size_t *n,
			   dt_err *e);

#endif
