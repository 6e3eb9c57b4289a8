/* bench_watch.c: the latency of `difftrace watch`, from a call's entry written into a sync file
 * to the snapshot that shows it, and the cost of one poll (src/order/live.c).
 *
 *   bench_watch [THREADS [RECORDS]]   (default 1024 threads, 10000 records each)
 *
 * A recording in progress of THREADS threads (one file each, 8 threads per process) is made in
 * a temporary directory, RECORDS records per file, each file sized by whole chunks of records
 * as the recorder sizes them. Measured, in wall time on this host:
 *   1. the first poll (every file opened, every record read and put through the filter);
 *   2. a poll with nothing new (what every refresh of an idle or hung program costs);
 *   3. a poll after one new record in every file;
 *   4. the latency of one entry: a writer appends an entry to one file at a random moment,
 *      the reader polls every INTERVAL (10 ms and 1 s, as the screen's default) and notes when
 *      the thread shows the new call; the median and the largest of 20 tries. The screen draws
 *      right after a poll, so the latency to the screen is this plus the drawing (the 80x24
 *      screen's redraw is below a millisecond, see "The interface"). */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "order/live.h"
#include "record/syncfmt.h"

static int64_t now_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static dts_record rec(unsigned call, int phase, int64_t ts, uint64_t seq)
{
	dts_record r;
	memset(&r, 0, sizeof r);
	r.call = (uint16_t)call;
	r.phase = (uint8_t)phase;
	r.ts = ts;
	r.comm = 0;
	r.dest = r.stag = r.src = r.rtag = r.root = r.datatype = r.op = r.team = -1;
	r.count = -1;
	r.tnum = r.index = -1;
	r.csize = 0;
	r.commit = dts_commit(seq);
	return r;
}

static int make_file(const char *path, int64_t pid, int64_t tid, int32_t rank)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror(path);
		exit(1);
	}
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
	h.mono_ns = now_ns(CLOCK_MONOTONIC);
	h.real_ns = now_ns(CLOCK_REALTIME);
	gethostname(h.host, sizeof h.host - 1);
	char page[DTS_HEADER_SIZE];
	memset(page, 0, sizeof page);
	memcpy(page, &h, sizeof h);
	if (pwrite(fd, page, sizeof page, 0) != (ssize_t)sizeof page)
		exit(1);
	return fd;
}

static void put(int fd, uint64_t seq, dts_record r)
{
	if (pwrite(fd, &r, sizeof r, (off_t)(DTS_HEADER_SIZE + seq * DTS_RECORD_SIZE)) !=
	    (ssize_t)sizeof r)
		exit(1);
}

static double poll_ms(live *l)
{
	dt_err e;
	dt_err_clear(&e);
	int64_t t = now_ns(CLOCK_MONOTONIC);
	if (live_poll(l, now_ns(CLOCK_MONOTONIC), now_ns(CLOCK_REALTIME), &e)) {
		char b[512];
		dt_err_format(&e, b, sizeof b);
		fprintf(stderr, "bench_watch: %s\n", b);
		exit(1);
	}
	return (double)(now_ns(CLOCK_MONOTONIC) - t) / 1e6;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int nth = argc > 1 ? atoi(argv[1]) : 1024;
	long nrec = argc > 2 ? atol(argv[2]) : 10000;
	if (nth < 1 || nrec < 2) {
		fprintf(stderr, "usage: bench_watch [THREADS [RECORDS]]\n");
		return 2;
	}
	char top[] = "/tmp/bench_watch.XXXXXX";
	if (!mkdtemp(top))
		return 1;
	int *fd = malloc((size_t)nth * sizeof *fd);
	uint64_t *seq = calloc((size_t)nth, sizeof *seq);
	int64_t t0 = now_ns(CLOCK_MONOTONIC) - 1000000000;
	dts_record *buf = malloc((size_t)nrec * sizeof *buf);
	for (int i = 0; i < nth; i++) {
		int p = i / 8;
		char d[4200], path[4300];
		snprintf(d, sizeof d, "%s/rank-%d", top, p);
		mkdir(d, 0755);
		snprintf(d, sizeof d, "%s/rank-%d/sync", top, p);
		mkdir(d, 0755);
		snprintf(path, sizeof path, "%s/%d.%d.dts", d, 1000 + p, i % 8 ? 100000 + i : 1000 + p);
		fd[i] = make_file(path, 1000 + p, i % 8 ? 100000 + i : 1000 + p, p);
		/* barriers of one communicator per thread: entries and exits, every rule checked */
		for (long k = 0; k < nrec; k++)
			buf[k] = rec(DTS_MPI_Barrier, (int)(k & 1), t0 + k * 1000, (uint64_t)k);
		if (pwrite(fd[i], buf, (size_t)nrec * sizeof *buf, DTS_HEADER_SIZE) !=
		    (ssize_t)((size_t)nrec * sizeof *buf))
			return 1;
		seq[i] = (uint64_t)nrec;
		/* the recorder maps its file by chunks: the rest of the last chunk is zeros */
		off_t end = DTS_HEADER_SIZE + (off_t)(((size_t)nrec / DTS_CHUNK_RECORDS + 1) *
						    DTS_CHUNK_RECORDS * DTS_RECORD_SIZE);
		if (ftruncate(fd[i], end) != 0)
			return 1;
	}
	live *l = live_open(top);
	double first = poll_ms(l);
	uint64_t recs, del, held;
	const char *stopped;
	live_counts(l, &recs, &del, &held, &stopped);
	double idle = 0;
	for (int k = 0; k < 10; k++)
		idle += poll_ms(l) / 10;
	for (int i = 0; i < nth; i++)
		put(fd[i], seq[i], rec(DTS_MPI_Barrier, 0, t0 + (int64_t)seq[i] * 1000, seq[i])), seq[i]++;
	double one = poll_ms(l);
	printf("watch: %d threads (%d processes), %ld records each = %.1f M records\n", nth,
	       (nth + 7) / 8, nrec, (double)nth * (double)nrec / 1e6);
	printf("  first poll (open, read and filter everything): %8.1f ms  (%.1f M records/s;"
	       " filter: %llu in order, %llu held%s)\n",
	       first, (double)nth * (double)nrec / first / 1e3, (unsigned long long)del,
	       (unsigned long long)held, stopped ? ", stopped" : "");
	printf("  poll with nothing new:                         %8.3f ms\n", idle);
	printf("  poll after one new record in every file:       %8.3f ms\n", one);
	/* the latency of one entry */
	static const double intervals[] = { 0.01, 1.0 };
	srand(1);
	for (size_t v = 0; v < sizeof intervals / sizeof *intervals; v++) {
		int64_t step = (int64_t)(intervals[v] * 1e9);
		enum { TRIES = 20 };
		double lat[TRIES];
		for (int t = 0; t < TRIES; t++) {
			int i = rand() % nth;
			/* close the open call (each file ends inside a barrier), then, at a moment
			 * unrelated to the reader's refreshes, enter a receive */
			put(fd[i], seq[i], rec(DTS_MPI_Barrier, 1, now_ns(CLOCK_MONOTONIC), seq[i]));
			seq[i]++;
			poll_ms(l);
			int64_t next = now_ns(CLOCK_MONOTONIC) + step;
			int64_t wait = (int64_t)((double)rand() / RAND_MAX * (double)step);
			struct timespec ws = { (time_t)(wait / 1000000000), (long)(wait % 1000000000) };
			nanosleep(&ws, NULL);
			int64_t at = now_ns(CLOCK_MONOTONIC);
			dts_record r = rec(DTS_MPI_Recv, 0, at, seq[i]);
			r.src = 0;
			r.rtag = 1;
			put(fd[i], seq[i], r);
			seq[i]++;
			for (;;) {
				int64_t n = now_ns(CLOCK_MONOTONIC);
				if (n < next) {
					struct timespec s = { (time_t)((next - n) / 1000000000),
							      (long)((next - n) % 1000000000) };
					nanosleep(&s, NULL);
				}
				next += step;
				poll_ms(l);
				size_t nt;
				const live_thread *th = live_threads(l, &nt);
				int seen = 0;
				for (size_t k = 0; k < nt; k++)
					if (th[k].proc == i / 8 && th[k].state == LIVE_IN_CALL &&
					    th[k].cur.func == DTS_MPI_Recv && th[k].cur.ts == at)
						seen = 1;
				if (seen)
					break;
			}
			lat[t] = (double)(now_ns(CLOCK_MONOTONIC) - at) / 1e6;
			/* close the receive again, for the next try */
			put(fd[i], seq[i], rec(DTS_MPI_Recv, 1, now_ns(CLOCK_MONOTONIC), seq[i]));
			seq[i]++;
			put(fd[i], seq[i], rec(DTS_MPI_Barrier, 0, now_ns(CLOCK_MONOTONIC), seq[i]));
			seq[i]++;
		}
		qsort(lat, TRIES, sizeof *lat, cmp_d);
		printf("  entry to snapshot, refresh every %5.2f s:      median %8.1f ms, largest %8.1f ms"
		       " (%d tries)\n",
		       intervals[v], (lat[TRIES / 2 - 1] + lat[TRIES / 2]) / 2, lat[TRIES - 1], TRIES);
	}
	live_free(l);
	for (int i = 0; i < nth; i++)
		close(fd[i]);
	char cmd[4200];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", top);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", top);
	free(fd);
	free(seq);
	free(buf);
	return 0;
}
