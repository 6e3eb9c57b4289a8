/* tui_draw.c: drawing the view on top: its title, its lines with the cursor, the status and
 * key-hint lines, in the styles of the terminal (colours, or reverse and bold without them). */
#define _XOPEN_SOURCE 700
#define _DEFAULT_SOURCE
#define PCRE2_CODE_UNIT_WIDTH 8
#include <ctype.h>
#include <curses.h>
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <pcre2.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

#include "analysis/filter.h"
#include "tui.h"
#include "tui_int.h"
#include "util/util.h"

/* ---- drawing ---- */

void tui_init_styles(tui *t)
{
	const char *nc = getenv("NO_COLOR");
	t->color = has_colors() && !(nc && *nc);
	if (t->color) {
		start_color();
		use_default_colors();
		init_pair(1, COLOR_BLUE, -1);
		init_pair(2, COLOR_RED, -1);
		init_pair(3, COLOR_YELLOW, -1);
		init_pair(4, COLOR_GREEN, -1);
		init_pair(5, COLOR_CYAN, -1);
		init_pair(6, COLOR_MAGENTA, -1);
	}
	for (int i = 0; i < ST_NSTYLES; i++)
		t->attr[i] = A_NORMAL;
	t->attr[ST_HEADER] = A_BOLD;
	t->attr[ST_DIM] = A_DIM;
	t->attr[ST_KEY] = A_BOLD;
	t->attr[ST_LEFT] = A_BOLD;
	t->attr[ST_RIGHT] = A_UNDERLINE;
	t->attr[ST_CHANGED] = A_BOLD;
	t->attr[ST_MATCH] = A_UNDERLINE | A_BOLD;
	t->attr[ST_WORD] = A_REVERSE | A_BOLD | A_UNDERLINE; /* underlined: seen on the cursor too */
	t->attr[ST_WARN] = A_BOLD;
	t->attr[ST_SHADE3] = A_BOLD;
	t->attr[ST_SHADE4] = A_BOLD;
	if (t->color) {
		t->attr[ST_HEADER] |= COLOR_PAIR(5);
		t->attr[ST_LEFT] = A_BOLD | COLOR_PAIR(1);
		t->attr[ST_RIGHT] = COLOR_PAIR(2);
		t->attr[ST_CHANGED] = A_BOLD | COLOR_PAIR(3);
		t->attr[ST_WORD] |= COLOR_PAIR(3);
		t->attr[ST_SAME] = COLOR_PAIR(4);
		t->attr[ST_WARN] = A_BOLD | COLOR_PAIR(2);
		t->attr[ST_KEY] = A_BOLD | COLOR_PAIR(5);
		t->attr[ST_SHADE1] = COLOR_PAIR(1);
		t->attr[ST_SHADE2] = COLOR_PAIR(5);
		t->attr[ST_SHADE3] = COLOR_PAIR(3);
		t->attr[ST_SHADE4] = A_BOLD | COLOR_PAIR(2);
	}
}

/* Writes the spans of o on row y from column x0, columns skipped first, at most width columns,
 * with extra attributes (the cursor's reverse video). Pads the row to width. A line cut at the
 * right edge ends in the cut mark (an ellipsis, '~' when the terminal is not UTF-8). */
static void draw_at(tui *t, const tui_out *o, int y, int x0, int skip, int width, attr_t extra)
{
	move(y, x0);
	int col = 0, cut = 0;
	mbstate_t st;
	memset(&st, 0, sizeof st);
	for (size_t si = 0; si < o->nspans && col - skip < width; si++) {
		const tui_span *sp = &o->spans[si];
		attrset(t->attr[sp->style] | extra);
		size_t i = sp->off, end = sp->off + sp->len;
		while (i < end && col - skip < width) {
			wchar_t wc;
			size_t k = mbrtowc(&wc, o->text + i, end - i, &st);
			if (k == (size_t)-1 || k == (size_t)-2 || k == 0) {
				memset(&st, 0, sizeof st);
				wc = L'?';
				k = 1;
			}
			int w = wcwidth(wc);
			if (w < 0) {
				wc = L'?';
				w = 1;
			}
			if (wc == L'\t') {
				wc = L' ';
				w = 1;
			}
			if (col >= skip && col - skip + w <= width) {
				if (!t->utf8 && (wc >= 0x80)) {
					addch('?');
				} else {
					wchar_t s[2] = { wc, 0 };
					addnwstr(s, 1);
				}
			} else if (col - skip + w > width && w) {
				cut = 1;
			}
			col += w;
			i += k;
		}
	}
	if (col - skip >= width && !cut) {
		/* filled to the edge: cut when any display column is left */
		size_t last = o->nspans ? o->spans[o->nspans - 1].off + o->spans[o->nspans - 1].len : 0;
		while (last && o->text[last - 1] == ' ')
			last--; /* padding is not text */
		cut = tui_cols_of(o->text, last) - skip > width;
	}
	attrset(extra);
	int x = col - skip < 0 ? 0 : col - skip;
	for (; x < width; x++)
		addch(' ');
	if (cut && width > 0) {
		attrset(A_DIM | extra);
		mvaddstr(y, x0 + width - 1, t->utf8 ? "\xe2\x80\xa6" : "~");
	}
	attrset(A_NORMAL);
}

void tui_draw_out(tui *t, const tui_out *o, int y, int skip, int width, attr_t extra)
{
	draw_at(t, o, y, 0, skip, width, extra);
}


/* Where a title too long for one row wraps: after the last space that leaves the first row
 * full enough, else at the width. 0 when it fits. */
static size_t title_wrap(const char *title, int cols)
{
	size_t n = strlen(title);
	if (tui_cols_of(title, n) <= cols)
		return 0;
	size_t at = 0, sp = 0;
	while (at < n && tui_cols_of(title, at + 1) <= cols) {
		if (title[at] == ' ')
			sp = at;
		at++;
	}
	return sp > at / 2 ? sp + 1 : at;
}

/* Rows of the title: a long title takes a second row instead of being cut. */
int tui_title_rows(tui *t, const view *v)
{
	return title_wrap(v->title, t->cols) ? 2 : 1;
}

int tui_list_rows(tui *t, const view *v)
{
	int rows = t->rows - 2 - tui_title_rows(t, v) - (v->ops->header ? 1 : 0) -
		   (v->ops->footer ? v->ops->nfooter : 0);
	return rows < 1 ? 1 : rows;
}

static void keep_cursor_visible(tui *t, view *v)
{
	int rows = tui_list_rows(t, v);
	if (v->nlines == 0) {
		v->cur = v->top = 0;
		return;
	}
	if (v->cur >= v->nlines)
		v->cur = v->nlines - 1;
	if (v->cur < v->top)
		v->top = v->cur;
	if (v->cur >= v->top + (size_t)rows)
		v->top = v->cur - (size_t)rows + 1;
}

/* The whole screen into curses' buffer, without sending it to the terminal. */
void tui_draw_noref(tui *t)
{
	getmaxyx(stdscr, t->rows, t->cols);
	erase();
	view *v = t->top;
	if (!v)
		return;
	if (t->rows < 6 || t->cols < 30) {
		mvaddstr(0, 0, "terminal too small");
		return;
	}
	keep_cursor_visible(t, v);
	tui_out *o = &t->line;
	o->width = t->cols;
	o->utf8 = t->utf8;
	tui_out_reset(o);
	size_t wrap = title_wrap(v->title, t->cols);
	out_textn(o, ST_HEADER, v->title, wrap ? wrap : strlen(v->title));
	tui_draw_out(t, o, 0, 0, t->cols, A_REVERSE);
	int y = 1;
	if (wrap) {
		tui_out_reset(o);
		out_text(o, ST_HEADER, "  ");
		out_text(o, ST_HEADER, v->title + wrap);
		tui_draw_out(t, o, y++, 0, t->cols, A_REVERSE);
	}
	o->width = t->cols - TUI_GUTTER;
	if (v->ops->header) {
		tui_out_reset(o);
		v->ops->header(t, v, o);
		mvaddstr(y, 0, "  ");
		draw_at(t, o, y++, TUI_GUTTER, v->hscroll, t->cols - TUI_GUTTER, A_NORMAL);
	}
	int rows = tui_list_rows(t, v);
	for (int r = 0; r < rows && v->top + (size_t)r < v->nlines; r++) {
		size_t i = v->top + (size_t)r;
		tui_out_reset(o);
		v->ops->line(t, v, i, o);
		attr_t extra = i == v->cur ? A_REVERSE : A_NORMAL;
		attrset(extra);
		mvaddstr(y + r, 0, i == v->cur ? "> " : "  ");
		attrset(A_NORMAL);
		draw_at(t, o, y + r, TUI_GUTTER, v->hscroll, t->cols - TUI_GUTTER, extra);
	}
	o->width = t->cols;
	if (v->ops->footer)
		for (int f = 0; f < v->ops->nfooter; f++) {
			tui_out_reset(o);
			v->ops->footer(t, v, f, o);
			tui_draw_out(t, o, y + rows + f, 0, t->cols, A_NORMAL);
		}
	/* status line */
	tui_out_reset(o);
	char job[128];
	int pct = tui_job_progress(t, job, sizeof job);
	out_printf(o, ST_NORMAL, " %s  %zu/%zu  filter %s  attrs %s  K %u", v->ops->name,
		   v->nlines ? v->cur + 1 : 0, v->nlines, t->params.filter, t->params.attrs,
		   t->params.k);
	if (pct >= 0 && tui_job_waiting(t)) {
		out_printf(o, ST_NORMAL, "  analyzing %s: ", job);
		out_text(o, ST_WARN, "waiting for the store (another difftrace is importing)");
	} else if (pct >= 0) {
		int bar = 20, fill = pct * bar / 100;
		out_printf(o, ST_NORMAL, "  analyzing %s [", job);
		for (int i = 0; i < bar; i++)
			out_text(o, ST_NORMAL, i < fill ? "#" : "-");
		out_printf(o, ST_NORMAL, "] %d%%", pct);
	}
	tui_draw_out(t, o, t->rows - 2, 0, t->cols, A_REVERSE);
	tui_out_reset(o);
	if (t->msg[0])
		out_text(o, t->msgstyle, t->msg);
	else
		out_text(o, ST_DIM, "q:Back  Enter:Open  /?:Search  ::Command  w:Write  F1:Help  Q:Quit");
	tui_draw_out(t, o, t->rows - 1, 0, t->cols, A_NORMAL);
}

void tui_draw(tui *t)
{
	tui_draw_noref(t);
	refresh();
}
