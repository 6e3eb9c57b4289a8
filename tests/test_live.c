/* test_live.c: the incremental reader of a sync record in progress (src/order/live.c), on
 * files appended to as the recorder appends to them: new files, new records, a record not
 * complete yet (read again once its commit word is in place), the rank written into the header
 * later, calls opened and closed, a process that ended (reaped or a zombie), and a file that
 * is not a sync file.
 *
 * `test_live --make DIR [N]` writes a small recording in progress into DIR (rank-0 in MPI_Recv
 * from 1, rank-1 computing after its MPI_Init, and N more threads of rank 1 in an OpenMP
 * barrier; timestamps of now) and exits: the tests of the command and its screen watch it. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "order/live.h"
#include "record/syncfmt.h"

static int64_t mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t real(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* A file as the recorder makes it: the header (magic last), no record. here: a process of
 * this host (a real one: watch reads its state in /proc, and sees when it is gone); the
 * made-up processes are another host's, whose /proc is not this one's. */
static int make_file_on(const char *path, int64_t pid, int64_t tid, int32_t rank, int here)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror(path);
		exit(1);
	}
	dts_header h;
	memset(&h, 0, sizeof h);
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
	h.mono_ns = mono();
	h.real_ns = real();
	if (here)
		gethostname(h.host, sizeof h.host - 1);
	else
		snprintf(h.host, sizeof h.host, "made-up-host");
	char page[DTS_HEADER_SIZE];
	memset(page, 0, sizeof page);
	memcpy(page, &h, sizeof h);
	if (pwrite(fd, page, sizeof page, 0) != (ssize_t)sizeof page)
		exit(1);
	return fd;
}

static int make_file(const char *path, int64_t pid, int64_t tid, int32_t rank)
{
	return make_file_on(path, pid, tid, rank, 0);
}

static void set_magic(int fd)
{
	if (pwrite(fd, DTS_MAGIC, 8, 0) != 8)
		exit(1);
}

static void set_rank(int fd, int32_t rank)
{
	if (pwrite(fd, &rank, sizeof rank, offsetof(dts_header, rank)) != sizeof rank)
		exit(1);
}

static dts_record rec(unsigned call, int phase, int64_t ts)
{
	dts_record r;
	memset(&r, 0, sizeof r);
	r.call = (uint16_t)call;
	r.phase = (uint8_t)phase;
	r.ts = ts;
	r.comm = -1;
	r.dest = r.stag = r.src = r.rtag = r.root = r.datatype = r.op = r.team = -1;
	r.count = -1;
	r.tnum = r.index = -1;
	return r;
}

/* Writes record seq; commit says whether its commit word goes in (else it is left torn:
 * every field but the commit word written). */
static void put(int fd, uint64_t seq, dts_record r, int commit)
{
	r.commit = commit ? dts_commit(seq) : 0;
	if (pwrite(fd, &r, sizeof r, (off_t)(DTS_HEADER_SIZE + seq * DTS_RECORD_SIZE)) !=
	    (ssize_t)sizeof r)
		exit(1);
}

static void commit(int fd, uint64_t seq)
{
	uint32_t c = dts_commit(seq);
	if (pwrite(fd, &c, sizeof c,
		   (off_t)(DTS_HEADER_SIZE + seq * DTS_RECORD_SIZE + offsetof(dts_record, commit))) !=
	    (ssize_t)sizeof c)
		exit(1);
}

static const live_thread *find(const live *l, int32_t p, int32_t t)
{
	size_t n;
	const live_thread *th = live_threads(l, &n);
	for (size_t i = 0; i < n; i++)
		if (th[i].proc == p && th[i].thread == t)
			return &th[i];
	return NULL;
}

static int poll1(live *l)
{
	dt_err e;
	dt_err_clear(&e);
	int rc = live_poll(l, mono(), real(), &e);
	if (rc) {
		char b[512];
		dt_err_format(&e, b, sizeof b);
		fprintf(stderr, "poll: %s\n", b);
	}
	return rc;
}

static void mkdirs(const char *top)
{
	char p[4096];
	mkdir(top, 0755);
	snprintf(p, sizeof p, "%s/rank-0", top);
	mkdir(p, 0755);
	snprintf(p, sizeof p, "%s/rank-0/sync", top);
	mkdir(p, 0755);
	snprintf(p, sizeof p, "%s/rank-1", top);
	mkdir(p, 0755);
	snprintf(p, sizeof p, "%s/rank-1/sync", top);
	mkdir(p, 0755);
}

static int make_fixture(const char *top, int extra)
{
	char p[4096];
	mkdirs(top);
	int64_t now = mono();
	snprintf(p, sizeof p, "%s/rank-0/sync/4000.4000.dts", top);
	int a = make_file(p, 4000, 4000, 0);
	put(a, 0, rec(DTS_MPI_Init, 0, now - 2000000), 1);
	put(a, 1, rec(DTS_MPI_Init, 1, now - 1000000), 1);
	dts_record r = rec(DTS_MPI_Recv, 0, now);
	r.comm = 0;
	r.src = 1;
	r.rtag = 5;
	r.count = 1;
	put(a, 2, r, 1);
	set_magic(a);
	close(a);
	snprintf(p, sizeof p, "%s/rank-1/sync/4001.4001.dts", top);
	int b = make_file(p, 4001, 4001, 1);
	put(b, 0, rec(DTS_MPI_Init, 0, now - 2000000), 1);
	put(b, 1, rec(DTS_MPI_Init, 1, now - 1000000), 1);
	set_magic(b);
	close(b);
	/* more threads of rank 1, all in the same barrier */
	for (int i = 0; i < extra; i++) {
		snprintf(p, sizeof p, "%s/rank-1/sync/4001.%d.dts", top, 5000 + i);
		int x = make_file(p, 4001, 5000 + i, 1);
		put(x, 0, rec(DTS_GOMP_barrier, 0, now), 1);
		set_magic(x);
		close(x);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "--make"))
		return make_fixture(argv[2], argc == 4 ? atoi(argv[3]) : 0);
	char top[] = "/tmp/test_live.XXXXXX";
	if (!mkdtemp(top))
		SKIP("no temporary directory");
	mkdirs(top);
	live *l = live_open(top);
	size_t n;
	/* nothing yet */
	CHECK_EQ_INT(poll1(l), 0);
	live_threads(l, &n);
	CHECK_EQ_INT(n, 0);

	/* a file whose header is being made (no magic yet): a thread starting, no record */
	char p0[4096], p1[4096], p2[4096];
	snprintf(p0, sizeof p0, "%s/rank-0/sync/100.100.dts", top);
	int a = make_file(p0, 100, 100, -1);
	CHECK_EQ_INT(poll1(l), 0);
	live_threads(l, &n);
	CHECK_EQ_INT(n, 1);
	const live_thread *t = find(l, 0, 0); /* the rank from the rank-0 directory */
	CHECK(t && t->state == LIVE_STARTING);

	/* the header done, MPI_Init entered */
	int64_t t0 = mono();
	set_magic(a);
	put(a, 0, rec(DTS_MPI_Init, 0, t0), 1);
	CHECK_EQ_INT(poll1(l), 0);
	t = find(l, 0, 0);
	CHECK(t && t->state == LIVE_IN_CALL && t->cur.func == DTS_MPI_Init && t->nrec == 1);

	/* its exit, then a receive's entry written but not committed: torn, not read */
	put(a, 1, rec(DTS_MPI_Init, 1, t0 + 10), 1);
	dts_record r = rec(DTS_MPI_Recv, 0, t0 + 20);
	r.comm = 0;
	r.src = 1;
	r.rtag = 5;
	put(a, 2, r, 0);
	CHECK_EQ_INT(poll1(l), 0);
	t = find(l, 0, 0);
	CHECK(t && t->state == LIVE_OUTSIDE && t->cur.func == DTS_MPI_Init && t->nrec == 2);
	CHECK(t && t->torn);
	/* the commit word lands: the receive is read, once */
	commit(a, 2);
	CHECK_EQ_INT(poll1(l), 0);
	t = find(l, 0, 0);
	CHECK(t && t->state == LIVE_IN_CALL && t->cur.func == DTS_MPI_Recv && t->nrec == 3);
	CHECK(t && !t->torn && t->cur.src == 1 && t->cur.rtag == 5 && t->occurrence == 1);
	char args[128];
	if (t) {
		live_args(&t->cur, args, sizeof args);
		CHECK_EQ_STR(args, "src=1 tag=5");
	}
	int64_t el1 = t ? t->elapsed_ns : 0;
	/* nothing new: the same state, and the time in the call grows */
	struct timespec ms = { 0, 5000000 };
	nanosleep(&ms, NULL);
	CHECK_EQ_INT(poll1(l), 0);
	t = find(l, 0, 0);
	CHECK(t && t->nrec == 3 && t->state == LIVE_IN_CALL && t->elapsed_ns > el1);

	/* a second thread of the process (thread 1), and a process whose rank comes later */
	snprintf(p1, sizeof p1, "%s/rank-0/sync/100.105.dts", top);
	int b = make_file(p1, 100, 105, 0);
	set_magic(b);
	dts_record c = rec(DTS_GOMP_critical_start, 0, t0 + 30);
	c.obj = 1;
	put(b, 0, c, 1);
	snprintf(p2, sizeof p2, "%s/sync-of-nobody.dts", top); /* not a sync file name: ignored */
	close(open(p2, O_WRONLY | O_CREAT, 0644));
	char p3[4096];
	snprintf(p3, sizeof p3, "%s/rank-1/sync/200.200.dts", top);
	int d = make_file(p3, 200, 200, -1);
	set_magic(d);
	/* in a directory of no rank: the pid until the header says */
	CHECK_EQ_INT(poll1(l), 0);
	live_threads(l, &n);
	CHECK_EQ_INT(n, 3);
	t = find(l, 0, 1);
	CHECK(t && t->state == LIVE_IN_CALL && t->cur.func == DTS_GOMP_critical_start);
	CHECK(t && t->nholds == 0); /* waiting to enter: holds nothing yet */
	CHECK(find(l, 1, 0) != NULL); /* rank-1's directory */
	set_rank(d, 1);
	put(d, 0, rec(DTS_MPI_Init, 0, t0 + 40), 1);
	put(d, 1, rec(DTS_MPI_Init, 1, t0 + 50), 1);
	put(d, 2, rec(DTS_MPI_Finalize, 0, t0 + 60), 1);
	put(d, 3, rec(DTS_MPI_Finalize, 1, t0 + 70), 1);
	/* 0.1 enters its critical section: it holds it, inside no call */
	c.phase = 1;
	c.ts = t0 + 45;
	c.objseq = 1;
	put(b, 1, c, 1);
	CHECK_EQ_INT(poll1(l), 0);
	t = find(l, 1, 0);
	CHECK(t && t->state == LIVE_FINISHED && t->nrec == 4);
	t = find(l, 0, 1);
	CHECK(t && t->state == LIVE_OUTSIDE && t->nholds == 1 && t->holds == 1);

	/* the groups: one per state and call, inside a call first, then computing, finished */
	size_t ng;
	const live_group *g = live_groups(l, &ng);
	CHECK_EQ_INT(ng, 3);
	CHECK(ng == 3 && g[0].state == LIVE_IN_CALL && g[1].state == LIVE_OUTSIDE &&
	      g[2].state == LIVE_FINISHED);

	/* the online filter saw every record (the thread 0.0's receive waits for no send: it
	 * is an entry, which no rule holds) */
	uint64_t recs, del, held;
	const char *stopped;
	live_counts(l, &recs, &del, &held, &stopped);
	CHECK_EQ_INT(recs, 9);
	CHECK_EQ_INT(del + held, 9);
	CHECK(stopped == NULL);

	/* many records at once (more than one read's batch), ending inside a call */
	uint64_t q = 3;
	int64_t ts = t0 + 100;
	put(a, q++, rec(DTS_MPI_Recv, 1, ts++), 1);
	for (int k = 0; k < 1500; k++) {
		put(a, q++, rec(DTS_MPI_Barrier, 0, ts++), 1);
		put(a, q++, rec(DTS_MPI_Barrier, 1, ts++), 1);
		put(a, q++, rec(DTS_MPI_Recv, 0, ts++), 1);
		put(a, q++, rec(DTS_MPI_Recv, 1, ts++), 1);
	}
	put(a, q++, rec(DTS_MPI_Barrier, 0, ts++), 1);
	CHECK_EQ_INT(poll1(l), 0);
	t = find(l, 0, 0);
	CHECK(t && t->nrec == q && t->state == LIVE_IN_CALL && t->cur.func == DTS_MPI_Barrier);
	CHECK(t && t->occurrence == 1501 && t->depth == 1);

	/* a process that ended and was not reaped (its parent gone or not waiting, as a killed
	 * mpirun's ranks can be) is gone; a running one is not */
	pid_t z = fork();
	if (z == 0)
		_exit(0);
	CHECK(z > 0);
	siginfo_t si;
	CHECK(waitid(P_PID, (id_t)z, &si, WEXITED | WNOWAIT) == 0); /* exited, still a zombie */
	char p5[4096], p6[4096];
	snprintf(p5, sizeof p5, "%s/rank-0/sync/%ld.%ld.dts", top, (long)z, (long)z);
	int zf = make_file_on(p5, z, z, 2, 1);
	set_magic(zf);
	put(zf, 0, rec(DTS_MPI_Barrier, 0, t0 + 80), 1);
	long me = (long)getpid();
	snprintf(p6, sizeof p6, "%s/rank-0/sync/%ld.%ld.dts", top, me, me);
	int mf = make_file_on(p6, me, me, 3, 1);
	set_magic(mf);
	put(mf, 0, rec(DTS_MPI_Barrier, 0, t0 + 90), 1);
	CHECK_EQ_INT(poll1(l), 0);
	t = find(l, 2, 0);
	CHECK(t && t->state == LIVE_IN_CALL && t->gone);
	t = find(l, 3, 0);
	CHECK(t && t->state == LIVE_IN_CALL && !t->gone);
	/* the gone process's clock stopped when it was found gone; the running one's goes on,
	 * and it is not in a call of its own (it waits for nothing recorded): its activity is
	 * known from /proc */
	int64_t zel = find(l, 2, 0) ? find(l, 2, 0)->elapsed_ns : 0,
		mel = find(l, 3, 0) ? find(l, 3, 0)->elapsed_ns : 0;
	nanosleep(&ms, NULL);
	waitpid(z, NULL, 0);
	CHECK_EQ_INT(poll1(l), 0);
	t = find(l, 2, 0);
	CHECK(t && t->gone); /* reaped: no such process */
	CHECK(t && t->elapsed_ns == zel);
	CHECK(t && t->activity == LIVE_ACT_UNKNOWN);
	t = find(l, 3, 0);
	CHECK(t && !t->gone && t->elapsed_ns > mel);
	CHECK(t && t->activity != LIVE_ACT_UNKNOWN && t->cpu_pct >= 0);
	close(zf);
	close(mf);

	/* a file that is not a sync file: an error naming it and the offset */
	char p4[4096];
	snprintf(p4, sizeof p4, "%s/rank-0/sync/300.300.dts", top);
	int x = open(p4, O_WRONLY | O_CREAT, 0644);
	char junk[DTS_HEADER_SIZE];
	memset(junk, 'x', sizeof junk);
	CHECK(write(x, junk, sizeof junk) == (ssize_t)sizeof junk);
	close(x);
	dt_err e;
	dt_err_clear(&e);
	CHECK(live_poll(l, mono(), real(), &e) != 0);
	char msg[512];
	dt_err_format(&e, msg, sizeof msg);
	if (!strstr(msg, "300.300.dts") || !strstr(msg, "wrong magic"))
		fprintf(stderr, "bad file reported as: %s\n", msg);
	CHECK(strstr(msg, "300.300.dts") && strstr(msg, "wrong magic"));

	live_free(l);
	close(a);
	close(b);
	close(d);
	char cmd[4200];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", top);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", top);
	CHECK_DONE();
}
