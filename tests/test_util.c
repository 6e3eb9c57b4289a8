/* test_util.c: varints, the string map, natural order, flag names, error formatting. */
#include <stdint.h>

#include "check.h"
#include "util/err.h"
#include "import/sink.h"
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
	CHECK(natcmp("abc", "abd") < 0);
	CHECK(natcmp("ab", "abc") < 0);

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
	CHECK_DONE();
}
