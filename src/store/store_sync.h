/* store_sync.h: reading the sync events of a run (import/sync_event.h), the input of the
 * order stage and of the hang report. */
#ifndef DT_STORE_SYNC_H
#define DT_STORE_SYNC_H

#include <stddef.h>
#include <stdint.h>

#include "import/sync_event.h"
#include "store/store.h"

/* All sync events of a run, ordered by proc, thread, seq, with proc, thread and host filled
 * (host: the index of the trace's host among the run's hosts, in order of their first
 * process). *ev is malloc'd (NULL when there are none); the caller frees it. */
int store_sync_list(store *s, int64_t run_id, dt_sync_event **ev, size_t *n, dt_err *e);

/* The clock of each trace that has sync events: a monotonic and a wall-clock reading taken
 * together on its host. */
typedef struct store_sync_clock {
	int32_t proc, thread;
	int32_t clock_id;
	int64_t mono_ns, real_ns;
} store_sync_clock;

int store_sync_clocks(store *s, int64_t run_id, store_sync_clock **c, size_t *n, dt_err *e);

/* The run's host names, by the index store_sync_list gives; *names is an array of malloc'd
 * strings (free each, then the array). */
int store_sync_hosts(store *s, int64_t run_id, char ***names, size_t *n, dt_err *e);

#endif
