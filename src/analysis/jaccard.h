/* jaccard.h: the Jaccard similarity matrix (JSM) of a run's traces, from the attribute bitsets.
 *
 * J(i, j) = |Ai ∩ Aj| / |Ai ∪ Aj|, the value the prototype reaches through the concept lattice
 * (METHOD.md §7, §10.5), computed here with one AND and one popcount per 64 attributes.
 *
 * Two traces that both have no attribute at all have identical (empty) attribute sets, so their
 * similarity is 1, the same as for any two identical sets: they fall in one class, at distance 0.
 * (The prototype writes an all-zero matrix, diagonal included, when the run has no attribute.)
 * The diagonal is always 1. */
#ifndef DT_JACCARD_H
#define DT_JACCARD_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/context.h"

/* The n x n matrix, row-major, into out (n * n doubles). Symmetric: only the upper triangle is
 * computed, then mirrored. */
void jac_matrix(const ctx_bits *c, double *out);

/* One pair from the bitsets. */
double jac_pair(const ctx_bits *c, size_t i, size_t j);

/* One pair from ascending arrays of attribute ids (the slow path, for checks and comparison). */
double jac_sorted(const uint32_t *a, size_t na, const uint32_t *b, size_t nb);

#endif
