#define _POSIX_C_SOURCE 200809L
/* filter.c: reading filter family files, combining families into filters (names, the paper's
 * 16-character string, folder-style aliases), building the per-function keep table and
 * applying it to event streams. See filter.h for the semantics, difftrace-filters(5) for the
 * file format. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <dirent.h>
#include <errno.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "analysis/filter.h"
#include "import/sink.h"
#include "util/util.h"

#ifndef PKGDATADIR
#define PKGDATADIR "/usr/local/share/difftrace"
#endif

#define FILT_NAME_MAX 64

struct filt_lib {
	filt_family **fam; /* pointers, so families stay put when the array is re-sorted */
	size_t n, cap;
	unsigned origin; /* one per load call: two families of one name in one call is an error */
	/* families replaced by the current load call, put back if it fails */
	filt_family **old;
	size_t nold, capold;
};

struct filt {
	const filt_lib *lib;
	unsigned char *chosen; /* by family index */
	size_t n;
	int compat;
	char *canon, *alias;
};

/* ---- families ------------------------------------------------------------------------------ */

static void pattern_free(filt_pattern *p)
{
	free(p->text);
	pcre2_code_free(p->re);
}

static void family_free(filt_family *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->ninc; i++)
		pattern_free(&f->inc[i]);
	for (size_t i = 0; i < f->nexc; i++)
		pattern_free(&f->exc[i]);
	free(f->inc);
	free(f->exc);
	free(f->name);
	free(f->desc);
	free(f->token);
	free(f->file);
	free(f);
}

filt_lib *filt_lib_new(void)
{
	return xcalloc(1, sizeof(filt_lib));
}

void filt_lib_free(filt_lib *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++)
		family_free(l->fam[i]);
	free(l->fam);
	free(l->old);
	free(l);
}

size_t filt_lib_count(const filt_lib *l)
{
	return l->n;
}

const filt_family *filt_lib_family(const filt_lib *l, size_t i)
{
	return i < l->n ? l->fam[i] : NULL;
}

int filt_lib_find(const filt_lib *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->fam[i]->name, name))
			return (int)i;
	return -1;
}

void filt_lib_names(const filt_lib *l, char *buf, size_t n)
{
	size_t o = 0;
	if (n)
		buf[0] = 0;
	for (size_t i = 0; i < l->n && o < n; i++) {
		int w = snprintf(buf + o, n - o, "%s%s", i ? ", " : "", l->fam[i]->name);
		if (w < 0)
			break;
		o += (size_t)w;
	}
	if (!l->n)
		snprintf(buf, n, "(none)");
}

static int fam_order(const void *a, const void *b)
{
	const filt_family *x = *(const filt_family *const *)a, *y = *(const filt_family *const *)b;
	int bx = x->bit < 0 ? FILT_NBITS : x->bit, by = y->bit < 0 ? FILT_NBITS : y->bit;
	if (bx != by)
		return bx < by ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Positional bits appear in an alias as characters, the others as tokens. */
static int positional(int bit)
{
	return bit == 0 || bit == 1 || bit == FILT_NBITS - 1;
}

static const char *fam_token(const filt_family *f)
{
	return f->token ? f->token : f->name;
}

/* Of two families in conflict, the one read later is the one to blame. */
static const filt_family *later(const filt_family *a, const filt_family *b)
{
	if (a->origin != b->origin)
		return a->origin > b->origin ? a : b;
	return strcmp(a->file, b->file) > 0 ? a : b;
}

/* A bit or a token belongs to one family: checked after each load, so that a directory may
 * override a family by name and give its bit to another in any file order. */
static int lib_validate(filt_lib *l, dt_err *e)
{
	for (size_t i = 0; i < l->n; i++) {
		for (size_t j = i + 1; j < l->n; j++) {
			const filt_family *a = l->fam[i], *b = l->fam[j];
			if (a->bit >= 0 && a->bit == b->bit) {
				const filt_family *x = later(a, b), *y = x == a ? b : a;
				return dt_err_lc(e, x->file, x->bit_line, 1,
						 "bit %d already belongs to family '%s' (%s); "
						 "override that family by name to move the bit",
						 x->bit, y->name, y->file);
			}
			if (!positional(a->bit) && !positional(b->bit) &&
			    !strcmp(fam_token(a), fam_token(b))) {
				const filt_family *x = later(a, b), *y = x == a ? b : a;
				return dt_err_lc(e, x->file, x->token ? x->token_line : x->line, 1,
						 "token '%s' already belongs to family '%s' (%s)",
						 fam_token(x), y->name, y->file);
			}
		}
	}
	if (l->n)
		qsort(l->fam, l->n, sizeof *l->fam, fam_order);
	return 0;
}

static int lib_add(filt_lib *l, filt_family *f, dt_err *e)
{
	int i = filt_lib_find(l, f->name);
	if (i >= 0) {
		filt_family *old = l->fam[i];
		if (old->origin == f->origin) {
			dt_err_lc(e, f->file, f->line, 1, "family '%s' is already defined in %s:%d",
				  f->name, old->file, old->line);
			family_free(f);
			return -1;
		}
		GROW(l->old, l->capold, l->nold + 1);
		l->old[l->nold++] = old;
		l->fam[i] = f;
		return 0;
	}
	GROW(l->fam, l->cap, l->n + 1);
	l->fam[l->n++] = f;
	return 0;
}

/* ---- the file format ----------------------------------------------------------------------- */

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static int is_space(char c)
{
	return is_blank(c) || c == '\r' || c == '\v' || c == '\f';
}

static int is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Returns the 0-based offset of the first character that may not be in a name, or -1. */
static int bad_name_char(const char *s, size_t n)
{
	if (!n || !is_alpha(s[0]))
		return 0;
	for (size_t i = 1; i < n; i++)
		if (!is_alpha(s[i]) && !is_digit(s[i]) && s[i] != '_' && s[i] != '-')
			return (int)i;
	return n > FILT_NAME_MAX ? FILT_NAME_MAX : -1;
}

struct parse {
	const char *file;
	int line;
	filt_family *f;
	int seen_desc, seen_kind, seen_returns, returns_line;
	dt_err *e;
};

static int add_pattern(struct parse *p, int include, const char *v, size_t n, int col)
{
	int code;
	PCRE2_SIZE off;
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)v, n, 0, &code, &off, NULL);
	if (!re) {
		PCRE2_UCHAR msg[256];
		if (pcre2_get_error_message(code, msg, sizeof msg) < 0)
			snprintf((char *)msg, sizeof msg, "PCRE2 error %d", code);
		return dt_err_lc(p->e, p->file, p->line, col + (int)off, "%s", (char *)msg);
	}
	(void)pcre2_jit_compile(re, PCRE2_JIT_COMPLETE); /* the interpreter is the fallback */
	filt_family *f = p->f;
	filt_pattern **arr = include ? &f->inc : &f->exc;
	size_t *cnt = include ? &f->ninc : &f->nexc;
	*arr = xrealloc(*arr, (*cnt + 1) * sizeof **arr);
	filt_pattern *pat = &(*arr)[(*cnt)++];
	pat->text = xstrndup(v, n);
	pat->line = p->line;
	pat->col = col;
	pat->re = re;
	return 0;
}

static int set_name(struct parse *p, char **dst, const char *what, const char *v, size_t n, int col)
{
	if (*dst)
		return dt_err_lc(p->e, p->file, p->line, 1, "a second '%s:' line", what);
	int bad = bad_name_char(v, n);
	if (bad >= 0)
		return dt_err_lc(p->e, p->file, p->line, col + bad,
				 "a %s is a letter, then letters, digits, '_' or '-' (at most %d)",
				 what, FILT_NAME_MAX);
	*dst = xstrndup(v, n);
	return 0;
}

static int key_line(struct parse *p, const char *key, size_t klen, int kcol, const char *v,
		    size_t n, int col)
{
	filt_family *f = p->f;
#define KEY(s) (klen == sizeof(s) - 1 && !memcmp(key, s, klen))
	if (KEY("name")) {
		if (f->name)
			return dt_err_lc(p->e, p->file, p->line, kcol,
					 "one family per file ('%s' started at line %d)", f->name,
					 f->line);
		f->line = p->line;
		return set_name(p, &f->name, "name", v, n, col);
	}
	if (!f->name)
		return dt_err_lc(p->e, p->file, p->line, kcol,
				 "the first line must be 'name: NAME'");
	if (KEY("description")) {
		if (p->seen_desc++)
			return dt_err_lc(p->e, p->file, p->line, kcol,
					 "a second 'description:' line");
		f->desc = xstrndup(v, n);
		return 0;
	}
	if (KEY("token")) {
		f->token_line = p->line;
		return set_name(p, &f->token, "token", v, n, col);
	}
	if (KEY("bit")) {
		if (f->bit >= 0)
			return dt_err_lc(p->e, p->file, p->line, kcol, "a second 'bit:' line");
		int b = 0;
		for (size_t i = 0; i < n; i++) {
			if (!is_digit(v[i]) || i >= 2)
				return dt_err_lc(p->e, p->file, p->line, col + (int)i,
						 "a bit is a number from 0 to 15");
			b = b * 10 + (v[i] - '0');
		}
		if (b >= FILT_NBITS)
			return dt_err_lc(p->e, p->file, p->line, col,
					 "a bit is a number from 0 to 15");
		f->bit = b;
		f->bit_line = p->line;
		return 0;
	}
	if (KEY("kind")) {
		if (p->seen_kind++)
			return dt_err_lc(p->e, p->file, p->line, kcol, "a second 'kind:' line");
		if (n == 4 && !memcmp(v, "keep", 4))
			f->kind = FILT_KEEP;
		else if (n == 6 && !memcmp(v, "remove", 6))
			f->kind = FILT_REMOVE;
		else
			return dt_err_lc(p->e, p->file, p->line, col, "kind is 'keep' or 'remove'");
		return 0;
	}
	if (KEY("returns")) {
		if (p->seen_returns++)
			return dt_err_lc(p->e, p->file, p->line, kcol, "a second 'returns:' line");
		if (n == 3 && !memcmp(v, "yes", 3))
			f->returns = 1;
		else if (n == 2 && !memcmp(v, "no", 2))
			f->returns = 0;
		else
			return dt_err_lc(p->e, p->file, p->line, col, "returns is 'yes' or 'no'");
		p->returns_line = p->line;
		return 0;
	}
	if (KEY("include"))
		return add_pattern(p, 1, v, n, col);
	if (KEY("exclude"))
		return add_pattern(p, 0, v, n, col);
#undef KEY
	return dt_err_lc(p->e, p->file, p->line, kcol,
			 "unknown key '%.*s' (name, description, token, bit, kind, returns, "
			 "include, exclude)",
			 (int)(klen > 40 ? 40 : klen), key);
}

/* The rules between keys, checked once the whole family is read. */
static int family_check(struct parse *p)
{
	filt_family *f = p->f;
	if (!f->name)
		return dt_err_at(p->e, p->file, -1, "no 'name:' line: not a filter family");
	if (!f->desc)
		return dt_err_lc(p->e, p->file, f->line, 1,
				 "family '%s' has no 'description:' line", f->name);
	if ((f->bit == 0 || f->bit == 1) && f->kind != FILT_REMOVE)
		return dt_err_lc(p->e, p->file, f->bit_line, 1,
				 "bits 0 and 1 are the paper's removal bits: this family needs "
				 "'kind: remove'");
	if (f->bit > 1 && f->kind == FILT_REMOVE)
		return dt_err_lc(p->e, p->file, f->bit_line, 1,
				 "a 'kind: remove' family can only have bit 0 or 1");
	if (f->token && positional(f->bit))
		return dt_err_lc(p->e, p->file, f->token_line, 1,
				 "bits 0, 1 and 15 are written by position in aliases: no token");
	if (f->returns && (f->ninc || f->nexc))
		return dt_err_lc(p->e, p->file, p->returns_line, 1,
				 "a 'returns: yes' family stands for return events: no patterns");
	return 0;
}

static int parse_family(const char *text, size_t len, const char *file, filt_family **out,
			dt_err *e)
{
	struct parse p = { file, 0, xcalloc(1, sizeof(filt_family)), 0, 0, 0, 0, e };
	p.f->bit = -1;
	p.f->file = xstrdup(file);
	const char *nul = memchr(text, 0, len);
	size_t pos = 0;
	while (pos < len) {
		p.line++;
		const char *s = text + pos;
		const char *nl = memchr(s, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - s) : len - pos;
		pos += end + 1;
		if (nul && nul >= s && nul < s + end) {
			dt_err_lc(e, file, p.line, (int)(nul - s) + 1, "NUL byte: not a text file");
			goto fail;
		}
		size_t a = 0, b = end;
		while (b > a && is_space(s[b - 1]))
			b--;
		while (a < b && is_blank(s[a]))
			a++;
		if (a == b || s[a] == '#')
			continue;
		size_t k = a;
		while (k < b && s[k] >= 'a' && s[k] <= 'z')
			k++;
		size_t c = k;
		while (c < b && is_blank(s[c]))
			c++;
		if (k == a || c == b || s[c] != ':') {
			dt_err_lc(e, file, p.line, (int)(k == a ? a : c) + 1,
				  "expected 'KEY: VALUE' (or a '#' comment)");
			goto fail;
		}
		size_t v = c + 1;
		while (v < b && is_blank(s[v]))
			v++;
		if (v == b) {
			dt_err_lc(e, file, p.line, (int)v + 1, "'%.*s:' needs a value",
				  (int)(k - a), s + a);
			goto fail;
		}
		if (key_line(&p, s + a, k - a, (int)a + 1, s + v, b - v, (int)v + 1))
			goto fail;
	}
	if (family_check(&p))
		goto fail;
	*out = p.f;
	return 0;
fail:
	family_free(p.f);
	return -1;
}

/* Ends a load call: a call that failed leaves the library as it was before it. */
static int load_end(filt_lib *l, int r, dt_err *e)
{
	if (!r)
		r = lib_validate(l, e);
	if (r) {
		size_t k = 0;
		for (size_t i = 0; i < l->n; i++) {
			if (l->fam[i]->origin == l->origin)
				family_free(l->fam[i]);
			else
				l->fam[k++] = l->fam[i];
		}
		l->n = k;
		GROW(l->fam, l->cap, l->n + l->nold);
		for (size_t i = 0; i < l->nold; i++)
			l->fam[l->n++] = l->old[i];
		if (l->n)
			qsort(l->fam, l->n, sizeof *l->fam, fam_order);
	} else {
		for (size_t i = 0; i < l->nold; i++)
			family_free(l->old[i]);
	}
	l->nold = 0;
	return r;
}

static int load_text(filt_lib *l, const char *text, size_t len, const char *file, dt_err *e)
{
	filt_family *f;
	if (parse_family(text, len, file, &f, e))
		return -1;
	f->origin = l->origin;
	return lib_add(l, f, e);
}

int filt_lib_parse(filt_lib *l, const char *text, size_t len, const char *file, dt_err *e)
{
	l->origin++;
	return load_end(l, load_text(l, text, len, file, e), e);
}

static int load_file(filt_lib *l, const char *path, dt_err *e)
{
	uint8_t *data;
	size_t len;
	if (read_file(path, &data, &len, e))
		return -1;
	int r = load_text(l, (const char *)data, len, path, e);
	free(data);
	return r;
}

int filt_lib_load_file(filt_lib *l, const char *path, dt_err *e)
{
	l->origin++;
	return load_end(l, load_file(l, path, e), e);
}

static int str_order(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int filt_lib_load_dir(filt_lib *l, const char *dir, dt_err *e)
{
	DIR *d = opendir(dir);
	if (!d) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		return dt_err_at(e, dir, -1, "cannot read the directory: %s", strerror(errno));
	}
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		if (de->d_name[0] == '.' || len <= 7 || strcmp(de->d_name + len - 7, ".filter"))
			continue;
		GROW(names, cap, n + 1);
		names[n++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof *names, str_order);
	l->origin++;
	int r = 0;
	for (size_t i = 0; i < n; i++) {
		if (!r) {
			size_t dl = strlen(dir);
			char *path = xmalloc(dl + strlen(names[i]) + 2);
			sprintf(path, "%s%s%s", dir, dl && dir[dl - 1] == '/' ? "" : "/", names[i]);
			r = load_file(l, path, e);
			free(path);
		}
		free(names[i]);
	}
	free(names);
	return load_end(l, r, e);
}

static void dirs_add(filt_dirs *d, char *dir)
{
	d->dir = xrealloc(d->dir, (d->n + 1) * sizeof *d->dir);
	d->dir[d->n++] = dir;
}

void filt_dirs_default(filt_dirs *d)
{
	d->dir = NULL;
	d->n = 0;
	d->user = 0;
#ifdef SRCDIR_FILTERS
	/* A build that was never installed reads the families of its source tree, so that
	 * ./difftrace works straight after make. */
	struct stat st;
	if (stat(PKGDATADIR "/filters", &st) != 0 && stat(SRCDIR_FILTERS, &st) == 0)
		dirs_add(d, xstrdup(SRCDIR_FILTERS));
	else
#endif
		dirs_add(d, xstrdup(PKGDATADIR "/filters"));
	const char *path = getenv("DIFFTRACE_FILTER_PATH");
	while (path && *path) {
		const char *colon = strchr(path, ':');
		size_t len = colon ? (size_t)(colon - path) : strlen(path);
		if (len)
			dirs_add(d, xstrndup(path, len));
		path = colon ? colon + 1 : NULL;
	}
	/* XDG: a relative $XDG_CONFIG_HOME is invalid and must be ignored */
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	char *conf = NULL;
	if (xdg && xdg[0] == '/') {
		conf = xmalloc(strlen(xdg) + 32);
		sprintf(conf, "%s/difftrace/filters", xdg);
	} else if (home && *home) {
		conf = xmalloc(strlen(home) + 40);
		sprintf(conf, "%s/.config/difftrace/filters", home);
	}
	if (conf) {
		dirs_add(d, conf);
		d->user = 1;
	}
}

void filt_dirs_free(filt_dirs *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->dir[i]);
	free(d->dir);
	d->dir = NULL;
	d->n = 0;
}

int filt_lib_load_default(filt_lib *l, dt_err *e)
{
	filt_dirs d;
	filt_dirs_default(&d);
	int r = 0;
	/* the shipped directory, unreadable to this user (an install under a private directory),
	 * is passed over when DIFFTRACE_FILTER_PATH names the families' place */
	const char *env = getenv("DIFFTRACE_FILTER_PATH");
	int skip0 = env && *env && d.n && access(d.dir[0], R_OK | X_OK) != 0 && errno == EACCES;
	for (size_t i = skip0 ? 1 : 0; i < d.n && !r; i++) {
		/* the user's directory out of reach (a HOME this user cannot enter: a shared
		 * account's, a job's environment) holds no families of theirs: passed over. One
		 * that is there but unreadable is theirs, and an error. */
		struct stat st;
		if (d.user && i + 1 == d.n && stat(d.dir[i], &st) != 0 && errno == EACCES)
			continue;
		r = filt_lib_load_dir(l, d.dir[i], e);
	}
	filt_dirs_free(&d);
	return r;
}

/* ---- filters: combinations of families ----------------------------------------------------- */

static filt *filt_new(const filt_lib *l)
{
	filt *f = xcalloc(1, sizeof *f);
	f->lib = l;
	f->n = l->n;
	f->chosen = xcalloc(l->n, 1);
	return f;
}

void filt_free(filt *f)
{
	if (!f)
		return;
	free(f->chosen);
	free(f->canon);
	free(f->alias);
	free(f);
}

static int family_with_bit(const filt_lib *l, int bit)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->fam[i]->bit == bit)
			return (int)i;
	return -1;
}

static int name_order(const void *a, const void *b)
{
	const filt_family *x = *(const filt_family *const *)a, *y = *(const filt_family *const *)b;
	return strcmp(x->name, y->name);
}

static void make_names(filt *f)
{
	const filt_lib *l = f->lib;
	const filt_family **ch = xmalloc((f->n ? f->n : 1) * sizeof *ch);
	size_t k = 0;
	for (size_t i = 0; i < f->n; i++)
		if (f->chosen[i])
			ch[k++] = l->fam[i];
	qsort(ch, k, sizeof *ch, name_order);
	dt_buf b = { 0 };
	for (size_t i = 0; i < k; i++) {
		if (i)
			buf_byte(&b, ',');
		buf_put(&b, ch[i]->name, strlen(ch[i]->name));
	}
	if (f->compat)
		buf_put(&b, "+compat", 7);
	buf_byte(&b, 0);
	free(f->canon);
	f->canon = (char *)b.p;
	free(ch);

	/* alias: b0 b1 '.' tokens of bits 2-14 in bit order, then unnumbered families '.' b15 */
	dt_buf a = { 0 };
	int r0 = family_with_bit(l, 0), r1 = family_with_bit(l, 1);
	int ev = family_with_bit(l, FILT_NBITS - 1);
	buf_byte(&a, r0 >= 0 && f->chosen[r0] ? '0' : '1');
	buf_byte(&a, r1 >= 0 && f->chosen[r1] ? '0' : '1');
	buf_byte(&a, '.');
	for (size_t i = 0; i < f->n; i++) { /* the library is sorted by bit */
		if (!f->chosen[i] || positional(l->fam[i]->bit))
			continue;
		const char *t = fam_token(l->fam[i]);
		buf_put(&a, t, strlen(t));
		buf_byte(&a, '.');
	}
	buf_byte(&a, ev >= 0 && f->chosen[ev] ? '1' : '0');
	buf_byte(&a, 0);
	free(f->alias);
	f->alias = (char *)a.p;
}

/* Every filter must keep something: a combination of only returns or exclusions is a mistake. */
static int finish(filt *f, const char *text, filt **out, dt_err *e)
{
	int keeps = 0;
	for (size_t i = 0; i < f->n; i++)
		if (f->chosen[i] && f->lib->fam[i]->ninc)
			keeps = 1;
	if (!keeps) {
		filt_free(f);
		return dt_errf(e, DT_EUSAGE, "filter '%s' chooses no family that keeps calls",
			       text);
	}
	make_names(f);
	*out = f;
	return 0;
}

static int unknown(const filt_lib *l, filt *f, const char *what, const char *s, size_t n,
		   dt_err *e)
{
	char known[2048];
	filt_lib_names(l, known, sizeof known);
	filt_free(f);
	return dt_errf(e, DT_EUSAGE, "unknown filter %s '%.*s' (known families: %s)", what,
		       (int)(n > 64 ? 64 : n), s, known);
}

int filt_from_names(const filt_lib *l, const char *names, filt **out, dt_err *e)
{
	filt *f = filt_new(l);
	const char *s = names;
	for (;;) {
		const char *comma = strchr(s, ',');
		size_t n = comma ? (size_t)(comma - s) : strlen(s);
		while (n && is_space(*s)) {
			s++;
			n--;
		}
		while (n && is_space(s[n - 1]))
			n--;
		if (n) {
			char name[FILT_NAME_MAX + 1];
			int w = (int)(n > FILT_NAME_MAX ? FILT_NAME_MAX : n);
			snprintf(name, sizeof name, "%.*s", w, s);
			int i = n <= FILT_NAME_MAX ? filt_lib_find(l, name) : -1;
			if (i < 0)
				return unknown(l, f, "family", s, n, e);
			f->chosen[i] = 1;
		}
		if (!comma)
			break;
		s = comma + 1;
	}
	return finish(f, names, out, e);
}

static int choose_bit(const filt_lib *l, filt *f, int bit, const char *text, dt_err *e)
{
	int i = family_with_bit(l, bit);
	if (i < 0) {
		filt_free(f);
		return dt_errf(e, DT_EUSAGE, "filter '%s': no family has bit %d", text, bit);
	}
	f->chosen[i] = 1;
	return 0;
}

static int is_bits(const char *s)
{
	if (strlen(s) != FILT_NBITS)
		return 0;
	for (int i = 0; i < FILT_NBITS; i++)
		if (s[i] != '0' && s[i] != '1')
			return 0;
	return 1;
}

int filt_from_bits(const filt_lib *l, const char *bits, filt **out, dt_err *e)
{
	if (!is_bits(bits))
		return dt_errf(e, DT_EUSAGE, "filter string '%s' is not 16 characters of 0 and 1",
			       bits);
	filt *f = filt_new(l);
	for (int i = 0; i < FILT_NBITS; i++) {
		/* bits 0 and 1 remove when set: their families are chosen by a 0 */
		int on = i < 2 ? bits[i] == '0' : bits[i] == '1';
		if (on && choose_bit(l, f, i, bits, e))
			return -1;
	}
	return finish(f, bits, out, e);
}

static int token_find(const filt_lib *l, const char *s, size_t n)
{
	for (size_t i = 0; i < l->n; i++) {
		const char *t = fam_token(l->fam[i]);
		if (!positional(l->fam[i]->bit) && strlen(t) == n && !memcmp(t, s, n))
			return (int)i;
	}
	for (size_t i = 0; i < l->n; i++)
		if (strlen(l->fam[i]->name) == n && !memcmp(l->fam[i]->name, s, n))
			return (int)i;
	return -1;
}

static int is_alias(const char *s)
{
	return (s[0] == '0' || s[0] == '1') && (s[1] == '0' || s[1] == '1') && s[2] == '.';
}

int filt_from_alias(const filt_lib *l, const char *alias, filt **out, int *k, dt_err *e)
{
	const char *last = strrchr(alias, '.');
	if (!is_alias(alias) || !last || (last[1] != '0' && last[1] != '1'))
		return dt_errf(e, DT_EUSAGE,
			       "filter alias '%s' is not like 11.mpi.cust.0 (two 0/1 characters, "
			       "tokens, a 0/1 character, an optional K<n>)",
			       alias);
	const char *tail = last + 2;
	long kv = -1;
	if (*tail == 'K' && is_digit(tail[1])) {
		char *end;
		errno = 0;
		kv = strtol(tail + 1, &end, 10);
		if (!errno && kv <= 1 << 20)
			tail = end; /* else reported below */
	}
	if (*tail)
		return dt_errf(e, DT_EUSAGE, "filter alias '%s': unexpected '%s' at the end", alias,
			       tail);
	filt *f = filt_new(l);
	if ((alias[0] == '0' && choose_bit(l, f, 0, alias, e)) ||
	    (alias[1] == '0' && choose_bit(l, f, 1, alias, e)) ||
	    (last[1] == '1' && choose_bit(l, f, FILT_NBITS - 1, alias, e)))
		return -1;
	for (const char *s = alias + 3; s < last;) {
		const char *dot = strchr(s, '.');
		size_t n = (size_t)(dot - s);
		int i = n ? token_find(l, s, n) : -1;
		if (i < 0)
			return unknown(l, f, "token", s, n, e);
		f->chosen[i] = 1;
		s = dot + 1;
	}
	if (k)
		*k = (int)kv;
	return finish(f, alias, out, e);
}

int filt_parse(const filt_lib *l, const char *text, filt **f, dt_err *e)
{
	if (is_bits(text))
		return filt_from_bits(l, text, f, e);
	if (is_alias(text))
		return filt_from_alias(l, text, f, NULL, e);
	return filt_from_names(l, text, f, e);
}

void filt_compat_duplicates(filt *f, int on)
{
	f->compat = !!on;
	make_names(f);
}

const char *filt_canonical(const filt *f)
{
	return f->canon;
}

const char *filt_alias(const filt *f)
{
	return f->alias;
}

int filt_bits(const filt *f, char *buf, dt_err *e)
{
	memset(buf, '0', FILT_NBITS);
	buf[0] = buf[1] = '1';
	buf[FILT_NBITS] = 0;
	for (size_t i = 0; i < f->n; i++) {
		const filt_family *x = f->lib->fam[i];
		if (!f->chosen[i])
			continue;
		if (x->bit < 0)
			return dt_errf(e, DT_EUSAGE,
				       "family '%s' has no bit: filter %s has no 16-character "
				       "string",
				       x->name, f->canon);
		buf[x->bit] = x->bit < 2 ? '0' : '1';
	}
	return 0;
}

int filt_chosen(const filt *f, size_t family)
{
	return family < f->n && f->chosen[family];
}

int filt_keeps_returns(const filt *f)
{
	for (size_t i = 0; i < f->n; i++)
		if (f->chosen[i] && f->lib->fam[i]->returns)
			return 1;
	return 0;
}

static void digest_str(dt_buf *b, const char *s)
{
	buf_put(b, s, strlen(s) + 1);
}

uint64_t filt_digest(const filt *f)
{
	dt_buf b = { 0 };
	buf_byte(&b, (uint8_t)f->compat);
	for (size_t i = 0; i < f->n; i++) {
		const filt_family *x = f->lib->fam[i];
		if (!f->chosen[i] && x->kind != FILT_REMOVE)
			continue;
		digest_str(&b, x->name);
		buf_byte(&b, (uint8_t)(f->chosen[i] | x->kind << 1 | x->returns << 2));
		for (size_t j = 0; j < x->ninc; j++)
			digest_str(&b, x->inc[j].text);
		buf_byte(&b, 0xff);
		for (size_t j = 0; j < x->nexc; j++)
			digest_str(&b, x->exc[j].text);
		buf_byte(&b, 0xfe);
	}
	uint64_t h = hash_bytes(b.p, b.len);
	buf_free(&b);
	return h;
}

/* ---- deciding one name --------------------------------------------------------------------- */

/* 1 match, 0 no match, -1 error (a match limit, say). */
static int match(const filt_pattern *p, const char *name, size_t len, pcre2_match_data *md,
		 const filt_family *fam, dt_err *e)
{
	int r = pcre2_match(p->re, (PCRE2_SPTR)name, len, 0, 0, md, NULL);
	if (r >= 0)
		return 1;
	if (r == PCRE2_ERROR_NOMATCH)
		return 0;
	PCRE2_UCHAR msg[256];
	if (pcre2_get_error_message(r, msg, sizeof msg) < 0)
		snprintf((char *)msg, sizeof msg, "PCRE2 error %d", r);
	return dt_err_lc(e, fam->file, p->line, p->col, "matching '%.200s': %s", name, (char *)msg);
}

static int decide(const filt *f, const char *name, pcre2_match_data *md, filt_why *w,
		  dt_err *e)
{
	const filt_lib *l = f->lib;
	size_t len = strlen(name);
	memset(w, 0, sizeof *w);
	int r;
	for (size_t i = 0; i < f->n; i++) {
		const filt_family *x = l->fam[i];
		for (size_t j = 0; x->kind == FILT_REMOVE && !f->chosen[i] && j < x->ninc; j++) {
			if ((r = match(&x->inc[j], name, len, md, x, e)) < 0)
				return -1;
			if (r) {
				*w = (filt_why){ 0, 1, x, &x->inc[j] };
				return 0;
			}
		}
		for (size_t j = 0; f->chosen[i] && j < x->nexc; j++) {
			if ((r = match(&x->exc[j], name, len, md, x, e)) < 0)
				return -1;
			if (r) {
				*w = (filt_why){ 0, 1, x, &x->exc[j] };
				return 0;
			}
		}
	}
	for (size_t i = 0; i < f->n; i++) {
		const filt_family *x = l->fam[i];
		for (size_t j = 0; f->chosen[i] && j < x->ninc; j++) {
			if ((r = match(&x->inc[j], name, len, md, x, e)) < 0)
				return -1;
			if (!r)
				continue;
			if (!w->pat) {
				w->fam = x;
				w->pat = &x->inc[j];
			}
			if (!f->compat)
				return w->copies = 1, 0;
			/* the prototype appended once per matching pattern of bits 2-15; the
			 * removal bits only removed */
			if (x->kind == FILT_KEEP && w->copies < 255)
				w->copies++;
		}
	}
	return 0;
}

int filt_explain(const filt *f, const char *name, filt_why *w, dt_err *e)
{
	pcre2_match_data *md = pcre2_match_data_create(1, NULL);
	if (!md)
		return dt_errf(e, DT_EDATA, "out of memory for PCRE2 match data");
	int r = decide(f, name, md, w, e);
	pcre2_match_data_free(md);
	return r;
}

/* ---- the keep table ------------------------------------------------------------------------ */

int filt_table_build(const filt *f, const char *const *names, size_t n, filt_table *t,
		     dt_err *e)
{
	memset(t, 0, sizeof *t);
	pcre2_match_data *md = pcre2_match_data_create(1, NULL);
	if (!md)
		return dt_errf(e, DT_EDATA, "out of memory for PCRE2 match data");
	t->keep = xcalloc(n ? n : 1, 1);
	t->n = n;
	t->compat = f->compat;
	t->keep_returns = filt_keeps_returns(f);
	t->max_copies = 1;
	filt_why w;
	for (size_t id = 1; id < n; id++) {
		if (!names[id])
			continue;
		if (decide(f, names[id], md, &w, e)) {
			pcre2_match_data_free(md);
			filt_table_free(t);
			return -1;
		}
		t->keep[id] = (uint8_t)w.copies;
		t->nkept += w.copies > 0;
		if (w.copies > t->max_copies)
			t->max_copies = (uint8_t)w.copies;
	}
	if (t->compat && t->keep_returns) {
		/* the prototype named a return "[ret]" and ran it through the keep patterns, so
		 * only `everything` kept it */
		if (decide(f, "[ret]", md, &w, e)) {
			pcre2_match_data_free(md);
			filt_table_free(t);
			return -1;
		}
		t->ret_copies = (uint8_t)w.copies;
		if (w.copies > t->max_copies)
			t->max_copies = (uint8_t)w.copies;
	}
	pcre2_match_data_free(md);
	return 0;
}

void filt_table_free(filt_table *t)
{
	free(t->keep);
	memset(t, 0, sizeof *t);
}

/* ---- applying the table -------------------------------------------------------------------- */

void filt_stream_init(filt_stream *s, const filt_table *t)
{
	memset(s, 0, sizeof *s);
	s->t = t;
}

void filt_stream_free(filt_stream *s)
{
	free(s->deep);
	memset(s, 0, sizeof *s);
}

uint64_t filt_stream_depth(const filt_stream *s)
{
	return (uint64_t)s->ndeep + s->ntop;
}

static size_t apply_compat(filt_stream *s, const uint32_t *in, size_t n, uint32_t *out)
{
	const filt_table *t = s->t;
	size_t j = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t v = in[i];
		unsigned c = v == DT_RET ? (t->keep_returns ? t->ret_copies : 0)
					 : v < t->n ? t->keep[v] : 0;
		while (c--)
			out[j++] = v;
	}
	return j;
}

/* The hot loops write every event and advance the output by its keep flag, with no branch
 * that depends on the data: an id outside the table reads keep[0] (DT_RET, 0) through a
 * conditional move. */
static size_t flat(const filt_table *t, const uint32_t *in, size_t n, uint32_t *out)
{
	const uint8_t *keep = t->keep;
	const size_t tn = t->n;
	size_t j = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t v = in[i];
		size_t x = v < tn ? v : 0;
		out[j] = v;
		j += keep[x];
	}
	return j;
}

/* Returns are kept when the call they close was. The kept flags of the open calls form a bit
 * stack whose innermost flags live in a register (top, innermost in bit 0, zeros above the
 * ntop valid flags), the outer ones in memory (deep, a byte each). Events go in chunks of
 * FILT_CHUNK: before each, the register is brought to between FILT_CHUNK and 63 - FILT_CHUNK
 * flags (or all of them, when the stack is shallower), so inside a chunk nothing can overflow
 * and popping past the bottom only happens when the stack is really empty. Such a return has
 * no open call: it pops a 0 flag (dropped) from the zeros of the register, and the running
 * minimum of the depth counts it. Calls and returns take one path without branches, because
 * they alternate too irregularly for a branch predictor. */
enum { FILT_CHUNK = 16, FILT_MID = 32 };

static void rebalance(filt_stream *s)
{
	if (s->ntop > 63 - FILT_CHUNK) { /* spill the outermost flags */
		GROW(s->deep, s->capdeep, s->ndeep + s->ntop - FILT_MID);
		for (unsigned b = s->ntop; b-- > FILT_MID;)
			s->deep[s->ndeep++] = (uint8_t)(s->top >> b & 1);
		s->top &= ((uint64_t)1 << FILT_MID) - 1;
		s->ntop = FILT_MID;
	} else if (s->ntop < FILT_CHUNK) { /* reload the innermost of the spilled flags */
		while (s->ntop < FILT_MID && s->ndeep)
			s->top |= (uint64_t)s->deep[--s->ndeep] << s->ntop++;
	}
}

static size_t nested(filt_stream *s, const uint32_t *in, size_t n, uint32_t *out)
{
	const uint8_t *keep = s->t->keep;
	const size_t tn = s->t->n;
	size_t j = 0;
	for (size_t i = 0; i < n; i += FILT_CHUNK) {
		rebalance(s);
		size_t e = n - i < FILT_CHUNK ? n : i + FILT_CHUNK;
		uint64_t w = s->top;
		int64_t m = s->ntop, low = 0;
		for (size_t k = i; k < e; k++) {
			uint32_t v = in[k];
			uint64_t kc = keep[v < tn ? v : 0]; /* 0 for a return */
			uint64_t r = v == DT_RET;
			out[j] = v;
			j += kc | (w & r);
			w = ((w << 1) | kc) >> (2 * r); /* push kc, or pop (kc is 0) */
			m += 1 - 2 * (int64_t)r;
			low = m < low ? m : low;
		}
		s->unmatched += (uint64_t)-low; /* returns below depth 0 */
		s->top = w;
		s->ntop = (unsigned)(m - low);
	}
	return j;
}

size_t filt_stream_apply(filt_stream *s, const uint32_t *in, size_t n, uint32_t *out)
{
	const filt_table *t = s->t;
	if (t->compat)
		return apply_compat(s, in, n, out);
	return t->keep_returns ? nested(s, in, n, out) : flat(t, in, n, out);
}
