/* store_analysis.c: reading and writing the analysis cache and the loop table. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store/store_analysis.h"
#include "store/store_int.h"

void nlr_blob_encode(const nlr_entry *v, size_t n, dt_buf *out)
{
	for (size_t i = 0; i < n; i++) {
		buf_uvar(out, v[i].sym);
		buf_uvar(out, v[i].count);
	}
}

int nlr_blob_decode(const uint8_t *p, size_t len, nlr_entry **out, size_t *nout)
{
	nlr_entry *v = NULL;
	size_t n = 0, cap = 0, pos = 0;
	while (pos < len) {
		uint64_t a, b;
		if (uvar_get(p, len, &pos, &a) || uvar_get(p, len, &pos, &b) || a > UINT32_MAX ||
		    b > UINT32_MAX) {
			free(v);
			return -1;
		}
		GROW(v, cap, n + 1);
		v[n++] = (nlr_entry){ (uint32_t)a, (uint32_t)b };
	}
	*out = v;
	*nout = n;
	return 0;
}

/* An attribute-id blob (LEB128 ids) into a new array; -1 when it is damaged. */
static int ids_decode(const uint8_t *p, size_t len, uint32_t **out, size_t *nout)
{
	size_t pos = 0, cap = 0, n = 0;
	uint32_t *v = NULL;
	uint64_t x;
	while (pos < len) {
		if (uvar_get(p, len, &pos, &x) || x > UINT32_MAX) {
			free(v);
			return -1;
		}
		GROW(v, cap, n + 1);
		v[n++] = (uint32_t)x;
	}
	*out = v;
	*nout = n;
	return 0;
}

static char *col_str(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	return xstrdup(t ? (const char *)t : "");
}

void store_analysis_free(store_analysis *a)
{
	free(a->filter);
	free(a->attrs);
	free(a->version);
	free(a->created);
	memset(a, 0, sizeof *a);
}

void store_analyses_free(store_analysis *a, size_t n)
{
	for (size_t i = 0; i < n; i++)
		store_analysis_free(&a[i]);
	free(a);
}

#define AN_COLS "id, run_id, filter, attrs, k, version, created, ntraces, nattrs, nclasses"

static void an_from_row(sqlite3_stmt *st, store_analysis *a)
{
	a->id = sqlite3_column_int64(st, 0);
	a->run_id = sqlite3_column_int64(st, 1);
	a->filter = col_str(st, 2);
	a->attrs = col_str(st, 3);
	a->k = sqlite3_column_int(st, 4);
	a->version = col_str(st, 5);
	a->created = col_str(st, 6);
	a->ntraces = sqlite3_column_int(st, 7);
	a->nattrs = sqlite3_column_int(st, 8);
	a->nclasses = sqlite3_column_int(st, 9);
}

/* Runs a prepared one-row query; 1 with *a filled, 0 for no row, -1 on error. */
static int one_analysis(store *s, sqlite3_stmt *st, store_analysis *a, dt_err *e)
{
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		an_from_row(st, a);
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	return store_sqlerr(s, e, "reading analysis");
}

/* Binds the key of an analysis, (run, filter, attributes, K), to parameters 1 to 4. */
static void bind_key(sqlite3_stmt *st, int64_t run_id, const char *filter, const char *attrs,
		     int k)
{
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_text(st, 2, filter, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, attrs, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 4, k);
}

int store_analysis_find(store *s, int64_t run_id, const char *filter, const char *attrs, int k,
			store_analysis *a, dt_err *e)
{
	sqlite3_stmt *st;
	if (store_prepare(s,
			  "SELECT " AN_COLS " FROM analyses WHERE run_id = ?1 AND filter = ?2"
			  " AND attrs = ?3 AND k = ?4",
			  &st, e))
		return -1;
	bind_key(st, run_id, filter, attrs, k);
	return one_analysis(s, st, a, e);
}

int store_analysis_get(store *s, int64_t id, store_analysis *a, dt_err *e)
{
	sqlite3_stmt *st;
	if (store_prepare(s, "SELECT " AN_COLS " FROM analyses WHERE id = ?1", &st, e))
		return -1;
	sqlite3_bind_int64(st, 1, id);
	int r = one_analysis(s, st, a, e);
	if (r == 0)
		return dt_errf(e, DT_EDATA, "no analysis %lld", (long long)id);
	return r < 0 ? -1 : 0;
}

int store_analysis_list(store *s, int64_t run_id, store_analysis **out, size_t *n, dt_err *e)
{
	sqlite3_stmt *st;
	if (store_prepare(s,
			  "SELECT " AN_COLS " FROM analyses WHERE ?1 < 0 OR run_id = ?1"
			  " ORDER BY id DESC",
			  &st, e))
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	store_analysis *v = NULL;
	size_t cap = 0, len = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		GROW(v, cap, len + 1);
		an_from_row(st, &v[len++]);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		store_analyses_free(v, len);
		return store_sqlerr(s, e, "listing analyses");
	}
	*out = v;
	*n = len;
	return 0;
}

static int exec_bound(store *s, sqlite3_stmt *st, dt_err *e, const char *what)
{
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return store_sqlerr(s, e, what);
	return 0;
}

int store_analysis_create(store *s, int64_t run_id, const char *filter, const char *attrs, int k,
			  const char *version, int64_t *id, dt_err *e)
{
	sqlite3_stmt *st;
	/* The same parameters replace the old analysis; so do analyses of the same families made
	 * when their files said something else (the part of the filter key after '#' is a digest
	 * of the patterns): they can never be asked for again. */
	if (store_prepare(s,
			  "DELETE FROM analyses WHERE run_id = ?1 AND attrs = ?3 AND k = ?4 AND"
			  " (filter = ?2 OR (instr(?2, '#') > 0 AND"
			  "  (filter = substr(?2, 1, instr(?2, '#') - 1) OR"
			  "   substr(filter, 1, instr(?2, '#')) = substr(?2, 1, instr(?2, '#')))))",
			  &st, e))
		return -1;
	bind_key(st, run_id, filter, attrs, k);
	if (exec_bound(s, st, e, "replacing analysis"))
		return -1;
	char created[32];
	time_t now = time(NULL);
	struct tm tm;
	strftime(created, sizeof created, "%Y-%m-%d %H:%M:%S", localtime_r(&now, &tm));
	if (store_prepare(s,
			  "INSERT INTO analyses(run_id, filter, attrs, k, version, created)"
			  " VALUES(?1, ?2, ?3, ?4, ?5, ?6)",
			  &st, e))
		return -1;
	bind_key(st, run_id, filter, attrs, k);
	sqlite3_bind_text(st, 5, version, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 6, created, -1, SQLITE_TRANSIENT);
	if (exec_bound(s, st, e, "creating analysis"))
		return -1;
	*id = sqlite3_last_insert_rowid(s->db);
	return 0;
}

int store_analysis_set_counts(store *s, int64_t id, int ntraces, int nattrs, int nclasses,
			      dt_err *e)
{
	sqlite3_stmt *st;
	if (store_prepare(s,
			  "UPDATE analyses SET ntraces = ?2, nattrs = ?3, nclasses = ?4 WHERE id = ?1",
			  &st, e))
		return -1;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int(st, 2, ntraces);
	sqlite3_bind_int(st, 3, nattrs);
	sqlite3_bind_int(st, 4, nclasses);
	return exec_bound(s, st, e, "updating analysis");
}

int store_analysis_put_trace(store *s, int64_t id, int obj, int64_t trace_id, uint64_t nfiltered,
			     const nlr_entry *nlr, size_t nn, const uint32_t *attrs, size_t na,
			     dt_err *e)
{
	dt_buf b1 = { 0 }, b2 = { 0 };
	nlr_blob_encode(nlr, nn, &b1);
	for (size_t i = 0; i < na; i++)
		buf_uvar(&b2, attrs[i]);
	sqlite3_stmt *st;
	int r = -1;
	if (store_prepare(s,
			  "INSERT INTO analysis_traces(analysis_id, obj, trace_id, nfiltered, nlr, attrs)"
			  " VALUES(?1, ?2, ?3, ?4, ?5, ?6)",
			  &st, e) == 0) {
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int(st, 2, obj);
		sqlite3_bind_int64(st, 3, trace_id);
		sqlite3_bind_int64(st, 4, (int64_t)nfiltered);
		sqlite3_bind_blob(st, 5, b1.p ? (const void *)b1.p : "", (int)b1.len, SQLITE_STATIC);
		sqlite3_bind_blob(st, 6, b2.p ? (const void *)b2.p : "", (int)b2.len, SQLITE_STATIC);
		r = exec_bound(s, st, e, "writing analysis trace");
	}
	buf_free(&b1);
	buf_free(&b2);
	return r;
}

int store_analysis_get_trace(store *s, int64_t id, int obj, int64_t *trace_id,
			     uint64_t *nfiltered, nlr_entry **nlr, size_t *nn, uint32_t **attrs,
			     size_t *na, dt_err *e)
{
	/* called once a trace by the ranking (twice for every trace of the runs): the statement is
	 * prepared once for the store and reset after each use (SQLite prepares it again by itself
	 * should the schema change, as when TEMP tables shadow main's) */
	if (!s->get_trace && store_prepare(s,
					   "SELECT trace_id, nfiltered, nlr, attrs FROM analysis_traces"
					   " WHERE analysis_id = ?1 AND obj = ?2",
					   &s->get_trace, e))
		return -1;
	sqlite3_stmt *st = s->get_trace;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int(st, 2, obj);
	int rc = sqlite3_step(st), r = 0;
	if (rc != SQLITE_ROW) {
		if (rc == SQLITE_DONE)
			r = dt_errf(e, DT_EDATA, "analysis %lld has no object %d", (long long)id,
				    obj);
		else
			r = store_sqlerr(s, e, "reading analysis trace");
		sqlite3_reset(st);
		return r;
	}
	if (trace_id)
		*trace_id = sqlite3_column_int64(st, 0);
	if (nfiltered)
		*nfiltered = (uint64_t)sqlite3_column_int64(st, 1);
	if (nlr && nlr_blob_decode(sqlite3_column_blob(st, 2), (size_t)sqlite3_column_bytes(st, 2),
				   nlr, nn))
		r = dt_err_at(e, s->path, -1, "damaged NLR blob in analysis %lld", (long long)id);
	if (!r && attrs &&
	    ids_decode(sqlite3_column_blob(st, 3), (size_t)sqlite3_column_bytes(st, 3), attrs, na)) {
		r = dt_err_at(e, s->path, -1, "damaged attribute blob");
		if (nlr)
			free(*nlr);
	}
	sqlite3_reset(st);
	return r;
}

int store_analysis_objects(store *s, int64_t id, size_t n, int64_t *trace_ids, uint64_t *nfiltered,
			   dt_err *e)
{
	sqlite3_stmt *st;
	if (store_prepare(s,
			  "SELECT obj, trace_id, nfiltered FROM analysis_traces WHERE analysis_id = ?1",
			  &st, e))
		return -1;
	sqlite3_bind_int64(st, 1, id);
	size_t seen = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t obj = sqlite3_column_int64(st, 0);
		if (obj < 0 || (uint64_t)obj >= n)
			continue;
		trace_ids[obj] = sqlite3_column_int64(st, 1);
		nfiltered[obj] = (uint64_t)sqlite3_column_int64(st, 2);
		seen++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return store_sqlerr(s, e, "reading analysis traces");
	if (seen != n)
		return dt_err_at(e, s->path, -1, "analysis %lld: %zu of %zu traces", (long long)id,
				 seen, n);
	return 0;
}

int store_analysis_object_attrs(store *s, int64_t id, size_t n, uint32_t **ids, size_t *nids,
				dt_err *e)
{
	sqlite3_stmt *st;
	if (store_prepare(s, "SELECT obj, attrs FROM analysis_traces WHERE analysis_id = ?1", &st, e))
		return -1;
	sqlite3_bind_int64(st, 1, id);
	int rc, r = 0;
	while (!r && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t obj = sqlite3_column_int64(st, 0);
		if (obj < 0 || (uint64_t)obj >= n)
			continue;
		uint32_t *v;
		size_t k;
		if (ids_decode(sqlite3_column_blob(st, 1), (size_t)sqlite3_column_bytes(st, 1), &v, &k)) {
			r = dt_err_at(e, s->path, -1, "damaged attribute blob");
			break;
		}
		free(ids[obj]);
		ids[obj] = v;
		nids[obj] = k;
	}
	if (!r && rc != SQLITE_DONE)
		r = store_sqlerr(s, e, "reading attributes");
	sqlite3_finalize(st);
	return r;
}

int store_analysis_object_rows(store *s, int64_t id, size_t n, store_trace *traces,
			       uint64_t *nfiltered, uint32_t **ids, size_t *nids, dt_err *e)
{
	sqlite3_stmt *st;
	/* the analysis's rows in obj order, each trace by its rowid: no scan of the run's traces */
	if (store_prepare(s,
			  "SELECT " TRACE_COLS ", a.obj, a.nfiltered, a.attrs"
			  " FROM analysis_traces a CROSS JOIN traces t ON t.id = a.trace_id"
			  " WHERE a.analysis_id = ?1",
			  &st, e))
		return -1;
	sqlite3_bind_int64(st, 1, id);
	size_t seen = 0;
	int rc, r = 0;
	while (!r && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t obj = sqlite3_column_int64(st, 20);
		if (obj < 0 || (uint64_t)obj >= n)
			continue;
		uint32_t *v;
		size_t k;
		if (ids_decode(sqlite3_column_blob(st, 22), (size_t)sqlite3_column_bytes(st, 22), &v,
			       &k)) {
			r = dt_err_at(e, s->path, -1, "damaged attribute blob");
			break;
		}
		store_trace_free(&traces[obj]);
		store_trace_from_row(st, &traces[obj]);
		nfiltered[obj] = (uint64_t)sqlite3_column_int64(st, 21);
		free(ids[obj]);
		ids[obj] = v;
		nids[obj] = k;
		seen++;
	}
	if (!r && rc != SQLITE_DONE)
		r = store_sqlerr(s, e, "reading analysis traces");
	sqlite3_finalize(st);
	if (!r && seen != n)
		r = dt_err_at(e, s->path, -1, "analysis %lld: %zu of %zu traces", (long long)id, seen,
			      n);
	return r;
}

int store_analysis_put_attr(store *s, int64_t id, uint32_t attr, const char *name, dt_err *e)
{
	sqlite3_stmt *st;
	if (store_prepare(s, "INSERT INTO analysis_attrs(analysis_id, id, name) VALUES(?1, ?2, ?3)",
			  &st, e))
		return -1;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, attr);
	sqlite3_bind_text(st, 3, name, -1, SQLITE_TRANSIENT);
	return exec_bound(s, st, e, "writing attribute");
}

int store_analysis_attr_names(store *s, int64_t id, char ***names, size_t *n, dt_err *e)
{
	sqlite3_stmt *st;
	if (store_prepare(s, "SELECT id, name FROM analysis_attrs WHERE analysis_id = ?1 ORDER BY id",
			  &st, e))
		return -1;
	sqlite3_bind_int64(st, 1, id);
	char **v = NULL;
	size_t len = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t a = sqlite3_column_int64(st, 0);
		if (a < 0 || a > 1 << 28)
			continue;
		if ((size_t)a >= len) {
			v = xrealloc(v, ((size_t)a + 1) * sizeof *v);
			memset(v + len, 0, ((size_t)a + 1 - len) * sizeof *v);
			len = (size_t)a + 1;
		}
		free(v[a]);
		v[a] = col_str(st, 1);
	}
	sqlite3_finalize(st);
	for (size_t i = 0; i < len; i++)
		if (!v[i])
			v[i] = xstrdup("?");
	if (rc != SQLITE_DONE) {
		for (size_t i = 0; i < len; i++)
			free(v[i]);
		free(v);
		return store_sqlerr(s, e, "reading attributes");
	}
	*names = v;
	*n = len;
	return 0;
}

int store_analysis_put_blob(store *s, int64_t id, const char *key, const void *p, size_t n,
			    dt_err *e)
{
	sqlite3_stmt *st;
	if (store_prepare(s,
			  "INSERT OR REPLACE INTO analysis_blobs(analysis_id, key, value)"
			  " VALUES(?1, ?2, ?3)",
			  &st, e))
		return -1;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, key, -1, SQLITE_TRANSIENT);
	sqlite3_bind_blob64(st, 3, n ? p : "", n, SQLITE_STATIC);
	return exec_bound(s, st, e, "writing analysis result");
}

int store_rank_cache_put(store *s, int64_t normal, int64_t faulty, const char *opts,
			 const void *p, size_t n, dt_err *e)
{
	sqlite3_stmt *st;
	if (store_prepare(s,
			  "INSERT OR REPLACE INTO rank_cache(normal, faulty, opts, value)"
			  " VALUES(?1, ?2, ?3, ?4)",
			  &st, e))
		return -1;
	sqlite3_bind_int64(st, 1, normal);
	sqlite3_bind_int64(st, 2, faulty);
	sqlite3_bind_text(st, 3, opts, -1, SQLITE_TRANSIENT);
	sqlite3_bind_blob64(st, 4, n ? p : "", n, SQLITE_STATIC);
	return exec_bound(s, st, e, "writing the ranking cache");
}

/* Steps st (bound) for one blob: 1 with *p (malloc'd) and *n, 0 when there is no row, -1 on an
 * error (what: what was being done). Finalizes st. */
static int step_blob(store *s, sqlite3_stmt *st, uint8_t **p, size_t *n, dt_err *e,
		     const char *what)
{
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		size_t len = (size_t)sqlite3_column_bytes(st, 0);
		*p = xmalloc(len + 1);
		if (len)
			memcpy(*p, sqlite3_column_blob(st, 0), len);
		*n = len;
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	return store_sqlerr(s, e, what);
}

int store_rank_cache_get(store *s, int64_t normal, int64_t faulty, const char *opts, uint8_t **p,
			 size_t *n, dt_err *e)
{
	sqlite3_stmt *st;
	/* a read-only store of schema 8 has no table: nothing cached */
	if (sqlite3_prepare_v2(s->db,
			       "SELECT value FROM rank_cache WHERE normal = ?1 AND faulty = ?2 AND"
			       " opts = ?3",
			       -1, &st, NULL) != SQLITE_OK) {
		sqlite3_finalize(st);
		return 0;
	}
	sqlite3_bind_int64(st, 1, normal);
	sqlite3_bind_int64(st, 2, faulty);
	sqlite3_bind_text(st, 3, opts, -1, SQLITE_TRANSIENT);
	return step_blob(s, st, p, n, e, "reading the ranking cache");
}

int store_analysis_get_blob(store *s, int64_t id, const char *key, uint8_t **p, size_t *n,
			    dt_err *e)
{
	sqlite3_stmt *st;
	if (store_prepare(s, "SELECT value FROM analysis_blobs WHERE analysis_id = ?1 AND key = ?2",
			  &st, e))
		return -1;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, key, -1, SQLITE_TRANSIENT);
	return step_blob(s, st, p, n, e, "reading analysis result");
}

int store_loop_put(store *s, uint32_t id, const nlr_entry *body, size_t n, dt_err *e)
{
	dt_buf b = { 0 };
	nlr_blob_encode(body, n, &b);
	sqlite3_stmt *st;
	int r = -1;
	if (store_prepare(s, "INSERT INTO loops(id, body) VALUES(?1, ?2)", &st, e) == 0) {
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_blob(st, 2, b.p ? (const void *)b.p : "", (int)b.len, SQLITE_STATIC);
		r = exec_bound(s, st, e, "writing loop");
	}
	buf_free(&b);
	return r;
}

int store_loops_each(store *s, int (*fn)(void *ctx, uint32_t id, const nlr_entry *body, size_t n),
		     void *ctx, dt_err *e)
{
	sqlite3_stmt *st;
	if (store_prepare(s, "SELECT id, body FROM loops ORDER BY id", &st, e))
		return -1;
	int rc, r = 0;
	while (!r && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		nlr_entry *v;
		size_t n;
		int64_t id = sqlite3_column_int64(st, 0);
		if (id < 0 || id > INT32_MAX ||
		    nlr_blob_decode(sqlite3_column_blob(st, 1), (size_t)sqlite3_column_bytes(st, 1), &v,
				    &n)) {
			r = dt_err_at(e, s->path, -1, "damaged loop %lld", (long long)id);
			break;
		}
		if (fn(ctx, (uint32_t)id, v, n))
			r = e->status ? -1 : dt_errf(e, DT_EDATA, "loop table rejected loop %lld",
						     (long long)id);
		free(v);
	}
	if (!r && rc != SQLITE_DONE)
		r = store_sqlerr(s, e, "reading loops");
	sqlite3_finalize(st);
	return r;
}

int store_loops_count(store *s, uint32_t *n, dt_err *e)
{
	sqlite3_stmt *st;
	if (store_prepare(s, "SELECT coalesce(max(id) + 1, 0) FROM loops", &st, e))
		return -1;
	int rc = sqlite3_step(st);
	*n = rc == SQLITE_ROW ? (uint32_t)sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : store_sqlerr(s, e, "counting loops");
}
