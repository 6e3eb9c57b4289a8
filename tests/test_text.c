/* test_text.c: the text (texTrace) importer through the memory sink: identities, blank lines
 * and \r\n, lines across the reader's blocks, a last line with no newline, a byte order mark,
 * NUL bytes and over-long lines (with line and column), a trace sent over a parallel
 * import's wire in parts (import/wire.h) arriving as it was read, and the search for two files
 * of the same P.T: the pair the pairwise comparison named, in a number of steps linear in the
 * files (10^5 of them: not n^2 / 2 comparisons; issue 25). */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "import/import.h"
#include "import/memsink.h"
#include "import/ptdup.h"
#include "import/wire.h"

static char dir[256];

static void put(const char *name, const char *content, size_t n)
{
	char p[512];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	FILE *f = fopen(p, "wb");
	fwrite(content, 1, n, f);
	fclose(f);
}

/* The wire sink's full callback of the test: keeps each part, with its end. */
struct collect {
	dt_buf *wb, *parts;
	size_t *nparts, **ends, *capends;
};

static int collect(void *ctx, dt_err *err)
{
	(void)err;
	struct collect *c = ctx;
	wire_part_end(c->wb);
	buf_put(c->parts, c->wb->p, c->wb->len);
	GROW(*c->ends, *c->capends, *c->nparts + 1);
	(*c->ends)[(*c->nparts)++] = c->parts->len;
	c->wb->len = 0;
	return 0;
}

static uint64_t rng = 0x2545F4914F6CDD1Dull;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

/* ptdup_find against comparing each entry with every earlier one. */
static void test_ptdup(void)
{
	for (int rep = 0; rep < 300; rep++) {
		size_t n = 1 + rnd(60), i = 0, j = 0, wi = 0, wj = 0;
		int64_t pid[64], tid[64];
		uint32_t range = 1 + rnd(40);
		for (size_t k = 0; k < n; k++) {
			pid[k] = rnd(range);
			tid[k] = rnd(3);
		}
		int want = 0;
		for (size_t a = 0; a < n && !want; a++)
			for (size_t b = 0; b < a && !want; b++)
				if (pid[a] == pid[b] && tid[a] == tid[b]) {
					wi = a;
					wj = b;
					want = 1;
				}
		CHECK_EQ_INT(ptdup_find(pid, tid, n, &i, &j, NULL), want);
		if (want) {
			CHECK_EQ_INT(i, wi);
			CHECK_EQ_INT(j, wj);
		}
	}
	/* 10^5 traces of 25,000 processes x 4 threads, then one more of 1.2 at the end: the
	 * steps grow as the traces (the pairwise search made 5 * 10^9 comparisons) */
	size_t n = 100000, i = 0, j = 0;
	int64_t *pid = malloc((n + 1) * sizeof *pid), *tid = malloc((n + 1) * sizeof *tid);
	for (size_t k = 0; k < n; k++) {
		pid[k] = (int64_t)(k / 4);
		tid[k] = (int64_t)(k % 4);
	}
	uint64_t probes = 0;
	CHECK_EQ_INT(ptdup_find(pid, tid, n, &i, &j, &probes), 0);
	printf("ptdup: %zu traces, %llu slots looked at\n", n, (unsigned long long)probes);
	CHECK(probes >= n && probes <= 3 * (uint64_t)n);
	pid[n] = 1;
	tid[n] = 2;
	CHECK_EQ_INT(ptdup_find(pid, tid, n + 1, &i, &j, &probes), 1);
	CHECK_EQ_INT(i, n);
	CHECK_EQ_INT(j, 6);
	CHECK(probes <= 3 * (uint64_t)n);
	/* far-apart numbers (hosts' pids) too */
	for (size_t k = 0; k < n; k++) {
		pid[k] = 4000000 + (int64_t)(k / 2) * 7919;
		tid[k] = pid[k] + (int64_t)(k % 2);
	}
	CHECK_EQ_INT(ptdup_find(pid, tid, n, &i, &j, &probes), 0);
	CHECK(probes <= 3 * (uint64_t)n);
	free(pid);
	free(tid);
}

int main(void)
{
	test_ptdup();
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

	/* lines across the reader's blocks (256 KB): names of 1 to 3,000 bytes, a BOM first, no
	 * newline at the end; every name and return arrives, in order */
	{
		dt_buf b = { 0 };
		buf_put(&b, "\xef\xbb\xbfmain\n", 8);
		size_t ncalls = 0;
		for (unsigned i = 0; b.len < 3u << 20; i++) {
			unsigned len = 1 + (i * 7919u) % 3000u;
			for (unsigned k = 0; k < len; k++)
				buf_byte(&b, (uint8_t)('a' + (i + k) % 26));
			buf_put(&b, "\r\n[ret]\n", 8);
			ncalls++;
		}
		buf_put(&b, "[ret]", 5);
		put("blocks.txt", (const char *)b.p, b.len);
		snprintf(p, sizeof p, "%s/blocks.txt", dir);
		memsink_init(&m, 1);
		dt_err_clear(&e);
		CHECK(import_text(p, &o, &m.sink, &e) == 0);
		t = m.ntraces == 1 ? &m.traces[0] : NULL;
		CHECK(t && t->n == 2 * ncalls + 2 && t->flags == 0);
		CHECK(t && t->n && !strcmp(m.funcs[t->ev[0]], "main"));
		int same = t != NULL;
		for (size_t i = 0; same && i < ncalls; i++) {
			unsigned len = 1 + ((unsigned)i * 7919u) % 3000u;
			const char *nm = m.funcs[t->ev[1 + 2 * i]];
			same = strlen(nm) == len && t->ev[2 + 2 * i] == DT_RET;
			for (unsigned k = 0; same && k < len; k++)
				same = (unsigned char)nm[k] == 'a' + ((unsigned)i + k) % 26;
		}
		CHECK(same);
		memsink_free(&m);

		/* the same trace over the wire in parts of about 64 KB, replayed part by part */
		memsink ref;
		memsink_init(&ref, 1);
		CHECK(import_text(p, &o, &ref.sink, &e) == 0);
		dt_buf wb = { 0 }, parts = { 0 };
		size_t nparts = 0;
		size_t *ends = NULL, capends = 0;
		wire_sink ws;
		wire_sink_init(&ws, &wb);
		struct collect col = { &wb, &parts, &nparts, &ends, &capends };
		ws.limit = 64 << 10;
		ws.full = collect;
		ws.full_ctx = &col;
		CHECK(import_text(p, &o, &ws.sink, &e) == 0);
		/* the last part: what is left */
		buf_put(&parts, wb.p, wb.len);
		GROW(ends, capends, nparts + 1);
		ends[nparts++] = parts.len;
		CHECK(nparts > 10);
		memsink_init(&m, 1);
		wire_replayer rp;
		wire_replayer_init(&rp);
		int rc = 1;
		for (size_t i = 0, at = 0; i < nparts && rc == 1; at = ends[i++])
			rc = wire_replay_part(&rp, parts.p + at, ends[i] - at, &m.sink, "test", &e);
		wire_replayer_free(&rp);
		CHECK_EQ_INT(rc, 0);
		CHECK(m.ntraces == 1 && ref.ntraces == 1 && m.traces[0].n == ref.traces[0].n);
		CHECK(m.ntraces == 1 && m.traces[0].n == ref.traces[0].n &&
		      !memcmp(m.traces[0].ev, ref.traces[0].ev, ref.traces[0].n * sizeof(uint32_t)));
		CHECK_EQ_INT(m.nfuncs, ref.nfuncs);
		memsink_free(&m);
		/* a part that says more follows is not a whole unit */
		memsink_init(&m, 1);
		dt_err_clear(&e);
		CHECK(wire_replay(parts.p, ends[0], &m.sink, "unit 3", &e) == -1);
		CHECK(strstr(e.msg, "unit 3: a unit of a parallel import cut short") != NULL);
		memsink_free(&m);
		/* and a 'C' that is not a part's last byte is damage */
		memsink_init(&m, 1);
		dt_err_clear(&e);
		dt_buf bad = { 0 };
		buf_put(&bad, parts.p, ends[0]);
		buf_byte(&bad, 'Z');
		CHECK(wire_replay(bad.p, bad.len, &m.sink, "unit 4", &e) == -1);
		CHECK(strstr(e.msg, "unit 4: a damaged unit") != NULL);
		memsink_free(&m);
		buf_free(&bad);
		memsink_free(&ref);
		wire_sink_free(&ws);
		buf_free(&wb);
		buf_free(&parts);
		free(ends);

		/* a NUL byte far into the file: its line and column */
		b.p[b.len - 20] = 0;
		put("nul2.txt", (const char *)b.p, b.len);
		snprintf(p, sizeof p, "%s/nul2.txt", dir);
		size_t line = 1, ncol = 1;
		for (size_t i = 3; i < b.len - 20; i++) {
			if (b.p[i] == '\n') {
				line++;
				ncol = 1;
			} else {
				ncol++;
			}
		}
		memsink_init(&m, 1);
		dt_err_clear(&e);
		CHECK(import_text(p, &o, &m.sink, &e) == -1);
		CHECK_EQ_INT(e.line, (int)line);
		CHECK_EQ_INT(e.col, (int)ncol);
		CHECK(strstr(e.msg, "NUL byte") != NULL);
		memsink_free(&m);
		buf_free(&b);
	}

	/* a line longer than 1 MB, with and without a newline after it */
	for (int nl = 0; nl < 2; nl++) {
		size_t big = (1u << 20) + 10;
		char *x = malloc(big + 8);
		memcpy(x, "main\n", 5);
		memset(x + 5, 'x', big);
		x[5 + big] = '\n';
		put("long.txt", x, 5 + big + (size_t)nl);
		free(x);
		snprintf(p, sizeof p, "%s/long.txt", dir);
		memsink_init(&m, 1);
		dt_err_clear(&e);
		CHECK(import_text(p, &o, &m.sink, &e) == -1);
		CHECK_EQ_INT(e.line, 2);
		CHECK(strstr(e.msg, "line longer than") != NULL);
		memsink_free(&m);
	}

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

	/* two files of one P.T: the first in name order that repeats an earlier one is named,
	 * with the earliest it repeats */
	{
		char sub[300];
		snprintf(sub, sizeof sub, "%s/dup", dir);
		CHECK(mkdir(sub, 0700) == 0);
		const char *files[] = { "0.0.txt", "0.1.txt", "1.0.txt", "2.0.txt", "x.1.0.txt",
					"y.0.1.txt" };
		for (size_t k = 0; k < sizeof files / sizeof *files; k++) {
			char nm[32];
			snprintf(nm, sizeof nm, "dup/%s", files[k]);
			put(nm, "main\n[ret]\n", 11);
		}
		memsink_init(&m, 1);
		dt_err_clear(&e);
		CHECK(import_text(sub, &o, &m.sink, &e) == -1);
		snprintf(p, sizeof p, "%s/x.1.0.txt", sub);
		CHECK(!strcmp(e.file, p));
		CHECK(strstr(e.msg, "same process and thread numbers as 1.0.txt: rename one") != NULL);
		memsink_free(&m);
	}

	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	CHECK(system(cmd) == 0);
	CHECK_DONE();
}
