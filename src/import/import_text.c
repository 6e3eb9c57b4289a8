/* import_text.c: the texTrace format of the DiffTrace prototype.
 *
 * One file per trace, one function name per line, `[ret]` for a return; a trace may put
 * its timestamps before them (`@NS NAME`, nanoseconds), on every line or on none. Blank lines
 * are skipped. The trace's identity comes from the file name: the last two numbers in it are the
 * process and the thread (`parlotm.host.16205.3.txt`, `2.1.txt`), a single number is the
 * process with thread 0 (`rank-3.txt`), and a name with no number takes its position. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "import/import.h"
#include "import/ptdup.h"
#include "util/names.h"
#include "util/util.h"

#define TEXT_BLOCK 4096
#define TEXT_MAX_LINE (1 << 20)

typedef struct text_id {
	int64_t pid, tid;
	int numbers;
	char host[64];
} text_id;

/* Reads the identity numbers out of a file's base name. */
static void text_identity(const char *path, int64_t position, text_id *id)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	char name[512];
	snprintf(name, sizeof name, "%s", base);
	size_t l = strlen(name);
	if (l > 4 && !strcmp(name + l - 4, ".txt"))
		name[l - 4] = 0;
	char *parts[64];
	int np = 0;
	char *sv;
	for (char *tok = strtok_r(name, ".-_", &sv); tok && np < 64;
	     tok = strtok_r(NULL, ".-_", &sv))
		parts[np++] = tok;
	int64_t nums[2] = { 0, 0 };
	int nnum = 0, at = -1;
	for (int i = np - 1; i >= 0 && nnum < 2; i--) {
		char *end;
		errno = 0;
		long long v = strtoll(parts[i], &end, 10);
		if (*parts[i] && !*end && !errno && v >= 0 && isdigit((unsigned char)*parts[i])) {
			nums[nnum++] = v;
			at = i;
		} else if (nnum) {
			break; /* the numbers must be the trailing components */
		}
	}
	id->numbers = nnum;
	id->host[0] = 0;
	if (nnum == 2) {
		id->pid = nums[1];
		id->tid = nums[0];
		if (at >= 2) /* prefix.host.pid.tid */
			snprintf(id->host, sizeof id->host, "%s", parts[at - 1]);
	} else if (nnum == 1) {
		id->pid = nums[0];
		id->tid = 0;
	} else {
		id->pid = position;
		id->tid = 0;
	}
}

static int flush(dt_sink *s, uint32_t *ev, const uint64_t *ts, size_t *n, dt_err *e)
{
	if (*n && s->events(s->ctx, ev, ts, *n, e))
		return -1;
	*n = 0;
	return 0;
}

/* An optional timestamp before the name, "@NS NAME" (nanoseconds): its length with the space
 * after it (0 when the line has none, -1 when it is not a number followed by a name). */
static int text_time(const char *line, size_t len, uint64_t *ts)
{
	if (len < 2 || line[0] != '@' || !isdigit((unsigned char)line[1]))
		return 0;
	uint64_t v = 0;
	size_t i = 1;
	for (; i < len && isdigit((unsigned char)line[i]); i++) {
		if (v > (UINT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (uint64_t)(line[i] - '0');
	}
	if (i + 1 >= len || line[i] != ' ')
		return -1;
	*ts = v;
	return (int)i + 1;
}

/* The file is read in blocks and cut into lines in place: no line is copied, and the check
 * for NUL bytes runs once over each block. */
#define TEXT_READ (256 * 1024)
#define TEXT_CACHE 256     /* names remembered, a power of 2 */
#define TEXT_CACHE_NAME 48 /* the longest name remembered */

/* A text file read line by line in blocks. */
struct lines {
	const char *path;
	int fd, eof;
	char *buf;
	size_t cap, beg, end;
	size_t nulat; /* where the first NUL byte read is, SIZE_MAX: none yet */
	int64_t lineno;
};

/* Reads more of the file behind the partial line at the front: 0, or -1 with e set. */
static int lines_fill(struct lines *L, dt_err *e)
{
	if (L->end - L->beg > TEXT_MAX_LINE)
		return dt_err_lc(e, L->path, (int)L->lineno + 1, 1, "line longer than %d bytes",
				 TEXT_MAX_LINE);
	memmove(L->buf, L->buf + L->beg, L->end - L->beg);
	L->end -= L->beg;
	if (L->nulat != SIZE_MAX)
		L->nulat -= L->beg;
	L->beg = 0;
	if (L->cap - L->end < TEXT_READ / 2) {
		L->cap *= 2;
		L->buf = xrealloc(L->buf, L->cap);
	}
	ssize_t r;
	do
		r = read(L->fd, L->buf + L->end, L->cap - L->end);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return dt_err_lc(e, L->path, (int)L->lineno + 1, 1, "read error: %s",
				 strerror(errno));
	if (!r) {
		L->eof = 1;
		return 0;
	}
	if (L->nulat == SIZE_MAX) {
		char *z = memchr(L->buf + L->end, 0, (size_t)r);
		if (z)
			L->nulat = (size_t)(z - L->buf);
	}
	L->end += (size_t)r;
	return 0;
}

/* The next line that is not blank, without its line end (nor a byte order mark on the first):
 * 1, 0 at the end of the file, -1 with e set (a NUL byte, a line too long, a read error). */
static int lines_next(struct lines *L, char **line, size_t *len, dt_err *e)
{
	for (;;) {
		char *nl = memchr(L->buf + L->beg, '\n', L->end - L->beg);
		size_t lend;
		if (nl) {
			lend = (size_t)(nl - L->buf);
		} else if (L->eof) {
			if (L->beg == L->end)
				return 0;
			lend = L->end; /* the last line has no newline */
		} else {
			if (lines_fill(L, e))
				return -1;
			continue;
		}
		L->lineno++;
		char *l = L->buf + L->beg;
		size_t n = lend - L->beg;
		L->beg = nl ? lend + 1 : lend;
		/* a UTF-8 byte order mark (editors on some systems write one) is not a name */
		if (L->lineno == 1 && n >= 3 && !memcmp(l, "\xef\xbb\xbf", 3)) {
			l += 3;
			n -= 3;
		}
		while (n > 0 && (l[n - 1] == '\n' || l[n - 1] == '\r'))
			n--;
		if (!n)
			continue;
		if (L->nulat < lend)
			return dt_err_lc(e, L->path, (int)L->lineno,
					 (int)(L->buf + L->nulat - l) + 1,
					 "NUL byte in a function name: not a text trace");
		if (n > TEXT_MAX_LINE)
			return dt_err_lc(e, L->path, (int)L->lineno, 1,
					 "line longer than %d bytes", TEXT_MAX_LINE);
		*line = l;
		*len = n;
		return 1;
	}
}

/* The names met lately, by a hash of their length and three of their bytes, so that most
 * lines find their id without the sink's look-up. */
struct name_cache {
	struct { uint32_t id, len; char name[TEXT_CACHE_NAME]; } slot[TEXT_CACHE];
};

/* The id of the function named line[0..len) (0, with e set, when the sink fails). */
static uint32_t name_id(struct name_cache *c, const char *line, size_t len, int demangle,
			dt_sink *s, dt_err *e)
{
	size_t i = (len * 31 + (unsigned char)line[0] * 7 + (unsigned char)line[len / 2] * 3 +
		    (unsigned char)line[len - 1]) &
		   (TEXT_CACHE - 1);
	if (c->slot[i].len == len && !memcmp(c->slot[i].name, line, len))
		return c->slot[i].id;
	char *disp = demangle ? dt_name_display(line, len) : NULL;
	uint32_t v = disp ? s->func(s->ctx, disp, strlen(disp), e) : s->func(s->ctx, line, len, e);
	free(disp);
	if (v && len <= TEXT_CACHE_NAME) {
		memcpy(c->slot[i].name, line, len);
		c->slot[i].len = (uint32_t)len;
		c->slot[i].id = v;
	}
	return v;
}

/* The end of a trace: its flags and note (returns without a call, calls left open). */
static int end_trace(dt_sink *s, int64_t unmatched, int64_t depth, dt_err *e)
{
	unsigned flags = 0;
	char note[160] = "";
	if (unmatched) {
		flags |= DT_TF_UNMATCHED;
		snprintf(note, sizeof note, "%lld returns without a call", (long long)unmatched);
	}
	if (depth > 0)
		snprintf(note + strlen(note), sizeof note - strlen(note), "%s%lld call%s left open",
			 note[0] ? "; " : "", (long long)depth, depth == 1 ? "" : "s");
	return s->end(s->ctx, flags, note, e);
}

static int import_one(const char *path, int64_t position, int demangle, dt_sink *s, dt_err *e)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return dt_err_at(e, path, -1, "cannot open: %s", strerror(errno));
	text_id id;
	text_identity(path, position, &id);
	dt_trace_meta m = { id.pid, id.tid, -1, id.tid == 0, id.host[0] ? id.host : NULL, path };
	struct lines L = { path, fd, 0, xmalloc(TEXT_READ), TEXT_READ, 0, 0, SIZE_MAX, 0 };
	size_t n = 0;
	uint32_t ev[TEXT_BLOCK];
	uint64_t tsv[TEXT_BLOCK];
	int timed = -1; /* the trace's lines have "@NS " before the name: all or none */
	int rc = -1, got;
	int64_t depth = 0, unmatched = 0;
	struct name_cache *cache = xmalloc(sizeof *cache);
	for (size_t i = 0; i < TEXT_CACHE; i++)
		cache->slot[i].len = UINT32_MAX;
	char *line = NULL;
	size_t len = 0;
	if (s->begin(s->ctx, &m, e))
		goto done;
	while ((got = lines_next(&L, &line, &len, e)) > 0) {
		uint64_t t = 0;
		int tl = text_time(line, len, &t);
		if (tl < 0) {
			dt_err_lc(e, path, (int)L.lineno, 1,
				  "a timestamp is @NANOSECONDS, a space and the name");
			goto done;
		}
		if (timed < 0) {
			timed = tl > 0;
		} else if (timed != (tl > 0)) {
			dt_err_lc(e, path, (int)L.lineno, 1,
				  "%s: the lines of a trace have a timestamp (@NS NAME) all or none",
				  timed ? "no timestamp" : "a timestamp");
			goto done;
		}
		line += tl;
		len -= (size_t)tl;
		tsv[n] = t;
		uint32_t v;
		if (len == 5 && !memcmp(line, "[ret]", 5)) {
			v = DT_RET;
			if (depth > 0)
				depth--;
			else
				unmatched++;
		} else {
			if (!(v = name_id(cache, line, len, demangle, s, e)))
				goto done;
			depth++;
		}
		ev[n++] = v;
		if (n == TEXT_BLOCK && flush(s, ev, timed > 0 ? tsv : NULL, &n, e))
			goto done;
	}
	if (got < 0 || flush(s, ev, timed > 0 ? tsv : NULL, &n, e))
		goto done;
	rc = end_trace(s, unmatched, depth, e);
done:
	free(cache);
	free(L.buf);
	close(fd);
	return rc;
}

static int cmp_nat(const void *a, const void *b)
{
	return natcmp(*(char *const *)a, *(char *const *)b);
}

int import_text(const char *path, const dt_import_opts *o, dt_sink *s, dt_err *e)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return dt_err_at(e, path, -1, "cannot read: %s", strerror(errno));
	if (!S_ISDIR(st.st_mode)) {
		int mine = import_unit(o, e);
		return mine < 0 ? -1 : mine ? import_one(path, 0, !(o && o->no_demangle), s, e) : 0;
	}
	DIR *d = opendir(path);
	if (!d)
		return dt_err_at(e, path, -1, "cannot open directory: %s", strerror(errno));
	size_t plen = strlen(path);
	while (plen > 1 && path[plen - 1] == '/')
		plen--;
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		if (de->d_name[0] == '.' || l < 5 || strcmp(de->d_name + l - 4, ".txt"))
			continue;
		GROW(names, cap, n + 1);
		names[n++] = xstrdup(de->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof *names, cmp_nat);
	int rc = 0;
	if (!n)
		rc = dt_err_at(e, path, -1, "no *.txt trace files in this directory");
	/* Two files naming the same P.T would silently become two threads: refuse that. */
	int64_t *pid = xmalloc((n ? n : 1) * sizeof *pid), *tid = xmalloc((n ? n : 1) * sizeof *tid);
	for (size_t i = 0; i < n && !rc; i++) {
		text_id id;
		text_identity(names[i], (int64_t)i, &id);
		pid[i] = id.pid;
		tid[i] = id.tid;
	}
	size_t di, dj;
	if (!rc && ptdup_find(pid, tid, n, &di, &dj, NULL)) {
		char full[4096];
		snprintf(full, sizeof full, "%.*s/%s", (int)plen, path, names[di]);
		rc = dt_err_at(e, full, -1, "same process and thread numbers as %s: rename one",
			       names[dj]);
	}
	free(pid);
	free(tid);
	for (size_t i = 0; i < n && !rc; i++) {
		char full[4096];
		snprintf(full, sizeof full, "%.*s/%s", (int)plen, path, names[i]);
		int mine = import_unit(o, e);
		rc = mine < 0 ? -1 : mine ? import_one(full, (int64_t)i, !(o && o->no_demangle), s, e) : 0;
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}
