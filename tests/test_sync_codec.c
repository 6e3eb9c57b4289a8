/* test_sync_codec.c: chunks of sync events (store/sync_codec.h): every field round-trips,
 * extreme values too; a regular stream of MPI calls takes a few bytes an event; a damaged
 * chunk is a one-line error naming the store and the chunk's first event, never other
 * events. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "check.h"
#include "store/sync_codec.h"

static uint64_t rs = 88172645463325252ull;
static uint64_t rnd(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return rs;
}

static int same(const dt_sync_event *a, const dt_sync_event *b)
{
	return a->seq == b->seq && a->phase == b->phase && a->func == b->func && a->ts == b->ts &&
	       a->comm == b->comm && a->dest == b->dest && a->stag == b->stag &&
	       a->src == b->src && a->rtag == b->rtag && a->root == b->root &&
	       a->count == b->count && a->datatype == b->datatype && a->op == b->op &&
	       a->req == b->req && a->obj == b->obj && a->objseq == b->objseq &&
	       a->team == b->team && a->tnum == b->tnum && a->csize == b->csize &&
	       a->site == b->site && a->disp == b->disp && a->rassert == b->rassert &&
	       a->lock == b->lock && a->digest == b->digest;
}

/* A ring exchange: Send to the next, Recv from the previous, an Allreduce; entries and exits. */
static void ring(dt_sync_event *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		dt_sync_event *x = &v[i];
		memset(x, 0, sizeof *x);
		x->seq = (uint32_t)i;
		x->phase = i & 1;
		size_t call = (i / 2) % 3;
		x->func = (uint32_t)(10 + call);
		x->ts = 1000000 + (int64_t)i * 8000 + (int64_t)(rnd() % 500);
		x->comm = 0;
		x->dest = call == 0 ? 2 : DT_SYNC_NONE;
		x->stag = call == 0 ? 5 : DT_SYNC_NONE;
		x->src = call == 1 ? 0 : DT_SYNC_NONE;
		x->rtag = call == 1 ? 5 : DT_SYNC_NONE;
		x->root = DT_SYNC_NONE;
		x->count = 1;
		x->datatype = 7;
		x->op = call == 2 ? 3 : DT_SYNC_NONE;
		x->team = x->tnum = DT_SYNC_NONE;
		x->csize = call == 2 ? 4 : 0;
		x->site = (uint32_t)(1 + call);
	}
}

static void bad(sync_codec *c, int codec, const uint8_t *in, size_t len, size_t n,
		const char *msg)
{
	dt_sync_event *v = xcalloc(n ? n : 1, sizeof *v);
	dt_err e;
	dt_err_clear(&e);
	CHECK(sync_decode(c, codec, in, len, n, 8192, "/x/s.db", v, &e) == -1);
	char line[1200];
	dt_err_format(&e, line, sizeof line);
	CHECK(strchr(line, '\n') == NULL);
	if (!strstr(line, msg) || !strstr(line, "/x/s.db: ") || !strstr(line, "event 8192")) {
		fprintf(stderr, "error \"%s\" lacks \"%s\"\n", line, msg);
		check_failures++;
	}
	free(v);
}

int main(void)
{
	sync_codec *c = sync_codec_new();
	dt_buf b = { 0 };
	size_t n = SYNC_CHUNK_EVENTS;
	dt_sync_event *v = xmalloc(n * sizeof *v), *w = xmalloc(n * sizeof *w);
	dt_err e;
	dt_err_clear(&e);

	/* a regular stream: a few bytes an event (a row of the table took 53) */
	ring(v, n);
	CHECK_EQ_INT(sync_encode(c, v, n, &b), SYNC_CODEC_RMA_ZSTD);
	if (!(b.len < 3 * n)) {
		fprintf(stderr, "ring: %zu bytes for %zu events\n", b.len, n);
		check_failures++;
	}
	memset(w, 0x5a, n * sizeof *w);
	CHECK(sync_decode(c, SYNC_CODEC_RMA_ZSTD, b.p, b.len, n, 0, "s.db", w, &e) == 0);
	size_t diff = 0;
	for (size_t i = 0; i < n; i++)
		diff += !same(&v[i], &w[i]);
	CHECK_EQ_INT(diff, 0);

	/* every field at its extremes, and values at random */
	for (size_t i = 0; i < n; i++) {
		dt_sync_event *x = &v[i];
		int edge = i % 3 == 0;
		x->seq = edge ? UINT32_MAX : (uint32_t)rnd();
		x->phase = (uint8_t)rnd();
		x->func = edge ? UINT32_MAX : (uint32_t)rnd();
		x->ts = edge ? (i & 2 ? INT64_MIN : INT64_MAX) : (int64_t)rnd();
		x->comm = edge ? INT32_MIN : (int32_t)rnd();
		x->dest = edge ? INT32_MAX : (int32_t)rnd();
		x->stag = (int32_t)rnd();
		x->src = (int32_t)rnd();
		x->rtag = (int32_t)rnd();
		x->root = (int32_t)rnd();
		x->count = edge ? INT64_MIN : (int64_t)rnd();
		x->datatype = (int32_t)rnd();
		x->op = (int32_t)rnd();
		x->req = edge ? UINT64_MAX : rnd();
		x->obj = rnd();
		x->objseq = edge ? UINT64_MAX : rnd();
		x->team = (int32_t)rnd();
		x->tnum = (int32_t)rnd();
		x->csize = edge ? INT32_MIN : (int32_t)rnd();
		x->site = edge ? UINT32_MAX : (uint32_t)rnd();
		x->disp = edge ? INT64_MIN : (int64_t)rnd();
		x->rassert = (int32_t)rnd();
		x->lock = (int32_t)rnd();
		x->digest = edge ? UINT64_MAX : rnd();
	}
	sync_encode(c, v, n, &b);
	CHECK(sync_decode(c, SYNC_CODEC_RMA_ZSTD, b.p, b.len, n, 0, "s.db", w, &e) == 0);
	diff = 0;
	for (size_t i = 0; i < n; i++)
		diff += !same(&v[i], &w[i]);
	CHECK_EQ_INT(diff, 0);
	/* an empty chunk and one event */
	sync_encode(c, v, 0, &b);
	CHECK(sync_decode(c, SYNC_CODEC_RMA_ZSTD, b.p, b.len, 0, 0, "s.db", w, &e) == 0);
	sync_encode(c, v, 1, &b);
	CHECK(sync_decode(c, SYNC_CODEC_RMA_ZSTD, b.p, b.len, 1, 0, "s.db", w, &e) == 0);
	CHECK(same(&v[0], &w[0]));

	/* chunks of codec 1 (written before the sites: its 19 columns, every site 0) and of codec
	 * 2 (before one-sided calls and digests: 20 columns): the columns they lack read as 0 */
	for (int codec = SYNC_CODEC_COLUMNS_ZSTD; codec <= SYNC_CODEC_SITES_ZSTD; codec++) {
		ring(v, 100);
		for (size_t i = 0; i < 100; i++)
			if (codec == SYNC_CODEC_COLUMNS_ZSTD)
				v[i].site = 0;
		sync_encode(c, v, 100, &b);
		unsigned long long raw = ZSTD_getFrameContentSize(b.p, b.len);
		uint8_t *r = xmalloc((size_t)raw), *z1 = xmalloc(ZSTD_compressBound((size_t)raw));
		CHECK(ZSTD_decompress(r, (size_t)raw, b.p, b.len) == raw);
		/* the columns after csize (site) and after site (disp, rassert, lock, digest) are
		 * the last 100 bytes each (every one a zero difference) */
		size_t cut = codec == SYNC_CODEC_COLUMNS_ZSTD ? 500 : 400;
		ZSTD_CCtx *zc = ZSTD_createCCtx();
		ZSTD_CCtx_setParameter(zc, ZSTD_c_contentSizeFlag, 1);
		size_t zl1 = ZSTD_compress2(zc, z1, ZSTD_compressBound((size_t)raw), r,
					    (size_t)raw - cut);
		CHECK(!ZSTD_isError(zl1));
		memset(w, 0x5a, 100 * sizeof *w);
		CHECK(sync_decode(c, codec, z1, zl1, 100, 0, "s.db", w, &e) == 0);
		diff = 0;
		for (size_t i = 0; i < 100; i++)
			diff += !same(&v[i], &w[i]);
		CHECK_EQ_INT(diff, 0);
		ZSTD_freeCCtx(zc);
		free(r);
		free(z1);
	}

	/* damage */
	ring(v, 100);
	sync_encode(c, v, 100, &b);
	uint8_t *z = xmalloc(b.len + 8);
	size_t zl = b.len;
	memcpy(z, b.p, zl);
	bad(c, 9, z, zl, 100, "has codec 9, which this difftrace does not know");
	bad(c, SYNC_CODEC_RMA_ZSTD, z, 0, 100, "not a zstd frame");
	bad(c, SYNC_CODEC_RMA_ZSTD, (const uint8_t *)"\x01\x02\x03\x04\x05\x06", 6, 100,
	    "not a zstd frame");
	bad(c, SYNC_CODEC_RMA_ZSTD, z, zl - 3, 100, "damaged sync chunk at event 8192: zstd: ");
	/* more events said than the chunk holds, or fewer */
	bad(c, SYNC_CODEC_RMA_ZSTD, z, zl, 101, "damaged sync chunk at event 8192: column ");
	bad(c, SYNC_CODEC_RMA_ZSTD, z, zl, 99, "bytes after its 99 events");
	bad(c, SYNC_CODEC_RMA_ZSTD, z, zl, SYNC_CHUNK_EVENTS + 1, "events");
	/* every byte changed in turn: an error, or (a byte zstd does not read) the same events */
	int caught = 0, kept = 0;
	for (size_t i = 0; i < zl; i++) {
		z[i] ^= 0x10;
		memset(w, 0, 100 * sizeof *w);
		if (sync_decode(c, SYNC_CODEC_RMA_ZSTD, z, zl, 100, 0, "s.db", w, &e)) {
			caught++;
			CHECK(strstr(e.msg, "damaged sync chunk at event 0: ") == e.msg);
		} else {
			kept++;
			size_t d = 0;
			for (size_t k = 0; k < 100; k++)
				d += !same(&v[k], &w[k]);
			CHECK_EQ_INT(d, 0);
		}
		dt_err_clear(&e);
		z[i] ^= 0x10;
	}
	CHECK(caught > 0);
	free(z);
	free(v);
	free(w);
	buf_free(&b);
	sync_codec_free(c);
	CHECK_DONE();
}
