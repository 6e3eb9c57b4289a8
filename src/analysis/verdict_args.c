/* verdict_args.c: the MPI arguments every trace changed alike (verdict_args.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/verdict_args.h"
#include "util/esc.h"
#include "util/util.h"

#define MAX_ARGS 16

static uint64_t hash(const char *p, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)p[i];
		h *= 1099511628211ull;
	}
	return h;
}

/* A NAME[k=v,...] parsed: n -1 when the name has no arguments (or too many) */
typedef struct parsed {
	int n;
	uint64_t base;
	uint64_t key[MAX_ARGS];
	int64_t val[MAX_ARGS];
} parsed;

typedef struct names {
	store *s;
	parsed *p; /* by function id, filled when first needed */
	unsigned char *done;
	size_t np;
} names;

/* The arguments of name: [lo[i], hi[i]) each "k=v"; -1 when not NAME[args]. */
static int split(const char *nm, size_t *lo, size_t *hi, size_t *eq)
{
	const char *o = strchr(nm, '[');
	size_t len = strlen(nm);
	if (!o || len < 2 || nm[len - 1] != ']')
		return -1;
	int n = 0;
	size_t i = (size_t)(o - nm) + 1;
	while (i < len - 1) {
		size_t j = i;
		while (j < len - 1 && nm[j] != ',')
			j++;
		const char *e = memchr(nm + i, '=', j - i);
		if (!e || n == MAX_ARGS)
			return -1;
		lo[n] = i;
		hi[n] = j;
		eq[n++] = (size_t)(e - nm);
		i = j + 1;
	}
	return n;
}

static const parsed *parse(names *m, uint32_t f)
{
	static const parsed none = { -1, 0, { 0 }, { 0 } };
	if (!f || f >= m->np)
		return &none;
	if (m->done[f])
		return &m->p[f];
	m->done[f] = 1;
	parsed *p = &m->p[f];
	p->n = -1;
	const char *nm = store_func_name(m->s, f);
	size_t lo[MAX_ARGS], hi[MAX_ARGS], eq[MAX_ARGS];
	int n = nm ? split(nm, lo, hi, eq) : -1;
	if (n < 0)
		return p;
	p->base = hash(nm, (size_t)(strchr(nm, '[') - nm));
	for (int i = 0; i < n; i++) {
		p->key[i] = hash(nm + lo[i], eq[i] - lo[i]);
		p->val[i] = (int64_t)(hash(nm + eq[i] + 1, hi[i] - eq[i] - 1) >> 1);
	}
	p->n = n;
	return p;
}

/* The arguments of the calls a trace makes as its counterpart does, up to the first other. */
static void see(names *m, const uint32_t *a, size_t na, const uint32_t *b, size_t nb,
		size_t trace, ac_set *seen)
{
	for (size_t i = 0; i < na && i < nb; i++) {
		if (!a[i] != !b[i])
			return;
		if (!a[i])
			continue;
		const parsed *x = parse(m, a[i]), *y = parse(m, b[i]);
		if (x->n < 0 && a[i] == b[i])
			continue;
		if (x->n < 0 || y->n != x->n || x->base != y->base)
			return;
		for (int k = 0; k < x->n; k++)
			if (x->key[k] != y->key[k])
				return;
		for (int k = 0; k < x->n; k++)
			ac_see(seen, x->base, x->key[k], x->val[k], y->val[k], trace,
			       (uint64_t)a[i] << 32 | b[i]);
	}
}

/* The value of argument k of function f ("64"), into out. */
static void value_of(store *s, uint32_t f, int k, char *out, size_t cap)
{
	const char *nm = store_func_name(s, f);
	size_t lo[MAX_ARGS], hi[MAX_ARGS], eq[MAX_ARGS];
	int n = nm ? split(nm, lo, hi, eq) : -1;
	if (k >= n) {
		snprintf(out, cap, "?");
		return;
	}
	snprintf(out, cap, "%.*s", (int)(hi[k] - eq[k] - 1), nm + eq[k] + 1);
}

/* b's call f with the common changes undone: the store's id of that name, else f. */
static uint32_t undo(names *m, const strmap *ids, const ac_set *c, uint32_t f, dt_buf *buf)
{
	const parsed *y = parse(m, f);
	if (y->n < 0)
		return f;
	const char *nm = store_func_name(m->s, f);
	size_t lo[MAX_ARGS], hi[MAX_ARGS], eq[MAX_ARGS];
	if (split(nm, lo, hi, eq) != y->n)
		return f;
	buf->len = 0;
	int changed = 0;
	size_t at = 0;
	for (int k = 0; k < y->n; k++) {
		const ac_change *x = ac_back(c, y->base, y->key[k], y->val[k]);
		if (!x)
			continue;
		/* the normal value: the same argument of the example's normal call */
		const parsed *o = parse(m, (uint32_t)(x->ex >> 32));
		int ko = 0;
		while (ko < o->n && o->key[ko] != y->key[k])
			ko++;
		char v[256];
		value_of(m->s, (uint32_t)(x->ex >> 32), ko, v, sizeof v);
		buf_put(buf, nm + at, eq[k] + 1 - at);
		buf_put(buf, v, strlen(v));
		at = hi[k];
		changed = 1;
	}
	if (!changed)
		return f;
	buf_put(buf, nm + at, strlen(nm) - at);
	uint32_t id;
	return strmap_get(ids, (const char *)buf->p, buf->len, &id) ? id : f;
}

size_t vd_args_common(store *s, uint32_t *const *a, const size_t *na, uint32_t **b,
		      const size_t *nb, size_t n, ac_set *out)
{
	size_t nn = 0;
	const char *const *all = store_func_names(s, &nn);
	names m = { s, xcalloc(nn ? nn : 1, sizeof *m.p), xcalloc(nn ? nn : 1, 1), nn };
	ac_set seen = { 0 };
	for (size_t k = 0; k < n; k++)
		if (nb[k])
			see(&m, a[k], na[k], b[k], nb[k], k, &seen);
	ac_decide(&seen, out);
	if (out->n) {
		strmap ids;
		strmap_init(&ids);
		for (size_t f = 1; f < nn; f++)
			if (all[f] && strchr(all[f], '['))
				strmap_put(&ids, all[f], strlen(all[f]), (uint32_t)f);
		dt_buf buf = { 0 };
		for (size_t k = 0; k < n; k++)
			for (size_t i = 0; i < nb[k]; i++)
				b[k][i] = undo(&m, &ids, out, b[k][i], &buf);
		buf_free(&buf);
		strmap_free(&ids);
	}
	free(m.p);
	free(m.done);
	return out->n;
}

/* "count" of the call ex's argument whose key hashes to key, with its two values */
static int texts(store *s, const ac_change *x, char *k, char *from, char *to, size_t cap)
{
	uint32_t fa = (uint32_t)(x->ex >> 32), fb = (uint32_t)x->ex;
	const char *nm = store_func_name(s, fa);
	size_t lo[MAX_ARGS], hi[MAX_ARGS], eq[MAX_ARGS];
	int n = nm ? split(nm, lo, hi, eq) : -1;
	for (int i = 0; i < n; i++)
		if (hash(nm + lo[i], eq[i] - lo[i]) == x->key) {
			snprintf(k, cap, "%.*s", (int)(eq[i] - lo[i]), nm + lo[i]);
			value_of(s, fa, i, from, cap);
			value_of(s, fb, i, to, cap);
			return 1;
		}
	return 0;
}

void vd_args_text(store *s, const ac_set *c, char *buf, size_t cap)
{
	size_t k = 0;
	if (cap)
		buf[0] = 0;
	unsigned char *done = xcalloc(c->n ? c->n : 1, 1);
	for (size_t i = 0; i < c->n && k < cap; i++) {
		char key[128], f[128], t[128], raw[512], nm[128];
		if (done[i] || !texts(s, &c->c[i], key, f, t, sizeof key))
			continue;
		snprintf(raw, sizeof raw, "%s %s -> %s", key, f, t);
		esc_str(raw, nm, sizeof nm);
		k += (size_t)snprintf(buf + k, cap - k, "%s%s in ", k ? "; " : "", nm);
		/* every call whose same argument changed the same way */
		for (size_t j = i, q = 0; j < c->n && k < cap; j++) {
			char k2[128], f2[128], t2[128];
			if (done[j] || !texts(s, &c->c[j], k2, f2, t2, sizeof k2) || strcmp(k2, key) ||
			    strcmp(f2, f) || strcmp(t2, t))
				continue;
			done[j] = 1;
			const char *full = store_func_name(s, (uint32_t)(c->c[j].ex >> 32));
			const char *o = full ? strchr(full, '[') : NULL;
			snprintf(raw, sizeof raw, "%.*s", o ? (int)(o - full) : 1, o ? full : "?");
			esc_str(raw, nm, sizeof nm);
			k += (size_t)snprintf(buf + k, cap - k, "%s%s", q++ ? ", " : "", nm);
		}
	}
	free(done);
}
