#define _POSIX_C_SOURCE 200809L
/* store.c: opening the store, transactions, runs, traces and function names. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <errno.h>

#include "store/chunk_codec.h"
#include "store/store_int.h"
#include "store/sync_codec.h"
#include "util/esc.h"
#include "util/util.h"

int store_sqlerr(store *s, dt_err *e, const char *what)
{
	return dt_err_at(e, s->path, -1, "%s: %s", what, sqlite3_errmsg(s->db));
}

int store_prepare(store *s, const char *sql, sqlite3_stmt **st, dt_err *e)
{
	if (sqlite3_prepare_v2(s->db, sql, -1, st, NULL) != SQLITE_OK)
		return store_sqlerr(s, e, "SQL");
	return 0;
}

int store_exec(store *s, const char *sql, dt_err *e)
{
	char *msg = NULL;
	if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		dt_err_at(e, s->path, -1, "%s", msg ? msg : sqlite3_errmsg(s->db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

static void notice_stderr(void *arg, const char *msg)
{
	(void)arg;
	fputs("difftrace: ", stderr);
	esc_fputs(msg, stderr);
	fputc('\n', stderr);
}

void store_notice(store *s, const char *msg)
{
	if (s->notice)
		s->notice(s->notice_arg, msg);
}

void store_set_notice(store *s, void (*fn)(void *, const char *), void *arg)
{
	s->notice = fn;
	s->notice_arg = arg;
}

void store_wait_rearm(store *s)
{
	s->said_wait = 0;
	s->waited_ms = 0;
}

void store_set_cancel(store *s, volatile sig_atomic_t *cancel)
{
	s->cancel = cancel;
}

int store_readonly(const store *s)
{
	return s->readonly;
}

/* SQLite's busy handler: another connection holds the write lock (an import publishing, an
 * analysis saving, a migration). Wait as long as it takes, and say so once after half a
 * second, so that a short wait stays silent. */
static int on_busy(void *arg, int count)
{
	store *s = arg;
	if (s->cancel && *s->cancel)
		return 0;
	int ms = count < 10 ? 2 * (count + 1) : 50;
	s->waited_ms += ms;
	if (!s->said_wait && s->waited_ms >= 500) {
		s->said_wait = 1;
		store_notice(s, "waiting for the store (another difftrace is importing)");
	}
	struct timespec ts = { 0, (long)ms * 1000000L };
	nanosleep(&ts, NULL);
	return 1;
}

/* The file and its folder can be written (WAL needs to create files next to the store). */
static int path_writable(const char *path)
{
	if (access(path, W_OK) != 0)
		return 0;
	char *dir = xstrdup(path);
	char *slash = strrchr(dir, '/');
	if (!slash)
		strcpy(dir, ".");
	else if (slash == dir)
		dir[1] = 0;
	else
		*slash = 0;
	int ok = access(dir, W_OK) == 0;
	free(dir);
	return ok;
}

/* "file:" URI of path with immutable=1: a read-only store in a folder where SQLite cannot
 * create its shared-memory file, and no write-ahead log left behind. */
static char *immutable_uri(const char *path)
{
	dt_buf b = { 0 };
	buf_put(&b, "file:", 5);
	for (const char *p = path; *p; p++) {
		if (*p == '%' || *p == '?' || *p == '#') {
			char h[4];
			snprintf(h, sizeof h, "%%%02X", (unsigned char)*p);
			buf_put(&b, h, 3);
		} else {
			buf_byte(&b, (uint8_t)*p);
		}
	}
	buf_put(&b, "?immutable=1", 13);
	return (char *)b.p;
}

static int64_t query_int(store *s, const char *sql, int *ok)
{
	sqlite3_stmt *st;
	*ok = 0;
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return 0;
	int64_t v = 0;
	if (sqlite3_step(st) == SQLITE_ROW) {
		v = sqlite3_column_int64(st, 0);
		*ok = 1;
	}
	sqlite3_finalize(st);
	return v;
}

static int open_db(store *s, const char *path, int ro, int create)
{
	int flags = ro ? SQLITE_OPEN_READONLY
		       : SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
	if (sqlite3_open_v2(path, &s->db, flags | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK)
		return -1;
	sqlite3_busy_handler(s->db, on_busy, s);
	return 0;
}

/* Is it difftrace's? The application id, else (a store made before the id) its tables. */
static int check_owner(store *s, int mode, int *fresh, dt_err *e)
{
	int ok;
	int64_t ntables = query_int(s, "SELECT count(*) FROM sqlite_master", &ok);
	if (!ok && sqlite3_errcode(s->db) == SQLITE_NOTADB)
		return dt_err_at(e, s->path, -1, "not a difftrace store: not an SQLite database");
	if (!ok)
		return dt_err_at(e, s->path, -1, "cannot read the store: %s", sqlite3_errmsg(s->db));
	int64_t appid = query_int(s, "PRAGMA application_id", &ok);
	*fresh = 0;
	if (appid == STORE_APPLICATION_ID)
		return 0;
	if (appid == 0 && ntables == 0) {
		if (mode != STORE_OPEN_CREATE)
			return dt_err_at(e, s->path, -1,
					 "no store here: the file is an empty database (import traces "
					 "first)");
		*fresh = 1;
		return 0;
	}
	if (appid == 0 &&
	    query_int(s,
		      "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN"
		      " ('meta', 'runs', 'functions', 'traces', 'chunks', 'gaps')",
		      &ok) == 6 &&
	    query_int(s, "PRAGMA user_version", &ok) >= 1)
		return 0;
	return dt_errf(e, DT_EDATA, "not a difftrace store: %s has tables of another program",
		       s->path);
}

int store_open(const char *path, int mode, store **out, dt_err *e)
{
	struct stat stb;
	int exists = stat(path, &stb) == 0;
	if (!exists && mode != STORE_OPEN_CREATE)
		return dt_err_at(e, path, -1, "no store here (import traces first, or name one with -d)");
	if (exists && S_ISDIR(stb.st_mode))
		return dt_err_at(e, path, -1, "is a directory, not a store (name the file with -d)");
	int ro = mode == STORE_OPEN_READ || (mode == STORE_OPEN_EXISTING && !path_writable(path));
	if (mode == STORE_OPEN_CREATE && exists && !path_writable(path))
		return dt_err_at(e, path, -1, "cannot write the store: %s (it can still be read)",
				 strerror(access(path, W_OK) ? errno : EACCES));
	store *s = xcalloc(1, sizeof *s);
	s->path = xstrdup(path);
	s->readonly = ro;
	s->notice = notice_stderr;
	int r = open_db(s, path, ro, mode == STORE_OPEN_CREATE);
	int fresh = 0;
	if (r == 0)
		r = check_owner(s, mode, &fresh, e);
	else
		dt_err_at(e, path, -1, "cannot open the store: %s",
			  s->db ? sqlite3_errmsg(s->db) : "out of memory");
	if (r && ro && s->db && sqlite3_errcode(s->db) != SQLITE_NOTADB) {
		/* a read-only folder: SQLite cannot create the -shm file; when no write-ahead log
		 * is left, the file alone is the whole store and can be read as immutable */
		char *wal = xmalloc(strlen(path) + 5);
		sprintf(wal, "%s-wal", path);
		int has_wal = access(wal, F_OK) == 0;
		free(wal);
		if (!has_wal) {
			sqlite3_close_v2(s->db);
			s->db = NULL;
			char *uri = immutable_uri(path);
			dt_err_clear(e);
			r = open_db(s, uri, 1, 0);
			free(uri);
			if (r == 0)
				r = check_owner(s, mode, &fresh, e);
			else
				dt_err_at(e, path, -1, "cannot open the store: %s",
					  sqlite3_errmsg(s->db));
		}
	}
	if (r) {
		store_close(s);
		return -1;
	}
	if (ro) {
		int ok;
		int v = (int)query_int(s, "PRAGMA user_version", &ok);
		if (v > store_schema_current()) {
			dt_err_at(e, path, -1,
				  "store schema version %d is newer than this difftrace knows (%d): "
				  "upgrade difftrace",
				  v, store_schema_current());
			store_close(s);
			return -1;
		}
		/* schema 6 only added the source lines, which readers do without when the table
		 * is missing: a read-only store of schema 5 is read as it is */
		if (v < store_schema_current() && v < STORE_SCHEMA_READ_MIN) {
			dt_err_at(e, path, -1,
				  "the store is read-only and its schema (version %d) needs an upgrade "
				  "to version %d: open it once with write access",
				  v, store_schema_current());
			store_close(s);
			return -1;
		}
		/* a store of schema 6 to 9 is read as it is: without a codec column, every chunk is
		 * an lza3 stream (the column is looked for, as a store whose version was set back
		 * may have it) */
		s->chunks_lza3_only =
			v < STORE_SCHEMA_CODEC &&
			query_int(s, "SELECT count(*) FROM pragma_table_info('chunks')"
				     " WHERE name = 'codec'", &ok) == 0;
		*out = s;
		return 0;
	}
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(s->db, "PRAGMA journal_mode=WAL", -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW) {
		dt_err_at(e, path, -1, "cannot switch the store to WAL mode: %s",
			  sqlite3_errmsg(s->db));
		sqlite3_finalize(st);
		store_close(s);
		return -1;
	}
	sqlite3_finalize(st);
	(void)fresh;
	if (store_exec(s, "PRAGMA foreign_keys=ON; PRAGMA synchronous=NORMAL;", e) ||
	    store_schema_migrate(s, e)) {
		store_close(s);
		return -1;
	}
	*out = s;
	return 0;
}

void store_close(store *s)
{
	if (!s)
		return;
	sqlite3_finalize(s->get_trace);
	chunk_dec_free(s->chunk_dec);
	sync_codec_free(s->sync_codec);
	if (s->db)
		sqlite3_close_v2(s->db);
	for (size_t i = 0; i < s->nfnames; i++)
		free(s->fnames[i]);
	free(s->fnames);
	free(s->path);
	free(s);
}

void store_fnames_reset(store *s)
{
	for (size_t i = 0; i < s->nfnames; i++)
		free(s->fnames[i]);
	free(s->fnames);
	s->fnames = NULL;
	s->nfnames = 0;
	s->fnames_loaded = 0;
}

const char *store_path(const store *s)
{
	return s->path;
}

int store_begin(store *s, dt_err *e)
{
	/* read-only: only TEMP tables are written (store_cache_writable) */
	return store_exec(s, s->readonly ? "BEGIN" : "BEGIN IMMEDIATE", e);
}

int store_commit(store *s, dt_err *e)
{
	return store_exec(s, "COMMIT", e);
}

void store_rollback(store *s)
{
	if (!sqlite3_get_autocommit(s->db))
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
}

int store_read_begin(store *s, dt_err *e)
{
	if (!sqlite3_get_autocommit(s->db))
		return 0;
	return store_exec(s, "BEGIN", e) ? -1 : 1;
}

void store_read_end(store *s, int began)
{
	if (began > 0 && !sqlite3_get_autocommit(s->db))
		sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL);
}

/* ---- runs ---- */

static char *col_str(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	return xstrdup(t ? (const char *)t : "");
}

void store_run_free(store_run *r)
{
	free(r->name);
	free(r->label);
	free(r->format);
	free(r->source);
	free(r->created);
	memset(r, 0, sizeof *r);
}

void store_runs_free(store_run *r, size_t n)
{
	for (size_t i = 0; i < n; i++)
		store_run_free(&r[i]);
	free(r);
}

#define RUN_COLS                                                                          \
	"r.id, r.name, r.label, r.format, r.source, r.created, r.ntraces, r.nevents, r.flags," \
	" (SELECT coalesce(sum(t.bytes),0) FROM traces t WHERE t.run_id = r.id)"

/* RUN_COLS without the sum over the run's traces (bytes 0). */
#define RUN_COLS_LITE                                                                     \
	"r.id, r.name, r.label, r.format, r.source, r.created, r.ntraces, r.nevents, r.flags, 0"

static void run_from_row(sqlite3_stmt *st, store_run *r)
{
	r->id = sqlite3_column_int64(st, 0);
	r->name = col_str(st, 1);
	r->label = col_str(st, 2);
	r->format = col_str(st, 3);
	r->source = col_str(st, 4);
	r->created = col_str(st, 5);
	r->ntraces = sqlite3_column_int64(st, 6);
	r->nevents = sqlite3_column_int64(st, 7);
	r->flags = (unsigned)sqlite3_column_int64(st, 8);
	r->bytes = sqlite3_column_int64(st, 9);
}

static int run_list(store *s, int lite, store_run **runs, size_t *n, dt_err *e);

int store_run_list(store *s, store_run **runs, size_t *n, dt_err *e)
{
	return run_list(s, 0, runs, n, e);
}

int store_run_list_lite(store *s, store_run **runs, size_t *n, dt_err *e)
{
	return run_list(s, 1, runs, n, e);
}

static int run_list(store *s, int lite, store_run **runs, size_t *n, dt_err *e)
{
	sqlite3_stmt *st;
	if (store_prepare(s,
			  lite ? "SELECT " RUN_COLS_LITE " FROM runs r ORDER BY r.id"
			       : "SELECT " RUN_COLS " FROM runs r ORDER BY r.id",
			  &st, e))
		return -1;
	store_run *v = NULL;
	size_t cap = 0, len = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		GROW(v, cap, len + 1);
		run_from_row(st, &v[len++]);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		store_runs_free(v, len);
		return store_sqlerr(s, e, "listing runs");
	}
	*runs = v;
	*n = len;
	return 0;
}

static int run_get(store *s, const char *name, int lite, store_run *r, dt_err *e);

int store_run_get(store *s, const char *name, store_run *r, dt_err *e)
{
	return run_get(s, name, 0, r, e);
}

int store_run_get_lite(store *s, const char *name, store_run *r, dt_err *e)
{
	return run_get(s, name, 1, r, e);
}

static int run_get(store *s, const char *name, int lite, store_run *r, dt_err *e)
{
	sqlite3_stmt *st;
	if (store_prepare(s,
			  lite ? "SELECT " RUN_COLS_LITE " FROM runs r WHERE r.name = ?1"
			       : "SELECT " RUN_COLS " FROM runs r WHERE r.name = ?1",
			  &st, e))
		return -1;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		run_from_row(st, r);
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 0;
	if (rc != SQLITE_DONE)
		return store_sqlerr(s, e, "reading run");
	return dt_errf(e, DT_EDATA, "no run named '%s' in %s (see 'difftrace runs')", name, s->path);
}

int store_run_exists(store *s, const char *name, dt_err *e)
{
	sqlite3_stmt *st;
	/* main: during a staged import, `runs` is the staged run */
	if (store_prepare(s, "SELECT 1 FROM main.runs WHERE name = ?1", &st, e))
		return -1;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return store_sqlerr(s, e, "reading run");
	return rc == SQLITE_ROW;
}

char *store_run_fresh_name(store *s, const char *base, dt_err *e)
{
	char name[256];
	snprintf(name, sizeof name, "%s", base);
	for (int i = 2;; i++) {
		int x = store_run_exists(s, name, e);
		if (x < 0)
			return NULL;
		if (!x)
			return xstrdup(name);
		snprintf(name, sizeof name, "%s-%d", base, i);
	}
}

int store_run_create(store *s, const char *name, const char *label, const char *format,
		     const char *source, int64_t *id, dt_err *e)
{
	int x = store_run_exists(s, name, e);
	if (x < 0)
		return -1;
	if (x)
		return dt_errf(e, DT_EDATA,
			       "a run named '%s' exists already (remove it with 'difftrace rm %s' or "
			       "choose another --run)",
			       name, name);
	char created[32];
	time_t now = time(NULL);
	struct tm tm;
	strftime(created, sizeof created, "%Y-%m-%d %H:%M:%S", localtime_r(&now, &tm));
	sqlite3_stmt *st;
	if (store_prepare(s,
			  "INSERT INTO runs(name, label, format, source, created) "
			  "VALUES(?1, ?2, ?3, ?4, ?5)",
			  &st, e))
		return -1;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, label ? label : "", -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, format, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 4, source ? source : "", -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 5, created, -1, SQLITE_TRANSIENT);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return store_sqlerr(s, e, "creating run");
	*id = sqlite3_last_insert_rowid(s->db);
	return 0;
}

int store_run_delete(store *s, const char *name, dt_err *e)
{
	store_run r;
	if (store_run_get(s, name, &r, e))
		return -1;
	store_run_free(&r);
	sqlite3_stmt *st;
	if (store_prepare(s, "DELETE FROM runs WHERE name = ?1", &st, e))
		return -1;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return store_sqlerr(s, e, "removing run");
	return 0;
}

/* ---- traces ---- */

void store_trace_free(store_trace *t)
{
	free(t->host);
	free(t->source);
	free(t->note);
	memset(t, 0, sizeof *t);
}

void store_traces_free(store_trace *t, size_t n)
{
	for (size_t i = 0; i < n; i++)
		store_trace_free(&t[i]);
	free(t);
}


void store_trace_from_row(sqlite3_stmt *st, store_trace *t)
{
	t->id = sqlite3_column_int64(st, 0);
	t->run_id = sqlite3_column_int64(st, 1);
	t->proc = sqlite3_column_int(st, 2);
	t->thread = sqlite3_column_int(st, 3);
	t->pid = sqlite3_column_int64(st, 4);
	t->tid = sqlite3_column_int64(st, 5);
	t->rank = sqlite3_column_int64(st, 6);
	t->host = col_str(st, 7);
	t->source = col_str(st, 8);
	t->note = col_str(st, 9);
	t->nevents = (uint64_t)sqlite3_column_int64(st, 10);
	t->ncalls = (uint64_t)sqlite3_column_int64(st, 11);
	t->maxdepth = sqlite3_column_int(st, 12);
	t->flags = (unsigned)sqlite3_column_int64(st, 13);
	t->has_time = sqlite3_column_int(st, 14);
	t->first_ts = (uint64_t)sqlite3_column_int64(st, 15);
	t->last_ts = (uint64_t)sqlite3_column_int64(st, 16);
	t->bytes = sqlite3_column_int64(st, 17);
	t->nargs = sqlite3_column_int64(st, 18);
	t->ngaps = sqlite3_column_int64(st, 19);
}

int store_run_trace_list(store *s, const char *run, store_trace **t, size_t *n, dt_err *e)
{
	*t = NULL;
	*n = 0;
	store_run r;
	if (store_run_get(s, run, &r, e))
		return -1;
	int rc = store_trace_list(s, r.id, t, n, e);
	store_run_free(&r);
	return rc ? -1 : 0;
}

int store_trace_list(store *s, int64_t run_id, store_trace **out, size_t *n, dt_err *e)
{
	sqlite3_stmt *st;
	if (store_prepare(s,
			  "SELECT " TRACE_COLS " FROM traces WHERE run_id = ?1 ORDER BY proc, thread",
			  &st, e))
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	store_trace *v = NULL;
	size_t cap = 0, len = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		GROW(v, cap, len + 1);
		store_trace_from_row(st, &v[len++]);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		store_traces_free(v, len);
		return store_sqlerr(s, e, "listing traces");
	}
	*out = v;
	*n = len;
	return 0;
}

int store_trace_get(store *s, int64_t run_id, int proc, int thread, store_trace *t, dt_err *e)
{
	sqlite3_stmt *st;
	if (store_prepare(s,
			  "SELECT " TRACE_COLS
			  " FROM traces WHERE run_id = ?1 AND proc = ?2 AND thread = ?3",
			  &st, e))
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int(st, 2, proc);
	sqlite3_bind_int(st, 3, thread);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		store_trace_from_row(st, t);
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 0;
	if (rc != SQLITE_DONE)
		return store_sqlerr(s, e, "reading trace");
	return dt_errf(e, DT_EDATA, "no trace %d.%d in this run (see 'difftrace traces')", proc,
		       thread);
}

int store_trace_gaps(store *s, int64_t trace_id, uint64_t **idx, uint64_t **lost, size_t *n,
		     dt_err *e)
{
	sqlite3_stmt *st;
	if (store_prepare(s, "SELECT event, lost FROM gaps WHERE trace_id = ?1 ORDER BY event", &st,
			  e))
		return -1;
	sqlite3_bind_int64(st, 1, trace_id);
	uint64_t *a = NULL, *b = NULL;
	size_t cap = 0, capb = 0, len = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		GROW(a, cap, len + 1);
		GROW(b, capb, len + 1);
		a[len] = (uint64_t)sqlite3_column_int64(st, 0);
		b[len++] = (uint64_t)sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		free(a);
		free(b);
		return store_sqlerr(s, e, "reading gaps");
	}
	*idx = a;
	*lost = b;
	*n = len;
	return 0;
}

/* ---- function names ---- */

void store_fnames_add(store *s, uint32_t id, const char *name, size_t len)
{
	if (!s->fnames_loaded)
		return; /* loaded in full on first use */
	if (id >= s->nfnames) {
		s->fnames = xrealloc(s->fnames, (id + 1) * sizeof *s->fnames);
		memset(s->fnames + s->nfnames, 0, (id + 1 - s->nfnames) * sizeof *s->fnames);
		s->nfnames = id + 1;
	}
	free(s->fnames[id]);
	s->fnames[id] = xstrndup(name, len);
}

static void load_fnames(store *s)
{
	s->fnames_loaded = 1;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(s->db, "SELECT id, name FROM functions", -1, &st, NULL) != SQLITE_OK)
		return;
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		if (id <= 0 || id > UINT32_MAX)
			continue;
		store_fnames_add(s, (uint32_t)id, (const char *)sqlite3_column_text(st, 1),
				 (size_t)sqlite3_column_bytes(st, 1));
	}
	sqlite3_finalize(st);
}

/* The name of function id read from the store: one another connection added since the names
 * were loaded (an analysis made in the background names its calls with their arguments). */
static const char *fname_read(store *s, uint32_t id)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(s->db, "SELECT name FROM functions WHERE id = ?1", -1, &st, NULL) !=
	    SQLITE_OK)
		return NULL;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		store_fnames_add(s, id, (const char *)sqlite3_column_text(st, 0),
				 (size_t)sqlite3_column_bytes(st, 0));
	sqlite3_finalize(st);
	return id < s->nfnames ? s->fnames[id] : NULL;
}

const char *store_func_name(store *s, uint32_t id)
{
	if (id == DT_RET)
		return "[ret]";
	if (!s->fnames_loaded)
		load_fnames(s);
	if (id < s->nfnames && s->fnames[id])
		return s->fnames[id];
	const char *nm = id ? fname_read(s, id) : NULL;
	return nm ? nm : "?";
}

const char *const *store_func_names(store *s, size_t *n)
{
	if (!s->fnames_loaded)
		load_fnames(s);
	*n = s->nfnames;
	return (const char *const *)s->fnames;
}
