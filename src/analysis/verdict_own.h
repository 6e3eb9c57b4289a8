/* verdict_own.h: the program's own calls as further evidence for the default ranking
 * (verdict.h), when the filter's comparison does not single out a trace.
 *
 * Under the default filter a noise that every process shows (the number of MPI_Test polls
 * varies from run to run) makes every trace differ, and a thread whose own compute path
 * changed (one more call of a compute function) is only one of many diverged traces, ranked by
 * a score the noise dominates. So when every matched trace differs under the filter, or the
 * first place is tied, each trace's calls that the filter drops (the program's own functions,
 * and any other call the filter does not keep: every call of the `everything` analysis whose
 * function the filter's kept events of that trace never show, returns aside) are compared
 * exactly with its counterpart's too; within each class of the verdict's order (the hang-safe
 * record's tiers, then diverged, stopped early, identical) the traces whose own calls differ
 * come first (in a run that was cut, own calls that only stopped early do not count). A
 * change of the own calls that every trace of a class made alike (common.h: the faulty run
 * started with other arguments parses them with more strcmp and strtol in every rank) is the
 * input, not the bug: it is left out of the comparison, and named in the header. The order is
 * otherwise the verdict's. */
#ifndef DT_VERDICT_OWN_H
#define DT_VERDICT_OWN_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/rank.h"
#include "analysis/verdict.h"
#include "store/store.h"

/* Whether v (the verdict of n matched traces) leaves the first place open: at least two traces
 * differ, and every trace differs or the first two share their position. */
int vd_own_undecided(const vd_rank *v);

/* Compares the calls the filter drops: fa/fb the kept events of a trace and its counterpart
 * under the filter (normal a, faulty b), ea/eb the same under `everything`. Sets it's own,
 * own_at, own_n, own_ev_n and own_ev_f. In a faulty run that was cut (cut: a call left open,
 * the run stopped), own calls that are only the beginning of the counterpart's do not count:
 * every thread of a stopped run has those. */
void vd_own_compare(const uint32_t *fa, size_t nfa, const uint32_t *fb, size_t nfb,
		    const uint32_t *ea, size_t nea, const uint32_t *eb, size_t neb, int cut,
		    vd_item *it);

/* With c the change of the own calls (a normal, b faulty, own_pair's) common to the trace's
 * class (common.h): an item whose own calls differ only by c is no longer own but own_input;
 * one that changed more has own_at, own_ev_n and own_ev_f with c left out. */
void vd_own_common(const uint32_t *a, size_t na, const uint32_t *b, size_t nb, const cc_set *c,
		   int cut, vd_item *it);

/* Sets the own-call fields of every item of v (keys: the traces' P.T, by item's i) from the
 * analyses of the filter (fn normal, ff faulty) and of `everything` (en, ef), and puts v in the
 * order with them (vd_order). */
int vd_own_apply(store *s, int64_t fn, int64_t ff, int64_t en, int64_t ef, const rank_key *keys,
		 vd_rank *v, dt_err *e);

#endif
