/* uftrace_data.c: reading a uftrace.data directory: its tasks and sessions (task.txt), and
 * opening and closing it. The info file is read by uftrace_info.c, the maps and symbols by
 * uftrace_syms.c, the argument layouts by uftrace_args.c. See uftrace_data.h. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/uftrace_data.h"
#include "import/uftrace_int.h"


/* ---- task.txt -------------------------------------------------------------------------------- */

static int find_sess_by_sid(const ufd_data *d, const char *sid)
{
	for (size_t i = 0; i < d->nsess; i++)
		if (!strcmp(d->sess[i].sid, sid))
			return (int)i;
	return -1;
}

int ufd_mod_get(ufd_data *d, const char *path)
{
	uint32_t v;
	size_t n = strlen(path);
	if (strmap_get(&d->modidx, path, n, &v))
		return (int)v;
	GROW(d->mods, d->capmods, d->nmods + 1);
	ufd_module *m = &d->mods[d->nmods];
	memset(m, 0, sizeof *m);
	m->path = xstrdup(path);
	m->base = ufd_base_name(m->path);
	strmap_init(&m->dbg_index);
	strmap_put(&d->modidx, path, n, (uint32_t)d->nmods);
	return (int)d->nmods++;
}

static int cmp_dlop(const void *a, const void *b)
{
	const struct ufd_dlop *x = a, *y = b;
	if (x->base != y->base)
		return x->base < y->base ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->mod - y->mod;
}

static int read_tasks(ufd_data *d, dt_err *e)
{
	char *path = path_join(d->dir, "task.txt");
	uint8_t *buf = NULL;
	size_t len = 0;
	int rc = -1;
	struct rawdlop {
		int sess;
		struct ufd_dlop dl;
	} *raw = NULL;
	size_t nraw = 0, capraw = 0;
	if (read_file(path, &buf, &len, e)) {
		char *old = path_join(d->dir, "task");
		FILE *f = fopen(old, "rb");
		if (f) {
			fclose(f);
			dt_err_clear(e);
			dt_err_at(e, old, -1, "binary task file of a very old uftrace is not supported");
		}
		free(old);
		goto out;
	}
	if (memchr(buf, '\0', len)) {
		dt_err_at(e, path, (int64_t)((uint8_t *)memchr(buf, '\0', len) - buf),
			  "binary data in task.txt");
		goto out;
	}
	char *line = (char *)buf;
	for (int lineno = 1, more = 0; line < (char *)buf + len; lineno += 1 + more) {
		char *nl = strchr(line, '\n');
		more = 0;
		if (nl && !strncmp(line, "SESS ", 5)) {
			/* a program path with a newline, written raw between the quotes: the record
			 * runs on to the closing quote (its errors name its first line) */
			char *q = strstr(line, " exename=\"");
			/* the quote that closes it ends a line: uftrace writes exename last */
			char *close = q && q < nl && !memchr(q + 10, '"', (size_t)(nl - q - 10))
					      ? strstr(q + 10, "\"\n")
					      : NULL;
			for (; close && nl && nl < close; nl = strchr(nl + 1, '\n'))
				more++;
		}
		if (nl)
			*nl = 0;
		uint64_t ts = 0;
		const char *tsv = ufd_field(line, "timestamp");
		if (*line && strncmp(line, "SESS ", 5) && strncmp(line, "TASK ", 5) &&
		    strncmp(line, "FORK ", 5) && strncmp(line, "DLOP ", 5)) {
			/* unknown record kinds from newer versions are skipped */
		} else if (*line && (!tsv || !ufd_parse_ts(tsv, &ts))) {
			dt_err_lc(e, path, lineno, 6, "missing or bad timestamp");
			goto out;
		} else if (!strncmp(line, "SESS ", 5)) {
			int64_t pid;
			char *sid = ufd_quoted_field(line, "sid");
			char *exe = ufd_quoted_field(line, "exename");
			if (ufd_parse_int_field(line, "pid", 10, &pid) || !sid || !*sid ||
			    strlen(sid) >= sizeof d->sess[0].sid || strchr(sid, '/') || !exe) {
				free(sid);
				free(exe);
				dt_err_lc(e, path, lineno, 1, "bad SESS line");
				goto out;
			}
			GROW(d->sess, d->capsess, d->nsess + 1);
			ufd_sess *s = &d->sess[d->nsess++];
			memset(s, 0, sizeof *s);
			s->pid = pid;
			s->ts = ts;
			snprintf(s->sid, sizeof s->sid, "%s", sid);
			s->exename = exe;
			free(sid);
		} else if (!strncmp(line, "TASK ", 5)) {
			int64_t tid, pid;
			if (ufd_parse_int_field(line, "tid", 10, &tid) ||
			    ufd_parse_int_field(line, "pid", 10, &pid)) {
				dt_err_lc(e, path, lineno, 1, "bad TASK line");
				goto out;
			}
			GROW(d->tasks, d->captasks, d->ntasks + 1);
			d->tasks[d->ntasks++] = (ufd_task){ tid, pid, ts };
		} else if (!strncmp(line, "FORK ", 5)) {
			int64_t pid, ppid;
			if (ufd_parse_int_field(line, "pid", 10, &pid) ||
			    ufd_parse_int_field(line, "ppid", 10, &ppid)) {
				dt_err_lc(e, path, lineno, 1, "bad FORK line");
				goto out;
			}
			GROW(d->forks, d->capforks, d->nforks + 1);
			d->forks[d->nforks++] = (ufd_fork){ pid, ppid, ts };
		} else if (!strncmp(line, "DLOP ", 5)) {
			int64_t base;
			char *sid = ufd_quoted_field(line, "sid");
			char *lib = ufd_quoted_field(line, "libname");
			int si = sid ? find_sess_by_sid(d, sid) : -1;
			if (ufd_parse_int_field(line, "base", 16, &base) || !lib || !*lib || si < 0) {
				free(sid);
				free(lib);
				dt_err_lc(e, path, lineno, 1,
					  "bad DLOP line (bad base or libname, or unknown sid)");
				goto out;
			}
			d->dlop_lines++;
			GROW(raw, capraw, nraw + 1);
			raw[nraw++] = (struct rawdlop){ si, { (uint64_t)base, ts, ufd_mod_get(d, lib) } };
			free(sid);
			free(lib);
		}
		if (!nl)
			break;
		line = nl + 1;
	}
	/* uftrace 0.13 repeats every earlier DLOP at each new dlopen: keep the first of each
	 * (session, base, library), which carries the real load time. */
	for (size_t s = 0; s < d->nsess; s++) {
		ufd_sess *ss = &d->sess[s];
		size_t cnt = 0;
		for (size_t i = 0; i < nraw; i++)
			cnt += raw[i].sess == (int)s;
		if (!cnt)
			continue;
		ss->dlops = xmalloc(cnt * sizeof *ss->dlops);
		for (size_t i = 0; i < nraw; i++)
			if (raw[i].sess == (int)s)
				ss->dlops[ss->ndlops++] = raw[i].dl;
		qsort(ss->dlops, ss->ndlops, sizeof *ss->dlops, cmp_dlop);
		size_t k = 0;
		for (size_t i = 0; i < ss->ndlops; i++) {
			if (k && ss->dlops[k - 1].base == ss->dlops[i].base &&
			    ss->dlops[k - 1].mod == ss->dlops[i].mod)
				continue; /* sorted by time, so the kept one is the earliest */
			ss->dlops[k++] = ss->dlops[i];
		}
		ss->ndlops = k;
		d->dlop_distinct += k;
	}
	rc = 0;
out:
	free(raw);
	free(buf);
	free(path);
	return rc;
}

/* ---- open/close ------------------------------------------------------------------------------ */

int ufd_open(ufd_data **out, const char *dir, dt_err *e)
{
	ufd_data *d = xcalloc(1, sizeof *d);
	d->dir = xstrdup(dir);
	strmap_init(&d->modidx);
	strmap_init(&d->symfile);
	strmap_init(&d->autoarg);
	strmap_init(&d->autoret);
	strmap_init(&d->speccache);
	*out = NULL;
	if (ufd_info_read(dir, &d->info, e) || read_tasks(d, e)) {
		ufd_close(d);
		return -1;
	}
	*out = d;
	return 0;
}

void ufd_spec_free(ufd_argspec *s)
{
	free(s->items);
	s->items = NULL;
	s->n = 0;
}

void ufd_close(ufd_data *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->nsess; i++) {
		free(d->sess[i].exename);
		free(d->sess[i].ranges);
		free(d->sess[i].dlops);
	}
	free(d->sess);
	free(d->tasks);
	free(d->forks);
	for (size_t i = 0; i < d->nmods; i++) {
		ufd_module *m = &d->mods[i];
		free(m->path);
		free(m->bid);
		free(m->sibfile);
		free(m->syms);
		free(m->names);
		for (size_t j = 0; j < m->ndbg; j++) {
			free(m->dbg_arg[j]);
			free(m->dbg_ret[j]);
			free(m->dbg_file[j]);
		}
		free(m->dbg_arg);
		free(m->dbg_ret);
		free(m->dbg_file);
		free(m->dbg_line);
		strmap_free(&m->dbg_index);
	}
	free(d->mods);
	strmap_free(&d->modidx);
	for (size_t i = 0; i < d->nsymfiles; i++)
		free(d->symfiles[i]);
	free(d->symfiles);
	free(d->borrowed);
	strmap_free(&d->symfile);
	for (size_t i = 0; i < d->nrules; i++) {
		free(d->rules[i].pat);
		if (d->rules[i].has_re)
			regfree(&d->rules[i].re);
		ufd_spec_free(&d->rules[i].arg);
		ufd_spec_free(&d->rules[i].ret);
	}
	free(d->rules);
	for (size_t i = 0; i < d->nautospecs; i++)
		ufd_spec_free(&d->autospecs[i]);
	free(d->autospecs);
	strmap_free(&d->autoarg);
	strmap_free(&d->autoret);
	for (size_t i = 0; i < d->nspecs; i++)
		ufd_spec_free(&d->specs[i]);
	free(d->specs);
	strmap_free(&d->speccache);
	ufd_info_free(&d->info);
	free(d->dir);
	free(d);
}

const ufd_info *ufd_get_info(const ufd_data *d)
{
	return &d->info;
}

const char *ufd_dir(const ufd_data *d)
{
	return d->dir;
}

const ufd_sess *ufd_sessions(const ufd_data *d, size_t *n)
{
	*n = d->nsess;
	return d->sess;
}

const ufd_task *ufd_tasks(const ufd_data *d, size_t *n)
{
	*n = d->ntasks;
	return d->tasks;
}

void ufd_dlop_counts(const ufd_data *d, size_t *lines, size_t *distinct)
{
	*lines = d->dlop_lines;
	*distinct = d->dlop_distinct;
}

int64_t ufd_task_pid(const ufd_data *d, int64_t tid)
{
	for (size_t i = 0; i < d->ntasks; i++)
		if (d->tasks[i].tid == tid)
			return d->tasks[i].pid;
	return tid;
}

static int parent_of(const ufd_data *d, int64_t pid, int64_t *ppid, uint64_t *when)
{
	for (size_t i = 0; i < d->nforks; i++)
		if (d->forks[i].pid == pid) {
			*ppid = d->forks[i].ppid;
			*when = d->forks[i].ts;
			return 1;
		}
	return 0;
}

const char *ufd_proc_exename(const ufd_data *d, int64_t pid)
{
	for (int hops = 0; hops < 64; hops++) {
		const char *exe = NULL;
		for (size_t i = 0; i < d->nsess; i++)
			if (d->sess[i].pid == pid)
				exe = d->sess[i].exename;
		if (exe)
			return exe;
		uint64_t when;
		if (!parent_of(d, pid, &pid, &when))
			return NULL;
	}
	return NULL;
}

int ufd_session_at(const ufd_data *d, int64_t pid, uint64_t ts, uint64_t *until)
{
	int64_t p = pid;
	uint64_t t = ts;
	*until = UINT64_MAX;
	for (int hops = 0; hops < 64; hops++) {
		int best = -1, first = -1;
		for (size_t i = 0; i < d->nsess; i++) {
			const ufd_sess *s = &d->sess[i];
			if (s->pid != p)
				continue;
			if (first < 0 || s->ts < d->sess[first].ts)
				first = (int)i;
			if (s->ts <= t && (best < 0 || s->ts >= d->sess[best].ts))
				best = (int)i;
			else if (s->ts > t && p == pid && s->ts < *until)
				*until = s->ts;
		}
		if (best >= 0)
			return best;
		int64_t pp;
		uint64_t when;
		if (parent_of(d, p, &pp, &when)) {
			p = pp;
			if (when < t)
				t = when;
			continue;
		}
		if (first >= 0)
			return first;
		break;
	}
	/* nothing fits: a single-program recording still has one obvious answer */
	return d->nsess ? 0 : -1;
}
