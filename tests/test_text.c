/* test_text.c: the text (texTrace) importer through the memory sink. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "import/import.h"
#include "import/memsink.h"

static char dir[256];

static void put(const char *name, const char *content, size_t n)
{
	char p[512];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	FILE *f = fopen(p, "wb");
	fwrite(content, 1, n, f);
	fclose(f);
}

int main(void)
{
	snprintf(dir, sizeof dir, "/tmp/dt-text-XXXXXX");
	if (!mkdtemp(dir))
		SKIP("cannot make a temporary directory");
	const char a[] = "main\nfoo\n[ret]\r\n\nfoo\n[ret]\n[ret]\n";
	put("parlotm.host7.4242.3.txt", a, sizeof a - 1);
	put("parlotm.host7.4242.0.txt", "main\n", 5);
	put("rank-2.txt", "[ret]\nmain\n", 11);
	put("notes.md", "ignored", 7);

	memsink m;
	memsink_init(&m, 1);
	dt_err e;
	dt_err_clear(&e);
	dt_import_opts o = { 0 };
	CHECK(import_text(dir, &o, &m.sink, &e) == 0);
	CHECK_EQ_INT(m.ntraces, 3);
	memtrace *t = memsink_find(&m, "parlotm.host7.4242.3.txt");
	CHECK(t != NULL);
	if (t) {
		CHECK_EQ_INT(t->meta.pid, 4242);
		CHECK_EQ_INT(t->meta.tid, 3);
		CHECK(!t->meta.is_main);
		CHECK_EQ_STR(t->meta.host, "host7");
		CHECK_EQ_INT(t->n, 6); /* the blank line is skipped, \r\n accepted */
		CHECK_EQ_STR(m.funcs[t->ev[1]], "foo");
		CHECK_EQ_INT(t->ev[2], DT_RET);
		CHECK(t->ev[1] == t->ev[3]); /* one id per name */
		CHECK_EQ_INT(t->flags, 0);
		CHECK(t->ts == NULL);
	}
	t = memsink_find(&m, "parlotm.host7.4242.0.txt");
	CHECK(t && t->meta.is_main && t->meta.tid == 0);
	t = memsink_find(&m, "rank-2.txt");
	CHECK(t && t->meta.pid == 2 && t->meta.tid == 0);
	CHECK(t && (t->flags & DT_TF_UNMATCHED));
	CHECK(t && t->note && strstr(t->note, "1 returns without a call"));
	memsink_free(&m);

	/* a NUL byte: the error names line and column */
	put("bad.txt", "main\nab\0c\n", 10);
	char p[512];
	snprintf(p, sizeof p, "%s/bad.txt", dir);
	memsink_init(&m, 1);
	dt_err_clear(&e);
	CHECK(import_text(p, &o, &m.sink, &e) == -1);
	CHECK_EQ_INT(e.line, 2);
	CHECK_EQ_INT(e.col, 3);
	CHECK(strstr(e.file, "bad.txt") != NULL);
	memsink_free(&m);

	/* a missing file */
	memsink_init(&m, 1);
	dt_err_clear(&e);
	snprintf(p, sizeof p, "%s/none.txt", dir);
	CHECK(import_text(p, &o, &m.sink, &e) == -1);
	CHECK(strstr(e.msg, "cannot read") != NULL);
	memsink_free(&m);

	/* detection */
	dt_err_clear(&e);
	CHECK_EQ_INT(import_detect(dir, &e), DT_FMT_TEXT);
	CHECK_EQ_INT(dt_format_parse("parlot-raw"), DT_FMT_PARLOT_RAW);
	CHECK_EQ_INT(dt_format_parse("zip"), -1);

	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	CHECK(system(cmd) == 0);
	CHECK_DONE();
}
