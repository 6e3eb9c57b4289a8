/* retired.c: the facts put aside by the causality filter (retired.h).
 *
 * Records are packed in one arena, each a length byte, then the key's values, the highest
 * instance delivered and the next number, as zigzag varints; an open-addressing index of
 * 32-bit arena offsets finds them by the key's hash. A record taken back leaves a tombstone
 * and dead bytes; the arena and the index are rebuilt when the dead outweigh the live. */
#include "order/retired.h"

#include <stdlib.h>
#include <string.h>

#include "util/util.h"

#define EMPTY 0u
#define TOMB UINT32_MAX
#define MAXREC (1 + 10 * 10) /* length byte, at most 8 key values and 2 numbers of 10 bytes */

struct ord_retired {
	unsigned char *a; /* the arena; offset 0 unused so that 0 means empty */
	size_t len, cap, dead;
	uint32_t *slot;   /* arena offset, EMPTY or TOMB */
	size_t nslot, used, tombs; /* used: live records */
};

static uint64_t hash(const int64_t *k, int nk)
{
	uint64_t h = 0x6a09e667f3bcc909ull ^ (uint64_t)nk;
	for (int i = 0; i < nk; i++)
		h = (h ^ (uint64_t)k[i]) * 0x9e3779b97f4a7c15ull;
	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 29);
}

static size_t put_v(unsigned char *p, int64_t v)
{
	uint64_t z = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
	size_t n = 0;
	while (z >= 0x80) {
		p[n++] = (unsigned char)(z | 0x80);
		z >>= 7;
	}
	p[n++] = (unsigned char)z;
	return n;
}

static const unsigned char *get_v(const unsigned char *p, int64_t *v)
{
	uint64_t z = 0;
	for (int s = 0;; s += 7) {
		unsigned char c = *p++;
		z |= (uint64_t)(c & 0x7f) << s;
		if (!(c & 0x80))
			break;
	}
	*v = (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
	return p;
}

/* Whether the record at offset o has key k; its numbers' bytes in *after. */
static int rec_is(const ord_retired *t, uint32_t o, const int64_t *k, int nk,
		  const unsigned char **after)
{
	const unsigned char *p = t->a + o + 1;
	if ((t->a[o] & 0x0f) != nk)
		return 0;
	for (int i = 0; i < nk; i++) {
		int64_t v;
		p = get_v(p, &v);
		if (v != k[i])
			return 0;
	}
	*after = p;
	return 1;
}

/* The record's bytes: read back its values to find where it ends. */
static size_t rec_size(const ord_retired *t, uint32_t o)
{
	const unsigned char *p = t->a + o + 1;
	int n = (t->a[o] & 0x0f) + 2;
	for (int i = 0; i < n; i++) {
		int64_t v;
		p = get_v(p, &v);
	}
	return (size_t)(p - (t->a + o));
}

static void index_rebuild(ord_retired *t, size_t nslot)
{
	uint32_t *s = xcalloc(nslot, sizeof *s);
	for (size_t i = 0; i < t->nslot; i++) {
		uint32_t o = t->slot[i];
		if (o == EMPTY || o == TOMB)
			continue;
		/* the hash again, from the record's key */
		int64_t k[10];
		int nk = t->a[o] & 0x0f;
		const unsigned char *p = t->a + o + 1;
		for (int j = 0; j < nk; j++)
			p = get_v(p, &k[j]);
		size_t j = hash(k, nk) & (nslot - 1);
		while (s[j] != EMPTY)
			j = (j + 1) & (nslot - 1);
		s[j] = o;
	}
	free(t->slot);
	t->slot = s;
	t->nslot = nslot;
	t->tombs = 0;
}

/* Packs the live records to the start of the arena. */
static void arena_compact(ord_retired *t)
{
	unsigned char *a = xmalloc(t->cap);
	size_t len = 1;
	for (size_t i = 0; i < t->nslot; i++) {
		uint32_t o = t->slot[i];
		if (o == EMPTY || o == TOMB)
			continue;
		size_t n = rec_size(t, o);
		memcpy(a + len, t->a + o, n);
		t->slot[i] = (uint32_t)len;
		len += n;
	}
	free(t->a);
	t->a = a;
	t->len = len;
	t->dead = 0;
}

ord_retired *ord_retired_new(void)
{
	ord_retired *t = xcalloc(1, sizeof *t);
	t->cap = 1 << 16;
	t->a = xmalloc(t->cap);
	t->len = 1;
	t->nslot = 1 << 12;
	t->slot = xcalloc(t->nslot, sizeof *t->slot);
	return t;
}

void ord_retired_free(ord_retired *t)
{
	if (!t)
		return;
	free(t->a);
	free(t->slot);
	free(t);
}

int ord_retired_put(ord_retired *t, const int64_t *k, int nk, int64_t hw, int64_t cnt)
{
	if (t->len + MAXREC > UINT32_MAX - 1)
		return -1;
	if (t->len + MAXREC > t->cap) {
		if (t->dead > t->len / 2)
			arena_compact(t);
		if (t->len + MAXREC > t->cap) {
			size_t cap = t->cap * 2;
			if (cap > (size_t)UINT32_MAX)
				cap = UINT32_MAX;
			t->a = xrealloc(t->a, cap);
			t->cap = cap;
		}
	}
	if ((t->used + t->tombs + 1) * 2 > t->nslot)
		index_rebuild(t, (t->used + 1) * 4 > t->nslot ? t->nslot * 2 : t->nslot);
	unsigned char *p = t->a + t->len;
	size_t n = 1;
	p[0] = (unsigned char)nk;
	for (int i = 0; i < nk; i++)
		n += put_v(p + n, k[i]);
	n += put_v(p + n, hw);
	n += put_v(p + n, cnt);
	size_t j = hash(k, nk) & (t->nslot - 1);
	while (t->slot[j] != EMPTY && t->slot[j] != TOMB)
		j = (j + 1) & (t->nslot - 1);
	if (t->slot[j] == TOMB)
		t->tombs--;
	t->slot[j] = (uint32_t)t->len;
	t->len += n;
	t->used++;
	return 0;
}

int ord_retired_take(ord_retired *t, const int64_t *k, int nk, int64_t *hw, int64_t *cnt)
{
	if (!t->used)
		return 0;
	size_t j = hash(k, nk) & (t->nslot - 1);
	for (;; j = (j + 1) & (t->nslot - 1)) {
		uint32_t o = t->slot[j];
		if (o == EMPTY)
			return 0;
		const unsigned char *p;
		if (o == TOMB || !rec_is(t, o, k, nk, &p))
			continue;
		p = get_v(p, hw);
		p = get_v(p, cnt);
		t->dead += (size_t)(p - (t->a + o));
		t->slot[j] = TOMB;
		t->tombs++;
		t->used--;
		return 1;
	}
}

size_t ord_retired_count(const ord_retired *t)
{
	return t->used;
}

size_t ord_retired_bytes(const ord_retired *t)
{
	return sizeof *t + t->cap + t->nslot * sizeof *t->slot;
}
