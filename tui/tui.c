/* tui.c: the interface's one loop: the view stack, drawing, the keys every view shares, help,
 * search, the ':' command line, and the headless mode the tests drive. The lines views build
 * are tui_out.c, the drawing tui_draw.c, the background analyses and tasks tui_jobs.c.
 *
 * Headless mode (tui_opts.script) draws into a curses screen whose output goes to /dev/null and
 * takes its keys from a script file, then writes the screen's text to tui_opts.dump, as tig's
 * test mode does. Script syntax: whitespace-separated tokens, each a key: a single character
 * (j, q, /), a name (Enter Esc Tab BTab Space BS Up Down Left Right PgUp PgDn Home End F1
 * Resize), C-x for a control key, "text" for a string typed key by key (\" and \\ escape),
 * and the word `wait`, which waits for background work to finish. `# ...` comments a line.
 * Before each key the script waits for any background analysis, so runs are deterministic. */
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
#include <term.h>
#include <signal.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

#include "analysis/filter.h"
#include "tui.h"
#include "tui_int.h"
#include "util/util.h"

/* ---- the state ---- */

store *tui_store(tui *t)
{
	return t->s;
}

view *tui_top(tui *t)
{
	return t->top;
}

const tui_params *tui_get_params(tui *t)
{
	return &t->params;
}

int tui_rows(tui *t)
{
	return t->rows;
}

int tui_cols(tui *t)
{
	return t->cols;
}

int tui_utf8(tui *t)
{
	return t->utf8;
}

int tui_run_program(tui *t, char *const argv[])
{
	if (!t->headless) {
		def_prog_mode();
		endwin();
	}
	pid_t pid = fork();
	if (pid == 0) {
		if (t->headless) {
			int fd = open("/dev/null", O_RDWR);
			if (fd >= 0) {
				dup2(fd, 0);
				dup2(fd, 1);
				dup2(fd, 2);
			}
		}
		execvp(argv[0], argv);
		_exit(127);
	}
	int st = 0;
	if (pid > 0)
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
	if (!t->headless) {
		reset_prog_mode();
		clearok(stdscr, TRUE);
		refresh();
	}
	if (pid < 0) {
		tui_msg(t, ST_WARN, "cannot start %s: %s", argv[0], strerror(errno));
		return -1;
	}
	int rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	if (rc == 127)
		tui_msg(t, ST_WARN, "cannot run %s (not installed, or not in PATH?)", argv[0]);
	return rc;
}

void tui_msg(tui *t, int style, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(t->msg, sizeof t->msg, fmt, ap);
	va_end(ap);
	t->msgstyle = style;
}

void tui_set_pair(tui *t, const char *normal, const char *faulty)
{
	/* copy first: callers may pass the strings tui_get_pair gave them */
	char *n = xstrdup(normal), *f = xstrdup(faulty);
	free(t->normal);
	free(t->faulty);
	t->normal = n;
	t->faulty = f;
}

int tui_get_pair(tui *t, const char **normal, const char **faulty)
{
	*normal = t->normal;
	*faulty = t->faulty;
	return t->normal && t->faulty;
}

int tui_runs(tui *t, store_run **runs, size_t *n)
{
	dt_err e;
	dt_err_clear(&e);
	if (store_run_list_lite(t->s, runs, n, &e)) {
		tui_msg(t, ST_WARN, "%s", e.msg);
		return -1;
	}
	return 0;
}

/* ---- the view stack ---- */


view *tui_push(tui *t, const view_ops *ops, void *data, const char *fmt, ...)
{
	double t0 = t->timing ? tui_now_ms() : 0;
	view *v = xcalloc(1, sizeof *v);
	v->ops = ops;
	v->data = data;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(v->title, sizeof v->title, fmt, ap);
	va_end(ap);
	if (ops->open && ops->open(t, v)) {
		if (ops->close)
			ops->close(v);
		free(v);
		return NULL;
	}
	v->below = t->top;
	t->top = v;
	if (t->timing) {
		/* what a user waits for: opening the view and drawing its first screen */
		tui_draw(t);
		fprintf(t->timing, "%s %.3f ms\n", ops->name, tui_now_ms() - t0);
		fflush(t->timing);
	}
	return v;
}

static void pop(tui *t)
{
	view *v = t->top;
	if (!v)
		return;
	t->top = v->below;
	if (v->ops->close)
		v->ops->close(v);
	free(v);
	if (!t->top)
		t->quit = 1;
}

void tui_reopen_all(tui *t)
{
	for (view *v = t->top; v; v = v->below) {
		if (v->ops->open && v->ops->open(t, v))
			v->nlines = 0;
		if (v->cur >= v->nlines)
			v->cur = v->nlines ? v->nlines - 1 : 0;
	}
}

void tui_set_params(tui *t, const tui_params *p)
{
	t->params = *p;
	tui_reopen_all(t);
}

/* ---- keys ---- */

static const struct {
	const char *name;
	int key;
} key_names[] = {
	{ "Enter", '\n' },        { "Esc", 27 },           { "Tab", '\t' },
	{ "BTab", KEY_BTAB },     { "Space", ' ' },        { "BS", KEY_BACKSPACE },
	{ "Up", KEY_UP },         { "Down", KEY_DOWN },    { "Left", KEY_LEFT },
	{ "Right", KEY_RIGHT },   { "PgUp", KEY_PPAGE },   { "PgDn", KEY_NPAGE },
	{ "Home", KEY_HOME },     { "End", KEY_END },      { "F1", KEY_F(1) },
	{ "Resize", KEY_RESIZE },
};

#define TUI_KEY_WAIT (-2)
/* No key came within the input timeout while a prompt is open. */
#define TUI_KEY_TICK (-3)

/* The next key of the script; ERR at its end. */
static int script_key(tui *t)
{
	static const int none = ERR;
	FILE *f = t->script;
	for (;;) {
		int c = fgetc(f);
		if (c == EOF)
			return none;
		if (isspace(c))
			continue;
		if (c == '#') {
			while ((c = fgetc(f)) != EOF && c != '\n')
				;
			continue;
		}
		if (c == '"') {
			/* a string: push its characters back one by one through a pending buffer */
			char buf[1024];
			size_t n = 0;
			while ((c = fgetc(f)) != EOF && c != '"' && n + 1 < sizeof buf) {
				if (c == '\\' && (c = fgetc(f)) == EOF)
					break;
				buf[n++] = (char)c;
			}
			buf[n] = 0;
			/* ungetc allows one character only: keep the rest in the tui */
			tui_script_push(t, buf);
			return tui_script_pop(t);
		}
		char tok[64];
		size_t n = 0;
		tok[n++] = (char)c;
		while ((c = fgetc(f)) != EOF && !isspace(c) && n + 1 < sizeof tok)
			tok[n++] = (char)c;
		tok[n] = 0;
		if (n == 1)
			return (unsigned char)tok[0];
		if (!strcmp(tok, "wait"))
			return TUI_KEY_WAIT;
		if (n == 3 && tok[0] == 'C' && tok[1] == '-')
			return tok[2] & 0x1f;
		for (size_t i = 0; i < sizeof key_names / sizeof *key_names; i++)
			if (!strcmp(tok, key_names[i].name))
				return key_names[i].key;
		fprintf(stderr, "difftrace tui: script: unknown key '%s'\n", tok);
		return ERR;
	}
}

void tui_script_push(tui *t, const char *s)
{
	snprintf(t->pending, sizeof t->pending, "%s", s);
	t->npending = strlen(t->pending);
	t->ppending = 0;
}

int tui_script_pop(tui *t)
{
	if (t->ppending < t->npending)
		return (unsigned char)t->pending[t->ppending++];
	return ERR;
}

/* Waits for the analysis job, and for the views' tasks when tasks is set. */
static int dump_screen(tui *t, const char *path);

static int next_key(tui *t)
{
	if (t->headless) {
		int k = tui_script_pop(t);
		if (k != ERR)
			return k;
		tui_wait_job(t, 1);
		tui_poll_job(t);
		for (;;) {
			k = script_key(t);
			if (k == ERR && t->dump && !t->dumped) {
				/* the screen as the script leaves it, a prompt included */
				t->dumped = 1;
				if (!t->in_prompt)
					tui_draw(t);
				refresh();
				dump_screen(t, t->dump);
			}
			if (k != TUI_KEY_WAIT)
				return k;
			tui_wait_job(t, 1);
			tui_poll_job(t);
		}
	}
	for (int eof = 0;;) {
		/* while a view computes, look more often: its result shows soon after it is done
		 * (the screen is still redrawn every 100 ms at most when nothing changed) */
		timeout(tui_tasks_running(t) ? 10 : 100);
		int k = getch();
		int changed = tui_poll_job(t);
		if (k != ERR)
			return k;
		/* no key, yet the input is readable: it is at its end (< /dev/null, a closed
		 * pipe), and no key will ever come */
		struct pollfd in = { 0, POLLIN, 0 };
		if (poll(&in, 1, 0) > 0 && (in.revents & (POLLIN | POLLHUP | POLLERR)))
			eof++;
		else
			eof = 0;
		if (eof >= 3) {
			t->quit = 1; /* ERR: a prompt cancels, the main loop ends */
			return ERR;
		}
		double now = tui_now_ms();
		if (!changed && now - t->idle_drawn < 90)
			continue;
		t->idle_drawn = now;
		if (t->in_prompt)
			return TUI_KEY_TICK; /* the prompt redraws the screen with itself on it */
		if (t->top && t->top->ops->idle)
			t->top->ops->idle(t, t->top);
		tui_draw(t); /* the progress bar moves while no key comes */
	}
}

char *tui_prompt(tui *t, const char *prompt, const char *initial)
{
	return tui_prompt_check(t, prompt, initial, NULL, NULL);
}

char *tui_prompt_check(tui *t, const char *prompt, const char *initial,
		       void (*check)(void *arg, const char *text, tui_out *o), void *arg)
{
	char buf[1024];
	snprintf(buf, sizeof buf, "%s", initial ? initial : "");
	size_t n = strlen(buf);
	curs_set(1);
	t->in_prompt = 1;
	for (int redraw = 0;;) {
		tui_out *o = &t->line;
		if (redraw) {
			/* the screen under the prompt (the progress bar moves, a resize), then the
			 * prompt again over it before anything reaches the terminal */
			tui_draw_noref(t);
			redraw = 0;
		}
		if (check) {
			/* what the text would do, on the status row, before every key */
			tui_out_reset(o);
			o->width = t->cols;
			check(arg, buf, o);
			tui_draw_out(t, o, t->rows - 2, 0, t->cols, A_NORMAL);
		}
		tui_out_reset(o);
		out_text(o, ST_KEY, prompt);
		out_text(o, ST_NORMAL, buf);
		int pc = out_cols(o);
		int skip = pc >= t->cols ? pc - t->cols + 1 : 0;
		tui_draw_out(t, o, t->rows - 1, skip, t->cols, A_NORMAL);
		move(t->rows - 1, pc - skip < t->cols ? pc - skip : t->cols - 1);
		refresh();
		int k = next_key(t);
		if (k == TUI_KEY_TICK || k == KEY_RESIZE) {
			redraw = 1;
			continue;
		}
		if (k == ERR || k == 27 || k == 7 /* C-g */) {
			curs_set(0);
			t->in_prompt = 0;
			return NULL;
		}
		if (k == '\n' || k == '\r' || k == KEY_ENTER)
			break;
		if (k == KEY_BACKSPACE || k == 127 || k == 8) {
			while (n && ((unsigned char)buf[n - 1] & 0xc0) == 0x80)
				n--; /* a whole UTF-8 character */
			if (n)
				n--;
			buf[n] = 0;
		} else if (k == 21 /* C-u */) {
			n = 0;
			buf[0] = 0;
		} else if (k >= 32 && k < 256 && n + 1 < sizeof buf) {
			buf[n++] = (char)k;
			buf[n] = 0;
		}
	}
	curs_set(0);
	t->in_prompt = 0;
	return xstrdup(buf);
}

/* ---- search ---- */

static int line_matches(tui *t, view *v, size_t i)
{
	tui_out *o = &t->line;
	tui_out_reset(o);
	v->ops->line(t, v, i, o);
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(t->search, NULL);
	int r = pcre2_match(t->search, (PCRE2_SPTR)(o->text ? o->text : ""), o->len, 0, 0, md, NULL);
	pcre2_match_data_free(md);
	return r >= 0;
}

/* dir: 1 down, -1 up, relative to the direction of the last search (n, N) */
static void search_next(tui *t, int dir)
{
	view *v = t->top;
	if (!t->search || !v || !v->nlines) {
		tui_msg(t, ST_WARN, "no search: press / or ? first");
		return;
	}
	dir *= t->search_dir ? t->search_dir : 1;
	char c = t->search_dir < 0 ? '?' : '/';
	for (size_t k = 1; k <= v->nlines; k++) {
		size_t i = (v->cur + (dir > 0 ? k : v->nlines - k)) % v->nlines;
		if (line_matches(t, v, i)) {
			if ((dir > 0 && i <= v->cur) || (dir < 0 && i >= v->cur))
				tui_msg(t, ST_DIM, "search wrapped: %c%s", c, t->search_text);
			else
				tui_msg(t, ST_DIM, "%c%s", c, t->search_text);
			v->cur = i;
			return;
		}
	}
	tui_msg(t, ST_WARN, "not found: %c%s", c, t->search_text);
}

/* '/' (dir 1) or '?' (dir -1), as in less: an empty pattern repeats the last search in the
 * new direction; '?' and Enter before any search opens the help, where '?' used to. */
static void search(tui *t, int dir)
{
	char *s = tui_prompt(t, dir > 0 ? "/" : "?", NULL);
	if (!s)
		return;
	if (!*s) {
		free(s);
		if (!t->search && dir < 0) {
			tui_help(t);
			return;
		}
		t->search_dir = dir;
		search_next(t, 1);
		return;
	}
	int err;
	PCRE2_SIZE off;
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)s, PCRE2_ZERO_TERMINATED, PCRE2_UTF, &err, &off, NULL);
	if (!re) {
		PCRE2_UCHAR msg[256];
		pcre2_get_error_message(err, msg, sizeof msg);
		tui_msg(t, ST_WARN, "bad pattern at column %zu: %s", (size_t)off + 1, (char *)msg);
		free(s);
		return;
	}
	if (t->search)
		pcre2_code_free(t->search);
	t->search = re;
	t->search_dir = dir;
	snprintf(t->search_text, sizeof t->search_text, "%s", s);
	free(s);
	search_next(t, 1);
}

/* ---- marks ---- */

/* m then a letter: marks the line; ' then the letter: back to it; '' back to where the last
 * jump started, as in less and vi. */
static void mark(tui *t, view *v, int set)
{
	tui_msg(t, ST_DIM, set ? "mark: type a letter (a-z)" : "go to mark: type a letter, or ' for the last jump");
	tui_draw(t);
	int k = next_key(t);
	t->msg[0] = 0;
	if (!set && k == '\'') {
		size_t back = v->mark_prev;
		v->mark_prev = v->cur;
		v->cur = back < v->nlines ? back : v->cur;
		return;
	}
	if (k < 'a' || k > 'z') {
		tui_msg(t, ST_WARN, "marks are the letters a to z");
		return;
	}
	int i = k - 'a';
	if (set) {
		v->mark[i] = v->cur;
		v->marks |= 1u << i;
		tui_msg(t, ST_DIM, "mark %c set on line %zu", k, v->cur + 1);
	} else if (!(v->marks & (1u << i))) {
		tui_msg(t, ST_WARN, "no mark %c in this view (m%c sets it)", k, k);
	} else {
		v->mark_prev = v->cur;
		v->cur = v->mark[i] < v->nlines ? v->mark[i] : (v->nlines ? v->nlines - 1 : 0);
		tui_msg(t, ST_DIM, "mark %c: line %zu ('' goes back)", k, v->cur + 1);
	}
}

/* ---- writing ---- */

int tui_write_view(tui *t, view *v, const char *path)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		tui_msg(t, ST_WARN, "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	tui_out *o = &t->line;
	fprintf(f, "%s\n", v->title);
	if (v->ops->header) {
		tui_out_reset(o);
		v->ops->header(t, v, o);
		fprintf(f, "%s\n", o->text ? o->text : "");
	}
	for (size_t i = 0; i < v->nlines; i++) {
		tui_out_reset(o);
		v->ops->line(t, v, i, o);
		fprintf(f, "%s\n", o->text ? o->text : "");
	}
	if (fclose(f) != 0) {
		tui_msg(t, ST_WARN, "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	tui_msg(t, ST_DIM, "wrote %zu lines to %s", v->nlines, path);
	return 0;
}

/* The screen as text, one line per row, trailing blanks removed. */
static int dump_screen(tui *t, const char *path)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		tui_msg(t, ST_WARN, "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	for (int y = 0; y < t->rows; y++) {
		char line[4096];
		size_t n = 0;
		for (int x = 0; x < t->cols && n + 8 < sizeof line; x++) {
			cchar_t cc;
			if (mvin_wch(y, x, &cc) == ERR)
				break;
			wchar_t wc[CCHARW_MAX + 1];
			attr_t a;
			short pair;
			if (getcchar(&cc, wc, &a, &pair, NULL) == ERR || !wc[0])
				continue;
			mbstate_t st;
			memset(&st, 0, sizeof st);
			size_t k = wcrtomb(line + n, wc[0], &st);
			if (k != (size_t)-1)
				n += k;
		}
		while (n && line[n - 1] == ' ')
			n--;
		line[n] = 0;
		fprintf(f, "%s\n", line);
	}
	return fclose(f) == 0 ? 0 : -1;
}

/* ---- the ':' command line ---- */

/* RUN:P.T; -1 when malformed, -2 when P or T is out of range (it would wrap) */
static int parse_trace(const char *s, char *run, size_t n, int *p, int *th)
{
	const char *colon = strrchr(s, ':');
	if (!colon || colon == s || (size_t)(colon - s) >= n)
		return -1;
	memcpy(run, s, (size_t)(colon - s));
	run[colon - s] = 0;
	char *end;
	errno = 0;
	long a = strtol(colon + 1, &end, 10);
	if (*end != '.' || end == colon + 1)
		return -1;
	const char *q = end + 1;
	int big = errno == ERANGE;
	errno = 0;
	long b = strtol(q, &end, 10);
	if (*end || end == q || a < 0 || b < 0)
		return -1;
	if (big || errno == ERANGE || a > 1L << 30 || b > 1L << 30)
		return -2;
	*p = (int)a;
	*th = (int)b;
	return 0;
}

/* A filter that cannot be parsed is refused when it is typed, as the CLI does. */
static int filter_ok(const char *spec, dt_err *e)
{
	filt_lib *lib = filt_lib_new();
	filt *f = NULL;
	int r = filt_lib_load_default(lib, e);
	if (!r)
		r = filt_parse(lib, spec, &f, e);
	filt_free(f);
	filt_lib_free(lib);
	return r;
}

static void command(tui *t, const char *line)
{
	char buf[1024];
	snprintf(buf, sizeof buf, "%s", line);
	char *w[8];
	int n = 0;
	for (char *s = strtok(buf, " \t"); s && n < 8; s = strtok(NULL, " \t"))
		w[n++] = s;
	if (!n)
		return;
	tui_params p = t->params;
	if (!strcmp(w[0], "q") || !strcmp(w[0], "quit")) {
		pop(t);
	} else if (!strcmp(w[0], "qa") || !strcmp(w[0], "Q")) {
		t->quit = 1;
	} else if (!strcmp(w[0], "help")) {
		tui_help(t);
	} else if (!strcmp(w[0], "runs")) {
		view_runs_open(t);
	} else if (!strcmp(w[0], "classes") && n == 2) {
		view_classes_open(t, w[1]);
	} else if ((!strcmp(w[0], "trace") || !strcmp(w[0], "nlr")) && n == 3) {
		char spec[300];
		char run[256];
		int pp, th;
		snprintf(spec, sizeof spec, "%s:%s", w[1], w[2]);
		int pr = parse_trace(spec, run, sizeof run, &pp, &th);
		if (pr == -2)
			tui_msg(t, ST_WARN, "%s: P.T out of range", w[2]);
		else if (pr)
			tui_msg(t, ST_WARN, "usage: :%s RUN P.T", w[0]);
		else
			view_trace_open(t, run, pp, th);
	} else if (!strcmp(w[0], "lattice") && n == 2) {
		view_lattice_open(t, w[1]);
	} else if (!strcmp(w[0], "jsm") && (n == 2 || (n == 3 && !strcmp(w[2], "delta")))) {
		view_jsm_open(t, w[1], n == 3);
	} else if (!strcmp(w[0], "rank") && n == 3) {
		view_rank_open(t, w[1], w[2]);
	} else if (!strcmp(w[0], "diff") && n == 3) {
		char ra[256], rb[256];
		int pa, ta, pb, tb;
		int ra_ = parse_trace(w[1], ra, sizeof ra, &pa, &ta);
		int rb_ = parse_trace(w[2], rb, sizeof rb, &pb, &tb);
		if (ra_ == -2 || rb_ == -2)
			tui_msg(t, ST_WARN, "%s: P.T out of range", ra_ == -2 ? w[1] : w[2]);
		else if (ra_ || rb_)
			tui_msg(t, ST_WARN, "usage: :diff RUN:P.T RUN:P.T");
		else
			view_diff_open(t, ra, pa, ta, rb, pb, tb);
	} else if (!strcmp(w[0], "report") && n == 3) {
		char ra[256], rb[256];
		int pa, ta, pb, tb;
		if (parse_trace(w[1], ra, sizeof ra, &pa, &ta) ||
		    parse_trace(w[2], rb, sizeof rb, &pb, &tb))
			tui_msg(t, ST_WARN, "usage: :report RUN:P.T RUN:P.T");
		else
			view_report_open(t, ra, pa, ta, rb, pb, tb);
	} else if (!strcmp(w[0], "timeline") && n == 2) {
		view_timeline_open(t, w[1], (tui_tl_at){ -1, -1, -1 });
	} else if (!strcmp(w[0], "hang") && (n == 2 || n == 3)) {
		view_hang_open(t, w[1], n == 3 ? w[2] : NULL);
	} else if (!strcmp(w[0], "blamediff") && n == 3) {
		view_blame_change_open(t, w[1], w[2]);
	} else if (!strcmp(w[0], "blame") && n >= 2) {
		view_blame_open(t, w[1], w + 2, (size_t)n - 2);
	} else if (!strcmp(w[0], "filters")) {
		view_filters_open(t);
	} else if (!strcmp(w[0], "filter") && n == 2) {
		dt_err e;
		dt_err_clear(&e);
		if (filter_ok(w[1], &e)) {
			tui_msg(t, ST_WARN, "%s", e.msg);
		} else {
			snprintf(p.filter, sizeof p.filter, "%s", w[1]);
			tui_set_params(t, &p);
		}
	} else if (!strcmp(w[0], "attrs") && n == 2) {
		attrs_mode m;
		int args;
		dt_err e;
		dt_err_clear(&e);
		if (attrs_mode_parse_args(w[1], &m, &args, &e)) {
			tui_msg(t, ST_WARN, "%s", e.msg);
		} else {
			attrs_mode_name_args(m, args, p.attrs, sizeof p.attrs);
			tui_set_params(t, &p);
		}
	} else if ((!strcmp(w[0], "K") || !strcmp(w[0], "k")) && n == 2) {
		int k = atoi(w[1]);
		if (k < 1 || k > 32) {
			tui_msg(t, ST_WARN, "K goes from 1 to 32");
		} else {
			p.k = (unsigned)k;
			tui_set_params(t, &p);
		}
	} else if ((!strcmp(w[0], "w") || !strcmp(w[0], "write")) && n == 2 && t->top) {
		tui_write_view(t, t->top, w[1]);
	} else if (!strcmp(w[0], "dump") && n == 2) {
		tui_draw(t);
		if (dump_screen(t, w[1]) == 0)
			tui_msg(t, ST_DIM, "screen written to %s", w[1]);
	} else {
		tui_msg(t, ST_WARN,
			"unknown command ':%s' (runs, classes RUN, trace RUN P.T, lattice RUN, jsm RUN [delta], "
			"rank NORMAL FAULTY, diff RUN:P.T RUN:P.T, report RUN:P.T RUN:P.T, timeline RUN, hang RUN [NORMAL], "
			"blame RUN [FUNC]..., blamediff NORMAL FAULTY, filters, filter SPEC, attrs MODE, "
			"K N, w FILE, dump FILE, q)",
			line);
	}
}

/* ---- the loop ---- */

static void page(tui *t, view *v, int dir, int half)
{
	size_t rows = (size_t)tui_list_rows(t, v);
	size_t step = half ? (rows + 1) / 2 : rows;
	if (dir > 0) {
		v->cur = v->cur + step < v->nlines ? v->cur + step : (v->nlines ? v->nlines - 1 : 0);
		v->top += step;
		if (v->top + rows > v->nlines)
			v->top = v->nlines > rows ? v->nlines - rows : 0;
	} else {
		v->cur = v->cur > step ? v->cur - step : 0;
		v->top = v->top > step ? v->top - step : 0;
	}
}

static void handle_mouse(tui *t, view *v)
{
	MEVENT me;
	if (getmouse(&me) != OK)
		return;
	int first = tui_title_rows(t, v) + (v->ops->header ? 1 : 0);
	if (me.bstate & BUTTON4_PRESSED) {
		v->cur = v->cur > 3 ? v->cur - 3 : 0;
	} else if (me.bstate & (BUTTON5_PRESSED)) {
		v->cur = v->cur + 3 < v->nlines ? v->cur + 3 : (v->nlines ? v->nlines - 1 : 0);
	} else if (me.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON1_DOUBLE_CLICKED)) {
		if (me.y >= first && me.y < first + tui_list_rows(t, v)) {
			size_t i = v->top + (size_t)(me.y - first);
			if (i < v->nlines) {
				v->cur = i;
				if ((me.bstate & BUTTON1_DOUBLE_CLICKED) && v->ops->enter)
					v->ops->enter(t, v, i);
			}
		}
	}
}

/* The display column where a word of the cursor's line starts after col (dir > 0) or before
 * it (dir < 0), or -1: H and L scroll by words, so a long WHAT CHANGED or a call's arguments
 * read from a word's start rather than from wherever 8 columns fall. */
static long word_col(tui *t, view *v, size_t col, int dir)
{
	if (!v->nlines || v->cur >= v->nlines)
		return -1;
	tui_out o = { 0 };
	o.width = t->cols - TUI_GUTTER;
	o.utf8 = t->utf8;
	v->ops->line(t, v, v->cur, &o);
	long best = -1;
	size_t c = 0;
	int after_space = 1;
	for (size_t i = 0; i < o.len; i++) {
		unsigned char ch = (unsigned char)o.text[i];
		if ((ch & 0xc0) == 0x80)
			continue; /* inside a UTF-8 character: one column */
		int sp = ch == ' ';
		if (!sp && after_space) {
			if (dir > 0 && c > col && best < 0)
				best = (long)c;
			if (dir < 0 && c < col)
				best = (long)c;
		}
		after_space = sp;
		c++;
	}
	tui_out_free(&o);
	return best;
}

static void handle(tui *t, int k)
{
	view *v = t->top;
	if (!v)
		return;
	if (k != ERR && k != KEY_MOUSE && k != KEY_RESIZE)
		t->msg[0] = 0;
	int key = k != ERR && k != KEY_RESIZE && k != KEY_MOUSE; /* else a count typed stays */
	/* a view's own keys first, so that it can take over j/k-like keys when it needs to
	 * (digits too: the runs view marks with 1 and 2) */
	if (v->ops->key && v->ops->key(t, v, k)) {
		if (key)
			t->count = 0;
		return;
	}
	if ((k >= '1' && k <= '9') || (k == '0' && t->count)) {
		if (t->count < 100000000)
			t->count = t->count * 10 + (unsigned long)(k - '0');
		tui_msg(t, ST_DIM, "%lu", t->count);
		return;
	}
	/* the count of a motion: 1 without one */
	size_t cnt = t->count ? (size_t)t->count : 1;
	int counted = t->count != 0;
	if (key)
		t->count = 0;
	switch (k) {
	case 'j':
	case KEY_DOWN:
		v->cur = v->cur + cnt < v->nlines ? v->cur + cnt : (v->nlines ? v->nlines - 1 : 0);
		break;
	case 'k':
	case KEY_UP:
		v->cur = v->cur > cnt ? v->cur - cnt : 0;
		break;
	case KEY_NPAGE:
	case ' ':
	case 6: /* C-f */
		for (size_t i = 0; i < cnt; i++)
			page(t, v, 1, 0);
		break;
	case KEY_PPAGE:
	case 2: /* C-b */
	case '-':
		for (size_t i = 0; i < cnt; i++)
			page(t, v, -1, 0);
		break;
	case 4: /* C-d */
		page(t, v, 1, 1);
		break;
	case 21: /* C-u */
		page(t, v, -1, 1);
		break;
	case 'g':
	case KEY_HOME:
	case 'G':
	case KEY_END:
		/* with a count, line N (from 1), as in vim and less; else the first or last */
		if (counted)
			v->cur = cnt <= v->nlines ? cnt - 1 : (v->nlines ? v->nlines - 1 : 0);
		else if (k == 'g' || k == KEY_HOME)
			v->cur = v->top = 0;
		else
			v->cur = v->nlines ? v->nlines - 1 : 0;
		break;
	case '\n':
	case '\r':
	case KEY_ENTER:
	case 'l':
	case KEY_RIGHT:
		if (v->ops->enter && v->nlines)
			v->ops->enter(t, v, v->cur);
		break;
	case 'q':
	case 27:
	case 'h':
	case KEY_LEFT:
		pop(t);
		break;
	case 'Q':
		t->quit = 1;
		break;
	case KEY_F(1):
		tui_help(t);
		break;
	case '/':
	case '?':
		search(t, k == '/' ? 1 : -1);
		break;
	case 'm':
	case '\'':
		mark(t, v, k == 'm');
		break;
	case 'n':
		search_next(t, 1);
		break;
	case 'N':
		search_next(t, -1);
		break;
	case 'H': {
		long w = word_col(t, v, (size_t)v->hscroll, -1);
		v->hscroll = w >= 0 ? (int)w : 0;
		break;
	}
	case 'L': {
		long w = word_col(t, v, (size_t)v->hscroll, 1);
		v->hscroll = w >= 0 ? (int)w : v->hscroll + 8;
		break;
	}
	case ':': {
		char *c = tui_prompt(t, ":", NULL);
		if (c) {
			command(t, c);
			free(c);
		}
		break;
	}
	case 'w': {
		char def[128];
		snprintf(def, sizeof def, "difftrace-%s.txt", v->ops->name);
		char *f = tui_prompt(t, "write this view to: ", def);
		if (f && *f)
			tui_write_view(t, v, f);
		free(f);
		break;
	}
	case 12: /* C-l */
		clearok(stdscr, TRUE);
		break;
	case KEY_RESIZE:
		break; /* tui_draw() reads the new size */
	case KEY_MOUSE:
		handle_mouse(t, v);
		break;
	case ERR:
		break;
	default:
		tui_msg(t, ST_DIM, "that key does nothing here; F1 lists the keys");
	}
}

/* The screen: a headless one of the script's size (o->script), else the terminal's, which must
 * be able to move its cursor. -1 after saying why on stderr. */
static int screen_open(tui *t, const tui_opts *o, SCREEN **scr, FILE **nul_out, FILE **nul_in)
{
	if (o->script) {
		t->headless = 1;
		t->dump = o->dump;
		if (!(t->script = fopen(o->script, "r"))) {
			fprintf(stderr, "difftrace tui: cannot read script %s: %s\n", o->script,
				strerror(errno));
			return -1;
		}
		char buf[16];
		snprintf(buf, sizeof buf, "%d", o->rows > 0 ? o->rows : 24);
		setenv("LINES", buf, 1);
		snprintf(buf, sizeof buf, "%d", o->cols > 0 ? o->cols : 80);
		setenv("COLUMNS", buf, 1);
		*nul_out = fopen("/dev/null", "w");
		*nul_in = fopen("/dev/null", "r");
		*scr = newterm("xterm", *nul_out, *nul_in);
		if (!*scr) {
			fprintf(stderr, "difftrace tui: no 'xterm' terminal description for the "
					"headless screen\n");
			return -1;
		}
		set_term(*scr);
	} else {
		const char *term = getenv("TERM");
		if (!term || !*term) {
			fprintf(stderr, "difftrace tui: TERM is not set: not a terminal?\n");
			return -1;
		}
		/* a terminal that cannot move its cursor (TERM=dumb, an editor's shell) would get
		 * every view on one line */
		int terr = 0, usable = 0;
		if (setupterm(NULL, 1, &terr) == OK) {
			const char *cup = tigetstr("cup");
			usable = cup && cup != (const char *)-1;
			del_curterm(cur_term); /* initscr sets the terminal up again */
		}
		if (!usable) {
			fprintf(stderr,
				"difftrace tui: the terminal '%s' cannot move its cursor; use the "
				"command line instead (difftrace runs, classes, rank, diff: see "
				"difftrace(1))\n",
				term);
			return -1;
		}
		initscr();
	}
	return 0;
}

/* Everything t holds, its views first, then t. */
static void tui_free(tui *t)
{
	while (t->top)
		pop(t);
	tui_tasks_end(t);
	tui_analyses_free(t);
	free(t->queue);
	tui_out_free(&t->line);
	if (t->search)
		pcre2_code_free(t->search);
	if (t->script)
		fclose(t->script);
	if (t->timing)
		fclose(t->timing);
	free(t->normal);
	free(t->faulty);
	store_close(t->s);
	pthread_mutex_destroy(&t->mu);
	free(t->path);
	free(t);
}

int tui_main(const tui_opts *o)
{
	tui *t = xcalloc(1, sizeof *t);
	pthread_mutex_init(&t->mu, NULL);
	t->path = xstrdup(o->store_path);
	t->params = o->params;
	dt_err e;
	dt_err_clear(&e);
	const char *dflt = NULL;
	if (store_open(o->store_path, STORE_OPEN_EXISTING, &t->s, &e) ||
	    (!t->params.filter[0] && !(dflt = analysis_default_filter(t->s, &e)))) {
		char msg[1200];
		dt_err_format(&e, msg, sizeof msg);
		fprintf(stderr, "difftrace: %s\n", msg);
		if (t->s)
			store_close(t->s);
		free(t->path);
		free(t);
		return 1;
	}
	if (dflt)
		snprintf(t->params.filter, sizeof t->params.filter, "%s", dflt);
	tui_analyses_init(t);
	setlocale(LC_ALL, "");
	const char *cs = nl_langinfo(CODESET);
	t->utf8 = cs && !strcmp(cs, "UTF-8");
	SCREEN *scr = NULL;
	FILE *nul_out = NULL, *nul_in = NULL;
	if (screen_open(t, o, &scr, &nul_out, &nul_in)) {
		if (nul_out)
			fclose(nul_out);
		if (nul_in)
			fclose(nul_in);
		if (t->script)
			fclose(t->script);
		store_close(t->s);
		pthread_mutex_destroy(&t->mu);
		free(t->path);
		free(t);
		return 1;
	}
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	set_escdelay(25); /* ESC must feel immediate over ssh */
	curs_set(0);
	timeout(t->headless ? 0 : 100);
	if (!t->headless)
		mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON1_DOUBLE_CLICKED |
				  BUTTON4_PRESSED | BUTTON5_PRESSED,
			  NULL);
	tui_init_styles(t);
	getmaxyx(stdscr, t->rows, t->cols);
	const char *hold = getenv("DIFFTRACE_TUI_TASK_HOLD");
	t->task_hold = hold && *hold ? hold : NULL;
	const char *tf = getenv("DIFFTRACE_TUI_TIMING");
	if (tf && *tf)
		t->timing = fopen(tf, "a");

	view_runs_open(t);
	if (o->normal && o->faulty)
		view_rank_open(t, o->normal, o->faulty);
	while (!t->quit && t->top) {
		tui_draw(t);
		int k = next_key(t);
		if (k == ERR && t->headless)
			break; /* the script is over */
		if (k == '\r')
			k = '\n';
		handle(t, k);
	}
	if (t->headless && o->dump && !t->dumped) {
		tui_draw(t);
		dump_screen(t, o->dump);
	}
	endwin();
	if (scr)
		delscreen(scr);
	tui_wait_job(t, 0); /* the views' tasks are stopped by tasks_end */
	if (t->th_joinable)
		pthread_join(t->th, NULL);
	tui_free(t);
	if (nul_out)
		fclose(nul_out);
	if (nul_in)
		fclose(nul_in);
	return 0;
}
