/* cluster.h: equivalence classes of traces (METHOD.md §7).
 *
 * Two kinds of classes:
 *   1. traces with identical attribute sets (clu_identical), the classes the lattice shows as
 *      objects sharing one object concept;
 *   2. agglomerative hierarchical clustering on the distance 1 - J (clu_linkage), as the
 *      prototype's hac.py does with SciPy, cut into k clusters (clu_cut), k chosen by the caller
 *      or by the largest gap in merge heights (clu_auto_k).
 *
 * Linkage: the distances of a new cluster i∪j to every other cluster k follow the Lance-Williams
 * updates on the condensed distance matrix, with the formulas SciPy uses on plain (not squared)
 * distances, n_x being cluster sizes:
 *   single    min(d_ki, d_kj)
 *   complete  max(d_ki, d_kj)
 *   average   (n_i d_ki + n_j d_kj) / (n_i + n_j)                          (UPGMA)
 *   weighted  (d_ki + d_kj) / 2                                            (WPGMA)
 *   ward      sqrt(((n_i+n_k) d_ki² + (n_j+n_k) d_kj² - n_k d_ij²) / (n_i+n_j+n_k))
 *   centroid  sqrt((n_i d_ki² + n_j d_kj²)/(n_i+n_j) - n_i n_j d_ij²/(n_i+n_j)²)
 *   median    sqrt(d_ki²/2 + d_kj²/2 - d_ij²/4)
 * Ward is the default, as in every result the paper reports. (Ward, centroid and median assume
 * Euclidean distances; on 1 - J they are what SciPy computes from the same condensed matrix.)
 *
 * Determinism: every step merges the closest pair of clusters. A cluster sits in the slot of its
 * smallest trace index; among pairs at the same distance the one whose lower slot is smallest
 * wins, then the one whose upper slot is smallest. So equal distances are broken by trace index
 * and the result never depends on anything but the input.
 *
 * The dendrogram is SciPy's linkage matrix: merge s joins clusters a < b, where an id below n is
 * a trace and id n + s' is the cluster made by merge s'. Merges are listed in the order they were
 * made (for single, complete, average, weighted and ward the heights never decrease; centroid
 * and median may go down). */
#ifndef DT_CLUSTER_H
#define DT_CLUSTER_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/context.h"
#include "util/err.h"

enum clu_linkage {
	CLU_WARD,
	CLU_SINGLE,
	CLU_COMPLETE,
	CLU_AVERAGE,
	CLU_WEIGHTED,
	CLU_CENTROID,
	CLU_MEDIAN,
};

/* "ward", "single", ...; an unknown name is a DT_EUSAGE error listing the names. */
int clu_linkage_parse(const char *s, enum clu_linkage *l, dt_err *e);
const char *clu_linkage_name(enum clu_linkage l);

typedef struct clu_merge {
	uint32_t a, b;  /* the two clusters joined, a < b */
	double height;  /* their distance when joined */
	uint32_t size;  /* traces in the new cluster */
} clu_merge;

/* Classes of identical rows of the context: label[i] for each object, classes numbered 0, 1, ...
 * in order of their first object. Returns the number of classes. */
size_t clu_identical(const ctx_bits *c, uint32_t *label);

/* Index of pair i < j in a condensed matrix of n points (SciPy's order: row by row). */
static inline size_t clu_cidx(size_t n, size_t i, size_t j)
{
	return n * i - i * (i + 1) / 2 + (j - i - 1);
}

/* The condensed distance 1 - J from an n x n JSM (upper triangle read); d has n(n-1)/2 slots. */
void clu_condensed_from_jsm(const double *jsm, size_t n, double *d);

/* The n - 1 merges of the n points whose condensed distances are d (not modified). Fails when a
 * distance is negative or not a number. */
int clu_linkage(const double *d, size_t n, enum clu_linkage l, clu_merge *merges, dt_err *e);

/* ---- classes of identical traces (collapsed clustering) ----
 *
 * Traces with identical attribute sets are at distance 0 from each other and at the same
 * distance from everything else. The full clustering of n traces in D such classes (numbered in
 * order of their first trace, cls[i] the class of trace i, mult[c] its traces) therefore starts
 * with n - D merges at height 0: the classes in order of their first trace, each collapsing
 * one copy at a time, in trace order, into its first trace's slot (every other distance is
 * positive, and ties go to the lowest slots). What follows is the clustering of the D collapsed
 * classes, whose slots keep the order of their first traces, with their sizes and with the
 * distances the Lance-Williams updates left between them: for single, complete, weighted and
 * median 1 - J itself; for average, centroid and ward a function of both sizes, which
 * clu_linkage_classes replays step by step as the full clustering computes it, so that every
 * height, and so every tie and every choice between equal distances, is the very double the
 * full clustering has. clu_expand_merges rebuilds the full dendrogram from the class one; the
 * tests check both ways give the same merges. */

/* The D - 1 merges of the D classes whose D x D similarity is jsm (upper triangle read), with
 * mult[c] traces each; ids below D are classes, D + s the cluster of merge s; size counts
 * traces. */
int clu_linkage_classes(const double *jsm, size_t nc, const uint32_t *mult, enum clu_linkage l,
			clu_merge *merges, dt_err *e);
/* clu_cut of the full dendrogram, from the class one: labels of the n traces (cls[i] < nc) in
 * k clusters, numbered in order of their first trace. Up to D clusters it is the class cut;
 * beyond, the first n - k zero-height merges (above) are kept: the classes in order, each
 * gathering its traces in trace order, until the budget runs out. O(n + D). */
void clu_cut_classes(const clu_merge *m, size_t nc, const uint32_t *cls, size_t n, size_t k,
		     uint32_t *label);
/* The n - 1 merges of the full dendrogram (ids over traces) from the nc - 1 class merges. */
void clu_expand_merges(const clu_merge *m, size_t nc, const uint32_t *cls, size_t n,
		       clu_merge *out);

/* Labels after the first n - k merges (so exactly k clusters; k is clamped to 1..n): clusters
 * numbered 0, 1, ... in order of their first trace. Where heights tie, SciPy's fcluster cannot
 * always reach k; this cut follows the merge order and always does. */
void clu_cut(const clu_merge *m, size_t n, size_t k, uint32_t *label);

/* The number of clusters at the largest gap between consecutive merge heights: k in 2..kmax
 * (kmax capped at n) maximising h[n-k] - h[n-k-1], where h[-1] = 0 is the height of the single
 * traces. Equal gaps choose the smaller k. When no such gap is larger than 1e-9 times the
 * largest height (all traces identical, or every merge within the cap at one height), nothing
 * separates the traces: 1. */
size_t clu_auto_k(const clu_merge *m, size_t n, size_t kmax);

#endif
