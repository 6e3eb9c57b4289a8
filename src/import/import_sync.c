/* import_sync.c: the sync record of a run, attached to uftrace traces or imported alone. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "import/import_sample.h"
#include "import/import_sync.h"
#include "import/sitemap.h"
#include "import/sync_file.h"

#define BATCH 4096

struct sfile {
	char *path;
	int64_t pid, tid;
	int k; /* 1, or n for <pid>.<tid>-n.dts: a tid used again */
	int used;
};

struct sync_dir {
	char *dir;
	struct sfile *f;
	size_t n, cap;
	int timed_out; /* difftrace-record --timeout ended the rank (its marker file) */
	uint32_t func[DTS_NCALLS]; /* function ids in the sink, 0 until interned */
	sitemap *sites;            /* the call sites, from the processes' module maps */
	dt_sync_event *batch;
	uint32_t *ev;
	uint64_t *ts;
};

static int cmp_file(const void *a, const void *b)
{
	const struct sfile *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return (x->k > y->k) - (x->k < y->k);
}

static int has_dts(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int found = 0;
	int64_t p, t;
	int k;
	while (d && !found && (de = readdir(d)))
		found = sync_file_name(de->d_name, &p, &t, &k);
	if (d)
		closedir(d);
	return found;
}

char *sync_dir_find(const char *dir)
{
	char *sub = path_join(dir, "sync");
	if (has_dts(sub))
		return sub;
	free(sub);
	return has_dts(dir) ? xstrdup(dir) : NULL;
}

int sync_dir_open(const char *dir, sync_dir **out, dt_err *e)
{
	*out = NULL;
	DIR *dp = opendir(dir);
	if (!dp) {
		if (errno == ENOENT)
			return 0;
		return dt_err_at(e, dir, -1, "cannot open directory: %s", strerror(errno));
	}
	sync_dir *d = xcalloc(1, sizeof *d);
	d->dir = xstrdup(dir);
	/* the marker is in the rank directory, the parent of DIR/sync */
	struct stat st;
	char *m = path_join(dir, "../difftrace-timeout"), *m2 = path_join(dir, "difftrace-timeout");
	d->timed_out = stat(m, &st) == 0 || stat(m2, &st) == 0;
	free(m);
	free(m2);
	struct dirent *de;
	while ((de = readdir(dp))) {
		struct sfile f = { 0 };
		if (!sync_file_name(de->d_name, &f.pid, &f.tid, &f.k))
			continue;
		f.path = path_join(dir, de->d_name);
		GROW(d->f, d->cap, d->n + 1);
		d->f[d->n++] = f;
	}
	closedir(dp);
	if (d->n)
		qsort(d->f, d->n, sizeof *d->f, cmp_file);
	d->sites = sitemap_new(dir);
	d->batch = xmalloc(BATCH * sizeof *d->batch);
	d->ev = xmalloc(BATCH * sizeof *d->ev);
	d->ts = xmalloc(BATCH * sizeof *d->ts);
	*out = d;
	return 0;
}

void sync_dir_free(sync_dir *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->n; i++)
		free(d->f[i].path);
	free(d->f);
	sitemap_free(d->sites);
	free(d->dir);
	free(d->batch);
	free(d->ev);
	free(d->ts);
	free(d);
}

/* Appends to a note that is not NUL-terminated yet. */
static void note_add(dt_buf *note, const char *text)
{
	if (note->len)
		buf_put(note, "; ", 2);
	buf_put(note, text, strlen(text));
}

/* Pushes the file's events into the current trace: the sync events, and with as_events the
 * calls as the trace's own events too. */
static int push_file(sync_dir *d, sync_file *sf, dt_sink *s, int as_events,
		     unsigned *flags, dt_buf *note, dt_err *e)
{
	dt_sync_clock clk = { sf->h.clock_id, sf->h.mono_ns, sf->h.real_ns };
	size_t nb = 0, ne = 0;
	int first = 1;
	uint64_t depth = 0;
	for (uint64_t i = 0;; i++) {
		/* each record checked as it is read (sync_file_start) */
		int more = sync_file_check(sf, i, e);
		if (more < 0)
			return -1;
		if (!more || nb == BATCH || ne == BATCH) {
			if (nb && s->sync && s->sync(s->ctx, first ? &clk : NULL, d->batch, nb, e))
				return -1;
			if (ne && s->events(s->ctx, d->ev, d->ts, ne, e))
				return -1;
			first = first && !nb;
			nb = ne = 0;
			if (!more)
				break;
			sync_file_release(sf, i);
		}
		dt_sync_event *ev = &d->batch[nb];
		unsigned call;
		uint64_t at;
		sync_file_event(sf, i, ev, &call, &at);
		if (!d->func[call]) {
			const char *name = sync_call_name(call);
			if (!(d->func[call] = s->func(s->ctx, name, strlen(name), e)))
				return -1;
		}
		ev->func = d->func[call];
		uint32_t site = sitemap_get(d->sites, sf->h.pid, at, s, e);
		if (site == (uint32_t)-1)
			return -1;
		ev->site = site;
		nb++;
		if (!as_events || ev->phase == DT_SYNC_DONE)
			continue;
		if (ev->phase == DT_SYNC_EXIT && !depth)
			continue; /* cannot happen in the recorder's output; keep the stream nested */
		depth += ev->phase == DT_SYNC_ENTER ? 1 : -1;
		d->ev[ne] = ev->phase == DT_SYNC_ENTER ? ev->func : DT_RET;
		d->ts[ne] = (uint64_t)ev->ts;
		ne++;
	}
	char tmp[600];
	if (sf->unfinished) {
		*flags |= DT_TF_TRUNCATED;
		if (sf->no_room)
			snprintf(tmp, sizeof tmp,
				 "sync record: %s has no records: no room could be reserved for them "
				 "(a full disk or quota; else the thread was stopped just then)",
				 sf->path);
		else
			snprintf(tmp, sizeof tmp,
				 "sync record: %s was never finished (the thread was stopped while "
				 "making it)",
				 sf->path);
		note_add(note, tmp);
	} else if (sf->h.stop_errno) {
		/* the recorder's word: the file could not grow (a full disk), recording stopped */
		*flags |= DT_TF_TRUNCATED;
		snprintf(tmp, sizeof tmp,
			 "sync record: recording stopped after %" PRIu64 " records of %s: the file "
			 "could not grow (%s)",
			 sf->nrec, sf->path, strerror(sf->h.stop_errno));
		note_add(note, tmp);
	}
	if (sf->torn_at >= 0) {
		*flags |= DT_TF_TRUNCATED;
		snprintf(tmp, sizeof tmp,
			 "sync record: a torn last record at offset %" PRId64 " of %s dropped",
			 sf->torn_at, sf->path);
		note_add(note, tmp);
	}
	if (as_events && depth) {
		*flags |= DT_TF_OPEN_FRAMES;
		snprintf(tmp, sizeof tmp, "%" PRIu64 " call%s open at the end (left open)", depth,
			 depth == 1 ? "" : "s");
		note_add(note, tmp);
	}
	if (as_events && !sf->nrec)
		*flags |= DT_TF_EMPTY;
	return 0;
}

int sync_dir_push(sync_dir *d, int64_t pid, int64_t tid, dt_sink *s, unsigned *flags,
		  dt_buf *note, dt_err *e)
{
	if (!d)
		return 0;
	for (size_t i = 0; i < d->n; i++) {
		struct sfile *f = &d->f[i];
		if (f->used || f->pid != pid || f->tid != tid)
			continue;
		f->used = 1;
		sync_file sf;
		if (sync_file_start(&sf, f->path, e))
			return -1;
		int rc = push_file(d, &sf, s, 0, flags, note, e);
		sync_file_close(&sf);
		return rc;
	}
	return 0;
}

int sync_dir_rest(sync_dir *d, int64_t rank, const char *why, dt_sink *s, size_t *made,
		  dt_err *e)
{
	if (!d)
		return 0;
	for (size_t i = 0; i < d->n; i++) {
		struct sfile *f = &d->f[i];
		if (f->used)
			continue;
		f->used = 1;
		sync_file sf;
		if (sync_file_start(&sf, f->path, e))
			return -1;
		int64_t r = rank >= 0 ? rank : sf.h.rank;
		/* the process's first thread, as the header says; a later thread with the same tid
		 * (-n files) never is. An unfinished file has no header: its name says. */
		dt_trace_meta m = { sf.h.pid, sf.h.tid, r, sf.h.is_main && f->k == 1, sf.h.host,
				    f->path };
		if (sf.unfinished) {
			m.pid = f->pid;
			m.tid = f->tid;
			m.is_main = f->pid == f->tid && f->k == 1;
			m.host = NULL;
		}
		unsigned flags = 0;
		dt_buf note = { 0 };
		if (why)
			note_add(&note, why);
		int rc = s->begin(s->ctx, &m, e) || push_file(d, &sf, s, 1, &flags, &note, e);
		if (d->timed_out) {
			flags |= DT_TF_TIMEOUT;
			note_add(&note, "cut short by difftrace-record --timeout (the run hung or was "
					"stopped)");
		}
		buf_byte(&note, 0);
		rc = rc || s->end(s->ctx, flags, (const char *)note.p, e);
		buf_free(&note);
		sync_file_close(&sf);
		if (rc)
			return -1;
		++*made;
	}
	return 0;
}

/* ---- a recording of sync files alone ---------------------------------------------------- */

static int parse_rank(const char *name, int64_t *rank)
{
	if (strncmp(name, "rank-", 5) || !name[5])
		return 0;
	char *end;
	long long v = strtoll(name + 5, &end, 10);
	if (*end || v < 0 || v > INT32_MAX || !isdigit((unsigned char)name[5]))
		return 0;
	*rank = v;
	return 1;
}

static int cmp_str(const void *a, const void *b)
{
	return natcmp(*(char *const *)a, *(char *const *)b);
}

static int import_one(const char *dir, int64_t rank, dt_sink *s, size_t *made, dt_err *e)
{
	sync_dir *d;
	if (sync_dir_open(dir, &d, e))
		return -1;
	int rc = sync_dir_rest(d, rank, NULL, s, made, e);
	sync_dir_free(d);
	return rc;
}

int import_sync(const char *path, const dt_import_opts *o, dt_sink *s, dt_err *e)
{
	size_t made = 0;
	char *sd = sync_dir_find(path);
	int rc = 0;
	if (sd) {
		/* one rank's directory, or a sync directory itself */
		const char *base = strrchr(path, '/');
		int64_t rank = -1;
		char *p = xstrdup(path);
		size_t l = strlen(p);
		while (l > 1 && p[l - 1] == '/')
			p[--l] = 0;
		base = strrchr(p, '/');
		parse_rank(base ? base + 1 : p, &rank);
		free(p);
		int mine = import_unit(o, e);
		rc = mine < 0 ? -1 : mine ? import_one(sd, rank, s, &made, e) : 0;
		free(sd);
	} else {
		DIR *dp = opendir(path);
		if (!dp)
			return dt_err_at(e, path, -1, "cannot open directory: %s", strerror(errno));
		char **names = NULL;
		size_t nn = 0, cap = 0;
		struct dirent *de;
		int64_t rank;
		while ((de = readdir(dp)))
			if (parse_rank(de->d_name, &rank)) {
				GROW(names, cap, nn + 1);
				names[nn++] = xstrdup(de->d_name);
			}
		closedir(dp);
		if (nn)
			qsort(names, nn, sizeof *names, cmp_str);
		for (size_t i = 0; i < nn && !rc; i++) {
			char *rd = path_join(path, names[i]);
			char *sub = sync_dir_find(rd);
			parse_rank(names[i], &rank);
			int mine = sub ? import_unit(o, e) : 0;
			if (mine < 0)
				rc = -1;
			else if (mine)
				rc = import_one(sub, rank, s, &made, e);
			free(sub);
			free(rd);
		}
		for (size_t i = 0; i < nn; i++)
			free(names[i]);
		free(names);
	}
	/* a sample record alone (the program stopped before its first MPI or OpenMP call) is
	 * imported by the caller, with no traces */
	if (!rc && !made && !(o && o->unit) && !sample_present(path))
		rc = dt_err_at(e, path, -1, "no sync record here: no .dts files in DIR, DIR/sync "
			       "or DIR/rank-N/sync");
	return rc;
}
