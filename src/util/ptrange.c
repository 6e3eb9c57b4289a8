/* ptrange.c: printing and reading compact P.T sets. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/ptrange.h"
#include "util/util.h"

/* A parsed set may not expand to more pairs than this: `0-4000000000` is a typo, not a run. */
#define PTR_MAX_PAIRS (1u << 24)

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

static int cmp_pt(const void *a, const void *b)
{
	const ptr_pt *x = a, *y = b;
	if (x->p != y->p)
		return (x->p > y->p) - (x->p < y->p);
	return (x->t > y->t) - (x->t < y->t);
}

static size_t uniq_pt(ptr_pt *v, size_t n)
{
	size_t up = 1; /* most callers pass traces in P.T order already: no sort then */
	while (up < n && cmp_pt(&v[up - 1], &v[up]) < 0)
		up++;
	if (up < n)
		qsort(v, n, sizeof *v, cmp_pt);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!k || cmp_pt(&v[i], &v[k - 1]))
			v[k++] = v[i];
	return k;
}

static void put_str(dt_buf *b, const char *s)
{
	buf_put(b, s, strlen(s));
}

static void put_u32(dt_buf *b, uint32_t x)
{
	char t[16];
	size_t k = sizeof t;
	do /* the digits from the last, without snprintf's cost per number */
		t[--k] = (char)('0' + x % 10);
	while (x /= 10);
	buf_put(b, t + k, sizeof t - k);
}

/* v ascending, distinct */
static size_t nruns(const uint32_t *v, size_t n)
{
	size_t r = 0;
	for (size_t i = 0; i < n; i++)
		if (!i || v[i] != v[i - 1] + 1)
			r++;
	return r;
}

static void put_list(dt_buf *b, const uint32_t *v, size_t n)
{
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j + 1 < n && v[j + 1] == v[j] + 1)
			j++;
		if (i)
			buf_byte(b, ',');
		put_u32(b, v[i]);
		if (j > i) {
			buf_byte(b, '-');
			put_u32(b, v[j]);
		}
		i = j + 1;
	}
}

/* A set inside a group: bare when it is one range, else bracketed. */
static void put_set(dt_buf *b, const uint32_t *v, size_t n)
{
	int br = nruns(v, n) > 1;
	if (br)
		buf_byte(b, '[');
	put_list(b, v, n);
	if (br)
		buf_byte(b, ']');
}

static char *finish(dt_buf *b)
{
	buf_byte(b, 0);
	return (char *)b->p;
}

char *ptr_format_list(const uint32_t *v, size_t n)
{
	uint32_t *w = xmalloc((n ? n : 1) * sizeof *w);
	memcpy(w, v, n * sizeof *w);
	qsort(w, n, sizeof *w, cmp_u32);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!k || w[i] != w[k - 1])
			w[k++] = w[i];
	dt_buf b = { 0 };
	put_list(&b, w, k);
	free(w);
	return finish(&b);
}

/* One process of the sorted pair array: its threads are pt[start .. start+len). */
typedef struct proc {
	uint32_t p;
	size_t start, len;
} proc;

static int same_threads(const ptr_pt *pt, const proc *a, const proc *b)
{
	if (a->len != b->len)
		return 0;
	for (size_t i = 0; i < a->len; i++)
		if (pt[a->start + i].t != pt[b->start + i].t)
			return 0;
	return 1;
}

/* Orders processes by thread set (length, then values), then by P: equal sets become adjacent.
 * qsort has no user pointer, so the pair array travels in each element. */
typedef struct proc_ref {
	const ptr_pt *pt;
	proc pr;
} proc_ref;

static int cmp_proc_ref(const void *x, const void *y)
{
	const proc_ref *a = x, *b = y;
	if (a->pr.len != b->pr.len)
		return (a->pr.len > b->pr.len) - (a->pr.len < b->pr.len);
	for (size_t i = 0; i < a->pr.len; i++) {
		uint32_t s = a->pt[a->pr.start + i].t, t = b->pt[b->pr.start + i].t;
		if (s != t)
			return (s > t) - (s < t);
	}
	return (a->pr.p > b->pr.p) - (a->pr.p < b->pr.p);
}

typedef struct group {
	size_t first, count; /* a run of the proc_ref array */
} group;

static int cmp_group_p(const void *x, const void *y, const proc_ref *r)
{
	const group *a = x, *b = y;
	uint32_t s = r[a->first].pr.p, t = r[b->first].pr.p;
	return (s > t) - (s < t);
}

/* Insertion sort of groups by first process: few groups, and it needs the proc_ref array. */
static void sort_groups(group *g, size_t n, const proc_ref *r)
{
	for (size_t i = 1; i < n; i++) {
		group x = g[i];
		size_t j = i;
		while (j > 0 && cmp_group_p(&g[j - 1], &x, r) > 0) {
			g[j] = g[j - 1];
			j--;
		}
		g[j] = x;
	}
}

char *ptr_format(const ptr_pt *pts, size_t n)
{
	dt_buf b = { 0 };
	if (!n)
		return finish(&b);
	ptr_pt *pt = xmalloc(n * sizeof *pt);
	memcpy(pt, pts, n * sizeof *pt);
	n = uniq_pt(pt, n);
	proc *pr = xmalloc(n * sizeof *pr);
	size_t np = 0;
	for (size_t i = 0; i < n; i++) {
		if (!np || pr[np - 1].p != pt[i].p)
			pr[np++] = (proc){ pt[i].p, i, 0 };
		pr[np - 1].len++;
	}
	uint32_t *v = xmalloc(n * sizeof *v);
	int uniform = 1;
	for (size_t k = 1; k < np && uniform; k++)
		uniform = same_threads(pt, &pr[0], &pr[k]);
	if (uniform) {
		for (size_t k = 0; k < np; k++)
			v[k] = pr[k].p;
		put_str(&b, "P ");
		put_list(&b, v, np);
		for (size_t i = 0; i < pr[0].len; i++)
			v[i] = pt[i].t;
		put_str(&b, " T ");
		put_list(&b, v, pr[0].len);
	} else {
		proc_ref *r = xmalloc(np * sizeof *r);
		for (size_t k = 0; k < np; k++)
			r[k] = (proc_ref){ pt, pr[k] };
		qsort(r, np, sizeof *r, cmp_proc_ref);
		group *g = xmalloc(np * sizeof *g);
		size_t ng = 0;
		for (size_t k = 0; k < np; k++) {
			if (!ng || !same_threads(pt, &r[g[ng - 1].first].pr, &r[k].pr))
				g[ng++] = (group){ k, 0 };
			g[ng - 1].count++;
		}
		sort_groups(g, ng, r);
		for (size_t q = 0; q < ng; q++) {
			if (q)
				put_str(&b, ", ");
			for (size_t k = 0; k < g[q].count; k++)
				v[k] = r[g[q].first + k].pr.p;
			put_set(&b, v, g[q].count);
			buf_byte(&b, '.');
			const proc *p0 = &r[g[q].first].pr;
			for (size_t i = 0; i < p0->len; i++)
				v[i] = pt[p0->start + i].t;
			put_set(&b, v, p0->len);
		}
		free(g);
		free(r);
	}
	free(v);
	free(pr);
	free(pt);
	return finish(&b);
}

/* ---- reading ---- */

typedef struct lex {
	const char *s;
	size_t i;
	dt_err *e;
} lex;

typedef struct u32vec {
	uint32_t *v;
	size_t n, cap;
} u32vec;

static int bad(lex *x, const char *what)
{
	return dt_errf(x->e, DT_EUSAGE, "bad P.T set '%s' at column %zu: %s", x->s, x->i + 1,
		       what);
}

static void ws(lex *x)
{
	while (x->s[x->i] == ' ' || x->s[x->i] == '\t')
		x->i++;
}

static int num(lex *x, uint32_t *out)
{
	const char *s = x->s;
	if (s[x->i] < '0' || s[x->i] > '9')
		return bad(x, "expected a number");
	uint64_t v = 0;
	while (s[x->i] >= '0' && s[x->i] <= '9') {
		v = v * 10 + (uint64_t)(s[x->i++] - '0');
		if (v > UINT32_MAX)
			return bad(x, "number too large");
	}
	*out = (uint32_t)v;
	return 0;
}

static int range(lex *x, u32vec *out)
{
	uint32_t a, b;
	if (num(x, &a))
		return -1;
	b = a;
	if (x->s[x->i] == '-') {
		x->i++;
		if (num(x, &b))
			return -1;
		if (b < a)
			return bad(x, "range ends before it starts");
	}
	if ((uint64_t)b - a + 1 + out->n > PTR_MAX_PAIRS)
		return bad(x, "set too large");
	for (uint64_t k = a; k <= b; k++) {
		GROW(out->v, out->cap, out->n + 1);
		out->v[out->n++] = (uint32_t)k;
	}
	return 0;
}

/* A bracketed list, or a bare one: a whole list when commas_ok, else a single range. */
static int set(lex *x, u32vec *out, int commas_ok)
{
	int br = x->s[x->i] == '[';
	if (br)
		x->i++;
	for (;;) {
		ws(x);
		if (range(x, out))
			return -1;
		ws(x);
		if (x->s[x->i] != ',' || !(br || commas_ok))
			break;
		x->i++;
	}
	if (br) {
		if (x->s[x->i] != ']')
			return bad(x, "expected ']'");
		x->i++;
	}
	return 0;
}

static void cross(const u32vec *ps, const u32vec *ts, ptr_pt **out, size_t *n, size_t *cap)
{
	for (size_t a = 0; a < ps->n; a++)
		for (size_t b = 0; b < ts->n; b++) {
			GROW(*out, *cap, *n + 1);
			(*out)[(*n)++] = (ptr_pt){ ps->v[a], ts->v[b] };
		}
}

int ptr_parse(const char *s, ptr_pt **pts, size_t *npts, dt_err *e)
{
	lex x = { s, 0, e };
	ptr_pt *out = NULL;
	size_t n = 0, cap = 0;
	u32vec ps = { 0 }, ts = { 0 };
	ws(&x);
	if (s[x.i] == 'P') {
		x.i++;
		ws(&x);
		if (set(&x, &ps, 1))
			goto fail;
		ws(&x);
		if (s[x.i] != 'T') {
			bad(&x, "expected 'T'");
			goto fail;
		}
		x.i++;
		ws(&x);
		if (set(&x, &ts, 1))
			goto fail;
		if ((uint64_t)ps.n * ts.n > PTR_MAX_PAIRS) {
			bad(&x, "set too large");
			goto fail;
		}
		cross(&ps, &ts, &out, &n, &cap);
	} else {
		while (s[x.i]) {
			ps.n = ts.n = 0;
			if (set(&x, &ps, 0))
				goto fail;
			ws(&x);
			if (s[x.i] != '.') {
				bad(&x, "expected '.'");
				goto fail;
			}
			x.i++;
			ws(&x);
			if (set(&x, &ts, 0))
				goto fail;
			if ((uint64_t)ps.n * ts.n + n > PTR_MAX_PAIRS) {
				bad(&x, "set too large");
				goto fail;
			}
			cross(&ps, &ts, &out, &n, &cap);
			ws(&x);
			if (s[x.i] == ',') {
				x.i++;
				ws(&x);
				if (!s[x.i]) {
					bad(&x, "expected a group after ','");
					goto fail;
				}
			} else if (s[x.i]) {
				bad(&x, "expected ',' between groups");
				goto fail;
			}
		}
	}
	ws(&x);
	if (s[x.i]) {
		bad(&x, "unexpected text");
		goto fail;
	}
	free(ps.v);
	free(ts.v);
	*npts = n ? uniq_pt(out, n) : 0;
	*pts = out ? out : xmalloc(sizeof *out);
	return 0;
fail:
	free(ps.v);
	free(ts.v);
	free(out);
	return -1;
}
