/* common.c: the change every trace of a class makes in the same way (common.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/common.h"
#include "util/util.h"

static int cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	return a < b ? -1 : a > b;
}

/* The calls of v (no returns), sorted, into a new array. */
static uint32_t *sorted_calls(const uint32_t *v, size_t n, size_t *m)
{
	uint32_t *s = xmalloc((n ? n : 1) * sizeof *s);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (v[i])
			s[k++] = v[i];
	qsort(s, k, sizeof *s, cmp_u32);
	*m = k;
	return s;
}

void cc_deltas(const uint32_t *a, size_t na, const uint32_t *b, size_t nb, cc_set *out)
{
	size_t ma, mb;
	uint32_t *sa = sorted_calls(a, na, &ma), *sb = sorted_calls(b, nb, &mb);
	out->d = NULL;
	out->n = 0;
	size_t cap = 0, i = 0, j = 0;
	while (i < ma || j < mb) {
		uint32_t f = i < ma && (j >= mb || sa[i] <= sb[j]) ? sa[i] : sb[j];
		int64_t ca = 0, cb = 0;
		while (i < ma && sa[i] == f)
			ca++, i++;
		while (j < mb && sb[j] == f)
			cb++, j++;
		if (ca != cb) {
			GROW(out->d, cap, out->n + 1);
			out->d[out->n++] = (cc_delta){ f, cb - ca };
		}
	}
	free(sa);
	free(sb);
}

void cc_free(cc_set *c)
{
	free(c->d);
	c->d = NULL;
	c->n = 0;
}

int cc_equal(const cc_set *a, const cc_set *b)
{
	if (a->n != b->n)
		return 0;
	for (size_t i = 0; i < a->n; i++)
		if (a->d[i].f != b->d[i].f || a->d[i].d != b->d[i].d)
			return 0;
	return 1;
}

int cc_same_functions(const cc_set *a, const cc_set *b)
{
	if (a->n != b->n)
		return 0;
	for (size_t i = 0; i < a->n; i++)
		if (a->d[i].f != b->d[i].f)
			return 0;
	return 1;
}

/* Keeps in c the functions whose calls changed in x too, the same way (more, or fewer), with
 * the smaller change. */
static void intersect(cc_set *c, const cc_set *x)
{
	size_t m = 0, j = 0;
	for (size_t i = 0; i < c->n; i++) {
		while (j < x->n && x->d[j].f < c->d[i].f)
			j++;
		if (j < x->n && x->d[j].f == c->d[i].f && (x->d[j].d > 0) == (c->d[i].d > 0)) {
			c->d[m] = c->d[i];
			if (llabs(x->d[j].d) < llabs(c->d[m].d))
				c->d[m].d = x->d[j].d;
			m++;
		}
	}
	c->n = m;
}

static void copy(cc_set *to, const cc_set *from)
{
	to->n = from->n;
	to->d = xmalloc((from->n ? from->n : 1) * sizeof *to->d);
	if (from->n)
		memcpy(to->d, from->d, from->n * sizeof *to->d);
}

struct member {
	int64_t cls;
	size_t k;
};

static int cmp_member(const void *x, const void *y)
{
	const struct member *a = x, *b = y;
	if (a->cls != b->cls)
		return a->cls < b->cls ? -1 : 1;
	return a->k < b->k ? -1 : a->k > b->k;
}

void cc_common(const cc_set *ds, const int64_t *cls, size_t n, cc_set *out)
{
	/* what every trace that changed shares, when three or more did (two are as likely the
	 * two sides of one bug, the threads of one rank) */
	cc_set all = { NULL, 0 };
	size_t changed = 0;
	for (size_t k = 0; k < n; k++) {
		if (!ds[k].n)
			continue;
		if (!changed++)
			copy(&all, &ds[k]);
		else
			intersect(&all, &ds[k]);
	}
	if (changed < 3)
		all.n = 0;
	struct member *m = xmalloc((n ? n : 1) * sizeof *m);
	for (size_t k = 0; k < n; k++)
		m[k] = (struct member){ cls[k], k };
	qsort(m, n, sizeof *m, cmp_member);
	for (size_t a = 0; a < n;) {
		size_t b = a + 1;
		while (b < n && m[b].cls == m[a].cls)
			b++;
		cc_set c;
		if (b - a >= 2) {
			copy(&c, &ds[m[a].k]);
			for (size_t q = a + 1; q < b && c.n; q++)
				intersect(&c, &ds[m[q].k]);
		} else {
			copy(&c, &all);
		}
		for (size_t q = a; q < b; q++)
			copy(&out[m[q].k], &c);
		cc_free(&c);
		a = b;
	}
	free(m);
	cc_free(&all);
}

static int in_set(const cc_set *c, uint32_t f)
{
	size_t lo = 0, hi = c->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->d[mid].f == f)
			return 1;
		if (c->d[mid].f < f)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* The next event of v from *i on that is a call of a function not in c, or 0 at the end. */
static uint32_t next_kept(const uint32_t *v, size_t n, size_t *i, const cc_set *c)
{
	while (*i < n && (!v[*i] || in_set(c, v[*i])))
		(*i)++;
	return *i < n ? v[(*i)++] : 0;
}

int cc_reduced_same(const uint32_t *a, size_t na, const uint32_t *b, size_t nb, const cc_set *c,
		    uint64_t *at, uint32_t *ev_a, uint32_t *ev_b)
{
	size_t i = 0, j = 0;
	uint64_t k = 0;
	for (;;) {
		uint32_t x = next_kept(a, na, &i, c), y = next_kept(b, nb, &j, c);
		if (x != y) {
			*at = k;
			*ev_a = x;
			*ev_b = y;
			return 0;
		}
		if (!x)
			return 1;
		k++;
	}
}

size_t cc_reduced_index(const uint32_t *v, size_t n, const cc_set *c, uint64_t at)
{
	size_t i = 0;
	for (uint64_t k = 0;; k++) {
		if (!next_kept(v, n, &i, c))
			return n;
		if (k == at)
			return i - 1;
	}
}

size_t cc_most_shared(const cc_set *cs, const int *flag, size_t n, cc_set *out)
{
	size_t best = 0;
	cc_free(out);
	for (size_t k = 0; k < n; k++) {
		if (!flag[k])
			continue;
		size_t c = 0;
		for (size_t q = 0; q < n; q++)
			c += flag[q] && cc_same_functions(&cs[q], &cs[k]);
		if (c > best) {
			cc_free(out);
			out->n = cs[k].n;
			out->d = xmalloc((cs[k].n ? cs[k].n : 1) * sizeof *out->d);
			memcpy(out->d, cs[k].d, cs[k].n * sizeof *out->d);
			best = c;
		}
	}
	return best;
}
