/* sweep.h: one row of the sweep table, the paper's ranking table over a set of settings, made
 * once for `rank --sweep` and the interface's sweep table alike; each only chooses the
 * settings (the command line computes the analyses it lacks, the interface reads the cached
 * ones) and formats the rows.
 *
 * A row compares the two runs' analyses under one setting: the B-score of the two clusterings,
 * the traces by JSM_D's row sum (the paper's; with the trace's own change under self) with
 * their scores, the traces whose sum is 0 left out (no suspects), the processes by the same
 * sums, how many more tie with the last one listed, and, when no trace is listed, whether the
 * setting sees no difference at all or only not in the sums (the kept events differ: an order
 * or a count the attributes do not see). */
#ifndef DT_SWEEP_H
#define DT_SWEEP_H

#include <stddef.h>

#include "analysis/analysis.h"
#include "analysis/cluster.h"
#include "analysis/rank.h"
#include "store/store.h"

typedef struct sw_opts {
	enum clu_linkage linkage;
	int self;              /* JSM_D plus the trace's own change (--score jsmd-self) */
	size_t threads, procs; /* at most this many listed (RANK_TOP_MAX at most) */
} sw_opts;

/* The row of analyses rn (normal) and rf (faulty) of one setting: every field of row but its
 * filter and attributes (the caller's strings, rn->filter_alias and rn->meta.attrs as the
 * table names them); matched (may be NULL): the traces both runs have. 0, or -1 (e set). */
int sw_row(store *s, const an_result *rn, const an_result *rf, const sw_opts *o, rank_row *row,
	   size_t *matched, dt_err *e);

#endif
