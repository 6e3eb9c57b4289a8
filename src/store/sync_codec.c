/* sync_codec.c: chunks of sync events, column by column (sync_codec.h). */
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "store/chunk_codec.h"
#include "store/sync_codec.h"

#define NCOL SYNC_NCOL /* SYNC_CODEC_COLUMNS_ZSTD had the first 19, SYNC_CODEC_SITES_ZSTD 20 */

struct sync_codec {
	ZSTD_CCtx *zc;
	ZSTD_DCtx *zd;
	dt_buf raw;
};

sync_codec *sync_codec_new(void)
{
	return xcalloc(1, sizeof(sync_codec));
}

void sync_codec_free(sync_codec *c)
{
	if (!c)
		return;
	ZSTD_freeCCtx(c->zc);
	ZSTD_freeDCtx(c->zd);
	buf_free(&c->raw);
	free(c);
}

/* The columns of a chunk, in their order (set_column's), each as 64-bit values: delta-encoded
 * (the difference wraps as unsigned: no overflow for any pair of values), zigzag as buf_svar,
 * unsigned LEB128, written from the events' fields directly. */
#define SYNC_COLUMNS(X)                                                                       \
	X(seq) X(phase) X(func) X(ts) X(comm) X(dest) X(stag) X(src) X(rtag) X(root) X(count) \
	X(datatype) X(op) X(req) X(obj) X(objseq) X(team) X(tnum) X(csize) X(site) X(disp)    \
	X(rassert) X(lock) X(digest)

static void set_column(dt_sync_event *v, int k, int64_t x)
{
	switch (k) {
	case 0: v->seq = (uint32_t)x; break;
	case 1: v->phase = (uint8_t)x; break;
	case 2: v->func = (uint32_t)x; break;
	case 3: v->ts = x; break;
	case 4: v->comm = (int32_t)x; break;
	case 5: v->dest = (int32_t)x; break;
	case 6: v->stag = (int32_t)x; break;
	case 7: v->src = (int32_t)x; break;
	case 8: v->rtag = (int32_t)x; break;
	case 9: v->root = (int32_t)x; break;
	case 10: v->count = x; break;
	case 11: v->datatype = (int32_t)x; break;
	case 12: v->op = (int32_t)x; break;
	case 13: v->req = (uint64_t)x; break;
	case 14: v->obj = (uint64_t)x; break;
	case 15: v->objseq = (uint64_t)x; break;
	case 16: v->team = (int32_t)x; break;
	case 17: v->tnum = (int32_t)x; break;
	case 18: v->csize = (int32_t)x; break;
	case 19: v->site = (uint32_t)x; break;
	case 20: v->disp = x; break;
	case 21: v->rassert = (int32_t)x; break;
	case 22: v->lock = (int32_t)x; break;
	default: v->digest = (uint64_t)x; break;
	}
}

/* Writes v as an unsigned LEB128 at q (room for 10 bytes): the end. */
static uint8_t *put_uvar(uint8_t *q, uint64_t v)
{
	while (v >= 0x80) {
		*q++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*q++ = (uint8_t)v;
	return q;
}

size_t sync_cols_put(const dt_sync_event *ev, size_t n, uint8_t *raw, uint32_t end[SYNC_NCOL])
{
	uint8_t *q = raw;
	int k = 0;
	/* a column that does not change in the chunk (most of them in a run of a few calls) is
	 * its first value and zeros: found by a look at its values before writing them */
#define ENCODE_COLUMN(f)                                                          \
	{                                                                         \
		uint64_t prev = 0;                                                \
		size_t same = 1;                                                  \
		while (same < n && ev[same].f == ev[0].f)                         \
			same++;                                                   \
		if (n && same == n) {                                             \
			uint64_t d = (uint64_t)(int64_t)ev[0].f;                  \
			q = put_uvar(q, (d << 1) ^ (uint64_t)((int64_t)d >> 63)); \
			memset(q, 0, n - 1);                                      \
			q += n - 1;                                               \
		} else {                                                          \
			for (size_t i = 0; i < n; i++) {                          \
				uint64_t x = (uint64_t)(int64_t)ev[i].f;          \
				uint64_t d = x - prev;                            \
				q = put_uvar(q, (d << 1) ^                        \
						    (uint64_t)((int64_t)d >> 63)); \
				prev = x;                                         \
			}                                                         \
		}                                                                 \
		end[k++] = (uint32_t)(q - raw);                                   \
	}
	SYNC_COLUMNS(ENCODE_COLUMN)
#undef ENCODE_COLUMN
	return (size_t)(q - raw);
}

int sync_col_map(const uint8_t *col, size_t len, size_t n, const uint32_t *map, size_t nmap,
		 dt_buf *out)
{
	GROW(out->p, out->cap, out->len + n * 10);
	uint8_t *q = out->p + out->len;
	size_t pos = 0;
	uint64_t prev = 0, mprev = 0;
	for (size_t i = 0; i < n; i++) {
		int64_t d;
		if (pos < len && col[pos] < 0x80) /* a byte: most values */
			d = (int64_t)(col[pos] >> 1) ^ -(int64_t)(col[pos] & 1), pos++;
		else if (svar_get(col, len, &pos, &d))
			return -1;
		prev += (uint64_t)d;
		if (prev > nmap)
			return -1;
		uint64_t m = prev ? map[prev] : 0, dm = m - mprev;
		q = put_uvar(q, (dm << 1) ^ (uint64_t)((int64_t)dm >> 63));
		mprev = m;
	}
	if (pos != len)
		return -1;
	out->len = (size_t)(q - out->p);
	return 0;
}

int sync_encode_cols(sync_codec *c, const uint8_t *raw, size_t len, dt_buf *out)
{
	if (!c->zc && !(c->zc = ZSTD_createCCtx()))
		abort();
	ZSTD_CCtx_setParameter(c->zc, ZSTD_c_compressionLevel, CHUNK_ZSTD_LEVEL);
	ZSTD_CCtx_setParameter(c->zc, ZSTD_c_checksumFlag, 1);
	ZSTD_CCtx_setParameter(c->zc, ZSTD_c_contentSizeFlag, 1);
	size_t bound = ZSTD_compressBound(len);
	out->len = 0;
	GROW(out->p, out->cap, bound);
	size_t z = ZSTD_compress2(c->zc, out->p, bound, raw ? raw : (const uint8_t *)"", len);
	if (ZSTD_isError(z))
		abort(); /* the bound holds: only a broken library fails here */
	out->len = z;
	return SYNC_CODEC_RMA_ZSTD;
}

int sync_encode(sync_codec *c, const dt_sync_event *ev, size_t n, dt_buf *out)
{
	/* the raw bytes are kept from chunk to chunk, grown once to their bound */
	GROW(c->raw.p, c->raw.cap, n * NCOL * 10 + 1);
	uint32_t end[SYNC_NCOL];
	c->raw.len = sync_cols_put(ev, n, c->raw.p, end);
	return sync_encode_cols(c, c->raw.p, c->raw.len, out);
}

/* Reads ncol columns of n events from raw into ev; -1 with *col and *at where a column ended
 * early, or *col = ncol when bytes are left after the last. */
static int cols_get(const uint8_t *raw, size_t len, size_t n, int ncol, dt_sync_event *ev,
		    int *col, size_t *at)
{
	size_t pos = 0;
	for (int k = 0; k < ncol; k++) {
		uint64_t prev = 0;
		for (size_t i = 0; i < n; i++) {
			int64_t d;
			if (svar_get(raw, len, &pos, &d)) {
				*col = k;
				*at = i;
				return -1;
			}
			prev += (uint64_t)d;
			set_column(&ev[i], k, (int64_t)prev);
		}
	}
	*col = ncol;
	*at = len - pos;
	return pos == len ? 0 : -1;
}

int sync_cols_get(const uint8_t *raw, size_t len, size_t n, dt_sync_event *ev)
{
	int col;
	size_t at;
	return cols_get(raw, len, n, NCOL, ev, &col, &at);
}

int sync_decode(sync_codec *c, int codec, const uint8_t *in, size_t len, size_t n, uint64_t first,
		const char *path, dt_sync_event *ev, dt_err *e)
{
	unsigned long long at = (unsigned long long)first;
	if (codec != SYNC_CODEC_COLUMNS_ZSTD && codec != SYNC_CODEC_SITES_ZSTD &&
	    codec != SYNC_CODEC_RMA_ZSTD)
		return dt_err_at(e, path, -1,
				 "sync chunk at event %llu has codec %d, which this difftrace does not "
				 "know: upgrade difftrace",
				 at, codec);
	if (n > SYNC_CHUNK_EVENTS)
		return dt_err_at(e, path, -1, "damaged sync chunk at event %llu: %zu events", at, n);
	unsigned long long size = len ? ZSTD_getFrameContentSize(in, len) : ZSTD_CONTENTSIZE_ERROR;
	int ncol = codec == SYNC_CODEC_COLUMNS_ZSTD ? 19 : codec == SYNC_CODEC_SITES_ZSTD ? 20 : NCOL;
	if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN ||
	    size > (unsigned long long)n * (unsigned)ncol * 10 + 16)
		return dt_err_at(e, path, -1,
				 "damaged sync chunk at event %llu: not a zstd frame of %zu events", at,
				 n);
	if (!c->zd && !(c->zd = ZSTD_createDCtx()))
		abort();
	c->raw.len = 0;
	GROW(c->raw.p, c->raw.cap, (size_t)size + 1);
	size_t got = ZSTD_decompressDCtx(c->zd, c->raw.p, (size_t)size, in, len);
	if (ZSTD_isError(got) || got != size)
		return dt_err_at(e, path, -1, "damaged sync chunk at event %llu: zstd: %s", at,
				 ZSTD_isError(got) ? ZSTD_getErrorName(got) : "short frame");
	for (size_t i = 0; i < n && ncol < NCOL; i++) {
		/* a chunk written before sites, or before one-sided calls and digests */
		ev[i].site = ncol < 20 ? 0 : ev[i].site;
		ev[i].disp = 0;
		ev[i].rassert = ev[i].lock = 0;
		ev[i].digest = 0;
	}
	int k;
	size_t i;
	if (!cols_get(c->raw.p, got, n, ncol, ev, &k, &i))
		return 0;
	if (k < ncol)
		return dt_err_at(e, path, -1,
				 "damaged sync chunk at event %llu: column %d ends at event %zu of %zu",
				 at, k, i, n);
	return dt_err_at(e, path, -1, "damaged sync chunk at event %llu: %zu bytes after its %zu events",
			 at, i, n);
}
