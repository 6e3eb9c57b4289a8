#define _POSIX_C_SOURCE 200809L
/* util.c: allocation, buffers, varints, the string map, file reading and ordinals. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/util.h"

static void oom(size_t n)
{
	fprintf(stderr, "difftrace: out of memory (asked for %zu bytes)\n", n);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		oom(n * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		oom(n);
	return q;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *d = xmalloc(n + 1);
	memcpy(d, s, n);
	d[n] = 0;
	return d;
}

void grow(void **p, size_t *cap, size_t need, size_t elt)
{
	if (need <= *cap)
		return;
	size_t c = *cap ? *cap : 16;
	while (c < need)
		c *= 2;
	*p = xrealloc(*p, c * elt);
	*cap = c;
}

void buf_put(dt_buf *b, const void *data, size_t n)
{
	if (!n)
		return; /* data may be NULL then */
	GROW(b->p, b->cap, b->len + n);
	memcpy(b->p + b->len, data, n);
	b->len += n;
}

void buf_byte(dt_buf *b, uint8_t c)
{
	GROW(b->p, b->cap, b->len + 1);
	b->p[b->len++] = c;
}

void buf_uvar(dt_buf *b, uint64_t v)
{
	GROW(b->p, b->cap, b->len + 10);
	while (v >= 0x80) {
		b->p[b->len++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	b->p[b->len++] = (uint8_t)v;
}

void buf_svar(dt_buf *b, int64_t v)
{
	buf_uvar(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

void buf_free(dt_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

int uvar_get(const uint8_t *p, size_t len, size_t *pos, uint64_t *v)
{
	uint64_t r = 0;
	for (int shift = 0; shift < 70; shift += 7) {
		if (*pos >= len)
			return -1;
		uint8_t c = p[(*pos)++];
		r |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			*v = r;
			return 0;
		}
	}
	return -1;
}

int svar_get(const uint8_t *p, size_t len, size_t *pos, int64_t *v)
{
	uint64_t u;
	if (uvar_get(p, len, pos, &u))
		return -1;
	*v = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
	return 0;
}

uint64_t hash_bytes(const void *p, size_t n)
{
	/* FNV-1a: names are short, so a simple byte hash is as fast as anything fancier. */
	const uint8_t *s = p;
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < n; i++) {
		h ^= s[i];
		h *= 1099511628211ULL;
	}
	return h;
}

/* The in-memory hash of a map's keys (never stored): eight bytes a step, as names from
 * traces are looked up once an event while importing. */
static uint64_t strmap_hash(const char *key, size_t n)
{
	uint64_t h = 0x9E3779B97F4A7C15ULL ^ n, w;
	for (; n >= 8; key += 8, n -= 8) {
		memcpy(&w, key, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	w = 0;
	if (n)
		memcpy(&w, key, n);
	h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
	return h ^ h >> 29;
}

struct strmap_slot {
	char *key;
	size_t klen;
	uint64_t hash;
	uint32_t val;
};

void strmap_init(strmap *m)
{
	m->slots = NULL;
	m->cap = m->count = 0;
}

void strmap_free(strmap *m)
{
	for (size_t i = 0; i < m->cap; i++)
		free(m->slots[i].key);
	free(m->slots);
	strmap_init(m);
}

static struct strmap_slot *find(const strmap *m, const char *key, size_t klen, uint64_t h)
{
	size_t mask = m->cap - 1;
	for (size_t i = h & mask;; i = (i + 1) & mask) {
		struct strmap_slot *s = &m->slots[i];
		if (!s->key)
			return s;
		if (s->hash == h && s->klen == klen && !memcmp(s->key, key, klen))
			return s;
	}
}

int strmap_get(const strmap *m, const char *key, size_t klen, uint32_t *val)
{
	if (!m->cap)
		return 0;
	struct strmap_slot *s = find(m, key, klen, strmap_hash(key, klen));
	if (!s->key)
		return 0;
	*val = s->val;
	return 1;
}

static void rehash(strmap *m)
{
	size_t oldcap = m->cap;
	struct strmap_slot *old = m->slots;
	m->cap = oldcap ? oldcap * 2 : 64;
	m->slots = xcalloc(m->cap, sizeof *m->slots);
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].key)
			*find(m, old[i].key, old[i].klen, old[i].hash) = old[i];
	free(old);
}

void strmap_put(strmap *m, const char *key, size_t klen, uint32_t val)
{
	if ((m->count + 1) * 4 >= m->cap * 3)
		rehash(m);
	uint64_t h = strmap_hash(key, klen);
	struct strmap_slot *s = find(m, key, klen, h);
	if (!s->key) {
		s->key = xstrndup(key, klen);
		s->klen = klen;
		s->hash = h;
		m->count++;
	}
	s->val = val;
}

char *path_join(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	char *p = xmalloc(la + lb + 2);
	memcpy(p, a, la);
	p[la] = '/';
	memcpy(p + la + 1, b, lb + 1);
	return p;
}

int read_file(const char *path, uint8_t **data, size_t *len, dt_err *e)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return dt_err_at(e, path, -1, "cannot open: %s", strerror(errno));
	struct stat st;
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(f);
		return dt_err_at(e, path, -1, "is a directory");
	}
	size_t cap = st.st_size > 0 ? (size_t)st.st_size + 1 : 4096, n = 0;
	uint8_t *p = xmalloc(cap);
	for (;;) {
		if (n + 1 >= cap)
			p = xrealloc(p, cap *= 2);
		size_t r = fread(p + n, 1, cap - n - 1, f);
		n += r;
		if (r == 0)
			break;
	}
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		free(p);
		return dt_err_at(e, path, (int64_t)n, "read error");
	}
	p[n] = 0;
	*data = p;
	*len = n;
	return 0;
}

int natcmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			while (*a == '0')
				a++;
			while (*b == '0')
				b++;
			size_t la = 0, lb = 0;
			while (isdigit((unsigned char)a[la]))
				la++;
			while (isdigit((unsigned char)b[lb]))
				lb++;
			if (la != lb)
				return la < lb ? -1 : 1;
			int c = memcmp(a, b, la);
			if (c)
				return c;
			a += la;
			b += lb;
		} else {
			if (*a != *b)
				return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
			a++;
			b++;
		}
	}
	return *a ? 1 : *b ? -1 : 0;
}

void maps_path_unescape(char *p)
{
	char *w = p;
	for (; *p; p++) {
		if (!strncmp(p, "\\012", 4)) {
			*w++ = '\n';
			p += 3;
		} else {
			*w++ = *p;
		}
	}
	*w = 0;
}

const char *ordinal(uint64_t k, char *b, size_t n)
{
	const char *suf = "th";
	if (k % 100 < 11 || k % 100 > 13)
		suf = k % 10 == 1 ? "st" : k % 10 == 2 ? "nd" : k % 10 == 3 ? "rd" : "th";
	snprintf(b, n, "%" PRIu64 "%s", k, suf);
	return b;
}
