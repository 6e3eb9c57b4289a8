/* store.h: the SQLite store, the only module that talks to SQLite.
 *
 * One file holds runs, their traces, the functions (interned once per store, so a name has the
 * same id in every run) and the event streams, compressed in chunks (see store_write.c). Every
 * import is one transaction: a failure or an interrupt leaves the store as it was. */
#ifndef DT_STORE_H
#define DT_STORE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"
#include "import/sink.h"

#define STORE_DEFAULT_PATH "difftrace.db"
/* Events per chunk: small enough that a reader holds little (1 MiB of ids), large enough that
 * the codec's per-chunk reset and the row overhead do not show. */
#define STORE_CHUNK_EVENTS (1u << 18)

typedef struct store store;

/* EXISTING: a store that must exist, opened for writing when the file and its folder can be
 * written, else read-only. CREATE: created when missing; must be writable. READ: read-only. */
enum { STORE_OPEN_EXISTING = 0, STORE_OPEN_CREATE = 1, STORE_OPEN_READ = 2 };

/* PRAGMA application_id of a difftrace store ("DfTr"): a non-empty SQLite file without it (and
 * without difftrace's tables) belongs to another program and is refused. */
#define STORE_APPLICATION_ID 0x44665472

/* Opens (or with STORE_OPEN_CREATE creates) the store and, when writable, migrates its schema.
 * A writer that finds the store locked by another waits as long as needed, saying so once. */
int store_open(const char *path, int mode, store **out, dt_err *e);
void store_close(store *s);
const char *store_path(const store *s);
/* 1 when the store was opened read-only. */
int store_readonly(const store *s);
/* Where the store's notices go ("waiting for the store", "not saved"): fn(arg, msg); by default
 * stderr, none when fn is NULL (the interface). */
void store_set_notice(store *s, void (*fn)(void *, const char *), void *arg);
/* The next wait for the write lock is said again (a connection says it once otherwise). */
void store_wait_rearm(store *s);
/* A flag polled while waiting for the write lock: once non-zero the wait gives up. */
void store_set_cancel(store *s, volatile sig_atomic_t *cancel);
/* Read-only store: makes the analysis cache writable in memory (TEMP tables seeded with the
 * store's), saying once that results are not saved. No-op on a writable store. */
int store_cache_writable(store *s, dt_err *e);

int store_begin(store *s, dt_err *e);
int store_commit(store *s, dt_err *e);
void store_rollback(store *s);
/* Opens a read transaction when none is open, so that many reads in a row take the file's lock
 * once: 1 when it opened one (end it with store_read_end), 0 when one was already open, -1 on
 * error. */
int store_read_begin(store *s, dt_err *e);
/* Ends the read transaction store_read_begin opened (began 1); nothing when began is 0. */
void store_read_end(store *s, int began);

typedef struct store_run {
	int64_t id;
	char *name, *label, *format, *source, *created;
	int64_t ntraces, nevents, bytes;
	unsigned flags; /* union of the traces' flags */
} store_run;

void store_run_free(store_run *r);
void store_runs_free(store_run *r, size_t n);
int store_run_list(store *s, store_run **runs, size_t *n, dt_err *e);
/* The same without each run's bytes (0): no pass over every trace. */
int store_run_list_lite(store *s, store_run **runs, size_t *n, dt_err *e);
/* 0 and *r filled when found; -1 with a "no run named" error otherwise. */
int store_run_get(store *s, const char *name, store_run *r, dt_err *e);
/* The same without the sum of the traces' bytes (r->bytes 0), which reads every trace's row:
 * for what needs only the run's id and counts. */
int store_run_get_lite(store *s, const char *name, store_run *r, dt_err *e);
int store_run_exists(store *s, const char *name, dt_err *e); /* 1, 0, or -1 */
int store_run_create(store *s, const char *name, const char *label, const char *format,
		     const char *source, int64_t *id, dt_err *e);
int store_run_delete(store *s, const char *name, dt_err *e);
/* A run name that is not taken yet: base, base-2, base-3 ... (caller frees). */
char *store_run_fresh_name(store *s, const char *base, dt_err *e);

typedef struct store_trace {
	int64_t id, run_id;
	int proc, thread;
	int64_t pid, tid, rank;
	char *host, *source, *note;
	uint64_t nevents, ncalls;
	int maxdepth;
	unsigned flags;
	int has_time;
	uint64_t first_ts, last_ts;
	int64_t bytes; /* compressed bytes stored (events + times + args) */
	int64_t nargs, ngaps;
} store_trace;

void store_trace_free(store_trace *t);
void store_traces_free(store_trace *t, size_t n);
/* Traces of a run in P.T order. */
int store_trace_list(store *s, int64_t run_id, store_trace **t, size_t *n, dt_err *e);
/* The same, for the run named run (an unknown name is an error). */
int store_run_trace_list(store *s, const char *run, store_trace **t, size_t *n, dt_err *e);
int store_trace_get(store *s, int64_t run_id, int proc, int thread, store_trace *t, dt_err *e);

/* Function names. The table is loaded once and kept; ids are dense from 1. A name missing
 * from it is read again when another connection has written since (a function made by the
 * interface's background analysis, or by an import beside it); "?" when there is none. */
const char *store_func_name(store *s, uint32_t id);
/* The names by id, names[id] (NULL where no function has that id), for ids < *n, read again
 * as store_func_name does. The array belongs to the store and is valid until the next import
 * (a later, longer array does not free it). */
const char *const *store_func_names(store *s, size_t *n);

/* ---- writing an import ----
 * An import is staged: store_import_begin makes TEMP tables shadow the run's tables (runs,
 * traces, functions, chunks, gaps and any table keyed by trace_id), the writer fills them
 * without holding the store's write lock, and store_import_publish copies them into the store
 * in one short transaction. Until then, and after store_import_abort, the store is unchanged. */
int store_import_begin(store *s, dt_err *e);
/* Publishes the staged run. When a run named like it was added meanwhile, rename_ok picks a
 * fresh name (name-2 ...), else it fails. *final_name (caller frees) is the name it got. */
int store_import_publish(store *s, int rename_ok, char **final_name, dt_err *e);
void store_import_abort(store *s);

typedef struct store_writer store_writer;

/* A writer adds traces to run_id; the caller holds the transaction. cancel, when not NULL, is
 * polled: once it is non-zero every sink call fails with "interrupted". */
store_writer *store_writer_new(store *s, int64_t run_id, volatile sig_atomic_t *cancel);
dt_sink *store_writer_sink(store_writer *w);
/* Numbers processes and threads (P.T) and totals the run. Call once after the importers. */
int store_writer_finish(store_writer *w, dt_err *e);
void store_writer_free(store_writer *w);
/* What the writer has seen so far, for progress display. */
uint64_t store_writer_events(const store_writer *w);
size_t store_writer_traces(const store_writer *w);
void store_writer_on_progress(store_writer *w, void (*fn)(void *, const store_writer *), void *arg);

/* ---- reading events ---- */
typedef struct store_cursor store_cursor;

/* A cursor over one trace's events from event number `from`. */
int store_cursor_open(store *s, const store_trace *t, uint64_t from, store_cursor **c, dt_err *e);
/* Up to max events (ts may be NULL); returns the count, 0 at the end, -1 on error. */
int64_t store_cursor_next(store_cursor *c, uint32_t *ev, uint64_t *ts, size_t max, dt_err *e);
/* Call depth (open calls) before the first event the last store_cursor_next returned. */
int store_cursor_depth(const store_cursor *c);
/* Argument text attached to event idx of the cursor's current chunk region, or NULL.
 * Valid for events returned by the last store_cursor_next call. */
const char *store_cursor_arg(store_cursor *c, uint64_t idx, int kind);
void store_cursor_close(store_cursor *c);

/* Lost-record gaps of a trace: arrays of (event index, lost count); caller frees. */
int store_trace_gaps(store *s, int64_t trace_id, uint64_t **idx, uint64_t **lost, size_t *n,
		     dt_err *e);

#endif
