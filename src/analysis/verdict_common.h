/* verdict_common.h: the change common to a class of traces (common.h) as evidence for the
 * default ranking (verdict.h), when its comparison does not single out a trace.
 *
 * A faulty run started with other arguments or another input changes every trace that reads
 * them in the same way, and the ranking then blames whichever changed most. When every matched
 * trace differs, or the first place is tied, each diverged trace's change is set against the
 * change common to its class: a trace that changed only by it is marked common and comes after
 * the diverged traces that changed more (still before the ones that stopped early or are
 * identical); one that changed more is marked beyond, with where it departs once the common
 * change is left out. The order is otherwise the verdict's. */
#ifndef DT_VERDICT_COMMON_H
#define DT_VERDICT_COMMON_H

#include <stdint.h>

#include "analysis/rank.h"
#include "analysis/verdict.h"
#include "store/store.h"

/* Sets common, beyond, c_at, c_ev_n, c_ev_f of v's items (keys: the traces' P.T, by item's i)
 * and v->common from the analyses fn (normal) and ff (faulty) of the comparison, and puts v
 * in order. Nothing changes when no trace changed more than the change its peers share (the
 * common change is then all there is, and may be the bug itself: one in every worker). */
int vd_common_apply(store *s, int64_t fn, int64_t ff, const rank_key *keys, vd_rank *v,
		    dt_err *e);

#endif
