/* jaccard.c: the JSM on bitsets.
 *
 * |Ai ∪ Aj| = |Ai| + |Aj| - |Ai ∩ Aj|, so one popcount of Ai & Aj per word is all the pair costs.
 * On x86-64 the kernel is compiled twice, once for the POPCNT instruction, which is picked at run
 * time: the portable build would otherwise count bits with a dozen instructions per word. */
#include <stdlib.h>
#include <string.h>

#include "analysis/jaccard.h"
#include "util/util.h"

static inline double ratio(size_t inter, size_t uni)
{
	return uni ? (double)inter / (double)uni : 1.0; /* both sets empty: identical */
}

/* The matrix is filled in square tiles of pairs: the rows a tile reads stay in L1, and the
 * transposed values it writes land on a few dozen cache lines instead of one line per pair. */
enum { TILE = 64 };

static inline __attribute__((always_inline)) void tiles(const ctx_bits *c, const size_t *cnt,
							double *out)
{
	const size_t nw = c->words, n = c->n;
	for (size_t bi = 0; bi < n; bi += TILE)
		for (size_t bj = bi; bj < n; bj += TILE) {
			size_t ei = bi + TILE < n ? bi + TILE : n, ej = bj + TILE < n ? bj + TILE : n;
			for (size_t i = bi; i < ei; i++) {
				const uint64_t *a = ctx_row(c, i);
				for (size_t j = bj > i + 1 ? bj : i + 1; j < ej; j++) {
					const uint64_t *b = ctx_row(c, j);
					size_t k = 0;
					for (size_t w = 0; w < nw; w++)
						k += (size_t)__builtin_popcountll(a[w] & b[w]);
					out[i * n + j] = out[j * n + i] =
						ratio(k, cnt[i] + cnt[j] - k);
				}
			}
		}
}

static void tiles_generic(const ctx_bits *c, const size_t *cnt, double *out)
{
	tiles(c, cnt, out);
}

#if defined(__x86_64__) && defined(__GNUC__)
#define JAC_DISPATCH 1
__attribute__((target("popcnt"))) static void tiles_popcnt(const ctx_bits *c, const size_t *cnt,
							   double *out)
{
	tiles(c, cnt, out);
}
#endif

void jac_matrix(const ctx_bits *c, double *out)
{
	const size_t n = c->n;
	size_t *cnt = xmalloc((n ? n : 1) * sizeof *cnt);
	for (size_t i = 0; i < n; i++)
		cnt[i] = ctx_bcount(ctx_row(c, i), c->words);
#ifdef JAC_DISPATCH
	if (__builtin_cpu_supports("popcnt"))
		tiles_popcnt(c, cnt, out);
	else
#endif
		tiles_generic(c, cnt, out);
	for (size_t i = 0; i < n; i++)
		out[i * n + i] = 1.0;
	free(cnt);
}

double jac_pair(const ctx_bits *c, size_t i, size_t j)
{
	const uint64_t *a = ctx_row(c, i), *b = ctx_row(c, j);
	size_t k = 0, u = 0;
	for (size_t w = 0; w < c->words; w++) {
		k += (size_t)__builtin_popcountll(a[w] & b[w]);
		u += (size_t)__builtin_popcountll(a[w] | b[w]);
	}
	return ratio(k, u);
}

double jac_sorted(const uint32_t *a, size_t na, const uint32_t *b, size_t nb)
{
	size_t i = 0, j = 0, k = 0;
	while (i < na && j < nb) {
		if (a[i] < b[j])
			i++;
		else if (a[i] > b[j])
			j++;
		else {
			k++;
			i++;
			j++;
		}
	}
	return ratio(k, na + nb - k);
}
