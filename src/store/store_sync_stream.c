/* store_sync_stream.c: a run's sync events, a chunk of a thread at a time
 * (store_sync_stream.h). A trace's events are its sync_chunks in order; a trace of a store of
 * schema 10 or less has rows of sync_events instead, read SYNC_CHUNK_EVENTS rows at a time. */
#include <stdlib.h>
#include <string.h>

#include "store/store_int.h"
#include "store/store_sync.h"
#include "store/store_sync_stream.h"
#include "store/sync_codec.h"
#include "util/util.h"

typedef struct strace {
	int64_t id;
	int32_t proc, thread, host;
	int rows;          /* its events are rows of sync_events */
	int64_t next;      /* chunks: the seq of the next chunk; rows: the next event's seq */
	dt_sync_event *buf; /* SYNC_CHUNK_EVENTS */
	size_t n;          /* events in buf not given yet (the first read, at the open) */
	int primed;
} strace;

struct store_sync_stream {
	store *s;
	sqlite3_stmt *chunk, *rows;
	strace *tr;
	size_t ntr;
};

/* The next chunk of t into t->buf (*n 0 when there is none). */
static int read_chunk(store_sync_stream *ss, strace *t, size_t *n, dt_err *e)
{
	store *s = ss->s;
	*n = 0;
	sqlite3_reset(ss->chunk);
	sqlite3_bind_int64(ss->chunk, 1, t->id);
	sqlite3_bind_int64(ss->chunk, 2, t->next);
	int step = sqlite3_step(ss->chunk);
	if (step == SQLITE_DONE)
		return 0;
	if (step != SQLITE_ROW)
		return store_sqlerr(s, e, "reading sync events");
	int64_t seq = sqlite3_column_int64(ss->chunk, 0);
	int64_t first = sqlite3_column_int64(ss->chunk, 1);
	int64_t m = sqlite3_column_int64(ss->chunk, 2);
	if (m < 0 || m > SYNC_CHUNK_EVENTS || first < 0)
		return dt_err_at(e, s->path, -1, "damaged sync chunk of trace %d.%d: %lld events",
				 t->proc, t->thread, (long long)m);
	memset(t->buf, 0, (size_t)m * sizeof *t->buf);
	if (sync_decode(s->sync_codec, sqlite3_column_int(ss->chunk, 3),
			sqlite3_column_blob(ss->chunk, 4), (size_t)sqlite3_column_bytes(ss->chunk, 4),
			(size_t)m, (uint64_t)first, s->path, t->buf, e))
		return -1;
	t->next = seq + 1;
	*n = (size_t)m;
	return 0;
}

/* Up to SYNC_CHUNK_EVENTS rows of sync_events of t from seq t->next on. */
static int read_rows(store_sync_stream *ss, strace *t, size_t *n, dt_err *e)
{
	sqlite3_stmt *sy = ss->rows;
	*n = 0;
	sqlite3_reset(sy);
	sqlite3_bind_int64(sy, 1, t->id);
	sqlite3_bind_int64(sy, 2, t->next);
	sqlite3_bind_int(sy, 3, SYNC_CHUNK_EVENTS);
	int step;
	while ((step = sqlite3_step(sy)) == SQLITE_ROW) {
		dt_sync_event *v = &t->buf[(*n)++];
		memset(v, 0, sizeof *v);
		store_sync_row(sy, v);
		t->next = (int64_t)v->seq + 1;
	}
	if (step != SQLITE_DONE)
		return store_sqlerr(ss->s, e, "reading sync events");
	return 0;
}

static int fill(store_sync_stream *ss, strace *t, size_t *n, dt_err *e)
{
	if (t->rows ? read_rows(ss, t, n, e) : ss->chunk ? read_chunk(ss, t, n, e) : 0)
		return -1;
	if (!t->primed) {
		t->primed = 1;
		/* no chunk: the rows of a store before the chunks, if any */
		if (!*n) {
			t->rows = 1;
			t->next = 0;
			if (read_rows(ss, t, n, e))
				return -1;
		}
	}
	for (size_t i = 0; i < *n; i++) {
		t->buf[i].proc = t->proc;
		t->buf[i].thread = t->thread;
		t->buf[i].host = t->host;
	}
	return 0;
}

/* The run's traces, by proc and thread, with their host's index. */
static int list_traces(store_sync_stream *ss, int64_t run_id, dt_err *e)
{
	char **hosts;
	size_t nh, cap = 0;
	if (store_sync_hosts(ss->s, run_id, &hosts, &nh, e))
		return -1;
	sqlite3_stmt *st;
	int rc = -1, step;
	if (store_prepare(ss->s, "SELECT id, proc, thread, host FROM traces WHERE run_id = ?1"
			  " ORDER BY proc, thread", &st, e))
		goto out;
	sqlite3_bind_int64(st, 1, run_id);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		GROW(ss->tr, cap, ss->ntr + 1);
		strace *t = &ss->tr[ss->ntr++];
		memset(t, 0, sizeof *t);
		t->id = sqlite3_column_int64(st, 0);
		t->proc = sqlite3_column_int(st, 1);
		t->thread = sqlite3_column_int(st, 2);
		const char *h = (const char *)sqlite3_column_text(st, 3);
		for (size_t i = 0; h && i < nh; i++)
			if (!strcmp(hosts[i], h))
				t->host = (int32_t)i;
	}
	sqlite3_finalize(st);
	if (step != SQLITE_DONE)
		store_sqlerr(ss->s, e, "reading sync events");
	else
		rc = 0;
out:
	for (size_t i = 0; i < nh; i++)
		free(hosts[i]);
	free(hosts);
	return rc;
}

int store_sync_stream_open(store *s, int64_t run_id, store_sync_stream **out, dt_err *e)
{
	*out = NULL;
	store_sync_stream *ss = xcalloc(1, sizeof *ss);
	ss->s = s;
	int ok, chunked = store_has_table(s, "sync_chunks", &ok);
	if (!ok) {
		store_sqlerr(s, e, "reading sync events");
		goto fail;
	}
	if (chunked && store_prepare(s,
				     "SELECT seq, first, n, codec, data FROM sync_chunks"
				     " WHERE trace_id = ?1 AND seq >= ?2 ORDER BY seq LIMIT 1",
				     &ss->chunk, e))
		goto fail;
	if (store_prepare(s,
			  "SELECT seq, phase, func, ts, comm, dest, stag, src, rtag, root, count,"
			  " datatype, op, req, obj, objseq, team, tnum, csize FROM sync_events"
			  " WHERE trace_id = ?1 AND seq >= ?2 ORDER BY seq LIMIT ?3",
			  &ss->rows, e))
		goto fail;
	if (chunked && !s->sync_codec)
		s->sync_codec = sync_codec_new();
	if (list_traces(ss, run_id, e))
		goto fail;
	/* the traces that have sync events, their first chunk read */
	size_t keep = 0;
	for (size_t k = 0; k < ss->ntr; k++) {
		strace *t = &ss->tr[k];
		t->buf = xmalloc(SYNC_CHUNK_EVENTS * sizeof *t->buf);
		if (fill(ss, t, &t->n, e)) {
			free(t->buf);
			ss->ntr = keep;
			goto fail;
		}
		if (!t->n) {
			free(t->buf);
			continue;
		}
		ss->tr[keep++] = *t;
	}
	ss->ntr = keep;
	if (!keep) {
		store_sync_stream_close(ss);
		return 0;
	}
	*out = ss;
	return 0;
fail:
	store_sync_stream_close(ss);
	return -1;
}

void store_sync_stream_close(store_sync_stream *ss)
{
	if (!ss)
		return;
	for (size_t k = 0; k < ss->ntr; k++)
		free(ss->tr[k].buf);
	free(ss->tr);
	sqlite3_finalize(ss->chunk);
	sqlite3_finalize(ss->rows);
	free(ss);
}

size_t store_sync_stream_ntraces(const store_sync_stream *ss)
{
	return ss ? ss->ntr : 0;
}

void store_sync_stream_trace(const store_sync_stream *ss, size_t k, int32_t *proc,
			     int32_t *thread, int32_t *host)
{
	*proc = ss->tr[k].proc;
	*thread = ss->tr[k].thread;
	*host = ss->tr[k].host;
}

int store_sync_stream_next(store_sync_stream *ss, size_t k, const dt_sync_event **ev, size_t *n,
			   dt_err *e)
{
	strace *t = &ss->tr[k];
	*ev = t->buf;
	if (t->n) {
		/* the chunk read at the open */
		*n = t->n;
		t->n = 0;
		return 0;
	}
	return fill(ss, t, n, e);
}
