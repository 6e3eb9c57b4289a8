/* test_store.c: the store: schema, runs, the writer (chunks, timestamps, arguments, gaps),
 * P.T numbering, cursors that start anywhere, rollback, refusal of newer schemas, the chunks'
 * codecs (zstd frames; the lza3 chunks of a store of schema 8, read-only or migrated) and a
 * damaged chunk's error. */
#define _POSIX_C_SOURCE 200809L
#include <sqlite3.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "store/chunk_codec.h"
#include "store/lza3.h"
#include "store/store.h"
#include "store/store_srcline.h"
#include "import/wire.h"

static char path[256];

static void raw_sql(const char *sql)
{
	sqlite3 *db;
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	char *msg = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		fprintf(stderr, "sql: %s\n", msg);
		check_failures++;
	}
	sqlite3_free(msg);
	sqlite3_close(db);
}

/* One trace with n events: call f, call g, return, return ... so depth stays small, with
 * timestamps, an argument at event argat and a lost-record gap. */
static void write_trace(dt_sink *k, int64_t pid, int64_t tid, int64_t rank, int is_main,
			uint64_t n, uint32_t f, uint32_t g, uint64_t argat)
{
	dt_err e;
	dt_err_clear(&e);
	dt_trace_meta m = { pid, tid, rank, is_main, "node1", "mem" };
	CHECK(k->begin(k->ctx, &m, &e) == 0);
	uint32_t ev[1000];
	uint64_t ts[1000];
	uint64_t i = 0;
	while (i < n) {
		size_t b = 0;
		for (; b < 1000 && i < n; b++, i++) {
			ev[b] = (i % 4 == 0) ? f : (i % 4 == 1) ? g : DT_RET;
			ts[b] = 1000000 + i * 7 + (i > 300000 ? 5000000000ull : 0);
		}
		CHECK(k->events(k->ctx, ev, ts, b, &e) == 0);
		if (argat >= i - b && argat < i) {
			CHECK(k->arg(k->ctx, argat, DT_ARG, "count=2, op=MAX", &e) == 0);
			CHECK(k->arg(k->ctx, argat, DT_RETVAL, "0", &e) == 0);
		}
	}
	CHECK(k->gap(k->ctx, 17, 99, &e) == 0);
	CHECK(k->end(k->ctx, DT_TF_LOST, "lost 99 records", &e) == 0);
	if (e.status)
		fprintf(stderr, "write_trace: %s\n", e.msg);
}


static int64_t sql_int(const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	CHECK(sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK);
	int64_t v = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}

/* Makes the store one of schema 8, as difftrace wrote it before chunks had a codec: every
 * chunk's events back to its bare lza3 stream, no codec column. */
static void to_schema8(void)
{
	sqlite3 *db;
	sqlite3_stmt *sel, *upd;
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	CHECK(sqlite3_prepare_v2(db, "SELECT id, events, codec, n FROM chunks", -1, &sel, NULL) ==
	      SQLITE_OK);
	CHECK(sqlite3_prepare_v2(db, "UPDATE chunks SET events = ?1 WHERE id = ?2", -1, &upd,
				 NULL) == SQLITE_OK);
	chunk_dec *dec = chunk_dec_new();
	lza3_enc *z = lza3_enc_new();
	dt_buf b = { 0 };
	int nzstd = 0;
	while (sqlite3_step(sel) == SQLITE_ROW) {
		uint32_t *ev;
		size_t n;
		dt_err e;
		dt_err_clear(&e);
		nzstd += sqlite3_column_int(sel, 2) == CHUNK_LZA3_ZSTD;
		CHECK(chunk_decode(dec, sqlite3_column_int(sel, 2), sqlite3_column_blob(sel, 1),
				   (size_t)sqlite3_column_bytes(sel, 1),
				   (uint64_t)sqlite3_column_int64(sel, 3), 0, path, &ev, &n, &e) == 0);
		b.len = 0;
		lza3_enc_put(z, ev, n, &b);
		lza3_enc_finish(z, &b);
		free(ev);
		sqlite3_bind_blob(upd, 1, b.p, (int)b.len, SQLITE_STATIC);
		sqlite3_bind_int64(upd, 2, sqlite3_column_int64(sel, 0));
		CHECK(sqlite3_step(upd) == SQLITE_DONE);
		sqlite3_reset(upd);
	}
	CHECK(nzstd > 0);
	sqlite3_finalize(sel);
	sqlite3_finalize(upd);
	sqlite3_close(db);
	chunk_dec_free(dec);
	lza3_enc_free(z);
	buf_free(&b);
	raw_sql("ALTER TABLE chunks DROP COLUMN codec; DROP TABLE rank_cache; PRAGMA user_version = 8;");
}

/* Reads the first trace of run `name` (the write_trace of nev events) whole: 0 when every event
 * and time is right, else -1 with e set or a count of wrong events. */
static int read_back(store *s, const char *name, uint32_t f, uint32_t g, uint64_t nev, dt_err *e)
{
	store_run r;
	store_trace *t;
	size_t n;
	if (store_run_get(s, name, &r, e))
		return -1;
	int rc = store_trace_list(s, r.id, &t, &n, e);
	store_run_free(&r);
	if (rc || !n)
		return -1;
	store_cursor *c;
	if (store_cursor_open(s, &t[0], 0, &c, e)) {
		store_traces_free(t, n);
		return -1;
	}
	static uint32_t ev[5000];
	static uint64_t ts[5000];
	uint64_t idx = 0;
	int wrong = 0;
	int64_t got;
	while ((got = store_cursor_next(c, ev, ts, 5000, e)) > 0)
		for (int64_t i = 0; i < got; i++, idx++) {
			uint32_t want = (idx % 4 == 0) ? f : (idx % 4 == 1) ? g : DT_RET;
			uint64_t wts = 1000000 + idx * 7 + (idx > 300000 ? 5000000000ull : 0);
			wrong += ev[i] != want || ts[i] != wts;
		}
	store_cursor_close(c);
	store_traces_free(t, n);
	if (got < 0)
		return -1;
	return idx == nev ? wrong : wrong + 1;
}

int main(void)
{
	char dir[] = "/tmp/dt-store-XXXXXX";
	if (!mkdtemp(dir))
		SKIP("no temporary directory");
	snprintf(path, sizeof path, "%s/s.db", dir);
	dt_err e;
	dt_err_clear(&e);
	store *s = NULL;
	CHECK(store_open(path, STORE_OPEN_EXISTING, &s, &e) == -1); /* not there yet */
	CHECK(strstr(e.msg, "no store here") != NULL);
	dt_err_clear(&e);
	CHECK(store_open(path, STORE_OPEN_CREATE, &s, &e) == 0);
	store_close(s);
	/* a function id beyond 16 bits, to exercise the codec's wide values in the store */
	raw_sql("INSERT INTO functions(id, name) VALUES(70000, 'far_away')");
	CHECK(store_open(path, STORE_OPEN_EXISTING, &s, &e) == 0);

	int64_t run;
	CHECK(store_begin(s, &e) == 0);
	CHECK(store_run_create(s, "normal", "lbl", "text", "src", &run, &e) == 0);
	store_writer *w = store_writer_new(s, run, NULL);
	CHECK(w != NULL);
	dt_sink *k = store_writer_sink(w);
	uint32_t f = k->func(k->ctx, "MPI_Allreduce", 13, &e);
	uint32_t g = k->func(k->ctx, "compute", 7, &e);
	CHECK(f == 70001 && g == 70002);
	CHECK(k->func(k->ctx, "MPI_Allreduce", 13, &e) == f);
	const uint64_t big = 3 * STORE_CHUNK_EVENTS + 123;
	const uint64_t argat = STORE_CHUNK_EVENTS - 4; /* a call right before a chunk boundary */
	write_trace(k, 200, 201, -1, 0, 8, f, g, 100);
	write_trace(k, 200, 200, -1, 1, 8, f, g, 100);
	write_trace(k, 100, 150, -1, 0, 8, f, g, 100);
	write_trace(k, 100, 100, -1, 1, big, f, g, argat);
	write_trace(k, 100, 120, -1, 0, 8, f, g, 100);
	CHECK_EQ_INT(store_writer_traces(w), 5);
	/* source lines: by name, the first of a name kept; a program without debug information */
	CHECK(k->srcline(k->ctx, "compute", 7, "/src/a.c", 12, &e) == 0);
	CHECK(k->srcline(k->ctx, "MPI_Allreduce", 13, "/src/mpi.c", 40, &e) == 0);
	CHECK(k->srcline(k->ctx, "MPI_Allreduce", 13, "/src/mpi.c", 40, &e) == 0);
	CHECK(k->srcline(k->ctx, NULL, 0, "/bin/plain", 0, &e) == 0);
	CHECK(store_writer_finish(w, &e) == 0);
	store_writer_free(w);
	CHECK(store_commit(s, &e) == 0);
	store_srclines *sl;
	CHECK(store_srclines_load(s, run, &sl, &e) == 0);
	const char *file;
	int line;
	CHECK_EQ_INT(store_srclines_count(sl), 2);
	CHECK(store_srclines_find(sl, "compute", &file, &line) == 1);
	CHECK(!strcmp(file, "/src/a.c") && line == 12);
	/* an MPI call named with its arguments is looked up by its name */
	CHECK(store_srclines_find(sl, "MPI_Allreduce[count=1,op=SUM]", &file, &line) == 1);
	CHECK(line == 40);
	CHECK(store_srclines_find(sl, "far_away", &file, &line) == 0);
	CHECK(store_srclines_find(NULL, "compute", &file, &line) == 0);
	size_t nnd;
	const char *const *nd = store_srclines_nodebug(sl, &nnd);
	CHECK(nnd == 1 && !strcmp(nd[0], "/bin/plain"));
	store_srclines_free(sl);
	/* the lines cross a parallel import's wire: a unit's records replayed into the store */
	{
		dt_buf wb = { 0 };
		wire_sink ws;
		wire_sink_init(&ws, &wb);
		CHECK(ws.sink.srcline(ws.sink.ctx, "solve", 5, "/src/s.c", 33, &e) == 0);
		CHECK(ws.sink.srcline(ws.sink.ctx, NULL, 0, "/bin/gone", 1, &e) == 0);
		int64_t wrun;
		CHECK(store_begin(s, &e) == 0);
		CHECK(store_run_create(s, "wired", "", "uftrace", "src", &wrun, &e) == 0);
		store_writer *ww = store_writer_new(s, wrun, NULL);
		CHECK(wire_replay(wb.p, wb.len, store_writer_sink(ww), "unit 0", &e) == 0);
		CHECK(store_writer_finish(ww, &e) == 0);
		store_writer_free(ww);
		CHECK(store_commit(s, &e) == 0);
		CHECK(store_srclines_load(s, wrun, &sl, &e) == 0);
		CHECK(store_srclines_find(sl, "solve", &file, &line) == 1 && line == 33);
		const char *const *gone = store_srclines_nodebug(sl, &nnd);
		CHECK(nnd == 1 && !strcmp(gone[0], "/bin/gone") && store_srclines_unreadable(sl, 0));
		store_srclines_free(sl);
		wire_sink_free(&ws);
		buf_free(&wb);
	}
	/* another run has none */
	CHECK(store_srclines_load(s, run + 1000, &sl, &e) == 0);
	CHECK_EQ_INT(store_srclines_count(sl), 0);
	store_srclines_free(sl);

	store_run r;
	CHECK(store_run_get(s, "normal", &r, &e) == 0);
	CHECK_EQ_INT(r.ntraces, 5);
	CHECK_EQ_INT(r.nevents, big + 32);
	CHECK(r.flags == (DT_TF_LOST | DT_TF_OPEN_FRAMES) || r.flags == DT_TF_LOST);
	store_run_free(&r);

	store_trace *t;
	size_t n;
	CHECK(store_trace_list(s, run, &t, &n, &e) == 0);
	CHECK_EQ_INT(n, 5);
	/* pid order for processes; the main thread first, then tid order */
	static const int64_t want_tid[] = { 100, 120, 150, 200, 201 };
	static const int want_p[] = { 0, 0, 0, 1, 1 }, want_t[] = { 0, 1, 2, 0, 1 };
	for (size_t i = 0; i < n && i < 5; i++) {
		CHECK_EQ_INT(t[i].tid, want_tid[i]);
		CHECK_EQ_INT(t[i].proc, want_p[i]);
		CHECK_EQ_INT(t[i].thread, want_t[i]);
	}
	store_trace *bt = &t[0];
	CHECK_EQ_INT(bt->nevents, big);
	CHECK(bt->has_time);
	CHECK_EQ_INT(bt->first_ts, 1000000);
	CHECK_EQ_INT(bt->nargs, 2);
	CHECK_EQ_INT(bt->ngaps, 1);
	CHECK_EQ_STR(bt->note, "lost 99 records");
	CHECK(bt->flags & DT_TF_LOST);
	CHECK_EQ_STR(store_func_name(s, f), "MPI_Allreduce");
	CHECK_EQ_STR(store_func_name(s, 70000), "far_away");
	CHECK_EQ_STR(store_func_name(s, DT_RET), "[ret]");

	/* read everything back */
	store_cursor *c;
	CHECK(store_cursor_open(s, bt, 0, &c, &e) == 0);
	uint32_t ev[5000];
	uint64_t ts[5000];
	uint64_t idx = 0;
	int bad = 0, args_seen = 0;
	int64_t got;
	while ((got = store_cursor_next(c, ev, ts, 5000, &e)) > 0) {
		for (int64_t i = 0; i < got; i++, idx++) {
			uint32_t want = (idx % 4 == 0) ? f : (idx % 4 == 1) ? g : DT_RET;
			uint64_t wts = 1000000 + idx * 7 + (idx > 300000 ? 5000000000ull : 0);
			bad += ev[i] != want || ts[i] != wts;
			const char *a = store_cursor_arg(c, idx, DT_ARG);
			if (a) {
				args_seen++;
				CHECK_EQ_INT(idx, argat);
				CHECK_EQ_STR(a, "count=2, op=MAX");
				CHECK_EQ_STR(store_cursor_arg(c, idx, DT_RETVAL), "0");
			}
		}
	}
	CHECK_EQ_INT(got, 0);
	CHECK_EQ_INT(bad, 0);
	CHECK_EQ_INT(idx, big);
	CHECK_EQ_INT(args_seen, 1);
	store_cursor_close(c);

	/* start just before a chunk boundary: the depth carries over */
	uint64_t from = STORE_CHUNK_EVENTS - 3;
	CHECK(store_cursor_open(s, bt, from, &c, &e) == 0);
	got = store_cursor_next(c, ev, NULL, 10, &e);
	CHECK_EQ_INT(got, 3); /* the rest of the first chunk */
	CHECK_EQ_INT(store_cursor_depth(c), 1); /* event from-1 = g opened f's child: f is open */
	CHECK_EQ_INT(ev[0], g);
	got = store_cursor_next(c, ev, NULL, 10, &e);
	CHECK_EQ_INT(got, 10);
	CHECK_EQ_INT(ev[0], f); /* event 2^18 is a multiple of 4 */
	CHECK_EQ_INT(store_cursor_depth(c), 0);
	store_cursor_close(c);

	uint64_t *gi, *gl;
	size_t ng;
	CHECK(store_trace_gaps(s, bt->id, &gi, &gl, &ng, &e) == 0);
	CHECK(ng == 1 && gi[0] == 17 && gl[0] == 99);
	free(gi);
	free(gl);
	store_traces_free(t, n);

	/* ranks, when every process has a distinct one, number the processes */
	CHECK(store_begin(s, &e) == 0);
	CHECK(store_run_create(s, "ranked", "", "uftrace", "", &run, &e) == 0);
	w = store_writer_new(s, run, NULL);
	k = store_writer_sink(w);
	write_trace(k, 100, 100, 1, 1, 4, f, g, 100);
	write_trace(k, 100, 101, -1, 0, 4, f, g, 100); /* a thread inherits its process's rank */
	write_trace(k, 300, 300, 0, 1, 4, f, g, 100);
	CHECK(store_writer_finish(w, &e) == 0);
	store_writer_free(w);
	CHECK(store_commit(s, &e) == 0);
	CHECK(store_trace_list(s, run, &t, &n, &e) == 0);
	CHECK(n == 3 && t[0].pid == 300 && t[0].proc == 0 && t[1].pid == 100 && t[1].proc == 1 &&
	      t[2].tid == 101 && t[2].proc == 1 && t[2].thread == 1);
	store_traces_free(t, n);

	/* two processes of one rank: the ranks do not number them, the pids do (in pid order),
	 * whatever the order the traces came in; so does a process with no rank */
	for (int cs = 0; cs < 2; cs++) {
		char nm[16];
		snprintf(nm, sizeof nm, "dupranks%d", cs);
		CHECK(store_begin(s, &e) == 0);
		CHECK(store_run_create(s, nm, "", "uftrace", "", &run, &e) == 0);
		w = store_writer_new(s, run, NULL);
		k = store_writer_sink(w);
		write_trace(k, 500, 501, -1, 0, 4, f, g, 100);
		write_trace(k, 500, 500, 0, 1, 4, f, g, 100);
		write_trace(k, 200, 200, cs ? -1 : 2, 1, 4, f, g, 100);
		write_trace(k, 400, 400, cs ? 1 : 0, 1, 4, f, g, 100);
		CHECK(store_writer_finish(w, &e) == 0);
		store_writer_free(w);
		CHECK(store_commit(s, &e) == 0);
		CHECK(store_trace_list(s, run, &t, &n, &e) == 0);
		/* cs = 0: 500 and 400 share rank 0; cs = 1: 200 has none */
		CHECK(n == 4 && t[0].pid == 200 && t[0].proc == 0 && t[1].pid == 400 &&
		      t[1].proc == 1 && t[2].pid == 500 && t[2].tid == 500 && t[2].proc == 2 &&
		      t[2].thread == 0 && t[3].tid == 501 && t[3].proc == 2 && t[3].thread == 1);
		store_traces_free(t, n);
	}

	/* a rolled-back import leaves nothing */
	CHECK(store_begin(s, &e) == 0);
	CHECK(store_run_create(s, "doomed", "", "text", "", &run, &e) == 0);
	w = store_writer_new(s, run, NULL);
	k = store_writer_sink(w);
	write_trace(k, 1, 1, -1, 1, 1000, k->func(k->ctx, "only_here", 9, &e), g, 5);
	store_writer_free(w);
	store_rollback(s);
	CHECK_EQ_INT(store_run_exists(s, "doomed", &e), 0);
	CHECK(store_run_exists(s, "normal", &e) == 1);

	/* an interrupt flag stops the writer */
	volatile sig_atomic_t stop = 0;
	CHECK(store_begin(s, &e) == 0);
	CHECK(store_run_create(s, "stopped", "", "text", "", &run, &e) == 0);
	w = store_writer_new(s, run, &stop);
	k = store_writer_sink(w);
	dt_trace_meta m = { 1, 1, -1, 1, NULL, "x" };
	CHECK(k->begin(k->ctx, &m, &e) == 0);
	stop = 1;
	CHECK(k->events(k->ctx, &f, NULL, 1, &e) == -1);
	CHECK_EQ_STR(e.msg, "interrupted");
	dt_err_clear(&e);
	store_writer_free(w);
	store_rollback(s);

	/* the same run name twice is refused */
	CHECK(store_run_create(s, "normal", "", "text", "", &run, &e) == -1);
	CHECK(strstr(e.msg, "exists already") != NULL);
	dt_err_clear(&e);
	CHECK(store_run_delete(s, "normal", &e) == 0);
	CHECK_EQ_INT(store_run_exists(s, "normal", &e), 0);
	store_close(s);

	/* the chunks of a run: zstd frames where that is smaller (the long trace's three full
	 * chunks), the bare lza3 stream where it is not (its last chunk of 123 events, and the
	 * tiny traces of 4 events) */
	CHECK(store_open(path, STORE_OPEN_EXISTING, &s, &e) == 0);
	CHECK(store_begin(s, &e) == 0);
	CHECK(store_run_create(s, "zrun", "", "text", "", &run, &e) == 0);
	w = store_writer_new(s, run, NULL);
	k = store_writer_sink(w);
	write_trace(k, 1, 1, -1, 1, big, f, g, 100);
	write_trace(k, 1, 2, -1, 0, 4, f, g, 100);
	CHECK(store_writer_finish(w, &e) == 0);
	store_writer_free(w);
	CHECK(store_commit(s, &e) == 0);
	store_close(s);
	CHECK_EQ_INT(sql_int("PRAGMA user_version"), 13);
	CHECK_EQ_INT(sql_int("SELECT count(*) FROM chunks WHERE codec = 1"), 3);
	CHECK_EQ_INT(sql_int("SELECT count(*) FROM chunks WHERE codec = 1 AND n != 262144"), 0);
	CHECK_EQ_INT(sql_int("SELECT count(*) FROM chunks WHERE codec = 0 AND n = 123"), 1);
	CHECK(store_open(path, STORE_OPEN_READ, &s, &e) == 0);
	CHECK_EQ_INT(read_back(s, "zrun", f, g, big, &e), 0);
	store_close(s);

	/* a store of schema 8: read-only, it is read as it is (no codec column); opened to write,
	 * it is migrated, its chunks lza3 (codec 0) next to the new zstd ones */
	to_schema8();
	CHECK(store_open(path, STORE_OPEN_READ, &s, &e) == 0);
	CHECK_EQ_INT(read_back(s, "zrun", f, g, big, &e), 0);
	store_close(s);
	CHECK_EQ_INT(sql_int("PRAGMA user_version"), 8);
	CHECK(store_open(path, STORE_OPEN_EXISTING, &s, &e) == 0);
	CHECK_EQ_INT(sql_int("PRAGMA user_version"), 13);
	CHECK_EQ_INT(sql_int("SELECT count(*) FROM chunks WHERE codec != 0"), 0);
	CHECK_EQ_INT(read_back(s, "zrun", f, g, big, &e), 0);
	CHECK(store_begin(s, &e) == 0);
	CHECK(store_run_create(s, "zrun2", "", "text", "", &run, &e) == 0);
	w = store_writer_new(s, run, NULL);
	k = store_writer_sink(w);
	write_trace(k, 1, 1, -1, 1, big, f, g, 100);
	CHECK(store_writer_finish(w, &e) == 0);
	store_writer_free(w);
	CHECK(store_commit(s, &e) == 0);
	CHECK_EQ_INT(read_back(s, "zrun2", f, g, big, &e), 0);
	CHECK_EQ_INT(read_back(s, "zrun", f, g, big, &e), 0);
	store_close(s);
	CHECK_EQ_INT(sql_int("SELECT count(*) FROM chunks WHERE codec = 1"), 3);

	/* a damaged chunk (the third of zrun2's, cut short) stops the read with one line that
	 * names the store and the chunk; the chunks before it read */
	raw_sql("UPDATE chunks SET events = substr(events, 1, length(events) - 9) WHERE seq = 2"
		" AND trace_id = (SELECT t.id FROM traces t JOIN runs r ON r.id = t.run_id"
		" WHERE r.name = 'zrun2' AND t.thread = 0)");
	CHECK(store_open(path, STORE_OPEN_READ, &s, &e) == 0);
	CHECK(read_back(s, "zrun2", f, g, big, &e) == -1);
	char msg1[1200];
	dt_err_format(&e, msg1, sizeof msg1);
	CHECK_EQ_STR(e.file, path);
	CHECK(strchr(msg1, '\n') == NULL);
	CHECK(strstr(msg1, ": damaged event chunk at event 524288: zstd: ") != NULL);
	dt_err_clear(&e);
	/* an unknown codec, as a later difftrace could write */
	raw_sql("UPDATE chunks SET codec = 5 WHERE seq = 2");
	CHECK(read_back(s, "zrun", f, g, big, &e) == -1);
	CHECK(strstr(e.msg, "event chunk at event 524288 has codec 5, which this difftrace does not"
			    " know") == e.msg);
	dt_err_clear(&e);
	store_close(s);

	/* a store from a newer difftrace is refused, not touched */
	raw_sql("PRAGMA user_version = 99");
	CHECK(store_open(path, STORE_OPEN_EXISTING, &s, &e) == -1);
	CHECK(strstr(e.msg, "newer") != NULL);

	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	CHECK(system(cmd) == 0);
	CHECK_DONE();
}
