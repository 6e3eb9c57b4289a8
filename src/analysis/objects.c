/* objects.c: an analysis's objects packed in one blob (objects.h). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/objects.h"

#define OBJ_MAGIC 0x4f42 /* "OB": this layout */

void an_objects_begin(an_objects_w *w, size_t n)
{
	memset(w, 0, sizeof *w);
	w->n = n;
	buf_uvar(&w->b, OBJ_MAGIC);
	buf_uvar(&w->b, n);
}

static size_t shared(const char *a, const char *b)
{
	size_t k = 0;
	while (a[k] && a[k] == b[k])
		k++;
	return k;
}

static void put_str(dt_buf *b, const char *s, const char *prev)
{
	s = s ? s : "";
	size_t k = prev ? shared(s, prev) : 0, len = strlen(s);
	buf_uvar(b, k);
	buf_uvar(b, len - k);
	buf_put(b, s + k, len - k);
}

void an_objects_put(an_objects_w *w, const store_trace *t, uint64_t nfiltered,
		    const uint32_t *attrs, size_t na)
{
	dt_buf *b = &w->b;
	const store_trace *q = w->prev;
	buf_svar(b, t->id - (q ? q->id : 0));
	buf_svar(b, t->run_id - (q ? q->run_id : 0));
	buf_svar(b, t->proc);
	buf_svar(b, t->thread);
	buf_svar(b, t->pid);
	buf_svar(b, t->tid);
	buf_svar(b, t->rank);
	put_str(b, t->host, q ? q->host : NULL);
	put_str(b, t->source, q ? q->source : NULL);
	put_str(b, t->note, q ? q->note : NULL);
	buf_uvar(b, t->nevents);
	buf_uvar(b, t->ncalls);
	buf_svar(b, t->maxdepth);
	buf_uvar(b, t->flags);
	buf_svar(b, t->has_time);
	buf_uvar(b, t->first_ts);
	buf_uvar(b, t->last_ts);
	buf_svar(b, t->bytes);
	buf_svar(b, t->nargs);
	buf_svar(b, t->ngaps);
	buf_uvar(b, nfiltered);
	buf_uvar(b, na);
	for (size_t i = 0; i < na; i++)
		buf_uvar(b, attrs[i] - (i ? attrs[i - 1] : 0));
	w->prev = t;
	w->count++;
}

/* Blocks of at least ARENA_BLOCK bytes, each starting with its link to the previous one. */
#define ARENA_BLOCK (1u << 20)

typedef struct arena {
	struct block *last;
	size_t used, cap; /* in last */
} arena;

struct block {
	struct block *prev;
	max_align_t data[];
};

static void *arena_alloc(arena *a, size_t n, size_t align)
{
	size_t at = (a->used + align - 1) / align * align;
	if (!a->last || at + n > a->cap) {
		size_t cap = n > ARENA_BLOCK ? n : ARENA_BLOCK;
		struct block *b = xmalloc(sizeof *b + cap);
		b->prev = a->last;
		a->last = b;
		a->cap = cap;
		at = 0;
	}
	a->used = at + n;
	return (char *)a->last->data + at;
}

void an_arena_free(void *p)
{
	struct block *b = p;
	while (b) {
		struct block *prev = b->prev;
		free(b);
		b = prev;
	}
}

typedef struct rd {
	const uint8_t *p;
	size_t len, pos;
	int bad;
	arena *a; /* NULL: malloc */
} rd;

static inline uint64_t u(rd *d)
{
	return uvar_next(d->p, d->len, &d->pos, &d->bad);
}

static inline int64_t sv(rd *d)
{
	uint64_t z = u(d); /* zigzag, as buf_svar writes it */
	return (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
}

/* A string coded against prev (plen long): *len gets its length. From an arena, a string equal
 * to prev is prev itself (nothing frees it but the arena). */
static char *str(rd *d, const char *prev, size_t plen, size_t *len)
{
	uint64_t k = u(d), rest = u(d);
	if (d->bad || k > plen || rest > d->len - d->pos) {
		d->bad = 1;
		*len = 0;
		k = rest = 0;
	}
	if (d->a && prev && k == plen && !rest) { /* the same again: shared, the arena's alone */
		*len = plen;
		return (char *)prev;
	}
	char *s = d->a ? arena_alloc(d->a, (size_t)(k + rest + 1), 1) : xmalloc((size_t)(k + rest + 1));
	if (k)
		memcpy(s, prev, (size_t)k);
	memcpy(s + k, d->p + d->pos, (size_t)rest);
	s[k + rest] = 0;
	d->pos += (size_t)rest;
	*len = (size_t)(k + rest);
	return s;
}

int an_objects_decode(const uint8_t *p, size_t len, size_t n, store_trace *traces,
		      uint64_t *nfiltered, uint32_t **ids, size_t *nids, void **arena_out)
{
	arena a = { NULL, 0, 0 };
	rd d = { p, len, 0, 0, arena_out ? &a : NULL };
	if (arena_out)
		*arena_out = NULL;
	if (u(&d) != OBJ_MAGIC || u(&d) != n || d.bad)
		return -1;
	size_t lh = 0, ls = 0, ln = 0; /* the previous strings' lengths */
	for (size_t i = 0; i < n && !d.bad; i++) {
		store_trace *t = &traces[i];
		const store_trace *q = i ? &traces[i - 1] : NULL;
		t->id = sv(&d) + (q ? q->id : 0);
		t->run_id = sv(&d) + (q ? q->run_id : 0);
		t->proc = (int)sv(&d);
		t->thread = (int)sv(&d);
		t->pid = sv(&d);
		t->tid = sv(&d);
		t->rank = sv(&d);
		t->host = str(&d, q ? q->host : NULL, lh, &lh);
		t->source = str(&d, q ? q->source : NULL, ls, &ls);
		t->note = str(&d, q ? q->note : NULL, ln, &ln);
		t->nevents = u(&d);
		t->ncalls = u(&d);
		t->maxdepth = (int)sv(&d);
		t->flags = (unsigned)u(&d);
		t->has_time = (int)sv(&d);
		t->first_ts = u(&d);
		t->last_ts = u(&d);
		t->bytes = sv(&d);
		t->nargs = sv(&d);
		t->ngaps = sv(&d);
		nfiltered[i] = u(&d);
		uint64_t na = u(&d);
		if (na > d.len - d.pos) { /* at least a byte each */
			d.bad = 1;
			break;
		}
		size_t vb = (size_t)(na ? na : 1) * sizeof(uint32_t);
		uint32_t *v = d.a ? arena_alloc(d.a, vb, sizeof(uint32_t)) : xmalloc(vb);
		uint64_t acc = 0;
		for (uint64_t k = 0; k < na; k++) {
			acc += u(&d);
			v[k] = (uint32_t)acc;
		}
		ids[i] = v;
		nids[i] = (size_t)na;
	}
	if (arena_out)
		*arena_out = a.last;
	return d.bad || d.pos != d.len ? -1 : 0;
}
