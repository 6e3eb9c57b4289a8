/* context.h: the formal context of an analysis, n objects (traces) x m attributes, as bitsets.
 *
 * Row i holds the attributes of object i: bit a of the row is set when the object has attribute
 * a. Rows are ctx.words 64-bit words long and stored one after the other, so a row is one
 * contiguous run of memory and the Jaccard matrix and the lattice work on whole words. Bits past
 * m in the last word of a row are always 0 (the word loops rely on it).
 *
 * The small ctx_b* helpers work on any bitset of `nw` words: the lattice uses them for extents
 * (over objects) as well as intents (over attributes). */
#ifndef DT_CONTEXT_H
#define DT_CONTEXT_H

#include <stddef.h>
#include <stdint.h>

typedef struct ctx_bits {
	size_t n;       /* objects */
	size_t m;       /* attributes */
	size_t words;   /* 64-bit words per row: ctx_words(m) */
	uint64_t *bits; /* n * words words, row-major */
} ctx_bits;

/* Words needed for nbits bits (at least 1, so a row always has an address). */
static inline size_t ctx_words(size_t nbits)
{
	return nbits ? (nbits + 63) / 64 : 1;
}

/* An all-zero n x m context. */
void ctx_init(ctx_bits *c, size_t n, size_t m);
void ctx_free(ctx_bits *c);

/* Builds the context from per-object lists of attribute ids (each < m, any order, duplicates
 * allowed): ids[off[i] .. off[i+1]) are the attributes of object i; off has n + 1 entries. */
void ctx_from_lists(ctx_bits *c, size_t n, size_t m, const uint32_t *ids, const size_t *off);

static inline uint64_t *ctx_row(const ctx_bits *c, size_t i)
{
	return c->bits + i * c->words;
}

static inline void ctx_set(ctx_bits *c, size_t i, size_t a)
{
	ctx_row(c, i)[a >> 6] |= (uint64_t)1 << (a & 63);
}

static inline int ctx_get(const ctx_bits *c, size_t i, size_t a)
{
	return (int)((ctx_row(c, i)[a >> 6] >> (a & 63)) & 1);
}

/* The attribute ids of object i in ascending order into out (room for m); returns how many. */
size_t ctx_row_ids(const ctx_bits *c, size_t i, uint32_t *out);

/* ---- bitsets of nw words ---- */

static inline void ctx_bset(uint64_t *b, size_t i)
{
	b[i >> 6] |= (uint64_t)1 << (i & 63);
}

static inline void ctx_bclr(uint64_t *b, size_t i)
{
	b[i >> 6] &= ~((uint64_t)1 << (i & 63));
}

static inline int ctx_btest(const uint64_t *b, size_t i)
{
	return (int)((b[i >> 6] >> (i & 63)) & 1);
}

/* Number of set bits. */
size_t ctx_bcount(const uint64_t *b, size_t nw);
/* 1 when every bit of a is also in b. */
int ctx_bsubset(const uint64_t *a, const uint64_t *b, size_t nw);
int ctx_bequal(const uint64_t *a, const uint64_t *b, size_t nw);
/* out = a & b (out may alias a or b); returns the number of bits in the result. */
size_t ctx_band(uint64_t *out, const uint64_t *a, const uint64_t *b, size_t nw);
/* Index of the first set bit at or after i, or nbits when there is none. */
size_t ctx_bnext(const uint64_t *b, size_t nbits, size_t i);

#endif
