/* fuzz_lza3.c: the lza3 decoder on arbitrary bytes: it must fail cleanly or decode, never read
 * out of bounds; and whatever it decodes must re-encode and decode to the same values, from a
 * stream the decoder finds nothing odd in (LZA3_ODD: the encoder never writes such states). */
#include <stdlib.h>
#include <string.h>

#include "store/lza3.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	dt_err e;
	dt_err_clear(&e);
	uint32_t *v = NULL, *w = NULL;
	size_t n = 0, m = 0;
	unsigned flags = 0;
	if (lza3_decode_all(data, size, &v, &n, &flags, "fuzz", &e) == 0) {
		dt_buf b = { 0 };
		lza3_enc *z = lza3_enc_new();
		lza3_enc_put(z, v, n, &b);
		lza3_enc_finish(z, &b);
		lza3_enc_free(z);
		dt_err_clear(&e);
		if (lza3_decode_all(b.p, b.len, &w, &m, &flags, "fuzz", &e) || m != n ||
		    (n && memcmp(v, w, n * sizeof *v)))
			abort(); /* the codec does not round-trip */
		if (flags & LZA3_ODD)
			abort(); /* the corruption check flags what the encoder writes */
		buf_free(&b);
	}
	free(v);
	free(w);
	return 0;
}
