/* store_int.h: what the store's own files share; nothing outside store*.c includes it. */
#ifndef DT_STORE_INT_H
#define DT_STORE_INT_H

#include <sqlite3.h>

#include "store/store.h"

struct store {
	sqlite3 *db;
	char *path;
	char **fnames; /* fnames[id]; loaded on first use, extended by the writer, and read
			* again where a name is missing after another connection wrote */
	size_t nfnames, capfnames;
	int fnames_loaded;
	int64_t fnames_dv;   /* PRAGMA data_version when the names were last read */
	char ***fnames_old;  /* arrays fnames outgrew: store_func_names gave them out */
	size_t nfnames_old;
	int readonly;      /* opened read-only: nothing is written to the file */
	int shadowed;      /* read-only: the analysis cache lives in TEMP tables (store_cache.c) */
	int staging;       /* an import is being staged in TEMP tables (store_stage.c) */
	uint32_t fbase;    /* staging: the largest function id of the store when it began */
	volatile sig_atomic_t *cancel; /* polled while waiting for the write lock */
	int64_t waited_ms; /* how long this connection has waited for the lock so far */
	int said_wait;
	void (*notice)(void *, const char *);
	void *notice_arg;
	sqlite3_stmt *get_trace; /* store_analysis_get_trace's statement, kept for its next call */
	/* the chunk decoder of this connection's cursors, made at the first (its zstd context is
	 * costly to make per trace; a store is used by one thread at a time, and decoding
	 * keeps nothing in it between chunks) */
	struct chunk_dec *chunk_dec;
	struct sync_codec *sync_codec; /* the same for the sync chunks (sync_codec.h) */
	int chunks_lza3_only; /* read-only, schema before STORE_SCHEMA_CODEC: no chunks.codec */
};

/* Says msg through the store's notice function (stderr unless changed). */
void store_notice(store *s, const char *msg);
/* The CREATE TABLE text of main.name turned into CREATE TEMP TABLE, or NULL (caller frees). */
char *store_temp_ddl(store *s, const char *name, dt_err *e);
/* Creates TEMP tables that shadow main's tables names[0..n), copying main's rows when copy. */
int store_shadow(store *s, const char *const *names, size_t n, int copy, dt_err *e);
/* Drops the TEMP shadows of names[0..n). */
void store_unshadow(store *s, const char *const *names, size_t n);
/* Forgets the loaded function names, so they are read again. */
void store_fnames_reset(store *s);

/* The columns of a trace's row, in the order store_trace_from_row reads them (columns 0..19). */
#define TRACE_COLS                                                                        \
	"id, run_id, proc, thread, pid, tid, rank, host, source, note, nevents, ncalls, "  \
	"maxdepth, flags, has_time, first_ts, last_ts, bytes, nargs, ngaps"
void store_trace_from_row(sqlite3_stmt *st, store_trace *t);
/* A row of sync_events (of a store before the sync chunks) into v (store_sync.c); the columns
 * seq, phase, func, ts, comm, dest, stag, src, rtag, root, count, datatype, op, req, obj,
 * objseq, team, tnum, csize in that order. proc, thread, host and site are not set. */
/* Whether the store has table name (*ok 0 when that cannot be read; store_sync.c). */
int store_has_table(store *s, const char *name, int *ok);
struct dt_sync_event;
void store_sync_row(sqlite3_stmt *sy, struct dt_sync_event *v);

/* Fills e with the SQLite error of db and returns -1. */
int store_sqlerr(store *s, dt_err *e, const char *what);
int store_prepare(store *s, const char *sql, sqlite3_stmt **st, dt_err *e);
int store_exec(store *s, const char *sql, dt_err *e);
/* Creates or migrates the schema to the current version; sets the application id when it is
 * missing (a store made before the id existed). */
int store_schema_migrate(store *s, dt_err *e);
/* The oldest schema version a read-only store is read in without migrating it: the later
 * migrations only add tables that every reader does without (store_srclines_load). */
#define STORE_SCHEMA_READ_MIN 6
/* The schema version that gave chunks their codec column (store/chunk_codec.h); before it every
 * chunk's events blob is an lza3 stream. */
#define STORE_SCHEMA_CODEC 10
/* The schema version this difftrace writes. */
int store_schema_current(void);
/* Remembers a newly interned function so that store_func_name sees it. */
void store_fnames_add(store *s, uint32_t id, const char *name, size_t len);

/* Chunk blob of argument texts: records of (uvar event offset in chunk, byte kind, uvar len,
 * bytes). Parsed by store_read.c, written by store_write.c. */

#endif
