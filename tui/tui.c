/* tui.c: the interface's one loop: the view stack, drawing, the keys every view shares, help,
 * search, the ':' command line, background analyses, and the headless mode the tests drive.
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

/* ---- building lines ---- */

static void out_reserve(tui_out *o, size_t n)
{
	GROW(o->text, o->cap, o->len + n + 1);
}

void out_textn(tui_out *o, int style, const char *s, size_t n)
{
	if (!n)
		return;
	out_reserve(o, n);
	memcpy(o->text + o->len, s, n);
	if (o->nspans && o->spans[o->nspans - 1].style == style &&
	    o->spans[o->nspans - 1].off + o->spans[o->nspans - 1].len == o->len) {
		o->spans[o->nspans - 1].len += n;
	} else {
		GROW(o->spans, o->capspans, o->nspans + 1);
		o->spans[o->nspans++] = (tui_span){ style, o->len, n };
	}
	o->len += n;
	o->text[o->len] = 0;
}

void out_text(tui_out *o, int style, const char *s)
{
	out_textn(o, style, s, strlen(s));
}

void out_printf(tui_out *o, int style, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof buf) {
		out_textn(o, style, buf, (size_t)n);
		return;
	}
	char *big = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	out_textn(o, style, big, (size_t)n);
	free(big);
}

/* Display columns of the UTF-8 string s[0..n). Invalid bytes count one column each. */
int tui_cols_of(const char *s, size_t n)
{
	mbstate_t st;
	memset(&st, 0, sizeof st);
	int cols = 0;
	size_t i = 0;
	while (i < n) {
		wchar_t wc;
		size_t k = mbrtowc(&wc, s + i, n - i, &st);
		if (k == (size_t)-1 || k == (size_t)-2 || k == 0) {
			memset(&st, 0, sizeof st);
			cols++;
			i++;
			continue;
		}
		int w = wcwidth(wc);
		cols += w < 0 ? 1 : w;
		i += k;
	}
	return cols;
}

int out_cols(const tui_out *o)
{
	return tui_cols_of(o->text, o->len);
}

void out_pad(tui_out *o, int col)
{
	int c = out_cols(o);
	while (c++ < col)
		out_textn(o, ST_NORMAL, " ", 1);
}

static void out_reset(tui_out *o)
{
	o->len = 0;
	o->nspans = 0;
	if (o->text)
		o->text[0] = 0;
}

static void out_free(tui_out *o)
{
	free(o->text);
	free(o->spans);
	memset(o, 0, sizeof *o);
}

/* ---- the state ---- */

struct acache {
	char run[128];
	tui_params p;
	an_result r;
};

struct job {
	char run[128];
	tui_params p;
};

struct tui {
	store *s;
	char *path;
	view *top;
	int rows, cols;
	int headless;
	FILE *script;
	const char *dump; /* headless: where the screen goes when the script runs out */
	int dumped;
	int in_prompt;    /* a prompt owns the bottom rows: no full redraw under it */
	char pending[1024]; /* a typed string of the script, delivered key by key */
	size_t npending, ppending;
	int color, utf8;
	attr_t attr[ST_NSTYLES];
	char msg[512];
	int msgstyle;
	pcre2_code *search;
	char search_text[256];
	int search_dir;   /* 1 after '/', -1 after '?': n goes that way, N the other */
	tui_params params;
	struct acache **ac; /* never freed before the end, so views may keep pointers */
	size_t nac;
	struct acache **oc; /* analyses read without their matrix (tui_analysis_objects), the same */
	size_t noc;
	char *normal, *faulty;
	unsigned long count; /* a count typed before a motion (5j, 10G), as in less and vim; 0 none */
	int quit;
	FILE *timing; /* DIFFTRACE_TUI_TIMING: one line per view opened, with its milliseconds */
	tui_out line;
	/* background analyses: a queue worked by one thread with its own store connection */
	pthread_mutex_t mu;
	pthread_t th;
	int th_running, th_joinable;
	struct job *queue;
	size_t nqueue;
	char job_run[128];
	tui_params job_p; /* the parameters of the job running */
	int said_unsaved; /* "computed in memory, not saved" was said */
	uint64_t job_done, job_total;
	int job_waiting; /* the job waits for the store's write lock (another program writes) */
	int job_finished; /* a job ended since the last look: views must reopen */
	char job_err[800];
	/* read-only store: analyses the job computed in memory, handed over to ac by poll_job */
	struct acache **done;
	size_t ndone;
	/* the views' background tasks (tui_task_get), kept for the session */
	struct tui_task **tasks;
	size_t ntasks;
	int task_finished; /* a task ended since the last look: views must reopen */
	const char *task_hold; /* DIFFTRACE_TUI_TASK_HOLD: tasks wait until this file exists */
	double idle_drawn; /* when the screen was last redrawn for no key, ms */
	char pct_text[80]; /* tui_job_pct's answer (drawing is on the main thread only) */
};

struct tui_task {
	tui *t;
	char *key;
	const tui_task_ops *ops;
	void *arg;
	pthread_t th;
	int joinable;
	int done;      /* under t->mu: run returned, res is set */
	int landed;    /* the views were reopened with it (main thread only) */
	int cancel;    /* under t->mu */
	char stage[160];
	void *res;
	double t0;     /* when it started, ms */
};

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

/* ---- analyses and the background job ---- */

static int params_eq(const tui_params *a, const tui_params *b)
{
	return !strcmp(a->filter, b->filter) && !strcmp(a->attrs, b->attrs) && a->k == b->k;
}

static int to_an_params(const tui_params *tp, an_params *p, dt_err *e)
{
	memset(p, 0, sizeof *p);
	p->filter = tp->filter;
	p->k = tp->k;
	p->linkage = CLU_WARD;
	return attrs_mode_parse_args(tp->attrs, &p->mode, &p->args, e);
}

static void job_progress(void *arg, uint64_t done, uint64_t total)
{
	tui *t = arg;
	pthread_mutex_lock(&t->mu);
	t->job_done = done;
	t->job_total = total;
	pthread_mutex_unlock(&t->mu);
}

/* The job's store notices: nothing on stderr under curses; a wait for the store's lock shows on
 * the status line until the job ends. */
static void job_notice(void *arg, const char *msg)
{
	tui *t = arg;
	if (strncmp(msg, "waiting for the store", 21))
		return;
	pthread_mutex_lock(&t->mu);
	t->job_waiting = 1;
	pthread_mutex_unlock(&t->mu);
}

static void *job_thread(void *arg)
{
	tui *t = arg;
	store *s = NULL;
	dt_err e;
	dt_err_clear(&e);
	int ok = store_open(t->path, STORE_OPEN_EXISTING, &s, &e) == 0;
	if (ok)
		store_set_notice(s, job_notice, t);
	for (;;) {
		pthread_mutex_lock(&t->mu);
		if (!t->nqueue || !ok) {
			if (!ok)
				snprintf(t->job_err, sizeof t->job_err, "%s", e.msg);
			t->th_running = 0;
			t->job_finished = 1;
			pthread_mutex_unlock(&t->mu);
			break;
		}
		struct job j = t->queue[0];
		memmove(t->queue, t->queue + 1, (t->nqueue - 1) * sizeof *t->queue);
		t->nqueue--;
		snprintf(t->job_run, sizeof t->job_run, "%s", j.run);
		t->job_p = j.p;
		t->job_done = t->job_total = 0;
		t->job_waiting = 0;
		pthread_mutex_unlock(&t->mu);
		store_wait_rearm(s); /* each job says again when it waits */

		an_params p;
		store_run run;
		int64_t id;
		int reused;
		dt_err_clear(&e);
		int r = to_an_params(&j.p, &p, &e);
		p.progress = job_progress;
		p.progress_arg = t;
		if (!r && !(r = store_run_get_lite(s, j.run, &run, &e))) {
			r = analysis_run(s, &run, &p, &id, &reused, &e);
			store_run_free(&run);
		}
		struct acache *c = NULL;
		if (!r && store_readonly(s)) { /* not saved: only this connection sees it */
			c = xcalloc(1, sizeof *c);
			if ((r = analysis_load(s, id, &c->r, &e)) != 0) {
				free(c);
				c = NULL;
			} else {
				snprintf(c->run, sizeof c->run, "%s", j.run);
				c->p = j.p;
			}
		}
		pthread_mutex_lock(&t->mu);
		if (c) {
			t->done = xrealloc(t->done, (t->ndone + 1) * sizeof *t->done);
			t->done[t->ndone++] = c;
		}
		if (r)
			snprintf(t->job_err, sizeof t->job_err, "analysis of %s: %s", j.run, e.msg);
		t->job_waiting = 0;
		t->job_finished = 1;
		pthread_mutex_unlock(&t->mu);
	}
	store_close(s);
	return NULL;
}

static void job_start(tui *t, const char *run, const tui_params *tp)
{
	pthread_mutex_lock(&t->mu);
	for (size_t i = 0; i < t->nqueue; i++)
		if (!strcmp(t->queue[i].run, run) && params_eq(&t->queue[i].p, tp)) {
			pthread_mutex_unlock(&t->mu);
			return;
		}
	if (t->th_running && !strcmp(t->job_run, run) && params_eq(&t->job_p, tp)) {
		pthread_mutex_unlock(&t->mu);
		return;
	}
	t->queue = xrealloc(t->queue, (t->nqueue + 1) * sizeof *t->queue);
	struct job *j = &t->queue[t->nqueue++];
	snprintf(j->run, sizeof j->run, "%s", run);
	j->p = *tp;
	int start = !t->th_running;
	if (start)
		t->th_running = 1;
	pthread_mutex_unlock(&t->mu);
	if (start) {
		if (t->th_joinable)
			pthread_join(t->th, NULL);
		t->th_joinable = pthread_create(&t->th, NULL, job_thread, t) == 0;
		if (!t->th_joinable) {
			t->th_running = 0;
			tui_msg(t, ST_WARN, "cannot start the background analysis");
		}
	}
}

int tui_job_waiting(tui *t)
{
	pthread_mutex_lock(&t->mu);
	int w = t->th_running && t->job_waiting;
	pthread_mutex_unlock(&t->mu);
	return w;
}

const char *tui_job_pct(tui *t, int pct)
{
	if (pct >= 0 && tui_job_waiting(t))
		snprintf(t->pct_text, sizeof t->pct_text, "%s",
			 "waiting for the store (another difftrace is importing)");
	else
		snprintf(t->pct_text, sizeof t->pct_text, "%d%%", pct < 0 ? 0 : pct);
	return t->pct_text;
}

int tui_job_progress(tui *t, char *what, size_t n)
{
	pthread_mutex_lock(&t->mu);
	int r = -1;
	if (t->th_running) {
		snprintf(what, n, "%s", t->job_run);
		r = t->job_total ? (int)(100 * t->job_done / t->job_total) : 0;
	}
	pthread_mutex_unlock(&t->mu);
	return r;
}

int tui_analysis(tui *t, const char *run, const an_result **out)
{
	return tui_analysis_as(t, run, &t->params, out);
}

/* The entry of cache c (n entries) for run under tp: 1 with *hit; 0 when there is none; -1
 * when another difftrace removed the run since (rm), said on the status line. */
static int cache_find(tui *t, struct acache *const *c, size_t n, const char *run,
		      const tui_params *tp, struct acache **hit)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(c[i]->run, run) && params_eq(&c[i]->p, tp)) {
			dt_err e;
			dt_err_clear(&e);
			if (store_run_exists(t->s, run, &e) == 0) {
				tui_msg(t, ST_WARN, "run %s was removed", run);
				return -1;
			}
			*hit = c[i];
			return 1;
		}
	return 0;
}

int tui_analysis_as(tui *t, const char *run, const tui_params *tp, const an_result **out)
{
	dt_err e;
	dt_err_clear(&e);
	struct acache *hit;
	int f = cache_find(t, t->ac, t->nac, run, tp, &hit);
	if (f) {
		if (f > 0)
			*out = &hit->r;
		return f;
	}
	an_params p;
	store_run sr;
	int64_t id;
	if (to_an_params(tp, &p, &e) || store_run_get_lite(t->s, run, &sr, &e)) {
		tui_msg(t, ST_WARN, "%s", e.msg);
		return -1;
	}
	int r = analysis_lookup(t->s, &sr, &p, &id, &e);
	store_run_free(&sr);
	if (r < 0) {
		tui_msg(t, ST_WARN, "%s", e.msg);
		return -1;
	}
	if (r == 0) {
		job_start(t, run, tp);
		return 0;
	}
	struct acache *c = xcalloc(1, sizeof *c);
	if (analysis_load(t->s, id, &c->r, &e)) {
		free(c);
		tui_msg(t, ST_WARN, "%s", e.msg);
		return -1;
	}
	snprintf(c->run, sizeof c->run, "%s", run);
	c->p = *tp;
	t->ac = xrealloc(t->ac, (t->nac + 1) * sizeof *t->ac);
	t->ac[t->nac++] = c;
	*out = &c->r;
	return 1;
}

int tui_analysis_id(tui *t, const char *run, int64_t *id)
{
	return tui_analysis_id_as(t, run, &t->params, id);
}

int tui_analysis_id_as(tui *t, const char *run, const tui_params *tp, int64_t *id)
{
	dt_err e;
	dt_err_clear(&e);
	struct acache *hit;
	int f = cache_find(t, t->ac, t->nac, run, tp, &hit);
	if (f) {
		if (f > 0)
			*id = hit->r.meta.id;
		return f;
	}
	an_params p;
	store_run sr;
	if (to_an_params(tp, &p, &e) || store_run_get_lite(t->s, run, &sr, &e)) {
		tui_msg(t, ST_WARN, "%s", e.msg);
		return -1;
	}
	int r = analysis_lookup(t->s, &sr, &p, id, &e);
	store_run_free(&sr);
	if (r < 0) {
		tui_msg(t, ST_WARN, "%s", e.msg);
		return -1;
	}
	if (r == 0)
		job_start(t, run, tp);
	return r;
}

int tui_analysis_objects(tui *t, const char *run, const an_result **out)
{
	return tui_analysis_objects_as(t, run, &t->params, out);
}

int tui_analysis_objects_as(tui *t, const char *run, const tui_params *tp,
			    const an_result **out)
{
	dt_err e;
	dt_err_clear(&e);
	struct acache *hit;
	int f = cache_find(t, t->oc, t->noc, run, tp, &hit);
	if (f) {
		if (f > 0)
			*out = &hit->r;
		return f;
	}
	for (size_t i = 0; i < t->nac; i++) /* loaded whole already */
		if (!strcmp(t->ac[i]->run, run) && params_eq(&t->ac[i]->p, tp))
			return tui_analysis_as(t, run, tp, out);
	int64_t id;
	int r = tui_analysis_id_as(t, run, tp, &id);
	if (r != 1)
		return r;
	struct acache *c = xcalloc(1, sizeof *c);
	if (analysis_load_objects(t->s, id, &c->r, &e)) {
		free(c);
		tui_msg(t, ST_WARN, "%s", e.msg);
		return -1;
	}
	snprintf(c->run, sizeof c->run, "%s", run);
	c->p = *tp;
	t->oc = xrealloc(t->oc, (t->noc + 1) * sizeof *t->oc);
	t->oc[t->noc++] = c;
	*out = &c->r;
	return 1;
}

/* ---- the views' background tasks ---- */

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void *task_thread(void *arg)
{
	tui_task *k = arg;
	tui *t = k->t;
	store *s = NULL;
	dt_err e;
	dt_err_clear(&e);
	void *res = NULL;
	if (t->task_hold) {
		/* for the tests: the view while its work is not done, as long as they need */
		tui_task_stage(k, "held until %s exists (DIFFTRACE_TUI_TASK_HOLD)", t->task_hold);
		while (access(t->task_hold, F_OK) && !tui_task_cancelled(k)) {
			struct timespec ts = { 0, 10 * 1000 * 1000 };
			nanosleep(&ts, NULL);
		}
	}
	/* read only: the tasks only read, and never wait for a writer's lock */
	if (store_open(t->path, STORE_OPEN_READ, &s, &e) == 0) {
		store_set_notice(s, NULL, NULL); /* nothing on stderr under curses */
		res = k->ops->run(k, k->arg, s);
		store_close(s);
	} else {
		tui_task_stage(k, "%s", e.msg);
	}
	pthread_mutex_lock(&t->mu);
	k->res = res;
	k->done = 1;
	t->task_finished = 1;
	pthread_mutex_unlock(&t->mu);
	return NULL;
}

tui_task *tui_task_get(tui *t, const char *key, const tui_task_ops *ops, void *arg)
{
	for (size_t i = 0; i < t->ntasks; i++)
		if (!strcmp(t->tasks[i]->key, key)) {
			if (ops->free_arg)
				ops->free_arg(arg);
			return t->tasks[i];
		}
	tui_task *k = xcalloc(1, sizeof *k);
	k->t = t;
	k->key = xstrdup(key);
	k->ops = ops;
	k->arg = arg;
	k->t0 = now_ms();
	snprintf(k->stage, sizeof k->stage, "starting");
	if (pthread_create(&k->th, NULL, task_thread, k)) {
		tui_msg(t, ST_WARN, "cannot start a thread for the %s view", ops->name);
		if (ops->free_arg)
			ops->free_arg(arg);
		free(k->key);
		free(k);
		return NULL;
	}
	k->joinable = 1;
	t->tasks = xrealloc(t->tasks, (t->ntasks + 1) * sizeof *t->tasks);
	t->tasks[t->ntasks++] = k;
	return k;
}

int tui_task_result(tui *t, tui_task *k, void **res, char *stage, size_t n)
{
	pthread_mutex_lock(&t->mu);
	int done = k->done;
	*res = done ? k->res : NULL;
	if (!*res && stage && n)
		snprintf(stage, n, "%s", k->stage);
	pthread_mutex_unlock(&t->mu);
	return done;
}

void tui_task_stage(tui_task *k, const char *fmt, ...)
{
	char b[sizeof k->stage];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(b, sizeof b, fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&k->t->mu);
	memcpy(k->stage, b, sizeof b);
	pthread_mutex_unlock(&k->t->mu);
}

int tui_task_cancelled(tui_task *k)
{
	pthread_mutex_lock(&k->t->mu);
	int c = k->cancel;
	pthread_mutex_unlock(&k->t->mu);
	return c;
}

static int tasks_running(tui *t)
{
	int n = 0;
	pthread_mutex_lock(&t->mu);
	for (size_t i = 0; i < t->ntasks; i++)
		n += !t->tasks[i]->done;
	pthread_mutex_unlock(&t->mu);
	return n;
}

/* At the end: asks the tasks to stop, waits for them and frees them. */
static void tasks_end(tui *t)
{
	pthread_mutex_lock(&t->mu);
	for (size_t i = 0; i < t->ntasks; i++)
		t->tasks[i]->cancel = 1;
	pthread_mutex_unlock(&t->mu);
	for (size_t i = 0; i < t->ntasks; i++) {
		tui_task *k = t->tasks[i];
		if (k->joinable)
			pthread_join(k->th, NULL);
		if (k->res && k->ops->free_result)
			k->ops->free_result(k->res);
		if (k->ops->free_arg)
			k->ops->free_arg(k->arg);
		free(k->key);
		free(k);
	}
	free(t->tasks);
	t->tasks = NULL;
	t->ntasks = 0;
}

/* ---- the view stack ---- */

static void draw(tui *t);

view *tui_push(tui *t, const view_ops *ops, void *data, const char *fmt, ...)
{
	double t0 = t->timing ? now_ms() : 0;
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
		draw(t);
		fprintf(t->timing, "%s %.3f ms\n", ops->name, now_ms() - t0);
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

/* ---- drawing ---- */

static void init_styles(tui *t)
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

static void draw_out(tui *t, const tui_out *o, int y, int skip, int width, attr_t extra)
{
	draw_at(t, o, y, 0, skip, width, extra);
}

/* List lines and headers start after a gutter of TUI_GUTTER columns, where the cursor's '>'
 * goes, so that the selected line shows without colour or attributes (and in screen dumps). */
#define TUI_GUTTER 2

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
static int title_rows(tui *t, const view *v)
{
	return title_wrap(v->title, t->cols) ? 2 : 1;
}

static int list_rows(tui *t, const view *v)
{
	int rows = t->rows - 2 - title_rows(t, v) - (v->ops->header ? 1 : 0) -
		   (v->ops->footer ? v->ops->nfooter : 0);
	return rows < 1 ? 1 : rows;
}

static void keep_cursor_visible(tui *t, view *v)
{
	int rows = list_rows(t, v);
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
static void draw_noref(tui *t)
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
	out_reset(o);
	size_t wrap = title_wrap(v->title, t->cols);
	out_textn(o, ST_HEADER, v->title, wrap ? wrap : strlen(v->title));
	draw_out(t, o, 0, 0, t->cols, A_REVERSE);
	int y = 1;
	if (wrap) {
		out_reset(o);
		out_text(o, ST_HEADER, "  ");
		out_text(o, ST_HEADER, v->title + wrap);
		draw_out(t, o, y++, 0, t->cols, A_REVERSE);
	}
	o->width = t->cols - TUI_GUTTER;
	if (v->ops->header) {
		out_reset(o);
		v->ops->header(t, v, o);
		mvaddstr(y, 0, "  ");
		draw_at(t, o, y++, TUI_GUTTER, v->hscroll, t->cols - TUI_GUTTER, A_NORMAL);
	}
	int rows = list_rows(t, v);
	for (int r = 0; r < rows && v->top + (size_t)r < v->nlines; r++) {
		size_t i = v->top + (size_t)r;
		out_reset(o);
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
			out_reset(o);
			v->ops->footer(t, v, f, o);
			draw_out(t, o, y + rows + f, 0, t->cols, A_NORMAL);
		}
	/* status line */
	out_reset(o);
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
	draw_out(t, o, t->rows - 2, 0, t->cols, A_REVERSE);
	out_reset(o);
	if (t->msg[0])
		out_text(o, t->msgstyle, t->msg);
	else
		out_text(o, ST_DIM, "q:Back  Enter:Open  /?:Search  ::Command  w:Write  F1:Help  Q:Quit");
	draw_out(t, o, t->rows - 1, 0, t->cols, A_NORMAL);
}

static void draw(tui *t)
{
	draw_noref(t);
	refresh();
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
static void wait_job(tui *t, int tasks)
{
	for (;;) {
		pthread_mutex_lock(&t->mu);
		int running = t->th_running;
		pthread_mutex_unlock(&t->mu);
		if (!running && !(tasks && tasks_running(t)))
			break;
		struct timespec ts = { 0, 2 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
}

/* Checks whether background work ended; then views reopen with the new data (returns 1). */
static int poll_job(tui *t)
{
	pthread_mutex_lock(&t->mu);
	int fin = t->job_finished;
	t->job_finished = 0;
	char err[800];
	snprintf(err, sizeof err, "%s", t->job_err);
	t->job_err[0] = 0;
	int unsaved = t->ndone > 0;
	for (size_t i = 0; i < t->ndone; i++) {
		t->ac = xrealloc(t->ac, (t->nac + 1) * sizeof *t->ac);
		t->ac[t->nac++] = t->done[i];
	}
	t->ndone = 0;
	fin |= t->task_finished;
	t->task_finished = 0;
	pthread_mutex_unlock(&t->mu);
	if (!fin)
		return 0;
	/* the tasks that ended: their threads joined, the time until their view shows them */
	tui_task *landed[8];
	size_t nlanded = 0;
	for (size_t i = 0; i < t->ntasks; i++) {
		tui_task *k = t->tasks[i];
		pthread_mutex_lock(&t->mu);
		int done = k->done;
		pthread_mutex_unlock(&t->mu);
		if (!done || k->landed)
			continue;
		if (k->joinable)
			pthread_join(k->th, NULL);
		k->joinable = 0;
		k->landed = 1;
		if (nlanded < sizeof landed / sizeof *landed)
			landed[nlanded++] = k;
	}
	tui_reopen_all(t);
	if (t->timing && nlanded) {
		draw(t);
		for (size_t i = 0; i < nlanded; i++)
			fprintf(t->timing, "%s-ready %.3f ms\n", landed[i]->ops->name,
				now_ms() - landed[i]->t0);
		fflush(t->timing);
	}
	/* after the reopen, whose views may say something of their own */
	if (err[0])
		tui_msg(t, ST_WARN, "%s", err);
	else if (unsaved && !t->said_unsaved) {
		t->said_unsaved = 1; /* once, as the CLI says it */
		tui_msg(t, ST_DIM, "the store is read-only: analyses are computed in memory, not saved");
	}
	return 1;
}

static int dump_screen(tui *t, const char *path);

static int next_key(tui *t)
{
	if (t->headless) {
		int k = tui_script_pop(t);
		if (k != ERR)
			return k;
		wait_job(t, 1);
		poll_job(t);
		for (;;) {
			k = script_key(t);
			if (k == ERR && t->dump && !t->dumped) {
				/* the screen as the script leaves it, a prompt included */
				t->dumped = 1;
				if (!t->in_prompt)
					draw(t);
				refresh();
				dump_screen(t, t->dump);
			}
			if (k != TUI_KEY_WAIT)
				return k;
			wait_job(t, 1);
			poll_job(t);
		}
	}
	for (int eof = 0;;) {
		/* while a view computes, look more often: its result shows soon after it is done
		 * (the screen is still redrawn every 100 ms at most when nothing changed) */
		timeout(tasks_running(t) ? 10 : 100);
		int k = getch();
		int changed = poll_job(t);
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
		double now = now_ms();
		if (!changed && now - t->idle_drawn < 90)
			continue;
		t->idle_drawn = now;
		if (t->in_prompt)
			return TUI_KEY_TICK; /* the prompt redraws the screen with itself on it */
		if (t->top && t->top->ops->idle)
			t->top->ops->idle(t, t->top);
		draw(t); /* the progress bar moves while no key comes */
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
			draw_noref(t);
			redraw = 0;
		}
		if (check) {
			/* what the text would do, on the status row, before every key */
			out_reset(o);
			o->width = t->cols;
			check(arg, buf, o);
			draw_out(t, o, t->rows - 2, 0, t->cols, A_NORMAL);
		}
		out_reset(o);
		out_text(o, ST_KEY, prompt);
		out_text(o, ST_NORMAL, buf);
		int pc = out_cols(o);
		int skip = pc >= t->cols ? pc - t->cols + 1 : 0;
		draw_out(t, o, t->rows - 1, skip, t->cols, A_NORMAL);
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
	out_reset(o);
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
	draw(t);
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
		out_reset(o);
		v->ops->header(t, v, o);
		fprintf(f, "%s\n", o->text ? o->text : "");
	}
	for (size_t i = 0; i < v->nlines; i++) {
		out_reset(o);
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
	} else if (!strcmp(w[0], "hang") && n == 2) {
		view_hang_open(t, w[1]);
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
		draw(t);
		if (dump_screen(t, w[1]) == 0)
			tui_msg(t, ST_DIM, "screen written to %s", w[1]);
	} else {
		tui_msg(t, ST_WARN,
			"unknown command ':%s' (runs, classes RUN, trace RUN P.T, lattice RUN, jsm RUN [delta], "
			"rank NORMAL FAULTY, diff RUN:P.T RUN:P.T, report RUN:P.T RUN:P.T, timeline RUN, hang RUN, "
			"blame RUN [FUNC]..., blamediff NORMAL FAULTY, filters, filter SPEC, attrs MODE, "
			"K N, w FILE, dump FILE, q)",
			line);
	}
}

/* ---- the loop ---- */

static void page(tui *t, view *v, int dir, int half)
{
	size_t rows = (size_t)list_rows(t, v);
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
	int first = title_rows(t, v) + (v->ops->header ? 1 : 0);
	if (me.bstate & BUTTON4_PRESSED) {
		v->cur = v->cur > 3 ? v->cur - 3 : 0;
	} else if (me.bstate & (BUTTON5_PRESSED)) {
		v->cur = v->cur + 3 < v->nlines ? v->cur + 3 : (v->nlines ? v->nlines - 1 : 0);
	} else if (me.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON1_DOUBLE_CLICKED)) {
		if (me.y >= first && me.y < first + list_rows(t, v)) {
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
	out_free(&o);
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
		break; /* draw() reads the new size */
	case KEY_MOUSE:
		handle_mouse(t, v);
		break;
	case ERR:
		break;
	default:
		tui_msg(t, ST_DIM, "that key does nothing here; F1 lists the keys");
	}
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
	setlocale(LC_ALL, "");
	const char *cs = nl_langinfo(CODESET);
	t->utf8 = cs && !strcmp(cs, "UTF-8");
	SCREEN *scr = NULL;
	FILE *nul_out = NULL, *nul_in = NULL;
	if (o->script) {
		t->headless = 1;
		t->dump = o->dump;
		if (!(t->script = fopen(o->script, "r"))) {
			fprintf(stderr, "difftrace tui: cannot read script %s: %s\n", o->script,
				strerror(errno));
			store_close(t->s);
			free(t->path);
			free(t);
			return 1;
		}
		char buf[16];
		snprintf(buf, sizeof buf, "%d", o->rows > 0 ? o->rows : 24);
		setenv("LINES", buf, 1);
		snprintf(buf, sizeof buf, "%d", o->cols > 0 ? o->cols : 80);
		setenv("COLUMNS", buf, 1);
		nul_out = fopen("/dev/null", "w");
		nul_in = fopen("/dev/null", "r");
		scr = newterm("xterm", nul_out, nul_in);
		if (!scr) {
			fprintf(stderr, "difftrace tui: no 'xterm' terminal description for the "
					"headless screen\n");
			return 1;
		}
		set_term(scr);
	} else {
		const char *term = getenv("TERM");
		if (!term || !*term) {
			fprintf(stderr, "difftrace tui: TERM is not set: not a terminal?\n");
			store_close(t->s);
			free(t->path);
			free(t);
			return 1;
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
			store_close(t->s);
			free(t->path);
			free(t);
			return 1;
		}
		initscr();
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
	init_styles(t);
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
		draw(t);
		int k = next_key(t);
		if (k == ERR && t->headless)
			break; /* the script is over */
		if (k == '\r')
			k = '\n';
		handle(t, k);
	}
	if (t->headless && o->dump && !t->dumped) {
		draw(t);
		dump_screen(t, o->dump);
	}
	endwin();
	if (scr)
		delscreen(scr);
	wait_job(t, 0); /* the views' tasks are stopped by tasks_end */
	if (t->th_joinable)
		pthread_join(t->th, NULL);
	while (t->top)
		pop(t);
	tasks_end(t);
	for (size_t i = 0; i < t->noc; i++) {
		analysis_result_free(&t->oc[i]->r);
		free(t->oc[i]);
	}
	free(t->oc);
	for (size_t i = 0; i < t->nac; i++) {
		analysis_result_free(&t->ac[i]->r);
		free(t->ac[i]);
	}
	free(t->ac);
	for (size_t i = 0; i < t->ndone; i++) {
		analysis_result_free(&t->done[i]->r);
		free(t->done[i]);
	}
	free(t->done);
	free(t->queue);
	out_free(&t->line);
	if (t->search)
		pcre2_code_free(t->search);
	if (t->script)
		fclose(t->script);
	if (t->timing)
		fclose(t->timing);
	if (nul_out)
		fclose(nul_out);
	if (nul_in)
		fclose(nul_in);
	free(t->normal);
	free(t->faulty);
	store_close(t->s);
	pthread_mutex_destroy(&t->mu);
	free(t->path);
	free(t);
	return 0;
}
