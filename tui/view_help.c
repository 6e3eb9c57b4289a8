/* view_help.c: the help screen: the keys of the view it was opened from, then the keys and
 * commands every view shares. */
#include <curses.h>
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
	{ "N j  N k  N G", "a count before a motion, as in less and vim: 5j moves 5 lines, "
			   "10G goes to line 10 (not in views that take digits: runs)" },
	{ "Enter  l  Right", "open what the line shows (the diff view scrolls with Right, the "
			     "timeline goes to the next lane)" },
	{ "q  Esc  h  Left", "back to the previous view, quits from the first (the diff view scrolls "
			     "with Left, the timeline goes to the previous lane)" },
	{ "Q", "quit" },
	{ "/  ?", "search down, up (PCRE2, as in less); n N: the next match the same way, the "
		  "other way; ? and Enter before any search opens this help" },
	{ "m a-z", "mark the line with a letter (not in the runs, classes and filters views, "
		   "where m has a meaning of its own)" },
	{ "' a-z  ''", "back to a marked line; '' back to where the last jump started" },
	{ "H L", "scroll left, right, by the words of the selected line" },
	{ ":", "command line: runs, classes RUN, trace RUN P.T, lattice RUN, jsm RUN [delta], "
	       "rank NORMAL FAULTY, diff RUN:P.T RUN:P.T, report RUN:P.T RUN:P.T, timeline RUN, "
	       "hang RUN [NORMAL], blame RUN [FUNC]..., blamediff NORMAL FAULTY, filters, "
	       "filter SPEC, attrs MODE, K N, "
	       "w FILE, dump FILE, help, q" },
	{ "w", "write this view to a text file" },
	{ "F1  :help", "this help (? searches upwards, as in less)" },
	{ "C-l", "redraw" },
	{ "mouse", "click selects, double click opens, wheel scrolls" },
	{ NULL, NULL },
};

struct help {
	char **lines; /* "KEYS\tWHAT" or "#TITLE" */
	size_t n;
	/* display lines at the width last laid out: item, and the byte range of its text */
	struct hl {
		size_t item, off, len;
	} *dl;
	size_t ndl, capdl;
	int width;
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

/* The column the descriptions start at, for a width. */
static int key_col(int width)
{
	return width >= 70 ? 30 : width / 3;
}

/* Lays the items out at width: a description longer than its room wraps at spaces onto lines
 * of its own, under the description column, instead of being cut. */
static void layout(struct help *h, int width)
{
	h->ndl = 0;
	h->width = width;
	int room = width - key_col(width);
	if (room < 10)
		room = 10;
	for (size_t i = 0; i < h->n; i++) {
		const char *s = h->lines[i], *what = strchr(s, '\t') + 1;
		size_t len = strlen(what), off = 0;
		do {
			size_t take = len - off;
			if ((int)take > room) {
				take = (size_t)room;
				while (take > 0 && what[off + take] != ' ')
					take--;
				if (!take)
					take = (size_t)room;
			}
			GROW(h->dl, h->capdl, h->ndl + 1);
			h->dl[h->ndl++] = (struct hl){ i, off, take };
			off += take;
			while (off < len && what[off] == ' ')
				off++;
		} while (off < len);
	}
}

static int help_open(tui *t, view *v)
{
	struct help *h = v->data;
	layout(h, tui_cols(t) - 2);
	v->nlines = h->ndl;
	return 0;
}

static void help_line(tui *t, view *v, size_t i, tui_out *o)
{
	(void)t;
	struct help *h = v->data;
	const struct hl *l = &h->dl[i];
	const char *s = h->lines[l->item];
	const char *tab = strchr(s, '\t');
	if (s[0] == '#') {
		out_textn(o, ST_HEADER, s + 1, (size_t)(tab - s - 1));
		return;
	}
	if (!l->off)
		out_textn(o, ST_KEY, s, (size_t)(tab - s));
	out_pad(o, key_col(h->width));
	out_textn(o, ST_NORMAL, tab + 1 + l->off, l->len);
}

/* A resize lays the help out again at the new width. */
static int help_key(tui *t, view *v, int k)
{
	struct help *h = v->data;
	if (k == KEY_RESIZE && tui_cols(t) - 2 != h->width) {
		layout(h, tui_cols(t) - 2);
		v->nlines = h->ndl;
	}
	return 0;
}

static void help_close(view *v)
{
	struct help *h = v->data;
	for (size_t i = 0; i < h->n; i++)
		free(h->lines[i]);
	free(h->lines);
	free(h->dl);
	free(h);
}

const view_ops view_help_ops = {
	.name = "help", .open = help_open, .line = help_line, .key = help_key, .close = help_close,
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
