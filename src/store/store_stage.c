/* store_stage.c: TEMP tables that shadow the store's, for staged imports and read-only stores.
 *
 * SQLite resolves an unqualified table name in the TEMP schema first, so a TEMP table named
 * like one of the store's takes its place for this connection only, without a line of the
 * writer or of the analysis changing. An import writes its run into such shadows, holding no
 * lock on the store while it decodes, and publishes it in one short transaction: the store's
 * write lock is held for a copy of compressed rows, not for a decode. On a read-only store the
 * analysis cache is shadowed the same way, so analyses are computed in memory, not saved. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/chunk_codec.h"
#include "store/store_int.h"
#include "store/sync_codec.h"
#include "util/util.h"

char *store_temp_ddl(store *s, const char *name, dt_err *e)
{
	sqlite3_stmt *st;
	if (store_prepare(s, "SELECT sql FROM main.sqlite_master WHERE type = 'table' AND name = ?1",
			  &st, e))
		return NULL;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	char *out = NULL;
	if (sqlite3_step(st) == SQLITE_ROW) {
		const char *sql = (const char *)sqlite3_column_text(st, 0);
		const char *t = sql ? strstr(sql, "TABLE") : NULL;
		if (t) {
			size_t pre = (size_t)(t - sql);
			out = xmalloc(strlen(sql) + 6);
			memcpy(out, sql, pre);
			memcpy(out + pre, "TEMP ", 5);
			strcpy(out + pre + 5, t);
		}
	}
	sqlite3_finalize(st);
	if (!out)
		dt_err_at(e, s->path, -1, "the store has no table %s", name);
	return out;
}

int store_shadow(store *s, const char *const *names, size_t n, int copy, dt_err *e)
{
	for (size_t i = 0; i < n; i++) {
		char *ddl = store_temp_ddl(s, names[i], e);
		if (!ddl)
			return -1;
		int r = store_exec(s, ddl, e);
		free(ddl);
		if (r)
			return -1;
		if (copy) {
			char sql[256];
			snprintf(sql, sizeof sql, "INSERT INTO temp.%s SELECT * FROM main.%s", names[i],
				 names[i]);
			if (store_exec(s, sql, e))
				return -1;
		}
	}
	return 0;
}

void store_unshadow(store *s, const char *const *names, size_t n)
{
	for (size_t i = n; i-- > 0;) {
		char sql[128];
		snprintf(sql, sizeof sql, "DROP TABLE IF EXISTS temp.%s", names[i]);
		sqlite3_exec(s->db, sql, NULL, NULL, NULL);
	}
}

/* ---- the analysis cache of a read-only store ---- */

static const char *const cache_tables[] = {
	"functions", "loops", "analyses", "analysis_traces", "analysis_attrs", "analysis_blobs",
};

int store_cache_writable(store *s, dt_err *e)
{
	if (!s->readonly || s->shadowed)
		return 0;
	if (store_shadow(s, cache_tables, sizeof cache_tables / sizeof *cache_tables, 1, e)) {
		store_unshadow(s, cache_tables, sizeof cache_tables / sizeof *cache_tables);
		return -1;
	}
	s->shadowed = 1;
	store_notice(s, "the store is read-only: analyses it has not cached are computed in memory "
			"and not saved");
	return 0;
}

/* ---- staged imports ---- */

/* The tables an import writes: the run's own, and every table keyed by trace_id or run_id
 * outside the analysis cache (the sync events, the blame data). Filled from the store's
 * schema, so a new per-trace or per-run table is staged too. */
static int stage_tables(store *s, char ***out, size_t *n, dt_err *e)
{
	static const char *const fixed[] = { "functions", "runs", "traces" };
	char **v = xcalloc(64, sizeof *v);
	size_t m = 0;
	for (size_t i = 0; i < 3; i++)
		v[m++] = xstrdup(fixed[i]);
	sqlite3_stmt *st;
	if (store_prepare(s,
			  "SELECT m.name FROM main.sqlite_master m WHERE m.type = 'table' AND"
			  " m.name NOT LIKE 'analys%' AND m.name NOT LIKE 'sqlite%' AND"
			  " m.name NOT IN ('functions', 'runs', 'traces') AND EXISTS"
			  " (SELECT 1 FROM pragma_table_info(m.name) p"
			  "  WHERE p.name IN ('trace_id', 'run_id'))"
			  " ORDER BY m.rootpage",
			  &st, e)) {
		free(v);
		return -1;
	}
	while (sqlite3_step(st) == SQLITE_ROW && m < 64)
		v[m++] = xstrdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	*out = v;
	*n = m;
	return 0;
}

static void free_names(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static void stage_drop(store *s)
{
	char **v;
	size_t n;
	dt_err e;
	if (stage_tables(s, &v, &n, &e) == 0) {
		store_unshadow(s, (const char *const *)v, n);
		free_names(v, n);
	}
	s->staging = 0;
	store_fnames_reset(s);
}

int store_import_begin(store *s, dt_err *e)
{
	if (s->readonly)
		return dt_err_at(e, s->path, -1, "the store is read-only: cannot import");
	sqlite3_stmt *st;
	if (store_prepare(s, "SELECT coalesce(max(id), 0) FROM main.functions", &st, e))
		return -1;
	s->fbase = sqlite3_step(st) == SQLITE_ROW ? (uint32_t)sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	char **v;
	size_t n;
	if (stage_tables(s, &v, &n, e))
		return -1;
	s->staging = 1;
	/* the function table is copied: names already known keep their ids */
	int r = store_shadow(s, (const char *const *)v, n, 0, e) ||
		store_exec(s, "INSERT INTO temp.functions SELECT * FROM main.functions", e) ||
		store_exec(s, "BEGIN", e);
	free_names(v, n);
	if (r) {
		stage_drop(s);
		return -1;
	}
	return 0;
}

void store_import_abort(store *s)
{
	if (!s->staging)
		return;
	if (!sqlite3_get_autocommit(s->db))
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	stage_drop(s);
}

static int64_t one_int(store *s, const char *sql, dt_err *e, int *fail)
{
	sqlite3_stmt *st;
	if (store_prepare(s, sql, &st, e)) {
		*fail = 1;
		return 0;
	}
	int64_t v = 0;
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	else
		*fail = 1, store_sqlerr(s, e, "publishing the import");
	sqlite3_finalize(st);
	return v;
}

/* The sync chunks staged name their calls by function id: each is decoded, its ids moved by
 * map (ids past the store's base up to top), and encoded again. */
static int renumber_sync(store *s, const uint32_t *map, uint32_t top, dt_err *e)
{
	sqlite3_stmt *ch = NULL, *upd = NULL;
	if (store_prepare(s, "SELECT trace_id, seq, first, n, codec, data FROM temp.sync_chunks",
			  &ch, e) ||
	    store_prepare(s, "UPDATE temp.sync_chunks SET data = ?1, codec = ?2"
			     " WHERE trace_id = ?3 AND seq = ?4",
			  &upd, e)) {
		sqlite3_finalize(ch);
		return -1;
	}
	sync_codec *c = sync_codec_new();
	dt_sync_event *ev = xmalloc(SYNC_CHUNK_EVENTS * sizeof *ev);
	dt_buf b = { 0 };
	int r, rc = -1;
	while ((r = sqlite3_step(ch)) == SQLITE_ROW) {
		int64_t n = sqlite3_column_int64(ch, 3);
		if (n < 0 || n > SYNC_CHUNK_EVENTS) {
			dt_errf(e, DT_EDATA, "internal: a staged sync chunk of %lld events",
				(long long)n);
			goto done;
		}
		if (sync_decode(c, sqlite3_column_int(ch, 4), sqlite3_column_blob(ch, 5),
				(size_t)sqlite3_column_bytes(ch, 5), (size_t)n,
				(uint64_t)sqlite3_column_int64(ch, 2), s->path, ev, e))
			goto done;
		for (int64_t i = 0; i < n; i++)
			if (ev[i].func > s->fbase && ev[i].func <= top)
				ev[i].func = map[ev[i].func - s->fbase - 1];
		int codec = sync_encode(c, ev, (size_t)n, &b);
		sqlite3_bind_blob(upd, 1, b.p, (int)b.len, SQLITE_STATIC);
		sqlite3_bind_int(upd, 2, codec);
		sqlite3_bind_int64(upd, 3, sqlite3_column_int64(ch, 0));
		sqlite3_bind_int64(upd, 4, sqlite3_column_int64(ch, 1));
		int u = sqlite3_step(upd);
		sqlite3_reset(upd);
		if (u != SQLITE_DONE) {
			store_sqlerr(s, e, "re-numbering functions");
			goto done;
		}
	}
	if (r == SQLITE_DONE)
		rc = 0;
	else
		store_sqlerr(s, e, "re-numbering functions");
done:
	sync_codec_free(c);
	free(ev);
	buf_free(&b);
	sqlite3_finalize(ch);
	sqlite3_finalize(upd);
	return rc;
}

/* Functions the import met for the first time got ids after the store's largest. When another
 * import added functions meanwhile, those ids are taken: the new names are interned now and
 * the staged chunks re-encoded with the ids they got. */
static int publish_functions(store *s, dt_err *e)
{
	int fail = 0;
	uint32_t now = (uint32_t)one_int(s, "SELECT coalesce(max(id), 0) FROM main.functions", e,
					 &fail);
	if (fail)
		return -1;
	if (now == s->fbase)
		return store_exec(s, "INSERT INTO main.functions SELECT * FROM temp.functions"
				     " WHERE id > (SELECT coalesce(max(id), 0) FROM main.functions)",
				  e);
	uint32_t top = (uint32_t)one_int(s, "SELECT coalesce(max(id), 0) FROM temp.functions", e,
					 &fail);
	if (fail)
		return -1;
	if (top <= s->fbase)
		return 0;
	size_t nnew = top - s->fbase;
	uint32_t *map = xcalloc(nnew, sizeof *map);
	sqlite3_stmt *sel = NULL, *ins = NULL, *get = NULL, *ch = NULL, *upd = NULL;
	int rc = -1, changed = 0;
	if (store_prepare(s, "SELECT id, name FROM temp.functions WHERE id > ?1 ORDER BY id", &sel,
			  e) ||
	    store_prepare(s, "INSERT OR IGNORE INTO main.functions(name) VALUES(?1)", &ins, e) ||
	    store_prepare(s, "SELECT id FROM main.functions WHERE name = ?1", &get, e))
		goto out;
	sqlite3_bind_int64(sel, 1, s->fbase);
	while (sqlite3_step(sel) == SQLITE_ROW) {
		uint32_t id = (uint32_t)sqlite3_column_int64(sel, 0);
		const char *nm = (const char *)sqlite3_column_text(sel, 1);
		sqlite3_bind_text(ins, 1, nm, -1, SQLITE_TRANSIENT);
		int r1 = sqlite3_step(ins);
		sqlite3_reset(ins);
		sqlite3_bind_text(get, 1, nm, -1, SQLITE_TRANSIENT);
		int r2 = sqlite3_step(get);
		int64_t v = r2 == SQLITE_ROW ? sqlite3_column_int64(get, 0) : 0;
		sqlite3_reset(get);
		if (r1 != SQLITE_DONE || v <= 0 || v > (int64_t)UINT32_MAX) {
			store_sqlerr(s, e, "interning functions");
			goto out;
		}
		map[id - s->fbase - 1] = (uint32_t)v;
		changed |= (uint32_t)v != id;
	}
	if (!changed) {
		rc = 0;
		goto out;
	}
	/* sync events name their call by function id too: one UPDATE through a map table, so
	 * that an id moved onto another's old id is not moved twice */
	if (store_exec(s, "CREATE TEMP TABLE IF NOT EXISTS fmap(old INTEGER PRIMARY KEY, new INTEGER)",
		       e) ||
	    store_exec(s, "DELETE FROM temp.fmap", e) ||
	    store_prepare(s, "INSERT INTO temp.fmap(old, new) VALUES(?1, ?2)", &upd, e))
		goto out;
	for (size_t i = 0; i < nnew; i++) {
		if (!map[i] || map[i] == s->fbase + 1 + i)
			continue;
		sqlite3_bind_int64(upd, 1, (int64_t)(s->fbase + 1 + i));
		sqlite3_bind_int64(upd, 2, map[i]);
		int u = sqlite3_step(upd);
		sqlite3_reset(upd);
		if (u != SQLITE_DONE) {
			store_sqlerr(s, e, "re-numbering functions");
			goto out;
		}
	}
	sqlite3_finalize(upd);
	upd = NULL;
	if (store_exec(s, "UPDATE temp.sync_events SET func = (SELECT new FROM temp.fmap"
			  " WHERE old = func) WHERE func IN (SELECT old FROM temp.fmap)", e) ||
	    store_exec(s, "DROP TABLE temp.fmap", e))
		goto out;
	if (store_prepare(s, "SELECT id, events, codec, n, first FROM temp.chunks", &ch, e) ||
	    store_prepare(s, "UPDATE temp.chunks SET events = ?1, codec = ?2 WHERE id = ?3", &upd,
			  e))
		goto out;
	chunk_enc *enc = chunk_enc_new();
	chunk_dec *dec = chunk_dec_new();
	dt_buf b = { 0 };
	int r;
	while ((r = sqlite3_step(ch)) == SQLITE_ROW) {
		uint32_t *ev;
		size_t nev;
		const uint8_t *blob = sqlite3_column_blob(ch, 1);
		if (chunk_decode(dec, sqlite3_column_int(ch, 2), blob,
				 (size_t)sqlite3_column_bytes(ch, 1),
				 (uint64_t)sqlite3_column_int64(ch, 3),
				 (uint64_t)sqlite3_column_int64(ch, 4), s->path, &ev, &nev, e))
			break;
		for (size_t i = 0; i < nev; i++)
			if (ev[i] > s->fbase && ev[i] <= top)
				ev[i] = map[ev[i] - s->fbase - 1];
		int codec = chunk_encode(enc, ev, nev, &b);
		free(ev);
		sqlite3_bind_blob(upd, 1, b.p, (int)b.len, SQLITE_STATIC);
		sqlite3_bind_int(upd, 2, codec);
		sqlite3_bind_int64(upd, 3, sqlite3_column_int64(ch, 0));
		int u = sqlite3_step(upd);
		sqlite3_reset(upd);
		if (u != SQLITE_DONE) {
			store_sqlerr(s, e, "re-numbering functions");
			break;
		}
	}
	chunk_enc_free(enc);
	chunk_dec_free(dec);
	buf_free(&b);
	if (r == SQLITE_DONE)
		rc = renumber_sync(s, map, top, e);
	else if (!e->status)
		store_sqlerr(s, e, "re-numbering functions");
out:
	sqlite3_finalize(sel);
	sqlite3_finalize(ins);
	sqlite3_finalize(get);
	sqlite3_finalize(ch);
	sqlite3_finalize(upd);
	free(map);
	return rc;
}

/* INSERT INTO main.T SELECT ... FROM temp.T with ids moved: run_id to the published run,
 * trace ids past the store's, and a table's own integer key left for SQLite to assign. */
static int copy_table(store *s, const char *t, int64_t run_id, int64_t toff, dt_err *e)
{
	sqlite3_stmt *st;
	char q[160];
	/* a table's own key is left for SQLite to assign only when it is the rowid (the one
	 * INTEGER PRIMARY KEY of a rowid table); keys of WITHOUT ROWID tables are the data's */
	snprintf(q, sizeof q, "SELECT count(*) FROM pragma_table_info('%s', 'main') WHERE pk > 0",
		 t);
	int fail = 0, npk = (int)one_int(s, q, e, &fail);
	if (fail)
		return -1;
	snprintf(q, sizeof q, "SELECT sql LIKE '%%WITHOUT ROWID%%' FROM main.sqlite_master"
		 " WHERE type = 'table' AND name = '%s'", t);
	int norowid = (int)one_int(s, q, e, &fail);
	if (fail)
		return -1;
	snprintf(q, sizeof q, "SELECT name, pk, type FROM pragma_table_info('%s', 'main')", t);
	if (store_prepare(s, q, &st, e))
		return -1;
	dt_buf cols = { 0 }, vals = { 0 };
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *c = (const char *)sqlite3_column_text(st, 0);
		int pk = sqlite3_column_int(st, 1);
		const char *type = (const char *)sqlite3_column_text(st, 2);
		char expr[128];
		if (!strcmp(c, "id") && !strcmp(t, "traces"))
			snprintf(expr, sizeof expr, "id + %lld", (long long)toff);
		else if (!strcmp(c, "id") && pk && npk == 1 && !norowid && type &&
			 !strcmp(type, "INTEGER"))
			continue; /* a rowid: assigned on insert */
		else if (!strcmp(c, "run_id"))
			snprintf(expr, sizeof expr, "%lld", (long long)run_id);
		else if (!strcmp(c, "trace_id"))
			snprintf(expr, sizeof expr, "trace_id + %lld", (long long)toff);
		else
			snprintf(expr, sizeof expr, "\"%s\"", c);
		if (cols.len) {
			buf_byte(&cols, ',');
			buf_byte(&vals, ',');
		}
		buf_put(&cols, "\"", 1);
		buf_put(&cols, c, strlen(c));
		buf_put(&cols, "\"", 1);
		buf_put(&vals, expr, strlen(expr));
	}
	sqlite3_finalize(st);
	buf_byte(&cols, 0);
	buf_byte(&vals, 0);
	/* rows keep their order, so that keys SQLite assigns follow it; a WITHOUT ROWID table
	 * (the sync events) is ordered by its own key and has no rowid to order by */
	size_t len = cols.len + vals.len + 2 * strlen(t) + 64;
	char *sql = xmalloc(len);
	snprintf(sql, len, "INSERT INTO main.%s(%s) SELECT %s FROM temp.%s%s", t, (char *)cols.p,
		 (char *)vals.p, t, norowid ? "" : " ORDER BY rowid");
	int r = store_exec(s, sql, e);
	free(sql);
	buf_free(&cols);
	buf_free(&vals);
	return r;
}

int store_import_publish(store *s, int rename_ok, char **final_name, dt_err *e)
{
	*final_name = NULL;
	if (!s->staging)
		return dt_errf(e, DT_EDATA, "internal: no import staged");
	/* the staged rows are complete: commit them to TEMP, then publish under the lock */
	if (store_exec(s, "COMMIT", e) || store_exec(s, "BEGIN IMMEDIATE", e))
		return -1;
	char **v = NULL;
	size_t n = 0;
	int fail = 0;
	sqlite3_stmt *st = NULL;
	char *name = NULL;
	if (publish_functions(s, e) || stage_tables(s, &v, &n, e))
		goto fail;
	if (store_prepare(s, "SELECT name FROM temp.runs", &st, e))
		goto fail;
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		dt_errf(e, DT_EDATA, "internal: no run staged");
		goto fail;
	}
	name = xstrdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	/* a run of that name may have been published while this one was staged */
	if (store_prepare(s, "SELECT 1 FROM main.runs WHERE name = ?1", &st, e))
		goto fail;
	char base[200];
	snprintf(base, sizeof base, "%s", name);
	for (int k = 2;; k++) {
		sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
		int taken = sqlite3_step(st) == SQLITE_ROW;
		sqlite3_reset(st);
		if (!taken)
			break;
		if (!rename_ok) {
			sqlite3_finalize(st);
			dt_errf(e, DT_EDATA, "a run named '%s' was added to %s during this import",
				name, s->path);
			goto fail;
		}
		free(name);
		name = xmalloc(strlen(base) + 16);
		sprintf(name, "%s-%d", base, k);
	}
	sqlite3_finalize(st);
	if (store_prepare(s, "UPDATE temp.runs SET name = ?1", &st, e))
		goto fail;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
	int u = sqlite3_step(st);
	sqlite3_finalize(st);
	if (u != SQLITE_DONE) {
		store_sqlerr(s, e, "publishing the import");
		goto fail;
	}
	if (copy_table(s, "runs", 0, 0, e))
		goto fail;
	int64_t run_id = sqlite3_last_insert_rowid(s->db);
	int64_t toff = one_int(s, "SELECT coalesce(max(id), 0) FROM main.traces", e, &fail);
	if (fail || copy_table(s, "traces", run_id, toff, e))
		goto fail;
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], "functions") && strcmp(v[i], "runs") && strcmp(v[i], "traces") &&
		    copy_table(s, v[i], run_id, toff, e))
			goto fail;
	if (store_exec(s, "COMMIT", e))
		goto fail;
	free_names(v, n);
	stage_drop(s);
	*final_name = name;
	return 0;
fail:
	free_names(v, n);
	free(name);
	store_import_abort(s);
	return -1;
}
