/* hangscan.h: the hang report (hang.h) of a run whose events stream by: each event is seen
 * once, in arrival order (order/stream.h), and only what the report needs is kept: per
 * thread its open calls, the locks it holds, its last call and how many of it; per process
 * its requests not completed and the highest acquisition of each lock; the communicators'
 * members; the sends no receive took yet; per communicator, process and thread the run of
 * its collectives, a run of calls alike kept as one. Memory grows with those, not with the
 * length of the record. The report is the one hang_analyze, hang_pending and
 * hang_cause_find make of the whole record, with the requests numbered uniquely within a
 * process (difftrace-sync(5)), and one difference: when several threads of a process send
 * messages of one envelope (source, destination, tag) and some go unreceived, the receives
 * take them in the order they stream by (time), where the whole record's analysis takes them
 * thread after thread; a near-match may then name another of those sends. */
#ifndef DT_ORDER_HANGSCAN_H
#define DT_ORDER_HANGSCAN_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/hangcause.h"
#include "import/sync_event.h"
#include "order/hang.h"
#include "util/err.h"

typedef struct hang_scan hang_scan;

/* ntraces: the traces of the stream (store_sync_stream's). */
hang_scan *hang_scan_new(const char *const *names, size_t nnames, size_t ntraces);
void hang_scan_free(hang_scan *h);
/* One event of trace k (events of a trace in their program order). */
int hang_scan_push(hang_scan *h, size_t k, const dt_sync_event *v, dt_err *e);
/* The events pushed. */
uint64_t hang_scan_count(const hang_scan *h);
/* The report, after the last push: *ev (malloc'ed, *nev) the events its indices refer to. */
int hang_scan_report(hang_scan *h, hang_report *r, dt_sync_event **ev, size_t *nev, dt_err *e);
/* hang_pending's completions of the open calls (after hang_scan_report): *trace the trace of
 * each (the stream's index), *thread_of its thread in r. */
size_t hang_scan_pending(hang_scan *h, const hang_report *r, const dt_sync_event *ev,
			 dt_sync_event **out, size_t **thread_of, size_t **trace);
/* The first collective whose members disagree (hang_cause's step 3); its two events are
 * captured as the run streams again (hang_scan_capture), then appended to *ev by
 * hang_scan_odd_events, which fills odd->odd and odd->usual. */
void hang_scan_odd(hang_scan *h, const hang_report *r, hang_coll_odd *odd);
void hang_scan_capture(void *h, const dt_sync_event *v);
void hang_scan_odd_events(hang_scan *h, hang_coll_odd *odd, dt_sync_event **ev, size_t *nev);

#endif
