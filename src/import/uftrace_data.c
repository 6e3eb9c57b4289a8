/* uftrace_data.c: reading a uftrace.data directory's info, task, map, symbol and debug files,
 * and resolving recorded addresses and argument layouts. See uftrace_data.h. */
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

#define UFD_MAGIC "Ftrace!"
#define UFD_HDR_MIN 40

struct ufd_range {
	uint64_t start, end;
	int mod;
};

struct ufd_dlop {
	uint64_t base, ts;
	int mod;
};

typedef struct ufd_symbol {
	uint64_t addr;
	uint32_t size;
	uint32_t name;  /* offset in the module's name blob */
	uint32_t order; /* line order, so aliases at one address resolve the same way every time */
	uint8_t type;
} ufd_symbol;

typedef struct ufd_module {
	char *path;
	const char *base;   /* basename inside path */
	char *bid;          /* build id from the maps, or NULL */
	int sibtried;       /* sibling_sym looked for it: sibfile is what it found, or NULL */
	char *sibfile;
	int loaded;         /* 0 not tried, 1 symbols read, -1 no symbol file */
	ufd_symbol *syms;
	size_t nsyms;
	char *names;
	uint64_t extent;    /* one past the highest symbol, relative to the load base */
	int dbg_loaded;     /* 0 not tried, 1 read (possibly empty) */
	strmap dbg_index;   /* function name -> index in dbg_arg/dbg_ret */
	char **dbg_arg, **dbg_ret;
	char **dbg_file;    /* "L: line file" (record --srcline): the function's source line */
	unsigned *dbg_line;
	size_t ndbg, capdbg;
	int dbg_lines;      /* the .dbg file has source lines */
} ufd_module;

enum { PAT_SIMPLE, PAT_REGEX, PAT_GLOB };

typedef struct ufd_rule {
	char *pat;
	int ptype;
	regex_t re;
	int has_re;
	int bare;           /* "-A func" without a spec: use the automatic spec of each match */
	ufd_argspec arg, ret;
} ufd_rule;

struct ufd_data {
	char *dir;
	ufd_info info;
	ufd_sess *sess;
	size_t nsess, capsess;
	ufd_task *tasks;
	size_t ntasks, captasks;
	ufd_fork *forks;
	size_t nforks, capforks;
	size_t dlop_lines, dlop_distinct;
	ufd_module *mods;
	size_t nmods, capmods;
	strmap modidx;       /* module path -> index */
	int symidx_built;
	strmap symfile;      /* "# path name" -> index in symfiles */
	char **symfiles;
	size_t nsymfiles, capsymfiles;
	char *borrowed;      /* modules whose symbols came from a sibling directory (ufd_borrowed) */
	char namebuf[600];
	/* argument specs, built on first use */
	int rules_built;
	ufd_rule *rules;
	size_t nrules;
	strmap autoarg, autoret; /* function name -> index in autospecs */
	ufd_argspec *autospecs;
	size_t nautospecs, capautospecs;
	strmap speccache;    /* "A|R" + module + name -> index in specs + 1 (0: none) */
	ufd_argspec *specs;
	size_t nspecs, capspecs;
};

/* ---- byte order ----------------------------------------------------------------------------- */

static int host_little(void)
{
	const uint16_t one = 1;
	uint8_t b;
	memcpy(&b, &one, 1);
	return b == 1;
}

uint16_t ufd_get16(const uint8_t *p, int swap)
{
	uint16_t v;
	memcpy(&v, p, 2);
	return swap ? (uint16_t)((v >> 8) | (v << 8)) : v;
}

uint32_t ufd_get32(const uint8_t *p, int swap)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return swap ? __builtin_bswap32(v) : v;
}

uint64_t ufd_get64(const uint8_t *p, int swap)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return swap ? __builtin_bswap64(v) : v;
}

/* ---- small text helpers ---------------------------------------------------------------------- */

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

static int starts(const char *s, size_t n, const char *prefix)
{
	size_t l = strlen(prefix);
	return n >= l && !memcmp(s, prefix, l);
}

/* Parses "sec.nsec" into ns; returns the number of characters used, 0 when malformed. */
static size_t parse_ts(const char *s, uint64_t *ns)
{
	const char *p = s;
	uint64_t sec = 0, frac = 0;
	int nd = 0;
	if (!isdigit((unsigned char)*p))
		return 0;
	while (isdigit((unsigned char)*p)) {
		if (sec > UINT64_MAX / 10 / 1000000000u)
			return 0;
		sec = sec * 10 + (uint64_t)(*p++ - '0');
	}
	if (*p == '.') {
		p++;
		while (isdigit((unsigned char)*p)) {
			if (nd < 9) {
				frac = frac * 10 + (uint64_t)(*p - '0');
				nd++;
			}
			p++;
		}
	}
	while (nd++ < 9)
		frac *= 10;
	*ns = sec * 1000000000u + frac;
	return (size_t)(p - s);
}

/* Finds "key=" in a space-separated line and returns the value start, or NULL. */
static const char *field(const char *line, const char *key)
{
	size_t kl = strlen(key);
	for (const char *p = line; *p;) {
		while (*p == ' ')
			p++;
		if (!strncmp(p, key, kl) && p[kl] == '=')
			return p + kl + 1;
		if (*p == '"')
			return NULL; /* values after a quoted name are not fields */
		while (*p && *p != ' ')
			p++;
	}
	return NULL;
}

static int parse_int_field(const char *line, const char *key, int base, int64_t *v)
{
	const char *s = field(line, key);
	if (!s || !isxdigit((unsigned char)*s))
		return -1;
	errno = 0;
	char *end;
	unsigned long long u = strtoull(s, &end, base);
	if (errno || (*end && *end != ' ') || u > INT64_MAX)
		return -1;
	*v = (int64_t)u;
	return 0;
}

/* A "quoted" value: copies it without the quotes (no escapes are written by uftrace 0.13). */
static char *quoted_field(const char *line, const char *key)
{
	const char *s = field(line, key);
	if (!s)
		return NULL;
	if (*s == '"') {
		const char *q = strrchr(s + 1, '"');
		if (!q)
			return NULL;
		return xstrndup(s + 1, (size_t)(q - s - 1));
	}
	return xstrndup(s, strcspn(s, " "));
}

/* ---- info ------------------------------------------------------------------------------------ */

void ufd_info_free(ufd_info *inf)
{
	free(inf->exename);
	free(inf->cmdline);
	free(inf->hostname);
	free(inf->version_str);
	free(inf->argspec);
	free(inf->retspec);
	free(inf->argauto);
	free(inf->retauto);
	free(inf->tids);
	memset(inf, 0, sizeof *inf);
}

static int parse_tids(ufd_info *inf, const char *s, size_t n)
{
	free(inf->tids);
	inf->tids = NULL;
	inf->ntids = 0;
	size_t cap = 0;
	size_t i = 0;
	while (i < n) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		int64_t v = 0;
		while (i < n && isdigit((unsigned char)s[i])) {
			if (v > (INT64_MAX - 9) / 10)
				return -1;
			v = v * 10 + (s[i++] - '0');
		}
		GROW(inf->tids, cap, inf->ntids + 1);
		inf->tids[inf->ntids++] = v;
		if (i < n && s[i] != ',')
			return -1;
		i++;
	}
	return 0;
}

static void set_str(char **dst, const char *s, size_t n)
{
	free(*dst);
	*dst = xstrndup(s, n);
}

int ufd_info_read(const char *dir, ufd_info *inf, dt_err *e)
{
	memset(inf, 0, sizeof *inf);
	char *path = path_join(dir, "info");
	uint8_t *buf = NULL;
	size_t len = 0;
	int rc = -1;
	if (read_file(path, &buf, &len, e))
		goto out;
	if (len < UFD_HDR_MIN) {
		dt_err_at(e, path, (int64_t)len, "info header is %zu bytes, expected %d", len,
			  UFD_HDR_MIN);
		goto out;
	}
	if (memcmp(buf, UFD_MAGIC, 8)) {
		dt_err_at(e, path, 0, "bad magic: not a uftrace info file");
		goto out;
	}
	inf->endian = buf[14];
	inf->elf_class = buf[15];
	if (inf->endian != 1 && inf->endian != 2) {
		dt_err_at(e, path, 14, "bad endian field %u (expected 1 or 2)", inf->endian);
		goto out;
	}
	inf->swap = (inf->endian == 1) != host_little();
	inf->version = ufd_get32(buf + 8, inf->swap);
	inf->hdr_size = ufd_get16(buf + 12, inf->swap);
	inf->feat = ufd_get64(buf + 16, inf->swap);
	inf->info_mask = ufd_get64(buf + 24, inf->swap);
	inf->max_stack = ufd_get16(buf + 32, inf->swap);
	if (inf->version < 3 || inf->version > 4) {
		dt_err_at(e, path, 8, "unsupported uftrace data version %" PRIu32 " (3 or 4 expected)",
			  inf->version);
		goto out;
	}
	if (inf->hdr_size < UFD_HDR_MIN || inf->hdr_size > len) {
		dt_err_at(e, path, 12, "bad header size %u", inf->hdr_size);
		goto out;
	}
	if (inf->elf_class != 1 && inf->elf_class != 2) {
		dt_err_at(e, path, 15, "bad ELF class %u (expected 1 or 2)", inf->elf_class);
		goto out;
	}
	/* The text: "key:value" lines. A "key:lines=N" line announces N lines that belong to that
	 * section; inside one only the section's own keys are looked at, so a value that happens
	 * to start like another key is never taken for it. */
	const char *t = (const char *)buf + inf->hdr_size, *end = (const char *)buf + len;
	char block[32] = "";
	long block_left = 0;
	while (t < end) {
		const char *nl = memchr(t, '\n', (size_t)(end - t));
		size_t n = nl ? (size_t)(nl - t) : (size_t)(end - t);
		int64_t off = (int64_t)(t - (const char *)buf);
		if (nl && block_left <= 0 && starts(t, n, "exename:")) {
			/* uftrace writes the program's path raw: one with a newline runs on to the
			 * line uftrace writes after it (build_id:, or exit_status: without one) */
			const char *q = nl;
			while (q && q + 1 < end && !starts(q + 1, (size_t)(end - q - 1), "build_id:") &&
			       !starts(q + 1, (size_t)(end - q - 1), "exit_status:"))
				q = memchr(q + 1, '\n', (size_t)(end - q - 1));
			if (q && q + 1 < end && q > nl) { /* else no such line: not a path */
				nl = q;
				n = (size_t)(nl - t);
			}
		}
		if (memchr(t, '\0', n)) {
			dt_err_at(e, path, off, "binary data in the info text");
			goto out;
		}
		const char *colon = memchr(t, ':', n);
		if (block_left > 0) {
			block_left--;
			size_t bl = strlen(block);
			if (!colon || (size_t)(colon - t) != bl || memcmp(t, block, bl)) {
				/* argspec blocks hold lines with several keys (retspec:, argauto:...) */
				if (strcmp(block, "argspec")) {
					dt_err_at(e, path, off, "line %.*s does not belong to section %s",
						  (int)(n > 40 ? 40 : n), t, block);
					goto out;
				}
			}
			if (!strcmp(block, "osinfo") && starts(t, n, "osinfo:hostname="))
				set_str(&inf->hostname, t + 16, n - 16);
			else if (!strcmp(block, "taskinfo") && starts(t, n, "taskinfo:tids=")) {
				if (parse_tids(inf, t + 14, n - 14)) {
					dt_err_at(e, path, off, "bad taskinfo:tids list");
					goto out;
				}
			} else if (!strcmp(block, "argspec")) {
				if (starts(t, n, "argspec:"))
					set_str(&inf->argspec, t + 8, n - 8);
				else if (starts(t, n, "retspec:"))
					set_str(&inf->retspec, t + 8, n - 8);
				else if (starts(t, n, "argauto:"))
					set_str(&inf->argauto, t + 8, n - 8);
				else if (starts(t, n, "retauto:"))
					set_str(&inf->retauto, t + 8, n - 8);
				else if (starts(t, n, "auto-args:1"))
					inf->auto_args = 1;
			}
		} else if (colon) {
			size_t kl = (size_t)(colon - t);
			const char *v = colon + 1;
			size_t vl = n - kl - 1;
			if (starts(v, vl, "lines=")) {
				char num[24];
				size_t nl2 = vl - 6 < sizeof num - 1 ? vl - 6 : sizeof num - 1;
				memcpy(num, v + 6, nl2);
				num[nl2] = 0;
				char *ep;
				long cnt = strtol(num, &ep, 10);
				if (!nl2 || *ep || cnt < 0 || cnt > 100000 || kl >= sizeof block) {
					dt_err_at(e, path, off, "bad section line count");
					goto out;
				}
				memcpy(block, t, kl);
				block[kl] = 0;
				block_left = cnt;
			} else if (starts(t, n, "exename:"))
				set_str(&inf->exename, v, vl);
			else if (starts(t, n, "cmdline:"))
				set_str(&inf->cmdline, v, vl);
			else if (starts(t, n, "uftrace_version:"))
				set_str(&inf->version_str, v, vl);
			else if (starts(t, n, "pattern_type:"))
				inf->glob_patterns = vl == 4 && !memcmp(v, "glob", 4);
		} else if (n) {
			dt_err_at(e, path, off, "info line without a key");
			goto out;
		}
		t += n + 1;
	}
	if (block_left > 0) {
		dt_err_at(e, path, (int64_t)len, "info ends inside section %s (%ld lines missing)",
			  block, block_left);
		goto out;
	}
	rc = 0;
out:
	if (rc)
		ufd_info_free(inf);
	free(buf);
	free(path);
	return rc;
}

/* ---- task.txt -------------------------------------------------------------------------------- */

static int find_sess_by_sid(const ufd_data *d, const char *sid)
{
	for (size_t i = 0; i < d->nsess; i++)
		if (!strcmp(d->sess[i].sid, sid))
			return (int)i;
	return -1;
}

static int mod_get(ufd_data *d, const char *path)
{
	uint32_t v;
	size_t n = strlen(path);
	if (strmap_get(&d->modidx, path, n, &v))
		return (int)v;
	GROW(d->mods, d->capmods, d->nmods + 1);
	ufd_module *m = &d->mods[d->nmods];
	memset(m, 0, sizeof *m);
	m->path = xstrdup(path);
	m->base = base_name(m->path);
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
		const char *tsv = field(line, "timestamp");
		if (*line && strncmp(line, "SESS ", 5) && strncmp(line, "TASK ", 5) &&
		    strncmp(line, "FORK ", 5) && strncmp(line, "DLOP ", 5)) {
			/* unknown record kinds from newer versions are skipped */
		} else if (*line && (!tsv || !parse_ts(tsv, &ts))) {
			dt_err_lc(e, path, lineno, 6, "missing or bad timestamp");
			goto out;
		} else if (!strncmp(line, "SESS ", 5)) {
			int64_t pid;
			char *sid = quoted_field(line, "sid");
			char *exe = quoted_field(line, "exename");
			if (parse_int_field(line, "pid", 10, &pid) || !sid || !*sid ||
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
			if (parse_int_field(line, "tid", 10, &tid) ||
			    parse_int_field(line, "pid", 10, &pid)) {
				dt_err_lc(e, path, lineno, 1, "bad TASK line");
				goto out;
			}
			GROW(d->tasks, d->captasks, d->ntasks + 1);
			d->tasks[d->ntasks++] = (ufd_task){ tid, pid, ts };
		} else if (!strncmp(line, "FORK ", 5)) {
			int64_t pid, ppid;
			if (parse_int_field(line, "pid", 10, &pid) ||
			    parse_int_field(line, "ppid", 10, &ppid)) {
				dt_err_lc(e, path, lineno, 1, "bad FORK line");
				goto out;
			}
			GROW(d->forks, d->capforks, d->nforks + 1);
			d->forks[d->nforks++] = (ufd_fork){ pid, ppid, ts };
		} else if (!strncmp(line, "DLOP ", 5)) {
			int64_t base;
			char *sid = quoted_field(line, "sid");
			char *lib = quoted_field(line, "libname");
			int si = sid ? find_sess_by_sid(d, sid) : -1;
			if (parse_int_field(line, "base", 16, &base) || !lib || !*lib || si < 0) {
				free(sid);
				free(lib);
				dt_err_lc(e, path, lineno, 1,
					  "bad DLOP line (bad base or libname, or unknown sid)");
				goto out;
			}
			d->dlop_lines++;
			GROW(raw, capraw, nraw + 1);
			raw[nraw++] = (struct rawdlop){ si, { (uint64_t)base, ts, mod_get(d, lib) } };
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

static void spec_free(ufd_argspec *s)
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
		spec_free(&d->rules[i].arg);
		spec_free(&d->rules[i].ret);
	}
	free(d->rules);
	for (size_t i = 0; i < d->nautospecs; i++)
		spec_free(&d->autospecs[i]);
	free(d->autospecs);
	strmap_free(&d->autoarg);
	strmap_free(&d->autoret);
	for (size_t i = 0; i < d->nspecs; i++)
		spec_free(&d->specs[i]);
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

/* ---- maps ------------------------------------------------------------------------------------ */

static int cmp_range(const void *a, const void *b)
{
	const struct ufd_range *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

static int load_map(ufd_data *d, ufd_sess *s, dt_err *e)
{
	char name[64];
	snprintf(name, sizeof name, "sid-%s.map", s->sid);
	char *path = path_join(d->dir, name);
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;
	int rc = -1;
	if (read_file(path, &buf, &len, e))
		goto out;
	char *line = (char *)buf;
	for (int lineno = 1; line < (char *)buf + len; lineno++) {
		char *nl = memchr(line, '\n', (size_t)((char *)buf + len - line));
		if (nl)
			*nl = 0;
		if (*line) {
			unsigned long long a, b;
			int used = 0;
			if (sscanf(line, "%llx-%llx %*s %*s %*s %*s %n", &a, &b, &used) < 2 || !used ||
			    b < a) {
				dt_err_lc(e, path, lineno, 1, "bad map line");
				goto out;
			}
			char *p = line + used;
			char *bid = strstr(p, " build-id:");
			if (bid) {
				*bid = 0;
				bid += 10;
				bid[strcspn(bid, " \t\r")] = 0;
			}
			size_t pl = strlen(p);
			while (pl && p[pl - 1] == ' ')
				p[--pl] = 0;
			maps_path_unescape(p);
			if (*p && *p != '[') {
				int mi = mod_get(d, p);
				if (bid && *bid && !d->mods[mi].bid)
					d->mods[mi].bid = xstrdup(bid);
				GROW(s->ranges, cap, s->nranges + 1);
				s->ranges[s->nranges++] = (struct ufd_range){ a, b, mi };
			}
		}
		if (!nl)
			break;
		line = nl + 1;
	}
	if (s->nranges)
		qsort(s->ranges, s->nranges, sizeof *s->ranges, cmp_range);
	rc = 0;
out:
	s->map_loaded = 1; /* tried once: a missing map is reported once, then names stay hex */
	free(buf);
	free(path);
	return rc;
}

/* ---- symbol files ---------------------------------------------------------------------------- */

/* Reads the header line "<key>..." (key like "# path name: ") of a .sym or .dbg file into out;
 * 0 when found. */
static int file_header(const char *file, const char *key, char *out, size_t n)
{
	FILE *f = fopen(file, "r");
	if (!f)
		return -1;
	char line[4096];
	size_t kl = strlen(key);
	int rc = -1;
	for (int i = 0; i < 8 && fgets(line, sizeof line, f); i++) {
		if (line[0] != '#')
			break;
		if (!strncmp(line, key, kl)) {
			line[strcspn(line, "\r\n")] = 0;
			size_t l = strlen(line + kl);
			if (l >= n)
				break;
			memcpy(out, line + kl, l + 1);
			rc = 0;
			break;
		}
	}
	fclose(f);
	return rc;
}

static int sym_header_path(const char *file, char *out, size_t n)
{
	return file_header(file, "# path name: ", out, n);
}

static void build_symidx(ufd_data *d)
{
	d->symidx_built = 1;
	DIR *dp = opendir(d->dir);
	if (!dp)
		return;
	struct dirent *de;
	char hdr[4096];
	/* readdir order is arbitrary: collect, then sort, so duplicates resolve the same way */
	char **names = NULL;
	size_t n = 0, cap = 0;
	while ((de = readdir(dp))) {
		size_t l = strlen(de->d_name);
		if (l > 4 && !strcmp(de->d_name + l - 4, ".sym")) {
			GROW(names, cap, n + 1);
			names[n++] = xstrdup(de->d_name);
		}
	}
	closedir(dp);
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
			char *t = names[j];
			names[j] = names[j - 1];
			names[j - 1] = t;
		}
	for (size_t i = 0; i < n; i++) {
		char *file = path_join(d->dir, names[i]);
		uint32_t v;
		if (!sym_header_path(file, hdr, sizeof hdr) &&
		    !strmap_get(&d->symfile, hdr, strlen(hdr), &v)) {
			GROW(d->symfiles, d->capsymfiles, d->nsymfiles + 1);
			d->symfiles[d->nsymfiles] = file;
			strmap_put(&d->symfile, hdr, strlen(hdr), (uint32_t)d->nsymfiles++);
		} else
			free(file);
		free(names[i]);
	}
	free(names);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A module's .sym file from a sibling of the data directory (rank-1/ for rank-0/), for a rank
 * whose own was never written (uftrace killed while it wrote them, as when mpirun stops the
 * other ranks of a failed job). Taken only when the maps give the module's build id, the
 * sibling's .sym file (or its .dbg file) has the same one, and its header names the same path:
 * the same binary, so the same symbols. Siblings are tried in name order. */
static char *sibling_sym(ufd_data *d, ufd_module *m)
{
	if (m->sibtried)
		return m->sibfile ? xstrdup(m->sibfile) : NULL;
	m->sibtried = 1;
	if (!m->bid)
		return NULL;
	char *own = xstrdup(d->dir);
	size_t l = strlen(own);
	while (l > 1 && own[l - 1] == '/')
		own[--l] = 0;
	char *slash = strrchr(own, '/');
	const char *self = slash ? slash + 1 : own;
	char *parent = slash ? (slash == own ? xstrdup("/") : xstrndup(own, (size_t)(slash - own)))
			     : xstrdup(".");
	char *found = NULL, **names = NULL;
	size_t n = 0, cap = 0;
	DIR *dp = opendir(parent);
	struct dirent *de;
	while (dp && (de = readdir(dp)))
		if (de->d_name[0] != '.' && strcmp(de->d_name, self)) {
			GROW(names, cap, n + 1);
			names[n++] = xstrdup(de->d_name);
		}
	if (dp)
		closedir(dp);
	if (n)
		qsort(names, n, sizeof *names, cmp_str);
	char file[600], hdr[4096], bid[256];
	for (size_t i = 0; i < n && !found; i++) {
		char *dir = path_join(parent, names[i]);
		snprintf(file, sizeof file, "%s.sym", m->base);
		char *sym = path_join(dir, file);
		snprintf(file, sizeof file, "%s.dbg", m->base);
		char *dbg = path_join(dir, file);
		if (!sym_header_path(sym, hdr, sizeof hdr) && !strcmp(hdr, m->path) &&
		    (!file_header(sym, "# build-id: ", bid, sizeof bid) ||
		     !file_header(dbg, "# build-id: ", bid, sizeof bid)) &&
		    !strcmp(bid, m->bid)) {
			found = sym;
			sym = NULL;
			size_t bl = d->borrowed ? strlen(d->borrowed) : 0;
			size_t add = strlen(m->base) + strlen(names[i]) + 16;
			d->borrowed = xrealloc(d->borrowed, bl + add);
			snprintf(d->borrowed + bl, add, "%s%s from %s", bl ? ", " : "", m->base,
				 names[i]);
		}
		free(sym);
		free(dbg);
		free(dir);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(parent);
	free(own);
	m->sibfile = found ? xstrdup(found) : NULL;
	return found;
}

const char *ufd_borrowed(const ufd_data *d)
{
	return d->borrowed;
}

/* The .sym file of a module: <basename>.sym when its header names the module (or has no
 * header), else whichever file's "# path name" does (uftrace names the second of two modules
 * with one basename <name>-<4 hex>.sym), else a sibling directory's (sibling_sym). */
static char *sym_file_for(ufd_data *d, ufd_module *m, const char *ext)
{
	char name[600], hdr[4096];
	snprintf(name, sizeof name, "%s%s", m->base, ext);
	char *file = path_join(d->dir, name);
	if (!strcmp(ext, ".sym")) {
		int r = sym_header_path(file, hdr, sizeof hdr);
		FILE *f;
		if (!r && !strcmp(hdr, m->path))
			return file;
		if (r && (f = fopen(file, "r"))) {
			fclose(f);
			return file;
		}
		free(file);
		if (!d->symidx_built)
			build_symidx(d);
		uint32_t v;
		if (strmap_get(&d->symfile, m->path, strlen(m->path), &v))
			return xstrdup(d->symfiles[v]);
		return sibling_sym(d, m);
	}
	/* .dbg: same base as the .sym file that matched */
	char *sym = sym_file_for(d, m, ".sym");
	free(file);
	if (!sym)
		return NULL;
	size_t l = strlen(sym);
	memcpy(sym + l - 4, ".dbg", 4);
	return sym;
}

static int cmp_sym(const void *a, const void *b)
{
	const ufd_symbol *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int load_syms(ufd_data *d, ufd_module *m, dt_err *e)
{
	m->loaded = -1;
	char *file = sym_file_for(d, m, ".sym");
	if (!file)
		return 0; /* no symbols: names fall back to module+offset */
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, ncap = 0, nlen = 0;
	int rc = -1;
	if (read_file(file, &buf, &len, e))
		goto out;
	int sized = !!(d->info.feat & UFD_FEAT_SYM_SIZE);
	char *line = (char *)buf;
	for (int lineno = 1; line < (char *)buf + len; lineno++) {
		char *nl = memchr(line, '\n', (size_t)((char *)buf + len - line));
		if (nl)
			*nl = 0;
		if (*line && *line != '#') {
			char *p = line, *q;
			errno = 0;
			unsigned long long addr = strtoull(p, &q, 16), size = 0;
			if (q == p || *q != ' ' || errno) {
				dt_err_lc(e, file, lineno, 1, "bad symbol address");
				goto out;
			}
			p = q + 1;
			/* "addr type name", or with SYM_SIZE "addr size type name" */
			if (sized || (isxdigit((unsigned char)p[0]) && p[1] && p[1] != ' ')) {
				size = strtoull(p, &q, 16);
				if (q == p || *q != ' ' || size > UINT32_MAX) {
					dt_err_lc(e, file, lineno, (int)(p - line) + 1, "bad symbol size");
					goto out;
				}
				p = q + 1;
			}
			if (!*p || p[1] != ' ' || !p[2]) {
				dt_err_lc(e, file, lineno, (int)(p - line) + 1, "bad symbol type or name");
				goto out;
			}
			char type = p[0];
			const char *name = p + 2;
			size_t l = strlen(name);
			if (nlen + l + 1 > UINT32_MAX) {
				dt_err_lc(e, file, lineno, 1, "symbol table too large");
				goto out;
			}
			GROW(m->syms, cap, m->nsyms + 1);
			GROW(m->names, ncap, nlen + l + 1);
			memcpy(m->names + nlen, name, l + 1);
			m->syms[m->nsyms] = (ufd_symbol){ addr, (uint32_t)size, (uint32_t)nlen,
							  (uint32_t)m->nsyms, (uint8_t)type };
			m->nsyms++;
			nlen += l + 1;
			if (addr + size > m->extent)
				m->extent = addr + size;
		}
		if (!nl)
			break;
		line = nl + 1;
	}
	if (m->nsyms)
		qsort(m->syms, m->nsyms, sizeof *m->syms, cmp_sym);
	m->loaded = 1;
	rc = 0;
out:
	free(buf);
	free(file);
	return rc;
}

static int is_func_type(uint8_t t)
{
	return t == 'T' || t == 't' || t == 'W' || t == 'w' || t == 'P' || t == 'i' || t == 'K' ||
	       t == 'k';
}

/* The function symbol containing key (relative address), or NULL. */
static const ufd_symbol *sym_lookup(const ufd_module *m, uint64_t key)
{
	size_t lo = 0, hi = m->nsyms;
	while (lo < hi) { /* first symbol with addr > key */
		size_t mid = lo + (hi - lo) / 2;
		if (m->syms[mid].addr <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	size_t i = lo - 1;
	uint64_t at = m->syms[i].addr;
	while (i > 0 && m->syms[i - 1].addr == at) /* aliases: the first in the file wins */
		i--;
	/* among aliases prefer a function symbol */
	size_t j = i;
	while (j < m->nsyms && m->syms[j].addr == at && !is_func_type(m->syms[j].type))
		j++;
	if (j == m->nsyms || m->syms[j].addr != at)
		return NULL;
	const ufd_symbol *s = &m->syms[j];
	if (s->size && key >= s->addr + s->size)
		return NULL;
	return s;
}

const char *ufd_module_name(const ufd_data *d, int mod)
{
	return mod >= 0 && (size_t)mod < d->nmods ? d->mods[mod].base : "?";
}

int ufd_resolve(ufd_data *d, int sess, uint64_t ts, uint64_t addr, ufd_sym *out, dt_err *e)
{
	out->module = -1;
	out->found = 0;
	out->module_syms = 0;
	out->path = NULL;
	out->bid = NULL;
	int mod = -1;
	uint64_t base = 0;
	if (sess >= 0 && (size_t)sess < d->nsess) {
		ufd_sess *s = &d->sess[sess];
		if (!s->map_loaded && load_map(d, s, e))
			return -1;
		size_t lo = 0, hi = s->nranges;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (s->ranges[mid].start <= addr)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo && addr < s->ranges[lo - 1].end) {
			mod = s->ranges[lo - 1].mod;
			base = s->ranges[lo - 1].start;
		}
		/* a library dlopen()ed after the map was written: the nearest base below addr,
		 * loaded before this record */
		for (size_t i = s->ndlops; mod < 0 && i-- > 0;) {
			const struct ufd_dlop *dl = &s->dlops[i];
			if (dl->base > addr || dl->ts > ts)
				continue;
			ufd_module *m = &d->mods[dl->mod];
			if (!m->loaded && load_syms(d, m, e))
				return -1;
			uint64_t ext = m->loaded > 0 ? m->extent : 0;
			if (addr - dl->base < (ext ? ext : (uint64_t)64 << 20)) {
				mod = dl->mod;
				base = dl->base;
			}
			break;
		}
	}
	if (mod < 0) {
		snprintf(d->namebuf, sizeof d->namebuf, "0x%" PRIx64, addr);
		out->name = d->namebuf;
		out->len = strlen(d->namebuf);
		return 0;
	}
	ufd_module *m = &d->mods[mod];
	out->module = mod;
	out->path = m->path;
	out->bid = m->bid;
	if (!m->loaded && load_syms(d, m, e))
		return -1;
	uint64_t key = addr - base;
	/* Without SYM_REL_ADDR the executable's symbols are absolute addresses. */
	if (!(d->info.feat & UFD_FEAT_SYM_REL_ADDR) && sess >= 0 &&
	    !strcmp(m->path, d->sess[sess].exename))
		key = addr;
	const ufd_symbol *sym = m->loaded > 0 ? sym_lookup(m, key) : NULL;
	out->module_syms = m->loaded > 0 && m->nsyms > 0;
	if (sym && is_func_type(sym->type)) {
		out->name = m->names + sym->name;
		out->len = strlen(out->name);
		out->found = 1;
		return 0;
	}
	snprintf(d->namebuf, sizeof d->namebuf, "%s+0x%" PRIx64, m->base, key);
	out->name = d->namebuf;
	out->len = strlen(d->namebuf);
	return 0;
}

int ufd_resolve_object(ufd_data *d, int sess, uint64_t ts, uint64_t addr, const char **name,
		       dt_err *e)
{
	*name = NULL;
	if (sess < 0 || (size_t)sess >= d->nsess || !addr)
		return 0;
	ufd_sess *s = &d->sess[sess];
	if (!s->map_loaded && load_map(d, s, e))
		return -1;
	int mod = -1;
	uint64_t base = 0;
	/* Data lies past the executable mapping the map lists: the nearest module below addr,
	 * when its symbol table reaches that far. */
	size_t lo = 0, hi = s->nranges;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->ranges[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo) {
		mod = s->ranges[lo - 1].mod;
		base = s->ranges[lo - 1].start;
	}
	for (size_t i = s->ndlops; i-- > 0;) {
		const struct ufd_dlop *dl = &s->dlops[i];
		if (dl->base > addr || dl->ts > ts)
			continue;
		if (mod < 0 || dl->base > base) {
			mod = dl->mod;
			base = dl->base;
		}
		break;
	}
	if (mod < 0)
		return 0;
	ufd_module *m = &d->mods[mod];
	if (!m->loaded && load_syms(d, m, e))
		return -1;
	if (m->loaded <= 0)
		return 0;
	uint64_t key = addr - base;
	if (!(d->info.feat & UFD_FEAT_SYM_REL_ADDR) && !strcmp(m->path, s->exename))
		key = addr;
	if (key >= m->extent)
		return 0;
	/* the first symbol at key exactly that is not a function */
	size_t a = 0, b = m->nsyms;
	while (a < b) {
		size_t mid = a + (b - a) / 2;
		if (m->syms[mid].addr < key)
			a = mid + 1;
		else
			b = mid;
	}
	for (; a < m->nsyms && m->syms[a].addr == key; a++)
		if (!is_func_type(m->syms[a].type) && m->syms[a].type != '?') {
			*name = m->names + m->syms[a].name;
			return 1;
		}
	return 0;
}

/* ---- argument specs -------------------------------------------------------------------------- */

static void spec_add(ufd_argspec *s, const ufd_argitem *it, int replace)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->items[i].kind == it->kind && s->items[i].idx == it->idx) {
			if (replace)
				s->items[i] = *it;
			return;
		}
	s->items = xrealloc(s->items, (s->n + 1) * sizeof *s->items);
	s->items[s->n++] = *it;
}

int ufd_argspec_parse(const char *s, size_t len, int lp64, ufd_argspec *out, char *why,
		      size_t whylen)
{
	memset(out, 0, sizeof *out);
	const char *end = s + len;
	if (s < end && *s == '@')
		s++;
	uint8_t word = lp64 ? 8 : 4;
	while (s < end) {
		const char *c = memchr(s, ',', (size_t)(end - s));
		const char *ie = c ? c : end;
		ufd_argitem it = { 0, 0, 0, 0 };
		const char *p = s;
		if (ie - p >= 6 && !memcmp(p, "retval", 6)) {
			it.kind = UFD_ARG_RET;
			p += 6;
		} else if (ie - p >= 5 && !memcmp(p, "fparg", 5)) {
			it.kind = UFD_ARG_FLOAT;
			p += 5;
		} else if (ie - p >= 3 && !memcmp(p, "arg", 3)) {
			it.kind = UFD_ARG_INT;
			p += 3;
		} else {
			snprintf(why, whylen, "unknown argument spec '%.*s'", (int)(ie - s), s);
			spec_free(out);
			return -1;
		}
		if (it.kind != UFD_ARG_RET) {
			unsigned v = 0;
			if (p >= ie || !isdigit((unsigned char)*p)) {
				snprintf(why, whylen, "argument spec '%.*s' has no index", (int)(ie - s), s);
				spec_free(out);
				return -1;
			}
			while (p < ie && isdigit((unsigned char)*p) && v < 1000)
				v = v * 10 + (unsigned)(*p++ - '0');
			it.idx = (uint16_t)v;
		}
		it.size = it.kind == UFD_ARG_FLOAT ? 8 : word;
		if (it.kind == UFD_ARG_FLOAT)
			it.fmt = 'f';
		if (p < ie && *p == '/') {
			p++;
			if (p < ie && strchr("diuxcsSfpeo", *p) && *p) {
				it.fmt = (uint8_t)*p++;
				if (it.fmt == 'o')
					it.fmt = 'u'; /* octal is shown as unsigned decimal */
				if (it.fmt == 'c')
					it.size = 1;
				if (it.fmt == 'e') {
					/* e:enum_name: an int shown by value */
					it.size = 4;
					if (p < ie && *p == ':')
						while (p < ie && *p != '%')
							p++;
				}
				if (it.fmt == 'f' && it.kind != UFD_ARG_FLOAT)
					it.size = 8;
			}
			if (p < ie && isdigit((unsigned char)*p)) {
				unsigned bits = 0;
				while (p < ie && isdigit((unsigned char)*p) && bits < 1000)
					bits = bits * 10 + (unsigned)(*p++ - '0');
				if (bits == 80 || bits == 128) {
					snprintf(why, whylen,
						 "'%.*s': long double values are not supported",
						 (int)(ie - s), s);
					spec_free(out);
					return -1;
				}
				if (bits != 8 && bits != 16 && bits != 32 && bits != 64) {
					snprintf(why, whylen, "'%.*s': bad size %u", (int)(ie - s), s, bits);
					spec_free(out);
					return -1;
				}
				if ((it.fmt == 'f' || it.kind == UFD_ARG_FLOAT) && bits < 32) {
					snprintf(why, whylen, "'%.*s': bad float size", (int)(ie - s), s);
					spec_free(out);
					return -1;
				}
				it.size = (uint8_t)(bits / 8);
				if (it.kind == UFD_ARG_FLOAT && !it.fmt)
					it.fmt = 'f';
			}
		}
		/* a location ("%rdi", "%stack+2") only mattered at record time */
		if (p < ie && *p == '%')
			p = ie;
		if (p != ie) {
			snprintf(why, whylen, "cannot parse argument spec '%.*s'", (int)(ie - s), s);
			spec_free(out);
			return -1;
		}
		if (it.fmt == 's' || it.fmt == 'S' || it.fmt == 'p')
			it.size = it.fmt == 'p' ? word : 0;
		spec_add(out, &it, 1);
		s = c ? c + 1 : end;
	}
	return 0;
}

static int pat_type(const char *pat, int glob)
{
	const char *special = glob ? "*?[]{}" : ".?*+-^$|()[]{}\\";
	return strpbrk(pat, special) ? (glob ? PAT_GLOB : PAT_REGEX) : PAT_SIMPLE;
}

/* Splits "name@spec;name@spec;..." rules into d->rules. */
static int add_rules(ufd_data *d, const char *list, int is_ret, dt_err *e)
{
	if (!list)
		return 0;
	int lp64 = d->info.elf_class == 2;
	char *info = path_join(d->dir, "info");
	int rc = -1;
	for (const char *s = list; *s;) {
		const char *semi = strchr(s, ';');
		size_t n = semi ? (size_t)(semi - s) : strlen(s);
		if (n) {
			const char *at = memchr(s, '@', n);
			size_t pl = at ? (size_t)(at - s) : n;
			d->rules = xrealloc(d->rules, (d->nrules + 1) * sizeof *d->rules);
			ufd_rule *r = &d->rules[d->nrules];
			memset(r, 0, sizeof *r);
			r->pat = xstrndup(s, pl);
			r->ptype = pat_type(r->pat, d->info.glob_patterns);
			d->nrules++;
			if (r->ptype == PAT_REGEX) {
				if (regcomp(&r->re, r->pat, REG_EXTENDED | REG_NOSUB)) {
					dt_err_at(e, info, -1, "bad %s pattern '%s'",
						  is_ret ? "retspec" : "argspec", r->pat);
					goto out;
				}
				r->has_re = 1;
			}
			ufd_argspec all;
			char why[200];
			if (!at || pl + 1 == n) {
				r->bare = 1;
			} else if (ufd_argspec_parse(at + 1, n - pl - 1, lp64, &all, why, sizeof why)) {
				dt_err_at(e, info, -1, "%s of %s: %s", is_ret ? "retspec" : "argspec",
					  r->pat, why);
				goto out;
			} else {
				for (size_t i = 0; i < all.n; i++)
					spec_add(all.items[i].kind == UFD_ARG_RET ? &r->ret : &r->arg,
						 &all.items[i], 1);
				spec_free(&all);
			}
		}
		s += n;
		if (*s == ';')
			s++;
	}
	rc = 0;
out:
	free(info);
	return rc;
}

/* uftrace's built-in specs for well-known library functions: exact names. */
static int add_auto(ufd_data *d, const char *list, strmap *map, dt_err *e)
{
	if (!list)
		return 0;
	int lp64 = d->info.elf_class == 2;
	for (const char *s = list; *s;) {
		const char *semi = strchr(s, ';');
		size_t n = semi ? (size_t)(semi - s) : strlen(s);
		const char *at = memchr(s, '@', n);
		if (n && at) {
			ufd_argspec sp;
			char why[200];
			if (ufd_argspec_parse(at + 1, n - (size_t)(at - s) - 1, lp64, &sp, why,
					      sizeof why)) {
				char *info = path_join(d->dir, "info");
				dt_err_at(e, info, -1, "automatic spec of %.*s: %s", (int)(at - s), s,
					  why);
				free(info);
				return -1;
			}
			GROW(d->autospecs, d->capautospecs, d->nautospecs + 1);
			d->autospecs[d->nautospecs] = sp;
			strmap_put(map, s, (size_t)(at - s), (uint32_t)d->nautospecs++);
		}
		s += n;
		if (*s == ';')
			s++;
	}
	return 0;
}

static int build_rules(ufd_data *d, dt_err *e)
{
	d->rules_built = 1;
	if (add_rules(d, d->info.argspec, 0, e) || add_rules(d, d->info.retspec, 1, e) ||
	    add_auto(d, d->info.argauto, &d->autoarg, e) ||
	    add_auto(d, d->info.retauto, &d->autoret, e))
		return -1;
	return 0;
}

/* Reads a module's .dbg: "F: offset name" then "A: @spec" / "R: @spec" / "L: line file" lines
 * for it. */
static void load_dbg(ufd_data *d, ufd_module *m)
{
	m->dbg_loaded = 1;
	char *file = sym_file_for(d, m, ".dbg");
	uint8_t *buf = NULL;
	size_t len = 0;
	dt_err ignore;
	dt_err_clear(&ignore);
	if (!file || read_file(file, &buf, &len, &ignore)) {
		free(file);
		return;
	}
	long cur = -1;
	char *line = (char *)buf;
	while (line < (char *)buf + len) {
		char *nl = memchr(line, '\n', (size_t)((char *)buf + len - line));
		if (nl)
			*nl = 0;
		if (!strncmp(line, "F: ", 3)) {
			char *sp = strchr(line + 3, ' ');
			cur = -1;
			if (sp && sp[1]) {
				uint32_t v;
				if (strmap_get(&m->dbg_index, sp + 1, strlen(sp + 1), &v))
					cur = (long)v;
				else {
					GROW(m->dbg_arg, m->capdbg, m->ndbg + 1);
					m->dbg_ret = xrealloc(m->dbg_ret, m->capdbg * sizeof *m->dbg_ret);
					m->dbg_file = xrealloc(m->dbg_file,
							       m->capdbg * sizeof *m->dbg_file);
					m->dbg_line = xrealloc(m->dbg_line,
							       m->capdbg * sizeof *m->dbg_line);
					m->dbg_arg[m->ndbg] = m->dbg_ret[m->ndbg] = NULL;
					m->dbg_file[m->ndbg] = NULL;
					m->dbg_line[m->ndbg] = 0;
					strmap_put(&m->dbg_index, sp + 1, strlen(sp + 1), (uint32_t)m->ndbg);
					cur = (long)m->ndbg++;
				}
			}
		} else if (cur >= 0 && (!strncmp(line, "A: ", 3) || !strncmp(line, "R: ", 3))) {
			char **slot = line[0] == 'A' ? &m->dbg_arg[cur] : &m->dbg_ret[cur];
			free(*slot);
			*slot = xstrdup(line + 3);
		} else if (cur >= 0 && !strncmp(line, "L: ", 3) && !m->dbg_file[cur]) {
			char *end;
			unsigned long ln = strtoul(line + 3, &end, 10);
			if (end > line + 3 && *end == ' ' && end[1] && ln > 0 && ln < 1u << 30) {
				m->dbg_file[cur] = xstrdup(end + 1);
				m->dbg_line[cur] = (unsigned)ln;
				m->dbg_lines = 1;
			}
		}
		if (!nl)
			break;
		line = nl + 1;
	}
	free(buf);
	free(file);
}

int ufd_srcline(ufd_data *d, const ufd_sym *sym, const char **file, unsigned *line)
{
	if (sym->module < 0 || (size_t)sym->module >= d->nmods)
		return 0;
	ufd_module *m = &d->mods[sym->module];
	if (!m->dbg_loaded)
		load_dbg(d, m);
	uint32_t v;
	if (!m->dbg_lines || !strmap_get(&m->dbg_index, sym->name, sym->len, &v) ||
	    !m->dbg_file[v])
		return 0;
	*file = m->dbg_file[v];
	*line = m->dbg_line[v];
	return 1;
}

int ufd_has_srclines(ufd_data *d, int mod)
{
	if (mod < 0 || (size_t)mod >= d->nmods)
		return 0;
	ufd_module *m = &d->mods[mod];
	if (!m->dbg_loaded)
		load_dbg(d, m);
	return m->dbg_lines;
}

/* The automatic spec of a function: its DWARF spec when the module has one, else uftrace's
 * built-in one for well-known library functions. Returns 1 and fills out when there is one. */
static int auto_spec(ufd_data *d, const ufd_sym *sym, int is_ret, ufd_argspec *out,
		     dt_err *e)
{
	memset(out, 0, sizeof *out);
	if (sym->module >= 0 && (d->info.feat & UFD_FEAT_DEBUG_INFO)) {
		ufd_module *m = &d->mods[sym->module];
		if (!m->dbg_loaded)
			load_dbg(d, m);
		uint32_t v;
		if (strmap_get(&m->dbg_index, sym->name, sym->len, &v)) {
			const char *s = is_ret ? m->dbg_ret[v] : m->dbg_arg[v];
			if (s) {
				char why[200];
				char *file = sym_file_for(d, m, ".dbg");
				if (ufd_argspec_parse(s, strlen(s), d->info.elf_class == 2, out, why,
						      sizeof why)) {
					dt_err_at(e, file ? file : m->path, -1, "spec of %.*s: %s",
						  (int)sym->len, sym->name, why);
					free(file);
					return -1;
				}
				free(file);
				return 1;
			}
		}
	}
	uint32_t v;
	if (strmap_get(is_ret ? &d->autoret : &d->autoarg, sym->name, sym->len, &v)) {
		const ufd_argspec *a = &d->autospecs[v];
		out->items = xmalloc((a->n ? a->n : 1) * sizeof *out->items);
		memcpy(out->items, a->items, a->n * sizeof *a->items);
		out->n = a->n;
		return 1;
	}
	return 0;
}

static int rule_matches(const ufd_rule *r, const char *name)
{
	switch (r->ptype) {
	case PAT_SIMPLE:
		return !strcmp(r->pat, name);
	case PAT_GLOB:
		return !fnmatch(r->pat, name, 0);
	default:
		return !regexec(&r->re, name, 0, NULL, 0);
	}
}

int ufd_argspec_for(ufd_data *d, const ufd_sym *sym, int is_ret, const ufd_argspec **spec,
		    dt_err *e)
{
	*spec = NULL;
	if (!d->rules_built && build_rules(d, e))
		return -1;
	char key[700];
	int kl = snprintf(key, sizeof key, "%c%d|%.*s", is_ret ? 'R' : 'A', sym->module,
			  (int)(sym->len < 600 ? sym->len : 600), sym->name);
	uint32_t v;
	if (strmap_get(&d->speccache, key, (size_t)kl, &v)) {
		*spec = v ? &d->specs[v - 1] : NULL;
		return 0;
	}
	char *name = xstrndup(sym->name, sym->len);
	ufd_argspec res = { NULL, 0 };
	int matched = 0, rc = -1;
	/* Explicit -A/-R rules replace the automatic spec of the functions they match (checked
	 * against uftrace 0.13: `-a -A f1@arg1/x32` records only arg1 of f1). */
	for (size_t i = 0; i < d->nrules; i++) {
		const ufd_rule *r = &d->rules[i];
		const ufd_argspec *part = is_ret ? &r->ret : &r->arg;
		if (!r->bare && !part->n)
			continue;
		if (!rule_matches(r, name))
			continue;
		matched = 1;
		if (r->bare) {
			ufd_argspec a;
			int got = auto_spec(d, sym, is_ret, &a, e);
			if (got < 0)
				goto out;
			for (size_t j = 0; j < a.n; j++)
				spec_add(&res, &a.items[j], 0);
			spec_free(&a);
		} else
			for (size_t j = 0; j < part->n; j++)
				spec_add(&res, &part->items[j], 1);
	}
	if (!matched && d->info.auto_args) {
		int got = auto_spec(d, sym, is_ret, &res, e);
		if (got < 0)
			goto out;
	}
	if (res.n) {
		GROW(d->specs, d->capspecs, d->nspecs + 1);
		d->specs[d->nspecs++] = res;
		res.items = NULL;
		strmap_put(&d->speccache, key, (size_t)kl, (uint32_t)d->nspecs);
		*spec = &d->specs[d->nspecs - 1];
	} else
		strmap_put(&d->speccache, key, (size_t)kl, 0);
	rc = 0;
out:
	spec_free(&res);
	free(name);
	return rc;
}

/* ---- decoding ------------------------------------------------------------------------------- */

static void put_str(dt_buf *b, const char *s)
{
	buf_put(b, s, strlen(s));
}

static void put_escaped(dt_buf *b, const uint8_t *s, size_t n, char q)
{
	buf_byte(b, (uint8_t)q);
	for (size_t i = 0; i < n; i++) {
		uint8_t c = s[i];
		char tmp[8];
		if (c == (uint8_t)q || c == '\\') {
			buf_byte(b, '\\');
			buf_byte(b, c);
		} else if (c == '\n')
			put_str(b, "\\n");
		else if (c == '\t')
			put_str(b, "\\t");
		else if (c < 0x20 || c == 0x7f) {
			snprintf(tmp, sizeof tmp, "\\x%02x", c);
			put_str(b, tmp);
		} else
			buf_byte(b, c);
	}
	buf_byte(b, (uint8_t)q);
}

#define ALIGN4(x) (((x) + 3) & ~(size_t)3)

int ufd_args_decode(const ufd_data *d, const ufd_argspec *spec, const uint8_t *p, size_t avail,
		    size_t *used, dt_buf *out, dt_err *e)
{
	int swap = d->info.swap;
	size_t pos = 0;
	size_t start = out->len;
	for (size_t i = 0; i < spec->n; i++) {
		const ufd_argitem *it = &spec->items[i];
		char tmp[96];
		if (i)
			put_str(out, ", ");
		if (it->kind == UFD_ARG_RET)
			put_str(out, "retval=");
		else {
			snprintf(tmp, sizeof tmp, "%sarg%u=", it->kind == UFD_ARG_FLOAT ? "fp" : "",
				 it->idx);
			put_str(out, tmp);
		}
		if (it->fmt == 's' || it->fmt == 'S') {
			if (avail < pos + 2)
				goto more;
			size_t sl = ufd_get16(p + pos, swap);
			size_t need = ALIGN4(2 + sl);
			if (avail < pos + need) {
				*used = pos + need;
				out->len = start;
				return 1;
			}
			put_escaped(out, p + pos + 2, sl, '"');
			pos += need;
			continue;
		}
		size_t sz = it->size;
		if (sz != 1 && sz != 2 && sz != 4 && sz != 8) {
			out->len = start;
			return dt_errf(e, DT_EDATA, "argument spec with a %zu-byte value", sz);
		}
		if (avail < pos + ALIGN4(sz))
			goto more;
		uint64_t u = 0;
		switch (sz) {
		case 1: u = p[pos]; break;
		case 2: u = ufd_get16(p + pos, swap); break;
		case 4: u = ufd_get32(p + pos, swap); break;
		default: u = ufd_get64(p + pos, swap); break;
		}
		pos += ALIGN4(sz);
		int bits = (int)sz * 8;
		int64_t sv = bits == 64 ? (int64_t)u : (int64_t)(u << (64 - bits)) >> (64 - bits);
		if (it->fmt == 'f' || it->kind == UFD_ARG_FLOAT) {
			double dv;
			if (sz == 4) {
				float f;
				uint32_t w = (uint32_t)u;
				memcpy(&f, &w, 4);
				dv = f;
			} else if (sz == 8)
				memcpy(&dv, &u, 8);
			else {
				out->len = start;
				return dt_errf(e, DT_EDATA, "float argument of %zu bytes", sz);
			}
			snprintf(tmp, sizeof tmp, "%g", dv);
		} else if (it->fmt == 'c') {
			uint8_t c = (uint8_t)u;
			put_escaped(out, &c, 1, '\'');
			continue;
		} else if (it->fmt == 'x' || it->fmt == 'p')
			snprintf(tmp, sizeof tmp, "0x%" PRIx64, u);
		else if (it->fmt == 'u')
			snprintf(tmp, sizeof tmp, "%" PRIu64, u);
		else if (it->fmt == 'd' || it->fmt == 'i' || it->fmt == 'e')
			snprintf(tmp, sizeof tmp, "%" PRId64, sv);
		else if (sv > -100000 && sv < 100000) /* auto: small numbers read best in decimal */
			snprintf(tmp, sizeof tmp, "%" PRId64, sv);
		else
			snprintf(tmp, sizeof tmp, "0x%" PRIx64, u);
		put_str(out, tmp);
	}
	*used = (pos + 7) & ~(size_t)7;
	if (avail < *used) {
		out->len = start;
		return 1;
	}
	buf_byte(out, 0);
	out->len--;
	return 0;
more:
	/* the exact size is not known before the next field is read: ask for one more field */
	*used = pos + 8;
	out->len = start;
	return 1;
}
