/* argchange.c: the arguments every trace changed alike (argchange.h). */
#include <stdlib.h>
#include <string.h>

#include "analysis/argchange.h"
#include "util/util.h"

static size_t ac_hash(uint64_t func, uint64_t key, int64_t from, int64_t to, size_t trace)
{
	uint64_t h = 0x9e3779b97f4a7c15ull;
	const uint64_t v[5] = { func, key, (uint64_t)from, (uint64_t)to, (uint64_t)trace };
	for (int i = 0; i < 5; i++) {
		h ^= v[i];
		h *= 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	return (size_t)h;
}

/* The hash of seen's entries made anew at twice the size (a load of at most a half). */
static void ac_rehash(ac_set *seen)
{
	free(seen->idx);
	seen->nidx = seen->nidx ? 2 * seen->nidx : 256;
	seen->idx = xcalloc(seen->nidx, sizeof *seen->idx);
	for (size_t i = 0; i < seen->n; i++) {
		const ac_change *x = &seen->c[i];
		size_t h = ac_hash(x->func, x->key, x->from, x->to, x->traces) & (seen->nidx - 1);
		while (seen->idx[h])
			h = (h + 1) & (seen->nidx - 1);
		seen->idx[h] = i + 1;
	}
}

/* seen: one entry per (func, key, from, to, trace), its count of traces 1; decided: traces */
void ac_see(ac_set *seen, uint64_t func, uint64_t key, int64_t from, int64_t to, size_t trace,
	    uint64_t ex)
{
	if (2 * (seen->n + 1) > seen->nidx)
		ac_rehash(seen);
	size_t h = ac_hash(func, key, from, to, trace) & (seen->nidx - 1);
	for (; seen->idx[h]; h = (h + 1) & (seen->nidx - 1)) {
		const ac_change *x = &seen->c[seen->idx[h] - 1];
		if (x->func == func && x->key == key && x->from == from && x->to == to &&
		    x->traces == trace)
			return;
	}
	GROW(seen->c, seen->cap, seen->n + 1);
	seen->c[seen->n] = (ac_change){ func, key, from, to, trace, ex };
	seen->idx[h] = ++seen->n;
}

static int cmp_change(const void *p, const void *q)
{
	const ac_change *a = p, *b = q;
	if (a->func != b->func)
		return a->func < b->func ? -1 : 1;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	if (a->from != b->from)
		return a->from < b->from ? -1 : 1;
	if (a->to != b->to)
		return a->to < b->to ? -1 : 1;
	return (a->traces > b->traces) - (a->traces < b->traces);
}

void ac_decide(ac_set *seen, ac_set *out)
{
	memset(out, 0, sizeof *out);
	if (seen->n)
		qsort(seen->c, seen->n, sizeof *seen->c, cmp_change);
	for (size_t a = 0; a < seen->n;) {
		const ac_change *x = &seen->c[a];
		size_t b = a, traces = 0;
		int alike = 1;
		for (; b < seen->n && seen->c[b].func == x->func && seen->c[b].key == x->key &&
		       seen->c[b].from == x->from;
		     b++) {
			alike &= seen->c[b].to == x->to;
			traces += !(b > a && seen->c[b].traces == seen->c[b - 1].traces);
		}
		if (alike && x->to != x->from && traces >= 2) {
			GROW(out->c, out->cap, out->n + 1);
			out->c[out->n] = *x;
			out->c[out->n++].traces = traces;
		}
		a = b;
	}
	ac_free(seen);
}

int ac_is_common(const ac_set *c, uint64_t func, uint64_t key, int64_t from, int64_t to)
{
	for (size_t i = 0; c && i < c->n; i++)
		if (c->c[i].func == func && c->c[i].key == key && c->c[i].from == from &&
		    c->c[i].to == to)
			return 1;
	return 0;
}

const ac_change *ac_back(const ac_set *c, uint64_t func, uint64_t key, int64_t to)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->c[i].func == func && c->c[i].key == key && c->c[i].to == to)
			return &c->c[i];
	return NULL;
}

void ac_free(ac_set *c)
{
	free(c->c);
	free(c->idx);
	memset(c, 0, sizeof *c);
}
