/* attrs.c: attribute extraction from NLR entries, interning, mode names and display. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/attrs.h"
#include "util/util.h"

/* ---- mode names ---- */

static const char *const freq_names[] = { "orig", "log2", "log10", "actual" };

int attrs_mode_parse(const char *s, attrs_mode *m, dt_err *e)
{
	return attrs_mode_parse_args(s, m, NULL, e);
}

int attrs_mode_parse_args(const char *s, attrs_mode *m, int *argsp, dt_err *e)
{
	char part[3][16] = { "", "", "" };
	size_t np = 0;
	const char *p = s;
	/* `.args` (or `+args`) ends any mode name */
	size_t total = strlen(s);
	int args = total > 5 && (!strcmp(s + total - 5, ".args") || !strcmp(s + total - 5, "+args"));
	if (args && !argsp)
		return dt_errf(e, DT_EUSAGE, "attribute mode '%s': .args is for analyses only", s);
	if (args)
		total -= 5;
	for (;;) {
		const char *dot = memchr(p, '.', total - (size_t)(p - s));
		size_t len = dot ? (size_t)(dot - p) : total - (size_t)(p - s);
		if (np == 3 || len == 0 || len >= sizeof part[0])
			goto bad;
		memcpy(part[np], p, len);
		part[np++][len] = 0;
		if (!dot)
			break;
		p = dot + 1;
	}
	attrs_mode r = { ATTRS_SING, ATTRS_ORIG, ATTRS_W };
	if (!strcmp(part[0], "sing"))
		r.kind = ATTRS_SING;
	else if (!strcmp(part[0], "doub"))
		r.kind = ATTRS_DOUB;
	else
		goto bad;
	if (np > 1) {
		int f = -1;
		for (int i = 0; i < 4; i++)
			if (!strcmp(part[1], freq_names[i]))
				f = i;
		if (!strcmp(part[1], "noFreq") || !strcmp(part[1], "nofreq"))
			f = ATTRS_ORIG;
		if (f < 0)
			goto bad;
		r.freq = (enum attrs_freq)f;
	}
	if (np > 2) {
		if (!strcmp(part[2], "w"))
			r.pairs = ATTRS_W;
		else if (!strcmp(part[2], "wo"))
			r.pairs = ATTRS_WO;
		else
			goto bad;
	}
	if (r.kind == ATTRS_SING)
		r.pairs = ATTRS_W; /* pairing means nothing for sing: one canonical value */
	*m = r;
	if (argsp)
		*argsp = args;
	return 0;
bad:
	return dt_errf(e, DT_EUSAGE,
		       "bad attribute mode '%s' (expected sing.FREQ or doub.FREQ.w|wo, optionally .args, "
		       "FREQ one of orig, noFreq, log2, log10, actual)",
		       s);
}

const char *attrs_mode_name(attrs_mode m, char *buf, size_t size)
{
	const char *f = (unsigned)m.freq < 4 ? freq_names[m.freq] : "?";
	if (m.kind == ATTRS_DOUB)
		snprintf(buf, size, "doub.%s.%s", f, m.pairs == ATTRS_WO ? "wo" : "w");
	else
		snprintf(buf, size, "sing.%s", f);
	return buf;
}

const char *attrs_mode_name_args(attrs_mode m, int args, char *buf, size_t size)
{
	attrs_mode_name(m, buf, size);
	size_t l = strlen(buf);
	if (args && l < size)
		snprintf(buf + l, size - l, ".args");
	return buf;
}

/* ---- a hash table of keys: slots hold 1 + an index into a key array, 0 when empty ---- */

typedef struct ktab {
	uint32_t *slot;
	size_t cap; /* a power of two */
} ktab;

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static uint64_t key_hash(const attrs_key *k)
{
	uint64_t h = mix64(((uint64_t)k->a << 32 | k->acount) ^ 0x9e3779b97f4a7c15ULL);
	h = mix64(h ^ ((uint64_t)k->b << 32 | k->bcount));
	return mix64(h ^ k->f);
}

static void ktab_init(ktab *t, size_t expect)
{
	size_t cap = 16;
	while (cap < 2 * expect)
		cap *= 2;
	t->cap = cap;
	t->slot = xcalloc(cap, sizeof *t->slot);
}

/* The slot holding k, or the empty slot where it would go. */
static uint32_t *ktab_find(const ktab *t, const attrs_key *keys, const attrs_key *k)
{
	size_t mask = t->cap - 1, i = (size_t)key_hash(k) & mask;
	while (t->slot[i] && !attrs_key_eq(&keys[t->slot[i] - 1], k))
		i = (i + 1) & mask;
	return &t->slot[i];
}

/* Keeps the load at most one half; called before inserting the (count+1)-th key. */
static void ktab_reserve(ktab *t, const attrs_key *keys, size_t count)
{
	if (2 * (count + 1) <= t->cap)
		return;
	ktab old = *t;
	t->cap *= 2;
	t->slot = xcalloc(t->cap, sizeof *t->slot);
	for (size_t i = 0; i < old.cap; i++)
		if (old.slot[i])
			*ktab_find(t, keys, &keys[old.slot[i] - 1]) = old.slot[i];
	free(old.slot);
}

/* ---- extraction ---- */

static uint64_t bucket(enum attrs_freq q, uint64_t f)
{
	uint64_t b = 0;
	switch (q) {
	case ATTRS_ORIG:
		return 0;
	case ATTRS_LOG2:
		return f ? (uint64_t)(63 - __builtin_clzll(f)) : 0; /* f = 0 only for a ^0 loop */
	case ATTRS_LOG10:
		while (f >= 10) {
			f /= 10;
			b++;
		}
		return b;
	case ATTRS_ACTUAL:
		return f;
	}
	return 0;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

size_t attrs_extract(attrs_mode mode, const nlr_entry *ent, size_t n, attrs_key **out)
{
	size_t ntok = mode.kind == ATTRS_SING ? n : (mode.pairs == ATTRS_WO ? n / 2 : (n ? n - 1 : 0));
	attrs_key *keys = xmalloc((ntok ? ntok : 1) * sizeof *keys);
	uint64_t *freq = xmalloc((ntok ? ntok : 1) * sizeof *freq);
	size_t nk = 0;
	ktab t;
	ktab_init(&t, ntok);
	size_t step = mode.kind == ATTRS_DOUB && mode.pairs == ATTRS_WO ? 2 : 1;
	for (size_t i = 0, j = 0; j < ntok; i += step, j++) {
		attrs_key k = { ent[i].sym, 0, ATTRS_NONE, 0, 0 };
		uint64_t add = 1;
		if (mode.kind == ATTRS_SING) {
			if (nlr_is_loop(ent[i]))
				add = ent[i].count;
		} else {
			k.acount = nlr_is_loop(ent[i]) ? ent[i].count : 0;
			k.b = ent[i + 1].sym;
			k.bcount = nlr_is_loop(ent[i + 1]) ? ent[i + 1].count : 0;
		}
		uint32_t *s = ktab_find(&t, keys, &k);
		if (!*s) {
			keys[nk] = k;
			freq[nk] = 0;
			*s = (uint32_t)++nk;
		}
		freq[*s - 1] = sat_add(freq[*s - 1], add);
	}
	for (size_t i = 0; i < nk; i++)
		keys[i].f = bucket(mode.freq, freq[i]);
	free(freq);
	free(t.slot);
	*out = keys;
	return nk;
}

/* ---- the interned set ---- */

struct attrs_set {
	attrs_mode mode;
	attrs_key *keys; /* by attribute id */
	size_t nkeys, capkeys;
	ktab tab;
	uint32_t *ids; /* object i: ids[off[i] .. off[i+1]), ascending */
	size_t nids, capids;
	size_t *off;
	size_t nobj, capoff;
};

attrs_set *attrs_new(attrs_mode mode)
{
	attrs_set *s = xcalloc(1, sizeof *s);
	s->mode = mode;
	ktab_init(&s->tab, 64);
	GROW(s->off, s->capoff, 1);
	s->off[0] = 0;
	return s;
}

void attrs_free(attrs_set *s)
{
	if (!s)
		return;
	free(s->keys);
	free(s->tab.slot);
	free(s->ids);
	free(s->off);
	free(s);
}

attrs_mode attrs_set_mode(const attrs_set *s)
{
	return s->mode;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

size_t attrs_add_keys(attrs_set *s, const attrs_key *keys, size_t nkeys)
{
	GROW(s->ids, s->capids, s->nids + nkeys);
	uint32_t *row = s->ids + s->nids;
	for (size_t i = 0; i < nkeys; i++) {
		ktab_reserve(&s->tab, s->keys, s->nkeys);
		uint32_t *slot = ktab_find(&s->tab, s->keys, &keys[i]);
		if (!*slot) {
			GROW(s->keys, s->capkeys, s->nkeys + 1);
			s->keys[s->nkeys++] = keys[i];
			*slot = (uint32_t)s->nkeys;
		}
		row[i] = *slot - 1;
	}
	if (nkeys) /* row may be NULL for an object with no attribute */
		qsort(row, nkeys, sizeof *row, cmp_u32);
	size_t k = 0; /* a caller's repeated key counts once */
	for (size_t i = 0; i < nkeys; i++)
		if (!k || row[i] != row[k - 1])
			row[k++] = row[i];
	s->nids += k;
	GROW(s->off, s->capoff, s->nobj + 2);
	s->off[++s->nobj] = s->nids;
	return s->nobj - 1;
}

size_t attrs_add(attrs_set *s, const nlr_entry *ent, size_t n)
{
	attrs_key *k;
	size_t nk = attrs_extract(s->mode, ent, n, &k);
	size_t obj = attrs_add_keys(s, k, nk);
	free(k);
	return obj;
}

size_t attrs_nobjects(const attrs_set *s)
{
	return s->nobj;
}

size_t attrs_nattrs(const attrs_set *s)
{
	return s->nkeys;
}

const attrs_key *attrs_key_of(const attrs_set *s, uint32_t id)
{
	return &s->keys[id];
}

uint32_t attrs_find(const attrs_set *s, const attrs_key *k)
{
	uint32_t slot = *ktab_find(&s->tab, s->keys, k);
	return slot ? slot - 1 : ATTRS_NONE;
}

const uint32_t *attrs_object(const attrs_set *s, size_t obj, size_t *len)
{
	*len = s->off[obj + 1] - s->off[obj];
	return s->ids + s->off[obj];
}

void attrs_context(const attrs_set *s, ctx_bits *c)
{
	ctx_from_lists(c, s->nobj, s->nkeys, s->ids, s->off);
}

/* ---- display ---- */

typedef struct outbuf {
	char *p;
	size_t size, len;
} outbuf;

static void put(outbuf *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(outbuf *o, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	size_t room = o->len < o->size ? o->size - o->len : 0;
	int k = vsnprintf(room ? o->p + o->len : NULL, room, fmt, ap);
	va_end(ap);
	if (k > 0)
		o->len += (size_t)k;
}

static void put_token(outbuf *o, uint32_t sym, uint32_t count, int with_count, attrs_namefn name,
		      void *ud)
{
	if (sym & NLR_LOOP) {
		if (with_count)
			put(o, "L%u^%u", sym & ~NLR_LOOP, count);
		else
			put(o, "L%u", sym & ~NLR_LOOP);
		return;
	}
	const char *nm = name ? name(ud, sym) : NULL;
	if (nm)
		put(o, "%s", nm);
	else
		put(o, "f%u", sym);
}

size_t attrs_render(attrs_mode mode, const attrs_key *k, attrs_namefn name, void *ud, char *buf,
		    size_t size)
{
	outbuf o = { buf, size, 0 };
	if (size)
		buf[0] = 0;
	int doub = mode.kind == ATTRS_DOUB;
	put_token(&o, k->a, k->acount, doub, name, ud);
	if (doub && k->b != ATTRS_NONE) {
		put(&o, " ");
		put_token(&o, k->b, k->bcount, 1, name, ud);
	}
	if (mode.freq != ATTRS_ORIG)
		put(&o, ":%llu", (unsigned long long)k->f);
	return o.len;
}
