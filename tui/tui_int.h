/* tui_int.h: what the framework files share with each other, not with the views. */
#ifndef DT_TUI_INT_H
#define DT_TUI_INT_H

#include "tui.h"

#include <curses.h>
#include <pthread.h>
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "analysis/an_lookup.h"
#include "analysis/analysis.h"

/* ---- the interface's state, shared by the framework's files ---- */

/* List lines and headers start after a gutter of TUI_GUTTER columns, where the cursor's '>'
 * goes, so that the selected line shows without colour or attributes (and in screen dumps). */
#define TUI_GUTTER 2


/* An analysis the job computed in memory over a read-only store, for t->cache (tui_poll_job). */
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
	al_cache cache; /* the analyses shown (an_lookup.h): kept to the end, so views may keep
			   pointers */
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

/* tui_out.c */
void tui_out_reset(tui_out *o);
void tui_out_free(tui_out *o);
/* tui_draw.c */
void tui_init_styles(tui *t);
void tui_draw_out(tui *t, const tui_out *o, int y, int skip, int width, attr_t extra);
int tui_title_rows(tui *t, const view *v);
int tui_list_rows(tui *t, const view *v);
void tui_draw_noref(tui *t);
void tui_draw(tui *t);
/* tui_jobs.c */
double tui_now_ms(void);
int tui_tasks_running(tui *t);
void tui_tasks_end(tui *t);
void tui_wait_job(tui *t, int tasks);
int tui_poll_job(tui *t);
/* The cache of analyses, whose misses start the job; and at the end, freeing it. */
void tui_analyses_init(tui *t);
void tui_analyses_free(tui *t);

/* Opens the help screen for the view on top. */
void tui_help(tui *t);
/* Display columns of the UTF-8 string s[0..n). */
int tui_cols_of(const char *s, size_t n);
/* Writes every line of v as text to path. */
int tui_write_view(tui *t, view *v, const char *path);
/* Headless scripts: a typed string delivered key by key. */
void tui_script_push(tui *t, const char *s);
int tui_script_pop(tui *t);

#endif
