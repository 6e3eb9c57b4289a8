/* wire.c: the wire sink and its replay (see wire.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/wire.h"
#include "store/sync_codec.h"

#define NOSTR UINT32_MAX

static void put_u32(dt_buf *b, uint32_t v) { buf_put(b, &v, sizeof v); }
static void put_u64(dt_buf *b, uint64_t v) { buf_put(b, &v, sizeof v); }

/* Zero bytes up to the next multiple of 8 of the buffer's length, after a byte that says how
 * many: what follows can be used where it is when the buffer is (malloc's alignment). */
static void put_pad(dt_buf *b)
{
	static const uint8_t zero[8];
	size_t k = (8 - (b->len + 1) % 8) % 8;
	buf_byte(b, (uint8_t)k);
	buf_put(b, zero, k);
}

static void put_str(dt_buf *b, const char *s, size_t n)
{
	if (!s) {
		put_u32(b, NOSTR);
		return;
	}
	put_u32(b, (uint32_t)n);
	buf_put(b, s, n);
}

/* After a record: hands out over as a part when it reached the limit. */
static int check_full(wire_sink *w, dt_err *e)
{
	if (!w->limit || w->out->len < w->limit || !w->full)
		return 0;
	return w->full(w->full_ctx, e);
}

/* A 'Q' record: ev[0..n) as the columns of a chunk (store/sync_codec.h), written into the part
 * directly; the ends of the columns before them. */
static void put_cols(wire_sink *w, const dt_sync_event *ev, size_t n)
{
	dt_buf *b = w->out;
	buf_byte(b, 'Q');
	put_u64(b, n);
	size_t at = b->len;
	uint32_t end[SYNC_NCOL];
	GROW(b->p, b->cap, at + sizeof end + n * SYNC_NCOL * 10);
	size_t len = sync_cols_put(ev, n, b->p + at + sizeof end, end);
	memcpy(b->p + at, end, sizeof end);
	b->len = at + sizeof end + len;
}

static int w_begin(void *ctx, const dt_trace_meta *m, dt_err *e)
{
	(void)e;
	wire_sink *w = ctx;
	w->nsev = 0;
	buf_byte(w->out, 'B');
	put_u64(w->out, (uint64_t)m->pid);
	put_u64(w->out, (uint64_t)m->tid);
	put_u64(w->out, (uint64_t)m->rank);
	put_u32(w->out, (uint32_t)m->is_main);
	put_str(w->out, m->host, m->host ? strlen(m->host) : 0);
	put_str(w->out, m->source, m->source ? strlen(m->source) : 0);
	return 0;
}

static uint32_t w_func(void *ctx, const char *name, size_t len, dt_err *e)
{
	wire_sink *w = ctx;
	uint32_t id;
	if (strmap_get(&w->names, name, len, &id))
		return id;
	id = ++w->nfuncs;
	strmap_put(&w->names, name, len, id);
	buf_byte(w->out, 'F');
	put_u32(w->out, id);
	put_str(w->out, name, len);
	return check_full(w, e) ? 0 : id;
}

static int w_events(void *ctx, const uint32_t *ev, const uint64_t *ts, size_t n, dt_err *e)
{
	(void)e;
	wire_sink *w = ctx;
	buf_byte(w->out, 'E');
	put_u64(w->out, n);
	buf_byte(w->out, ts != NULL);
	put_pad(w->out); /* the times first, then the ids: both aligned */
	if (ts)
		buf_put(w->out, ts, n * sizeof *ts);
	buf_put(w->out, ev, n * sizeof *ev);
	return check_full(w, e);
}

static int w_arg(void *ctx, uint64_t idx, int kind, const char *text, dt_err *e)
{
	(void)e;
	wire_sink *w = ctx;
	buf_byte(w->out, 'A');
	put_u64(w->out, idx);
	put_u32(w->out, (uint32_t)kind);
	put_str(w->out, text, strlen(text));
	return check_full(w, e);
}

static int w_gap(void *ctx, uint64_t idx, uint64_t lost, dt_err *e)
{
	(void)e;
	wire_sink *w = ctx;
	buf_byte(w->out, 'G');
	put_u64(w->out, idx);
	put_u64(w->out, lost);
	return 0;
}

static int w_end(void *ctx, unsigned flags, const char *note, dt_err *e)
{
	(void)e;
	wire_sink *w = ctx;
	if (w->nsev)
		put_cols(w, w->sev, w->nsev); /* the trace's last chunk */
	w->nsev = 0;
	buf_byte(w->out, 'Z');
	put_u32(w->out, flags);
	put_str(w->out, note, note ? strlen(note) : 0);
	return 0;
}

/* The sync events go as chunks of SYNC_CHUNK_EVENTS of the trace's, the store's (a bit over
 * a byte an event where the events take 144), the last at the trace's end. */
static int w_sync(void *ctx, const dt_sync_clock *clk, const dt_sync_event *ev, size_t n,
		  dt_err *e)
{
	wire_sink *w = ctx;
	if (clk) {
		buf_byte(w->out, 'Y');
		buf_byte(w->out, 1);
		buf_put(w->out, clk, sizeof *clk);
		put_u64(w->out, 0);
		put_pad(w->out);
	}
	while (n) {
		if (!w->nsev && n >= SYNC_CHUNK_EVENTS) {
			put_cols(w, ev, SYNC_CHUNK_EVENTS); /* a whole chunk, from where it is */
			ev += SYNC_CHUNK_EVENTS;
			n -= SYNC_CHUNK_EVENTS;
			continue;
		}
		if (!w->sev)
			w->sev = xmalloc(SYNC_CHUNK_EVENTS * sizeof *w->sev);
		size_t k = SYNC_CHUNK_EVENTS - w->nsev;
		if (k > n)
			k = n;
		memcpy(w->sev + w->nsev, ev, k * sizeof *ev);
		w->nsev += k;
		ev += k;
		n -= k;
		if (w->nsev == SYNC_CHUNK_EVENTS) {
			put_cols(w, w->sev, w->nsev);
			w->nsev = 0;
		}
	}
	return check_full(w, e);
}

static int w_srcline(void *ctx, const char *func, size_t flen, const char *file, unsigned line,
		     dt_err *e)
{
	(void)e;
	wire_sink *w = ctx;
	buf_byte(w->out, 'L');
	put_str(w->out, func, flen);
	put_str(w->out, file, strlen(file));
	put_u32(w->out, line);
	return 0;
}

static uint32_t w_site(void *ctx, const char *file, unsigned line, const char *func, dt_err *e)
{
	wire_sink *w = ctx;
	char key[1600];
	size_t len = dt_site_key(key, sizeof key, file, line, func);
	uint32_t id;
	if (strmap_get(&w->sites, key, len, &id))
		return id;
	id = ++w->nsites;
	strmap_put(&w->sites, key, len, id);
	buf_byte(w->out, 'S');
	put_u32(w->out, id);
	put_str(w->out, file, strlen(file));
	put_u32(w->out, line);
	put_str(w->out, func, strlen(func));
	return check_full(w, e) ? 0 : id;
}

void wire_sink_init(wire_sink *w, dt_buf *out)
{
	memset(w, 0, sizeof *w);
	w->out = out;
	strmap_init(&w->names);
	strmap_init(&w->sites);
	w->sink = (dt_sink){ w, w_begin, w_func, w_events, w_arg, w_gap, w_end, w_sync, w_srcline,
			     w_site, NULL };
}

void wire_sink_reset(wire_sink *w)
{
	strmap_free(&w->names);
	strmap_init(&w->names);
	strmap_free(&w->sites);
	strmap_init(&w->sites);
	w->nfuncs = 0;
	w->nsites = 0;
	w->nsev = 0;
}

void wire_sink_free(wire_sink *w)
{
	strmap_free(&w->names);
	strmap_free(&w->sites);
	free(w->sev);
	w->sev = NULL;
}

void wire_part_end(dt_buf *out)
{
	buf_byte(out, 'C');
}

void wire_error(dt_buf *out, const dt_err *err)
{
	buf_byte(out, 'X');
	buf_put(out, err, sizeof *err);
}

/* ---- replay -------------------------------------------------------------------------------- */

typedef struct rd {
	uint8_t *p, *end;
	int bad;
} rd;

static int get(rd *r, void *dst, size_t n)
{
	if ((size_t)(r->end - r->p) < n) {
		r->bad = 1;
		return -1;
	}
	memcpy(dst, r->p, n);
	r->p += n;
	return 0;
}

static uint32_t get_u32(rd *r)
{
	uint32_t v = 0;
	get(r, &v, sizeof v);
	return v;
}

static uint64_t get_u64(rd *r)
{
	uint64_t v = 0;
	get(r, &v, sizeof v);
	return v;
}

/* The count of pad bytes, and the pad (put_pad). */
static void skip_pad(rd *r)
{
	uint8_t k = 8;
	get(r, &k, 1);
	if (r->bad || k > 7 || (size_t)(r->end - r->p) < k) {
		r->bad = 1;
		return;
	}
	r->p += k;
}

/* The next n bytes (there are n) where they are when they are aligned to `align` (a part
 * starts where malloc put it), else a copy in *buf (grown to *cap bytes). */
static void *aligned(rd *r, size_t n, uint8_t **buf, size_t *cap, size_t align)
{
	uint8_t *at = r->p;
	r->p += n;
	if (!((uintptr_t)at % align))
		return at;
	GROW(*buf, *cap, n ? n : 1);
	memcpy(*buf, at, n);
	return *buf;
}

/* A string (malloc'd, NUL-terminated; NULL for none), or sets bad. */
static char *get_str(rd *r, size_t *len)
{
	uint32_t n = get_u32(r);
	if (r->bad || n == NOSTR)
		return NULL;
	if ((size_t)(r->end - r->p) < n) {
		r->bad = 1;
		return NULL;
	}
	char *s = xstrndup((const char *)r->p, n);
	r->p += n;
	if (len)
		*len = n;
	return s;
}

void wire_replayer_init(wire_replayer *rp)
{
	memset(rp, 0, sizeof *rp);
}

void wire_replayer_free(wire_replayer *rp)
{
	free(rp->map);
	free(rp->smap);
	free(rp->ev);
	free(rp->ts);
	free(rp->sev);
	buf_free(&rp->raw);
	memset(rp, 0, sizeof *rp);
}

/* A 'Q' record's columns (end[] checked) into s, their function and site ids mapped to s's:
 * as the columns of a chunk where s takes them, else as events. */
static int replay_cols(wire_replayer *rp, rd *r, const uint32_t end[SYNC_NCOL], size_t n,
		       dt_sink *s, dt_err *e)
{
	const uint8_t *c = r->p;
	size_t len = end[SYNC_NCOL - 1];
	r->p += len;
	dt_buf *raw = &rp->raw;
	raw->len = 0;
	GROW(raw->p, raw->cap, len + 2 * n * 10);
	buf_put(raw, c, end[SYNC_COL_FUNC - 1]);
	if (sync_col_map(c + end[SYNC_COL_FUNC - 1], end[SYNC_COL_FUNC] - end[SYNC_COL_FUNC - 1], n,
			 rp->map, rp->nmap, raw)) {
		r->bad = 1;
		return 0;
	}
	buf_put(raw, c + end[SYNC_COL_FUNC], end[SYNC_COL_SITE - 1] - end[SYNC_COL_FUNC]);
	if (sync_col_map(c + end[SYNC_COL_SITE - 1], end[SYNC_COL_SITE] - end[SYNC_COL_SITE - 1], n,
			 rp->smap, rp->nsmap, raw)) {
		r->bad = 1;
		return 0;
	}
	buf_put(raw, c + end[SYNC_COL_SITE], len - end[SYNC_COL_SITE]);
	if (s->sync_cols)
		return s->sync_cols(s->ctx, raw->p, raw->len, n, e);
	GROW(rp->sev, rp->capsev, n * sizeof(dt_sync_event));
	dt_sync_event *ev = (dt_sync_event *)(void *)rp->sev;
	memset(ev, 0, n * sizeof *ev);
	if (sync_cols_get(raw->p, raw->len, n, ev)) {
		r->bad = 1;
		return 0;
	}
	return s->sync ? s->sync(s->ctx, NULL, ev, n, e) : 0;
}

int wire_replay_part(wire_replayer *rp, uint8_t *p, size_t n, dt_sink *s,
		     const char *what, dt_err *e)
{
	rd r = { p, p + n, 0 };
	int rc = 0, more = 0;
	while (!rc && !more && r.p < r.end) {
		uint8_t tag = *r.p++;
		switch (tag) {
		case 'B': {
			dt_trace_meta m;
			memset(&m, 0, sizeof m);
			m.pid = (int64_t)get_u64(&r);
			m.tid = (int64_t)get_u64(&r);
			m.rank = (int64_t)get_u64(&r);
			m.is_main = (int)get_u32(&r);
			char *host = get_str(&r, NULL), *src = get_str(&r, NULL);
			m.host = host;
			m.source = src;
			if (!r.bad)
				rc = s->begin(s->ctx, &m, e);
			free(host);
			free(src);
			break;
		}
		case 'F': {
			uint32_t id = get_u32(&r);
			size_t len = 0;
			char *name = get_str(&r, &len);
			if (r.bad || !name || id != rp->nmap + 1) {
				free(name);
				r.bad = 1;
				break;
			}
			GROW(rp->map, rp->capmap, rp->nmap + 2);
			rp->map[0] = DT_RET;
			uint32_t g = s->func(s->ctx, name, len, e);
			free(name);
			if (!g) {
				rc = -1;
				break;
			}
			rp->map[++rp->nmap] = g;
			break;
		}
		case 'E': {
			uint64_t m = get_u64(&r);
			uint8_t hasts = 0;
			get(&r, &hasts, 1);
			skip_pad(&r);
			size_t each = sizeof(uint32_t) + (hasts ? sizeof(uint64_t) : 0);
			if (r.bad || m > (uint64_t)(r.end - r.p) / each) {
				r.bad = 1;
				break;
			}
			uint64_t *ts = hasts ? (uint64_t *)aligned(&r, (size_t)m * sizeof *ts,
								   &rp->ts, &rp->capts,
								   _Alignof(uint64_t))
					     : NULL;
			uint32_t *ev = (uint32_t *)aligned(&r, (size_t)m * sizeof *ev, &rp->ev,
							   &rp->capev, _Alignof(uint32_t));
			for (size_t i = 0; i < m && !r.bad; i++) {
				if (ev[i] > rp->nmap)
					r.bad = 1;
				else
					ev[i] = ev[i] == DT_RET ? DT_RET : rp->map[ev[i]];
			}
			if (!r.bad)
				rc = s->events(s->ctx, ev, ts, (size_t)m, e);
			break;
		}
		case 'A': {
			uint64_t idx = get_u64(&r);
			int kind = (int)get_u32(&r);
			char *text = get_str(&r, NULL);
			if (!r.bad && text)
				rc = s->arg(s->ctx, idx, kind, text, e);
			else
				r.bad = 1;
			free(text);
			break;
		}
		case 'G': {
			uint64_t idx = get_u64(&r), lost = get_u64(&r);
			if (!r.bad)
				rc = s->gap(s->ctx, idx, lost, e);
			break;
		}
		case 'Y': {
			uint8_t hasclk = 0;
			dt_sync_clock clk;
			get(&r, &hasclk, 1);
			if (hasclk)
				get(&r, &clk, sizeof clk);
			uint64_t m = get_u64(&r);
			skip_pad(&r);
			if (r.bad || m > (uint64_t)(r.end - r.p) / sizeof(dt_sync_event)) {
				r.bad = 1;
				break;
			}
			/* the events where they are in the part (the ids mapped in place) */
			dt_sync_event *se = aligned(&r, (size_t)m * sizeof *se, &rp->sev,
						    &rp->capsev, _Alignof(dt_sync_event));
			for (size_t i = 0; i < m && !r.bad; i++) {
				if (se[i].func > rp->nmap || se[i].site > rp->nsmap)
					r.bad = 1;
				else if (se[i].func)
					se[i].func = rp->map[se[i].func];
				if (!r.bad && se[i].site)
					se[i].site = rp->smap[se[i].site];
			}
			if (!r.bad && s->sync)
				rc = s->sync(s->ctx, hasclk ? &clk : NULL, se, (size_t)m, e);
			break;
		}
		case 'Q': {
			uint64_t m = get_u64(&r);
			uint32_t end[SYNC_NCOL];
			get(&r, end, sizeof end);
			if (r.bad || !m || m > SYNC_CHUNK_EVENTS)
				r.bad = 1;
			for (int k = 0; k < SYNC_NCOL && !r.bad; k++)
				if (end[k] < (k ? end[k - 1] : 0) ||
				    end[k] > (size_t)(r.end - r.p))
					r.bad = 1;
			if (r.bad)
				break;
			rc = replay_cols(rp, &r, end, (size_t)m, s, e);
			break;
		}
		case 'L': {
			size_t flen = 0;
			char *func = get_str(&r, &flen), *file = get_str(&r, NULL);
			unsigned line = get_u32(&r);
			if (!file)
				r.bad = 1;
			if (!r.bad && s->srcline)
				rc = s->srcline(s->ctx, func, func ? flen : 0, file, line, e);
			free(func);
			free(file);
			break;
		}
		case 'S': {
			uint32_t id = get_u32(&r);
			char *file = get_str(&r, NULL);
			unsigned line = get_u32(&r);
			char *func = get_str(&r, NULL);
			uint32_t g = 0;
			if (r.bad || !file || !func || id != rp->nsmap + 1)
				r.bad = 1;
			else if (s->site && !(g = s->site(s->ctx, file, line, func, e)))
				rc = -1;
			free(file);
			free(func);
			if (r.bad || rc)
				break;
			GROW(rp->smap, rp->capsmap, rp->nsmap + 2);
			rp->smap[0] = 0;
			rp->smap[++rp->nsmap] = g;
			break;
		}
		case 'Z': {
			unsigned flags = get_u32(&r);
			char *note = get_str(&r, NULL);
			if (!r.bad)
				rc = s->end(s->ctx, flags, note, e);
			free(note);
			break;
		}
		case 'C':
			more = 1; /* the last record of a part */
			if (r.p != r.end)
				r.bad = 1;
			break;
		case 'X': {
			dt_err w;
			if (get(&r, &w, sizeof w))
				break;
			w.file[sizeof w.file - 1] = 0;
			w.msg[sizeof w.msg - 1] = 0;
			*e = w;
			if (!e->status)
				e->status = DT_EDATA;
			rc = -1;
			break;
		}
		default:
			r.bad = 1;
		}
		if (r.bad)
			break;
	}
	if (!rc && r.bad)
		rc = dt_errf(e, DT_EDATA, "%s: a damaged unit of a parallel import (byte %zu)", what,
			     (size_t)(r.p - p));
	return rc ? rc : more;
}

int wire_replay(uint8_t *p, size_t n, dt_sink *s, const char *what, dt_err *e)
{
	wire_replayer rp;
	wire_replayer_init(&rp);
	int rc = wire_replay_part(&rp, p, n, s, what, e);
	wire_replayer_free(&rp);
	if (rc == 1)
		rc = dt_errf(e, DT_EDATA, "%s: a unit of a parallel import cut short", what);
	return rc;
}
