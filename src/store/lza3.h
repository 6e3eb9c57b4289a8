/* lza3.h: the ParLOT "LZa3 | ZE" event codec (formats/parlot.md §1.4), widened to 32-bit values.
 *
 * It is both the ParLOT trace decoder and the store's own chunk codec. For values below 0xFFFF
 * the encoding is byte for byte ParLOT's. A larger value v is written as the literal token
 * 0xFFFF followed by the tokens v >> 16 and v & 0xFFFF; real ParLOT files never hold 0xFFFF as
 * a literal (the largest ParLOT function id is 65534), so every ParLOT file decodes unchanged.
 * The predictor's history buffer holds full 32-bit values. */
#ifndef DT_LZA3_H
#define DT_LZA3_H

#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

typedef struct lza3_enc lza3_enc;

lza3_enc *lza3_enc_new(void);
void lza3_enc_free(lza3_enc *z);
/* Starts a new independent stream (as at the start of a ParLOT thread). */
void lza3_enc_reset(lza3_enc *z);
/* Encodes n values, appending finished ZE groups to out. */
void lza3_enc_put(lza3_enc *z, const uint32_t *v, size_t n, dt_buf *out);
/* Writes the pending partial group and the trailer byte, as ParLOT does at thread exit. */
void lza3_enc_finish(lza3_enc *z, dt_buf *out);
/* Like finish, but stops before the trailer, as a killed process leaves its file:
 * only whole groups are written (for tests of unterminated files). */
void lza3_enc_cut(lza3_enc *z, dt_buf *out);

/* What the decoder found about the framing of its input. */
enum {
	LZA3_UNTERMINATED = 1u << 0, /* the group walk ended exactly at EOF: no trailer */
	LZA3_TRUNCATED = 1u << 1,    /* EOF inside a group: the incomplete group was dropped */
	LZA3_NO_DATA = 1u << 2,      /* a 0-byte input */
	/* a token sequence the encoder never writes (a literal equal to the value the count
	 * before it predicted, a count of 0 with no literal after it): the stream is corrupt,
	 * though it decodes (ParLOT has no checksum). Known once the stream is decoded. */
	LZA3_ODD = 1u << 3,
};

typedef struct lza3_dec lza3_dec;

/* A decoder over an in-memory (typically mmap'ed) input. Values come out in bounded blocks so
 * that a trace of 10^10 events never needs more than one block of raw events in memory.
 * The group walk (framing) is validated up front by lza3_dec_new; a hard error (trailer above 4,
 * bit-pattern bits set past the trailer's tokens) fails there with the byte offset. */
lza3_dec *lza3_dec_new(const uint8_t *in, size_t n, const char *name, dt_err *e);
void lza3_dec_free(lza3_dec *d);
/* Starts d on another independent stream in[0..n) (its name kept), as lza3_dec_new would but
 * reusing d's memory: a reader of many small streams (the store's chunks) then clears only the
 * part of the history the last stream wrote instead of mapping fresh pages for each. */
int lza3_dec_restart(lza3_dec *d, const uint8_t *in, size_t n, dt_err *e);
/* Decodes up to max values into out; returns how many (0 at the end), or -1 on an error
 * (an escape cut short by the end of the stream), with the byte offset in e. */
int64_t lza3_dec_next(lza3_dec *d, uint32_t *out, size_t max, dt_err *e);
/* LZA3_* framing flags, known after lza3_dec_new (LZA3_ODD: after the end). */
unsigned lza3_dec_flags(const lza3_dec *d);
/* Byte offset of the group holding the first odd token (LZA3_ODD). */
size_t lza3_dec_odd_at(const lza3_dec *d);
/* ZE writes a byte of a group exactly when it is not zero (parlot.md §1.4): the offset of the
 * first group of in[0..n) that carries a zero byte, or SIZE_MAX. A damaged file shows it; the
 * decoder reads such a group as any other (ParLOT has no checksum), so an importer asks. */
size_t lza3_zero_byte_at(const uint8_t *in, size_t n);

/* Convenience: decodes a whole buffer (store chunks, tests). *out is malloc'ed. */
int lza3_decode_all(const uint8_t *in, size_t n, uint32_t **out, size_t *nout, unsigned *flags,
		    const char *name, dt_err *e);

#endif
