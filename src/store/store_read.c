/* store_read.c: reading a trace's events back, chunk by chunk.
 *
 * A cursor holds one decoded chunk at a time, so reading a trace of any length needs
 * STORE_CHUNK_EVENTS events of memory. Each next() call returns events from one chunk only,
 * which keeps argument look-ups to the chunk in hand. */
#include <stdlib.h>
#include <string.h>

#include "store/chunk_codec.h"
#include "store/store_int.h"
#include "util/util.h"

struct store_cursor {
	store *s;
	sqlite3_stmt *sel;
	int has_time;
	uint32_t *ev;
	uint64_t *ts;
	size_t n, pos;       /* decoded events of the chunk in hand, and the next to return */
	uint64_t chunk_first;
	int depth;           /* open calls before ev[pos] */
	int piece_depth;     /* open calls before the events the last next() returned */
	uint64_t skip_to;    /* the first event the caller asked for */
	uint8_t *args;
	size_t nargs_bytes;
	char *argtext;
	size_t argcap;
	/* lookups in order: when the chunk's records are sorted by event, the next lookup starts
	 * at arg_p, the first record at or past event arg_off of the last one */
	int args_sorted;
	size_t arg_p;
	uint64_t arg_off;
	int done;
};

/* One record of a chunk's args at *p: its event offset, kind and text; -1 when damaged. */
static int arg_record(const store_cursor *c, size_t *p, uint64_t *o, int *k, size_t *tp,
		      uint64_t *len)
{
	if (uvar_get(c->args, c->nargs_bytes, p, o) || *p >= c->nargs_bytes)
		return -1;
	*k = c->args[(*p)++];
	if (uvar_get(c->args, c->nargs_bytes, p, len) || *len > c->nargs_bytes - *p)
		return -1;
	*tp = *p;
	*p += *len;
	return 0;
}

static int args_in_order(const store_cursor *c)
{
	size_t p = 0, tp;
	uint64_t o, len, prev = 0;
	int k;
	while (p < c->nargs_bytes) {
		if (arg_record(c, &p, &o, &k, &tp, &len) || o < prev)
			return 0;
		prev = o;
	}
	return 1;
}

static int load_next_chunk(store_cursor *c, dt_err *e)
{
	int rc = sqlite3_step(c->sel);
	if (rc == SQLITE_DONE) {
		c->done = 1;
		return 0;
	}
	if (rc != SQLITE_ROW)
		return store_sqlerr(c->s, e, "reading events");
	c->chunk_first = (uint64_t)sqlite3_column_int64(c->sel, 0);
	uint64_t n = (uint64_t)sqlite3_column_int64(c->sel, 1);
	c->depth = sqlite3_column_int(c->sel, 2);
	const uint8_t *blob = sqlite3_column_blob(c->sel, 3);
	size_t blen = (size_t)sqlite3_column_bytes(c->sel, 3);
	int codec = sqlite3_column_int(c->sel, 6);
	uint32_t *ev = NULL;
	size_t nev = 0;
	free(c->ev);
	c->ev = NULL;
	c->n = c->pos = 0;
	if (!c->s->chunk_dec)
		c->s->chunk_dec = chunk_dec_new();
	if (chunk_decode(c->s->chunk_dec, codec, blob, blen, n, c->chunk_first, store_path(c->s),
			 &ev, &nev, e))
		return -1;
	c->ev = ev;
	c->n = nev;
	c->pos = 0;
	if (c->has_time) {
		const uint8_t *tb = sqlite3_column_blob(c->sel, 4);
		size_t tl = (size_t)sqlite3_column_bytes(c->sel, 4), p = 0;
		c->ts = xrealloc(c->ts, (nev ? nev : 1) * sizeof *c->ts);
		uint64_t t = 0;
		for (size_t i = 0; i < nev; i++) {
			int64_t d;
			if (svar_get(tb, tl, &p, &d)) {
				return dt_err_at(e, store_path(c->s), -1,
						 "damaged timestamp chunk at event %llu",
						 (unsigned long long)c->chunk_first);
			}
			t += (uint64_t)d;
			c->ts[i] = t;
		}
	}
	free(c->args);
	c->nargs_bytes = (size_t)sqlite3_column_bytes(c->sel, 5);
	c->args = xmalloc(c->nargs_bytes + 1);
	if (c->nargs_bytes)
		memcpy(c->args, sqlite3_column_blob(c->sel, 5), c->nargs_bytes);
	c->args_sorted = args_in_order(c);
	c->arg_p = 0;
	c->arg_off = 0;
	/* Skip to the requested start, keeping the depth right. */
	while (c->pos < c->n && c->chunk_first + c->pos < c->skip_to) {
		if (c->ev[c->pos] != DT_RET)
			c->depth++;
		else if (c->depth > 0)
			c->depth--;
		c->pos++;
	}
	return 0;
}

int store_cursor_open(store *s, const store_trace *t, uint64_t from, store_cursor **out, dt_err *e)
{
	store_cursor *c = xcalloc(1, sizeof *c);
	c->s = s;
	c->has_time = t->has_time;
	c->skip_to = from;
	/* a store of schema 6 to 9 opened read-only has no codec column: all its chunks are lza3 */
	if (store_prepare(s,
			  s->chunks_lza3_only
				  ? "SELECT first, n, depth, events, times, args, 0 FROM chunks"
				    " WHERE trace_id = ?1 AND first + n > ?2 ORDER BY seq"
				  : "SELECT first, n, depth, events, times, args, codec FROM chunks"
				    " WHERE trace_id = ?1 AND first + n > ?2 ORDER BY seq",
			  &c->sel, e)) {
		free(c);
		return -1;
	}
	sqlite3_bind_int64(c->sel, 1, t->id);
	sqlite3_bind_int64(c->sel, 2, (int64_t)from);
	*out = c;
	return 0;
}

int64_t store_cursor_next(store_cursor *c, uint32_t *ev, uint64_t *ts, size_t max, dt_err *e)
{
	while (!c->done && c->pos >= c->n)
		if (load_next_chunk(c, e))
			return -1;
	if (c->done)
		return 0;
	size_t k = c->n - c->pos;
	c->piece_depth = c->depth;
	if (k > max)
		k = max;
	memcpy(ev, c->ev + c->pos, k * sizeof *ev);
	if (ts) {
		if (c->has_time)
			memcpy(ts, c->ts + c->pos, k * sizeof *ts);
		else
			memset(ts, 0, k * sizeof *ts);
	}
	for (size_t i = 0; i < k; i++) {
		if (ev[i] != DT_RET)
			c->depth++;
		else if (c->depth > 0)
			c->depth--;
	}
	c->pos += k;
	return (int64_t)k;
}

int store_cursor_depth(const store_cursor *c)
{
	return c->piece_depth;
}

const char *store_cursor_arg(store_cursor *c, uint64_t idx, int kind)
{
	if (idx < c->chunk_first || idx >= c->chunk_first + c->n)
		return NULL;
	uint64_t off = idx - c->chunk_first;
	size_t p = 0, tp;
	uint64_t o, len;
	int k;
	if (c->args_sorted) {
		/* records before arg_p are all for events before arg_off */
		if (off >= c->arg_off)
			p = c->arg_p;
		size_t first_at = (size_t)-1;
		const char *hit = NULL;
		while (p < c->nargs_bytes) {
			size_t p0 = p;
			if (arg_record(c, &p, &o, &k, &tp, &len))
				break;
			if (o >= off && first_at == (size_t)-1)
				first_at = p0;
			if (o > off)
				break;
			if (o == off && k == kind) {
				hit = (const char *)c->args + tp;
				break;
			}
		}
		c->arg_p = first_at == (size_t)-1 ? c->nargs_bytes : first_at;
		c->arg_off = off;
		if (!hit)
			return NULL;
		GROW(c->argtext, c->argcap, len + 1);
		memcpy(c->argtext, hit, len);
		c->argtext[len] = 0;
		return c->argtext;
	}
	while (p < c->nargs_bytes) {
		if (arg_record(c, &p, &o, &k, &tp, &len))
			return NULL;
		if (o == off && k == kind) {
			GROW(c->argtext, c->argcap, len + 1);
			memcpy(c->argtext, c->args + tp, len);
			c->argtext[len] = 0;
			return c->argtext;
		}
	}
	return NULL;
}

void store_cursor_close(store_cursor *c)
{
	if (!c)
		return;
	sqlite3_finalize(c->sel);
	free(c->ev);
	free(c->ts);
	free(c->args);
	free(c->argtext);
	free(c);
}
