/* mk_sync_rec.c: writes a made-up sync recording (difftrace-sync(5): DIR/rank-R/sync/PID.TID.dts)
 * for the interface's tests on machines without MPI. Three processes:
 *   ok    MPI_Init; rank 1 and 2 send rank 0 a message (tag 5, then 6), rank 0 receives both
 *         (the first with MPI_ANY_SOURCE); rank 0 has a second thread that takes the unnamed
 *         critical section while its main thread takes it too; MPI_Barrier; MPI_Finalize.
 *   hung  MPI_Init; ranks 0 and 1 each wait in MPI_Recv for the other (a cycle), rank 2 waits in
 *         MPI_Barrier: entries without exits, as a run stopped by the recorder's timeout.
 *   ring P N  P processes, N iterations of a ring exchange (MPI_Send to the next, MPI_Recv from
 *         the previous) and an MPI_Allreduce: a moderate store for measuring the views.
 *   steady P N  the ring with one tag (7) for every message and an MPI_Allreduce every 64th
 *         iteration: a long record whose causality filter holds few events and few facts
 *         (a tag per iteration, as in ring, makes a fact per message).
 *   stuck P N  steady, then every process waits in MPI_Recv from the one before it with a tag
 *         nobody sends (8): a long record hung at its end, its messages all received before.
 *   killed P N  P processes, N iterations of a halo exchange (MPI_Irecv from the previous,
 *         MPI_Isend to the next, MPI_Waitall completing both) with an MPI_Allreduce every 16th,
 *         killed inside the last MPI_Waitall: a large killed record for the hang report.
 *   tag, peer, count  four processes stopped in a mismatch: rank 2 waits in MPI_Recv from 3
 *         with tag 11 while 3 sends it tag 10 (tag); rank 2 waits for tag 10 from 3 while 1
 *         sends it tag 10 (peer); rank 2 receives 4 INT with tag 10 from 3, which sends 8 INT
 *         (count). The others wait in MPI_Barrier.
 *   chain F  three processes, two hosts: rank 0 sends rank 1 a message (tag 5), which rank 1
 *         receives and passes on to rank 2; each send with a payload digest, different in the
 *         faulty run (F 1) from the normal one (F 0). Rank 1's host (node2) has its clock 10 ms
 *         behind node1's: on the common clock its send comes before rank 0's, causally after.
 *   rma   two processes on one host use a window over MPI_COMM_WORLD: both make it and fence
 *         (assert NOPRECEDE), rank 0 puts 4 INT to rank 1 at displacement 3 (with a payload
 *         digest), both fence (NOSUCCEED); rank 1 locks rank 0 exclusive (NOCHECK), gets 2 INT
 *         at displacement 2, accumulates 1 INT with MPI_SUM (with a digest) and unlocks; both
 *         free the window. Every record has a call site, an address in this program, which the
 *         copy of its /proc/self/maps made for each process resolves.
 *   size N  four processes: pairs (0,1) and (2,3) swap N INT, the even rank sending first,
 *         the odd one receiving first, but rank 3 sends first too; then MPI_Allreduce and
 *         MPI_Finalize. Up to 1000 the sends are buffered and the run ends; above, 2 and 3
 *         wait in MPI_Send for each other (a cycle) and 0 and 1 in MPI_Allreduce for them: the
 *         same program started with a larger size.
 * Usage: mk_sync_rec DIR ok|hung|ring P N|steady P N|stuck P N|killed P N|tag|peer|count|
 *        chain F|rma|size N */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "record/syncfmt.h"

struct file {
	dts_header h;
	dts_record *r;
	size_t n, cap;
};

static struct file *files;
static int64_t clock_ns = 1000000;

static void file_init(struct file *f, int rank, int64_t tid_off)
{
	memset(f, 0, sizeof *f);
	dts_header *h = &f->h;
	memcpy(h->magic, DTS_MAGIC, 8);
	h->version = DTS_VERSION;
	h->header_size = DTS_HEADER_SIZE;
	h->record_size = DTS_RECORD_SIZE;
	h->chunk_records = DTS_CHUNK_RECORDS;
	h->endian = 0x01020304u;
	h->rank = rank;
	h->pid = 1000 + rank;
	h->tid = 1000 + rank + tid_off;
	h->is_main = tid_off == 0;
	h->clock_id = 1;
	h->mono_ns = 1000;
	h->real_ns = 1700000000000000000;
	snprintf(h->host, sizeof h->host, "node1");
}

/* One record; ts from a shared clock, so that the order of the calls below is their time. */
static dts_record *rec(struct file *f, enum dts_call c, int phase)
{
	if (f->n == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 64;
		f->r = realloc(f->r, f->cap * sizeof *f->r);
		if (!f->r)
			abort();
	}
	dts_record *r = &f->r[f->n];
	memset(r, 0, sizeof *r);
	r->call = (uint16_t)c;
	r->phase = (uint8_t)phase;
	r->comm = -1;
	r->ts = (clock_ns += 1000);
	r->dest = r->stag = r->src = r->rtag = r->root = r->datatype = r->op = r->team = -1;
	r->tnum = r->index = -1;
	r->count = -1;
	r->commit = dts_commit(f->n);
	f->n++;
	return r;
}

static void call(struct file *f, enum dts_call c, int phase, int comm, int dest, int stag,
		 int src, int rtag, int csize)
{
	dts_record *r = rec(f, c, phase);
	r->comm = comm;
	r->dest = dest;
	r->stag = stag;
	r->src = src;
	r->rtag = rtag;
	r->csize = csize;
	if (dest >= 0 || src != -1) {
		r->count = 1;
		r->datatype = 7; /* MPI_INT */
	}
}

static int write_all(const char *dir, size_t nf);

/* call with count n */
static void call_n(struct file *f, enum dts_call c, int phase, int dest, int src, int n)
{
	call(f, c, phase, 0, dest, dest >= 0 ? 0 : -1, src, src >= 0 ? 0 : -1, 4);
	f->r[f->n - 1].count = n;
	f->r[f->n - 1].datatype = 7;
}

static int size_swap(const char *dir, int n)
{
	files = calloc(4, sizeof *files);
	if (!files)
		return 1;
	int big = n > 1000;
	for (int r = 0; r < 4; r++) {
		struct file *f = &files[r];
		int peer = r ^ 1;
		file_init(f, r, 0);
		call(f, DTS_MPI_Init, 0, -1, -1, -1, -1, -1, 0);
		call(f, DTS_MPI_Init, 1, -1, -1, -1, -1, -1, 0);
		if (r % 2 == 0 || r == 3) {
			call_n(f, DTS_MPI_Send, 0, peer, -1, n);
			if (big && r >= 2)
				continue; /* not buffered: waits for its peer, which sends too */
			call_n(f, DTS_MPI_Send, 1, peer, -1, n);
			call_n(f, DTS_MPI_Recv, 0, -1, peer, n);
			call_n(f, DTS_MPI_Recv, 1, -1, peer, n);
		} else {
			call_n(f, DTS_MPI_Recv, 0, -1, peer, n);
			call_n(f, DTS_MPI_Recv, 1, -1, peer, n);
			call_n(f, DTS_MPI_Send, 0, peer, -1, n);
			call_n(f, DTS_MPI_Send, 1, peer, -1, n);
		}
		call(f, DTS_MPI_Allreduce, 0, 0, -1, -1, -1, -1, 4);
		if (big)
			continue;
		call(f, DTS_MPI_Allreduce, 1, 0, -1, -1, -1, -1, 4);
		call(f, DTS_MPI_Finalize, 0, -1, -1, -1, -1, -1, 0);
		call(f, DTS_MPI_Finalize, 1, -1, -1, -1, -1, -1, 0);
	}
	return write_all(dir, 4) ? 1 : 0;
}

static int write_all(const char *dir, size_t nf)
{
	char p[512];
	if (mkdir(dir, 0777) && errno != EEXIST)
		return -1;
	for (size_t i = 0; i < nf; i++) {
		const struct file *f = &files[i];
		snprintf(p, sizeof p, "%s/rank-%d", dir, f->h.rank);
		mkdir(p, 0777);
		snprintf(p, sizeof p, "%s/rank-%d/sync", dir, f->h.rank);
		mkdir(p, 0777);
		snprintf(p, sizeof p, "%s/rank-%d/sync/%lld.%lld.dts", dir, f->h.rank,
			 (long long)f->h.pid, (long long)f->h.tid);
		FILE *o = fopen(p, "wb");
		if (!o) {
			perror(p);
			return -1;
		}
		unsigned char page[DTS_HEADER_SIZE] = { 0 };
		memcpy(page, &f->h, sizeof f->h);
		fwrite(page, 1, sizeof page, o);
		fwrite(f->r, sizeof *f->r, f->n, o);
		if (fclose(o)) {
			perror(p);
			return -1;
		}
	}
	return 0;
}

static void digest(struct file *f, uint64_t d)
{
	f->r[f->n - 1].digest_lo = (uint32_t)d;
	f->r[f->n - 1].digest_hi = (uint32_t)(d >> 32);
}

static int chain(const char *dir, int faulty)
{
	files = calloc(3, sizeof *files);
	if (!files)
		return 1;
	for (int r = 0; r < 3; r++) {
		file_init(&files[r], r, 0);
		call(&files[r], DTS_MPI_Init, 0, -1, -1, -1, -1, -1, 0);
		call(&files[r], DTS_MPI_Init, 1, -1, -1, -1, -1, -1, 0);
	}
	snprintf(files[1].h.host, sizeof files[1].h.host, "node2");
	files[1].h.real_ns -= 10000000;
	uint64_t d = faulty ? 200 : 100;
	call(&files[0], DTS_MPI_Send, 0, 0, 1, 5, -1, -1, 3);
	digest(&files[0], d);
	call(&files[1], DTS_MPI_Recv, 0, 0, -1, -1, 0, 5, 3);
	call(&files[0], DTS_MPI_Send, 1, 0, 1, 5, -1, -1, 3);
	digest(&files[0], d);
	call(&files[1], DTS_MPI_Recv, 1, 0, -1, -1, 0, 5, 3);
	call(&files[2], DTS_MPI_Recv, 0, 0, -1, -1, 1, 5, 3);
	call(&files[1], DTS_MPI_Send, 0, 0, 2, 5, -1, -1, 3);
	digest(&files[1], d + 1);
	call(&files[1], DTS_MPI_Send, 1, 0, 2, 5, -1, -1, 3);
	digest(&files[1], d + 1);
	call(&files[2], DTS_MPI_Recv, 1, 0, -1, -1, 1, 5, 3);
	for (int r = 0; r < 3; r++) {
		call(&files[r], DTS_MPI_Finalize, 0, -1, -1, -1, -1, -1, 0);
		call(&files[r], DTS_MPI_Finalize, 1, -1, -1, -1, -1, -1, 0);
	}
	return write_all(dir, 3) ? 1 : 0;
}

/* The return address into the caller: a call site in this program (a call of its own for
 * each use: the volatile store keeps the compiler from taking one for all). */
static volatile int nhere;

static __attribute__((noinline)) uint64_t here(void)
{
	nhere++;
	return (uint64_t)(uintptr_t)__builtin_return_address(0);
}

/* A one-sided call's two records on window 1 of MPI_COMM_WORLD (2 ranks), at site a. */
static dts_record *rma_call(struct file *f, enum dts_call c, int phase, uint64_t a)
{
	dts_record *r = rec(f, c, phase);
	r->comm = 0;
	r->csize = 2;
	if (c != DTS_MPI_Win_create || phase)
		r->obj = 1;
	r->site_lo = (uint32_t)a;
	r->site_hi = (uint32_t)(a >> 32);
	return r;
}

static dts_record *xfer(struct file *f, enum dts_call c, int phase, uint64_t a, int target,
			int64_t disp, int64_t count)
{
	dts_record *r = rma_call(f, c, phase, a);
	r->dest = target;
	r->objseq = (uint64_t)disp;
	r->count = count;
	r->datatype = 7; /* MPI_INT */
	return r;
}

/* DIR/rank-R/sync/PID.maps: this process's, where the sites are */
static int copy_maps(const char *dir, const struct file *f)
{
	char p[512], buf[4096];
	snprintf(p, sizeof p, "%s/rank-%d/sync/%lld" DTS_MAPS_SUFFIX, dir, f->h.rank,
		 (long long)f->h.pid);
	FILE *in = fopen("/proc/self/maps", "r"), *o = fopen(p, "w");
	size_t n;
	while (in && o && (n = fread(buf, 1, sizeof buf, in)) > 0)
		fwrite(buf, 1, n, o);
	int bad = !in || !o;
	if (in)
		fclose(in);
	if (o && fclose(o))
		bad = 1;
	return bad ? -1 : 0;
}

static int rma(const char *dir)
{
	files = calloc(2, sizeof *files);
	if (!files)
		return 1;
	for (int r = 0; r < 2; r++) {
		struct file *f = &files[r];
		file_init(f, r, 0);
		call(f, DTS_MPI_Init, 0, -1, -1, -1, -1, -1, 0);
		call(f, DTS_MPI_Init, 1, -1, -1, -1, -1, -1, 0);
		uint64_t a = here();
		for (int ph = 0; ph < 2; ph++)
			rma_call(f, DTS_MPI_Win_create, ph, a)->count = 64;
		a = here();
		for (int ph = 0; ph < 2; ph++)
			rma_call(f, DTS_MPI_Win_fence, ph, a)->index = 8; /* NOPRECEDE */
	}
	uint64_t a = here();
	for (int ph = 0; ph < 2; ph++) {
		xfer(&files[0], DTS_MPI_Put, ph, a, 1, 3, 4);
		digest(&files[0], 0x1234abcd5678ef01ull);
	}
	for (int r = 0; r < 2; r++) {
		a = here();
		for (int ph = 0; ph < 2; ph++)
			rma_call(&files[r], DTS_MPI_Win_fence, ph, a)->index = 16; /* NOSUCCEED */
	}
	struct file *f = &files[1];
	a = here();
	for (int ph = 0; ph < 2; ph++) {
		dts_record *r = rma_call(f, DTS_MPI_Win_lock, ph, a);
		r->dest = 0;
		r->index = 1; /* NOCHECK */
		r->flags = 1; /* exclusive */
	}
	a = here();
	for (int ph = 0; ph < 2; ph++)
		xfer(f, DTS_MPI_Get, ph, a, 0, 2, 2);
	a = here();
	for (int ph = 0; ph < 2; ph++) {
		xfer(f, DTS_MPI_Accumulate, ph, a, 0, 0, 1)->op = 3; /* MPI_SUM */
		digest(f, 42);
	}
	a = here();
	for (int ph = 0; ph < 2; ph++)
		rma_call(f, DTS_MPI_Win_unlock, ph, a)->dest = 0;
	for (int r = 0; r < 2; r++) {
		a = here();
		for (int ph = 0; ph < 2; ph++)
			rma_call(&files[r], DTS_MPI_Win_free, ph, a);
		call(&files[r], DTS_MPI_Finalize, 0, -1, -1, -1, -1, -1, 0);
		call(&files[r], DTS_MPI_Finalize, 1, -1, -1, -1, -1, -1, 0);
	}
	if (write_all(dir, 2))
		return 1;
	for (int r = 0; r < 2; r++)
		if (copy_maps(dir, &files[r])) {
			perror("mk_sync_rec: /proc/self/maps");
			return 1;
		}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[2], "rma"))
		return rma(argv[1]);
	if (argc == 4 && !strcmp(argv[2], "chain"))
		return chain(argv[1], atoi(argv[3]));
	int stuck = argc == 5 && !strcmp(argv[2], "stuck");
	int steady = argc == 5 && (stuck || !strcmp(argv[2], "steady"));
	if (argc == 5 && (steady || !strcmp(argv[2], "ring"))) {
		int np = atoi(argv[3]), it = atoi(argv[4]);
		if (np < 2 || it < 1)
			return 2;
		files = calloc((size_t)np, sizeof *files);
		if (!files)
			return 1;
		for (int r = 0; r < np; r++) {
			file_init(&files[r], r, 0);
			call(&files[r], DTS_MPI_Init, 0, -1, -1, -1, -1, -1, 0);
			call(&files[r], DTS_MPI_Init, 1, -1, -1, -1, -1, -1, 0);
		}
		for (int i = 0; i < it; i++) {
			int tag = steady ? 7 : i;
			for (int ph = 0; ph < 2; ph++)
				for (int r = 0; r < np; r++)
					call(&files[r], DTS_MPI_Send, ph, 0, (r + 1) % np, tag, -1, -1, np);
			for (int ph = 0; ph < 2; ph++)
				for (int r = 0; r < np; r++)
					call(&files[r], DTS_MPI_Recv, ph, 0, -1, -1, (r + np - 1) % np, tag, np);
			if (steady && i % 64 != 63)
				continue;
			for (int ph = 0; ph < 2; ph++)
				for (int r = 0; r < np; r++)
					call(&files[r], DTS_MPI_Allreduce, ph, 0, -1, -1, -1, -1, np);
		}
		for (int r = 0; stuck && r < np; r++)
			call(&files[r], DTS_MPI_Recv, 0, 0, -1, -1, (r + np - 1) % np, 8, np);
		return write_all(argv[1], (size_t)np) ? 1 : 0;
	}
	if (argc == 5 && !strcmp(argv[2], "killed")) {
		int np = atoi(argv[3]), it = atoi(argv[4]);
		if (np < 2 || it < 1)
			return 2;
		files = calloc((size_t)np, sizeof *files);
		if (!files)
			return 1;
		for (int r = 0; r < np; r++) {
			file_init(&files[r], r, 0);
			call(&files[r], DTS_MPI_Init, 0, -1, -1, -1, -1, -1, 0);
			call(&files[r], DTS_MPI_Init, 1, -1, -1, -1, -1, -1, 0);
		}
		for (int i = 0; i < it; i++)
			for (int r = 0; r < np; r++) {
				struct file *f = &files[r];
				uint64_t rq = 2 * (uint64_t)i + 1;
				call(f, DTS_MPI_Irecv, 0, 0, -1, -1, (r + np - 1) % np, i, np);
				call(f, DTS_MPI_Irecv, 1, 0, -1, -1, (r + np - 1) % np, i, np);
				f->r[f->n - 1].req = rq;
				call(f, DTS_MPI_Isend, 0, 0, (r + 1) % np, i, -1, -1, np);
				call(f, DTS_MPI_Isend, 1, 0, (r + 1) % np, i, -1, -1, np);
				f->r[f->n - 1].req = rq + 1;
				call(f, DTS_MPI_Waitall, 0, -1, -1, -1, -1, -1, 0);
				if (i == it - 1)
					continue; /* killed in it */
				call(f, DTS_MPI_Waitall, 1, -1, -1, -1, -1, -1, 0);
				for (int k = 0; k < 2; k++) {
					dts_record *d = rec(f, DTS_MPI_Waitall, 2);
					d->req = rq + (uint64_t)k;
					d->index = k;
				}
				if (i % 16 == 15) {
					call(f, DTS_MPI_Allreduce, 0, 0, -1, -1, -1, -1, np);
					call(f, DTS_MPI_Allreduce, 1, 0, -1, -1, -1, -1, np);
				}
			}
		return write_all(argv[1], (size_t)np) ? 1 : 0;
	}
	if (argc == 4 && !strcmp(argv[2], "size"))
		return size_swap(argv[1], atoi(argv[3]));
	if (argc == 3 && (!strcmp(argv[2], "tag") || !strcmp(argv[2], "peer") ||
			  !strcmp(argv[2], "count"))) {
		files = calloc(4, sizeof *files);
		if (!files)
			return 1;
		int sender = !strcmp(argv[2], "peer") ? 1 : 3;
		for (int r = 0; r < 4; r++) {
			file_init(&files[r], r, 0);
			call(&files[r], DTS_MPI_Init, 0, -1, -1, -1, -1, -1, 0);
			call(&files[r], DTS_MPI_Init, 1, -1, -1, -1, -1, -1, 0);
		}
		/* one message that matches, first */
		call(&files[3], DTS_MPI_Send, 0, 0, 2, 10, -1, -1, 4);
		call(&files[2], DTS_MPI_Recv, 0, 0, -1, -1, 3, 10, 4);
		call(&files[3], DTS_MPI_Send, 1, 0, 2, 10, -1, -1, 4);
		call(&files[2], DTS_MPI_Recv, 1, 0, -1, -1, 3, 10, 4);
		call(&files[sender], DTS_MPI_Send, 0, 0, 2, 10, -1, -1, 4);
		if (!strcmp(argv[2], "count"))
			files[sender].r[files[sender].n - 1].count = 8;
		call(&files[2], DTS_MPI_Recv, 0, 0, -1, -1, 3, !strcmp(argv[2], "tag") ? 11 : 10, 4);
		if (!strcmp(argv[2], "count"))
			files[2].r[files[2].n - 1].count = 4;
		for (int r = 0; r < 4; r++)
			if (r != 2 && r != sender)
				call(&files[r], DTS_MPI_Barrier, 0, 0, -1, -1, -1, -1, 4);
		return write_all(argv[1], 4) ? 1 : 0;
	}
	if (argc != 3 || (strcmp(argv[2], "ok") && strcmp(argv[2], "hung"))) {
		fprintf(stderr, "usage: mk_sync_rec DIR ok|hung|ring P N|steady P N|stuck P N|killed P N|\n"
				"       tag|peer|count|chain F|rma|size N\n");
		return 2;
	}
	files = calloc(4, sizeof *files);
	if (!files)
		return 1;
	int ok = !strcmp(argv[2], "ok");
	for (int r = 0; r < 3; r++)
		file_init(&files[r], r, 0);
	file_init(&files[3], 0, 1); /* rank 0's second thread */
	for (int r = 0; r < 3; r++) {
		call(&files[r], DTS_MPI_Init, 0, -1, -1, -1, -1, -1, 0);
		call(&files[r], DTS_MPI_Init, 1, -1, -1, -1, -1, -1, 0);
	}
	if (ok) {
		/* 1 and 2 send; 0 receives from any source, then from the other */
		call(&files[1], DTS_MPI_Send, 0, 0, 0, 5, -1, -1, 3);
		call(&files[2], DTS_MPI_Send, 0, 0, 0, 6, -1, -1, 3);
		call(&files[0], DTS_MPI_Recv, 0, 0, -1, -1, -2, -2, 3);
		call(&files[1], DTS_MPI_Send, 1, 0, 0, 5, -1, -1, 3);
		call(&files[0], DTS_MPI_Recv, 1, 0, -1, -1, 1, 5, 3);
		call(&files[0], DTS_MPI_Recv, 0, 0, -1, -1, 2, 6, 3);
		call(&files[2], DTS_MPI_Send, 1, 0, 0, 6, -1, -1, 3);
		call(&files[0], DTS_MPI_Recv, 1, 0, -1, -1, 2, 6, 3);
		/* the critical section, by both threads of rank 0 */
		dts_record *x;
		x = rec(&files[3], DTS_GOMP_critical_start, 0);
		x->obj = DTS_UNNAMED_CRITICAL;
		x = rec(&files[3], DTS_GOMP_critical_start, 1);
		x->obj = DTS_UNNAMED_CRITICAL;
		x->objseq = 1;
		x = rec(&files[0], DTS_GOMP_critical_start, 0);
		x->obj = DTS_UNNAMED_CRITICAL;
		x = rec(&files[3], DTS_GOMP_critical_end, 0);
		x->obj = DTS_UNNAMED_CRITICAL;
		x->objseq = 1;
		x = rec(&files[3], DTS_GOMP_critical_end, 1);
		x->obj = DTS_UNNAMED_CRITICAL;
		x->objseq = 1;
		x = rec(&files[0], DTS_GOMP_critical_start, 1);
		x->obj = DTS_UNNAMED_CRITICAL;
		x->objseq = 2;
		x = rec(&files[0], DTS_GOMP_critical_end, 0);
		x->obj = DTS_UNNAMED_CRITICAL;
		x->objseq = 2;
		x = rec(&files[0], DTS_GOMP_critical_end, 1);
		x->obj = DTS_UNNAMED_CRITICAL;
		x->objseq = 2;
		for (int r = 0; r < 3; r++)
			call(&files[r], DTS_MPI_Barrier, 0, 0, -1, -1, -1, -1, 3);
		for (int r = 0; r < 3; r++)
			call(&files[r], DTS_MPI_Barrier, 1, 0, -1, -1, -1, -1, 3);
		for (int r = 0; r < 3; r++) {
			call(&files[r], DTS_MPI_Finalize, 0, -1, -1, -1, -1, -1, 0);
			call(&files[r], DTS_MPI_Finalize, 1, -1, -1, -1, -1, -1, 0);
		}
		return write_all(argv[1], 4) ? 1 : 0;
	}
	call(&files[0], DTS_MPI_Recv, 0, 0, -1, -1, 1, 0, 3);
	call(&files[1], DTS_MPI_Recv, 0, 0, -1, -1, 0, 0, 3);
	call(&files[2], DTS_MPI_Barrier, 0, 0, -1, -1, -1, -1, 3);
	return write_all(argv[1], 3) ? 1 : 0;
}
