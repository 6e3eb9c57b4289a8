/* verdict_data.h: when no calls differ, the arguments and the data the recorded calls passed
 * (METHOD.md §8, difftrace-sync(5)).
 *
 * A bug that changes only data (a rank that sends wrong values, a Put to another
 * displacement) leaves the calls of every trace alike. The sync record has more of each call
 * than a trace: the one-sided calls' targets, displacements and asserts, and with
 * difftrace-record --payload a digest of the bytes each send, put and collective contribution
 * passed. Each thread's entries are compared with its counterpart's in the normal run, in program order; the first
 * that differs is where the thread's data (or an argument) departed. Receivers of wrong data
 * change after it: so the traces that changed are put in causal order of that first
 * difference, the earliest first: the order `order` gives (the shipped rules' causality filter
 * over the faulty run's events), or the recorded clock (each host's put on the wall clock) when
 * the rules cannot be loaded or a run cut short never released one of those entries. */
#ifndef DT_VERDICT_DATA_H
#define DT_VERDICT_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/rank.h"
#include "analysis/verdict.h"
#include "import/sync_event.h"
#include "store/store.h"

/* The first entry of b (faulty) that differs from a's (normal), over entries (phase
 * DT_SYNC_ENTER) in order: 0 none (or one thread ended early: not a change of data), 1 its
 * sent data (the digests differ, the calls are alike), 2 its arguments (hr_same_call), 3 a
 * nonblocking send whose buffer the thread wrote while it was in flight (the digest at its
 * completion differs from the digest at the call; not so in a's counterpart). *at
 * gets the entry's index in b and *other its counterpart's in a; *nth counts the entries of
 * b up to it with its call, peer and tag (1 the first). Pure. */
int vd_data_compare(const dt_sync_event *a, size_t na, const dt_sync_event *b, size_t nb,
		    size_t *at, size_t *other, uint64_t *nth);
/* Marks the traces of v whose calls are identical (change VD_SAME) but whose recorded data or
 * arguments differ (data, data_ord and the fields of the reason), and puts v in order. Returns
 * how many (0 when a run has no sync record), -1 on error. */
int vd_data_apply(store *s, int64_t run_normal, int64_t run_faulty, const rank_key *keys,
		  vd_rank *v, dt_err *e);
/* The reason of a trace marked so: "sent data differs: MPI_Send to 2 tag 5, the 3rd, first in
 * causal order". */
void vd_data_reason(store *s, const vd_item *it, char *buf, size_t cap);

#endif
