/* store_schema.c: the store's schema and its forward migrations.
 *
 * PRAGMA user_version holds the schema version. Each entry of `migrations` takes the schema from
 * version i to i+1; a new store runs them all. Never edit a released migration: add one. */
#include <stdio.h>

#include "store/store_int.h"

static const char *const migrations[] = {
	/* 0 -> 1: runs, traces, functions, chunked event streams, lost-record gaps. */
	"CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
	"CREATE TABLE runs("
	"  id INTEGER PRIMARY KEY,"
	"  name TEXT NOT NULL UNIQUE,"
	"  label TEXT NOT NULL DEFAULT '',"
	"  format TEXT NOT NULL,"
	"  source TEXT NOT NULL DEFAULT '',"
	"  created TEXT NOT NULL,"
	"  ntraces INTEGER NOT NULL DEFAULT 0,"
	"  nevents INTEGER NOT NULL DEFAULT 0,"
	"  flags INTEGER NOT NULL DEFAULT 0);"
	"CREATE TABLE functions(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);"
	"CREATE TABLE traces("
	"  id INTEGER PRIMARY KEY,"
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  proc INTEGER NOT NULL, thread INTEGER NOT NULL,"
	"  pid INTEGER NOT NULL, tid INTEGER NOT NULL, rank INTEGER NOT NULL DEFAULT -1,"
	"  is_main INTEGER NOT NULL DEFAULT 0,"
	"  host TEXT NOT NULL DEFAULT '', source TEXT NOT NULL DEFAULT '',"
	"  nevents INTEGER NOT NULL DEFAULT 0, ncalls INTEGER NOT NULL DEFAULT 0,"
	"  maxdepth INTEGER NOT NULL DEFAULT 0, flags INTEGER NOT NULL DEFAULT 0,"
	"  note TEXT NOT NULL DEFAULT '', has_time INTEGER NOT NULL DEFAULT 0,"
	"  first_ts INTEGER NOT NULL DEFAULT 0, last_ts INTEGER NOT NULL DEFAULT 0,"
	"  bytes INTEGER NOT NULL DEFAULT 0, nargs INTEGER NOT NULL DEFAULT 0,"
	"  ngaps INTEGER NOT NULL DEFAULT 0,"
	"  UNIQUE(run_id, proc, thread));"
	/* A chunk is an independent codec stream of up to STORE_CHUNK_EVENTS events; `depth` is
	 * the call depth before its first event, so a reader can start anywhere. */
	"CREATE TABLE chunks("
	"  id INTEGER PRIMARY KEY,"
	"  trace_id INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,"
	"  seq INTEGER NOT NULL, first INTEGER NOT NULL, n INTEGER NOT NULL,"
	"  depth INTEGER NOT NULL, events BLOB NOT NULL, times BLOB, args BLOB,"
	"  UNIQUE(trace_id, seq));"
	"CREATE TABLE gaps("
	"  trace_id INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,"
	"  event INTEGER NOT NULL, lost INTEGER NOT NULL);"
	"CREATE INDEX gaps_trace ON gaps(trace_id, event);"
	"CREATE INDEX traces_run ON traces(run_id, proc, thread);",

	/* 1 -> 2: the analysis cache and the store-wide loop table. A loop body's id is the same
	 * in every trace and run, so loops are one table for the whole store. An analysis is one
	 * run under one (filter, attribute mode, K, code version); its per-trace results (the NLR
	 * entries, the attribute ids) are rows, everything else a named blob. */
	"CREATE TABLE loops(id INTEGER PRIMARY KEY, body BLOB NOT NULL UNIQUE);"
	"CREATE TABLE analyses("
	"  id INTEGER PRIMARY KEY,"
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  filter TEXT NOT NULL, attrs TEXT NOT NULL, k INTEGER NOT NULL,"
	"  version TEXT NOT NULL, created TEXT NOT NULL,"
	"  ntraces INTEGER NOT NULL DEFAULT 0, nattrs INTEGER NOT NULL DEFAULT 0,"
	"  nclasses INTEGER NOT NULL DEFAULT 0,"
	"  UNIQUE(run_id, filter, attrs, k));"
	"CREATE TABLE analysis_traces("
	"  analysis_id INTEGER NOT NULL REFERENCES analyses(id) ON DELETE CASCADE,"
	"  obj INTEGER NOT NULL,"
	"  trace_id INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,"
	"  nfiltered INTEGER NOT NULL, nlr BLOB NOT NULL, attrs BLOB NOT NULL,"
	"  PRIMARY KEY(analysis_id, obj)) WITHOUT ROWID;"
	"CREATE TABLE analysis_attrs("
	"  analysis_id INTEGER NOT NULL REFERENCES analyses(id) ON DELETE CASCADE,"
	"  id INTEGER NOT NULL, name TEXT NOT NULL,"
	"  PRIMARY KEY(analysis_id, id)) WITHOUT ROWID;"
	"CREATE TABLE analysis_blobs("
	"  analysis_id INTEGER NOT NULL REFERENCES analyses(id) ON DELETE CASCADE,"
	"  key TEXT NOT NULL, value BLOB NOT NULL,"
	"  PRIMARY KEY(analysis_id, key));",

	/* 2 -> 3: the sync events of a trace (entries and exits of MPI and OpenMP calls, as
	 * import/sync_event.h has them; proc, thread and host come from the trace), and the
	 * clock readings that put a trace's monotonic times on the wall clock. Few per trace
	 * next to the call stream, and read whole by the order stage: one row each. */
	"CREATE TABLE sync_events("
	"  trace_id INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,"
	"  seq INTEGER NOT NULL, phase INTEGER NOT NULL, func INTEGER NOT NULL,"
	"  ts INTEGER NOT NULL, comm INTEGER NOT NULL, dest INTEGER NOT NULL,"
	"  stag INTEGER NOT NULL, src INTEGER NOT NULL, rtag INTEGER NOT NULL,"
	"  root INTEGER NOT NULL, count INTEGER NOT NULL, datatype INTEGER NOT NULL,"
	"  op INTEGER NOT NULL, req INTEGER NOT NULL, obj INTEGER NOT NULL,"
	"  objseq INTEGER NOT NULL, team INTEGER NOT NULL, tnum INTEGER NOT NULL,"
	"  csize INTEGER NOT NULL DEFAULT 0,"
	"  PRIMARY KEY(trace_id, seq)) WITHOUT ROWID;"
	"CREATE TABLE sync_clocks("
	"  trace_id INTEGER PRIMARY KEY REFERENCES traces(id) ON DELETE CASCADE,"
	"  clock INTEGER NOT NULL, mono INTEGER NOT NULL, real INTEGER NOT NULL);",

	/* 3 -> 4: the blame data of a run (import/blame_data.h): per process what its sample
	 * record lacked, the symbolized locations, the call paths (int32 location ids,
	 * innermost first, little-endian), the memory containers, and the samples grouped by
	 * thread, call path, MPI call and the containers of its buffers. */
	"CREATE TABLE IF NOT EXISTS blame_procs("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  rank INTEGER NOT NULL, pid INTEGER NOT NULL, flags INTEGER NOT NULL,"
	"  source INTEGER NOT NULL, period INTEGER NOT NULL, event TEXT NOT NULL,"
	"  exe TEXT NOT NULL);"
	"CREATE TABLE IF NOT EXISTS blame_locs("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  id INTEGER NOT NULL, func TEXT NOT NULL, file TEXT NOT NULL, line INTEGER NOT NULL,"
	"  module TEXT NOT NULL, in_main INTEGER NOT NULL,"
	"  PRIMARY KEY(run_id, id)) WITHOUT ROWID;"
	"CREATE TABLE IF NOT EXISTS blame_paths("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  id INTEGER NOT NULL, locs BLOB NOT NULL,"
	"  PRIMARY KEY(run_id, id)) WITHOUT ROWID;"
	"CREATE TABLE IF NOT EXISTS blame_containers("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  id INTEGER NOT NULL, rank INTEGER NOT NULL, pid INTEGER NOT NULL,"
	"  kind INTEGER NOT NULL, addr INTEGER NOT NULL, size INTEGER NOT NULL,"
	"  t_alloc INTEGER NOT NULL, t_free INTEGER NOT NULL, name TEXT, type TEXT,"
	"  site INTEGER NOT NULL, prev INTEGER NOT NULL, alloc_call INTEGER NOT NULL,"
	"  PRIMARY KEY(run_id, id)) WITHOUT ROWID;"
	"CREATE TABLE IF NOT EXISTS blame_samples("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  rank INTEGER NOT NULL, pid INTEGER NOT NULL, tid INTEGER NOT NULL,"
	"  path INTEGER NOT NULL, call INTEGER NOT NULL, c0 INTEGER NOT NULL,"
	"  c1 INTEGER NOT NULL, nrec INTEGER NOT NULL, weight INTEGER NOT NULL,"
	"  cost INTEGER NOT NULL, bytes INTEGER NOT NULL);"
	"CREATE INDEX IF NOT EXISTS blame_samples_run ON blame_samples(run_id);"
	"CREATE INDEX IF NOT EXISTS blame_procs_run ON blame_procs(run_id);",

	/* 4 -> 5: the static data flow of the program's C functions (blame/index.h), written by
	 * `blame-index`: per source file (of one run, or of the whole store when run_id is NULL)
	 * its functions; per function its variables (id: their order in the function), the
	 * explicit and implicit relations dst <- src between them, its call sites and their
	 * arguments (the variables each mentions), and the map from a source line to the
	 * variables written there. Re-indexing a file replaces its rows. */
	"CREATE TABLE IF NOT EXISTS bindex_files("
	"  id INTEGER PRIMARY KEY,"
	"  run_id INTEGER REFERENCES runs(id) ON DELETE CASCADE,"
	"  path TEXT NOT NULL, directory TEXT NOT NULL, args TEXT NOT NULL,"
	"  lines INTEGER NOT NULL, nerrors INTEGER NOT NULL, clang TEXT NOT NULL,"
	"  created TEXT NOT NULL);"
	"CREATE INDEX IF NOT EXISTS bindex_files_path ON bindex_files(path);"
	"CREATE TABLE IF NOT EXISTS bindex_funcs("
	"  id INTEGER PRIMARY KEY,"
	"  file_id INTEGER NOT NULL REFERENCES bindex_files(id) ON DELETE CASCADE,"
	"  name TEXT NOT NULL, line INTEGER NOT NULL, end_line INTEGER NOT NULL,"
	"  flags INTEGER NOT NULL);"
	"CREATE INDEX IF NOT EXISTS bindex_funcs_name ON bindex_funcs(name);"
	"CREATE INDEX IF NOT EXISTS bindex_funcs_file ON bindex_funcs(file_id, line);"
	"CREATE TABLE IF NOT EXISTS bindex_vars("
	"  func_id INTEGER NOT NULL REFERENCES bindex_funcs(id) ON DELETE CASCADE,"
	"  id INTEGER NOT NULL, name TEXT NOT NULL, type TEXT NOT NULL, line INTEGER NOT NULL,"
	"  kind TEXT NOT NULL, exit INTEGER NOT NULL,"
	"  PRIMARY KEY(func_id, id)) WITHOUT ROWID;"
	"CREATE TABLE IF NOT EXISTS bindex_rels("
	"  func_id INTEGER NOT NULL REFERENCES bindex_funcs(id) ON DELETE CASCADE,"
	"  implicit INTEGER NOT NULL, dst INTEGER NOT NULL, src INTEGER NOT NULL,"
	"  line INTEGER NOT NULL, through INTEGER NOT NULL, role TEXT NOT NULL, field TEXT);"
	"CREATE INDEX IF NOT EXISTS bindex_rels_func ON bindex_rels(func_id, dst);"
	"CREATE TABLE IF NOT EXISTS bindex_calls("
	"  func_id INTEGER NOT NULL REFERENCES bindex_funcs(id) ON DELETE CASCADE,"
	"  id INTEGER NOT NULL, callee TEXT, via TEXT, line INTEGER NOT NULL,"
	"  col INTEGER NOT NULL, result INTEGER NOT NULL,"
	"  PRIMARY KEY(func_id, id)) WITHOUT ROWID;"
	"CREATE TABLE IF NOT EXISTS bindex_args("
	"  func_id INTEGER NOT NULL REFERENCES bindex_funcs(id) ON DELETE CASCADE,"
	"  call_id INTEGER NOT NULL, argno INTEGER NOT NULL, text TEXT NOT NULL,"
	"  out INTEGER NOT NULL, out_var INTEGER NOT NULL, out_through INTEGER NOT NULL,"
	"  PRIMARY KEY(func_id, call_id, argno)) WITHOUT ROWID;"
	"CREATE TABLE IF NOT EXISTS bindex_argvars("
	"  func_id INTEGER NOT NULL REFERENCES bindex_funcs(id) ON DELETE CASCADE,"
	"  call_id INTEGER NOT NULL, argno INTEGER NOT NULL, var INTEGER NOT NULL,"
	"  PRIMARY KEY(func_id, call_id, argno, var)) WITHOUT ROWID;"
	"CREATE TABLE IF NOT EXISTS bindex_lines("
	"  func_id INTEGER NOT NULL REFERENCES bindex_funcs(id) ON DELETE CASCADE,"
	"  line INTEGER NOT NULL, var INTEGER NOT NULL, how TEXT NOT NULL,"
	"  PRIMARY KEY(func_id, line, var, how)) WITHOUT ROWID;",

	/* 5 -> 6: the scan of a sample (import/blame_data.h): the containers its frames' words
	 * point into, as (level, container) int32 pairs, little-endian, by level (2 x frame,
	 * + 1 for the frame's stack words); samples imported before have none (-1). */
	"CREATE TABLE IF NOT EXISTS blame_scans("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  id INTEGER NOT NULL, refs BLOB NOT NULL,"
	"  PRIMARY KEY(run_id, id)) WITHOUT ROWID;"
	"ALTER TABLE blame_samples ADD COLUMN scan INTEGER NOT NULL DEFAULT -1;",

	/* 6 -> 7: source lines of a run's functions, from the debug information (DWARF) of the
	 * binaries the recording names: where each function is defined (file, line >= 1). Keyed
	 * by the function's name, not its id, so that the ids an import publish renumbers need no
	 * update. A row with func '' names a program without lines, said once per run: line 0,
	 * it has no debug information (built without -g); 1, it could not be read at import;
	 * 2, the file there was another build than the one recorded.
	 * A store without this table has no lines. */
	"CREATE TABLE IF NOT EXISTS srclines("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  func TEXT NOT NULL, file TEXT NOT NULL, line INTEGER NOT NULL,"
	"  PRIMARY KEY(run_id, func, file)) WITHOUT ROWID;",

	/* 7 -> 8: a location may be an inlined level (import/blame_data.h, dt_bloc.inl): a
	 * function the compiler inlined into the next location of its paths, in the same real
	 * frame. Locations imported before are all real frames (0). A store of schema 6 or 7
	 * opened read-only has no column: its locations read as real frames. */
	"ALTER TABLE blame_locs ADD COLUMN inl INTEGER NOT NULL DEFAULT 0;",

	/* 8 -> 9: the ranking of a faulty run's analysis against a normal run's, as `rank` and
	 * the interface show it (analysis/rankcache.h), kept so that they need not load the two
	 * analyses and compare them again. Keyed by the two analyses and what else decides the
	 * result (the linkage, the ranking code's version); gone with either analysis, so that an
	 * analysis replaced or re-run (a new row, whatever its id) never finds an old ranking. */
	"CREATE TABLE IF NOT EXISTS rank_cache("
	"  normal INTEGER NOT NULL REFERENCES analyses(id) ON DELETE CASCADE,"
	"  faulty INTEGER NOT NULL REFERENCES analyses(id) ON DELETE CASCADE,"
	"  opts TEXT NOT NULL, value BLOB NOT NULL,"
	"  PRIMARY KEY(normal, faulty, opts)) WITHOUT ROWID;"
	"CREATE INDEX IF NOT EXISTS rank_cache_faulty ON rank_cache(faulty);",

	/* 9 -> 10: how a chunk's events blob is encoded (store/chunk_codec.h): 0, an lza3 stream,
	 * as every chunk written before; 1, that stream in a zstd frame. A store of schema 6 to 9
	 * opened read-only has no column: its chunks read as lza3 (store_cursor_open). */
	"ALTER TABLE chunks ADD COLUMN codec INTEGER NOT NULL DEFAULT 0;",

	/* 10 -> 11: the sync events of a trace in chunks, column by column (store/sync_codec.h):
	 * a row of 20 columns an event took 53 bytes and most of an import's time. `first` is the
	 * number of the chunk's first event in the trace's stream. Rows of sync_events written
	 * before stay, and are read for a trace that has no chunks (store_sync_list). */
	"CREATE TABLE IF NOT EXISTS sync_chunks("
	"  trace_id INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,"
	"  seq INTEGER NOT NULL, first INTEGER NOT NULL, n INTEGER NOT NULL,"
	"  codec INTEGER NOT NULL, data BLOB NOT NULL,"
	"  PRIMARY KEY(trace_id, seq)) WITHOUT ROWID;",

	/* 11 -> 12: where the program made each sync call (dt_sync_event.site, the chunks of
	 * codec 2): the file and line of the call and the function it is in, from the debug
	 * information; line 0, a binary without it: file is the binary, func "symbol+0xoff".
	 * Runs imported before have no sites, nor has a store of schema 11 opened read-only. */
	"CREATE TABLE IF NOT EXISTS sync_sites("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  id INTEGER NOT NULL, file TEXT NOT NULL, line INTEGER NOT NULL, func TEXT NOT NULL,"
	"  PRIMARY KEY(run_id, id)) WITHOUT ROWID;",

	/* 12 -> 13: the variables of the program's sampled functions that have no stack location
	 * at the sampled code (an optimized build: a location list that does not cover it, a
	 * register), once per function and variable (import/blame_data.h, dt_blost), so that
	 * blame says them per function. Runs imported before have none, nor has a store of
	 * schema 12 opened read-only (its runs keep the flag DT_BF_LOST). */
	"CREATE TABLE IF NOT EXISTS blame_lost("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  id INTEGER NOT NULL, func TEXT NOT NULL, var TEXT NOT NULL, why TEXT NOT NULL,"
	"  PRIMARY KEY(run_id, id)) WITHOUT ROWID;",
};

#define NMIGRATIONS ((int)(sizeof migrations / sizeof *migrations))

_Static_assert(NMIGRATIONS >= STORE_SCHEMA_CODEC, "the codec column is in the schema");

/* Migrations that only add a column, skipped when the column is there already: a store whose
 * version was set back without dropping the column (as tests make stores "of schema N" from a
 * current one) keeps the column and its values, which say how its chunks are encoded. */
static const struct {
	int from;
	const char *table, *column;
} added_columns[] = {
	{ STORE_SCHEMA_CODEC - 1, "chunks", "codec" },
};

static int has_column(store *s, int from, dt_err *e, int *has)
{
	*has = 0;
	for (size_t i = 0; i < sizeof added_columns / sizeof *added_columns; i++) {
		if (added_columns[i].from != from)
			continue;
		sqlite3_stmt *st;
		char sql[160];
		snprintf(sql, sizeof sql,
			 "SELECT count(*) FROM pragma_table_info('%s') WHERE name = '%s'",
			 added_columns[i].table, added_columns[i].column);
		if (store_prepare(s, sql, &st, e))
			return -1;
		*has = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) > 0;
		sqlite3_finalize(st);
	}
	return 0;
}

int store_schema_current(void)
{
	return NMIGRATIONS;
}

int store_schema_migrate(store *s, dt_err *e)
{
	sqlite3_stmt *st;
	if (store_prepare(s, "PRAGMA user_version", &st, e))
		return -1;
	int version = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
	sqlite3_finalize(st);
	if (version > NMIGRATIONS)
		return dt_err_at(e, s->path, -1,
				 "store schema version %d is newer than this difftrace knows (%d): "
				 "upgrade difftrace",
				 version, NMIGRATIONS);
	if (store_prepare(s, "PRAGMA application_id", &st, e))
		return -1;
	int appid = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
	sqlite3_finalize(st);
	if (version == NMIGRATIONS && appid == STORE_APPLICATION_ID)
		return 0;
	if (store_exec(s, "BEGIN IMMEDIATE", e))
		return -1;
	/* again under the lock: another difftrace may have created the store meanwhile */
	if (store_prepare(s, "PRAGMA user_version", &st, e))
		goto fail;
	version = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
	sqlite3_finalize(st);
	/* the marker that tells a store from another program's database (store_open) */
	if (appid != STORE_APPLICATION_ID) {
		char sql[64];
		snprintf(sql, sizeof sql, "PRAGMA application_id = %d", STORE_APPLICATION_ID);
		if (store_exec(s, sql, e))
			goto fail;
	}
	for (int v = version; v < NMIGRATIONS; v++) {
		char sql[64];
		int has;
		if (has_column(s, v, e, &has) || (!has && store_exec(s, migrations[v], e)))
			goto fail;
		snprintf(sql, sizeof sql, "PRAGMA user_version = %d", v + 1);
		if (store_exec(s, sql, e))
			goto fail;
	}
	if (store_exec(s, "COMMIT", e))
		goto fail;
	return 0;
fail:
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}
