/* store_write.c: the store's dt_sink, which turns an importer's traces into rows.
 *
 * Events are buffered per trace into chunks of STORE_CHUNK_EVENTS; each chunk is one independent
 * lza3 stream (the ParLOT codec) in a zstd frame (store/chunk_codec.h: the chunk's codec says
 * which), its timestamps a stream of zigzag LEB128 deltas, its argument
 * texts a small record blob. A sealed chunk's row is inserted only when the next chunk is sealed
 * (or the trace ends), so an importer can attach arguments to any event of the batch it just
 * pushed, even when that batch crossed a chunk boundary. Processes and threads are
 * numbered (P.T) once the whole run is in, because the numbering depends on every pid. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/chunk_codec.h"
#include "store/store_int.h"
#include "store/sync_codec.h"
#include "util/util.h"

struct wtrace {
	int64_t id, pid, tid, rank;
	int is_main;
};

struct store_writer {
	store *s;
	int64_t run_id;
	volatile sig_atomic_t *cancel;
	strmap fcache;
	sqlite3_stmt *ins_func, *sel_func, *ins_trace, *ins_chunk, *end_trace, *ins_gap;
	sqlite3_stmt *ins_sync, *ins_clock, *ins_srcline, *ins_site;
	strmap sites; /* the run's call sites: file, line, function -> id */
	uint32_t nsites;
	chunk_enc *enc;
	/* the sync events of the trace being written, up to a chunk (sync_codec.h) */
	sync_codec *scodec;
	dt_sync_event *sev;
	size_t nsev;
	uint64_t sfirst; /* the number of the buffered chunk's first event */
	uint32_t sseq;   /* the number of the chunk */
	dt_buf sblob;

	/* the trace being written */
	int active;
	int64_t trace_id;
	uint32_t *ev;
	uint64_t *ts;
	size_t n;          /* events buffered in the current chunk */
	int time_state;    /* 0 unknown, 1 with timestamps, -1 without */
	int time_regressed; /* a timestamp went back (DT_TF_TIME_REGRESSED) */
	uint64_t first;    /* event number of the current chunk's first event */
	uint32_t seq;
	int depth, chunk_depth, maxdepth;
	uint64_t ncalls, first_ts, last_ts;
	int64_t bytes, nargs, ngaps;
	dt_buf args;
	/* the sealed chunk whose row is not inserted yet */
	int pending;
	uint64_t p_first, p_n;
	uint32_t p_seq;
	int p_depth, p_codec;
	dt_buf p_events, p_times, p_args;

	struct wtrace *all;
	size_t nall, capall;
	uint64_t events_total;
	uint64_t next_progress;
	void (*progress)(void *, const store_writer *);
	void *progress_arg;
	dt_sink sink;
};

static int sync_flush(store_writer *w, dt_err *e);

static int cancelled(store_writer *w, dt_err *e)
{
	if (w->cancel && *w->cancel)
		return dt_errf(e, DT_EDATA, "interrupted");
	return 0;
}

static int step_done(store_writer *w, sqlite3_stmt *st, dt_err *e, const char *what)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return store_sqlerr(w->s, e, what);
	return 0;
}

static void bind_blob(sqlite3_stmt *st, int i, const dt_buf *b)
{
	if (b->len)
		sqlite3_bind_blob(st, i, b->p, (int)b->len, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, i);
}

static int write_pending(store_writer *w, dt_err *e)
{
	if (!w->pending)
		return 0;
	sqlite3_stmt *st = w->ins_chunk;
	sqlite3_bind_int64(st, 1, w->trace_id);
	sqlite3_bind_int64(st, 2, w->p_seq);
	sqlite3_bind_int64(st, 3, (int64_t)w->p_first);
	sqlite3_bind_int64(st, 4, (int64_t)w->p_n);
	sqlite3_bind_int(st, 5, w->p_depth);
	sqlite3_bind_blob(st, 6, w->p_events.p, (int)w->p_events.len, SQLITE_STATIC);
	bind_blob(st, 7, &w->p_times);
	bind_blob(st, 8, &w->p_args);
	sqlite3_bind_int(st, 9, w->p_codec);
	int r = step_done(w, st, e, "writing events");
	sqlite3_clear_bindings(st);
	w->bytes += (int64_t)(w->p_events.len + w->p_times.len + w->p_args.len);
	w->pending = 0;
	return r;
}

/* Seals the buffered events into the pending chunk, inserting the previous pending one. */
static int seal_chunk(store_writer *w, dt_err *e)
{
	if (!w->n)
		return 0;
	if (write_pending(w, e))
		return -1;
	w->p_times.len = w->p_args.len = 0;
	w->p_codec = chunk_encode(w->enc, w->ev, w->n, &w->p_events);
	if (w->time_state > 0) {
		uint64_t prev = 0;
		for (size_t i = 0; i < w->n; i++) {
			buf_svar(&w->p_times, (int64_t)(w->ts[i] - prev));
			prev = w->ts[i];
		}
	}
	/* swap the argument buffers: the current chunk's become the pending chunk's */
	dt_buf tmp = w->p_args;
	w->p_args = w->args;
	w->args = tmp;
	w->args.len = 0;
	w->pending = 1;
	w->p_first = w->first;
	w->p_n = w->n;
	w->p_seq = w->seq++;
	w->p_depth = w->chunk_depth;
	w->first += w->n;
	w->n = 0;
	w->chunk_depth = w->depth;
	return 0;
}

static int w_begin(void *ctx, const dt_trace_meta *m, dt_err *e)
{
	store_writer *w = ctx;
	if (cancelled(w, e))
		return -1;
	if (w->active)
		return dt_errf(e, DT_EDATA, "internal: trace begun twice");
	sqlite3_stmt *st = w->ins_trace;
	/* A provisional, unique P.T (-id) until store_writer_finish numbers the run. */
	sqlite3_bind_int64(st, 1, w->run_id);
	sqlite3_bind_int64(st, 2, m->pid);
	sqlite3_bind_int64(st, 3, m->tid);
	sqlite3_bind_int64(st, 4, m->rank);
	sqlite3_bind_int(st, 5, m->is_main);
	sqlite3_bind_text(st, 6, m->host ? m->host : "", -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 7, m->source ? m->source : "", -1, SQLITE_TRANSIENT);
	int r = step_done(w, st, e, "adding trace");
	sqlite3_clear_bindings(st);
	if (r)
		return -1;
	w->trace_id = sqlite3_last_insert_rowid(w->s->db);
	GROW(w->all, w->capall, w->nall + 1);
	w->all[w->nall++] = (struct wtrace){ w->trace_id, m->pid, m->tid, m->rank, m->is_main };
	w->active = 1;
	w->nsev = 0;
	w->sfirst = 0;
	w->sseq = 0;
	w->n = 0;
	w->time_state = 0;
	w->time_regressed = 0;
	w->first = 0;
	w->seq = 0;
	w->depth = w->chunk_depth = w->maxdepth = 0;
	w->ncalls = w->first_ts = w->last_ts = 0;
	w->bytes = w->nargs = w->ngaps = 0;
	w->args.len = 0;
	w->pending = 0;
	return 0;
}

static uint32_t w_func(void *ctx, const char *name, size_t len, dt_err *e)
{
	store_writer *w = ctx;
	uint32_t id;
	if (strmap_get(&w->fcache, name, len, &id))
		return id;
	if (!len) {
		dt_errf(e, DT_EDATA, "empty function name");
		return 0;
	}
	sqlite3_bind_text(w->ins_func, 1, name, (int)len, SQLITE_STATIC);
	if (step_done(w, w->ins_func, e, "adding function"))
		return 0;
	sqlite3_bind_text(w->sel_func, 1, name, (int)len, SQLITE_STATIC);
	int rc = sqlite3_step(w->sel_func);
	int64_t v = rc == SQLITE_ROW ? sqlite3_column_int64(w->sel_func, 0) : 0;
	sqlite3_reset(w->sel_func);
	if (v <= 0 || v > (int64_t)UINT32_MAX) {
		store_sqlerr(w->s, e, "interning function");
		return 0;
	}
	id = (uint32_t)v;
	strmap_put(&w->fcache, name, len, id);
	store_fnames_add(w->s, id, name, len);
	return id;
}

static int w_events(void *ctx, const uint32_t *ev, const uint64_t *ts, size_t n, dt_err *e)
{
	store_writer *w = ctx;
	if (!w->active)
		return dt_errf(e, DT_EDATA, "internal: events outside a trace");
	if (cancelled(w, e))
		return -1;
	int want = ts ? 1 : -1;
	if (w->time_state && w->time_state != want)
		return dt_errf(e, DT_EDATA, "internal: timestamps for part of a trace only");
	w->time_state = want;
	if (ts && w->first == 0 && w->n == 0 && n)
		w->first_ts = w->last_ts = ts[0];
	if (ts && !w->time_regressed)
		for (size_t i = 0; i < n; i++)
			if (ts[i] < (i ? ts[i - 1] : w->last_ts)) {
				w->time_regressed = 1;
				break;
			}
	while (n) {
		if (w->n == STORE_CHUNK_EVENTS && seal_chunk(w, e))
			return -1;
		size_t k = STORE_CHUNK_EVENTS - w->n;
		if (k > n)
			k = n;
		for (size_t i = 0; i < k; i++) {
			uint32_t v = ev[i];
			if (v != DT_RET) {
				w->ncalls++;
				if (++w->depth > w->maxdepth)
					w->maxdepth = w->depth;
			} else if (w->depth > 0) {
				w->depth--;
			}
		}
		memcpy(w->ev + w->n, ev, k * sizeof *ev);
		if (ts) {
			memcpy(w->ts + w->n, ts, k * sizeof *ts);
			w->last_ts = ts[k - 1];
			ts += k;
		}
		w->n += k;
		ev += k;
		n -= k;
		w->events_total += k;
	}
	if (w->progress && w->events_total >= w->next_progress) {
		w->next_progress = w->events_total + (1u << 20);
		w->progress(w->progress_arg, w);
	}
	return 0;
}

static int w_arg(void *ctx, uint64_t idx, int kind, const char *text, dt_err *e)
{
	store_writer *w = ctx;
	if (!w->active)
		return dt_errf(e, DT_EDATA, "internal: argument outside a trace");
	/* An argument may belong to the buffered chunk, or to the sealed one not yet inserted. */
	if (idx >= w->first + w->n && w->n == STORE_CHUNK_EVENTS && seal_chunk(w, e))
		return -1;
	dt_buf *b = &w->args;
	uint64_t base = w->first;
	if (w->pending && idx >= w->p_first && idx < w->p_first + w->p_n) {
		b = &w->p_args;
		base = w->p_first;
	} else if (idx < w->first || idx >= w->first + STORE_CHUNK_EVENTS) {
		return dt_errf(e, DT_EDATA, "internal: argument for event %llu out of order",
			       (unsigned long long)idx);
	}
	size_t len = strlen(text);
	buf_uvar(b, idx - base);
	buf_byte(b, (uint8_t)kind);
	buf_uvar(b, len);
	buf_put(b, text, len);
	w->nargs++;
	return 0;
}

static int w_gap(void *ctx, uint64_t idx, uint64_t lost, dt_err *e)
{
	store_writer *w = ctx;
	if (!w->active)
		return dt_errf(e, DT_EDATA, "internal: gap outside a trace");
	sqlite3_bind_int64(w->ins_gap, 1, w->trace_id);
	sqlite3_bind_int64(w->ins_gap, 2, (int64_t)idx);
	sqlite3_bind_int64(w->ins_gap, 3, (int64_t)lost);
	w->ngaps++;
	return step_done(w, w->ins_gap, e, "recording lost records");
}

static int w_end(void *ctx, unsigned flags, const char *note, dt_err *e)
{
	store_writer *w = ctx;
	if (!w->active)
		return dt_errf(e, DT_EDATA, "internal: trace ended twice");
	if (seal_chunk(w, e) || write_pending(w, e) || sync_flush(w, e))
		return -1;
	uint64_t nev = w->first;
	if (!nev)
		flags |= DT_TF_EMPTY;
	if (w->depth > 0)
		flags |= DT_TF_OPEN_FRAMES;
	if (w->time_regressed)
		flags |= DT_TF_TIME_REGRESSED;
	sqlite3_stmt *st = w->end_trace;
	sqlite3_bind_int64(st, 1, (int64_t)nev);
	sqlite3_bind_int64(st, 2, (int64_t)w->ncalls);
	sqlite3_bind_int(st, 3, w->maxdepth);
	sqlite3_bind_int64(st, 4, flags);
	sqlite3_bind_text(st, 5, note ? note : "", -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 6, w->time_state > 0);
	sqlite3_bind_int64(st, 7, (int64_t)w->first_ts);
	sqlite3_bind_int64(st, 8, (int64_t)w->last_ts);
	sqlite3_bind_int64(st, 9, w->bytes);
	sqlite3_bind_int64(st, 10, w->nargs);
	sqlite3_bind_int64(st, 11, w->ngaps);
	sqlite3_bind_int64(st, 12, w->trace_id);
	int r = step_done(w, st, e, "finishing trace");
	sqlite3_clear_bindings(st);
	w->active = 0;
	return r;
}

/* Inserts w->sblob, the trace's next chunk of n sync events. */
static int sync_insert(store_writer *w, int codec, size_t n, dt_err *e)
{
	sqlite3_stmt *st = w->ins_sync;
	sqlite3_bind_int64(st, 1, w->trace_id);
	sqlite3_bind_int64(st, 2, w->sseq);
	sqlite3_bind_int64(st, 3, (int64_t)w->sfirst);
	sqlite3_bind_int64(st, 4, (int64_t)n);
	sqlite3_bind_int(st, 5, codec);
	sqlite3_bind_blob(st, 6, w->sblob.p, (int)w->sblob.len, SQLITE_STATIC);
	w->bytes += (int64_t)w->sblob.len;
	w->sfirst += n;
	w->sseq++;
	return step_done(w, st, e, "writing sync events");
}

/* Writes ev[0..n) as the trace's next chunk of sync events. */
static int sync_chunk(store_writer *w, const dt_sync_event *ev, size_t n, dt_err *e)
{
	return sync_insert(w, sync_encode(w->scodec, ev, n, &w->sblob), n, e);
}

static int sync_flush(store_writer *w, dt_err *e)
{
	if (!w->nsev)
		return 0;
	size_t n = w->nsev;
	w->nsev = 0;
	return sync_chunk(w, w->sev, n, e);
}

static int w_sync(void *ctx, const dt_sync_clock *clk, const dt_sync_event *ev, size_t n,
		  dt_err *e)
{
	store_writer *w = ctx;
	if (!w->active)
		return dt_errf(e, DT_EDATA, "internal: sync events outside a trace");
	if (cancelled(w, e))
		return -1;
	if (clk) {
		sqlite3_stmt *st = w->ins_clock;
		sqlite3_bind_int64(st, 1, w->trace_id);
		sqlite3_bind_int(st, 2, clk->clock_id);
		sqlite3_bind_int64(st, 3, clk->mono_ns);
		sqlite3_bind_int64(st, 4, clk->real_ns);
		if (step_done(w, st, e, "writing sync clock"))
			return -1;
	}
	while (n) {
		if (!w->nsev && n >= SYNC_CHUNK_EVENTS) {
			/* a whole chunk: encoded where it is (the importers give chunks of
			 * SYNC_CHUNK_EVENTS) */
			if (sync_chunk(w, ev, SYNC_CHUNK_EVENTS, e))
				return -1;
			ev += SYNC_CHUNK_EVENTS;
			n -= SYNC_CHUNK_EVENTS;
			continue;
		}
		size_t k = SYNC_CHUNK_EVENTS - w->nsev;
		if (k > n)
			k = n;
		memcpy(w->sev + w->nsev, ev, k * sizeof *ev);
		w->nsev += k;
		ev += k;
		n -= k;
		if (w->nsev == SYNC_CHUNK_EVENTS && sync_flush(w, e))
			return -1;
	}
	return 0;
}

static int w_sync_cols(void *ctx, const uint8_t *raw, size_t len, size_t n, dt_err *e)
{
	store_writer *w = ctx;
	if (!w->active)
		return dt_errf(e, DT_EDATA, "internal: sync events outside a trace");
	if (w->nsev || !n || n > SYNC_CHUNK_EVENTS)
		return dt_errf(e, DT_EDATA, "internal: a chunk of %zu sync events after %zu", n,
			       w->nsev);
	if (cancelled(w, e))
		return -1;
	return sync_insert(w, sync_encode_cols(w->scodec, raw, len, &w->sblob), n, e);
}

static int w_srcline(void *ctx, const char *func, size_t flen, const char *file, unsigned line,
		     dt_err *e)
{
	store_writer *w = ctx;
	if (cancelled(w, e))
		return -1;
	sqlite3_stmt *st = w->ins_srcline;
	sqlite3_bind_int64(st, 1, w->run_id);
	sqlite3_bind_text(st, 2, func ? func : "", func ? (int)flen : 0, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, file, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, line);
	return step_done(w, st, e, "writing source lines");
}

static uint32_t w_site(void *ctx, const char *file, unsigned line, const char *func, dt_err *e)
{
	store_writer *w = ctx;
	char key[1600];
	size_t len = dt_site_key(key, sizeof key, file, line, func);
	uint32_t id;
	if (strmap_get(&w->sites, key, len, &id))
		return id;
	if (cancelled(w, e))
		return 0;
	id = w->nsites + 1;
	/* prepared at the first site: a writer of functions alone (an analysis on a store of
	 * schema 11 opened read-only) needs no table of sites */
	if (!w->ins_site &&
	    store_prepare(w->s,
			  "INSERT INTO sync_sites(run_id, id, file, line, func)"
			  " VALUES(?1, ?2, ?3, ?4, ?5)",
			  &w->ins_site, e))
		return 0;
	sqlite3_stmt *st = w->ins_site;
	sqlite3_bind_int64(st, 1, w->run_id);
	sqlite3_bind_int64(st, 2, id);
	sqlite3_bind_text(st, 3, file, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, line);
	sqlite3_bind_text(st, 5, func, -1, SQLITE_STATIC);
	if (step_done(w, st, e, "writing call sites"))
		return 0;
	w->nsites = id;
	strmap_put(&w->sites, key, len, id);
	return id;
}

store_writer *store_writer_new(store *s, int64_t run_id, volatile sig_atomic_t *cancel)
{
	store_writer *w = xcalloc(1, sizeof *w);
	w->s = s;
	w->run_id = run_id;
	w->cancel = cancel;
	strmap_init(&w->fcache);
	strmap_init(&w->sites);
	w->enc = chunk_enc_new();
	w->scodec = sync_codec_new();
	w->sev = xmalloc(SYNC_CHUNK_EVENTS * sizeof *w->sev);
	w->ev = xmalloc(STORE_CHUNK_EVENTS * sizeof *w->ev);
	w->ts = xmalloc(STORE_CHUNK_EVENTS * sizeof *w->ts);
	w->sink = (dt_sink){ w,	    w_begin, w_func, w_events,	w_arg,	    w_gap,
			     w_end, w_sync,  w_srcline, w_site, w_sync_cols };
	dt_err e;
	dt_err_clear(&e);
	/* Statements are prepared once per import; failures surface on first use as NULL. */
	store_prepare(s, "INSERT OR IGNORE INTO functions(name) VALUES(?1)", &w->ins_func, &e);
	store_prepare(s, "SELECT id FROM functions WHERE name = ?1", &w->sel_func, &e);
	store_prepare(s,
		      "INSERT INTO traces(run_id, proc, thread, pid, tid, rank, is_main, host, source)"
		      " VALUES(?1, -1 - (SELECT coalesce(max(id), 0) FROM traces), 0, ?2, ?3, ?4, ?5,"
		      " ?6, ?7)",
		      &w->ins_trace, &e);
	store_prepare(s,
		      "INSERT INTO chunks(trace_id, seq, first, n, depth, events, times, args, codec)"
		      " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
		      &w->ins_chunk, &e);
	store_prepare(s,
		      "UPDATE traces SET nevents = ?1, ncalls = ?2, maxdepth = ?3, flags = ?4,"
		      " note = ?5, has_time = ?6, first_ts = ?7, last_ts = ?8, bytes = ?9,"
		      " nargs = ?10, ngaps = ?11 WHERE id = ?12",
		      &w->end_trace, &e);
	store_prepare(s, "INSERT INTO gaps(trace_id, event, lost) VALUES(?1, ?2, ?3)", &w->ins_gap,
		      &e);
	store_prepare(s,
		      "INSERT INTO sync_chunks(trace_id, seq, first, n, codec, data)"
		      " VALUES(?1, ?2, ?3, ?4, ?5, ?6)",
		      &w->ins_sync, &e);
	store_prepare(s,
		      "INSERT OR REPLACE INTO sync_clocks(trace_id, clock, mono, real)"
		      " VALUES(?1, ?2, ?3, ?4)",
		      &w->ins_clock, &e);
	store_prepare(s,
		      "INSERT OR IGNORE INTO srclines(run_id, func, file, line) VALUES(?1, ?2, ?3, ?4)",
		      &w->ins_srcline, &e);
	if (e.status) {
		char msg[1200];
		dt_err_format(&e, msg, sizeof msg);
		fprintf(stderr, "difftrace: %s\n", msg);
		store_writer_free(w);
		return NULL;
	}
	return w;
}

dt_sink *store_writer_sink(store_writer *w)
{
	return &w->sink;
}

uint64_t store_writer_events(const store_writer *w)
{
	return w->events_total;
}

size_t store_writer_traces(const store_writer *w)
{
	return w->nall;
}

void store_writer_on_progress(store_writer *w, void (*fn)(void *, const store_writer *), void *arg)
{
	w->progress = fn;
	w->progress_arg = arg;
}

/* Process order: by MPI rank when every process has a distinct one, else by pid. */
static int cmp_proc(const void *a, const void *b)
{
	const struct wtrace *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->is_main != y->is_main)
		return x->is_main ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

struct prank {
	int64_t pid, rank;
	size_t i;
};

static int cmp_pid(const void *a, const void *b)
{
	const struct prank *x = a, *y = b;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static int cmp_rank_pid(const void *a, const void *b)
{
	const struct prank *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* A process's rank is the highest any of its traces carries; the ranks number the processes
 * when every process has one and no two share it. Found by sorting: comparing every trace
 * with every other made 10^10 comparisons for the 10^5 traces of a text import. Returns
 * whether the ranks number the processes. */
static int ranks_by_process(struct wtrace *t, size_t n)
{
	if (!n)
		return 1;
	struct prank *p = xmalloc(n * sizeof *p);
	for (size_t i = 0; i < n; i++)
		p[i] = (struct prank){ t[i].pid, t[i].rank, i };
	qsort(p, n, sizeof *p, cmp_pid);
	for (size_t g = 0, h; g < n; g = h) {
		int64_t top = p[g].rank;
		for (h = g; h < n && p[h].pid == p[g].pid; h++)
			top = p[h].rank > top ? p[h].rank : top;
		for (size_t k = g; k < h; k++)
			t[p[k].i].rank = p[k].rank = top;
	}
	qsort(p, n, sizeof *p, cmp_rank_pid);
	int ok = p[0].rank >= 0; /* the lowest */
	for (size_t k = 1; k < n && ok; k++)
		ok = p[k].rank != p[k - 1].rank || p[k].pid == p[k - 1].pid;
	free(p);
	return ok;
}

int store_writer_finish(store_writer *w, dt_err *e)
{
	if (w->active)
		return dt_errf(e, DT_EDATA, "internal: import ended inside a trace");
	size_t n = w->nall;
	struct wtrace *t = w->all;
	int ranks_ok = ranks_by_process(t, n);
	if (!ranks_ok)
		for (size_t i = 0; i < n; i++)
			t[i].rank = -1;
	if (n) /* a run of no traces (only source lines) has no array to sort */
		qsort(t, n, sizeof *t, cmp_proc);
	sqlite3_stmt *st;
	if (store_prepare(w->s, "UPDATE traces SET proc = ?1, thread = ?2 WHERE id = ?3", &st, e))
		return -1;
	int proc = -1, thread = 0;
	for (size_t i = 0; i < n; i++) {
		if (i == 0 || t[i].pid != t[i - 1].pid) {
			proc = ranks_ok ? (int)t[i].rank : proc + 1;
			thread = 0;
		}
		sqlite3_bind_int(st, 1, proc);
		sqlite3_bind_int(st, 2, thread++);
		sqlite3_bind_int64(st, 3, t[i].id);
		if (step_done(w, st, e, "numbering traces")) {
			sqlite3_finalize(st);
			return -1;
		}
	}
	sqlite3_finalize(st);
	if (store_prepare(w->s,
			  "UPDATE runs SET ntraces = (SELECT count(*) FROM traces WHERE run_id = ?1),"
			  " nevents = (SELECT coalesce(sum(nevents), 0) FROM traces WHERE run_id = ?1)"
			  " WHERE id = ?1",
			  &st, e))
		return -1;
	sqlite3_bind_int64(st, 1, w->run_id);
	int r = step_done(w, st, e, "totalling run");
	sqlite3_finalize(st);
	if (r)
		return -1;
	/* SQL has no bitwise-or aggregate: the union of the flags is taken here. */
	unsigned all = 0;
	if (store_prepare(w->s, "SELECT DISTINCT flags FROM traces WHERE run_id = ?1", &st, e))
		return -1;
	sqlite3_bind_int64(st, 1, w->run_id);
	while (sqlite3_step(st) == SQLITE_ROW)
		all |= (unsigned)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (store_prepare(w->s, "UPDATE runs SET flags = ?1 WHERE id = ?2", &st, e))
		return -1;
	sqlite3_bind_int64(st, 1, all);
	sqlite3_bind_int64(st, 2, w->run_id);
	r = step_done(w, st, e, "totalling run");
	sqlite3_finalize(st);
	return r;
}

void store_writer_free(store_writer *w)
{
	if (!w)
		return;
	sqlite3_finalize(w->ins_func);
	sqlite3_finalize(w->sel_func);
	sqlite3_finalize(w->ins_trace);
	sqlite3_finalize(w->ins_chunk);
	sqlite3_finalize(w->end_trace);
	sqlite3_finalize(w->ins_gap);
	sqlite3_finalize(w->ins_sync);
	sqlite3_finalize(w->ins_clock);
	sqlite3_finalize(w->ins_srcline);
	sqlite3_finalize(w->ins_site);
	strmap_free(&w->fcache);
	strmap_free(&w->sites);
	chunk_enc_free(w->enc);
	sync_codec_free(w->scodec);
	free(w->sev);
	buf_free(&w->sblob);
	free(w->ev);
	free(w->ts);
	free(w->all);
	buf_free(&w->args);
	buf_free(&w->p_events);
	buf_free(&w->p_times);
	buf_free(&w->p_args);
	free(w);
}
