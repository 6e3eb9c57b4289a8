/* rank.h: ranking of suspicious traces (METHOD.md §8, §10.6).
 *
 * Given the Jaccard similarity matrices (JSM) of a normal and a faulty run, JSM_D is their
 * element-wise absolute difference over the traces both runs have; the traces whose JSM_D row
 * changed most, and the pairs whose similarity changed most, are the suspects. The B-score of
 * Fowlkes & Mallows (1983) says how much the two runs' clusterings differ, and sorts the rows of
 * a parameter sweep. With one run only, the suspects are the traces least like their own class.
 *
 * Matrices are n×n row-major arrays of double; clusterings are arrays of int labels, one per
 * trace. Nothing here reads or writes the store; the only output is the render functions, to a
 * FILE* the caller gives. */
#ifndef DT_RANK_H
#define DT_RANK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/cluster.h"
#include "util/err.h"

/* The identity of a trace across runs: process index P and thread index T. */
typedef struct rank_key {
	int proc, thread;
} rank_key;

/* ---- JSM_D ---------------------------------------------------------------------------------- */

/* JSM_D over the traces present in both runs. */
typedef struct rank_jsmd {
	size_t n;               /* traces present in both runs */
	rank_key *keys;         /* their keys, in (P, T) order: row/column i of d is keys[i] */
	size_t *row_normal;     /* row of keys[i] in the normal run's JSM */
	size_t *row_faulty;     /* row of keys[i] in the faulty run's JSM */
	/* JSM_D by classes: traces alike in both runs (the same row of the normal run's matrix and
	 * the same of the faulty run's) have the same JSM_D row, so it is kept once per class:
	 * rank_jsmd_at(j, a, b) = |JSM_faulty - JSM_normal| of keys[a], keys[b]. Nothing is n×n
	 * unless every trace is its own class. */
	size_t nc;              /* classes */
	uint32_t *cls;          /* class of keys[i], numbered in order of their first trace */
	uint32_t *mult;         /* traces per class */
	double *cd;             /* nc×nc: JSM_D between two traces of classes a, b (a ≠ b trace) */
	double *diag;           /* nc: JSM_D of a trace with itself (0; see analysis_compare) */
	rank_key *only_normal;  /* traces of the normal run missing from the faulty run, (P, T) order */
	size_t n_only_normal;
	rank_key *only_faulty;  /* traces of the faulty run missing from the normal run */
	size_t n_only_faulty;
	/* The faulty run was stopped (difftrace-record --timeout): running[i] says keys[i] was
	 * still running then (rank_running); NULL when the run was not stopped or no trace was. */
	uint8_t *running;
	size_t n_running;
	double quiet;           /* how long the others had been quiet, in seconds */
} rank_jsmd;

/* Matches the two runs' traces by key and builds JSM_D on the common ones. kn[i] is the key of
 * row i of jn (nn×nn), kf likewise for jf. Fails (DT_EDATA) when a key appears twice in one run
 * or a similarity is not a number in [0, 1]. The traces present in one run only are listed in
 * out, never dropped silently. Free with rank_jsmd_free. */
int rank_jsmd_build(const rank_key *kn, const double *jn, size_t nn, const rank_key *kf,
		    const double *jf, size_t nf, rank_jsmd *out, dt_err *e);
/* The same from matrices over rows: trace i of the normal run is row rn[i] of jn (dn×dn), and
 * likewise for the faulty run (rn, rf NULL: row i). */
int rank_jsmd_build_rows(const rank_key *kn, const uint32_t *rn, const double *jn, size_t dn,
			 size_t nn, const rank_key *kf, const uint32_t *rf, const double *jf,
			 size_t df, size_t nf, rank_jsmd *out, dt_err *e);
void rank_jsmd_free(rank_jsmd *j);
/* JSM_D's diagonal set to the paper's 0 (a trace against itself), dropping the self term that
 * analysis_compare puts there (--score jsmd-self and the default score keep it): the row sums
 * are then the paper's. Needs j whole (its diag). */
void rank_jsmd_pure(rank_jsmd *j);
static inline double rank_jsmd_at(const rank_jsmd *j, size_t a, size_t b)
{
	return a == b ? j->diag[j->cls[a]] : j->cd[(size_t)j->cls[a] * j->nc + j->cls[b]];
}
/* The JSM_D row sum of each class's traces into sum[0..nc): the other traces' entries, in
 * class order (mult times each class's entry), then the diagonal. When the JSM values are
 * float32 Jaccard indices of sets of up to 2^16 attributes and there are up to 2^13 traces,
 * every partial sum is exact, so the order does not change the value; otherwise the sums
 * agree to rounding, and the orderings compare them rounded to 1e-9. */
void rank_jsmd_rowsums(const rank_jsmd *j, double *sum);

/* ---- orderings ------------------------------------------------------------------------------ */

typedef struct rank_item {
	size_t i;     /* row of the matrix */
	double score;
} rank_item;

typedef struct rank_pair {
	size_t i, j;  /* i < j */
	double score; /* d[i*n+j] */
} rank_pair;

/* Orders the n traces by the sum of their JSM_D row, descending, into out[0..n). The diagonal
 * counts: |JSM_faulty - JSM_normal| is 0 there, and difftrace puts there each trace's change
 * against its own counterpart in the other run (see analysis_compare). Sums are compared
 * rounded to 1e-9, so that mathematically equal sums added in different orders tie; ties go to
 * the lower index (that is, (P, T) order for a rank_jsmd). */
void rank_traces(const double *d, size_t n, rank_item *out);
/* Processes ordered by the sum of their traces' scores in it[0..nit) (rows of j), as the
 * paper's Top Processes: at most max into out, processes with no change (sum under 1e-12) left
 * out, ties to the lower process. Processes with a trace running at the stop (j->running) come
 * first. Returns how many were written. */
size_t rank_top_procs(const rank_jsmd *j, const rank_item *it, size_t nit, int *out, size_t max);
/* The same, with each process's sum into scores[0..returned) (scores may be NULL). */
size_t rank_top_procs_scored(const rank_jsmd *j, const rank_item *it, size_t nit, int *out,
			     double *scores, size_t max);
/* The first min(top, n) of that order; returns how many were written. */
size_t rank_top_traces(const double *d, size_t n, size_t top, rank_item *out);
/* The order the ranking shows: rank_top_traces over j's JSM_D, except that in a run that was
 * stopped the traces still running at the stop come first (in their row-sum order). */
size_t rank_order(const rank_jsmd *j, size_t top, rank_item *out);

/* ---- runs that were stopped ----------------------------------------------------------------- */

/* Which traces were still running when a hung run was stopped. A thread blocked in MPI or in a
 * barrier waits inside the library and records nothing, so the victims of a hang go quiet at
 * about the same time while a thread that spins making calls (an infinite loop) records up to
 * the stop. Sorted by the time of their last event, the traces after the largest gap are
 * running when that gap is at least half the run's span (its first event to its last) and they
 * are fewer than half of the traces. first and last are event times in ns; traces with
 * valid[i] = 0 (no times) take no part. Sets running[0..n) to 0 or 1, *quiet to the gap in
 * seconds, and returns how many are running. */
size_t rank_running(const uint64_t *first, const uint64_t *last, const uint8_t *valid, size_t n,
		    uint8_t *running, double *quiet);

/* The min(top, n(n-1)/2) pairs i < j with the largest d[i*n+j] (the upper triangle is read),
 * descending, ties by (i, j) ascending; returns how many were written. Memory O(top). */
size_t rank_top_pairs(const double *d, size_t n, size_t top, rank_pair *out);
/* The same on JSM_D by classes: the pairs of each value, highest first, in (i, j) order, found
 * class pair by class pair without going through every pair of traces. */
size_t rank_jsmd_top_pairs(const rank_jsmd *j, size_t top, rank_pair *out);

/* ---- B-score ------------------------------------------------------------------------------- */

/* Fowlkes-Mallows B_k of two clusterings of the same n objects (labels are any ints; only
 * equality matters): with m_ab the contingency table, T = Σ m_ab² − n, P = Σ_a m_a·² − n,
 * Q = Σ_b m_·b² − n, B = T / √(P·Q), in [0, 1], 1 when the clusterings are the same.
 * Degenerate cases (P·Q = 0; it happens exactly when a clustering is all singletons, and then
 * T = 0): both all singletons (including n ≤ 1) → 1, the clusterings are the same; one all
 * singletons and the other not → 0, no pair of objects is together in both. */
double rank_bscore(const int *la, const int *lb, size_t n);

/* Fills la and lb (n labels each) with the normal and faulty clusterings cut at k clusters. */
typedef int (*rank_cut_fn)(void *ctx, size_t k, int *la, int *lb, dt_err *e);

/* The mean of B_k over k = 2..n−1 (the cuts with 1 and n clusters are the same in any two
 * clusterings). For n ≤ 2 there is no such k and the mean is 1: every two clusterings of one or
 * two objects into the same number of clusters are the same. When bk is not NULL it receives
 * B_k at bk[k-2]. A failing cut fails the whole call. */
int rank_bscore_mean(size_t n, rank_cut_fn cut, void *ctx, double *mean, double *bk, dt_err *e);
/* The same from arrays: la[(k-2)*n + i] and lb[(k-2)*n + i] label object i at k clusters. */
double rank_bscore_mean_arr(const int *la, const int *lb, size_t n, double *bk);
/* The mean B-score of two clusterings of the same n traces given by dendrograms over classes of
 * identical traces (cluster.h): trace i is in class ca[i] < da of the first (classes numbered
 * in order of their first trace) whose da - 1 merges are ma, and likewise cb, db, mb. The same
 * value as rank_bscore_mean over clu_cut of the full dendrograms (clu_expand_merges), computed
 * thus: a cut at k ≤ max(da, db) clusters is made (clu_cut_classes) and scored, O(n) each;
 * beyond, both full dendrograms are in their zero-height merges, each of which adds one trace
 * to its class's cluster, so that B_k follows from B_(k+1) in O(1): the contingency table's
 * sums of squares change by the count of the one cell the trace joins. So the n - 2 cuts cost
 * O(n · max(da, db)) in all instead of O(n²). */
int rank_bscore_mean_classes(size_t n, const uint32_t *ca, const clu_merge *ma, size_t da,
			     const uint32_t *cb, const clu_merge *mb, size_t db, double *mean,
			     double *bk);

/* ---- one run only -------------------------------------------------------------------------- */

typedef struct rank_outlier {
	size_t i;
	double score;      /* 1 − mean similarity to the other members of its class */
	size_t class_size; /* 1: a singleton, scored against every other trace of the run */
} rank_outlier;

/* Ranks the n traces of one run (jsm n×n, cls[i] the class label of trace i) by how unlike
 * their own class they are: score 1 − mean JSM(i, j) over the other members j of i's class.
 * A singleton has no other member; it is scored 1 − mean JSM(i, j) over all other traces j of
 * the run (a trace like nothing else scores near 1), and a lone trace (n = 1) scores 0.
 * Descending score, ties by index. Fails (DT_EDATA) on a similarity that is not a number in
 * [0, 1]. */
int rank_outliers(const double *jsm, const int *cls, size_t n, rank_outlier *out, dt_err *e);
/* The same from a matrix over rows (jsm nr×nr, trace i on row row[i]), in O(groups · nr) where
 * groups are the distinct (class, row) pairs: the sums over a class are counts times entries. */
int rank_outliers_rows(const double *jsm, size_t nr, const uint32_t *row, const int *cls,
		       size_t n, rank_outlier *out, dt_err *e);

/* ---- the sweep table ----------------------------------------------------------------------- */

#define RANK_TOP_MAX 16

/* One row of a parameter sweep (paper Tables: Filter, Attributes, B-score, Top Processes, Top
 * Threads). The strings are the caller's and must outlive the row. */
typedef struct rank_row {
	const char *filter; /* filter name, e.g. "11.mpi.cust.0K10" */
	const char *attrs;  /* attribute mode, e.g. "sing.actual" */
	int k;              /* the NLR constant K */
	double bscore;
	int top_procs[RANK_TOP_MAX]; /* from the analysis over processes, most suspicious first */
	size_t n_procs;
	rank_key top_threads[RANK_TOP_MAX]; /* from the analysis over all threads */
	size_t n_threads;
	/* scored: the scores below are set and shown; equal scores (to 1e-9) are shown as one
	 * group, "[0.1 1.1] 0.500", so that the order of tied traces reads as no verdict */
	int scored;
	double proc_score[RANK_TOP_MAX];
	double thread_score[RANK_TOP_MAX];
	/* how many more processes and threads tie with the last one listed but were cut: the
	 * last group is shown as "[2 3 +4] 0.250" */
	size_t more_procs, more_threads;
	/* what an empty list means: RANK_ROW_SAME, every trace's kept events are identical to its
	 * counterpart's (and both runs have the same traces): "- (no difference)"; RANK_ROW_BLIND,
	 * every row sum is 0 yet kept events differ (an order or a count the attributes do not
	 * see): "- (kept events differ)"; 0, unknown: "-" */
	int empty;
} rank_row;

enum { RANK_ROW_SAME = 1, RANK_ROW_BLIND = 2 };

/* Sorts by B-score ascending (the clusterings that differ most first, as in the paper), a NaN
 * last, ties by filter, attributes, K. */
void rank_rows_sort(rank_row *rows, size_t n);
int rank_row_cmp(const rank_row *a, const rank_row *b);

/* Renders to f, the only output of this module: a table with a header line, columns aligned.
 * Return 0, or -1 (DT_EDATA) when writing failed. */
int rank_rows_render(FILE *f, const rank_row *rows, size_t n, dt_err *e);
/* "#  trace  score" tables; keys[x.i] names the trace (P.T). */
/* running (by row, or NULL): those rows are marked as still running when the run was stopped. */
int rank_traces_render(FILE *f, const rank_item *it, size_t n, const rank_key *keys,
		       const uint8_t *running, dt_err *e);
int rank_pairs_render(FILE *f, const rank_pair *p, size_t n, const rank_key *keys, dt_err *e);
int rank_outliers_render(FILE *f, const rank_outlier *o, size_t n, const rank_key *keys,
			 dt_err *e);

#endif
