/* test_lza3.c: the LZa3 | ZE codec against the worked vectors and edge cases of
 * formats/parlot.md §1.4 and §1.6, the wide-value escape, streaming decode, seeded property
 * tests (round trips of random and repetitive streams, cut encodings) and a loop of corrupted
 * inputs that must yield an error or flags, never a crash (the suite runs under ASan), and one
 * decoder restarted on stream after stream. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "store/lza3.h"

typedef struct rng {
	uint64_t s;
} rng;

static uint64_t rnd(rng *r)
{
	/* xorshift64*: enough for test data, and the same on every platform. */
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 2685821657736338717ULL;
}

static uint32_t rndn(rng *r, uint32_t n)
{
	return n ? (uint32_t)(rnd(r) % n) : 0;
}

/* A growable value array. */
typedef struct vec {
	uint32_t *v;
	size_t n, cap;
} vec;

static void vec_push(vec *a, uint32_t x)
{
	GROW(a->v, a->cap, a->n + 1);
	a->v[a->n++] = x;
}

static void encode(const uint32_t *v, size_t n, int cut, dt_buf *out)
{
	lza3_enc *z = lza3_enc_new();
	lza3_enc_put(z, v, n, out);
	if (cut)
		lza3_enc_cut(z, out);
	else
		lza3_enc_finish(z, out);
	lza3_enc_free(z);
}

/* Decodes from an exactly sized heap copy, so that ASan sees any read past the input. */
static int decode(const uint8_t *in, size_t n, uint32_t **out, size_t *nout, unsigned *flags,
		  dt_err *e)
{
	uint8_t *copy = xmalloc(n ? n : 1);
	if (n)
		memcpy(copy, in, n);
	dt_err_clear(e);
	int r = lza3_decode_all(n ? copy : NULL, n, out, nout, flags, "t", e);
	free(copy);
	return r;
}

static int parse_hex(const char *s, uint8_t *b)
{
	int n = 0;
	unsigned x;
	int k;
	while (sscanf(s, "%2x%n", &x, &k) == 1) {
		b[n++] = (uint8_t)x;
		s += k;
		while (*s == ' ')
			s++;
	}
	return n;
}

static void test_vectors(void)
{
	static const struct {
		uint32_t v[24];
		size_t n;
		const char *hex;
	} tv[] = {
		{ { 0 }, 0, "00" },
		{ { 5 }, 1, "04 05 02" },
		{ { 1, 2, 3, 4 }, 4, "54 01 02 03 01 04 01" },
		{ { 1, 2, 3, 4, 5 }, 5, "54 01 02 03 05 04 05 02" },
		{ { 7, 0, 7, 0, 7, 0, 7, 0, 7, 0, 7, 0 }, 12, "44 07 07 04 08 02" },
		{ { 7, 3, 0, 0, 7, 3, 0, 0, 7, 3, 0, 0, 7, 3, 0, 0, 7, 3, 0, 0 }, 20,
		  "14 07 03 14 07 0f 03" },
		{ { 9, 9, 9, 9, 9, 9, 9, 9, 9, 9 }, 10, "54 09 09 09 05 09 06 02" },
		/* The escape: 70000 = 0x11170 becomes count 0, FFFF, 0001, 1170. */
		{ { 70000 }, 1, "dc ff ff 01 70 11 04" },
	};
	for (size_t i = 0; i < sizeof tv / sizeof *tv; i++) {
		uint8_t want[64];
		int nw = parse_hex(tv[i].hex, want);
		dt_buf b = { 0 };
		encode(tv[i].v, tv[i].n, 0, &b);
		CHECK_EQ_INT(b.len, nw);
		CHECK(b.len == (size_t)nw && !memcmp(b.p, want, b.len));
		buf_free(&b);

		uint32_t *out;
		size_t nout;
		unsigned fl = 99;
		dt_err e;
		CHECK_EQ_INT(decode(want, (size_t)nw, &out, &nout, &fl, &e), 0);
		CHECK_EQ_INT(nout, tv[i].n);
		CHECK(nout == tv[i].n && !memcmp(out, tv[i].v, nout * sizeof *out));
		CHECK_EQ_INT(fl, 0);
		free(out);
	}
}

/* Decodes hex and checks the values and flags. */
static void expect(const char *hex, const uint32_t *v, size_t n, unsigned flags, int line)
{
	uint8_t in[256];
	int ni = parse_hex(hex, in);
	uint32_t *out;
	size_t nout;
	unsigned fl = 99;
	dt_err e;
	int r = decode(in, (size_t)ni, &out, &nout, &fl, &e);
	if (r || nout != n || (n && memcmp(out, v, n * sizeof *v)) || fl != flags) {
		fprintf(stderr, "test_lza3.c:%d: decoding %s: r=%d n=%zu flags=%u (want n=%zu flags=%u) %s\n",
			line, hex, r, nout, fl, n, flags, e.msg);
		check_failures++;
	}
	free(out);
}

static void expect_err(const char *hex, int64_t off, int line)
{
	uint8_t in[256];
	int ni = parse_hex(hex, in);
	uint32_t *out = NULL;
	size_t nout;
	unsigned fl;
	dt_err e;
	int r = decode(in, (size_t)ni, &out, &nout, &fl, &e);
	if (r != -1 || e.offset != off || strcmp(e.file, "t") || !e.msg[0]) {
		fprintf(stderr, "test_lza3.c:%d: %s: want error at %lld, got r=%d offset %lld (%s)\n",
			line, hex, (long long)off, r, (long long)e.offset, e.msg);
		check_failures++;
	}
	CHECK(out == NULL);
	free(out);
}

static void test_edge_cases(void)
{
	static const uint32_t v123[] = { 1, 2, 3 }, v5[] = { 5 }, v57[] = { 5, 7 };
	/* 0-byte file (ADBG, or killed before the first flush). */
	expect("", NULL, 0, LZA3_NO_DATA | LZA3_UNTERMINATED, __LINE__);
	/* A thread that emitted nothing. */
	expect("00", NULL, 0, 0, __LINE__);
	/* No trailer: the walk ends exactly at EOF, all groups are full. */
	expect("54 01 02 03", v123, 3, LZA3_UNTERMINATED, __LINE__);
	/* The same group closed by trailer 4. */
	expect("54 01 02 03 04", v123, 3, 0, __LINE__);
	/* A final lone 00 after a group is an all-zero group (four 0 tokens), not a trailer. */
	{
		uint8_t a[] = { 0x54, 1, 2, 3, 0x00 }, b[] = { 0x54, 1, 2, 3, 0x00, 0x04 };
		uint32_t *oa, *ob;
		size_t na, nb;
		unsigned fa, fb;
		dt_err e;
		CHECK_EQ_INT(decode(a, sizeof a, &oa, &na, &fa, &e), 0);
		CHECK_EQ_INT(decode(b, sizeof b, &ob, &nb, &fb, &e), 0);
		/* four 0 tokens after "1 2 3" are not what the encoder writes: odd, but decoded */
		CHECK_EQ_INT(fa, LZA3_UNTERMINATED | LZA3_ODD);
		CHECK_EQ_INT(fb, LZA3_ODD);
		CHECK(na == nb && na > 3 && !memcmp(oa, ob, na * sizeof *oa));
		free(oa);
		free(ob);
	}
	/* Truncated mid-group: the incomplete group is dropped. */
	expect("54 01 02", NULL, 0, LZA3_TRUNCATED, __LINE__);
	expect("54 01 02 03 05 04", v123, 3, LZA3_TRUNCATED, __LINE__);
	expect("54 01 02 03 ff 01 02 03", v123, 3, LZA3_TRUNCATED, __LINE__);
	/* Hard errors: trailer above 4, bit-pattern bits past the trailer, trailer alone. */
	expect_err("04 05 05", 2, __LINE__);
	expect_err("04 05 ff", 2, __LINE__);
	expect_err("54 01 02 03 14 05 07 01", 4, __LINE__);
	expect_err("10 05 01", 0, __LINE__);
	expect_err("03", 0, __LINE__);
	expect_err("01", 0, __LINE__);
	/* A 1-token trailer keeps only the first token; unused bytes of the group are absent. */
	expect("04 05 02", v5, 1, 0, __LINE__);
	/* A count as the last token of the file: 9 x 5 is 0,9,9,9 · 9,1 (count 1 last). */
	{
		uint32_t v[5] = { 9, 9, 9, 9, 9 };
		dt_buf b = { 0 };
		encode(v, 5, 0, &b);
		uint8_t want[] = { 0x54, 9, 9, 9, 0x05, 9, 1, 2 };
		CHECK(b.len == sizeof want && !memcmp(b.p, want, sizeof want));
		buf_free(&b);
		expect("54 09 09 09 05 09 01 02", v, 5, 0, __LINE__);
		/* Only the first group of it, without a trailer: three values, flagged. */
		expect("54 09 09 09", v, 3, LZA3_UNTERMINATED, __LINE__);
	}
	/* An escape cut short: an error in a terminated stream, the lost tail in a cut one. */
	expect_err("0c ff ff 02", 0, __LINE__);
	expect_err("3c ff ff 01 00 03", 0, __LINE__);
	expect("d4 05 07 ff ff", v57, 2, LZA3_UNTERMINATED, __LINE__);
}

/* Counts 0 and 65535 and the literal that must follow a saturated count. */
static void test_counts(void)
{
	vec a = { 0 };
	for (int i = 0; i < 3 * 65535 + 17; i++)
		vec_push(&a, 42);
	vec_push(&a, 7);
	for (int i = 0; i < 65535 + 3; i++)
		vec_push(&a, 0);
	dt_buf b = { 0 };
	encode(a.v, a.n, 0, &b);
	/* A saturated count is the token FFFF: bit-pattern bits for both of its bytes. */
	int saw = 0;
	for (size_t i = 0; i + 1 < b.len; i++)
		saw |= b.p[i] == 0xff && b.p[i + 1] == 0xff;
	CHECK(saw);
	CHECK(b.len < 64);
	uint32_t *out;
	size_t n;
	unsigned fl;
	dt_err e;
	CHECK_EQ_INT(decode(b.p, b.len, &out, &n, &fl, &e), 0);
	CHECK(n == a.n && !memcmp(out, a.v, n * sizeof *out));
	free(out);
	buf_free(&b);
	free(a.v);
}

static void test_wide(void)
{
	static const uint32_t v[] = { 0xFFFF, 0x10000, 0xFFFFFFFFu, 5, 0xFFFE, 0x12345678, 0xFFFF,
				      0x10000, 0xFFFFFFFFu, 5, 0xFFFE, 0x12345678, 0xFFFF, 0x10000,
				      0xFFFFFFFFu, 5, 0xFFFE, 0x12345678, 0, 0xFFFF0000u };
	size_t n = sizeof v / sizeof *v;
	dt_buf b = { 0 };
	encode(v, n, 0, &b);
	uint32_t *out;
	size_t nout;
	unsigned fl;
	dt_err e;
	CHECK_EQ_INT(decode(b.p, b.len, &out, &nout, &fl, &e), 0);
	CHECK(nout == n && !memcmp(out, v, n * sizeof *v));
	free(out);
	buf_free(&b);
	/* ParLOT's largest id, 65534, is still a plain literal. */
	uint32_t big = 65534;
	encode(&big, 1, 0, &b);
	uint8_t want[] = { 0x0c, 0xfe, 0xff, 0x02 };
	CHECK(b.len == sizeof want && !memcmp(b.p, want, sizeof want));
	buf_free(&b);
}

/* ---- a reference encoder ------------------------------------------------------------------- */

/* parlot.md §1.4 transcribed value by value, with none of the codec's block shortcuts, so that
 * a mistake shared by the codec's encoder and decoder cannot hide behind a good round trip. */
typedef struct refenc {
	uint16_t hash[4096];
	uint32_t pat[65536];
	unsigned ppos, lpos, h, nt;
	int iscount;
	uint16_t tok[4];
} refenc;

static void ref_group(const uint16_t *tok, unsigned nbytes, dt_buf *out)
{
	uint8_t b[8], bits = 0;
	for (unsigned i = 0; i < nbytes; i++) {
		b[i] = (uint8_t)(tok[i / 2] >> (8 * (i % 2)));
		if (b[i])
			bits |= (uint8_t)(1u << i);
	}
	buf_byte(out, bits);
	for (unsigned i = 0; i < nbytes; i++)
		if (b[i])
			buf_byte(out, b[i]);
}

static void ref_tok(refenc *z, unsigned t, dt_buf *out)
{
	if (z->nt == 4) {
		ref_group(z->tok, 8, out);
		z->nt = 0;
	}
	z->tok[z->nt++] = (uint16_t)t;
}

static void ref_lit(refenc *z, uint32_t v, dt_buf *out)
{
	if (v >= 0xFFFF) {
		ref_tok(z, 0xFFFF, out);
		ref_tok(z, v >> 16, out);
		ref_tok(z, v & 0xFFFF, out);
	} else {
		ref_tok(z, v, out);
	}
}

static void ref_encode(const uint32_t *v, size_t n, dt_buf *out)
{
	refenc *z = xcalloc(1, sizeof *z);
	for (size_t i = 0; i < n; i++) {
		uint32_t x = v[i];
		if (z->iscount && z->pat[z->lpos] == x && z->tok[z->nt - 1] < 65535) {
			z->tok[z->nt - 1]++;
			z->lpos = (z->lpos + 1) % 65536;
		} else if (z->iscount) {
			ref_lit(z, x, out);
			z->iscount = 0;
		} else {
			z->lpos = z->hash[z->h];
			int match = 1;
			for (unsigned k = 1; k <= 3; k++)
				match &= z->pat[(z->lpos + 65536 - k) % 65536] ==
					 z->pat[(z->ppos + 65536 - k) % 65536];
			if (match && z->pat[z->lpos] == x) {
				ref_tok(z, 1, out);
				z->lpos = (z->lpos + 1) % 65536;
				z->iscount = 1;
			} else {
				if (match)
					ref_tok(z, 0, out);
				ref_lit(z, x, out);
			}
		}
		z->hash[z->h] = (uint16_t)z->ppos;
		z->h = ((z->h << 4) ^ x) % 4096;
		z->pat[z->ppos] = x;
		z->ppos = (z->ppos + 1) % 65536;
	}
	if (z->nt)
		ref_group(z->tok, 2 * z->nt, out);
	buf_byte(out, (uint8_t)z->nt);
	free(z);
}

/* ---- stream generators --------------------------------------------------------------------- */

static void gen_random(rng *r, vec *a, size_t n, uint32_t alpha)
{
	for (size_t i = 0; i < n; i++)
		vec_push(a, alpha ? rndn(r, alpha) : (uint32_t)rnd(r));
}

/* A period repeated many times, with rare perturbations. */
static void gen_periodic(rng *r, vec *a, size_t n)
{
	uint32_t pat[400];
	size_t L = 1 + rndn(r, rndn(r, 2) ? 8 : 400);
	uint32_t alpha = rndn(r, 2) ? 4 : 70000;
	for (size_t i = 0; i < L; i++)
		pat[i] = rndn(r, alpha);
	unsigned noise = rndn(r, 3) ? 0 : 1 + rndn(r, 1000);
	for (size_t i = 0; i < n; i++) {
		uint32_t x = pat[i % L];
		if (noise && rndn(r, noise * 10) == 0)
			x = rndn(r, alpha);
		vec_push(a, x);
	}
}

/* Call/return events of nested loops, as a traced program produces them. */
static void gen_loops(rng *r, vec *a, int depth, size_t limit)
{
	int iters = 1 + (int)rndn(r, depth > 1 ? 20 : 3000);
	int body = 1 + (int)rndn(r, 4);
	uint32_t ids[4];
	int inner[4];
	for (int j = 0; j < body; j++) {
		ids[j] = 1 + rndn(r, 1800);
		inner[j] = depth > 0 && rndn(r, 3) == 0;
	}
	for (int i = 0; i < iters && a->n < limit; i++) {
		for (int j = 0; j < body && a->n < limit; j++) {
			vec_push(a, ids[j]);
			if (inner[j])
				gen_loops(r, a, depth - 1, limit);
			vec_push(a, 0);
		}
	}
}

static void gen_runs(rng *r, vec *a)
{
	int k = 1 + (int)rndn(r, 3);
	for (int i = 0; i < k; i++) {
		uint32_t x = rndn(r, 3) ? rndn(r, 10) : 0x10000 + rndn(r, 5);
		size_t len = 65535u * (1 + rndn(r, 2)) + rndn(r, 5) - 2;
		for (size_t j = 0; j < len; j++)
			vec_push(a, x);
		vec_push(a, rndn(r, 10));
	}
}

static void gen_case(rng *r, vec *a, int which)
{
	a->n = 0;
	switch (which % 7) {
	case 0:
		gen_random(r, a, rndn(r, 300), 1 + rndn(r, 6));
		break;
	case 1:
		gen_random(r, a, rndn(r, 2000), rndn(r, 2) ? 2000 : 0);
		break;
	case 2:
	case 3:
		gen_periodic(r, a, rndn(r, 20000));
		break;
	case 4:
	case 5:
		gen_loops(r, a, 3, 50000);
		break;
	default:
		if (rndn(r, 10) == 0)
			gen_runs(r, a);
		else
			gen_periodic(r, a, 70000 + rndn(r, 70000));
		break;
	}
}

/* Decodes with blocks of random tiny sizes and compares with the values. */
static int stream_equal(rng *r, const dt_buf *b, const uint32_t *v, size_t n, size_t maxblock)
{
	dt_err e;
	dt_err_clear(&e);
	lza3_dec *d = lza3_dec_new(b->p, b->len, "s", &e);
	if (!d)
		return 0;
	uint32_t blk[64];
	size_t got = 0;
	int ok = 1;
	for (;;) {
		size_t m = 1 + rndn(r, (uint32_t)maxblock);
		int64_t k = lza3_dec_next(d, blk, m, &e);
		if (k < 0 || (size_t)k > m) {
			ok = 0;
			break;
		}
		if (!k)
			break;
		if (got + (size_t)k > n || memcmp(blk, v + got, (size_t)k * sizeof *blk)) {
			ok = 0;
			break;
		}
		got += (size_t)k;
	}
	/* After the end, it stays at the end. */
	if (ok && lza3_dec_next(d, blk, 8, &e) != 0)
		ok = 0;
	lza3_dec_free(d);
	return ok && got == n;
}

static void test_properties(void)
{
	rng r = { 0x9E3779B97F4A7C15ULL };
	vec a = { 0 };
	int cases = 3000, fails = 0;
	/* one encoder for every case, reset by finish or cut: nothing of an earlier stream (of
	 * any length, wrapped around the history or not) may show in a later one */
	lza3_enc *zk = lza3_enc_new();
	for (int c = 0; c < cases && fails < 5; c++) {
		gen_case(&r, &a, c);
		int bad = 0;

		/* Round trip, one put. */
		dt_buf b = { 0 };
		encode(a.v, a.n, 0, &b);
		uint32_t *out;
		size_t n;
		unsigned fl;
		dt_err e;
		if (decode(b.p, b.len, &out, &n, &fl, &e) || n != a.n ||
		    (n && memcmp(out, a.v, n * sizeof *out)) || fl != 0)
			bad |= 1;
		if (!bad)
			free(out);

		/* The same bytes as the reference encoder. */
		dt_buf br = { 0 };
		ref_encode(a.v, a.n, &br);
		if (br.len != b.len || memcmp(br.p, b.p, b.len))
			bad |= 64;
		buf_free(&br);

		/* The same bytes when the values arrive in pieces. */
		dt_buf b2 = { 0 };
		lza3_enc *z = lza3_enc_new();
		for (size_t i = 0; i < a.n;) {
			size_t k = 1 + rndn(&r, rndn(&r, 2) ? 5 : 5000);
			if (k > a.n - i)
				k = a.n - i;
			lza3_enc_put(z, a.v + i, k, &b2);
			i += k;
		}
		lza3_enc_finish(z, &b2);
		/* finish leaves the encoder ready for a new stream */
		dt_buf b3 = { 0 };
		lza3_enc_put(z, a.v, a.n, &b3);
		lza3_enc_finish(z, &b3);
		lza3_enc_free(z);
		if (b2.len != b.len || memcmp(b2.p, b.p, b.len) || b3.len != b.len ||
		    memcmp(b3.p, b.p, b.len))
			bad |= 2;
		buf_free(&b2);
		buf_free(&b3);
		dt_buf b4 = { 0 };
		lza3_enc_put(zk, a.v, a.n, &b4);
		if (c % 3 == 2) { /* a cut stream, then this one again after an explicit reset */
			lza3_enc_cut(zk, &b4);
			b4.len = 0;
			lza3_enc_reset(zk);
			lza3_enc_put(zk, a.v, a.n, &b4);
		}
		lza3_enc_finish(zk, &b4);
		if (b4.len != b.len || memcmp(b4.p, b.p, b.len))
			bad |= 128;
		buf_free(&b4);

		/* Streaming with tiny blocks. */
		if (!stream_equal(&r, &b, a.v, a.n, c % 2 ? 3 : 64))
			bad |= 4;
		buf_free(&b);

		/* A cut encoding decodes to a prefix, flagged unterminated. */
		size_t cutat = a.n ? rndn(&r, (uint32_t)a.n + 1) : 0;
		dt_buf bc = { 0 };
		encode(a.v, cutat, 1, &bc);
		if (decode(bc.p, bc.len, &out, &n, &fl, &e) || n > cutat ||
		    (n && memcmp(out, a.v, n * sizeof *out)) ||
		    !(fl & LZA3_UNTERMINATED) || (fl & LZA3_TRUNCATED))
			bad |= 8;
		else
			free(out);
		/* Shortened inside the last group instead: a prefix, or, when the walk now ends
		 * one byte short and that byte cannot be a trailer, an error at a real offset. */
		if (bc.len > 1) {
			bc.len -= 1 + rndn(&r, (uint32_t)(bc.len < 8 ? bc.len - 1 : 8));
			if (decode(bc.p, bc.len, &out, &n, &fl, &e)) {
				if (e.offset < 0 || (size_t)e.offset >= bc.len)
					bad |= 16;
			} else {
				if (n > cutat || (n && memcmp(out, a.v, n * sizeof *out)))
					bad |= 32;
				free(out);
			}
		}
		buf_free(&bc);
		if (bad) {
			fprintf(stderr, "property case %d (kind %d, %zu values) failed: %d\n", c, c % 7,
				a.n, bad);
			check_failures++;
			fails++;
		}
	}
	lza3_enc_free(zk);
	free(a.v);
}

/* Random and corrupted inputs: an error or some values and flags, never a crash. */
static void test_never_crashes(void)
{
	rng r = { 12345 };
	vec a = { 0 };
	uint32_t *blk = xmalloc(4096 * sizeof *blk);
	int errors = 0, oks = 0;
	for (int c = 0; c < 4000; c++) {
		dt_buf b = { 0 };
		if (c % 4 == 0) {
			size_t n = rndn(&r, 200);
			for (size_t i = 0; i < n; i++)
				buf_byte(&b, (uint8_t)(rndn(&r, 3) ? rnd(&r) : 0));
		} else {
			gen_case(&r, &a, c);
			if (a.n > 3000)
				a.n = 3000;
			encode(a.v, a.n, c % 3 == 0, &b);
			int k = 1 + (int)rndn(&r, 4);
			for (int j = 0; j < k && b.len; j++) {
				size_t at = rndn(&r, (uint32_t)b.len);
				switch (rndn(&r, 4)) {
				case 0: b.p[at] ^= (uint8_t)(1u << rndn(&r, 8)); break;
				case 1: b.p[at] = (uint8_t)rnd(&r); break;
				case 2: b.len = at; break;
				default: b.p[b.len - 1] = (uint8_t)rndn(&r, 8); break;
				}
			}
		}
		/* An exactly sized copy, so that ASan catches a read past the end. */
		uint8_t *in = xmalloc(b.len ? b.len : 1);
		if (b.len)
			memcpy(in, b.p, b.len);
		dt_err e;
		dt_err_clear(&e);
		lza3_dec *d = lza3_dec_new(in, b.len, "fuzz", &e);
		if (!d) {
			CHECK(e.status == DT_EDATA && e.offset >= 0 && (size_t)e.offset < b.len);
			errors++;
		} else {
			/* A corrupt stream can legitimately expand to ~65535 values per token:
			 * decode a bounded amount. */
			size_t total = 0;
			int64_t k;
			while (total < (1u << 22) &&
			       (k = lza3_dec_next(d, blk, 1 + rndn(&r, 4096), &e)) > 0)
				total += (size_t)k;
			if (e.status)
				CHECK(e.offset >= 0 && (size_t)e.offset < b.len);
			oks++;
			lza3_dec_free(d);
		}
		free(in);
		buf_free(&b);
	}
	CHECK(errors > 0 && oks > 0);
	free(blk);
	free(a.v);
}

/* The encoder reproduces real ParLOT files byte for byte: decode each, encode again. */
static int test_real_files(void)
{
	const char *sh = shared_dir();
	if (!sh) {
		fprintf(stderr, "SKIP: real ParLOT files: ../shared not found\n");
		return 0;
	}
	static const char *const runs[] = { "parlotm_trace", "parlotm_trace1" };
	int nfiles = 0;
	for (size_t i = 0; i < 2; i++) {
		char dir[4200];
		snprintf(dir, sizeof dir, "%s/data/parlot/%s/ptrace", sh, runs[i]);
		DIR *dh = opendir(dir);
		if (!dh) {
			fprintf(stderr, "SKIP: %s: not found\n", dir);
			continue;
		}
		struct dirent *de;
		while ((de = readdir(dh))) {
			size_t l = strlen(de->d_name);
			if (de->d_name[0] == '.' || (l > 5 && !strcmp(de->d_name + l - 5, ".info")))
				continue;
			char path[8400];
			snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
			uint8_t *data;
			size_t len;
			dt_err e;
			dt_err_clear(&e);
			CHECK_EQ_INT(read_file(path, &data, &len, &e), 0);
			uint32_t *v;
			size_t n;
			unsigned fl;
			CHECK_EQ_INT(decode(data, len, &v, &n, &fl, &e), 0);
			CHECK_EQ_INT(fl, 0);
			CHECK(n > 100);
			dt_buf b = { 0 };
			encode(v, n, 0, &b);
			if (b.len != len || memcmp(b.p, data, len)) {
				fprintf(stderr, "%s: re-encoding differs (%zu bytes, want %zu)\n", path,
					b.len, len);
				check_failures++;
			}
			buf_free(&b);
			free(v);
			free(data);
			nfiles++;
		}
		closedir(dh);
	}
	CHECK_EQ_INT(nfiles, 11);
	return nfiles;
}

/* One decoder restarted on stream after stream (short and long ones, ones whose history wraps,
 * damaged ones) decodes each as a fresh decoder does. */
static void test_restart(void)
{
	rng r = { 0x5eed1234 };
	vec a = { 0 };
	dt_buf b = { 0 };
	dt_err e;
	lza3_dec *d = NULL;
	const size_t cap = 1u << 20;
	uint32_t *out = xmalloc(cap * sizeof *out);
	int bad = 0;
	for (int i = 0; i < 60; i++) {
		gen_case(&r, &a, i);
		b.len = 0;
		encode(a.v, a.n, 0, &b);
		if (i % 5 == 4 && b.len > 2) /* damaged: a byte changed, or the stream cut short */
			b.p[rndn(&r, (uint32_t)b.len)] ^= (uint8_t)(1 + rndn(&r, 255));
		uint32_t *want = NULL;
		size_t nwant = 0;
		unsigned fl;
		int wr = decode(b.p, b.len, &want, &nwant, &fl, &e);
		dt_err_clear(&e);
		int rr = d ? lza3_dec_restart(d, b.p, b.len, &e) : !(d = lza3_dec_new(b.p, b.len, "t", &e));
		size_t got = 0;
		int64_t k = 0;
		while (!rr && got < cap) {
			size_t max = 1 + rndn(&r, 70000);
			if (max > cap - got)
				max = cap - got;
			if ((k = lza3_dec_next(d, out + got, max, &e)) <= 0)
				break;
			got += (size_t)k;
		}
		CHECK(got < cap);
		if (rr || k < 0) {
			bad += wr == 0; /* the fresh decoder took it */
		} else {
			bad += wr != 0 || got != nwant || (got && memcmp(out, want, got * sizeof *out));
		}
		free(want);
		if (rr && d) { /* a stream refused up front: the decoder is still usable */
			CHECK(lza3_dec_restart(d, (const uint8_t *)"\0", 1, &e) == 0);
		}
	}
	CHECK_EQ_INT(bad, 0);
	lza3_dec_free(d);
	free(out);
	free(a.v);
	buf_free(&b);
}

int main(void)
{
	test_vectors();
	test_restart();
	test_edge_cases();
	test_counts();
	test_wide();
	test_properties();
	test_never_crashes();
	test_real_files();
	CHECK_DONE();
}
