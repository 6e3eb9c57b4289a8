/* bench_decode.c: how fast difftrace reads events, next to zstd on the same events.
 *
 * For two synthetic traces of N events (default 10^8; bench/workload.h: the nested loops of an
 * MPI + OpenMP time-step loop, and the irregular thread whose loops vary) it prints:
 *   1. in process, both sides timed the same way (the thread's CPU time, best of 3, in this
 *      one process, each decoding into a 256 KiB buffer that it reuses, as a reader of events
 *      does): lza3 (the ParLOT codec) decoding the events as one stream, and zstd decoding the
 *      same events stored raw as 16-bit words at level 3 (libzstd.so.1, loaded at run time;
 *      skipped without it), with bytes per event and the ratio of the rates;
 *   2. as whole commands, both sides the same way (wall and CPU time of the child, best of 3,
 *      each started through the shell with its output to /dev/null):
 *      `bench_decode --decode FILE.lza3` (this program reading the lza3 file, decoding it and
 *      writing the events as 16-bit words) and `zstd -q -d -c FILE.zst`, with the ratio;
 *   3. for each trace, the store: writing it through the import path (once), reading it back
 *      with a cursor (best of 3), each on the wall clock and the thread's CPU time, and the
 *      bytes it keeps per event (its chunks: lza3 streams in zstd frames, store/chunk_codec.h).
 * Usage: bench_decode [N]
 *        bench_decode --decode FILE   (the whole-command side of part 2) */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "store/lza3.h"
#include "store/store.h"
#include "bench_build.h"
#include "workload.h"

enum { BLOCK = 1 << 16 }; /* events per decode call: 256 KiB of 32-bit events */

static double wall(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static double cpu(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static double children_cpu(void)
{
	struct rusage r;
	getrusage(RUSAGE_CHILDREN, &r);
	return (double)r.ru_utime.tv_sec + r.ru_utime.tv_usec / 1e6 + (double)r.ru_stime.tv_sec +
	       r.ru_stime.tv_usec / 1e6;
}

static long long fsize(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 ? (long long)st.st_size : -1;
}

/* ---- zstd through libzstd.so.1's stable streaming API, declared here (no header needed) ---- */

typedef struct {
	const void *src;
	size_t size, pos;
} zin;
typedef struct {
	void *dst;
	size_t size, pos;
} zout;

static struct {
	void *(*dctx_new)(void);
	size_t (*dctx_free)(void *);
	size_t (*stream)(void *, zout *, zin *);
	size_t (*compress)(void *, size_t, const void *, size_t, int);
	size_t (*bound)(size_t);
	unsigned (*is_error)(size_t);
} zl;

static int zstd_load(void)
{
	void *h = dlopen("libzstd.so.1", RTLD_NOW);
	if (!h)
		return -1;
	*(void **)&zl.dctx_new = dlsym(h, "ZSTD_createDStream");
	*(void **)&zl.dctx_free = dlsym(h, "ZSTD_freeDStream");
	*(void **)&zl.stream = dlsym(h, "ZSTD_decompressStream");
	*(void **)&zl.compress = dlsym(h, "ZSTD_compress");
	*(void **)&zl.bound = dlsym(h, "ZSTD_compressBound");
	*(void **)&zl.is_error = dlsym(h, "ZSTD_isError");
	return zl.dctx_new && zl.dctx_free && zl.stream && zl.compress && zl.bound && zl.is_error
		       ? 0
		       : -1;
}

/* Decodes the lza3 stream z into blk, BLOCK events at a time; returns the events (and a
 * checksum in *sum), or -1. When out is set, writes them as 16-bit words to it. */
static int64_t lza3_pass(const uint8_t *z, size_t len, uint32_t *blk, uint64_t *sum, FILE *out)
{
	dt_err e;
	dt_err_clear(&e);
	lza3_dec *d = lza3_dec_new(z, len, "bench", &e);
	if (!d)
		return -1;
	uint16_t *w = out ? xmalloc(BLOCK * sizeof *w) : NULL;
	int64_t k, got = 0;
	while ((k = lza3_dec_next(d, blk, BLOCK, &e)) > 0) {
		*sum += blk[k - 1];
		got += k;
		if (out) {
			for (int64_t i = 0; i < k; i++)
				w[i] = (uint16_t)blk[i];
			fwrite(w, sizeof *w, (size_t)k, out);
		}
	}
	free(w);
	lza3_dec_free(d);
	return k < 0 ? -1 : got;
}

/* The whole-command side: reads FILE, decodes it, writes the events to stdout. */
static int decode_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return 1;
	}
	long long n = fsize(path);
	uint8_t *z = xmalloc(n > 0 ? (size_t)n : 1);
	size_t len = fread(z, 1, n > 0 ? (size_t)n : 0, f);
	fclose(f);
	uint32_t *blk = xmalloc(BLOCK * sizeof *blk);
	uint64_t sum = 0;
	int64_t got = lza3_pass(z, len, blk, &sum, stdout);
	free(blk);
	free(z);
	if (got < 0 || fflush(stdout))
		return 1;
	return 0;
}

/* Best of 3 of a shell command: wall time, and the CPU time of its children. */
static int run_cmd(const char *cmd, double *bw, double *bc)
{
	*bw = *bc = 1e9;
	for (int rep = 0; rep < 3; rep++) {
		double c0 = children_cpu(), t0 = wall();
		if (system(cmd) != 0)
			return -1;
		double tw = wall() - t0, tc = children_cpu() - c0;
		if (tw < *bw)
			*bw = tw;
		if (tc < *bc)
			*bc = tc;
	}
	return 0;
}

/* Parts 1 and 2 for one workload; 0, or -1 on a failure. */
static int compare(const char *what, const uint32_t *ev, size_t n, const char *dir,
		   const char *self, int have_zstd)
{
	printf("%s: %zu events\n", what, n);
	dt_buf z = { 0 };
	lza3_enc *enc = lza3_enc_new();
	double t0 = cpu();
	lza3_enc_put(enc, ev, n, &z);
	lza3_enc_finish(enc, &z);
	double tenc = cpu() - t0;
	lza3_enc_free(enc);
	uint32_t *blk = xmalloc(BLOCK * sizeof *blk);
	uint64_t sum = 0;
	double lz = 1e9;
	for (int rep = 0; rep < 3; rep++) {
		t0 = cpu();
		int64_t got = lza3_pass(z.p, z.len, blk, &sum, NULL);
		double t = cpu() - t0;
		if (got != (int64_t)n) {
			fprintf(stderr, "bench_decode: lza3 gave %lld events, expected %zu\n",
				(long long)got, n);
			return -1;
		}
		if (t < lz)
			lz = t;
	}

	/* the same events as raw 16-bit words, compressed by zstd at level 3 */
	char raw[256], zst[256], lzf[256], cmd[1024];
	snprintf(raw, sizeof raw, "%s/raw", dir);
	snprintf(zst, sizeof zst, "%s/raw.zst", dir);
	snprintf(lzf, sizeof lzf, "%s/ev.lza3", dir);
	uint16_t *r16 = xmalloc(n * sizeof *r16);
	for (size_t i = 0; i < n; i++)
		r16[i] = (uint16_t)ev[i];
	FILE *f = fopen(raw, "wb");
	if (!f || fwrite(r16, sizeof *r16, n, f) != n || fclose(f))
		return -1;
	f = fopen(lzf, "wb");
	if (!f || fwrite(z.p, 1, z.len, f) != z.len || fclose(f))
		return -1;
	snprintf(cmd, sizeof cmd, "zstd -q -f -3 -T1 '%s' -o '%s'", raw, zst);
	int cli_zstd = system(cmd) == 0;
	double zs = 0;
	long long zlen = fsize(zst);
	if (have_zstd && cli_zstd && zlen > 0) {
		uint8_t *zb = xmalloc((size_t)zlen);
		f = fopen(zst, "rb");
		if (!f || fread(zb, 1, (size_t)zlen, f) != (size_t)zlen)
			return -1;
		fclose(f);
		uint8_t *obuf = xmalloc(BLOCK * sizeof *blk);
		zs = 1e9;
		for (int rep = 0; rep < 3; rep++) {
			t0 = cpu();
			void *dc = zl.dctx_new();
			zin in = { zb, (size_t)zlen, 0 };
			size_t bytes = 0;
			while (bytes < n * sizeof *r16) {
				zout out = { obuf, BLOCK * sizeof *blk, 0 };
				size_t rc = zl.stream(dc, &out, &in);
				if (zl.is_error(rc) || (!out.pos && in.pos == in.size))
					break;
				sum += obuf[out.pos - 1];
				bytes += out.pos;
			}
			zl.dctx_free(dc);
			double t = cpu() - t0;
			if (bytes != n * sizeof *r16) {
				fprintf(stderr, "bench_decode: zstd gave %zu bytes\n", bytes);
				return -1;
			}
			if (t < zs)
				zs = t;
		}
		free(obuf);
		free(zb);
	}
	free(r16);
	printf("  1. in process, thread CPU time, best of 3, into a reused 256 KiB buffer\n");
	printf("  %-32s %8.1f M events/s  %8.4f bytes/event  (encode %.1f M events/s)\n",
	       "lza3 decode (difftrace)", n / lz / 1e6, (double)z.len / n, n / tenc / 1e6);
	if (zs > 0) {
		printf("  %-32s %8.1f M events/s  %8.4f bytes/event\n", "zstd decode (level 3, raw u16)",
		       n / zs / 1e6, (double)zlen / n);
		printf("  %-32s %8.2fx  (size %.2fx)\n", "lza3 / zstd rate", zs / lz,
		       (double)z.len / (double)zlen);
	} else {
		printf("  %-32s (libzstd.so.1 or zstd not found)\n", "zstd decode");
	}
	if (cli_zstd) {
		double lw, lc, zw, zc;
		snprintf(cmd, sizeof cmd, "'%s' --decode '%s' > /dev/null", self, lzf);
		if (run_cmd(cmd, &lw, &lc))
			return -1;
		snprintf(cmd, sizeof cmd, "zstd -q -d -c '%s' > /dev/null", zst);
		if (run_cmd(cmd, &zw, &zc))
			return -1;
		printf("  2. whole commands through the shell, output to /dev/null, best of 3: wall "
		       "(CPU of the command)\n");
		printf("  %-32s %8.1f M events/s  (%.1f)\n", "bench_decode --decode FILE.lza3",
		       n / lw / 1e6, n / lc / 1e6);
		printf("  %-32s %8.1f M events/s  (%.1f)\n", "zstd -q -d -c FILE.zst", n / zw / 1e6,
		       n / zc / 1e6);
		printf("  %-32s %8.2fx  (%.2fx)\n", "lza3 / zstd rate", zw / lw, zc / lc);
	}
	printf("  (checksum %llu)\n\n", (unsigned long long)sum);
	unlink(raw);
	unlink(zst);
	unlink(lzf);
	free(blk);
	buf_free(&z);
	return 0;
}

/* Part 3: the store's import path and cursor on ev (the workload `what`): the write once, the
 * read best of 3, each on the wall clock and on this thread's CPU time. */
static int store_rates(const char *what, const uint32_t *ev, size_t n, const char *dir)
{
	char db[256];
	snprintf(db, sizeof db, "%s/%s.db", dir, what);
	dt_err e;
	dt_err_clear(&e);
	store *s;
	if (store_open(db, STORE_OPEN_CREATE, &s, &e))
		return -1;
	uint32_t *blk = xmalloc(BLOCK * sizeof *blk);
	int64_t run;
	double t0 = wall(), c0 = cpu();
	store_begin(s, &e);
	store_run_create(s, "bench", "", "synthetic", "", &run, &e);
	store_writer *w = store_writer_new(s, run, NULL);
	dt_sink *k = store_writer_sink(w);
	dt_trace_meta m = { 1, 1, -1, 1, NULL, "synthetic" };
	k->begin(k->ctx, &m, &e);
	char name[32];
	uint32_t map[4096];
	for (uint32_t i = 1; i < 4096; i++) {
		int l = snprintf(name, sizeof name, "fn%u", i);
		map[i] = k->func(k->ctx, name, (size_t)l, &e);
	}
	map[0] = 0;
	for (size_t i = 0; i < n; i += BLOCK) {
		size_t b = n - i < BLOCK ? n - i : BLOCK;
		for (size_t j = 0; j < b; j++)
			blk[j] = map[ev[i + j]];
		k->events(k->ctx, blk, NULL, b, &e);
	}
	k->end(k->ctx, 0, "", &e);
	store_writer_finish(w, &e);
	store_writer_free(w);
	store_commit(s, &e);
	double tw = wall() - t0, cw = cpu() - c0;
	store_trace tr;
	store_trace_get(s, run, 0, 0, &tr, &e);
	double trd = 1e9, crd = 1e9;
	uint64_t got = 0;
	for (int rep = 0; rep < 3 && !e.status; rep++) {
		store_cursor *c;
		t0 = wall();
		c0 = cpu();
		store_cursor_open(s, &tr, 0, &c, &e);
		int64_t r;
		got = 0;
		while ((r = store_cursor_next(c, blk, NULL, BLOCK, &e)) > 0)
			got += (uint64_t)r;
		store_cursor_close(c);
		double t = wall() - t0, ct = cpu() - c0;
		if (t < trd)
			trd = t;
		if (ct < crd)
			crd = ct;
	}
	free(blk);
	if (e.status || got != n) {
		fprintf(stderr, "store: %s (%llu events)\n", e.msg, (unsigned long long)got);
		return -1;
	}
	printf("the store, %s workload: wall (thread CPU); the read best of 3\n", what);
	printf("  %-32s %8.1f M events/s  (%.1f)\n", "store write (import path)", n / tw / 1e6,
	       n / cw / 1e6);
	printf("  %-32s %8.1f M events/s  (%.1f)  %8.4f bytes/event in chunks\n",
	       "store read (cursor)", n / trd / 1e6, n / crd / 1e6, (double)tr.bytes / n);
	store_trace_free(&tr);
	store_close(s);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--decode"))
		return decode_file(argv[2]);
	size_t n = argc > 1 ? (size_t)strtoull(argv[1], NULL, 10) : 100000000u;
	bench_build();
	printf("\n");
	char self[4096];
	ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
	if (sl <= 0)
		return 1;
	self[sl] = 0;
	int have_zstd = zstd_load() == 0;
	char dir[] = "/tmp/dt-bench-XXXXXX";
	if (!mkdtemp(dir))
		return 1;
	uint32_t *ev = xmalloc((n ? n : 1) * sizeof *ev);
	int bad = 0;
	workload_fill(ev, n, 42);
	bad |= compare("nested loops (workload_fill, 1/64 irregular iterations)", ev, n, dir, self,
		       have_zstd);
	bad |= store_rates("nested", ev, n, dir);
	irregular_fill(ev, n, 7);
	printf("\n");
	bad |= compare("irregular (irregular_fill: varying trip counts, branches, rare calls)", ev, n,
		       dir, self, have_zstd);
	bad |= store_rates("irregular", ev, n, dir);
	char cmd[512];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		bad = 1;
	free(ev);
	return bad ? 1 : 0;
}
