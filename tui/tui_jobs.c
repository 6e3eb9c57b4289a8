/* tui_jobs.c: the interface's work off the drawing path: the analyses it shows, computed on a
 * background thread with its own store connection and cached for the session, and the views'
 * own background tasks; the loop polls them and reopens the views when they end. */
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

#include "analysis/diagnosis.h"
#include "analysis/filter.h"
#include "tui.h"
#include "tui_int.h"
#include "util/util.h"

/* ---- analyses and the background job ----
 * The analyses come from an_lookup.h, as the command line's: the interface's cache (t->cache)
 * finds them, and when one is not cached starts the job, which computes it with al_compute. */

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

/* One job on the job's connection s: the analysis computed (al_compute); over a read-only store
 * loaded there too (only this connection sees it), into *c. */
static int job_one(tui *t, store *s, const struct job *j, struct acache **c, dt_err *e)
{
	an_params p;
	int64_t id;
	int reused;
	*c = NULL;
	if (to_an_params(&j->p, &p, e))
		return -1;
	p.progress = job_progress;
	p.progress_arg = t;
	if (al_compute(s, j->run, &p, &id, &reused, e))
		return -1;
	if (!store_readonly(s))
		return 0;
	*c = xcalloc(1, sizeof **c);
	if (al_load(s, id, &p, &(*c)->r, e)) {
		free(*c);
		*c = NULL;
		return -1;
	}
	snprintf((*c)->run, sizeof (*c)->run, "%s", j->run);
	(*c)->p = j->p;
	return 0;
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

		dt_err_clear(&e);
		struct acache *c;
		int r = job_one(t, s, &j, &c, &e);
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

/* The cache's compute (an_lookup.h): an analysis not cached is computed in the background. */
static int cache_compute(void *ctx, const char *run, const an_params *p, int64_t *id, dt_err *e)
{
	(void)id;
	(void)e;
	tui_params tp = { { 0 }, { 0 }, p->k };
	snprintf(tp.filter, sizeof tp.filter, "%s", p->filter ? p->filter : "");
	attrs_mode_name_args(p->mode, p->args, tp.attrs, sizeof tp.attrs);
	job_start(ctx, run, &tp);
	return 0;
}

void tui_analyses_init(tui *t)
{
	al_cache_init(&t->cache, t->s);
	t->cache.compute = cache_compute;
	t->cache.ctx = t;
	t->cache.later = 1;
}

void tui_analyses_free(tui *t)
{
	al_cache_free(&t->cache);
	for (size_t i = 0; i < t->ndone; i++) {
		analysis_result_free(&t->done[i]->r);
		free(t->done[i]);
	}
	free(t->done);
	t->done = NULL;
	t->ndone = 0;
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

/* An answer of the cache: an error said on the status line. */
static int said(tui *t, int r, const dt_err *e)
{
	if (r < 0)
		tui_msg(t, ST_WARN, "%s", e->msg);
	return r;
}

int tui_analysis(tui *t, const char *run, const an_result **out)
{
	return tui_analysis_as(t, run, &t->params, out);
}

int tui_analysis_as(tui *t, const char *run, const tui_params *tp, const an_result **out)
{
	dt_err e;
	dt_err_clear(&e);
	an_params p;
	if (to_an_params(tp, &p, &e))
		return said(t, -1, &e);
	return said(t, al_get(&t->cache, run, &p, out, &e), &e);
}

int tui_analysis_id(tui *t, const char *run, int64_t *id)
{
	return tui_analysis_id_as(t, run, &t->params, id);
}

int tui_analysis_id_as(tui *t, const char *run, const tui_params *tp, int64_t *id)
{
	dt_err e;
	dt_err_clear(&e);
	an_params p;
	if (to_an_params(tp, &p, &e))
		return said(t, -1, &e);
	return said(t, al_id(&t->cache, run, &p, id, &e), &e);
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
	an_params p;
	if (to_an_params(tp, &p, &e))
		return said(t, -1, &e);
	return said(t, al_objects(&t->cache, run, &p, out, &e), &e);
}

void tui_diag_source(tui *t, int by_id, dg_source *out)
{
	dt_err e;
	dt_err_clear(&e);
	memset(out, 0, sizeof *out);
	out->cache = &t->cache;
	if (to_an_params(&t->params, &out->p, &e))
		tui_msg(t, ST_WARN, "%s", e.msg);
	out->by_id = by_id;
	out->objects = 1;
}

/* ---- the views' background tasks ---- */

double tui_now_ms(void)
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
	k->t0 = tui_now_ms();
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

int tui_tasks_running(tui *t)
{
	int n = 0;
	pthread_mutex_lock(&t->mu);
	for (size_t i = 0; i < t->ntasks; i++)
		n += !t->tasks[i]->done;
	pthread_mutex_unlock(&t->mu);
	return n;
}

/* At the end: asks the tasks to stop, waits for them and frees them. */
void tui_tasks_end(tui *t)
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

void tui_wait_job(tui *t, int tasks)
{
	for (;;) {
		pthread_mutex_lock(&t->mu);
		int running = t->th_running;
		pthread_mutex_unlock(&t->mu);
		if (!running && !(tasks && tui_tasks_running(t)))
			break;
		struct timespec ts = { 0, 2 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
}

/* Checks whether background work ended; then views reopen with the new data (returns 1). */
int tui_poll_job(tui *t)
{
	pthread_mutex_lock(&t->mu);
	int fin = t->job_finished;
	t->job_finished = 0;
	char err[800];
	snprintf(err, sizeof err, "%s", t->job_err);
	t->job_err[0] = 0;
	int unsaved = t->ndone > 0;
	for (size_t i = 0; i < t->ndone; i++) { /* computed in memory: the cache's now */
		an_params p;
		dt_err e;
		dt_err_clear(&e);
		if (to_an_params(&t->done[i]->p, &p, &e) == 0)
			al_add(&t->cache, t->done[i]->run, &p, &t->done[i]->r);
		else
			analysis_result_free(&t->done[i]->r);
		free(t->done[i]);
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
		tui_draw(t);
		for (size_t i = 0; i < nlanded; i++)
			fprintf(t->timing, "%s-ready %.3f ms\n", landed[i]->ops->name,
				tui_now_ms() - landed[i]->t0);
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
