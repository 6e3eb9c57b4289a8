/* never.h: the calls of a stopped run that can never complete, for the hang report (`difftrace
 * hang` and the interface's hang view): the completion of every open call (hang_pending) is put
 * through the causality filter after the run's events, and what the ordering rules still hold
 * when the input is exhausted is listed with the rule that holds it. */
#ifndef DT_ORDER_NEVER_H
#define DT_ORDER_NEVER_H

#include <stddef.h>

#include "import/sync_event.h"
#include "order/filter.h"
#include "order/hang.h"
#include "store/store.h"
#include "store/store_sync.h"
#include "util/err.h"

/* ev: the run's n events in (proc, thread, seq) order, reallocated to hold the pending
 * completions after them (the report's indices stay valid); names the function names by id;
 * ck the clocks of the traces (host alignment); rules_file NULL for the shipped rules.
 * *held gets the held queue heads in P.T order ((*held)[i].id: the index of a pending
 * completion in *thread_of, which says its thread in r, or SIZE_MAX for an event of the run);
 * *stopped the filter's error when the rules hold more than max_held (0: its default) or the
 * shipped rules cannot be read (the rest of the report still stands). Fails only on a bad
 * rules_file. Free *held with ord_held_free, *thread_of and *stopped with free. */
int hang_never(dt_sync_event **ev, size_t n, const char *const *names, size_t nnames,
	       const hang_report *r, const store_sync_clock *ck, size_t nck,
	       const char *rules_file, size_t max_held, ord_held **held, size_t *nheld,
	       size_t **thread_of, char **stopped, dt_err *e);

/* hang_never of a run streamed from the store (order/stream.h), a chunk per thread at a
 * time: pend (np of them, trace[i] the stream's trace of each) are given after the last event
 * of their trace, as hang_never puts them in arrival order; n the run's events (ids from n
 * are pend's). see (when not NULL) gets each event of the run. */
int hang_never_stream(store *s, int64_t run_id, const char *const *names, size_t nnames,
		      const dt_sync_event *pend, size_t np, const size_t *trace, uint64_t n,
		      const char *rules_file, size_t max_held,
		      void (*see)(void *, const dt_sync_event *), void *see_ctx, ord_held **held,
		      size_t *nheld, char **stopped, dt_err *e);

#endif
