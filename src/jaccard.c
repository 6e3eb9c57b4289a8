/* jaccard.c: the JSM on bitsets.
 *
 * |Ai ∪ Aj| = |Ai| + |Aj| - |Ai ∩ Aj|, so one popcount of Ai & Aj per word is all the pair costs.
 * On x86-64 the kernel is compiled twice, once for the POPCNT instruction, which is picked at run
 * time: the portable build would otherwise count bits with a dozen instructions per word. */
#include <stdlib.h>
#include <string.h>

#include "jaccard.h"
#include "util.h"

static inline double ratio(size_t inter, size_t uni)
{
	return uni ? (double)inter / (double)uni : 1.0; /* both sets empty: identical */
}

/* Row i's upper part: J(i, j) for j > i into out[i * n + j]. */
static inline __attribute__((always_inline)) void upper_row(const ctx_bits *c, const size_t *cnt,
							    size_t i, double *out)
{
	const size_t nw = c->words, n = c->n;
	const uint64_t *a = ctx_row(c, i);
	double *o = out + i * n;
	for (size_t j = i + 1; j < n; j++) {
		const uint64_t *b = ctx_row(c, j);
		size_t k = 0;
		for (size_t w = 0; w < nw; w++)
			k += (size_t)__builtin_popcountll(a[w] & b[w]);
		o[j] = ratio(k, cnt[i] + cnt[j] - k);
	}
}

static void upper_generic(const ctx_bits *c, const size_t *cnt, double *out)
{
	for (size_t i = 0; i < c->n; i++)
		upper_row(c, cnt, i, out);
}

#if defined(__x86_64__) && defined(__GNUC__)
#define JAC_DISPATCH 1
__attribute__((target("popcnt"))) static void upper_popcnt(const ctx_bits *c, const size_t *cnt,
							   double *out)
{
	for (size_t i = 0; i < c->n; i++)
		upper_row(c, cnt, i, out);
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
		upper_popcnt(c, cnt, out);
	else
#endif
		upper_generic(c, cnt, out);
	/* Mirror in square tiles so both the rows read and the columns written stay in cache. */
	enum { TILE = 64 };
	for (size_t bi = 0; bi < n; bi += TILE)
		for (size_t bj = bi; bj < n; bj += TILE)
			for (size_t i = bi; i < bi + TILE && i < n; i++) {
				size_t j0 = bj > i + 1 ? bj : i + 1;
				for (size_t j = j0; j < bj + TILE && j < n; j++)
					out[j * n + i] = out[i * n + j];
			}
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
