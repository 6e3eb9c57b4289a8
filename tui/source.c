/* source.c: calls back to their source (source.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "source.h"
#include "util/esc.h"
#include "util/util.h"

store_srclines *tui_src_load(tui *t, const char *run)
{
	store *s = tui_store(t);
	dt_err e;
	dt_err_clear(&e);
	store_run r;
	if (store_run_get_lite(s, run, &r, &e))
		return NULL;
	store_srclines *l = NULL;
	if (store_srclines_load(s, r.id, &l, &e))
		l = NULL;
	store_run_free(&r);
	return l;
}

void tui_sites_load(tui *t, const char *run, store_sites *out, char *format, size_t nformat)
{
	store *s = tui_store(t);
	dt_err e;
	dt_err_clear(&e);
	store_run r;
	memset(out, 0, sizeof *out);
	if (format && nformat)
		format[0] = 0;
	if (store_run_get_lite(s, run, &r, &e))
		return;
	if (format && nformat)
		snprintf(format, nformat, "%s", r.format ? r.format : "");
	if (store_sync_sites(s, r.id, out, &e)) {
		store_sites_free(out);
		memset(out, 0, sizeof *out);
	}
	store_run_free(&r);
}

void tui_src_suffix(tui_out *o, const store_srclines *l, const char *name)
{
	const char *file;
	int line;
	if (!store_srclines_find(l, name, &file, &line))
		return;
	const char *base = strrchr(file, '/');
	out_printf(o, ST_DIM, "  %s:%d", base ? base + 1 : file, line);
}

void tui_site_suffix(tui_out *o, const store_sites *sites, uint32_t id)
{
	const store_site *site = store_site_get(sites, id);
	char b[1800], e[1800];
	if (site)
		out_printf(o, ST_DIM, "  at %s", esc_str(store_site_str(site, b, sizeof b), e, sizeof e));
}

/* Splits the editor's command ("code -w") on blanks into argv, then +LINE and FILE. */
static char **editor_argv(const char *cmd, const char *plus, const char *file, char **copy)
{
	*copy = xstrdup(cmd);
	size_t n = 0, cap = 8;
	char **v = xmalloc(cap * sizeof *v);
	for (char *p = strtok(*copy, " \t"); p; p = strtok(NULL, " \t")) {
		if (n + 3 >= cap)
			v = xrealloc(v, (cap *= 2) * sizeof *v);
		v[n++] = p;
	}
	v[n++] = (char *)plus;
	v[n++] = (char *)file;
	v[n] = NULL;
	return v;
}

/* $VISUAL, else $EDITOR, else vi, as EDITOR +LINE FILE; says how it went. */
static void open_editor(tui *t, const char *file, int line)
{
	const char *ed = getenv("VISUAL");
	if (!ed || !*ed)
		ed = getenv("EDITOR");
	if (!ed || !*ed)
		ed = "vi";
	char plus[32], *copy;
	snprintf(plus, sizeof plus, "+%d", line);
	char **argv = editor_argv(ed, plus, file, &copy);
	if (!argv[2]) { /* the editor variable was only blanks */
		free(argv);
		free(copy);
		copy = xstrdup("vi");
		argv = editor_argv("vi", plus, file, &copy);
	}
	int rc = tui_run_program(t, argv);
	if (rc >= 0 && rc != 127)
		tui_msg(t, rc ? ST_WARN : ST_DIM, "%s %s %s%s", argv[0], plus, file,
			rc ? ": the editor ended with an error" : "");
	free(argv);
	free(copy);
}

void tui_site_edit(tui *t, const store_sites *sites, uint32_t id, int call)
{
	const store_site *site = store_site_get(sites, id);
	if (!call) {
		tui_msg(t, ST_WARN, "no call on this line: nothing to open in the editor");
		return;
	}
	if (!site) {
		tui_msg(t, ST_WARN,
			"no source line for this call: the run has no call sites (recorded before "
			"difftrace kept them, or without the sync record)");
		return;
	}
	if (!site->line) {
		char b[1800];
		tui_msg(t, ST_WARN, "no source line for this call (at %s): %s",
			store_site_str(site, b, sizeof b), store_sites_note(sites));
		return;
	}
	open_editor(t, site->file, (int)site->line);
}

void tui_src_edit(tui *t, const store_srclines *l, const char *name)
{
	const char *file;
	int line;
	if (!name) {
		tui_msg(t, ST_WARN, "no call on this line: nothing to open in the editor");
		return;
	}
	if (!store_srclines_find(l, name, &file, &line)) {
		size_t nd = 0;
		const char *const *nodebug = store_srclines_nodebug(l, &nd);
		if (nd)
			tui_msg(t, ST_WARN, "no source line for %s: %s: %s", name, nodebug[0],
				store_srclines_why(l, 0));
		else if (!store_srclines_count(l))
			tui_msg(t, ST_WARN,
				"no source line for %s: the run has none (recorded with uftrace from a "
				"program built with -g, it would)", name);
		else
			tui_msg(t, ST_WARN, "no source line for %s (not in the program's debug "
				"information)", name);
		return;
	}
	open_editor(t, file, line);
}
