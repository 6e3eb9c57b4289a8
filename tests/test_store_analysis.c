/* test_store_analysis.c: the analysis cache and the loop table: write, find, read back,
 * replace, cascade on run removal, and the migration from schema version 1. */
#define _POSIX_C_SOURCE 200809L
#include <sqlite3.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "store/store_analysis.h"

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

static int collect(void *ctx, uint32_t id, const nlr_entry *body, size_t n)
{
	int *seen = ctx;
	if (id == 7 && n == 2 && body[0].sym == 5 && body[1].sym == (NLR_LOOP | 3) &&
	    body[1].count == 4)
		(*seen)++;
	return 0;
}

int main(void)
{
	char dir[] = "/tmp/dt-sa-XXXXXX";
	if (!mkdtemp(dir))
		SKIP("no temporary directory");
	snprintf(path, sizeof path, "%s/s.db", dir);
	dt_err e;
	dt_err_clear(&e);
	store *s;
	CHECK(store_open(path, STORE_OPEN_CREATE, &s, &e) == 0);
	int64_t run, tid = 0;
	CHECK(store_begin(s, &e) == 0);
	CHECK(store_run_create(s, "r", "", "text", "", &run, &e) == 0);
	store_writer *w = store_writer_new(s, run, NULL);
	dt_sink *k = store_writer_sink(w);
	dt_trace_meta m = { 1, 1, -1, 1, NULL, "x" };
	uint32_t f = k->func(k->ctx, "f", 1, &e);
	CHECK(k->begin(k->ctx, &m, &e) == 0 && k->events(k->ctx, &f, NULL, 1, &e) == 0 &&
	      k->end(k->ctx, 0, "", &e) == 0 && store_writer_finish(w, &e) == 0);
	store_writer_free(w);
	CHECK(store_commit(s, &e) == 0);
	store_trace t;
	CHECK(store_trace_get(s, run, 0, 0, &t, &e) == 0);
	tid = t.id;
	store_trace_free(&t);

	/* write an analysis */
	int64_t aid;
	nlr_entry nl[] = { { f, 1 }, { NLR_LOOP | 7, 12 }, { 300000, 1 } };
	uint32_t at[] = { 0, 2, 100000 };
	CHECK(store_begin(s, &e) == 0);
	CHECK(store_analysis_create(s, run, "mpi", "sing.orig", 10, "v1", &aid, &e) == 0);
	CHECK(store_analysis_put_trace(s, aid, 0, tid, 42, nl, 3, at, 3, &e) == 0);
	CHECK(store_analysis_put_attr(s, aid, 0, "f", &e) == 0);
	CHECK(store_analysis_put_attr(s, aid, 2, "L7", &e) == 0);
	double jsm[4] = { 1, 0.5, 0.5, 1 };
	CHECK(store_analysis_put_blob(s, aid, "jsm", jsm, sizeof jsm, &e) == 0);
	CHECK(store_analysis_set_counts(s, aid, 1, 3, 1, &e) == 0);
	nlr_entry body[] = { { 5, 1 }, { NLR_LOOP | 3, 4 } };
	CHECK(store_loop_put(s, 7, body, 2, &e) == 0);
	CHECK(store_commit(s, &e) == 0);

	/* find it again and read it back */
	store_analysis a;
	CHECK_EQ_INT(store_analysis_find(s, run, "mpi", "sing.orig", 10, &a, &e), 1);
	CHECK(a.id == aid && a.k == 10 && a.ntraces == 1 && a.nattrs == 3 && a.nclasses == 1);
	CHECK_EQ_STR(a.version, "v1");
	store_analysis_free(&a);
	CHECK_EQ_INT(store_analysis_find(s, run, "mpi", "sing.orig", 9, &a, &e), 0);
	nlr_entry *got;
	uint32_t *ga;
	size_t ng, na;
	int64_t gt;
	uint64_t nf;
	CHECK(store_analysis_get_trace(s, aid, 0, &gt, &nf, &got, &ng, &ga, &na, &e) == 0);
	CHECK(gt == tid && nf == 42 && ng == 3 && na == 3);
	CHECK(ng == 3 && nlr_entry_eq(got[1], nl[1]) && got[2].sym == 300000);
	CHECK(na == 3 && ga[2] == 100000);
	free(got);
	free(ga);
	CHECK(store_analysis_get_trace(s, aid, 5, NULL, NULL, NULL, NULL, NULL, NULL, &e) == -1);
	dt_err_clear(&e);
	/* the statement is kept between calls: after a miss, and under a read transaction
	 * (store_read_begin: one when none is open, none inside another), it reads again */
	int began = store_read_begin(s, &e);
	CHECK_EQ_INT(began, 1);
	CHECK_EQ_INT(store_read_begin(s, &e), 0);
	for (int i = 0; i < 3; i++) {
		CHECK(store_analysis_get_trace(s, aid, 0, NULL, &nf, &got, &ng, NULL, NULL, &e) == 0);
		CHECK(nf == 42 && ng == 3 && got[2].sym == 300000);
		free(got);
		CHECK(store_analysis_get_trace(s, aid, 5, NULL, NULL, NULL, NULL, NULL, NULL, &e) ==
		      -1);
		dt_err_clear(&e);
	}
	store_read_end(s, 0);
	store_read_end(s, began);
	CHECK_EQ_INT(store_read_begin(s, &e), 1);
	store_read_end(s, 1);
	char **names;
	size_t nn;
	CHECK(store_analysis_attr_names(s, aid, &names, &nn, &e) == 0);
	CHECK(nn == 3);
	if (nn == 3) {
		CHECK_EQ_STR(names[0], "f");
		CHECK_EQ_STR(names[1], "?");
		CHECK_EQ_STR(names[2], "L7");
	}
	for (size_t i = 0; i < nn; i++)
		free(names[i]);
	free(names);
	uint8_t *blob;
	size_t bl;
	CHECK_EQ_INT(store_analysis_get_blob(s, aid, "jsm", &blob, &bl, &e), 1);
	CHECK(bl == sizeof jsm && !memcmp(blob, jsm, bl));
	free(blob);
	CHECK_EQ_INT(store_analysis_get_blob(s, aid, "nope", &blob, &bl, &e), 0);
	int seen = 0;
	CHECK(store_loops_each(s, collect, &seen, &e) == 0);
	CHECK_EQ_INT(seen, 1);
	uint32_t nloops;
	CHECK(store_loops_count(s, &nloops, &e) == 0 && nloops == 8);
	/* loop bodies are unique: the same body twice is refused */
	CHECK(store_loop_put(s, 8, body, 2, &e) == -1);
	dt_err_clear(&e);

	/* the same parameters replace the old analysis */
	int64_t aid2;
	CHECK(store_begin(s, &e) == 0);
	CHECK(store_analysis_create(s, run, "mpi", "sing.orig", 10, "v2", &aid2, &e) == 0);
	CHECK(store_commit(s, &e) == 0);
	store_analysis *list;
	size_t nl2;
	CHECK(store_analysis_list(s, run, &list, &nl2, &e) == 0);
	CHECK(nl2 == 1 && list[0].id == aid2);
	store_analyses_free(list, nl2);
	CHECK_EQ_INT(store_analysis_get_blob(s, aid, "jsm", &blob, &bl, &e), 0);
	/* the kept statement sees the replacement: the old analysis's trace is gone */
	CHECK(store_analysis_get_trace(s, aid, 0, NULL, NULL, NULL, NULL, NULL, NULL, &e) == -1);
	dt_err_clear(&e);

	/* an analysis of the same families under other family files (another digest) is stale:
	 * writing the new one removes it; another filter is kept */
	int64_t a1, a2, a3;
	CHECK(store_begin(s, &e) == 0);
	CHECK(store_analysis_create(s, run, "mpi#0001", "sing.orig", 10, "v2", &a1, &e) == 0);
	CHECK(store_analysis_create(s, run, "mpi,ompall#0001", "sing.orig", 10, "v2", &a3, &e) == 0);
	CHECK(store_analysis_create(s, run, "mpi#0002", "sing.orig", 10, "v2", &a2, &e) == 0);
	CHECK(store_commit(s, &e) == 0);
	CHECK(store_analysis_list(s, run, &list, &nl2, &e) == 0);
	int have1 = 0, have2 = 0, have3 = 0, haveold = 0;
	for (size_t i = 0; i < nl2; i++) {
		have1 |= list[i].id == a1;
		have2 |= list[i].id == a2;
		have3 |= list[i].id == a3;
		haveold |= list[i].id == aid2; /* "mpi" without a digest: of the same families */
	}
	CHECK(!have1 && have2 && have3 && !haveold);
	store_analyses_free(list, nl2);

	/* removing the run removes its analyses */
	CHECK(store_run_delete(s, "r", &e) == 0);
	CHECK(store_analysis_list(s, -1, &list, &nl2, &e) == 0);
	CHECK_EQ_INT(nl2, 0);
	store_analyses_free(list, nl2);
	store_close(s);

	/* a version-1 store (before the analysis tables) is migrated on open */
	raw_sql("DROP TABLE analysis_blobs; DROP TABLE analysis_attrs; DROP TABLE analysis_traces;"
		"DROP TABLE analyses; DROP TABLE loops; DROP TABLE sync_events;"
		"DROP TABLE sync_clocks; DROP TABLE blame_procs; DROP TABLE blame_locs;"
		"DROP TABLE blame_paths; DROP TABLE blame_containers; DROP TABLE blame_samples;"
		"DROP TABLE blame_scans; PRAGMA user_version = 1;");
	CHECK(store_open(path, STORE_OPEN_EXISTING, &s, &e) == 0);
	CHECK(store_loops_count(s, &nloops, &e) == 0 && nloops == 0);
	store_close(s);

	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	CHECK(system(cmd) == 0);
	CHECK_DONE();
}
