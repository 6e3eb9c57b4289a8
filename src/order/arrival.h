/* arrival.h: the order in which a run's recorded sync events are fed to the causality filter:
 * by timestamp, each host's monotonic clock put on the wall clock with the readings its record
 * holds (relative to host 0, so the numbers stay those of the recording), a thread's own events
 * in their program order. Shared by `difftrace order` and the interface's timeline. */
#ifndef DT_ORDER_ARRIVAL_H
#define DT_ORDER_ARRIVAL_H

#include <stddef.h>
#include <stdint.h>

#include "import/sync_event.h"
#include "store/store_sync.h"

/* ns to add to the timestamps of each host (malloc'ed, *nhost of them, at least one entry). */
int64_t *ord_host_offsets(const dt_sync_event *ev, size_t n, const store_sync_clock *ck,
			  size_t nck, size_t *nhost);
/* idx[0..n) gets the indices of ev in arrival order. */
void ord_arrival(const dt_sync_event *ev, size_t n, const int64_t *off, size_t *idx);

#endif
