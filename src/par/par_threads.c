/* par_threads.c: a parallel job of threads (see par_threads.h). */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "par/par_threads.h"
#include "util/util.h"

typedef struct msg {
	uint8_t *p;
	size_t n;
	struct msg *next;
} msg;

typedef struct member {
	dt_par par; /* first: a dt_par * is a member * */
	par_threads *t;
	pthread_t th;
	int started, done, rc;
	msg *head, *tail;
	int count;
} member;

struct par_threads {
	int size;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int stopped;
	int (*fn)(dt_par *p, void *arg);
	void *arg;
	member *m;
};

static int t_recv(dt_par *p, int from, uint8_t **buf, size_t *n, dt_err *e)
{
	par_threads *t = ((member *)p)->t;
	*buf = NULL;
	*n = 0;
	if (from < 1 || from >= t->size)
		return dt_errf(e, DT_EUSAGE, "no member %d in a job of %d threads", from, t->size);
	member *w = &t->m[from];
	pthread_mutex_lock(&t->mu);
	while (!w->head && !w->done && !t->stopped)
		pthread_cond_wait(&t->cv, &t->mu);
	msg *g = w->head;
	if (g) {
		w->head = g->next;
		if (!w->head)
			w->tail = NULL;
		w->count--;
		pthread_cond_broadcast(&t->cv);
	}
	int stopped = t->stopped;
	pthread_mutex_unlock(&t->mu);
	if (!g)
		return dt_errf(e, DT_EDATA, stopped ? "the import was stopped"
						    : "import thread %d ended without its last message",
			       from);
	*buf = g->p;
	*n = g->n;
	free(g);
	return 0;
}

static int t_give(dt_par *p, uint8_t *buf, size_t n, dt_err *e)
{
	member *w = (member *)p;
	par_threads *t = w->t;
	msg *g = xmalloc(sizeof *g);
	g->p = buf ? buf : xmalloc(1);
	g->n = n;
	g->next = NULL;
	pthread_mutex_lock(&t->mu);
	while (w->count >= PAR_THREADS_DEPTH && !t->stopped)
		pthread_cond_wait(&t->cv, &t->mu);
	int stopped = t->stopped;
	if (!stopped) {
		if (w->tail)
			w->tail->next = g;
		else
			w->head = g;
		w->tail = g;
		w->count++;
		pthread_cond_broadcast(&t->cv);
	}
	pthread_mutex_unlock(&t->mu);
	if (stopped) {
		free(g->p);
		free(g);
		return dt_errf(e, DT_EDATA, "the import was stopped");
	}
	return 0;
}

static int t_send(dt_par *p, const uint8_t *buf, size_t n, dt_err *e)
{
	uint8_t *c = xmalloc(n ? n : 1);
	if (n)
		memcpy(c, buf, n);
	return t_give(p, c, n, e);
}

static int t_bcast(dt_par *p, uint8_t **buf, size_t *n, dt_err *e)
{
	(void)p;
	(void)buf;
	(void)n;
	return dt_errf(e, DT_EUSAGE, "a job of threads does not broadcast");
}

static void stop(par_threads *t)
{
	pthread_mutex_lock(&t->mu);
	t->stopped = 1;
	pthread_cond_broadcast(&t->cv);
	pthread_mutex_unlock(&t->mu);
}

static void t_abort(dt_par *p, int status)
{
	(void)status;
	stop(((member *)p)->t);
}

static void *run(void *arg)
{
	member *w = arg;
	par_threads *t = w->t;
	int rc = t->fn(&w->par, t->arg);
	pthread_mutex_lock(&t->mu);
	w->rc = rc;
	w->done = 1;
	pthread_cond_broadcast(&t->cv);
	pthread_mutex_unlock(&t->mu);
	return NULL;
}

par_threads *par_threads_start(int size, int (*fn)(dt_par *p, void *arg), void *arg, dt_err *e)
{
	par_threads *t = xcalloc(1, sizeof *t);
	t->size = size;
	t->fn = fn;
	t->arg = arg;
	pthread_mutex_init(&t->mu, NULL);
	pthread_cond_init(&t->cv, NULL);
	t->m = xcalloc((size_t)size, sizeof *t->m);
	for (int i = 0; i < size; i++) {
		member *w = &t->m[i];
		w->t = t;
		w->par = (dt_par){ .rank = i, .size = size, .root_writes_only = 1, .recv = t_recv,
				   .send = t_send, .give = t_give, .bcast = t_bcast, .abort = t_abort };
	}
	for (int i = 1; i < size; i++) {
		int err = pthread_create(&t->m[i].th, NULL, run, &t->m[i]);
		if (err) {
			dt_errf(e, DT_EDATA, "cannot start import thread %d of %d: %s", i, size - 1,
				strerror(err));
			par_threads_end(t);
			return NULL;
		}
		t->m[i].started = 1;
	}
	return t;
}

dt_par *par_threads_root(par_threads *t)
{
	return &t->m[0].par;
}

int par_threads_end(par_threads *t)
{
	if (!t)
		return 0;
	stop(t);
	int failed = 0;
	for (int i = 1; i < t->size; i++) {
		member *w = &t->m[i];
		if (!w->started)
			continue;
		pthread_join(w->th, NULL);
		failed += w->rc != 0;
	}
	for (int i = 0; i < t->size; i++)
		for (msg *g = t->m[i].head, *nx; g; g = nx) {
			nx = g->next;
			free(g->p);
			free(g);
		}
	pthread_cond_destroy(&t->cv);
	pthread_mutex_destroy(&t->mu);
	free(t->m);
	free(t);
	return failed;
}

int par_threads_cores(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
		return CPU_COUNT(&set);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}
