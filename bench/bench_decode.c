/* bench_decode.c: how fast difftrace reads events, next to zstd on the same events.
 *
 * Prints, for one synthetic trace of N events (default 10^8):
 *   - the lza3 (ParLOT codec) decode rate in M events/s, one core, and bytes per event;
 *   - `zstd -d` of the same events stored raw as 16-bit words, timed as a whole command,
 *     with its bytes per event;
 *   - the store: writing the trace through the import path, reading it back with a cursor,
 *     and the bytes it keeps per event.
 * Usage: bench_decode [N] */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "store/lza3.h"
#include "store/store.h"
#include "workload.h"

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static long long fsize(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 ? (long long)st.st_size : -1;
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? (size_t)strtoull(argv[1], NULL, 10) : 100000000u;
	uint32_t *ev = xmalloc(n * sizeof *ev);
	workload_fill(ev, n, 42);
	printf("workload: %zu events (nested loops, 1/64 irregular iterations)\n\n", n);

	/* lza3: one stream, as a ParLOT per-thread file */
	dt_buf z = { 0 };
	lza3_enc *enc = lza3_enc_new();
	double t0 = now();
	lza3_enc_put(enc, ev, n, &z);
	lza3_enc_finish(enc, &z);
	double tenc = now() - t0;
	lza3_enc_free(enc);
	dt_err e;
	dt_err_clear(&e);
	enum { BLOCK = 1 << 16 };
	uint32_t *blk = xmalloc(BLOCK * sizeof *blk);
	double best = 1e9;
	uint64_t sum = 0, got = 0;
	for (int rep = 0; rep < 3; rep++) {
		t0 = now();
		lza3_dec *d = lza3_dec_new(z.p, z.len, "bench", &e);
		int64_t k;
		got = 0;
		while ((k = lza3_dec_next(d, blk, BLOCK, &e)) > 0) {
			sum += blk[k - 1];
			got += (uint64_t)k;
		}
		lza3_dec_free(d);
		double t = now() - t0;
		if (t < best)
			best = t;
	}
	if (got != n) {
		fprintf(stderr, "decode gave %llu events, expected %zu\n", (unsigned long long)got, n);
		return 1;
	}
	printf("%-34s %10.1f M events/s  %8.4f bytes/event  (encode %.1f M events/s)\n",
	       "lza3 decode (difftrace, 1 core)", n / best / 1e6, (double)z.len / n,
	       n / tenc / 1e6);

	/* zstd on the raw 16-bit words, the way ParLOT's data would sit uncompressed */
	char dir[] = "/tmp/dt-bench-XXXXXX";
	if (!mkdtemp(dir))
		return 1;
	char raw[128], zst[128], cmd[512];
	snprintf(raw, sizeof raw, "%s/raw", dir);
	snprintf(zst, sizeof zst, "%s/raw.zst", dir);
	FILE *f = fopen(raw, "wb");
	for (size_t i = 0; i < n; i++) {
		uint8_t b[2] = { (uint8_t)ev[i], (uint8_t)(ev[i] >> 8) };
		fwrite(b, 1, 2, f);
	}
	fclose(f);
	snprintf(cmd, sizeof cmd, "zstd -q -f -T1 %s -o %s", raw, zst);
	if (system(cmd) != 0) {
		printf("%-34s (zstd not installed)\n", "zstd -d");
	} else {
		snprintf(cmd, sizeof cmd, "zstd -q -d -c %s > /dev/null", zst);
		double zb = 1e9;
		for (int rep = 0; rep < 3; rep++) {
			t0 = now();
			if (system(cmd) != 0)
				break;
			double t = now() - t0;
			if (t < zb)
				zb = t;
		}
		printf("%-34s %10.1f M events/s  %8.4f bytes/event\n", "zstd -d (level 3, raw u16)",
		       n / zb / 1e6, (double)fsize(zst) / n);
		printf("%-34s %10.2fx\n", "lza3 / zstd decode rate", zb / best);
	}

	/* the store: the import path and a cursor */
	char db[128];
	snprintf(db, sizeof db, "%s/bench.db", dir);
	store *s;
	if (store_open(db, STORE_OPEN_CREATE, &s, &e))
		return 1;
	int64_t run;
	t0 = now();
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
	double tw = now() - t0;
	store_trace tr;
	store_trace_get(s, run, 0, 0, &tr, &e);
	store_cursor *c;
	t0 = now();
	store_cursor_open(s, &tr, 0, &c, &e);
	int64_t r;
	got = 0;
	while ((r = store_cursor_next(c, blk, NULL, BLOCK, &e)) > 0)
		got += (uint64_t)r;
	store_cursor_close(c);
	double tr_ = now() - t0;
	if (e.status || got != n) {
		fprintf(stderr, "store: %s (%llu events)\n", e.msg, (unsigned long long)got);
		return 1;
	}
	printf("%-34s %10.1f M events/s\n", "store write (import path)", n / tw / 1e6);
	printf("%-34s %10.1f M events/s  %8.4f bytes/event in chunks\n", "store read (cursor)",
	       n / tr_ / 1e6, (double)tr.bytes / n);
	store_trace_free(&tr);
	store_close(s);
	printf("(checksum %llu)\n", (unsigned long long)sum);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		return 1;
	free(ev);
	free(blk);
	buf_free(&z);
	return 0;
}
