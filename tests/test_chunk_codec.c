/* test_chunk_codec.c: the encoding of a chunk's events (store/chunk_codec.h): round trips of
 * empty, small, large and incompressible chunks, zstd taking a chunk of MPI + OpenMP time steps
 * well below lza3's bytes, and every kind of damage said in one line that names the file and the chunk,
 * never read as other events. */
#include <stdint.h>

#include "check.h"
#include "store/chunk_codec.h"
#include "store/lza3.h"
#include "store/store.h"

static uint64_t rng = 88172645463325252ull;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)rng;
}

/* A thread's time steps: MPI and OpenMP calls around 1 to 3 compute calls drawn at random, as
 * bench/gen_scale writes them (the calls the lza3 predictor cannot guess). */
static size_t fill_steps(uint32_t *ev, size_t n)
{
	size_t i = 0;
	while (i + 16 <= n) {
		static const uint32_t mpi[] = { 3, 4, 5 };
		for (unsigned k = 0; k < 3; k++) {
			ev[i++] = mpi[k];
			ev[i++] = DT_RET;
		}
		for (unsigned c = 1 + rnd() % 3; c; c--) {
			ev[i++] = 10 + rnd() % 40;
			ev[i++] = DT_RET;
		}
	}
	return i;
}

static size_t lza3_len(const uint32_t *ev, size_t n)
{
	lza3_enc *z = lza3_enc_new();
	dt_buf b = { 0 };
	lza3_enc_put(z, ev, n, &b);
	lza3_enc_finish(z, &b);
	lza3_enc_free(z);
	size_t len = b.len;
	buf_free(&b);
	return len;
}

/* Encodes ev[0..n), decodes it back and compares; returns the codec. */
static int round_trip(chunk_enc *enc, chunk_dec *dec, const uint32_t *ev, size_t n, dt_buf *b)
{
	int codec = chunk_encode(enc, ev, n, b);
	CHECK(codec == CHUNK_LZA3 || codec == CHUNK_LZA3_ZSTD);
	uint32_t *out;
	size_t nout;
	dt_err e;
	dt_err_clear(&e);
	CHECK(chunk_decode(dec, codec, b->p, b->len, n, 0, "s.db", &out, &nout, &e) == 0);
	if (e.status)
		fprintf(stderr, "round trip of %zu events: %s\n", n, e.msg);
	CHECK_EQ_INT(nout, n);
	CHECK(n == 0 || (out && !memcmp(out, ev, n * sizeof *ev)));
	free(out);
	return codec;
}

/* Decoding in[0..len) as codec fails, with msg in its one-line error; nothing is returned. */
static void bad(chunk_dec *dec, int codec, const uint8_t *in, size_t len, uint64_t n,
		const char *msg)
{
	uint32_t *out = (uint32_t *)1;
	size_t nout = 1;
	dt_err e;
	dt_err_clear(&e);
	CHECK(chunk_decode(dec, codec, in, len, n, 262144, "/x/s.db", &out, &nout, &e) == -1);
	CHECK(out == NULL && nout == 0);
	char line[1200];
	dt_err_format(&e, line, sizeof line);
	CHECK_EQ_STR(e.file, "/x/s.db");
	CHECK(strchr(line, '\n') == NULL);
	if (!strstr(line, msg) || !strstr(line, "/x/s.db: ") || !strstr(line, "event 262144")) {
		fprintf(stderr, "error \"%s\" lacks \"%s\"\n", line, msg);
		check_failures++;
	}
}

int main(void)
{
	chunk_enc *enc = chunk_enc_new();
	chunk_dec *dec = chunk_dec_new();
	dt_buf b = { 0 };
	const size_t big = STORE_CHUNK_EVENTS;
	uint32_t *ev = xmalloc(big * sizeof *ev);

	/* an empty chunk and a tiny one: zstd's frame would be larger, so they stay lza3 */
	CHECK_EQ_INT(round_trip(enc, dec, ev, 0, &b), CHUNK_LZA3);
	static const uint32_t five[] = { 7, 8, DT_RET, DT_RET, 9 };
	CHECK_EQ_INT(round_trip(enc, dec, five, 5, &b), CHUNK_LZA3);
	CHECK_EQ_INT(b.len, lza3_len(five, 5));
	/* a chunk that holds more events than its row says is damaged, not cut to the count */
	bad(dec, CHUNK_LZA3, b.p, b.len, 4, "over 4 events decoded, 4 expected");
	bad(dec, CHUNK_LZA3, b.p, b.len, 6, "5 events decoded, 6 expected");

	/* a full chunk of time steps: zstd, in under two thirds of lza3's bytes (the compute calls
	 * here are 1 to 3 of 40 drawn at random, more random than a run's behaviours) */
	size_t n = fill_steps(ev, big);
	CHECK_EQ_INT(round_trip(enc, dec, ev, n, &b), CHUNK_LZA3_ZSTD);
	size_t lz = lza3_len(ev, n);
	if (!(b.len * 3 < lz * 2)) {
		fprintf(stderr, "time steps: %zu bytes in zstd, %zu in lza3\n", b.len, lz);
		check_failures++;
	}
	/* the same decoder again, and one encoder for chunk after chunk */
	size_t n2 = fill_steps(ev, 3000);
	CHECK_EQ_INT(round_trip(enc, dec, ev, n2, &b), CHUNK_LZA3_ZSTD);

	/* the worst case of lza3: random wide values, each a count, an escape and two halves;
	 * the decoder's bound on an lza3 stream's size holds */
	for (size_t i = 0; i < big; i++)
		ev[i] = 0x10000 + rnd();
	round_trip(enc, dec, ev, big, &b);
	CHECK(lza3_len(ev, big) <= 10 * big + 64);

	/* damage, one kind at a time, on a chunk of time steps */
	n = fill_steps(ev, 20000);
	CHECK_EQ_INT(chunk_encode(enc, ev, n, &b), CHUNK_LZA3_ZSTD);
	uint8_t *z = xmalloc(b.len + 16);
	size_t zl = b.len;
	memcpy(z, b.p, zl);
	bad(dec, 7, z, zl, n, "has codec 7, which this difftrace does not know");
	bad(dec, -1, z, zl, n, "has codec -1");
	bad(dec, CHUNK_LZA3_ZSTD, (const uint8_t *)"\xff\x01\x02\x03\x04\x05", 6, n,
	    "damaged event chunk at event 262144: not a zstd frame");
	bad(dec, CHUNK_LZA3_ZSTD, z, 0, n, "not a zstd frame");
	bad(dec, CHUNK_LZA3_ZSTD, z, zl - 7, n, "damaged event chunk at event 262144: zstd: ");
	bad(dec, CHUNK_LZA3_ZSTD, z, zl, n + 1, "events decoded, ");
	bad(dec, CHUNK_LZA3_ZSTD, z, zl, 10, "one too large for 10 events");
	memcpy(z + zl, z, zl > 16 ? 16 : zl); /* a second frame after the first */
	bad(dec, CHUNK_LZA3_ZSTD, z, zl + 16, n, "damaged event chunk at event 262144: zstd: ");
	/* the lza3 stream of an lza3 chunk, or inside a sound zstd frame, damaged */
	static const uint8_t badtrailer[] = { 0x01, 0x07, 0x09 };
	bad(dec, CHUNK_LZA3, badtrailer, sizeof badtrailer, 1, "its lza3 stream");
	/* every single byte changed, in turn: an error that says the chunk is damaged, or (in a
	 * byte zstd does not read) the same events; never other events, never a crash */
	int caught = 0, same = 0;
	for (size_t i = 0; i < zl; i++) {
		for (unsigned bit = 0; bit < 8; bit += 3) {
			z[i] ^= (uint8_t)(1u << bit);
			uint32_t *out;
			size_t nout;
			dt_err e;
			dt_err_clear(&e);
			if (chunk_decode(dec, CHUNK_LZA3_ZSTD, z, zl, n, 0, "s.db", &out, &nout, &e)) {
				caught++;
				CHECK(strstr(e.msg, "damaged event chunk at event 0: ") == e.msg);
			} else {
				same++;
				CHECK(nout == n && !memcmp(out, ev, n * sizeof *ev));
				free(out);
			}
			z[i] ^= (uint8_t)(1u << bit);
		}
	}
	CHECK(caught > 0);
	printf("%d changed bytes caught, %d read the same events\n", caught, same);

	free(z);
	free(ev);
	buf_free(&b);
	chunk_enc_free(enc);
	chunk_dec_free(dec);
	CHECK_DONE();
}
