/* import_parlot.c: the ParLOT importer (formats/parlot.md).
 *
 * PATH is one per-thread trace file or a directory of them. Each trace is decoded in bounded
 * blocks (LZa3 | ZE through lza3.c, or raw 16-bit words for the WDBG variant), its 16-bit
 * function ids are turned into names through the process's `.info` table and interned in the
 * sink once per id, and what the file lacked (trailer, whole groups, names, returns) becomes
 * trace flags with a short note, so that a killed process's traces still import.
 *
 * Names are kept raw. The ParLOT reference reader demangles C++ names; the sample data (Go
 * programs) needs no demangling, and a C++ demangler is a project of its own, so a mangled name
 * is imported as Pin reported it, in both ways of reading the .info file. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "import/import.h"
#include "store/lza3.h"
#include "util/util.h"

/* Values decoded per block: bounds the memory a trace needs whatever its length. */
#define PARLOT_BLOCK 65536
/* ParLOT ids are 16-bit; the id cache covers all of them. */
#define PARLOT_IDS 65536

typedef struct parlot_file {
	char *path;
	const char *base; /* inside path */
	size_t proclen;   /* length of base up to the last '.': identifies the process */
	uint64_t pid, tid;
	char *host;       /* NULL when the name does not say */
} parlot_file;

/* One process's function table: name k (1-based) is data[off[k]] .. + len[k]. */
typedef struct parlot_info {
	char *path;
	uint8_t *data;
	size_t *off, *len;
	size_t n, cap;
} parlot_info;

/* A trace file in memory: mapped when possible, read otherwise. */
typedef struct parlot_map {
	const uint8_t *p;
	size_t n;
	void *mapped;
	uint8_t *owned;
} parlot_map;

/* ---- file names ---------------------------------------------------------------------------- */

static int parlot_number(const char *s, size_t n, uint64_t *v)
{
	if (!n || n > 18)
		return -1;
	uint64_t x = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		x = x * 10 + (uint64_t)(s[i] - '0');
	}
	*v = x;
	return 0;
}

/* Parses `Hdbg.<ver>.<host>.<pid>.<tid>` or `parlotm.<host>.<pid>.<tid>`. With strict = 0 (a
 * file named on the command line) any `<prefix>.<pid>.<tid>` will do, as DiffTrace relies only
 * on the last two components; the host is then unknown. Returns -1 when the name does not fit. */
static int parlot_parse_name(const char *base, int strict, parlot_file *f)
{
	const char *t = strrchr(base, '.');
	if (!t || t == base)
		return -1;
	const char *p = t - 1;
	while (p > base && *p != '.')
		p--;
	if (p == base || parlot_number(p + 1, (size_t)(t - p - 1), &f->pid) ||
	    parlot_number(t + 1, strlen(t + 1), &f->tid))
		return -1;
	/* The prefix before the pid: "parlotm.<host>" or "Hdbg.<ver>.<host>". */
	const char *host = NULL;
	uint64_t ver;
	if (!strncmp(base, "parlotm.", 8)) {
		host = base + 8;
	} else if (!strncmp(base, "Hdbg.", 5)) {
		const char *v = base + 5, *vd = strchr(v, '.');
		if (vd && vd < p && !parlot_number(v, (size_t)(vd - v), &ver))
			host = vd + 1;
	}
	if (host && (host >= p || memchr(host, '.', (size_t)(p - host))))
		host = NULL;
	if (!host && strict)
		return -1;
	f->host = host ? xstrndup(host, (size_t)(p - host)) : NULL;
	f->proclen = (size_t)(t - base);
	return 0;
}

static void parlot_file_free(parlot_file *f)
{
	free(f->path);
	free(f->host);
}

/* Numeric pid, then the process (two hosts may reuse a pid), then numeric tid. */
static int parlot_file_cmp(const void *a, const void *b)
{
	const parlot_file *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	size_t l = x->proclen < y->proclen ? x->proclen : y->proclen;
	int c = memcmp(x->base, y->base, l);
	if (c || x->proclen != y->proclen)
		return c ? c : x->proclen < y->proclen ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return strcmp(x->base, y->base);
}

/* The trace path with its last '.'-component replaced by "info" (parlot.md §1.2). */
static char *parlot_info_path(const parlot_file *f)
{
	size_t keep = (size_t)(f->base - f->path) + f->proclen + 1;
	char *s = xmalloc(keep + 5);
	memcpy(s, f->path, keep);
	memcpy(s + keep, "info", 5);
	return s;
}

/* ---- the .info function table -------------------------------------------------------------- */

static void parlot_info_free(parlot_info *in)
{
	free(in->path);
	free(in->data);
	free(in->off);
	free(in->len);
	memset(in, 0, sizeof *in);
}

static void parlot_info_add(parlot_info *in, size_t off, size_t len)
{
	if (in->n + 2 > in->cap) {
		size_t c = in->cap;
		GROW(in->off, c, in->n + 2);
		GROW(in->len, in->cap, in->n + 2);
	}
	in->n++;
	in->off[in->n] = off;
	in->len[in->n] = len;
}

/* The next token as the reference reader's `%255s` sees it: a longer word is split. */
static int parlot_token(const char *s, size_t n, size_t *pos, size_t *b, size_t *l)
{
	size_t i = *pos;
	while (i < n && isspace((unsigned char)s[i]))
		i++;
	size_t start = i;
	while (i < n && i - start < 255 && !isspace((unsigned char)s[i]))
		i++;
	*pos = i;
	*b = start;
	*l = i - start;
	return i > start;
}

/* The reference reader's numbering (parlot.md §1.3): whitespace-separated tokens; a token that
 * starts with '+' is followed by the image, skipped, and then a name; at most 65535 names. An
 * unfinished last token is taken as it is, as the reference would. */
static void parlot_info_tokens(parlot_info *in, size_t n)
{
	const char *s = (const char *)in->data;
	size_t pos = 0, b, l;
	while (in->n < PARLOT_IDS - 1 && parlot_token(s, n, &pos, &b, &l)) {
		if (s[b] == '+' &&
		    (!parlot_token(s, n, &pos, &b, &l) || !parlot_token(s, n, &pos, &b, &l)))
			break;
		parlot_info_add(in, b, l);
	}
}

/* Reads the table by lines: a `+` line, an image line, then routine names; the k-th name line
 * of the file has id k. The file is flushed only at a normal exit, so a killed process can
 * leave it short or cut inside a line: an unfinished last line is dropped, and ids past the
 * end are named "?<id>" by the caller. The reference reader splits on whitespace instead,
 * which misnumbers every id after a name with a space, such as Go's `type..eq.struct { ... }`
 * in the sample data (its texTrace files carry those wrong names); lines are what the tracer
 * wrote, and tokens = 1 reproduces the reference. */
static int parlot_info_load(parlot_info *in, const char *path, const char *trace, int tokens,
			    dt_err *e)
{
	size_t n;
	in->path = xstrdup(path);
	struct stat st;
	if (stat(path, &st) != 0)
		return dt_err_at(e, path, -1, "cannot open the function table of trace %s: %s", trace,
				 strerror(errno));
	if (read_file(path, &in->data, &n, e))
		return -1;
	if (tokens) {
		parlot_info_tokens(in, n);
		return 0;
	}
	const char *s = (const char *)in->data;
	int line = 0, image = 0;
	for (size_t i = 0; i < n;) {
		const char *nl = memchr(s + i, '\n', n - i);
		if (!nl)
			break; /* an unfinished last line: cut by a killed process */
		size_t b = i, l = (size_t)(nl - (s + i));
		i += l + 1;
		line++;
		if (l && s[b + l - 1] == '\r')
			l--;
		if (l == 1 && s[b] == '+') {
			image = 1;
			continue;
		}
		if (line == 1)
			return dt_err_lc(e, path, 1, 1,
					 "not a ParLOT function table: the first line should be '+'");
		if (image) {
			image = 0;
			continue;
		}
		parlot_info_add(in, b, l);
	}
	return 0;
}

/* ---- one trace ----------------------------------------------------------------------------- */

static int parlot_map_open(parlot_map *m, const char *path, dt_err *e)
{
	memset(m, 0, sizeof *m);
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return dt_err_at(e, path, -1, "cannot open: %s", strerror(errno));
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return dt_err_at(e, path, -1, "not a regular file");
	}
	if (st.st_size > 0) {
		void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p != MAP_FAILED) {
			/* Read once, front to back: let the kernel read ahead and drop pages behind. */
			posix_madvise(p, (size_t)st.st_size, POSIX_MADV_SEQUENTIAL);
			m->mapped = p;
			m->p = p;
			m->n = (size_t)st.st_size;
		}
	}
	close(fd);
	if (st.st_size > 0 && !m->mapped) {
		if (read_file(path, &m->owned, &m->n, e))
			return -1;
		m->p = m->owned;
	}
	return 0;
}

static void parlot_map_close(parlot_map *m)
{
	if (m->mapped)
		munmap(m->mapped, m->n);
	free(m->owned);
	memset(m, 0, sizeof *m);
}

/* What the id translation learnt while the events went by. */
typedef struct parlot_state {
	const parlot_file *f;
	const parlot_info *info;
	const parlot_map *m;
	dt_sink *s;
	uint32_t *idmap; /* ParLOT id -> sink id, 0 until first used */
	uint64_t depth, unmatched, unknown, nev;
	size_t odd_at; /* DT_TF_CORRUPT: the group of the first token ParLOT never writes */
} parlot_state;

static uint32_t parlot_intern(parlot_state *st, uint32_t v, dt_err *e)
{
	char tmp[32];
	const char *name;
	size_t len;
	if (v <= st->info->n && st->info->len[v]) {
		name = (const char *)st->info->data + st->info->off[v];
		len = st->info->len[v];
	} else {
		if (v > st->info->n)
			st->unknown++;
		len = (size_t)snprintf(tmp, sizeof tmp, "?%lu", (unsigned long)v);
		name = tmp;
	}
	uint32_t id = st->s->func(st->s->ctx, name, len, e);
	if (!id)
		dt_err_at(e, st->f->path, -1, "cannot intern function name \"%.*s\"", (int)len, name);
	return id;
}

/* Turns a block of ParLOT values into sink ids in place, keeping the call depth, and hands it
 * to the sink. */
static int parlot_push(parlot_state *st, uint32_t *v, size_t n, dt_err *e)
{
	uint32_t *idmap = st->idmap;
	uint64_t depth = st->depth;
	for (size_t i = 0; i < n; i++) {
		uint32_t x = v[i];
		if (x == 0) {
			if (depth)
				depth--;
			else
				st->unmatched++;
			continue;
		}
		depth++;
		uint32_t id = x < PARLOT_IDS ? idmap[x] : 0;
		if (!id) {
			if (!(id = parlot_intern(st, x, e)))
				return -1;
			if (x < PARLOT_IDS)
				idmap[x] = id;
		}
		v[i] = id;
	}
	st->depth = depth;
	st->nev += n;
	return st->s->events(st->s->ctx, v, NULL, n, e);
}

static int parlot_decode_lza3(parlot_state *st, lza3_dec *d, uint32_t *blk, unsigned *fl,
			      dt_err *e)
{
	unsigned lf = lza3_dec_flags(d);
	*fl |= (lf & LZA3_UNTERMINATED ? DT_TF_UNTERMINATED : 0) |
	       (lf & LZA3_TRUNCATED ? DT_TF_TRUNCATED : 0);
	int64_t k;
	while ((k = lza3_dec_next(d, blk, PARLOT_BLOCK, e)) > 0)
		if (parlot_push(st, blk, (size_t)k, e))
			return -1;
	if (k == 0 && (lza3_dec_flags(d) & LZA3_ODD)) {
		*fl |= DT_TF_CORRUPT;
		st->odd_at = lza3_dec_odd_at(d);
	}
	/* a zero byte ZE never writes: a group damaged in place (a flipped bit) */
	size_t z = k == 0 ? lza3_zero_byte_at(st->m->p, st->m->n) : SIZE_MAX;
	if (z != SIZE_MAX && (!(*fl & DT_TF_CORRUPT) || z < st->odd_at)) {
		*fl |= DT_TF_CORRUPT;
		st->odd_at = z;
	}
	return k < 0 ? -1 : 0;
}

/* WDBG: n little-endian words, then one 0x00 byte written at thread exit (parlot.md §1.5). */
static int parlot_decode_raw(parlot_state *st, const parlot_map *m, uint32_t *blk, unsigned *fl,
			     dt_err *e)
{
	size_t words = m->n / 2;
	if (m->n % 2 == 0)
		*fl |= DT_TF_UNTERMINATED; /* the exit byte never came */
	else if (m->p[m->n - 1] != 0)
		*fl |= DT_TF_TRUNCATED;    /* an odd byte that is not the exit byte: half a word */
	for (size_t i = 0; i < words;) {
		size_t k = words - i < PARLOT_BLOCK ? words - i : PARLOT_BLOCK;
		const uint8_t *p = m->p + 2 * i;
		for (size_t j = 0; j < k; j++)
			blk[j] = (uint32_t)p[2 * j] | (uint32_t)p[2 * j + 1] << 8;
		if (parlot_push(st, blk, k, e))
			return -1;
		i += k;
	}
	return 0;
}

static void parlot_note(char *buf, size_t size, unsigned fl, int raw, const parlot_map *m,
			const parlot_state *st)
{
	size_t len = 0;
	buf[0] = 0;
#define NOTE(...)                                                                                 \
	do {                                                                                      \
		if (len < size) {                                                                 \
			int w_ = snprintf(buf + len, size - len, "%s", len ? "; " : "");          \
			len += w_ > 0 ? (size_t)w_ : 0;                                           \
		}                                                                                 \
		if (len < size) {                                                                 \
			int w_ = snprintf(buf + len, size - len, __VA_ARGS__);                    \
			len += w_ > 0 ? (size_t)w_ : 0;                                           \
		}                                                                                 \
	} while (0)
	if (m->n == 0)
		NOTE("0-byte file: nothing was written (ADBG variant, or the process was killed "
		     "before the first flush)");
	else if (fl & DT_TF_UNTERMINATED)
		NOTE("no trailer: process was killed or hung");
	if (fl & DT_TF_TRUNCATED)
		NOTE(raw ? "file ends inside a 16-bit word: the odd byte was dropped"
			 : "file ends inside a compressed group: the incomplete group was dropped");
	if ((fl & DT_TF_EMPTY) && m->n > 0)
		NOTE("no events");
	if (fl & DT_TF_OPEN_FRAMES)
		NOTE("%llu call%s left open", (unsigned long long)st->depth, st->depth == 1 ? "" : "s");
	if (fl & DT_TF_UNMATCHED)
		NOTE("%llu return%s without a call", (unsigned long long)st->unmatched,
		     st->unmatched == 1 ? "" : "s");
	if (fl & DT_TF_CORRUPT)
		NOTE("byte offset %zu: a compressed group ParLOT never writes (a damaged file; "
		     "the events from there on may be wrong)",
		     st->odd_at);
	if (fl & DT_TF_INFO_TRUNCATED)
		NOTE("function table %s has %zu names; %llu id%s beyond it named ?<id>",
		     st->info->path, st->info->n, (unsigned long long)st->unknown,
		     st->unknown == 1 ? "" : "s");
#undef NOTE
}

static int parlot_trace(const parlot_file *f, int raw, const parlot_info *info, dt_sink *s,
			dt_err *e)
{
	parlot_map m;
	if (parlot_map_open(&m, f->path, e))
		return -1;
	parlot_state st = { .f = f, .info = info, .m = &m, .s = s };
	dt_trace_meta meta = {
		.pid = (int64_t)f->pid,
		.tid = (int64_t)f->tid,
		.rank = -1,
		.is_main = f->tid == 0,
		.host = f->host,
		.source = f->path,
	};
	unsigned fl = 0;
	uint32_t *blk = NULL;
	int r = -1;
	/* Framing errors are found before the trace begins. */
	lza3_dec *d = NULL;
	if (!raw && !(d = lza3_dec_new(m.p, m.n, f->path, e)))
		goto out;
	if (s->begin(s->ctx, &meta, e))
		goto out;
	st.idmap = xcalloc(PARLOT_IDS, sizeof *st.idmap);
	blk = xmalloc(PARLOT_BLOCK * sizeof *blk);
	if (raw ? parlot_decode_raw(&st, &m, blk, &fl, e) : parlot_decode_lza3(&st, d, blk, &fl, e))
		goto out;
	if (!st.nev)
		fl |= DT_TF_EMPTY;
	if (st.depth)
		fl |= DT_TF_OPEN_FRAMES;
	if (st.unmatched)
		fl |= DT_TF_UNMATCHED;
	if (st.unknown)
		fl |= DT_TF_INFO_TRUNCATED;
	char note[1024];
	parlot_note(note, sizeof note, fl, raw, &m, &st);
	r = s->end(s->ctx, fl, note[0] ? note : NULL, e) ? -1 : 0;
out:
	lza3_dec_free(d);
	free(blk);
	free(st.idmap);
	parlot_map_close(&m);
	return r;
}

/* ---- entry point --------------------------------------------------------------------------- */

static int parlot_list_dir(const char *dir, parlot_file **out, size_t *nout, dt_err *e)
{
	DIR *dh = opendir(dir);
	if (!dh)
		return dt_err_at(e, dir, -1, "cannot open directory: %s", strerror(errno));
	parlot_file *v = NULL;
	size_t n = 0, cap = 0, dl = strlen(dir);
	int slash = dl && dir[dl - 1] == '/';
	struct dirent *de;
	while ((de = readdir(dh))) {
		parlot_file f = { 0 };
		if (parlot_parse_name(de->d_name, 1, &f))
			continue; /* .info files and anything else that is not a trace */
		size_t bl = strlen(de->d_name);
		f.path = xmalloc(dl + bl + 2);
		snprintf(f.path, dl + bl + 2, "%s%s%s", dir, slash ? "" : "/", de->d_name);
		f.base = f.path + dl + !slash;
		struct stat st;
		if (stat(f.path, &st) != 0 || !S_ISREG(st.st_mode)) {
			parlot_file_free(&f);
			continue;
		}
		GROW(v, cap, n + 1);
		v[n++] = f;
	}
	closedir(dh);
	if (!n) {
		free(v);
		return dt_err_at(e, dir, -1,
				 "no ParLOT trace files here (Hdbg.17.<host>.<pid>.<tid> or "
				 "parlotm.<host>.<pid>.<tid>)");
	}
	qsort(v, n, sizeof *v, parlot_file_cmp);
	*out = v;
	*nout = n;
	return 0;
}

/* A single file named on the command line. */
static int parlot_one_file(const char *path, parlot_file **out, size_t *nout, dt_err *e)
{
	parlot_file *f = xcalloc(1, sizeof *f);
	f->path = xstrdup(path);
	const char *sl = strrchr(f->path, '/');
	f->base = sl ? sl + 1 : f->path;
	const char *dot = strrchr(f->base, '.');
	int r = 0;
	if (dot && !strcmp(dot, ".info"))
		r = dt_err_at(e, path, -1,
			      "this is a process's function table; give a trace file or the directory");
	else if (parlot_parse_name(f->base, 0, f))
		r = dt_err_at(e, path, -1,
			      "not a ParLOT trace file name: want <prefix>.<pid>.<tid>, as in "
			      "parlotm.<host>.<pid>.<tid>");
	if (r) {
		parlot_file_free(f);
		free(f);
		return -1;
	}
	*out = f;
	*nout = 1;
	return 0;
}

int import_parlot(const char *path, int raw, const dt_import_opts *o, dt_sink *s, dt_err *e)
{
	int tokens = o && o->parlot_token_names;
	struct stat st;
	if (stat(path, &st) != 0)
		return dt_err_at(e, path, -1, "cannot open: %s", strerror(errno));
	parlot_file *files = NULL;
	size_t nfiles = 0;
	if (S_ISDIR(st.st_mode) ? parlot_list_dir(path, &files, &nfiles, e)
				: parlot_one_file(path, &files, &nfiles, e))
		return -1;
	int r = 0;
	parlot_info info = { 0 };
	/* Files come grouped by process, so each table is read once. */
	for (size_t i = 0; i < nfiles && !r; i++) {
		int mine = import_unit(o, e);
		if (mine <= 0) {
			r = mine;
			continue;
		}
		char *ip = parlot_info_path(&files[i]);
		if (!info.path || strcmp(info.path, ip)) {
			parlot_info_free(&info);
			r = parlot_info_load(&info, ip, files[i].path, tokens, e);
		}
		free(ip);
		if (!r)
			r = parlot_trace(&files[i], raw, &info, s, e);
	}
	parlot_info_free(&info);
	for (size_t i = 0; i < nfiles; i++)
		parlot_file_free(&files[i]);
	free(files);
	return r ? -1 : 0;
}
