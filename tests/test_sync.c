/* test_sync.c: the sync record's reader (a whole file, a torn last record, a truncated
 * header, a wrong magic, a bad record), its import (alone and into the store, with the
 * migration from schema 2), and the hang report on made-up events. */
#define _POSIX_C_SOURCE 200809L
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "hang_both.h"
#include "import/import.h"
#include "import/memsink.h"
#include "import/sync_file.h"
#include "order/hang.h"
#include "store/store.h"
#include "store/store_sync.h"

/* The streamed report of the same events is the whole record's (hang_both.h). */
static void both(const dt_sync_event *ev, size_t n, const char *const *names, size_t nn,
		 const hang_report *r)
{
	hang_cause c;
	hang_cause_find(r, ev, n, NULL, names, nn, &c);
	hang_both(ev, n, names, nn, NULL, r, &c);
	hang_cause_free(&c);
}

static char dir[64];

static dts_header header(int64_t pid, int64_t tid, int32_t rank)
{
	dts_header h;
	memset(&h, 0, sizeof h);
	memcpy(h.magic, DTS_MAGIC, 8);
	h.version = DTS_VERSION;
	h.header_size = DTS_HEADER_SIZE;
	h.record_size = DTS_RECORD_SIZE;
	h.chunk_records = DTS_CHUNK_RECORDS;
	h.endian = 0x01020304u;
	h.rank = rank;
	h.pid = pid;
	h.tid = tid;
	h.is_main = pid == tid;
	h.clock_id = 1;
	h.mono_ns = 1000;
	h.real_ns = 1700000000000000000;
	snprintf(h.host, sizeof h.host, "node1");
	return h;
}

static dts_record rec(uint64_t seq, enum dts_call c, int phase, int32_t peer)
{
	dts_record r;
	memset(&r, 0, sizeof r);
	r.call = (uint16_t)c;
	r.phase = (uint8_t)phase;
	r.comm = 0;
	r.ts = 2000 + (int64_t)seq * 10;
	r.dest = r.stag = r.root = r.datatype = r.op = r.team = r.tnum = r.index = -1;
	r.src = peer;
	r.rtag = 5;
	r.count = 1;
	r.commit = dts_commit(seq);
	return r;
}

/* Writes a file of n records (+ one torn record when torn), the rest of a chunk zero. */
static void write_file(const char *path, const dts_header *h, const dts_record *r, size_t n,
		       int torn, size_t total)
{
	FILE *f = fopen(path, "wb");
	CHECK(f != NULL);
	unsigned char page[DTS_HEADER_SIZE] = { 0 };
	memcpy(page, h, sizeof *h);
	fwrite(page, 1, sizeof page, f);
	fwrite(r, sizeof *r, n, f);
	size_t w = DTS_HEADER_SIZE + n * sizeof *r;
	if (torn) {
		dts_record t = rec(n, DTS_MPI_Send, 0, -1);
		t.commit = 0; /* killed before the commit word */
		fwrite(&t, sizeof t, 1, f);
		w += sizeof t;
	}
	for (; w < total; w++)
		fputc(0, f);
	fclose(f);
}

static void test_reader(void)
{
	char path[128];
	dt_err e;
	sync_file sf;
	dts_header h = header(100, 100, 0);
	dts_record r[3] = { rec(0, DTS_MPI_Init, 0, -1), rec(1, DTS_MPI_Init, 1, -1),
			    rec(2, DTS_MPI_Recv, 0, 1) };
	snprintf(path, sizeof path, "%s/whole.dts", dir);
	write_file(path, &h, r, 3, 0, DTS_HEADER_SIZE + 10 * DTS_RECORD_SIZE);
	dt_err_clear(&e);
	CHECK(sync_file_open(&sf, path, &e) == 0);
	CHECK_EQ_INT(sf.nrec, 3);
	CHECK_EQ_INT(sf.torn_at, -1);
	CHECK_EQ_STR(sf.h.host, "node1");
	dt_sync_event ev;
	unsigned call;
	uint64_t at;
	sync_file_event(&sf, 2, &ev, &call, &at);
	CHECK_EQ_INT(call, DTS_MPI_Recv);
	CHECK_EQ_STR(sync_call_name(call), "MPI_Recv");
	CHECK_EQ_INT(ev.src, 1);
	CHECK_EQ_INT(ev.seq, 2);
	CHECK_EQ_INT(ev.ts, 2020);
	sync_file_close(&sf);

	/* torn: the fourth record has no commit word; dropped, and where it was is said */
	snprintf(path, sizeof path, "%s/torn.dts", dir);
	write_file(path, &h, r, 3, 1, DTS_HEADER_SIZE + 10 * DTS_RECORD_SIZE);
	CHECK(sync_file_open(&sf, path, &e) == 0);
	CHECK_EQ_INT(sf.nrec, 3);
	CHECK_EQ_INT(sf.torn_at, DTS_HEADER_SIZE + 3 * DTS_RECORD_SIZE);
	sync_file_close(&sf);

	/* a record with the commit word of another position ends the file there too */
	dts_record r2[3] = { r[0], r[1], r[2] };
	r2[1].commit = dts_commit(7);
	snprintf(path, sizeof path, "%s/stale.dts", dir);
	write_file(path, &h, r2, 3, 0, 0);
	CHECK(sync_file_open(&sf, path, &e) == 0);
	CHECK_EQ_INT(sf.nrec, 1);
	CHECK_EQ_INT(sf.torn_at, DTS_HEADER_SIZE + DTS_RECORD_SIZE);
	sync_file_close(&sf);

	/* a file of version 1 (96-byte records, no call site) is read as before */
	{
		dts_header h1 = h;
		h1.version = DTS_VERSION_1;
		h1.record_size = DTS_RECORD_SIZE_1;
		unsigned char v1[3][DTS_RECORD_SIZE_1];
		for (int k = 0; k < 3; k++) {
			dts_record x = r[k];
			x.site_lo = 0x1234; /* not in a version 1 record */
			x.digest_lo = 0x77;  /* nor this */
			memcpy(v1[k], &x, DTS_RECORD_SIZE_1 - 4);
			memcpy(v1[k] + DTS_RECORD_SIZE_1 - 4, &x.commit, 4);
		}
		snprintf(path, sizeof path, "%s/v1.dts", dir);
		FILE *f1 = fopen(path, "wb");
		unsigned char page[DTS_HEADER_SIZE] = { 0 };
		memcpy(page, &h1, sizeof h1);
		fwrite(page, 1, sizeof page, f1);
		fwrite(v1, 1, sizeof v1, f1);
		for (int k = 0; k < 200; k++)
			fputc(0, f1);
		fclose(f1);
		dt_err_clear(&e);
		CHECK(sync_file_open(&sf, path, &e) == 0);
		CHECK_EQ_INT(sf.nrec, 3);
		CHECK_EQ_INT(sf.torn_at, -1);
		sync_file_event(&sf, 2, &ev, &call, &at);
		CHECK_EQ_INT(call, DTS_MPI_Recv);
		CHECK_EQ_INT(ev.src, 1);
		CHECK_EQ_INT(ev.ts, 2020);
		CHECK_EQ_INT(sync_file_site(&sf, 2), 0);
		CHECK_EQ_INT(at, 0);
		CHECK(ev.digest == 0);
		sync_file_close(&sf);
		/* version 2 keeps the site */
		dts_record rs[3] = { r[0], r[1], r[2] };
		rs[2].site_lo = 0x401234;
		rs[2].site_hi = 0x5555;
		snprintf(path, sizeof path, "%s/site.dts", dir);
		write_file(path, &h, rs, 3, 0, 0);
		CHECK(sync_file_open(&sf, path, &e) == 0);
		CHECK(sync_file_site(&sf, 2) == (0x5555ull << 32 | 0x401234));
		sync_file_event(&sf, 2, &ev, &call, &at);
		CHECK(at == (0x5555ull << 32 | 0x401234));
		sync_file_close(&sf);
		/* the payload digest, and a one-sided call's fields: objseq the displacement,
		 * index the assert, flags the lock type */
		rs[0].digest_lo = 0x89abcdef;
		rs[0].digest_hi = 0x01234567;
		rs[1].call = DTS_MPI_Put;
		rs[1].objseq = 12;
		rs[1].obj = 3;
		rs[2].call = DTS_MPI_Win_lock;
		rs[2].index = 0x100;
		rs[2].flags = 2;
		snprintf(path, sizeof path, "%s/rma.dts", dir);
		write_file(path, &h, rs, 3, 0, 0);
		CHECK(sync_file_open(&sf, path, &e) == 0);
		sync_file_event(&sf, 0, &ev, &call, &at);
		CHECK(ev.digest == 0x0123456789abcdefull);
		CHECK(ev.disp == 0);
		sync_file_event(&sf, 1, &ev, &call, &at);
		CHECK_EQ_INT(call, DTS_MPI_Put);
		CHECK(ev.disp == 12 && ev.objseq == 0 && ev.obj == 3 && ev.digest == 0);
		CHECK_EQ_INT(ev.rassert, 0);
		sync_file_event(&sf, 2, &ev, &call, &at);
		CHECK_EQ_INT(ev.rassert, 0x100);
		CHECK_EQ_INT(ev.lock, 2);
		CHECK_EQ_INT(strcmp(sync_call_name(call), "MPI_Win_lock"), 0);
		sync_file_close(&sf);
	}

	/* the payload digest: FNV-1a's on fewer than 8 bytes; every byte counts, and where
	 * it is; never 0 */
	{
		CHECK(dts_digest("", 0) == 0xcbf29ce484222325ull);
		CHECK(dts_digest("a", 1) == 0xaf63dc4c8601ec8cull);
		double d[4] = { 1, 2, 3, 4 }, e2[4] = { 1, 2, 3, 4 };
		CHECK(dts_digest(d, sizeof d) == dts_digest(e2, sizeof e2));
		e2[1] = 2.5;
		CHECK(dts_digest(d, sizeof d) != dts_digest(e2, sizeof e2));
		/* the same bytes in another order */
		e2[0] = 2;
		e2[1] = 1;
		CHECK(dts_digest(d, sizeof d) != dts_digest(e2, sizeof e2));
		unsigned char b[37];
		for (size_t k = 0; k < sizeof b; k++)
			b[k] = (unsigned char)(k * 7);
		uint64_t h0 = dts_digest(b, sizeof b);
		int changed = 0;
		for (size_t k = 0; k < sizeof b; k++) {
			b[k] ^= 1;
			changed += dts_digest(b, sizeof b) != h0;
			CHECK(dts_digest(b, sizeof b) != 0);
			b[k] ^= 1;
		}
		CHECK_EQ_INT(changed, (int)sizeof b);
		/* a prefix is digested as itself */
		CHECK(dts_digest(b, 20) != h0);
	}

	/* truncated header */
	snprintf(path, sizeof path, "%s/short.dts", dir);
	FILE *f = fopen(path, "wb");
	fwrite(&h, 1, 100, f);
	fclose(f);
	dt_err_clear(&e);
	CHECK(sync_file_open(&sf, path, &e) == -1);
	CHECK(strstr(e.msg, "truncated header") != NULL);
	CHECK_EQ_INT(e.offset, 100);
	CHECK(strstr(e.file, "short.dts") != NULL);

	/* wrong magic */
	dts_header bad = h;
	memcpy(bad.magic, "GARBAGE!", 8);
	snprintf(path, sizeof path, "%s/magic.dts", dir);
	write_file(path, &bad, r, 3, 0, 0);
	dt_err_clear(&e);
	CHECK(sync_file_open(&sf, path, &e) == -1);
	CHECK(strstr(e.msg, "wrong magic") != NULL);
	CHECK_EQ_INT(e.offset, 0);

	/* a header never finished (killed before the magic was written): no records, no error */
	dts_header zero;
	memset(&zero, 0, sizeof zero);
	snprintf(path, sizeof path, "%s/unfinished.dts", dir);
	write_file(path, &zero, r, 0, 0, DTS_HEADER_SIZE + DTS_RECORD_SIZE);
	dt_err_clear(&e);
	CHECK(sync_file_open(&sf, path, &e) == 0);
	CHECK(sf.unfinished);
	CHECK_EQ_INT(sf.nrec, 0);
	sync_file_close(&sf);
	f = fopen(path, "wb");
	fclose(f);
	CHECK(sync_file_open(&sf, path, &e) == 0);
	CHECK(sf.unfinished);
	sync_file_close(&sf);

	/* a newer version */
	bad = h;
	bad.version = 9;
	write_file(path, &bad, r, 3, 0, 0);
	dt_err_clear(&e);
	CHECK(sync_file_open(&sf, path, &e) == -1);
	CHECK(strstr(e.msg, "version 9") != NULL);

	/* a committed record with an unknown call is bad data, with its offset */
	r2[1] = r[1];
	r2[2].call = 999;
	snprintf(path, sizeof path, "%s/badrec.dts", dir);
	write_file(path, &h, r2, 3, 0, 0);
	dt_err_clear(&e);
	CHECK(sync_file_open(&sf, path, &e) == -1);
	CHECK(strstr(e.msg, "bad record 2") != NULL);
	CHECK_EQ_INT(e.offset, DTS_HEADER_SIZE + 2 * DTS_RECORD_SIZE);
	/* the importer checks each record as it reads it: the same error, the import stopped */
	{
		char d[160];
		snprintf(d, sizeof d, "%s/badrec", dir);
		CHECK(mkdir(d, 0777) == 0);
		snprintf(path, sizeof path, "%s/badrec/7.7.dts", dir);
		write_file(path, &h, r2, 3, 0, 0);
		memsink m;
		memsink_init(&m, 1);
		dt_err_clear(&e);
		CHECK(import_path(d, DT_FMT_SYNC, NULL, &m.sink, &e) == -1);
		CHECK(strstr(e.msg, "bad record 2: call 999") != NULL);
		CHECK(strstr(e.file, "badrec/7.7.dts") != NULL);
		CHECK_EQ_INT(e.offset, DTS_HEADER_SIZE + 2 * DTS_RECORD_SIZE);
		memsink_free(&m);
	}
}

/* A --sync-only recording of two ranks that wait for each other in MPI_Recv. */
static void make_recording(void)
{
	char p[160];
	for (int rank = 0; rank < 2; rank++) {
		snprintf(p, sizeof p, "%s/rec/rank-%d", dir, rank);
		mkdir(p, 0777);
		snprintf(p, sizeof p, "%s/rec/rank-%d/sync", dir, rank);
		CHECK(mkdir(p, 0777) == 0);
		dts_header h = header(200 + rank, 200 + rank, rank);
		dts_record r[3] = { rec(0, DTS_MPI_Init, 0, -1), rec(1, DTS_MPI_Init, 1, -1),
				    rec(2, DTS_MPI_Recv, 0, 1 - rank) };
		snprintf(p, sizeof p, "%s/rec/rank-%d/sync/%d.%d.dts", dir, rank, 200 + rank,
			 200 + rank);
		write_file(p, &h, r, 3, rank == 1, 0);
	}
}

static void test_import(void)
{
	char p[160];
	snprintf(p, sizeof p, "%s/rec", dir);
	mkdir(p, 0777);
	make_recording();
	dt_err e;
	dt_err_clear(&e);
	CHECK(import_detect(p, &e) == DT_FMT_SYNC);
	memsink m;
	memsink_init(&m, 1);
	CHECK(import_path(p, DT_FMT_AUTO, NULL, &m.sink, &e) == 0);
	CHECK_EQ_INT(m.ntraces, 2);
	if (m.ntraces == 2) {
		memtrace *t = &m.traces[1];
		CHECK_EQ_INT(t->meta.rank, 1);
		CHECK_EQ_INT(t->meta.pid, 201);
		CHECK(t->meta.is_main);
		CHECK_EQ_INT(t->nsync, 3);
		CHECK_EQ_INT(t->clock.mono_ns, 1000);
		/* the calls are its events: MPI_Init, return, MPI_Recv (left open) */
		CHECK_EQ_INT(t->n, 3);
		CHECK(t->flags & DT_TF_OPEN_FRAMES);
		CHECK(t->flags & DT_TF_TRUNCATED); /* the torn record */
		char torn[64];
		snprintf(torn, sizeof torn, "torn last record at offset %u",
			 DTS_HEADER_SIZE + 3 * DTS_RECORD_SIZE);
		CHECK(t->note && strstr(t->note, torn) != NULL);
		CHECK_EQ_STR(m.funcs[t->sync[2].func], "MPI_Recv");
		CHECK_EQ_INT(t->sync[2].src, 0);
	}
	memsink_free(&m);

	/* a bad file fails the import with its name and offset */
	snprintf(p, sizeof p, "%s/rec/rank-1/sync/999.999.dts", dir);
	FILE *f = fopen(p, "wb");
	fputs("short", f);
	fclose(f);
	memsink_init(&m, 1);
	dt_err_clear(&e);
	snprintf(p, sizeof p, "%s/rec", dir);
	CHECK(import_path(p, DT_FMT_AUTO, NULL, &m.sink, &e) == -1);
	CHECK(strstr(e.file, "999.999.dts") != NULL);
	CHECK_EQ_INT(e.offset, 5);
	memsink_free(&m);
	snprintf(p, sizeof p, "%s/rec/rank-1/sync/999.999.dts", dir);
	unlink(p);
}

static void test_store(void)
{
	char db[160], p[160];
	snprintf(db, sizeof db, "%s/store.db", dir);
	snprintf(p, sizeof p, "%s/rec", dir);
	store *s;
	dt_err e;
	dt_err_clear(&e);
	CHECK(store_open(db, STORE_OPEN_CREATE, &s, &e) == 0);
	int64_t run;
	CHECK(store_begin(s, &e) == 0);
	CHECK(store_run_create(s, "hung", "", "sync", p, &run, &e) == 0);
	store_writer *w = store_writer_new(s, run, NULL);
	CHECK(import_path(p, DT_FMT_SYNC, NULL, store_writer_sink(w), &e) == 0);
	CHECK(store_writer_finish(w, &e) == 0);
	store_writer_free(w);
	CHECK(store_commit(s, &e) == 0);
	dt_sync_event *ev;
	size_t n;
	CHECK(store_sync_list(s, run, &ev, &n, &e) == 0);
	CHECK_EQ_INT(n, 6);
	if (n == 6) {
		CHECK_EQ_INT(ev[0].proc, 0);
		CHECK_EQ_INT(ev[3].proc, 1);
		CHECK_EQ_INT(ev[5].seq, 2);
		CHECK_EQ_STR(store_func_name(s, ev[5].func), "MPI_Recv");
		CHECK_EQ_INT(ev[5].src, 0);
		CHECK_EQ_INT(ev[5].rtag, 5);
		CHECK_EQ_INT(ev[5].dest, -1);
		CHECK_EQ_INT(ev[5].host, 0);
		CHECK_EQ_INT(ev[5].ts, 2020);
	}
	store_sync_clock *ck;
	size_t nc;
	CHECK(store_sync_clocks(s, run, &ck, &nc, &e) == 0);
	CHECK_EQ_INT(nc, 2);
	if (nc)
		CHECK_EQ_INT(ck[0].real_ns, 1700000000000000000);
	free(ck);
	/* the hang report of it: both in MPI_Recv, each waiting for the other */
	size_t nn;
	const char *const *names = store_func_names(s, &nn);
	hang_report r;
	CHECK(hang_analyze(ev, n, names, nn, &r, &e) == 0);
	both(ev, n, names, nn, &r);
	CHECK_EQ_INT(r.nthreads, 2);
	CHECK_EQ_INT(r.ngroups, 1);
	CHECK_EQ_INT(r.nedges, 2);
	CHECK_EQ_INT(r.ncycles, 1);
	if (r.ncycles)
		CHECK_EQ_INT(r.cycles[0].n, 2);
	if (r.ngroups) {
		CHECK_EQ_INT(r.groups[0].n, 2);
		CHECK_EQ_STR(names[r.groups[0].func], "MPI_Recv");
		CHECK_EQ_INT(r.groups[0].occurrence, 1);
	}
	hang_report_free(&r);
	free(ev);
	/* removing the run removes its sync events */
	CHECK(store_run_delete(s, "hung", &e) == 0);
	store_close(s);
	sqlite3 *q;
	CHECK(sqlite3_open(db, &q) == SQLITE_OK);
	sqlite3_stmt *st;
	CHECK(sqlite3_prepare_v2(q, "SELECT count(*) FROM sync_events", -1, &st, NULL) ==
	      SQLITE_OK);
	CHECK(sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) == 0);
	sqlite3_finalize(st);
	CHECK(sqlite3_prepare_v2(q, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK);
	CHECK(sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) >= 3);
	sqlite3_finalize(st);
	/* a store of schema 2 is migrated */
	CHECK(sqlite3_exec(q, "DROP TABLE sync_events; DROP TABLE sync_clocks; "
			      "DROP TABLE blame_procs; DROP TABLE blame_locs; DROP TABLE blame_paths; "
			      "DROP TABLE blame_containers; DROP TABLE blame_samples; "
			      "DROP TABLE blame_scans; PRAGMA user_version = 2;",
			      NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_close(q);
	CHECK(store_open(db, STORE_OPEN_EXISTING, &s, &e) == 0);
	CHECK(store_sync_list(s, run, &ev, &n, &e) == 0);
	CHECK_EQ_INT(n, 0);
	store_close(s);
}

/* A staged import whose new function names were taken by another import published meanwhile:
 * its sync events are re-numbered with its chunks, so they still name their calls. */
static void test_staged(void)
{
	char db[160], p[160];
	snprintf(db, sizeof db, "%s/staged.db", dir);
	snprintf(p, sizeof p, "%s/rec", dir);
	store *a, *b;
	dt_err e;
	dt_err_clear(&e);
	CHECK(store_open(db, STORE_OPEN_CREATE, &a, &e) == 0);
	CHECK(store_open(db, STORE_OPEN_EXISTING, &b, &e) == 0);
	int64_t ra, rb;
	/* a stages the sync recording: its names get the ids after the store's largest */
	CHECK(store_import_begin(a, &e) == 0);
	CHECK(store_run_create(a, "hung", "", "sync", p, &ra, &e) == 0);
	store_writer *w = store_writer_new(a, ra, NULL);
	CHECK(import_path(p, DT_FMT_SYNC, NULL, store_writer_sink(w), &e) == 0);
	CHECK(store_writer_finish(w, &e) == 0);
	store_writer_free(w);
	/* b takes those ids first, with other names */
	CHECK(store_import_begin(b, &e) == 0);
	CHECK(store_run_create(b, "other", "", "text", "made up", &rb, &e) == 0);
	w = store_writer_new(b, rb, NULL);
	dt_sink *k = store_writer_sink(w);
	dt_trace_meta m = { 1, 1, -1, 1, NULL, "made up" };
	uint32_t ev[4];
	CHECK(k->begin(k->ctx, &m, &e) == 0);
	ev[0] = k->func(k->ctx, "zzz_first", 9, &e);
	ev[1] = k->func(k->ctx, "zzz_second", 10, &e);
	ev[2] = ev[3] = 0;
	CHECK(k->events(k->ctx, ev, NULL, 4, &e) == 0);
	CHECK(k->end(k->ctx, 0, "", &e) == 0);
	CHECK(store_writer_finish(w, &e) == 0);
	store_writer_free(w);
	char *got = NULL;
	CHECK(store_import_publish(b, 0, &got, &e) == 0);
	if (e.status)
		fprintf(stderr, "publish: %s\n", e.msg);
	free(got);
	CHECK(store_import_publish(a, 0, &got, &e) == 0);
	free(got);
	store_close(a);
	store_close(b);
	CHECK(store_open(db, STORE_OPEN_EXISTING, &a, &e) == 0);
	store_run r;
	CHECK(store_run_get(a, "hung", &r, &e) == 0);
	dt_sync_event *v;
	size_t n;
	CHECK(store_sync_list(a, r.id, &v, &n, &e) == 0);
	CHECK_EQ_INT(n, 6);
	for (size_t i = 0; i < n; i++) {
		const char *nm = store_func_name(a, v[i].func);
		CHECK(nm && !strncmp(nm, "MPI_", 4));
	}
	free(v);
	/* and its chunks, decoded, re-numbered and encoded again: none names b's functions */
	store_trace *t;
	size_t nt;
	CHECK(store_trace_list(a, r.id, &t, &nt, &e) == 0);
	size_t nev = 0, foreign = 0;
	for (size_t i = 0; i < nt; i++) {
		store_cursor *c;
		CHECK(store_cursor_open(a, &t[i], 0, &c, &e) == 0);
		uint32_t buf[256];
		int64_t nread;
		while ((nread = store_cursor_next(c, buf, NULL, 256, &e)) > 0)
			for (int64_t j = 0; j < nread; j++, nev++) {
				const char *nm = store_func_name(a, buf[j]);
				foreign += !nm || !strncmp(nm, "zzz_", 4);
			}
		CHECK_EQ_INT(nread, 0);
		store_cursor_close(c);
	}
	CHECK(nev > 0);
	CHECK_EQ_INT(foreign, 0);
	store_traces_free(t, nt);
	store_run_free(&r);
	store_close(a);
}

/* Made-up events: locks, a skipped collective, a barrier, the join. */
static void test_hang(void)
{
	const char *names[] = { NULL, "MPI_Allreduce", "MPI_Barrier", "omp_set_lock",
				"omp_unset_lock", "GOMP_parallel", "GOMP_parallel_body",
				"GOMP_barrier", "MPI_Finalize" };
	enum { ALLRED = 1, BARRIER, SET, UNSET, PAR, BODY, GBAR, FIN };
#define E(p, t, s, ph, f) { .proc = p, .thread = t, .seq = s, .phase = ph, .func = f, \
			    .comm = 0, .obj = 0, .src = -1, .dest = -1 }
	dt_sync_event ev[] = {
		/* 0.0: an allreduce, then the barrier (1st collective 2nd on WORLD) */
		E(0, 0, 0, 0, ALLRED), E(0, 0, 1, 1, ALLRED), E(0, 0, 2, 0, BARRIER),
		/* 1.0: the allreduce, then a region whose thread 1 holds a lock */
		E(1, 0, 0, 0, ALLRED), E(1, 0, 1, 1, ALLRED), E(1, 0, 2, 0, PAR),
		E(1, 0, 3, 0, BODY), E(1, 0, 4, 0, SET),
		E(1, 1, 0, 0, BODY), E(1, 1, 1, 0, SET), E(1, 1, 2, 1, SET),
		/* 2.0: finished */
		E(2, 0, 0, 0, ALLRED), E(2, 0, 1, 1, ALLRED), E(2, 0, 2, 0, BARRIER),
		E(2, 0, 3, 1, BARRIER), E(2, 0, 4, 0, FIN), E(2, 0, 5, 1, FIN),
	};
#undef E
	size_t n = sizeof ev / sizeof *ev;
	for (size_t i = 0; i < n; i++) {
		ev[i].obj = ev[i].func == SET ? 0x10 : ev[i].func >= PAR ? 0x20 : 0;
		ev[i].objseq = ev[i].func >= PAR ? 1 : ev[i].func == SET && ev[i].phase ? 1 : 0;
		ev[i].comm = ev[i].func <= BARRIER || ev[i].func == FIN ? 0 : -1;
	}
	hang_report r;
	dt_err e;
	dt_err_clear(&e);
	CHECK(hang_analyze(ev, n, names, sizeof names / sizeof *names, &r, &e) == 0);
	both(ev, n, names, sizeof names / sizeof *names, &r);
	CHECK_EQ_INT(r.nthreads, 4);
	/* 0.0 in the barrier waits for 1.0 (which never entered it); 1.0's lock waits for 1.1 */
	int b01 = 0, l = 0, any = 0;
	for (size_t i = 0; i < r.nedges; i++) {
		const hang_thread *a = &r.threads[r.edges[i].from], *b = &r.threads[r.edges[i].to];
		b01 += a->proc == 0 && b->proc == 1 && b->thread == 0 && r.edges[i].why == HANG_W_COLL;
		l += a->proc == 1 && a->thread == 0 && b->thread == 1 && r.edges[i].why == HANG_W_LOCK;
		any++;
	}
	CHECK_EQ_INT(b01, 1);
	CHECK_EQ_INT(l, 1);
	CHECK_EQ_INT(any, 2);
	CHECK_EQ_INT(r.ncycles, 0);
	CHECK_EQ_INT(r.threads[3].state, HANG_FINISHED);
	CHECK_EQ_INT(r.threads[2].state, HANG_IN_CALL);
	CHECK_EQ_STR(names[r.threads[2].func], "GOMP_parallel_body");
	CHECK_EQ_INT(r.threads[2].nheld, 1);
	hang_report_free(&r);
	/* out of order input is refused */
	dt_sync_event two[2] = { ev[3], ev[0] };
	CHECK(hang_analyze(two, 2, names, sizeof names / sizeof *names, &r, &e) == -1);
}

/* MPI_Wait on one request waits for that request's peer alone, not for the peers of the
 * other requests still pending (MPI_Waitall waits for all of them). */
static void test_hang_wait(void)
{
	const char *names[] = { NULL, "MPI_Irecv", "MPI_Wait", "MPI_Barrier", "MPI_Waitall" };
	enum { IRECV = 1, WAIT, BARRIER, WAITALL };
#define E(p, s, ph, f) { .proc = p, .thread = 0, .seq = s, .phase = ph, .func = f, .comm = 0, \
			 .src = -1, .dest = -1, .stag = -1, .rtag = -1, .root = -1, .datatype = -1, \
			 .op = -1, .team = -1, .tnum = -1, .count = 1 }
	dt_sync_event ev[] = {
		/* 0.0: Irecv from 1 (request 11), Irecv from 2 (request 12), Wait on request 11 */
		E(0, 0, 0, IRECV), E(0, 1, 1, IRECV), E(0, 2, 0, IRECV), E(0, 3, 1, IRECV),
		E(0, 4, 0, WAIT),
		/* 1.0 and 2.0: in a barrier 0 never enters */
		E(1, 0, 0, BARRIER), E(2, 0, 0, BARRIER),
	};
#undef E
	ev[0].src = ev[1].src = 1;
	ev[0].rtag = ev[1].rtag = 5;
	ev[1].req = 11;
	ev[2].src = ev[3].src = 2;
	ev[2].rtag = ev[3].rtag = 5;
	ev[3].req = 12;
	ev[4].req = 11;
	for (size_t i = 5; i < 7; i++)
		ev[i].csize = 3;
	size_t n = sizeof ev / sizeof *ev;
	hang_report r;
	dt_err e;
	dt_err_clear(&e);
	CHECK(hang_analyze(ev, n, names, sizeof names / sizeof *names, &r, &e) == 0);
	both(ev, n, names, sizeof names / sizeof *names, &r);
	int to1 = 0, to2 = 0;
	for (size_t i = 0; i < r.nedges; i++) {
		const hang_thread *a = &r.threads[r.edges[i].from], *b = &r.threads[r.edges[i].to];
		if (a->proc == 0 && b->proc == 1)
			to1++;
		if (a->proc == 0 && b->proc == 2)
			to2++;
	}
	CHECK_EQ_INT(to1, 1); /* the Wait's request */
	CHECK_EQ_INT(to2, 0); /* not the other pending one */
	hang_report_free(&r);
	/* the same with MPI_Waitall: both peers */
	ev[4].func = WAITALL;
	ev[4].req = 0;
	CHECK(hang_analyze(ev, n, names, sizeof names / sizeof *names, &r, &e) == 0);
	both(ev, n, names, sizeof names / sizeof *names, &r);
	to1 = to2 = 0;
	for (size_t i = 0; i < r.nedges; i++) {
		const hang_thread *a = &r.threads[r.edges[i].from], *b = &r.threads[r.edges[i].to];
		to1 += a->proc == 0 && b->proc == 1;
		to2 += a->proc == 0 && b->proc == 2;
	}
	CHECK_EQ_INT(to1, 1);
	CHECK_EQ_INT(to2, 1);
	hang_report_free(&r);
}

/* A collective mismatch: ranks 0 and 1 make MPI_Barrier their second collective on WORLD,
 * rank 2 an MPI_Allreduce. Each waits for the members that have not entered the same
 * collective at that place, so rank 2 waits for 0 and 1, they for 2: a cycle (the skipped
 * collective of tests/sync_hang.sh, without MPI). */
static void test_hang_coll_mismatch(void)
{
	const char *names[] = { NULL, "MPI_Allreduce", "MPI_Barrier" };
	enum { ALLRED = 1, BARRIER };
#define E(p, s, ph, f) { .proc = p, .thread = 0, .seq = s, .phase = ph, .func = f, .comm = 0, \
			 .src = -1, .dest = -1, .stag = -1, .rtag = -1, .root = -1, .datatype = -1, \
			 .op = -1, .team = -1, .tnum = -1, .count = 1, .csize = 3 }
	dt_sync_event ev[] = {
		E(0, 0, 0, ALLRED), E(0, 1, 1, ALLRED), E(0, 2, 0, BARRIER),
		E(1, 0, 0, ALLRED), E(1, 1, 1, ALLRED), E(1, 2, 0, BARRIER),
		E(2, 0, 0, ALLRED), E(2, 1, 1, ALLRED), E(2, 2, 0, ALLRED),
	};
#undef E
	hang_report r;
	dt_err e;
	dt_err_clear(&e);
	CHECK(hang_analyze(ev, sizeof ev / sizeof *ev, names, sizeof names / sizeof *names, &r,
			   &e) == 0);
	both(ev, sizeof ev / sizeof *ev, names, sizeof names / sizeof *names, &r);
	int w[3][3] = { { 0 } };
	for (size_t i = 0; i < r.nedges; i++) {
		const hang_thread *a = &r.threads[r.edges[i].from], *b = &r.threads[r.edges[i].to];
		if (r.edges[i].why == HANG_W_COLL && a->proc < 3 && b->proc < 3)
			w[a->proc][b->proc]++;
	}
	CHECK(w[0][2] == 1 && w[1][2] == 1); /* the barrier waits for rank 2 */
	CHECK(w[2][0] == 1 && w[2][1] == 1); /* its allreduce for ranks 0 and 1 */
	CHECK(w[0][1] == 0 && w[1][0] == 0); /* 0 and 1 are in the same barrier */
	CHECK(r.ncycles >= 1);
	hang_report_free(&r);
}

/* A recording of version 1 (96-byte records, no call sites, no module map) imports as before:
 * its calls, their arguments, no sites. */
static void test_import_v1(void)
{
	char p[200];
	snprintf(p, sizeof p, "%s/rec1", dir);
	mkdir(p, 0777);
	snprintf(p, sizeof p, "%s/rec1/rank-0", dir);
	mkdir(p, 0777);
	snprintf(p, sizeof p, "%s/rec1/rank-0/sync", dir);
	CHECK(mkdir(p, 0777) == 0);
	dts_header h = header(300, 300, 0);
	h.version = DTS_VERSION_1;
	h.record_size = DTS_RECORD_SIZE_1;
	dts_record r[3] = { rec(0, DTS_MPI_Init, 0, -1), rec(1, DTS_MPI_Init, 1, -1),
			    rec(2, DTS_MPI_Recv, 0, 1) };
	snprintf(p, sizeof p, "%s/rec1/rank-0/sync/300.300.dts", dir);
	FILE *f = fopen(p, "wb");
	CHECK(f != NULL);
	unsigned char page[DTS_HEADER_SIZE] = { 0 };
	memcpy(page, &h, sizeof h);
	fwrite(page, 1, sizeof page, f);
	for (int k = 0; k < 3; k++) {
		fwrite(&r[k], 1, DTS_RECORD_SIZE_1 - 4, f);
		fwrite(&r[k].commit, 1, 4, f);
	}
	fclose(f);
	snprintf(p, sizeof p, "%s/rec1", dir);
	dt_err e;
	dt_err_clear(&e);
	memsink m;
	memsink_init(&m, 1);
	CHECK(import_path(p, DT_FMT_AUTO, NULL, &m.sink, &e) == 0);
	CHECK_EQ_INT(m.ntraces, 1);
	if (m.ntraces == 1) {
		memtrace *t = &m.traces[0];
		CHECK_EQ_INT(t->nsync, 3);
		CHECK_EQ_INT(t->n, 3);
		CHECK(!(t->flags & DT_TF_TRUNCATED));
		CHECK_EQ_STR(m.funcs[t->sync[2].func], "MPI_Recv");
		CHECK_EQ_INT(t->sync[2].src, 1);
		CHECK_EQ_INT(t->sync[2].site, 0);
	}
	memsink_free(&m);
}

int main(void)
{
	snprintf(dir, sizeof dir, "/tmp/dt-sync-XXXXXX");
	if (!mkdtemp(dir))
		SKIP("no temporary directory");
	test_reader();
	test_import();
	test_import_v1();
	test_store();
	test_staged();
	test_hang();
	test_hang_wait();
	test_hang_coll_mismatch();
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	CHECK_DONE();
}
