/* watch_screen.c: the screen of `difftrace watch`: the snapshot of live_text (order/live_text.h),
 * redrawn every interval, with a header, a key bar and scrolling. Keys: q (Q, F10) quits,
 * g cycles the grouping (by the screen's size, always, never), j/k, the arrows, PgUp/PgDn,
 * Space, Home/End scroll, ^L redraws, ? and F1 show the keys. No colour is used: the
 * header and the key bar are in reverse video, so NO_COLOR and TERM without colours look
 * the same. */
#define _XOPEN_SOURCE 700
#define _DEFAULT_SOURCE
#include <curses.h>
#include <errno.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <term.h>
#include <time.h>

#include "util/util.h"
#include "watch_screen.h"

static int64_t mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The text of a snapshot, split into lines (in place). */
typedef struct snap {
	char *text;
	char **line;
	size_t n, cap;
} snap;

static void split(snap *ls, char *text)
{
	free(ls->text);
	ls->text = text;
	ls->n = 0;
	for (char *p = text; p && *p;) {
		GROW(ls->line, ls->cap, ls->n + 1);
		ls->line[ls->n++] = p;
		char *nl = strchr(p, '\n');
		if (!nl)
			break;
		*nl = 0;
		p = nl + 1;
	}
}

static const char *const group_name[] = { "auto", "always", "never" };

static void draw(const snap *ls, size_t top, int group, int help, double interval)
{
	int rows, cols;
	getmaxyx(stdscr, rows, cols);
	erase();
	if (rows < 5 || cols < 30) {
		mvaddnstr(0, 0, "terminal too small (q quits)", cols);
		refresh();
		return;
	}
	/* the first two snap of the snapshot are its header, the rest scrolls */
	for (int y = 0; y < 2 && (size_t)y < ls->n; y++) {
		if (!y)
			attron(A_REVERSE);
		mvaddnstr(y, 0, ls->line[y], cols);
		if (!y) {
			for (int x = (int)strlen(ls->line[y]); x < cols; x++)
				mvaddch(y, x, ' ');
			attroff(A_REVERSE);
		}
	}
	int body = rows - 3;
	if (help) {
		static const char *const h[] = {
			"keys of difftrace watch:",
			"  q Q F10       quit",
			"  g             grouping: by the screen's size, always, never",
			"  j k Down Up   scroll a line",
			"  PgDn Space    scroll a page (PgUp back)",
			"  Home End      the first, the last line",
			"  ^L            redraw",
			"  ? F1          this help (any key closes it)",
			"",
			"FOR is how long the thread has been in its call (or outside",
			"since it returned: computing, sleeping or waiting, from /proc);",
			"LONGEST the longest of a group. A gone process's clock stops.",
		};
		for (int i = 0; i < (int)(sizeof h / sizeof *h) && i < body; i++)
			mvaddnstr(2 + i, 0, h[i], cols);
	} else {
		for (int y = 0; y < body && top + 2 + (size_t)y < ls->n; y++) {
			const char *s = ls->line[top + 2 + (size_t)y];
			if (y == 1 && !strncmp(s, "P.T", 3))
				attron(A_BOLD);
			mvaddnstr(2 + y, 0, s, cols);
			attroff(A_BOLD);
		}
	}
	char bar[200];
	snprintf(bar, sizeof bar, " q:Quit  g:Group (%s)  j/k:Scroll  ?:Help   every %gs   %zu/%zu",
		 group_name[group], interval, ls->n > 2 ? top + 1 : 0, ls->n > 2 ? ls->n - 2 : 0);
	attron(A_REVERSE);
	mvaddnstr(rows - 1, 0, bar, cols);
	for (int x = (int)strlen(bar); x < cols; x++)
		mvaddch(rows - 1, x, ' ');
	attroff(A_REVERSE);
	refresh();
}

int watch_screen(live *l, const char *dir, double interval, int group, FILE *out, dt_err *e)
{
	setlocale(LC_ALL, "");
	const char *term = getenv("TERM");
	int terr = 0, usable = 0;
	if (term && *term && setupterm(NULL, 1, &terr) == OK) {
		const char *cup = tigetstr("cup");
		usable = cup && cup != (const char *)-1;
		del_curterm(cur_term); /* initscr sets the terminal up again */
	}
	if (!usable)
		return dt_errf(e, DT_EUSAGE,
			       "the terminal '%s' cannot move its cursor: use --once, --count N or "
			       "--format json",
			       term ? term : "");
	SCREEN *scr = newterm(NULL, out, stdin);
	if (!scr)
		return dt_errf(e, DT_EUSAGE, "cannot set up the terminal '%s'", term);
	set_term(scr);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	snap ls = { 0 };
	size_t top = 0;
	int help = 0, rc = 0, quit = 0;
	int64_t step = (int64_t)(interval * 1000), next = 0;
	while (!quit) {
		int64_t now = mono_ms();
		if (now >= next) {
			if (live_poll_now(l, e)) {
				rc = -1;
				break;
			}
			char *buf = NULL;
			size_t len = 0;
			FILE *m = open_memstream(&buf, &len);
			if (!m) {
				rc = dt_errf(e, DT_EDATA, "cannot draw: %s", strerror(errno));
				break;
			}
			int rows = LINES > 6 ? LINES - 6 : 1;
			live_text(m, l, dir, group, (size_t)rows);
			fclose(m);
			split(&ls, buf);
			next = now + step;
		}
		size_t body = LINES > 3 ? (size_t)LINES - 3 : 1, max = ls.n > 2 + body ? ls.n - 2 - body : 0;
		if (top > max)
			top = max;
		draw(&ls, top, group, help, interval);
		int64_t wait = next - mono_ms();
		timeout(wait > 0 ? (int)wait : 0);
		int ch = getch();
		if (ch == ERR)
			continue;
		if (help) {
			help = 0;
			continue;
		}
		switch (ch) {
		case 'q':
		case 'Q':
		case KEY_F(10):
			quit = 1;
			break;
		case 'g':
			group = (group + 1) % 3;
			next = 0;
			break;
		case 'j':
		case KEY_DOWN:
			top++;
			break;
		case 'k':
		case KEY_UP:
			top = top ? top - 1 : 0;
			break;
		case ' ':
		case KEY_NPAGE:
			top += body;
			break;
		case KEY_PPAGE:
			top = top > body ? top - body : 0;
			break;
		case KEY_HOME:
			top = 0;
			break;
		case KEY_END:
			top = max;
			break;
		case '?':
		case KEY_F(1):
			help = 1;
			break;
		case 12: /* ^L */
			clearok(curscr, TRUE);
			break;
		case KEY_RESIZE:
			next = 0;
			break;
		default:
			break;
		}
	}
	endwin();
	delscreen(scr);
	free(ls.text);
	free(ls.line);
	return rc;
}
