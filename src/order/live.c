/* live.c: the sync record of a running program, read incrementally (live.h). */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "import/sync_file.h"
#include "order/args.h"
#include "order/filter.h"
#include "order/live.h"
#include "order/rules.h"
#include "record/syncfmt.h"
#include "util/util.h"

#define BATCH 1024 /* records read at a time */
#define ROUND 64   /* records of one file given to the filter in a turn */

typedef struct lfile {
	char *path;
	int64_t pid, tid;
	int k;             /* 1, or n for <pid>.<tid>-n.dts (a thread id used again) */
	int64_t dir_rank;  /* the rank-N directory it is in, or -1 */
	int fd;            /* -1 until the header is complete */
	dts_header h;
	uint64_t nrec;     /* records read: the next one's index */
	uint64_t seen;     /* the index the filter's queue of this file is at */
	int torn;
	/* the thread */
	size_t sp;         /* open calls */
	dt_sync_event *ev; /* the entries of the open calls, outermost first */
	size_t evcap;
	dt_sync_event last;
	int have_last;
	uint64_t *occ;     /* entries per call code */
	int finished;
	uint64_t *held;    /* the locks and critical sections it holds */
	size_t nheld, capheld;
	int64_t since;     /* ts of the last change of state */
	/* /proc: the thread's CPU time at the last poll, and when the process was found gone */
	uint64_t cpu_ticks;
	int64_t cpu_mono;  /* 0 before the first sample */
	int64_t gone_mono, gone_real; /* 0 while it runs */
	int32_t proc;      /* its rank at the last poll, -1 unknown */
	int32_t thread;    /* its number in the process, computed when the files change */
} lfile;

struct live {
	char **dirs;       /* the sync directories found, with their rank (-1 none) */
	int64_t *dir_rank;
	struct timespec *dir_mtime; /* when each was last listed: a new file changes it */
	size_t ndirs;
	char *top;
	lfile *f;
	size_t n, cap;
	size_t numbered;   /* the files when the threads were last numbered */
	live_thread *th;
	size_t nth, capth;
	live_group *groups;
	size_t ngroups, capgroups;
	char host[DTS_HOST_MAX];
	dts_record *buf;
	/* the online causality filter */
	ord_rules *rules;
	ord_filter *filter;
	uint64_t records, delivered;
	char *stopped;
};

static const char *const call_names[] = {
	NULL,
#define DTS_X(n) #n,
	DTS_CALLS(DTS_X)
#undef DTS_X
};

const char *live_call_name(uint32_t c)
{
	return c > 0 && c < DTS_NCALLS ? call_names[c] : "?";
}

const char *live_nth(uint64_t k, char *b, size_t n)
{
	const char *suf = "th";
	if (k % 100 < 11 || k % 100 > 13)
		suf = k % 10 == 1 ? "st" : k % 10 == 2 ? "nd" : k % 10 == 3 ? "rd" : "th";
	snprintf(b, n, "%" PRIu64 "%s", k, suf);
	return b;
}

void live_args(const dt_sync_event *v, char *b, size_t n)
{
	size_t len = 0;
	char p[24], t[24];
#define ADD(...) ord_addf(b, n, &len, __VA_ARGS__)
	b[0] = 0;
	if (v->dest != DT_SYNC_NONE) {
		ord_peer_str(p, sizeof p, v->dest);
		ADD("%sdest=%s tag=%" PRId32, len ? " " : "", p, v->stag);
	}
	if (v->src != DT_SYNC_NONE) {
		ord_peer_str(p, sizeof p, v->src);
		ord_peer_str(t, sizeof t, v->rtag);
		ADD("%ssrc=%s tag=%s", len ? " " : "", p, t);
	}
	if (v->root != DT_SYNC_NONE)
		ADD("%sroot=%" PRId32, len ? " " : "", v->root);
	if (v->comm != DT_SYNC_NONE && v->comm != 0)
		ADD("%scomm=%" PRId32, len ? " " : "", v->comm);
	if (v->req && v->src == DT_SYNC_NONE && v->dest == DT_SYNC_NONE)
		ADD("%sreq=%" PRIu64, len ? " " : "", v->req);
	if (v->obj && v->team == DT_SYNC_NONE)
		ADD("%sobj=%#" PRIx64, len ? " " : "", v->obj);
	if (v->team != DT_SYNC_NONE && v->team > 0)
		ADD("%steam=%" PRId32, len ? " " : "", v->team);
#undef ADD
}

/* ---- files ---------------------------------------------------------------------------------- */

static int parse_rank(const char *name, int64_t *rank)
{
	char *end;
	if (strncmp(name, "rank-", 5) || !isdigit((unsigned char)name[5]))
		return 0;
	*rank = strtoll(name + 5, &end, 10);
	return !*end;
}

static int is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static void add_dir(live *l, char *d, int64_t rank)
{
	for (size_t i = 0; i < l->ndirs; i++)
		if (!strcmp(l->dirs[i], d)) {
			free(d);
			return;
		}
	l->dirs = xrealloc(l->dirs, (l->ndirs + 1) * sizeof *l->dirs);
	l->dir_rank = xrealloc(l->dir_rank, (l->ndirs + 1) * sizeof *l->dir_rank);
	l->dir_mtime = xrealloc(l->dir_mtime, (l->ndirs + 1) * sizeof *l->dir_mtime);
	memset(&l->dir_mtime[l->ndirs], 0, sizeof *l->dir_mtime);
	l->dirs[l->ndirs] = d;
	l->dir_rank[l->ndirs++] = rank;
}

/* The sync directories under the top: DIR/rank-N/sync, DIR/sync, or DIR itself. They may
 * appear while the program starts, so this runs at every poll. */
static void find_dirs(live *l)
{
	DIR *d = opendir(l->top);
	if (!d)
		return;
	struct dirent *de;
	int files = 0;
	while ((de = readdir(d))) {
		int64_t r, pid, tid;
		int k;
		if (parse_rank(de->d_name, &r)) {
			char *rd = path_join(l->top, de->d_name), *sd = path_join(rd, "sync");
			free(rd);
			if (is_dir(sd))
				add_dir(l, sd, r);
			else
				free(sd);
		} else if (!strcmp(de->d_name, "sync")) {
			char *sd = path_join(l->top, "sync");
			if (is_dir(sd)) {
				/* a rank's directory: its name says the rank */
				const char *b = strrchr(l->top, '/');
				int64_t rank = -1;
				parse_rank(b ? b + 1 : l->top, &rank);
				add_dir(l, sd, rank);
			} else {
				free(sd);
			}
		} else if (sync_file_name(de->d_name, &pid, &tid, &k)) {
			files = 1;
		}
	}
	closedir(d);
	if (files)
		add_dir(l, xstrdup(l->top), -1);
}

static void scan_dir(live *l, size_t di)
{
	const char *dir = l->dirs[di];
	int64_t rank = l->dir_rank[di];
	/* listed again only when it changed (a second's worth of slack: a file made in the same
	 * clock tick as the last listing would otherwise be missed) */
	struct stat st;
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	if (stat(dir, &st) != 0)
		return;
	if (st.st_mtim.tv_sec == l->dir_mtime[di].tv_sec &&
	    st.st_mtim.tv_nsec == l->dir_mtime[di].tv_nsec && now.tv_sec > st.st_mtim.tv_sec + 1)
		return;
	l->dir_mtime[di] = st.st_mtim;
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		int64_t pid, tid;
		int k;
		if (!sync_file_name(de->d_name, &pid, &tid, &k))
			continue;
		char *p = path_join(dir, de->d_name);
		size_t i;
		for (i = 0; i < l->n && strcmp(l->f[i].path, p); i++)
			;
		if (i < l->n) {
			free(p);
			continue;
		}
		GROW(l->f, l->cap, l->n + 1);
		lfile *f = &l->f[l->n++];
		memset(f, 0, sizeof *f);
		f->path = p;
		f->pid = pid;
		f->tid = tid;
		f->k = k;
		f->dir_rank = rank;
		f->fd = -1;
		f->h.rank = -1;
		f->occ = xcalloc(DTS_NCALLS, sizeof *f->occ);
	}
	closedir(d);
}

/* Reads the header once it is complete (its magic is written last). 1 ready, 0 not yet. */
static int open_header(lfile *f, dt_err *e)
{
	int fd = open(f->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0; /* removed, or not readable yet: try again */
	dts_header h;
	ssize_t got = pread(fd, &h, sizeof h, 0);
	if (got < (ssize_t)sizeof h || !memcmp(h.magic, "\0\0\0\0\0\0\0\0", 8)) {
		close(fd);
		return 0;
	}
	if (memcmp(h.magic, DTS_MAGIC, 8)) {
		close(fd);
		return dt_err_at(e, f->path, 0, "not a difftrace sync file (wrong magic)");
	}
	if (h.endian != 0x01020304u || h.version != DTS_VERSION ||
	    h.header_size != DTS_HEADER_SIZE || h.record_size != DTS_RECORD_SIZE) {
		close(fd);
		return dt_err_at(e, f->path, offsetof(dts_header, version),
				 "a sync file this difftrace does not read (version %" PRIu32
				 ", other byte order or sizes)", h.version);
	}
	h.host[DTS_HOST_MAX - 1] = 0;
	f->h = h;
	f->fd = fd;
	return 1;
}

static void ev_from(const dts_record *r, uint64_t i, dt_sync_event *ev)
{
	sync_record_event(r, i, ev);
	ev->func = r->call;
}

static int is_acquire(uint32_t c)
{
	return c == DTS_GOMP_critical_start || c == DTS_GOMP_critical_name_start ||
	       c == DTS_omp_set_lock || c == DTS_omp_set_nest_lock;
}

static int is_release(uint32_t c)
{
	return c == DTS_GOMP_critical_end || c == DTS_GOMP_critical_name_end ||
	       c == DTS_omp_unset_lock || c == DTS_omp_unset_nest_lock;
}

/* One event into the thread's state: the stack of open calls, the locks held. */
static void track(lfile *f, const dt_sync_event *v)
{
	if (v->phase == DT_SYNC_EXIT && is_acquire(v->func)) {
		GROW(f->held, f->capheld, f->nheld + 1);
		f->held[f->nheld++] = v->obj;
	} else if (v->phase == DT_SYNC_ENTER && is_release(v->func)) {
		for (size_t i = f->nheld; i-- > 0;)
			if (f->held[i] == v->obj) {
				memmove(f->held + i, f->held + i + 1, (f->nheld - i - 1) * sizeof *f->held);
				f->nheld--;
				break;
			}
	}
	if (v->phase == DT_SYNC_ENTER) {
		GROW(f->ev, f->evcap, f->sp + 1);
		f->ev[f->sp++] = *v;
		if (v->func < DTS_NCALLS)
			f->occ[v->func]++;
		f->since = v->ts;
		f->finished = 0;
	} else if (v->phase == DT_SYNC_EXIT) {
		for (size_t s = f->sp; s-- > 0;)
			if (f->ev[s].func == v->func) {
				f->sp = s;
				break;
			}
		f->last = *v;
		f->have_last = 1;
		f->since = v->ts;
		f->finished = v->func == DTS_MPI_Finalize;
	}
}

/* The records appended to f since the last poll, up to the first not complete yet. */
static int read_new(live *l, lfile *f, dt_err *e)
{
	if (f->fd < 0) {
		int r = open_header(f, e);
		if (r <= 0)
			return r;
	}
	/* the rank: written into the header when the thread learns it */
	if (f->h.rank < 0) {
		int32_t rank;
		if (pread(f->fd, &rank, sizeof rank, offsetof(dts_header, rank)) == sizeof rank)
			f->h.rank = rank;
	}
	f->torn = 0;
	/* a few records first: most polls find few new ones, and the rest of the recorder's
	 * chunk is zeros not worth copying */
	size_t want = 16;
	for (;;) {
		off_t off = (off_t)DTS_HEADER_SIZE + (off_t)(f->nrec * DTS_RECORD_SIZE);
		ssize_t got = pread(f->fd, l->buf, want * sizeof *l->buf, off);
		if (got < 0)
			return dt_err_at(e, f->path, (int64_t)off, "cannot read: %s", strerror(errno));
		size_t nr = (size_t)got / DTS_RECORD_SIZE, i;
		for (i = 0; i < nr; i++) {
			const dts_record *r = &l->buf[i];
			if (r->commit != dts_commit(f->nrec)) {
				/* not written yet (zeros), or being written: read again next time */
				const unsigned char *b = (const unsigned char *)r;
				for (size_t k = 0; k < sizeof *r; k++)
					if (b[k]) {
						f->torn = 1;
						break;
					}
				return 0;
			}
			if (!r->call || r->call >= DTS_NCALLS || r->phase > DT_SYNC_DONE)
				return dt_err_at(e, f->path, (int64_t)off + (int64_t)(i * DTS_RECORD_SIZE),
						 "bad record %" PRIu64 ": call %u, phase %u", f->nrec,
						 r->call, r->phase);
			dt_sync_event v;
			ev_from(r, f->nrec, &v);
			track(f, &v);
			f->nrec++;
			l->records++;
		}
		if (nr < want)
			return 0;
		want = BATCH;
	}
}

/* ---- the online filter ------------------------------------------------------------------------ */

static void on_deliver(void *ctx, const ord_out *o)
{
	(void)o;
	((live *)ctx)->delivered++;
}

/* Up to `max` of the records read since the filter last saw the file, with the file's P.T.
 * Returns how many went in. */
static uint64_t feed(live *l, lfile *f, int32_t proc, int32_t thread, uint64_t max)
{
	if (!l->filter || l->stopped || f->fd < 0 || proc < 0)
		return 0;
	uint64_t done = 0;
	while (f->seen < f->nrec && done < max) {
		uint64_t want = f->nrec - f->seen;
		if (want > max - done)
			want = max - done;
		size_t nr = want < BATCH ? (size_t)want : BATCH;
		off_t off = (off_t)DTS_HEADER_SIZE + (off_t)(f->seen * DTS_RECORD_SIZE);
		ssize_t got = pread(f->fd, l->buf, nr * sizeof *l->buf, off);
		if (got < (ssize_t)(nr * sizeof *l->buf))
			return done;
		dt_err e;
		dt_err_clear(&e);
		for (size_t i = 0; i < nr; i++) {
			dt_sync_event v;
			ev_from(&l->buf[i], f->seen, &v);
			v.proc = proc;
			v.thread = thread;
			if (ord_filter_push(l->filter, &v, f->seen, &e)) {
				char b[1024];
				dt_err_format(&e, b, sizeof b);
				l->stopped = xstrdup(b);
				return done;
			}
			f->seen++;
			done++;
		}
	}
	return done;
}

/* ---- threads and groups ------------------------------------------------------------------------ */

static int cmp_th(const void *a, const void *b)
{
	const live_thread *x = a, *y = b;
	if ((x->proc < 0) != (y->proc < 0))
		return x->proc < 0 ? 1 : -1;
	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->thread > y->thread) - (x->thread < y->thread);
}

static int cmp_group(const void *a, const void *b)
{
	const live_group *x = a, *y = b;
	if (x->state != y->state)
		return x->state < y->state ? -1 : 1;
	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return (x->threads[0] > y->threads[0]) - (x->threads[0] < y->threads[0]);
}

/* The file of l->f with the thread's number in its process: the main thread 0, then by tid. */
static int32_t thread_number(const live *l, const lfile *f)
{
	int main_ = f->pid == f->tid && f->k == 1;
	if (main_)
		return 0;
	int32_t t = 1;
	for (size_t i = 0; i < l->n; i++) {
		const lfile *g = &l->f[i];
		if (g == f || g->pid != f->pid || strcmp(g->path, f->path) == 0)
			continue;
		if (g->pid == g->tid && g->k == 1)
			continue;
		if (g->tid < f->tid || (g->tid == f->tid && g->k < f->k))
			t++;
	}
	return t;
}

static int32_t rank_of(const live *l, const lfile *f)
{
	if (f->h.rank >= 0)
		return f->h.rank;
	/* another thread of the process may know it */
	for (size_t i = 0; i < l->n; i++)
		if (l->f[i].pid == f->pid && l->f[i].h.rank >= 0 &&
		    !strcmp(l->f[i].h.host, f->h.host))
			return l->f[i].h.rank;
	return f->dir_rank >= 0 && f->dir_rank <= INT32_MAX ? (int32_t)f->dir_rank : -1;
}

/* The process has ended: no such pid, or a zombie that nobody reaps (mpirun killed, its
 * ranks left to a pid 1 that does not wait for them, as in many containers). */
static int proc_gone(pid_t pid)
{
	if (kill(pid, 0) != 0)
		return errno == ESRCH;
	char path[64], buf[512];
	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	FILE *fp = fopen(path, "r");
	if (!fp)
		return 0;
	size_t n = fread(buf, 1, sizeof buf - 1, fp);
	fclose(fp);
	buf[n] = 0;
	const char *rp = strrchr(buf, ')'); /* the command name may hold ')' and spaces */
	return rp && rp[1] == ' ' && (rp[2] == 'Z' || rp[2] == 'X');
}

const char *live_activity_name(int activity)
{
	switch (activity) {
	case LIVE_ACT_CPU: return "computing";
	case LIVE_ACT_SLEEP: return "sleeping";
	case LIVE_ACT_WAIT: return "waiting outside the recorded calls";
	}
	return "not in a recorded call";
}

/* What thread tid of process pid does (live.h, enum live_activity), from its stat (state,
 * utime + stime) and its syscall file; *pct its share of a CPU since the previous sample. */
static int proc_activity(lfile *f, int64_t now_mono, int *pct)
{
	char path[96], buf[1024];
	*pct = -1;
	snprintf(path, sizeof path, "/proc/%lld/task/%lld/stat", (long long)f->pid,
		 (long long)f->tid);
	FILE *fp = fopen(path, "r");
	if (!fp)
		return LIVE_ACT_UNKNOWN;
	size_t n = fread(buf, 1, sizeof buf - 1, fp);
	fclose(fp);
	buf[n] = 0;
	const char *rp = strrchr(buf, ')'); /* the command name may hold ')' and spaces */
	if (!rp || rp[1] != ' ' || !rp[2])
		return LIVE_ACT_UNKNOWN;
	char state = rp[2];
	/* after the state: fields 4 to 13, then utime and stime (proc(5)) */
	const char *q = rp + 3;
	for (int k = 0; k < 10 && q; k++)
		q = strchr(q + 1, ' ');
	unsigned long long ut = 0, st = 0;
	if (!q || sscanf(q, " %llu %llu", &ut, &st) != 2)
		return LIVE_ACT_UNKNOWN;
	uint64_t ticks = ut + st;
	/* running or runnable: on a loaded node a computing thread waits for its turn, and
	 * gets less than a quarter of a CPU */
	int busy = state == 'R';
	long hz = sysconf(_SC_CLK_TCK);
	if (f->cpu_mono && now_mono > f->cpu_mono && hz > 0 && ticks >= f->cpu_ticks) {
		/* over the time since the last poll: a quarter of a CPU or more is computing,
		 * also when the thread was caught off its CPU (a page fault, a short read) */
		double cpu = (double)(ticks - f->cpu_ticks) / (double)hz,
		       wall = (double)(now_mono - f->cpu_mono) / 1e9;
		*pct = (int)(cpu / wall * 100 + 0.5);
		if (*pct > 100)
			*pct = 100;
		busy |= wall >= 0.05 && *pct >= 25;
	}
	f->cpu_ticks = ticks;
	f->cpu_mono = now_mono;
	if (busy)
		return LIVE_ACT_CPU;
	snprintf(path, sizeof path, "/proc/%lld/task/%lld/syscall", (long long)f->pid,
		 (long long)f->tid);
	long nr = -1;
	if ((fp = fopen(path, "r"))) {
		if (fscanf(fp, "%ld", &nr) != 1)
			nr = -1;
		fclose(fp);
	}
#ifdef SYS_nanosleep
	if (nr == SYS_nanosleep)
		return LIVE_ACT_SLEEP;
#endif
#ifdef SYS_clock_nanosleep
	if (nr == SYS_clock_nanosleep)
		return LIVE_ACT_SLEEP;
#endif
#ifdef SYS_pause
	if (nr == SYS_pause)
		return LIVE_ACT_SLEEP;
#endif
	return LIVE_ACT_WAIT;
}

static void build(live *l, int64_t now_mono, int64_t now_real)
{
	l->nth = 0;
	for (size_t i = 0; i < l->n; i++) {
		lfile *f = &l->f[i];
		GROW(l->th, l->capth, l->nth + 1);
		live_thread *t = &l->th[l->nth++];
		memset(t, 0, sizeof *t);
		t->proc = rank_of(l, f);
		if (l->numbered != l->n)
			f->thread = thread_number(l, f);
		t->thread = f->thread;
		t->pid = f->pid;
		t->tid = f->tid;
		t->host = f->fd >= 0 ? f->h.host : "";
		t->nrec = f->nrec;
		t->torn = f->torn;
		t->nholds = (uint32_t)f->nheld;
		t->holds = f->nheld ? f->held[0] : 0;
		/* a process of this host that ended (killed, crashed): its thread stays where the
		 * record left it */
		int here = f->fd >= 0 && !strcmp(f->h.host, l->host) && f->pid > 0;
		t->gone = here && proc_gone((pid_t)f->pid);
		t->cpu_pct = -1;
		if (here && !t->gone)
			t->activity = proc_activity(f, now_mono, &t->cpu_pct);
		if (t->gone && !f->gone_mono) {
			/* its clock stops here: it is no longer in any state */
			f->gone_mono = now_mono;
			f->gone_real = now_real;
		}
		if (!f->nrec) {
			t->state = LIVE_STARTING;
		} else if (f->sp) {
			t->state = LIVE_IN_CALL;
			t->cur = f->ev[f->sp - 1];
			t->depth = (uint32_t)f->sp;
		} else {
			t->state = f->finished ? LIVE_FINISHED : LIVE_OUTSIDE;
			if (f->have_last)
				t->cur = f->last;
		}
		t->cur.proc = t->proc;
		t->cur.thread = t->thread;
		if (t->cur.func && t->cur.func < DTS_NCALLS)
			t->occurrence = f->occ[t->cur.func];
		if (f->nrec) {
			int same = !strcmp(f->h.host, l->host);
			int64_t m = f->gone_mono ? f->gone_mono : now_mono,
				r = f->gone_real ? f->gone_real : now_real;
			int64_t el = same ? m - f->since : r - (f->since - f->h.mono_ns + f->h.real_ns);
			t->elapsed_ns = el > 0 ? el : 0;
		}
		f->proc = t->proc;
	}
	/* the new records into the filter, a few from each file in turn, so that the disorder it
	 * holds stays near that of the program rather than that of the files; the queue of a
	 * file is its index, which stays while thread numbers may move as threads appear */
	for (uint64_t went = 1; went;) {
		went = 0;
		for (size_t i = 0; i < l->n; i++)
			went += feed(l, &l->f[i], l->f[i].proc, (int32_t)i, ROUND);
	}
	l->numbered = l->n;
	if (l->nth > 1)
		qsort(l->th, l->nth, sizeof *l->th, cmp_th);
	for (size_t i = 0; i < l->ngroups; i++)
		free(l->groups[i].threads);
	l->ngroups = 0;
	for (size_t i = 0; i < l->nth; i++) {
		const live_thread *t = &l->th[i];
		uint32_t func = t->state == LIVE_IN_CALL ? t->cur.func : 0;
		int act = t->state == LIVE_OUTSIDE ? t->activity : 0;
		live_group *g = NULL;
		for (size_t k = 0; k < l->ngroups && !g; k++)
			if (l->groups[k].state == t->state && l->groups[k].func == func &&
			    l->groups[k].activity == act)
				g = &l->groups[k];
		if (!g) {
			GROW(l->groups, l->capgroups, l->ngroups + 1);
			g = &l->groups[l->ngroups++];
			memset(g, 0, sizeof *g);
			g->state = t->state;
			g->func = func;
			g->activity = act;
			g->threads = xmalloc(l->nth * sizeof *g->threads);
		}
		g->threads[g->n++] = i;
		if (t->elapsed_ns > g->max_ns)
			g->max_ns = t->elapsed_ns;
	}
	if (l->ngroups > 1)
		qsort(l->groups, l->ngroups, sizeof *l->groups, cmp_group);
}

/* ---- the interface ------------------------------------------------------------------------------- */

live *live_open(const char *dir)
{
	live *l = xcalloc(1, sizeof *l);
	l->top = xstrdup(dir);
	l->buf = xmalloc(BATCH * sizeof *l->buf);
	if (gethostname(l->host, sizeof l->host - 1) != 0)
		l->host[0] = 0;
	/* the online filter: the shipped rules, bound to the call codes as function ids */
	dt_err e;
	dt_err_clear(&e);
	l->rules = ord_rules_new();
	if (ord_rules_load_default(l->rules, &e) ||
	    ord_rules_bind(l->rules, call_names, DTS_NCALLS, &e)) {
		char b[512];
		dt_err_format(&e, b, sizeof b);
		l->stopped = xstrdup(b);
	} else {
		ord_filter_opts o = { ORD_MINIMAL, NULL, 0, 0, 0 };
		l->filter = ord_filter_new(l->rules, &o, on_deliver, l);
	}
	return l;
}

void live_free(live *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++) {
		lfile *f = &l->f[i];
		if (f->fd >= 0)
			close(f->fd);
		free(f->path);
		free(f->ev);
		free(f->occ);
		free(f->held);
	}
	free(l->f);
	for (size_t i = 0; i < l->ndirs; i++)
		free(l->dirs[i]);
	free(l->dirs);
	free(l->dir_rank);
	free(l->dir_mtime);
	free(l->th);
	for (size_t i = 0; i < l->ngroups; i++)
		free(l->groups[i].threads);
	free(l->groups);
	free(l->buf);
	free(l->top);
	ord_filter_free(l->filter);
	ord_rules_free(l->rules);
	free(l->stopped);
	free(l);
}

int live_poll(live *l, int64_t now_mono_ns, int64_t now_real_ns, dt_err *e)
{
	find_dirs(l);
	for (size_t i = 0; i < l->ndirs; i++)
		scan_dir(l, i);
	for (size_t i = 0; i < l->n; i++)
		if (read_new(l, &l->f[i], e))
			return -1;
	build(l, now_mono_ns, now_real_ns);
	return 0;
}

const live_thread *live_threads(const live *l, size_t *n)
{
	*n = l->nth;
	return l->th;
}

const live_group *live_groups(const live *l, size_t *n)
{
	*n = l->ngroups;
	return l->groups;
}

void live_counts(const live *l, uint64_t *records, uint64_t *delivered, uint64_t *held,
		 const char **stopped)
{
	*records = l->records;
	*delivered = l->delivered;
	*held = l->filter ? ord_filter_held(l->filter) : 0;
	*stopped = l->stopped;
}

size_t live_nfiles(const live *l)
{
	return l->n;
}
