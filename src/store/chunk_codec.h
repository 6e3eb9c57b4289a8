/* chunk_codec.h: the encoding of a chunk's `events` blob in the store.
 *
 * The events of a chunk are first an lza3 stream (the ParLOT predictor and zero elimination:
 * store/lza3.h), which finds the repetitions of loops but codes what is left with whole 16-bit
 * tokens. The chunk's `codec` column says what was done to that stream:
 *   CHUNK_LZA3       the blob is the lza3 stream itself (every chunk of a store of schema < 9,
 *                    and a chunk that zstd would not make smaller);
 *   CHUNK_LZA3_ZSTD  the blob is one zstd frame (libzstd, level CHUNK_ZSTD_LEVEL, with its
 *                    content size and checksum) of the lza3 stream: zstd's entropy coding
 *                    and matches over the tokens take a chunk of MPI + OpenMP events to
 *                    about a third of lza3's bytes, and decoding it costs little next to
 *                    lza3's own decoding.
 * Any other codec is one this difftrace does not know (written by a later one). */
#ifndef DT_CHUNK_CODEC_H
#define DT_CHUNK_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

enum { CHUNK_LZA3 = 0, CHUNK_LZA3_ZSTD = 1 };

/* zstd's own default level: at 8,192 traces of the scale benchmark, levels 1, 3 and 5 keep
 * 9.3, 8.9 and 8.1 MB and encode at 257, 249 and 185 M events/s (BENCHMARKS.md, issue 13). */
#define CHUNK_ZSTD_LEVEL 3

typedef struct chunk_enc chunk_enc;
typedef struct chunk_dec chunk_dec;

chunk_enc *chunk_enc_new(void);
void chunk_enc_free(chunk_enc *c);
/* Encodes the n events ev[0..n) as one chunk blob into out (replacing what it held); returns
 * the codec used: CHUNK_LZA3_ZSTD unless zstd fails or would not save a byte. */
int chunk_encode(chunk_enc *c, const uint32_t *ev, size_t n, dt_buf *out);

chunk_dec *chunk_dec_new(void);
void chunk_dec_free(chunk_dec *d);
/* Decodes the blob in[0..len) of the given codec into *ev (malloc'ed, *nev events), expecting
 * n events. Errors name path and the chunk's first event `first`, and say what is wrong (an
 * unknown codec, a damaged zstd frame, a damaged lza3 stream, a count other than n); nothing
 * is left in *ev then. */
int chunk_decode(chunk_dec *d, int codec, const uint8_t *in, size_t len, uint64_t n,
		 uint64_t first, const char *path, uint32_t **ev, size_t *nev, dt_err *e);

#endif
