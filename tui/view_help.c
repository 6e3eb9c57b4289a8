/* view_help.c: the help screen: the keys of the view it was opened from, then the keys and
 * commands every view shares. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui_int.h"
#include "util/util.h"

static const tui_keyhelp common[] = {
	{ "j k  Down Up", "move" },
	{ "PgDn PgUp  Space -  C-f C-b", "page" },
	{ "C-d C-u", "half a page" },
	{ "g G  Home End", "first, last line" },
	{ "Enter  l  Right", "open what the line shows" },
	{ "q  Esc  h  Left", "back to the previous view (quits from the first)" },
	{ "Q", "quit" },
	{ "/", "search (PCRE2); n N: next, previous match" },
	{ "H L", "scroll left, right" },
	{ ":", "command line: runs, classes RUN, trace RUN P.T, lattice RUN, jsm RUN," },
	{ "", "  rank NORMAL FAULTY, diff RUN:P.T RUN:P.T, filters, filter SPEC," },
	{ "", "  attrs MODE, K N, w FILE, dump FILE, q" },
	{ "w", "write this view to a text file" },
	{ "? F1", "this help" },
	{ "C-l", "redraw" },
	{ "mouse", "click selects, double click opens, wheel scrolls" },
	{ NULL, NULL },
};

struct help {
	char **lines; /* "KEYS\tWHAT" or "#TITLE" */
	size_t n;
};

static void add(struct help *h, const char *keys, const char *what)
{
	h->lines = xrealloc(h->lines, (h->n + 1) * sizeof *h->lines);
	size_t l = strlen(keys) + strlen(what) + 2;
	h->lines[h->n] = xmalloc(l);
	strcpy(h->lines[h->n], keys);
	strcat(h->lines[h->n], "\t");
	strcat(h->lines[h->n], what);
	h->n++;
}

static int help_open(tui *t, view *v)
{
	(void)t;
	v->nlines = ((struct help *)v->data)->n;
	return 0;
}

static void help_line(tui *t, view *v, size_t i, tui_out *o)
{
	(void)t;
	const char *s = ((struct help *)v->data)->lines[i];
	const char *tab = strchr(s, '\t');
	if (s[0] == '#') {
		out_textn(o, ST_HEADER, s + 1, (size_t)(tab - s - 1));
		return;
	}
	out_textn(o, ST_KEY, s, (size_t)(tab - s));
	out_pad(o, 30);
	out_text(o, ST_NORMAL, tab + 1);
}

static void help_close(view *v)
{
	struct help *h = v->data;
	for (size_t i = 0; i < h->n; i++)
		free(h->lines[i]);
	free(h->lines);
	free(h);
}

const view_ops view_help_ops = {
	.name = "help", .open = help_open, .line = help_line, .close = help_close,
};

void tui_help(tui *t)
{
	struct help *h = xcalloc(1, sizeof *h);
	/* the view under the help is the one the keys are for */
	view *from = tui_top(t);
	if (from && from->ops->keys && from->ops->keys[0].keys) {
		char title[128];
		snprintf(title, sizeof title, "#Keys of the %s view", from->ops->name);
		add(h, title, "");
		for (const tui_keyhelp *k = from->ops->keys; k->keys; k++)
			add(h, k->keys, k->what);
		add(h, "#", "");
	}
	add(h, "#Keys of every view", "");
	for (const tui_keyhelp *k = common; k->keys; k++)
		add(h, k->keys, k->what);
	tui_push(t, &view_help_ops, h, "difftrace: help%s%s", from ? " for the " : "",
		 from ? from->ops->name : "");
}
