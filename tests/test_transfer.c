/* test_transfer.c: the transfer-function files (their errors as file:line:col, blame=return,
 * bytes= and size=, the shipped mpi.transfer, libc.transfer and blas.transfer), the blame of
 * samples inside MPI calls, and the sample file reader (a file cut by a kill, a file that is
 * not one). */
#define _POSIX_C_SOURCE 200809L
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blame/transfer.h"
#include "check.h"
#include "import/import_sample.h"
#include "record/samplefmt.h"

static void expect_error(const char *text, const char *want)
{
	transfer_set s = { 0 };
	dt_err e;
	dt_err_clear(&e);
	CHECK(transfer_parse(&s, "t.transfer", text, strlen(text), &e) == -1);
	char buf[512];
	dt_err_format(&e, buf, sizeof buf);
	if (!strstr(buf, want)) {
		fprintf(stderr, "error '%s' lacks '%s'\n", buf, want);
		check_failures++;
	}
	transfer_free(&s);
}

static void test_parse(void)
{
	transfer_set s = { 0 };
	dt_err e;
	dt_err_clear(&e);
	const char *t = "# a comment\n\n  MPI_Bcast blame=1 bytes=2*3 # the data broadcast\r\n"
			"MPI_Reduce\tblame=2 from=1 bytes=3*4\nMPI_Wait wait=1\n"
			"MPI_Isend blame=1 request=7\n";
	CHECK(transfer_parse(&s, "t.transfer", t, strlen(t), &e) == 0);
	CHECK_EQ_INT(s.n, 4);
	const transfer_fn *f = transfer_find(&s, "MPI_Reduce");
	CHECK(f && f->blame == 2 && f->from[0] == 1 && f->from[1] == 0 && f->count == 3 &&
	      f->type == 4 && f->line == 4);
	f = transfer_find(&s, "MPI_Isend");
	CHECK(f && f->request == 7);
	CHECK(transfer_find(&s, "MPI_Send") == NULL);
	/* a later file replaces a function */
	const char *u = "MPI_Reduce blame=1\n";
	CHECK(transfer_parse(&s, "u.transfer", u, strlen(u), &e) == 0);
	f = transfer_find(&s, "MPI_Reduce");
	CHECK(f && f->blame == 1 && !strcmp(f->file, "u.transfer"));
	transfer_free(&s);

	expect_error("MPI_Bcast blame=0\n", "t.transfer:1:17:");
	expect_error("\nMPI_Bcast blame=1 blame=2\n", "t.transfer:2:");
	expect_error("MPI_Bcast colour=1\n", "t.transfer:1:11: unknown key 'colour'");
	expect_error("1MPI_Bcast blame=1\n", "t.transfer:1:1:");
	expect_error("MPI_Bcast bytes=2x3\n", "t.transfer:1:17:");
	expect_error("MPI_Bcast\n", "t.transfer:1:");
	expect_error("MPI_Bcast from=1\n", "neither blame= nor wait=");
	expect_error("MPI_Bcast blame=1,2\n", "t.transfer:1:");
	expect_error("MPI_Bcast blame\n", "t.transfer:1:11:");
}

/* blame=return, size=, bytes= of one to three factors */
static void test_parse_libs(void)
{
	expect_error("strlen blame=returns\n", "t.transfer:1:14: bad or repeated value of 'blame' "
						"(an argument number 1 to 64 or 'return')");
	expect_error("strlen blame=return blame=1\n", "t.transfer:1:");
	expect_error("f blame=1 bytes=2 size=0\n", "t.transfer:1:24:");
	expect_error("f blame=1 bytes=2 size=99999\n", "t.transfer:1:24:");
	expect_error("f blame=1 size=8\n", "t.transfer:1:1: 'f' has size= without bytes=");
	expect_error("f blame=1 bytes=2*\n", "t.transfer:1:");
	expect_error("f blame=1 bytes=2*3*4*5\n", "t.transfer:1:");
	expect_error("f blame=1 bytes=2 size=8 size=8\n", "t.transfer:1:");
	transfer_set s = { 0 };
	dt_err e;
	dt_err_clear(&e);
	const char *t = "strlen blame=return from=1\n"
			"g blame=1 bytes=3\n"
			"h blame=13 from=8,10 bytes=4*5 size=8\n"
			"k blame=1 bytes=2*3*4\n";
	CHECK(transfer_parse(&s, "t.transfer", t, strlen(t), &e) == 0);
	const transfer_fn *f = transfer_find(&s, "strlen");
	CHECK(f && f->blame == TRANSFER_RETURN && f->from[0] == 1 && !f->count);
	f = transfer_find(&s, "g");
	CHECK(f && f->blame == 1 && f->count == 3 && !f->type && !f->size);
	f = transfer_find(&s, "h");
	CHECK(f && f->blame == 13 && f->from[0] == 8 && f->from[1] == 10 && f->count == 4 &&
	      f->type == 5 && !f->type2 && f->size == 8);
	f = transfer_find(&s, "k");
	CHECK(f && f->count == 2 && f->type == 3 && f->type2 == 4);
	/* a function the sampler does not record buffers of: the MPI path blames nothing */
	CHECK_EQ_INT(transfer_blame(&s, "g", 3, 4), -1);
	transfer_free(&s);
}

static void test_shipped(void)
{
	const char *top = getenv("abs_top_srcdir");
	char dir[4096];
	snprintf(dir, sizeof dir, "%s/blame", top ? top : "..");
	setenv("DIFFTRACE_BLAME_PATH", dir, 1);
	char *p = transfer_default_path();
	transfer_set s = { 0 };
	dt_err e;
	dt_err_clear(&e);
	CHECK(transfer_load(&s, p, &e) == 0);
	free(p);
	CHECK(s.n >= 15);
	/* every function of the file is one the sampler wraps, and blames a buffer it records */
	for (size_t i = 0; i < s.n; i++) {
		int sa, ra;
		const transfer_fn *f = &s.fn[i];
		if (!transfer_recorded_args(f->name, &sa, &ra)) {
			fprintf(stderr, "%s is not recorded by the sampler\n", f->name);
			check_failures++;
			continue;
		}
		int ok = f->wait ? f->wait == sa : (f->blame == sa || f->blame == ra);
		if (!ok) {
			fprintf(stderr, "%s blames an argument the sampler does not record\n", f->name);
			check_failures++;
		}
	}
	/* the data broadcast; the result of a reduction, else its input (not the root) */
	CHECK_EQ_INT(transfer_blame(&s, "MPI_Bcast", 5, -1), 5);
	CHECK_EQ_INT(transfer_blame(&s, "MPI_Reduce", 1, 2), 2);
	CHECK_EQ_INT(transfer_blame(&s, "MPI_Reduce", 1, -1), 1);
	CHECK_EQ_INT(transfer_blame(&s, "MPI_Recv", -1, 9), 9);
	CHECK_EQ_INT(transfer_blame(&s, "MPI_Send", 8, -1), 8);
	CHECK_EQ_INT(transfer_blame(&s, "MPI_Sendrecv", 3, 4), 4);
	/* a wait: the buffer of the request it completes */
	CHECK_EQ_INT(transfer_blame(&s, "MPI_Wait", 7, -1), 7);
	CHECK_EQ_INT(transfer_blame(&s, "MPI_Waitall", -1, 6), 6);
	/* nothing to blame */
	CHECK_EQ_INT(transfer_blame(&s, "MPI_Barrier", -1, -1), -1);
	CHECK_EQ_INT(transfer_blame(&s, "MPI_Bcast", -1, -1), -1);
	transfer_free(&s);
}

/* f's blame= and from= are g's moved by d positions */
static int shifted(const transfer_fn *f, const transfer_fn *g, int d)
{
	if (f->blame != (g->blame == TRANSFER_RETURN ? g->blame : g->blame + d))
		return 0;
	for (int k = 0; k < TRANSFER_MAX_FROM; k++)
		if (f->from[k] != (g->from[k] ? g->from[k] + d : 0))
			return 0;
	return 1;
}

/* libc.transfer and blas.transfer, read with mpi.transfer as blame reads them */
static void test_shipped_libs(void)
{
	const char *top = getenv("abs_top_srcdir");
	char dir[4096];
	snprintf(dir, sizeof dir, "%s/blame", top ? top : "..");
	setenv("DIFFTRACE_BLAME_PATH", dir, 1);
	transfer_set s = { 0 };
	dt_err e;
	dt_err_clear(&e);
	CHECK(transfer_load_shipped(&s, &e) == 0);
	if (e.msg[0])
		fprintf(stderr, "%s\n", e.msg);
	/* no name twice: a later file would replace an earlier one's function silently */
	for (size_t i = 0; i < s.n; i++)
		for (size_t j = i + 1; j < s.n; j++)
			if (!strcmp(s.fn[i].name, s.fn[j].name)) {
				fprintf(stderr, "%s twice (%s:%d, %s:%d)\n", s.fn[i].name, s.fn[i].file,
					s.fn[i].line, s.fn[j].file, s.fn[j].line);
				check_failures++;
			}
	CHECK(transfer_find(&s, "MPI_Bcast") != NULL);
	struct {
		const char *name;
		int blame, from, count, type;
	} want[] = {
		/* libc: the destination, fed by the source, the bytes from the size argument */
		{ "memcpy", 1, 2, 3, 0 },
		{ "memmove", 1, 2, 3, 0 },
		{ "memset", 1, 0, 3, 0 },
		{ "strcpy", 1, 2, 0, 0 },
		{ "strncpy", 1, 2, 3, 0 },
		{ "strcat", 1, 2, 0, 0 },
		{ "strncat", 1, 2, 3, 0 },
		{ "sprintf", 1, 0, 0, 0 },
		{ "snprintf", 1, 0, 2, 0 },
		{ "qsort", 1, 0, 2, 3 },
		{ "strlen", TRANSFER_RETURN, 1, 0, 0 },
		/* BLAS: the operand written */
		{ "cblas_daxpy", 5, 3, 1, 0 },
		{ "daxpy_", 5, 3, 1, 0 },
		{ "cblas_saxpy", 5, 3, 1, 0 },
		{ "cblas_dscal", 3, 0, 1, 0 },
		{ "dscal_", 3, 0, 1, 0 },
		{ "cblas_dcopy", 4, 2, 1, 0 },
		{ "dcopy_", 4, 2, 1, 0 },
		{ "cblas_ddot", TRANSFER_RETURN, 2, 1, 0 },
		{ "ddot_", TRANSFER_RETURN, 2, 1, 0 },
		{ "cblas_dnrm2", TRANSFER_RETURN, 2, 1, 0 },
		{ "dnrm2_", TRANSFER_RETURN, 2, 1, 0 },
		{ "cblas_dgemv", 11, 6, 0, 0 },
		{ "dgemv_", 10, 5, 0, 0 },
		{ "cblas_dger", 9, 5, 2, 3 },
		{ "dger_", 8, 4, 1, 2 },
		{ "cblas_dgemm", 13, 8, 4, 5 },
		{ "dgemm_", 12, 7, 3, 4 },
		{ "cblas_dsymm", 12, 7, 4, 5 },
		{ "dsymm_", 11, 6, 3, 4 },
		{ "cblas_dtrmm", 11, 9, 6, 7 },
		{ "dtrmm_", 10, 8, 5, 6 },
		{ "cblas_dsyrk", 10, 7, 4, 4 },
		{ "dsyrk_", 9, 6, 3, 3 },
	};
	for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
		const transfer_fn *f = transfer_find(&s, want[i].name);
		if (!f || f->blame != want[i].blame || f->from[0] != want[i].from ||
		    f->count != want[i].count || f->type != want[i].type) {
			fprintf(stderr, "%s: not as its prototype says\n", want[i].name);
			check_failures++;
		}
	}
	CHECK(transfer_find(&s, "cblas_dgemm")->from[1] == 10);
	CHECK(transfer_find(&s, "cblas_daxpy")->size == 8);
	CHECK(transfer_find(&s, "cblas_saxpy")->size == 4);
	/* every CBLAS routine has its Fortran form, its arguments the same (level 1) or one
	 * further (levels 2 and 3: CBLAS's order argument comes first) */
	size_t ncblas = 0;
	for (size_t i = 0; i < s.n; i++) {
		const transfer_fn *c = &s.fn[i];
		if (strncmp(c->name, "cblas_", 6))
			continue;
		ncblas++;
		char fname[64];
		snprintf(fname, sizeof fname, "%s_", c->name + 6);
		const transfer_fn *f = transfer_find(&s, fname);
		if (!f || !(shifted(c, f, 0) || shifted(c, f, 1))) {
			fprintf(stderr, "%s and %s disagree\n", c->name, fname);
			check_failures++;
		}
	}
	CHECK(ncblas >= 40);
	transfer_free(&s);
}

static void put_rec(FILE *f, uint64_t seq, int kind)
{
	dtp_record r;
	memset(&r, 0, sizeof r);
	r.commit = dtp_commit(seq);
	r.kind = (uint8_t)kind;
	r.ts = (int64_t)seq;
	r.weight = 1;
	fwrite(&r, sizeof r, 1, f);
}

static void test_reader(void)
{
	char path[] = "/tmp/dt-dtp-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		return;
	FILE *f = fdopen(fd, "wb");
	dtp_header h;
	memset(&h, 0, sizeof h);
	memcpy(h.magic, DTP_MAGIC, 8);
	h.version = DTP_VERSION;
	h.header_size = DTP_HEADER_SIZE;
	h.record_size = DTP_RECORD_SIZE;
	h.chunk_records = DTP_CHUNK_RECORDS;
	h.endian = 0x01020304u;
	h.source = DTP_SRC_TIMER;
	h.tid = 42;
	snprintf(h.event, sizeof h.event, "cpu-time");
	char page[DTP_HEADER_SIZE] = { 0 };
	memcpy(page, &h, sizeof h);
	fwrite(page, sizeof page, 1, f);
	put_rec(f, 0, DTP_SAMPLE);
	put_rec(f, 1, DTP_ALLOC);
	/* a record the kill cut: its commit word never written */
	dtp_record r;
	memset(&r, 0, sizeof r);
	r.kind = DTP_SAMPLE;
	r.ts = 99;
	fwrite(&r, sizeof r, 1, f);
	fclose(f);
	dtp_record *recs;
	size_t n;
	int64_t tid;
	int32_t src;
	int64_t per;
	char ev[64];
	int torn;
	dt_err e;
	dt_err_clear(&e);
	CHECK(sample_file_read(path, &recs, &n, &tid, &src, &per, ev, sizeof ev, &torn, &e) == 0);
	CHECK_EQ_INT(n, 2);
	CHECK_EQ_INT(torn, 1);
	CHECK_EQ_INT(tid, 42);
	CHECK_EQ_STR(ev, "cpu-time");
	free(recs);
	/* a record of no known kind, with its offset */
	f = fopen(path, "r+b");
	fseek(f, DTP_HEADER_SIZE + DTP_RECORD_SIZE, SEEK_SET);
	put_rec(f, 1, 9);
	fclose(f);
	CHECK(sample_file_read(path, &recs, &n, &tid, &src, &per, ev, sizeof ev, &torn, &e) == -1);
	char msg[512];
	dt_err_format(&e, msg, sizeof msg);
	CHECK(strstr(msg, "offset 4352") && strstr(msg, "kind 9"));
	dt_err_clear(&e);
	/* not a sample file */
	f = fopen(path, "wb");
	fputs("something else entirely", f);
	fclose(f);
	CHECK(sample_file_read(path, &recs, &n, &tid, &src, &per, ev, sizeof ev, &torn, &e) == -1);
	char buf[512];
	dt_err_format(&e, buf, sizeof buf);
	CHECK(strstr(buf, "offset 0") && strstr(buf, "bad magic"));
	unlink(path);
}

/* The sizes a sampler on a full disk or a killed run leaves: a thread file made and never
 * written (an empty file, or a header page and a chunk of zeros), and a sparse file whose
 * size is far beyond its records (1 TiB: read whole, it was 'out of memory'). The reader goes
 * by the records, not the size, and says when the sampler stopped on a full disk. */
static void test_reader_sizes(void)
{
	char path[] = "/tmp/dt-dtp-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		return;
	close(fd);
	dtp_record *recs;
	size_t n;
	int64_t tid = 0;
	int32_t src;
	int64_t per;
	char ev[64];
	int torn;
	dt_err e;
	dt_err_clear(&e);
	/* empty */
	CHECK(sample_file_read(path, &recs, &n, &tid, &src, &per, ev, sizeof ev, &torn, &e) == 0);
	CHECK_EQ_INT(n, 0);
	CHECK_EQ_INT(torn, SAMPLE_READ_TORN);
	free(recs);
	/* made and never written: a header page and a chunk, all zero */
	CHECK(truncate(path, DTP_HEADER_SIZE + (off_t)DTP_CHUNK_RECORDS * DTP_RECORD_SIZE) == 0);
	CHECK(sample_file_read(path, &recs, &n, &tid, &src, &per, ev, sizeof ev, &torn, &e) == 0);
	CHECK_EQ_INT(n, 0);
	CHECK_EQ_INT(torn, SAMPLE_READ_TORN);
	free(recs);
	/* two records, then a hole to 1 TiB; the header says the disk was full */
	FILE *f = fopen(path, "wb");
	dtp_header h;
	memset(&h, 0, sizeof h);
	memcpy(h.magic, DTP_MAGIC, 8);
	h.version = DTP_VERSION;
	h.header_size = DTP_HEADER_SIZE;
	h.record_size = DTP_RECORD_SIZE;
	h.chunk_records = DTP_CHUNK_RECORDS;
	h.endian = 0x01020304u;
	h.source = DTP_SRC_TIMER;
	h.tid = 7;
	h.stopped = DTP_STOP_FULL;
	char page[DTP_HEADER_SIZE] = { 0 };
	memcpy(page, &h, sizeof h);
	fwrite(page, sizeof page, 1, f);
	put_rec(f, 0, DTP_SAMPLE);
	put_rec(f, 1, DTP_ALLOC);
	fclose(f);
	if (truncate(path, (off_t)1 << 40) == 0) {
		CHECK(sample_file_read(path, &recs, &n, &tid, &src, &per, ev, sizeof ev, &torn,
				       &e) == 0);
		CHECK_EQ_INT(n, 2);
		CHECK_EQ_INT(tid, 7);
		CHECK_EQ_INT(torn, SAMPLE_READ_FULL);
		free(recs);
	} else { /* a filesystem without files that large: 8 GiB */
		CHECK(truncate(path, (off_t)8 << 30) == 0);
		CHECK(sample_file_read(path, &recs, &n, &tid, &src, &per, ev, sizeof ev, &torn,
				       &e) == 0);
		CHECK_EQ_INT(n, 2);
		free(recs);
	}
	unlink(path);
}

/* Writes a sample file of version `version` with a sample and, as record 1, a frame-words
 * record of n words in frame fr. */
static void words_file(const char *path, uint32_t version, int n, int fr)
{
	FILE *f = fopen(path, "wb");
	dtp_header h;
	memset(&h, 0, sizeof h);
	memcpy(h.magic, DTP_MAGIC, 8);
	h.version = version;
	h.header_size = DTP_HEADER_SIZE;
	h.record_size = DTP_RECORD_SIZE;
	h.chunk_records = DTP_CHUNK_RECORDS;
	h.endian = 0x01020304u;
	h.source = DTP_SRC_TIMER;
	char page[DTP_HEADER_SIZE] = { 0 };
	memcpy(page, &h, sizeof h);
	fwrite(page, sizeof page, 1, f);
	put_rec(f, 0, DTP_SAMPLE);
	dtp_words w;
	memset(&w, 0, sizeof w);
	w.commit = dtp_commit(1);
	w.kind = DTP_WORDS;
	w.nwords = (uint8_t)n;
	for (int i = 0; i < DTP_WORDS_MAX; i++) {
		w.fr[i] = (uint8_t)fr;
		w.w[i] = 0x10000u + (uint64_t)i;
	}
	fwrite(&w, sizeof w, 1, f);
	put_rec(f, 2, DTP_SAMPLE);
	fclose(f);
}

/* Version 2's frame-words records: read, checked, and refused in a version 1 file; version
 * 3's stack references read, and refused in version 2. */
static void test_words(void)
{
	char path[] = "/tmp/dt-dtw-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		return;
	close(fd);
	dtp_record *recs;
	size_t n;
	int64_t tid;
	int32_t src;
	int64_t per;
	char ev[64], msg[512];
	int torn;
	dt_err e;
	dt_err_clear(&e);
	words_file(path, 2, 5, 3 | 0x80);
	CHECK(sample_file_read(path, &recs, &n, &tid, &src, &per, ev, sizeof ev, &torn, &e) == 0);
	CHECK_EQ_INT(n, 3);
	if (n == 3) {
		const dtp_words *w = (const dtp_words *)(const void *)&recs[1];
		CHECK_EQ_INT(w->kind, DTP_WORDS);
		CHECK_EQ_INT(w->nwords, 5);
		CHECK_EQ_INT(w->fr[0], 0x83);
		CHECK(w->w[4] == 0x10004u);
	}
	free(recs);
	/* more words than a record holds */
	words_file(path, 2, DTP_WORDS_MAX + 1, 1);
	CHECK(sample_file_read(path, &recs, &n, &tid, &src, &per, ev, sizeof ev, &torn, &e) == -1);
	dt_err_format(&e, msg, sizeof msg);
	CHECK(strstr(msg, "offset 4352") != NULL);
	dt_err_clear(&e);
	/* a frame past the walk's */
	words_file(path, 2, 2, DTP_FRAMES + 1);
	CHECK(sample_file_read(path, &recs, &n, &tid, &src, &per, ev, sizeof ev, &torn, &e) == -1);
	dt_err_clear(&e);
	/* version 1 has no frame words: such a record is bad there */
	words_file(path, 1, 2, 0);
	CHECK(sample_file_read(path, &recs, &n, &tid, &src, &per, ev, sizeof ev, &torn, &e) == -1);
	dt_err_clear(&e);
	/* a version 1 file of samples alone still reads */
	words_file(path, 1, 2, 0);
	FILE *f = fopen(path, "r+b");
	fseek(f, DTP_HEADER_SIZE + DTP_RECORD_SIZE, SEEK_SET);
	put_rec(f, 1, DTP_SAMPLE);
	fclose(f);
	CHECK(sample_file_read(path, &recs, &n, &tid, &src, &per, ev, sizeof ev, &torn, &e) == 0);
	CHECK_EQ_INT(n, 3);
	free(recs);
	/* version 3's stack references: read; bit 0x40 is a bad frame in version 2; a reference
	 * to a frame past the walk's is bad */
	words_file(path, 3, 2, 2 | DTP_FR_STACKREF);
	CHECK(sample_file_read(path, &recs, &n, &tid, &src, &per, ev, sizeof ev, &torn, &e) == 0);
	CHECK_EQ_INT(n, 3);
	if (n == 3)
		CHECK_EQ_INT(((const dtp_words *)(const void *)&recs[1])->fr[1], 0x42);
	free(recs);
	words_file(path, 2, 2, 2 | DTP_FR_STACKREF);
	CHECK(sample_file_read(path, &recs, &n, &tid, &src, &per, ev, sizeof ev, &torn, &e) == -1);
	dt_err_clear(&e);
	words_file(path, 3, 2, 2 | DTP_FR_STACKREF);
	f = fopen(path, "r+b");
	uint64_t far = (uint64_t)(DTP_FRAMES + 1) << DTP_REF_SHIFT | 64;
	fseek(f, (long)(DTP_HEADER_SIZE + DTP_RECORD_SIZE + offsetof(dtp_words, w) + 8), SEEK_SET);
	fwrite(&far, sizeof far, 1, f);
	fclose(f);
	CHECK(sample_file_read(path, &recs, &n, &tid, &src, &per, ev, sizeof ev, &torn, &e) == -1);
	dt_err_format(&e, msg, sizeof msg);
	CHECK(strstr(msg, "offset 4352") != NULL);
	dt_err_clear(&e);
	/* version 4's register numbers in a register's word: DWARF's 0 to 16, + 1, read; more is
	 * a bad record; a stack word's top byte is no register */
	for (int v = 3; v <= 4; v++)
		for (int reg = 6; reg <= 18; reg += 12)
			for (int stack = 0; stack <= 1; stack++) {
				words_file(path, (uint32_t)v, 2, stack ? DTP_FR_STACK : 0);
				f = fopen(path, "r+b");
				uint64_t rw = (uint64_t)reg << DTP_REG_SHIFT | 0x7f0000001000ull;
				fseek(f, (long)(DTP_HEADER_SIZE + DTP_RECORD_SIZE + offsetof(dtp_words, w)),
				      SEEK_SET);
				fwrite(&rw, sizeof rw, 1, f);
				fclose(f);
				int bad = v == 4 && reg > 17 && !stack;
				CHECK_EQ_INT(sample_file_read(path, &recs, &n, &tid, &src, &per, ev, sizeof ev,
							      &torn, &e),
					     bad ? -1 : 0);
				if (bad)
					dt_err_clear(&e);
				else
					free(recs);
			}
	/* and a version this difftrace does not know */
	words_file(path, DTP_VERSION + 1, 2, 0);
	CHECK(sample_file_read(path, &recs, &n, &tid, &src, &per, ev, sizeof ev, &torn, &e) == -1);
	dt_err_format(&e, msg, sizeof msg);
	CHECK(strstr(msg, "version") != NULL);
	dt_err_clear(&e);
	unlink(path);
}

/* A directory of one's own (DIFFTRACE_BLAME_PATH) with mpi.transfer alone: read, the other
 * tables left out; without mpi.transfer: an error naming it */
static void test_own_dir(void)
{
	char dir[] = "/tmp/dt-transfer.XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char path[4200];
	snprintf(path, sizeof path, "%s/mpi.transfer", dir);
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fputs("MPI_Bcast blame=1 bytes=2*3\n", f);
	fclose(f);
	setenv("DIFFTRACE_BLAME_PATH", dir, 1);
	transfer_set s = { 0 };
	dt_err e;
	dt_err_clear(&e);
	CHECK(transfer_load_shipped(&s, &e) == 0);
	CHECK(s.n == 1 && transfer_find(&s, "MPI_Bcast") != NULL);
	CHECK(transfer_find(&s, "memcpy") == NULL);
	transfer_free(&s);
	unlink(path);
	transfer_set t = { 0 };
	dt_err_clear(&e);
	CHECK(transfer_load_shipped(&t, &e) == -1);
	CHECK(strstr(e.file, "mpi.transfer") != NULL);
	transfer_free(&t);
	rmdir(dir);
}

int main(void)
{
	test_parse();
	test_parse_libs();
	test_shipped();
	test_shipped_libs();
	test_own_dir();
	test_reader();
	test_reader_sizes();
	test_words();
	return check_failures ? 1 : 0;
}
