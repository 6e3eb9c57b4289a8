/* test_util.c: varints, the string map, natural order, flag names, error formatting,
 * escaping for people (util/esc.h). */
#define _GNU_SOURCE
#include <stdint.h>

#include "check.h"
#include "util/err.h"
#include "import/sink.h"
#include "util/esc.h"
#include "util/util.h"

int main(void)
{
	dt_buf b = { 0 };
	static const uint64_t uv[] = { 0, 1, 127, 128, 300, 1ull << 35, UINT64_MAX };
	static const int64_t sv[] = { 0, -1, 1, -64, 64, INT64_MIN, INT64_MAX };
	for (size_t i = 0; i < 7; i++) {
		buf_uvar(&b, uv[i]);
		buf_svar(&b, sv[i]);
	}
	size_t pos = 0;
	for (size_t i = 0; i < 7; i++) {
		uint64_t u = 0;
		int64_t s = 0;
		CHECK(uvar_get(b.p, b.len, &pos, &u) == 0);
		CHECK(u == uv[i]);
		CHECK(svar_get(b.p, b.len, &pos, &s) == 0);
		CHECK(s == sv[i]);
	}
	CHECK_EQ_INT(pos, b.len);
	uint64_t u;
	CHECK(uvar_get(b.p, b.len, &pos, &u) == -1); /* past the end */
	uint8_t bad[11];
	memset(bad, 0xff, sizeof bad);
	pos = 0;
	CHECK(uvar_get(bad, sizeof bad, &pos, &u) == -1); /* too long */
	CHECK_EQ_INT(1, 128 < 300); /* sanity of the harness itself */
	buf_free(&b);

	strmap m;
	strmap_init(&m);
	char key[32];
	for (uint32_t i = 0; i < 5000; i++) {
		int n = snprintf(key, sizeof key, "fn%u", i);
		strmap_put(&m, key, (size_t)n, i * 3);
	}
	CHECK_EQ_INT(m.count, 5000);
	int ok = 1;
	for (uint32_t i = 0; i < 5000; i++) {
		uint32_t v;
		int n = snprintf(key, sizeof key, "fn%u", i);
		ok &= strmap_get(&m, key, (size_t)n, &v) && v == i * 3;
	}
	CHECK(ok);
	uint32_t v;
	CHECK(!strmap_get(&m, "fn5000", 6, &v));
	CHECK(!strmap_get(&m, "fn1", 2, &v)); /* prefix is not a key */
	strmap_put(&m, "fn1", 3, 7);
	CHECK(strmap_get(&m, "fn1", 3, &v) && v == 7);
	CHECK_EQ_INT(m.count, 5000);
	strmap_free(&m);

	CHECK(natcmp("rank-2", "rank-10") < 0);
	CHECK(natcmp("a.10.3", "a.9.30") > 0);
	CHECK(natcmp("x007", "x7") == 0);
	/* a path of /proc/PID/maps: \012 is the kernel's newline */
	{
		char m1[] = "/tmp/a\\012b/prog", m2[] = "/x\\012\\012y\\01", m3[] = "/plain";
		maps_path_unescape(m1);
		maps_path_unescape(m2);
		maps_path_unescape(m3);
		CHECK_EQ_STR(m1, "/tmp/a\nb/prog");
		CHECK_EQ_STR(m2, "/x\n\ny\\01");
		CHECK_EQ_STR(m3, "/plain");
	}
	CHECK(natcmp("abc", "abd") < 0);
	CHECK(natcmp("ab", "abc") < 0);

	/* ordinals, as the hang report numbers a thread's calls */
	char ob[32];
	CHECK(!strcmp(ordinal(1, ob, sizeof ob), "1st") && !strcmp(ordinal(2, ob, sizeof ob), "2nd"));
	CHECK(!strcmp(ordinal(3, ob, sizeof ob), "3rd") && !strcmp(ordinal(4, ob, sizeof ob), "4th"));
	CHECK(!strcmp(ordinal(11, ob, sizeof ob), "11th") && !strcmp(ordinal(12, ob, sizeof ob), "12th"));
	CHECK(!strcmp(ordinal(13, ob, sizeof ob), "13th") && !strcmp(ordinal(21, ob, sizeof ob), "21st"));
	CHECK(!strcmp(ordinal(112, ob, sizeof ob), "112th") && !strcmp(ordinal(1002, ob, sizeof ob), "1002nd"));

	char f[128];
	dt_flags_str(0, f, sizeof f);
	CHECK_EQ_STR(f, "-");
	dt_flags_str(DT_TF_TRUNCATED | DT_TF_LOST, f, sizeof f);
	CHECK_EQ_STR(f, "truncated,lost-records");

	dt_err e;
	char msg[1200];
	dt_err_clear(&e);
	CHECK(dt_err_at(&e, "a.dat", 1234, "bad magic %d", 3) == -1);
	dt_err_at(&e, "b.dat", 1, "second error is ignored");
	dt_err_format(&e, msg, sizeof msg);
	CHECK_EQ_STR(msg, "a.dat: offset 1234: bad magic 3");
	CHECK_EQ_INT(e.status, DT_EDATA);
	dt_err_clear(&e);
	dt_err_lc(&e, "f.filter", 3, 7, "missing )");
	dt_err_format(&e, msg, sizeof msg);
	CHECK_EQ_STR(msg, "f.filter:3:7: missing )");

	/* escaping: C0, DEL, C1 (UTF-8 and lone bytes), invalid UTF-8; valid text passes */
	char eb[128];
	CHECK_EQ_STR(esc_str("a\033]52;c;QQ==\007b\nc\t\177", eb, sizeof eb),
		     "a\\e]52;c;QQ==\\x07b\\nc\\t\\x7f");
	CHECK_EQ_STR(esc_str("x\302\233y\233z\303", eb, sizeof eb), "x\\u009by\\x9bz\\xc3");
	CHECK_EQ_STR(esc_str("\303\251t\303\251 \342\202\254", eb, sizeof eb), "\303\251t\303\251 \342\202\254");
	CHECK(esc_clean("caf\303\251") && !esc_clean("a\033") && !esc_clean("\302\205"));
	/* cut to the buffer, never inside an escape */
	CHECK_EQ_STR(esc_str("ab\033", eb, 4), "ab");
	CHECK_EQ_INT(esc_width("\303\251"), 1);
	CHECK_EQ_INT(esc_width("\346\227\245x"), 3);
	CHECK_EQ_INT(esc_width("e\314\201"), 1);
	/* the stream: a UTF-8 sequence split across writes stays whole, controls are escaped,
	 * newlines pass */
	char *mem = NULL;
	size_t memlen = 0;
	FILE *mf = open_memstream(&mem, &memlen);
	FILE *es = esc_stream(mf);
	setvbuf(es, NULL, _IONBF, 0);
	fputs("a\303", es);
	fputs("\251\033\n\302", es);
	fputs("\233z\n", es);
	fclose(es);
	fclose(mf);
	CHECK_EQ_STR(mem, "a\303\251\\e\n\\u009bz\n");
	free(mem);
	CHECK_DONE();
}
