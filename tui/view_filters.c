/* view_filters.c: the filter families, to choose the interface's filter, attribute mode and K.
 *
 * One line per family (difftrace-filters(5)) with a [x] toggle, its bit in the paper's string,
 * its pattern count and description; its patterns can be unfolded under it. The choice is
 * pending until `a` applies it with tui_set_params: the views reopen and their analyses are
 * computed in the background. The header shows what applying would give (the paper's
 * folder-style alias, the family names, attributes, K).
 *
 * A custom pattern typed on the last line is checked with PCRE2 exactly as the filter module
 * compiles it (error and column, or how many of the store's function names it matches) and
 * added to the family `custom-tui`, written to the user's filter directory
 * ($XDG_CONFIG_HOME/difftrace/filters or ~/.config/difftrace/filters), where the analysis,
 * which loads the same directories, finds it by name. */
#define _POSIX_C_SOURCE 200809L
#define PCRE2_CODE_UNIT_WIDTH 8
#include <errno.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/attrs.h"
#include "analysis/filter.h"
#include "tui.h"
#include "util/util.h"

#define CUSTOM_FAMILY "custom-tui"
#define CUSTOM_FILE CUSTOM_FAMILY ".filter"

static int custom_path(char *buf, size_t n, int create, dt_err *e);

enum { L_LOADERR, L_FAMILY, L_PATTERN, L_CUSTOM };

struct fline {
	int kind;
	size_t fam;
	size_t pat; /* L_PATTERN: includes first, then excludes */
};

struct filters {
	filt_lib *lib;
	char load_err[700];     /* a family file that failed to load (the others still show) */
	unsigned char *chosen;  /* per family of lib: in the pending filter */
	unsigned char *unfold;  /* per family: its patterns are shown */
	struct fline *lines;
	size_t nlines;
	char synced[320];       /* the parameters the pending choice was last taken from */
	char applied[256];      /* their filter's canonical names */
	char attrs[32];         /* pending attribute mode */
	enum attrs_pairs pairs; /* the doub pairing to come back to when cycling through sing */
	unsigned k;             /* pending K */
	char alias[256], canon[512], err[700]; /* the pending filter, or why there is none */
	char custom[1024];      /* the last custom pattern typed */
	char note[700];         /* what became of it */
	int custom_bad;
};

static const tui_keyhelp keys[] = {
	{ "Space  Enter", "choose the family, or not" },
	{ "p", "show, hide the family's patterns" },
	{ "c", "a custom pattern, added to family " CUSTOM_FAMILY },
	{ "D", "remove a " CUSTOM_FAMILY " pattern, or the family" },
	{ "m  M", "the next, previous attribute mode" },
	{ "A", "MPI arguments in the attributes (.args), or not" },
	{ "+  -", "K up, down (1 to 32)" },
	{ "K", "type K" },
	{ "a", "apply: filter, attrs, K (analyses run behind)" },
	{ "u", "undo: back to the parameters in use" },
	{ NULL, NULL },
};

/* ---- the pending choice ---- */

static void join_chosen(const struct filters *d, dt_buf *b)
{
	for (size_t i = 0; i < filt_lib_count(d->lib); i++) {
		if (!d->chosen[i])
			continue;
		if (b->len)
			buf_byte(b, ',');
		const char *name = filt_lib_family(d->lib, i)->name;
		buf_put(b, name, strlen(name));
	}
	buf_byte(b, 0);
}

static void update_pending(struct filters *d)
{
	d->alias[0] = d->canon[0] = d->err[0] = 0;
	dt_buf b = { 0 };
	join_chosen(d, &b);
	if (!b.p[0]) {
		snprintf(d->err, sizeof d->err, "no family is chosen");
		buf_free(&b);
		return;
	}
	filt *f;
	dt_err e;
	dt_err_clear(&e);
	if (filt_from_names(d->lib, (const char *)b.p, &f, &e)) {
		snprintf(d->err, sizeof d->err, "%s", e.msg);
	} else {
		snprintf(d->alias, sizeof d->alias, "%s", filt_alias(f));
		snprintf(d->canon, sizeof d->canon, "%s", filt_canonical(f));
		filt_free(f);
	}
	buf_free(&b);
}

/* The choice from the parameters in use. */
static void sync_params(tui *t, struct filters *d)
{
	const tui_params *p = tui_get_params(t);
	size_t n = filt_lib_count(d->lib);
	memset(d->chosen, 0, n ? n : 1);
	d->applied[0] = 0;
	filt *f;
	dt_err e;
	dt_err_clear(&e);
	if (filt_parse(d->lib, p->filter, &f, &e) == 0) {
		for (size_t i = 0; i < n; i++)
			d->chosen[i] = (unsigned char)filt_chosen(f, i);
		snprintf(d->applied, sizeof d->applied, "%s", filt_canonical(f));
		filt_free(f);
	} else {
		tui_msg(t, ST_WARN, "the filter in use: %s", e.msg);
	}
	snprintf(d->attrs, sizeof d->attrs, "%s", p->attrs);
	attrs_mode m;
	int args;
	d->pairs = attrs_mode_parse_args(p->attrs, &m, &args, &e) == 0 && m.kind == ATTRS_DOUB
			   ? m.pairs
			   : ATTRS_W;
	d->k = p->k;
	snprintf(d->synced, sizeof d->synced, "%s|%s|%u", p->filter, p->attrs, p->k);
}

static int pending_applied(tui *t, const struct filters *d)
{
	const tui_params *p = tui_get_params(t);
	return !d->err[0] && !strcmp(d->canon, d->applied) && !strcmp(d->attrs, p->attrs) &&
	       d->k == p->k;
}

/* ---- lines ---- */

static void build_lines(struct filters *d)
{
	free(d->lines);
	size_t n = filt_lib_count(d->lib), cap = 2 + n;
	for (size_t i = 0; i < n; i++)
		if (d->unfold[i])
			cap += filt_lib_family(d->lib, i)->ninc + filt_lib_family(d->lib, i)->nexc;
	d->lines = xmalloc(cap * sizeof *d->lines);
	d->nlines = 0;
	if (d->load_err[0])
		d->lines[d->nlines++] = (struct fline){ L_LOADERR, 0, 0 };
	for (size_t i = 0; i < n; i++) {
		d->lines[d->nlines++] = (struct fline){ L_FAMILY, i, 0 };
		if (!d->unfold[i])
			continue;
		const filt_family *f = filt_lib_family(d->lib, i);
		for (size_t k = 0; k < f->ninc + f->nexc; k++)
			d->lines[d->nlines++] = (struct fline){ L_PATTERN, i, k };
	}
	d->lines[d->nlines++] = (struct fline){ L_CUSTOM, 0, 0 };
}

/* The families' choices and unfolding by name, across a reload of the library. */
struct saved {
	char **name;
	unsigned char *flags; /* 1 chosen, 2 unfolded */
	size_t n;
};

static void save_state(const struct filters *d, struct saved *s)
{
	size_t n = d->lib ? filt_lib_count(d->lib) : 0;
	s->name = xmalloc((n ? n : 1) * sizeof *s->name);
	s->flags = xmalloc(n ? n : 1);
	s->n = 0;
	for (size_t i = 0; i < n; i++) {
		if (!d->chosen[i] && !d->unfold[i])
			continue;
		s->name[s->n] = xstrdup(filt_lib_family(d->lib, i)->name);
		s->flags[s->n++] = (unsigned char)(d->chosen[i] | d->unfold[i] << 1);
	}
}

static void restore_state(struct filters *d, struct saved *s, int choices)
{
	for (size_t i = 0; i < s->n; i++) {
		int k = filt_lib_find(d->lib, s->name[i]);
		if (k >= 0) {
			if (choices)
				d->chosen[k] = s->flags[i] & 1;
			d->unfold[k] = (s->flags[i] >> 1) & 1;
		}
		free(s->name[i]);
	}
	free(s->name);
	free(s->flags);
}

static int filters_open(tui *t, view *v)
{
	struct filters *d = v->data;
	struct saved s;
	save_state(d, &s);
	filt_lib_free(d->lib);
	free(d->chosen);
	free(d->unfold);
	d->lib = filt_lib_new();
	dt_err e;
	dt_err_clear(&e);
	d->load_err[0] = 0;
	if (filt_lib_load_default(d->lib, &e)) {
		dt_err_format(&e, d->load_err, sizeof d->load_err);
		tui_msg(t, ST_WARN, "%s", d->load_err);
	}
	size_t n = filt_lib_count(d->lib);
	d->chosen = xcalloc(n ? n : 1, 1);
	d->unfold = xcalloc(n ? n : 1, 1);
	/* the parameters changed under the view (:filter, another view): start from them; else
	 * keep the pending choice */
	const tui_params *p = tui_get_params(t);
	char now[sizeof d->synced];
	snprintf(now, sizeof now, "%s|%s|%u", p->filter, p->attrs, p->k);
	int resync = strcmp(now, d->synced) != 0;
	restore_state(d, &s, !resync);
	if (resync) {
		sync_params(t, d);
	} else {
		/* the applied filter's families may have changed on disk */
		filt *f;
		dt_err_clear(&e);
		if (filt_parse(d->lib, p->filter, &f, &e) == 0) {
			snprintf(d->applied, sizeof d->applied, "%s", filt_canonical(f));
			filt_free(f);
		}
	}
	update_pending(d);
	build_lines(d);
	v->nlines = d->nlines;
	snprintf(v->title, sizeof v->title, "difftrace: filter families (%zu)", n);
	return 0;
}

static void filters_header(tui *t, view *v, tui_out *o)
{
	struct filters *d = v->data;
	if (d->err[0]) {
		out_printf(o, ST_WARN, "filter: %s", d->err);
		return;
	}
	out_text(o, ST_HEADER, "filter ");
	out_text(o, ST_KEY, d->alias);
	out_printf(o, ST_NORMAL, "  attrs %s  K %u  ", d->attrs, d->k);
	if (pending_applied(t, d))
		out_text(o, ST_DIM, "(in use)");
	else
		out_text(o, ST_WARN, "* a applies");
	out_printf(o, ST_DIM, "  = %s", d->canon);
}

static void filters_line(tui *t, view *v, size_t i, tui_out *o)
{
	struct filters *d = v->data;
	const struct fline *l = &d->lines[i];
	if (l->kind == L_LOADERR) {
		out_text(o, ST_WARN, d->load_err);
		return;
	}
	if (l->kind == L_CUSTOM) {
		out_text(o, ST_KEY, "custom pattern (c): ");
		if (!d->custom[0]) {
			char path[4200];
			dt_err e;
			dt_err_clear(&e);
			out_text(o, ST_DIM, "type a PCRE2 pattern; it joins family " CUSTOM_FAMILY);
			if (!custom_path(path, sizeof path, 0, &e))
				out_printf(o, ST_DIM, ", saved in %s", path);
			return;
		}
		out_text(o, ST_NORMAL, d->custom);
		out_text(o, ST_DIM, "  -> ");
		out_text(o, d->custom_bad ? ST_WARN : ST_DIM, d->note);
		return;
	}
	const filt_family *f = filt_lib_family(d->lib, l->fam);
	if (l->kind == L_PATTERN) {
		int inc = l->pat < f->ninc;
		const filt_pattern *p = inc ? &f->inc[l->pat] : &f->exc[l->pat - f->ninc];
		out_text(o, ST_DIM, inc ? "      include  " : "      exclude  ");
		out_text(o, inc ? ST_NORMAL : ST_LEFT, p->text);
		return;
	}
	(void)t;
	out_text(o, ST_KEY, d->chosen[l->fam] ? "[x] " : "[ ] ");
	out_printf(o, d->chosen[l->fam] ? ST_HEADER : ST_NORMAL, "%-12s", f->name);
	if (f->bit >= 0)
		out_printf(o, ST_NORMAL, " bit %2d", f->bit);
	else
		out_text(o, ST_DIM, " bit  -");
	if (f->returns)
		out_text(o, ST_NORMAL, "     returns");
	else
		out_printf(o, ST_NORMAL, " %3zu pattern%s", f->ninc + f->nexc,
			   f->ninc + f->nexc == 1 ? " " : "s");
	out_text(o, ST_DIM, d->unfold[l->fam] ? " v " : "   ");
	out_text(o, ST_NORMAL, f->desc);
}

/* ---- custom patterns ---- */

/* Checks a pattern as the filter module compiles it; note gets the error with its column, or
 * how many of the store's function names it matches. Returns 0 when it is usable. It runs after
 * every keystroke of the prompt. */
static int check_pattern(tui *t, const char *pat, char *note, size_t n)
{
	size_t len = strlen(pat);
	if (!len) {
		snprintf(note, n, "an empty pattern");
		return -1;
	}
	if (pat[0] == ' ' || pat[0] == '\t' || pat[len - 1] == ' ' || pat[len - 1] == '\t') {
		snprintf(note, n,
			 "column %zu: a family file trims blanks around a pattern: write \\x20",
			 pat[0] == ' ' || pat[0] == '\t' ? (size_t)1 : len);
		return -1;
	}
	int code;
	PCRE2_SIZE off;
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)pat, len, 0, &code, &off, NULL);
	if (!re) {
		PCRE2_UCHAR msg[256];
		if (pcre2_get_error_message(code, msg, sizeof msg) < 0)
			snprintf((char *)msg, sizeof msg, "PCRE2 error %d", code);
		snprintf(note, n, "column %zu: %s", (size_t)off + 1, (char *)msg);
		return -1;
	}
	size_t nnames = 0, total = 0, hits = 0;
	const char *const *names = store_func_names(tui_store(t), &nnames);
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
	const char *example = NULL;
	for (size_t i = 0; names && i < nnames; i++) {
		if (!names[i])
			continue;
		total++;
		if (pcre2_match(re, (PCRE2_SPTR)names[i], strlen(names[i]), 0, 0, md, NULL) >= 0) {
			if (!hits++)
				example = names[i];
		}
	}
	if (hits)
		snprintf(note, n, "matches %zu of %zu function names (%s%s)", hits, total, example,
			 hits > 1 ? ", ..." : "");
	else
		snprintf(note, n, "matches none of the store's %zu function names", total);
	pcre2_match_data_free(md);
	pcre2_code_free(re);
	return 0;
}

/* The user's filter directory, as filt_dirs_default reads it; created when asked. */
static int custom_path(char *buf, size_t n, int create, dt_err *e)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	char dir[4096];
	if (xdg && xdg[0] == '/')
		snprintf(dir, sizeof dir, "%s/difftrace/filters", xdg);
	else if (home && *home)
		snprintf(dir, sizeof dir, "%s/.config/difftrace/filters", home);
	else
		return dt_errf(e, DT_EUSAGE, "neither XDG_CONFIG_HOME nor HOME is set: no place for "
					     "the custom family");
	if (create) {
		/* mkdir -p: every prefix ending before a '/' */
		for (char *s = dir + 1;; s++) {
			if (*s != '/' && *s)
				continue;
			char c = *s;
			*s = 0;
			if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
				dt_errf(e, DT_EUSAGE, "cannot create %s: %s", dir, strerror(errno));
				*s = c;
				return -1;
			}
			*s = c;
			if (!c)
				break;
		}
	}
	if ((size_t)snprintf(buf, n, "%s/%s", dir, CUSTOM_FILE) >= n)
		return dt_errf(e, DT_EUSAGE, "the path of the custom family is too long");
	return 0;
}

/* Writes text to path through a temporary file, so that a half-written family never loads. */
static int write_family(const char *path, const char *text, dt_err *e)
{
	char tmp[4200];
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (!f)
		return dt_errf(e, DT_EUSAGE, "cannot write %s: %s", tmp, strerror(errno));
	int bad = fputs(text, f) < 0;
	bad |= fclose(f) != 0;
	if (bad || rename(tmp, path) != 0) {
		int err = errno;
		remove(tmp);
		return dt_errf(e, DT_EUSAGE, "cannot write %s: %s", path, strerror(err));
	}
	return 0;
}

/* The family file with text replacing it, checked by the filter module's own parser first. */
static int replace_family(const char *path, const char *text, dt_err *e)
{
	filt_lib *l = filt_lib_new();
	int r = filt_lib_parse(l, text, strlen(text), path, e);
	filt_lib_free(l);
	return r ? r : write_family(path, text, e);
}

static int add_custom(const char *pat, dt_err *e)
{
	char path[4200];
	if (custom_path(path, sizeof path, 1, e))
		return -1;
	uint8_t *old = NULL;
	size_t len = 0;
	dt_err ignore;
	dt_err_clear(&ignore);
	dt_buf b = { 0 };
	if (read_file(path, &old, &len, &ignore) == 0 && len) {
		buf_put(&b, old, len);
		if (old[len - 1] != '\n')
			buf_byte(&b, '\n');
	} else {
		static const char head[] =
			"# " CUSTOM_FILE ": patterns typed in the Filters view of difftrace tui.\n"
			"name: " CUSTOM_FAMILY "\n"
			"description: patterns typed in the interface (c in the Filters view)\n";
		buf_put(&b, head, sizeof head - 1);
	}
	free(old);
	buf_put(&b, "include: ", 9);
	buf_put(&b, pat, strlen(pat));
	buf_put(&b, "\n", 2); /* with the NUL */
	int r = replace_family(path, (const char *)b.p, e);
	buf_free(&b);
	return r;
}

/* Removes line `line` (1-based) of the custom family's file, or the whole file when line is 0
 * or no pattern would be left. */
static int remove_custom(const filt_family *f, int line, dt_err *e)
{
	if (!line || f->ninc + f->nexc <= 1) {
		if (unlink(f->file) != 0)
			return dt_errf(e, DT_EUSAGE, "cannot remove %s: %s", f->file, strerror(errno));
		return 0;
	}
	uint8_t *old;
	size_t len;
	if (read_file(f->file, &old, &len, e))
		return -1;
	dt_buf b = { 0 };
	int ln = 1;
	for (size_t i = 0; i < len; i++) {
		if (ln != line)
			buf_byte(&b, old[i]);
		if (old[i] == '\n')
			ln++;
	}
	buf_byte(&b, 0);
	free(old);
	int r = replace_family(f->file, (const char *)b.p, e);
	buf_free(&b);
	return r;
}

/* The prompt's check: the pattern's error with its column, or what it matches, as it is typed. */
static void live_check(void *arg, const char *text, tui_out *o)
{
	char note[256];
	int bad = check_pattern(arg, text, note, sizeof note);
	out_text(o, bad ? ST_WARN : ST_DIM, *text ? note : "type a PCRE2 pattern");
}

static void custom(tui *t, struct filters *d, view *v)
{
	/* checked after every key; a rejected pattern is kept to be edited again with c */
	char *s = tui_prompt_check(t, "custom pattern (PCRE2): ", d->custom, live_check, t);
	if (!s)
		return;
	snprintf(d->custom, sizeof d->custom, "%s", s);
	free(s);
	d->custom_bad = check_pattern(t, d->custom, d->note, sizeof d->note) != 0;
	if (d->custom_bad) {
		tui_msg(t, ST_WARN, "pattern rejected: %s", d->note);
		return;
	}
	int k = filt_lib_find(d->lib, CUSTOM_FAMILY);
	if (k >= 0) {
		const filt_family *f = filt_lib_family(d->lib, (size_t)k);
		for (size_t i = 0; i < f->ninc; i++)
			if (!strcmp(f->inc[i].text, d->custom)) {
				d->chosen[k] = 1;
				update_pending(d);
				tui_msg(t, ST_DIM, "'%s' is already in family %s; a applies", d->custom,
					CUSTOM_FAMILY);
				return;
			}
	}
	dt_err e;
	dt_err_clear(&e);
	if (add_custom(d->custom, &e)) {
		d->custom_bad = 1;
		snprintf(d->note, sizeof d->note, "%s", e.msg);
		tui_msg(t, ST_WARN, "%s", e.msg);
		return;
	}
	filters_open(t, v);
	if ((k = filt_lib_find(d->lib, CUSTOM_FAMILY)) >= 0) {
		d->chosen[k] = 1;
		update_pending(d);
		for (size_t i = 0; i < d->nlines; i++)
			if (d->lines[i].kind == L_FAMILY && d->lines[i].fam == (size_t)k)
				v->cur = i;
	}
	char path[4200];
	dt_err_clear(&e);
	if (custom_path(path, sizeof path, 0, &e))
		snprintf(path, sizeof path, "?");
	tui_msg(t, ST_DIM, "added to %s: %s; a applies (saved in %s)", CUSTOM_FAMILY, d->note, path);
}

/* Whether the comma-separated names list has name. */
static int names_family(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *s = list; *s;) {
		const char *c = strchr(s, ',');
		size_t len = c ? (size_t)(c - s) : strlen(s);
		if (len == n && !memcmp(s, name, n))
			return 1;
		if (!c)
			break;
		s = c + 1;
	}
	return 0;
}

static void remove_key(tui *t, struct filters *d, view *v)
{
	const struct fline *l = &d->lines[v->cur];
	if (l->kind != L_FAMILY && l->kind != L_PATTERN) {
		tui_msg(t, ST_WARN, "D removes a pattern of family %s, or the family", CUSTOM_FAMILY);
		return;
	}
	const filt_family *f = filt_lib_family(d->lib, l->fam);
	char path[4200];
	dt_err e;
	dt_err_clear(&e);
	/* only the interface's own file: shipped and hand-written families are not its to edit */
	if (strcmp(f->name, CUSTOM_FAMILY) || custom_path(path, sizeof path, 0, &e) ||
	    strcmp(path, f->file)) {
		tui_msg(t, ST_WARN, "D removes patterns of family %s only (this one is %s)",
			CUSTOM_FAMILY, f->file);
		return;
	}
	int line = 0;
	char what[1100];
	if (l->kind == L_PATTERN) {
		const filt_pattern *p = l->pat < f->ninc ? &f->inc[l->pat] : &f->exc[l->pat - f->ninc];
		line = p->line;
		snprintf(what, sizeof what, "pattern '%s'", p->text);
	} else {
		snprintf(what, sizeof what, "family %s (%zu patterns)", f->name, f->ninc + f->nexc);
	}
	char *yes = tui_prompt(t, "remove it? (y/N) ", NULL);
	int ok = yes && (yes[0] == 'y' || yes[0] == 'Y');
	free(yes);
	if (!ok)
		return;
	if (remove_custom(f, line, &e)) {
		tui_msg(t, ST_WARN, "%s", e.msg);
		return;
	}
	int in_use = !line && names_family(d->applied, CUSTOM_FAMILY);
	filters_open(t, v);
	if (v->cur >= v->nlines)
		v->cur = v->nlines - 1;
	if (in_use)
		tui_msg(t, ST_WARN, "removed %s, which the filter in use names: a applies one without it",
			what);
	else
		tui_msg(t, ST_DIM, "removed %s", what);
}

/* ---- the parameters ---- */

/* The next (dir 1) or previous (-1) of the eight modes, keeping the pending `.args`; dir 0
 * toggles `.args`. */
static void cycle_attrs(struct filters *d, int dir)
{
	attrs_mode m;
	int args;
	dt_err e;
	dt_err_clear(&e);
	if (attrs_mode_parse_args(d->attrs, &m, &args, &e)) {
		m = (attrs_mode){ ATTRS_SING, ATTRS_LOG10, ATTRS_W };
		args = 1;
	}
	if (dir) {
		int i = (m.kind == ATTRS_DOUB ? 4 : 0) + (int)m.freq;
		i = (i + 8 + dir) % 8;
		m.kind = i < 4 ? ATTRS_SING : ATTRS_DOUB;
		m.freq = (enum attrs_freq)(i % 4);
		m.pairs = m.kind == ATTRS_DOUB ? d->pairs : ATTRS_W;
	} else {
		args = !args;
	}
	attrs_mode_name_args(m, args, d->attrs, sizeof d->attrs);
}

static void set_k(tui *t, struct filters *d, long k)
{
	if (k < 1 || k > 32) {
		tui_msg(t, ST_WARN, "K goes from 1 to 32");
		return;
	}
	d->k = (unsigned)k;
}

/* Applies the pending parameters, then asks for the analyses the user is likely to look at
 * next (the marked pair, or every run), so that they are computed in the background now. */
static void apply(tui *t, struct filters *d)
{
	if (d->err[0]) {
		tui_msg(t, ST_WARN, "cannot apply: %s", d->err);
		return;
	}
	tui_params p = *tui_get_params(t);
	/* names read best in the status line; the alias is as exact and always short */
	const char *spec = strlen(d->canon) < sizeof p.filter ? d->canon : d->alias;
	size_t n = strlen(spec) < sizeof p.filter ? strlen(spec) : sizeof p.filter - 1;
	memcpy(p.filter, spec, n);
	p.filter[n] = 0;
	snprintf(p.attrs, sizeof p.attrs, "%s", d->attrs);
	p.k = d->k;
	char alias[256];
	snprintf(alias, sizeof alias, "%s", d->alias);
	tui_set_params(t, &p);

	const char *normal, *faulty;
	store_run *runs = NULL;
	size_t nruns = 0, cached = 0, queued = 0, failed = 0;
	const char *want[2];
	size_t nwant = 0;
	if (tui_get_pair(t, &normal, &faulty) && *normal && *faulty) {
		want[0] = normal;
		want[1] = faulty;
		nwant = 2;
	} else if (tui_runs(t, &runs, &nruns)) {
		return;
	}
	for (size_t i = 0; i < (nwant ? nwant : nruns); i++) {
		const an_result *r;
		int s = tui_analysis(t, nwant ? want[i] : runs[i].name, &r);
		if (s > 0)
			cached++;
		else if (s == 0)
			queued++;
		else
			failed++;
	}
	store_runs_free(runs, nruns);
	if (failed)
		return; /* tui_analysis said why */
	tui_msg(t, ST_DIM, "applied %sK%u %s: %zu analyses being computed, %zu cached", alias, p.k,
		p.attrs, queued, cached);
}

/* ---- keys ---- */

static void toggle(tui *t, struct filters *d, view *v, size_t i)
{
	const struct fline *l = &d->lines[i];
	if (l->kind == L_CUSTOM) {
		custom(t, d, v);
		return;
	}
	if (l->kind != L_FAMILY && l->kind != L_PATTERN)
		return;
	d->chosen[l->fam] = !d->chosen[l->fam];
	update_pending(d);
	if (d->err[0])
		tui_msg(t, ST_WARN, "%s", d->err);
}

static void filters_enter(tui *t, view *v, size_t i)
{
	toggle(t, v->data, v, i);
}

static int filters_key(tui *t, view *v, int k)
{
	struct filters *d = v->data;
	const struct fline *l = &d->lines[v->cur];
	switch (k) {
	case ' ':
		toggle(t, d, v, v->cur);
		return 1;
	case 'p':
		if (l->kind == L_FAMILY || l->kind == L_PATTERN) {
			size_t fam = l->fam;
			d->unfold[fam] = !d->unfold[fam];
			build_lines(d);
			v->nlines = d->nlines;
			for (size_t i = 0; i < d->nlines; i++)
				if (d->lines[i].kind == L_FAMILY && d->lines[i].fam == fam)
					v->cur = i;
		}
		return 1;
	case 'c':
		custom(t, d, v);
		return 1;
	case 'D':
		remove_key(t, d, v);
		return 1;
	case 'm':
	case 'M':
		cycle_attrs(d, k == 'm' ? 1 : -1);
		return 1;
	case 'A':
		cycle_attrs(d, 0);
		return 1;
	case '+':
		set_k(t, d, (long)d->k + 1);
		return 1;
	case '-':
		set_k(t, d, (long)d->k - 1);
		return 1;
	case 'K': {
		char init[16];
		snprintf(init, sizeof init, "%u", d->k);
		char *s = tui_prompt(t, "K (1 to 32): ", init);
		if (s) {
			char *end;
			long x = strtol(s, &end, 10);
			if (*end || end == s)
				tui_msg(t, ST_WARN, "K is a number from 1 to 32, not '%s'", s);
			else
				set_k(t, d, x);
			free(s);
		}
		return 1;
	}
	case 'a':
		apply(t, d);
		return 1;
	case 'u':
		d->synced[0] = 0;
		filters_open(t, v);
		tui_msg(t, ST_DIM, "back to the parameters in use");
		return 1;
	}
	return 0;
}

static void filters_close(view *v)
{
	struct filters *d = v->data;
	filt_lib_free(d->lib);
	free(d->chosen);
	free(d->unfold);
	free(d->lines);
	free(d);
}

static const view_ops filters_ops = {
	.name = "filters", .keys = keys, .open = filters_open, .line = filters_line,
	.enter = filters_enter, .key = filters_key, .close = filters_close,
	.header = filters_header,
};

int view_filters_open(tui *t)
{
	return tui_push(t, &filters_ops, xcalloc(1, sizeof(struct filters)),
			"difftrace: filter families")
		       ? 0
		       : -1;
}
