/* diagnosis.h: the verdict of a faulty run against a normal one, decided once for every
 * front-end. `rank` (text, CSV, JSON) and the interface's ranking view only format what
 * dg_rank returns; a rule of the ranking is written here, not in each of them.
 *
 * The decisions, in order (METHOD.md §8, difftrace(1) under rank):
 *   1. the ranking under the front-end's setting: read from the store's ranking cache
 *      (rankcache.h) when it has it, else computed from the two analyses (JSM_D, B-score, the
 *      verdict of verdict.h with the hang-safe record's tiers) and kept there;
 *   2. the filter is blind: no matched trace's kept events differ (a trace in one run only is
 *      listed apart whatever the filter).
 *      Every call (AN_FALLBACK_FILTER) is then ranked too, and when it sees a difference the
 *      verdict is that one (blind names the filter); `--score jsmd` stays under its filter and
 *      only says so (own_only);
 *   3. two traces or more changed: a change every trace of a class makes alike is a changed
 *      input (verdict_common.h), and the traces that changed more than it come first;
 *   4. the filter singles out no trace (verdict_own.h): the calls it drops are compared and
 *      order each class (other names the filter);
 *   5. no calls differ at all: the traces whose own functions took longer than their peers'
 *      (timing.h) come first, with the function and its factor (v->use->k.v.nslow);
 * Then what is listed: under --score jsmd the traces in JSM_D's order, and the pairs whose
 * similarity changed (v->pairs), so that the front-ends only print them.
 * An analysis the front-end computes elsewhere (the interface's background) is reported as
 * pending, and the verdict is the filter's until it is there. */
#ifndef DT_DIAGNOSIS_H
#define DT_DIAGNOSIS_H

#include <stdint.h>

#include "analysis/an_lookup.h"
#include "analysis/analysis.h"
#include "analysis/rankcache.h"
#include "store/store.h"

/* Where the analyses come from: the front-end's cache of them (an_lookup.h), which computes
 * them on the spot (the command line) or in the background (the interface), and its setting.
 * The analysis of every call is the setting's under AN_FALLBACK_FILTER (al_every). */
typedef struct dg_source {
	al_cache *cache;
	an_params p;
	/* ids may be used: the ranking cache is read and kept. 0 over a read-only store's
	 * analyses made in memory by another connection (the interface's). */
	int by_id;
	/* a diff's decision reads the analyses' traces only (al_objects), not them whole */
	int objects;
} dg_source;

typedef struct dg_opts {
	const char *normal, *faulty;
	enum clu_linkage linkage;
	/* --score jsmd: stays under the setting's filter when it is blind, and the traces are in
	 * the order of JSM_D's row sums (rank_order, running traces first; needs matrix), ties
	 * sharing a position; self (jsmd-self): each row sum plus the trace's own change */
	int jsmd, self;
	int matrix; /* JSM_D is needed whole (its full order, more pairs than the cache keeps) */
	int keep;   /* keep a ranking computed in the store's cache */
	size_t pairs; /* the pairs the front-end lists, at most */
} dg_opts;

/* One ranking of the two runs under one filter. */
typedef struct dg_ranked {
	const an_result *rn, *rf; /* the analyses compared; their heads only when from the cache */
	an_result hn, hf;         /* those heads */
	int have_h;
	rk_rank k;                /* JSM_D (whole only when computed with matrix), the verdict */
	int have;
} dg_ranked;

typedef struct dg_verdict {
	dg_ranked set;        /* under the setting's filter */
	dg_ranked every;      /* under every call, when the filter was blind */
	const dg_ranked *use; /* the one to show */
	char blind[256];      /* the setting's filter when it was blind and every call was not */
	int own_only;         /* --score jsmd: blind, and every call sees a difference */
	int every_same;       /* blind, and every call sees no difference either */
	char other[256];      /* the filter whose dropped calls ordered the classes (rule 3) */
	int pending;          /* an analysis of every call is being computed: rules 2-3 wait */
	int none;             /* no difference found in the ranking shown */
	/* The pairs of the ranking shown whose similarity changed (JSM_D above 1e-12), at most
	 * o->pairs, in rank_jsmd_top_pairs's order: from JSM_D when the ranking has it whole
	 * (matrix), else the first of the cache's, pairs[q] then being use->k.pairs[q] (with its
	 * pair_jn and pair_jf). */
	rank_pair *pairs;
	size_t npairs;
} dg_verdict;

/* The verdict of o->faulty against o->normal: 1 with *v (dg_free it), 0 while the setting's own
 * analyses are being computed elsewhere (nothing to free), -1 on error. */
int dg_rank(store *s, const dg_source *src, const dg_opts *o, dg_verdict *v, dt_err *e);
void dg_free(dg_verdict *v);

/* The setting a diff of two traces is shown under when none was asked for (`diff` without
 * --filter, the interface's :diff and the diff opened on a ranked trace), and what it says of
 * two traces whose calls are alike (difftrace(1) under diff):
 *   - the setting's filter sees the two differ: that setting;
 *   - it sees them identical, and every call (AN_FALLBACK_FILTER) does not: every call, as
 *     rank ranks them when its filter is blind (every 1, blind the setting's filter);
 *   - every call sees them identical too: the same trace P.T of two runs may still be the one
 *     rank puts first for the data it sent or for its time (rules 5 and 6 of dg_rank, run[0]
 *     the normal run): found says so ("calls identical under every filter; sent data
 *     differs: MPI_Send to 1 tag 5, the 1st, first in causal order"). */
typedef struct dg_diff {
	int every;       /* shown under every call */
	char blind[256]; /* then the setting's filter, which saw the two traces identical */
	char found[640]; /* identical under every call: what rank's verdict found of the trace,
			    else "" */
} dg_diff;

/* The decision above for run[0]:p[0].t[0] against run[1]:p[1].t[1], the analyses from src
 * (linkage and keep as in dg_opts, for the verdict). 1 with *d, 0 while an analysis is being
 * computed elsewhere, -1 on error (a trace that does not exist: e says which). */
int dg_diff_setting(store *s, const dg_source *src, const char *const run[2], const int p[2],
		    const int t[2], enum clu_linkage linkage, int keep, dg_diff *d, dt_err *e);

/* One run alone (rank --run): its r->n traces in out, least like their own class first
 * (rank_outliers over the analysis's classes). 0, or -1 (e set). */
int dg_outliers(const an_result *r, rank_outlier *out, dt_err *e);

/* Whether the filter named alias is every call already (nothing to fall back to). */
int dg_every_call(const char *alias);

#endif
