/* test_an_lookup: the analysis of a run under a setting (an_lookup.h), as the command line
 * and the interface get it: computed when it is not cached and found afterwards, by both
 * front-ends' caches alike (the interface's starts its background computation only for what
 * is not cached, and is pending until then); two settings of one run kept apart, each loaded
 * once; the classes shown under the setting's linkage whatever the cached one; and a run
 * removed since its analysis was loaded, said. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/an_lookup.h"
#include "check.h"
#include "import/import.h"
#include "util/util.h"

static char dir[64];

static void put(const char *name, const char *text)
{
	char p[128];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	if (!f)
		SKIP("cannot write a trace file");
	fputs(text, f);
	fclose(f);
}

/* Imports the text traces of dir as run name. */
static void import_run(store *s, const char *name)
{
	dt_err e;
	dt_err_clear(&e);
	int64_t id;
	CHECK(store_import_begin(s, &e) == 0);
	CHECK(store_run_create(s, name, NULL, "text", dir, &id, &e) == 0);
	store_writer *w = store_writer_new(s, id, NULL);
	dt_import_opts o = { 0 };
	CHECK(import_text(dir, &o, store_writer_sink(w), &e) == 0);
	CHECK(store_writer_finish(w, &e) == 0);
	store_writer_free(w);
	char *got = NULL;
	CHECK(store_import_publish(s, 0, &got, &e) == 0);
	free(got);
	if (e.msg[0])
		fprintf(stderr, "import: %s\n", e.msg);
}

static an_params setting(const char *filter, enum clu_linkage l)
{
	an_params p;
	memset(&p, 0, sizeof p);
	dt_err e;
	dt_err_clear(&e);
	CHECK(attrs_mode_parse_args(AN_DEFAULT_ATTRS, &p.mode, &p.args, &e) == 0);
	p.filter = filter;
	p.k = AN_DEFAULT_K;
	p.linkage = l;
	return p;
}

/* The interface's way: not cached, the computation starts elsewhere (counted here). */
struct later {
	int calls;
	char run[64];
};

static int start_later(void *ctx, const char *run, const an_params *p, int64_t *id, dt_err *e)
{
	(void)p;
	(void)id;
	(void)e;
	struct later *l = ctx;
	l->calls++;
	snprintf(l->run, sizeof l->run, "%s", run);
	return 0;
}

int main(void)
{
	snprintf(dir, sizeof dir, "/tmp/dt-lookup-XXXXXX");
	if (!mkdtemp(dir))
		SKIP("cannot make a temporary directory");
	put("rank-0.txt", "main\nMPI_Send\n[ret]\nwork\n[ret]\nMPI_Recv\n[ret]\n[ret]\n");
	put("rank-1.txt", "main\nMPI_Recv\n[ret]\nwork\n[ret]\nwork\n[ret]\nMPI_Send\n[ret]\n[ret]\n");
	put("rank-2.txt", "main\nMPI_Recv\n[ret]\nidle\n[ret]\nMPI_Send\n[ret]\n[ret]\n");
	char path[96];
	snprintf(path, sizeof path, "%s/a.db", dir);
	store *s = NULL;
	dt_err e;
	dt_err_clear(&e);
	CHECK(store_open(path, STORE_OPEN_CREATE, &s, &e) == 0);
	if (!s)
		return 1;
	import_run(s, "normal");
	import_run(s, "other");

	an_params def = setting(NULL, CLU_WARD), every;
	al_every(&def, &every);
	CHECK_EQ_STR(every.filter, AN_FALLBACK_FILTER);
	CHECK(every.k == def.k && every.linkage == def.linkage);
	int64_t id = -1, id2 = -1, idc = -1;

	/* not cached: the interface's cache starts it elsewhere and is pending */
	CHECK_EQ_INT(al_find(s, "normal", &def, &id, &e), 0);
	al_cache tui, cli;
	struct later later = { 0 };
	al_cache_init(&tui, s);
	tui.compute = start_later;
	tui.ctx = &later;
	tui.later = 1;
	const an_result *r = NULL, *r2 = NULL;
	CHECK_EQ_INT(al_get(&tui, "normal", &def, &r, &e), 0);
	CHECK_EQ_INT(al_id(&tui, "normal", &def, &id, &e), 0);
	CHECK_EQ_INT(later.calls, 2);
	CHECK_EQ_STR(later.run, "normal");

	/* the command line's computes it on the spot; then it is found, by both */
	al_cache_init(&cli, s);
	CHECK_EQ_INT(al_get(&cli, "normal", &def, &r, &e), 1);
	CHECK(r && r->n == 3);
	CHECK_EQ_INT(al_find(s, "normal", &def, &idc, &e), 1);
	CHECK(r && idc == r->meta.id);
	CHECK_EQ_INT(al_id(&tui, "normal", &def, &id, &e), 1);
	CHECK(id == idc);
	CHECK_EQ_INT(al_get(&tui, "normal", &def, &r2, &e), 1);
	CHECK(r2 && r2->meta.id == idc && r2 != r);
	CHECK_EQ_INT(later.calls, 2); /* cached: nothing started */
	int reused = 0;
	CHECK(al_compute(s, "normal", &def, &id2, &reused, &e) == 0);
	CHECK(reused && id2 == idc);

	/* loaded once per run and setting: the same result again, and for its objects */
	const an_result *again = NULL, *objs = NULL;
	CHECK_EQ_INT(al_get(&cli, "normal", &def, &again, &e), 1);
	CHECK(again == r);
	CHECK_EQ_INT(al_objects(&cli, "normal", &def, &objs, &e), 1);
	CHECK(objs == r);
	CHECK_EQ_INT((int)cli.n, 1);

	/* a second setting of the same run: another analysis, kept apart */
	const an_result *re = NULL;
	CHECK_EQ_INT(al_get(&cli, "normal", &every, &re, &e), 1);
	CHECK(re && re != r && re->meta.id != r->meta.id);
	if (re && r) {
		CHECK(!strncmp(re->filter_alias, "11.1K", 5)); /* every call, in the paper's name */
		CHECK(strcmp(r->filter_alias, re->filter_alias) != 0);
		CHECK(re->nattrs > r->nattrs); /* work and idle too */
	}
	CHECK_EQ_INT(al_get(&cli, "normal", &def, &again, &e), 1);
	CHECK(again == r);
	/* saved by the command line: the interface's finds it, its objects only when asked so */
	CHECK_EQ_INT(al_objects(&tui, "normal", &every, &objs, &e), 1);
	CHECK_EQ_INT(later.calls, 2);
	CHECK(objs && re && objs->meta.id == re->meta.id && objs->nrows == 0 && objs->n == 3);
	const an_result *whole = NULL;
	CHECK_EQ_INT(al_get(&tui, "normal", &every, &whole, &e), 1);
	CHECK(whole && whole != objs && whole->nrows > 0 && whole->meta.id == re->meta.id);

	/* the setting's linkage, whatever the cached one's */
	an_params single = setting(NULL, CLU_SINGLE);
	const an_result *rs = NULL;
	CHECK_EQ_INT(al_get(&cli, "normal", &single, &rs, &e), 1);
	CHECK(rs && rs != r && rs->meta.id == idc);
	if (rs && r) {
		CHECK_EQ_STR(rs->linkage, "single");
		CHECK_EQ_STR(r->linkage, "ward");
	}

	/* a run removed since: said, and nothing found */
	const an_result *ro = NULL;
	CHECK_EQ_INT(al_get(&cli, "other", &def, &ro, &e), 1);
	CHECK(ro && ro->n == 3);
	dt_err_clear(&e);
	CHECK(store_run_delete(s, "other", &e) == 0);
	CHECK_EQ_INT(al_get(&cli, "other", &def, &ro, &e), -1);
	CHECK(strstr(e.msg, "run other was removed") != NULL);
	dt_err_clear(&e);
	CHECK_EQ_INT(al_find(s, "other", &def, &id, &e), -1);
	CHECK(e.msg[0] != 0);
	dt_err_clear(&e);
	CHECK_EQ_INT(al_id(&tui, "other", &def, &id, &e), -1);
	CHECK_EQ_INT(later.calls, 2); /* an error, not a computation started */
	/* the run still there is as it was */
	CHECK_EQ_INT(al_get(&cli, "normal", &def, &again, &e), 1);
	CHECK(again == r);

	al_cache_free(&tui);
	al_cache_free(&cli);
	CHECK_EQ_INT((int)cli.n, 0);
	store_close(s);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", dir);
	return check_failures ? 1 : 0;
}
