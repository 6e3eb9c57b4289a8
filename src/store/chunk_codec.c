/* chunk_codec.c: a chunk's events as an lza3 stream, then a zstd frame (chunk_codec.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "store/chunk_codec.h"
#include "store/lza3.h"

struct chunk_enc {
	lza3_enc *lza;
	ZSTD_CCtx *zc;
	dt_buf lz; /* the lza3 stream of the chunk being encoded */
};

struct chunk_dec {
	ZSTD_DCtx *zd;
	dt_buf lz;     /* the lza3 stream out of the zstd frame */
	lza3_dec *lza; /* restarted for each chunk: its history is 264 KiB */
};

chunk_enc *chunk_enc_new(void)
{
	chunk_enc *c = xcalloc(1, sizeof *c);
	c->lza = lza3_enc_new();
	c->zc = ZSTD_createCCtx();
	if (!c->zc)
		abort(); /* out of memory, as xmalloc treats it */
	ZSTD_CCtx_setParameter(c->zc, ZSTD_c_compressionLevel, CHUNK_ZSTD_LEVEL);
	ZSTD_CCtx_setParameter(c->zc, ZSTD_c_contentSizeFlag, 1);
	/* 4 bytes a chunk, so that a damaged chunk is said to be damaged, never read as other
	 * events */
	ZSTD_CCtx_setParameter(c->zc, ZSTD_c_checksumFlag, 1);
	return c;
}

void chunk_enc_free(chunk_enc *c)
{
	if (!c)
		return;
	lza3_enc_free(c->lza);
	ZSTD_freeCCtx(c->zc);
	buf_free(&c->lz);
	free(c);
}

int chunk_encode(chunk_enc *c, const uint32_t *ev, size_t n, dt_buf *out)
{
	c->lz.len = 0;
	lza3_enc_reset(c->lza);
	lza3_enc_put(c->lza, ev, n, &c->lz);
	lza3_enc_finish(c->lza, &c->lz);
	size_t bound = ZSTD_compressBound(c->lz.len);
	GROW(out->p, out->cap, bound);
	size_t z = ZSTD_compress2(c->zc, out->p, out->cap, c->lz.p, c->lz.len);
	if (!ZSTD_isError(z) && z < c->lz.len) {
		out->len = z;
		return CHUNK_LZA3_ZSTD;
	}
	out->len = 0;
	buf_put(out, c->lz.p, c->lz.len);
	return CHUNK_LZA3;
}

chunk_dec *chunk_dec_new(void)
{
	/* the zstd context is made at the first zstd chunk: a store of lza3 chunks needs none */
	return xcalloc(1, sizeof(chunk_dec));
}

void chunk_dec_free(chunk_dec *d)
{
	if (!d)
		return;
	ZSTD_freeDCtx(d->zd);
	buf_free(&d->lz);
	lza3_dec_free(d->lza);
	free(d);
}

/* The most bytes the lza3 stream of n events can take: a value is at most a count token and a
 * literal of three tokens (an escape and two halves), 8 bytes, and each group of four tokens
 * has one bit-pattern byte; the trailer and a partial group add a few. */
static uint64_t lza3_bound(uint64_t n)
{
	return n > (UINT64_MAX - 64) / 10 ? UINT64_MAX : 10 * n + 64;
}

int chunk_decode(chunk_dec *d, int codec, const uint8_t *in, size_t len, uint64_t n,
		 uint64_t first, const char *path, uint32_t **ev, size_t *nev, dt_err *e)
{
	*ev = NULL;
	*nev = 0;
	unsigned long long at = (unsigned long long)first;
	const uint8_t *lz = in;
	size_t lzlen = len;
	if (codec == CHUNK_LZA3_ZSTD) {
		unsigned long long size = ZSTD_getFrameContentSize(in, len);
		if (size == ZSTD_CONTENTSIZE_ERROR)
			return dt_err_at(e, path, -1,
					 "damaged event chunk at event %llu: not a zstd frame", at);
		if (size == ZSTD_CONTENTSIZE_UNKNOWN || size > lza3_bound(n))
			return dt_err_at(e, path, -1,
					 "damaged event chunk at event %llu: its zstd frame holds no "
					 "size or one too large for %llu events",
					 at, (unsigned long long)n);
		if (!d->zd && !(d->zd = ZSTD_createDCtx()))
			abort();
		GROW(d->lz.p, d->lz.cap, (size_t)size + 1);
		size_t got = ZSTD_decompressDCtx(d->zd, d->lz.p, (size_t)size, in, len);
		if (ZSTD_isError(got))
			return dt_err_at(e, path, -1, "damaged event chunk at event %llu: zstd: %s", at,
					 ZSTD_getErrorName(got));
		if (got != size)
			return dt_err_at(e, path, -1,
					 "damaged event chunk at event %llu: its zstd frame gave %zu "
					 "bytes, %llu announced",
					 at, got, size);
		lz = d->lz.p;
		lzlen = got;
	} else if (codec != CHUNK_LZA3) {
		return dt_err_at(e, path, -1,
				 "event chunk at event %llu has codec %d, which this difftrace does "
				 "not know: upgrade difftrace",
				 at, codec);
	}
	dt_err le;
	dt_err_clear(&le);
	int bad = 0;
	if (!d->lza)
		bad = !(d->lza = lza3_dec_new(lz, lzlen, path, &le));
	else
		bad = lza3_dec_restart(d->lza, lz, lzlen, &le) != 0;
	/* n + 1 values at most are decoded: one more than expected says the chunk is damaged,
	 * without expanding what a damaged stream could hold */
	size_t cap = n < 65536 ? (size_t)n + 1 : 65537, nv = 0;
	uint32_t *v = bad ? NULL : xmalloc(cap * sizeof *v);
	while (!bad && nv <= n) {
		if (nv == cap)
			GROW(v, cap, nv + 65536);
		size_t want = cap - nv;
		if (want > n + 1 - nv)
			want = (size_t)(n + 1 - nv);
		int64_t r = lza3_dec_next(d->lza, v + nv, want, &le);
		if (r < 0)
			bad = 1;
		else if (!r)
			break;
		else
			nv += (size_t)r;
	}
	if (bad) {
		free(v);
		char where[48] = "";
		if (le.offset >= 0)
			snprintf(where, sizeof where, " at byte %lld", (long long)le.offset);
		return dt_err_at(e, path, -1,
				 "damaged event chunk at event %llu: its lza3 stream%s%s: %s", at,
				 codec == CHUNK_LZA3_ZSTD ? " (inside the zstd frame)" : "", where,
				 le.msg);
	}
	unsigned flags = lza3_dec_flags(d->lza);
	if (nv != n || (flags & (LZA3_TRUNCATED | LZA3_UNTERMINATED))) {
		free(v);
		return dt_err_at(e, path, -1,
				 "damaged event chunk at event %llu: %s%zu events decoded, %llu "
				 "expected",
				 at, nv > n ? "over " : "", nv > n ? (size_t)n : nv,
				 (unsigned long long)n);
	}
	*ev = v;
	*nev = nv;
	return 0;
}
