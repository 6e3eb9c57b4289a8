/* context.c: the object x attribute bitsets and the bitset helpers. */
#include <stdlib.h>
#include <string.h>

#include "analysis/context.h"
#include "util/util.h"

void ctx_init(ctx_bits *c, size_t n, size_t m)
{
	c->n = n;
	c->m = m;
	c->words = ctx_words(m);
	c->bits = xcalloc(n ? n * c->words : 1, sizeof *c->bits);
}

void ctx_free(ctx_bits *c)
{
	free(c->bits);
	memset(c, 0, sizeof *c);
}

void ctx_from_lists(ctx_bits *c, size_t n, size_t m, const uint32_t *ids, const size_t *off)
{
	ctx_init(c, n, m);
	for (size_t i = 0; i < n; i++)
		for (size_t k = off[i]; k < off[i + 1]; k++)
			ctx_set(c, i, ids[k]);
}

size_t ctx_row_ids(const ctx_bits *c, size_t i, uint32_t *out)
{
	const uint64_t *r = ctx_row(c, i);
	size_t k = 0;
	for (size_t w = 0; w < c->words; w++)
		for (uint64_t x = r[w]; x; x &= x - 1)
			out[k++] = (uint32_t)(w * 64 + (size_t)__builtin_ctzll(x));
	return k;
}

size_t ctx_bcount(const uint64_t *b, size_t nw)
{
	size_t k = 0;
	for (size_t w = 0; w < nw; w++)
		k += (size_t)__builtin_popcountll(b[w]);
	return k;
}

int ctx_bsubset(const uint64_t *a, const uint64_t *b, size_t nw)
{
	for (size_t w = 0; w < nw; w++)
		if (a[w] & ~b[w])
			return 0;
	return 1;
}

int ctx_bequal(const uint64_t *a, const uint64_t *b, size_t nw)
{
	return memcmp(a, b, nw * sizeof *a) == 0;
}

size_t ctx_band(uint64_t *out, const uint64_t *a, const uint64_t *b, size_t nw)
{
	size_t k = 0;
	for (size_t w = 0; w < nw; w++) {
		out[w] = a[w] & b[w];
		k += (size_t)__builtin_popcountll(out[w]);
	}
	return k;
}

size_t ctx_bnext(const uint64_t *b, size_t nbits, size_t i)
{
	if (i >= nbits)
		return nbits;
	size_t w = i >> 6;
	uint64_t x = b[w] & (~(uint64_t)0 << (i & 63));
	size_t nw = ctx_words(nbits);
	while (!x) {
		if (++w >= nw)
			return nbits;
		x = b[w];
	}
	size_t r = w * 64 + (size_t)__builtin_ctzll(x);
	return r < nbits ? r : nbits;
}
