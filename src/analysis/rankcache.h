/* rankcache.h: the ranking of a faulty run against a normal one, kept in the store.
 *
 * `rank` and the interface's ranking view compare two cached analyses: JSM_D and the B-score
 * (analysis_compare), then each trace's kept events (vd_build). Both are linear in the traces
 * but need the two analyses loaded whole (every trace's row, attributes and NLR entries); what
 * they show is much smaller: the verdict's items, the traces' keys, the top pairs. That is
 * what is kept here, computed once and read back by the next `rank` or view on the same two
 * analyses: the results are the very values computed (doubles kept bit for bit), so the output
 * is byte-identical.
 *
 * The cache is keyed by the two analyses' ids and rk_opts (the linkage and RANK_CACHE_VERSION);
 * its rows go with either analysis (store_schema.c), so an analysis replaced or re-run never
 * finds a ranking of its predecessor. Bump RANK_CACHE_VERSION whenever the comparison, the
 * verdict or this encoding changes what is kept. */
#ifndef DT_RANKCACHE_H
#define DT_RANKCACHE_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/analysis.h"
#include "analysis/rank.h"
#include "analysis/verdict.h"
#include "store/store.h"

#define RANK_CACHE_VERSION "rank-cache-6" /* 2: B-scores of classes over 256 traces fixed;
					       * 3: where a hung thread's call was made;
					       * 4: the one-sided calls' arguments and the digest;
					       * 5: arguments every thread changed alike left out;
					       * 6: the site ids of the hang-safe record's calls */
/* Pairs kept: the first of rank_jsmd_top_pairs's order (all of them when there are fewer). */
#define RANK_CACHE_PAIRS 1000

typedef struct rk_rank {
	/* JSM_D without its matrix: n, keys, only_normal, only_faulty, running, n_running and
	 * quiet are set; row_normal, row_faulty, cls, mult, cd, diag are NULL (nc 0) when read
	 * from the cache. rank_jsmd_free frees it. */
	rank_jsmd j;
	double bscore;       /* NAN: fewer than 3 matched traces */
	vd_rank v;           /* the verdict, in ranking order */
	rank_pair *pairs;    /* rank_jsmd_top_pairs(j, RANK_CACHE_PAIRS), untrimmed */
	double *pair_jn;     /* the pair's similarity in the normal run */
	double *pair_jf;     /* and in the faulty run */
	size_t npairs;
	/* JSM_D's own order (rank_order), as a sweep row shows it: its first traces that changed
	 * (score > 1e-12) and its first processes (rank_top_procs_scored over all traces) */
	rank_item ord[RANK_TOP_MAX];
	size_t nord;
	int procs[RANK_TOP_MAX];
	double procscore[RANK_TOP_MAX];
	size_t nprocs;
} rk_rank;

/* The options string of the cache key for linkage l. */
void rk_opts(enum clu_linkage l, char *buf, size_t cap);
/* Fills out from a comparison made (rn, rf compared into j with B-score b, verdict v): j and v
 * are moved into out (zeroed in the caller's), the pairs and JSM_D's own order computed from
 * j's matrix, which is then dropped unless keep (then out->j is j whole, for what the cache
 * does not hold: JSM_D's full order, more pairs). */
void rk_from(const an_result *rn, const an_result *rf, rank_jsmd *j, double b, vd_rank *v,
	     int keep, rk_rank *out);
/* JSM_D's order as rk_rank keeps it, from a full j (also for rows not cached). */
void rk_tops(const rank_jsmd *j, rk_rank *out);
/* The encoding kept in the store, and back: rk_decode fails (-1) on a damaged value. */
void rk_encode(const rk_rank *r, dt_buf *b);
int rk_decode(const uint8_t *p, size_t len, rk_rank *r);
void rk_free(rk_rank *r);

/* The cached ranking of analyses normal against faulty under linkage l: 1 and *r, 0 when none
 * (or it cannot be read: a value this code does not understand is recomputed), -1 on error. */
int rk_load(store *s, int64_t normal, int64_t faulty, enum clu_linkage l, rk_rank *r,
	    dt_err *e);
/* Keeps r for the next reader. Nothing when the store is read-only; a failure to write (another
 * difftrace holds the write lock) is no error: the ranking is only not kept. */
void rk_save(store *s, int64_t normal, int64_t faulty, enum clu_linkage l, const rk_rank *r);

#endif
