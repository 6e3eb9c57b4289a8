/* fuzz_chunk.c: the store's chunk decoder (store/chunk_codec.h) on arbitrary chunks: byte 0
 * picks the codec (0 lza3, 1 lza3 in a zstd frame, else a codec it does not know), bytes 1-2
 * the expected event count (little-endian), the rest is the blob. It must fail cleanly or
 * decode, never read out of bounds; one decoder restarted on the same chunk must say the same;
 * and what it decodes must encode and decode to the same events. */
#include <stdlib.h>
#include <string.h>

#include "store/chunk_codec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 3)
		return 0;
	int codec = data[0];
	uint64_t n = (uint64_t)data[1] | (uint64_t)data[2] << 8;
	/* an exactly sized copy, so that ASan sees any read past the blob */
	size_t len = size - 3;
	uint8_t *blob = malloc(len ? len : 1);
	if (len)
		memcpy(blob, data + 3, len);
	chunk_dec *d = chunk_dec_new();
	uint32_t *v = NULL, *w = NULL;
	size_t nv = 0, nw = 0;
	dt_err e;
	dt_err_clear(&e);
	int r1 = chunk_decode(d, codec, blob, len, n, 0, "fuzz", &v, &nv, &e);
	char m1[sizeof e.msg];
	memcpy(m1, e.msg, sizeof m1);
	dt_err_clear(&e);
	int r2 = chunk_decode(d, codec, blob, len, n, 0, "fuzz", &w, &nw, &e);
	if (r1 != r2 || nv != nw || (nv && memcmp(v, w, nv * sizeof *v)) ||
	    (r1 && strcmp(m1, e.msg)))
		abort(); /* a restarted decoder differs from a fresh one */
	if (!r1 && nv != n)
		abort(); /* a chunk decoded to another count than its own */
	if (!r1) {
		chunk_enc *c = chunk_enc_new();
		dt_buf b = { 0 };
		int k = chunk_encode(c, v, nv, &b);
		free(w);
		w = NULL;
		dt_err_clear(&e);
		if (chunk_decode(d, k, b.p, b.len, nv, 0, "fuzz", &w, &nw, &e) || nw != nv ||
		    (nv && memcmp(v, w, nv * sizeof *v)))
			abort(); /* the codec does not round-trip */
		buf_free(&b);
		chunk_enc_free(c);
	}
	free(v);
	free(w);
	free(blob);
	chunk_dec_free(d);
	return 0;
}
