/* tui.h: the curses interface's framework, shared by every view.
 *
 * A view is data plus a table of callbacks (view_ops), like tig's: the framework owns the view
 * stack, the cursor and scrolling, the keys every view shares, help, search, the ':' command
 * line, the status and message lines, and the one drawing loop. A view only says how many lines
 * it has, what line i looks like (as styled spans, through tui_out), what Enter on a line opens,
 * and which keys of its own it takes. The same spans give the screen, the search text and the
 * text that 'w' writes, so the three always agree.
 *
 * Nothing here computes analyses on the drawing path: a view opens from the store's cache
 * (an_result), and a missing analysis is computed by a background job while the interface keeps
 * answering keys; views are reopened when it finishes. */
#ifndef DT_TUI_H
#define DT_TUI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/analysis.h"
#include "store/store.h"

typedef struct tui tui;
typedef struct view view;

/* Styles: what a span means. Colour is optional (NO_COLOR, TERM=dumb, no colours): every style
 * is also told apart without it (bold, reverse, underline or the characters themselves). */
enum tui_style {
	ST_NORMAL,
	ST_HEADER,   /* column headers, section titles */
	ST_DIM,      /* secondary text */
	ST_KEY,      /* a key name in help and hints */
	ST_SAME,     /* diff: common */
	ST_LEFT,     /* diff: only in A (normal) */
	ST_RIGHT,    /* diff: only in B (faulty) */
	ST_CHANGED,  /* diff: changed */
	ST_MATCH,    /* a search match */
	ST_WARN,     /* flags, errors */
	ST_SHADE0,   /* heat map, low to high */
	ST_SHADE1,
	ST_SHADE2,
	ST_SHADE3,
	ST_SHADE4,
	ST_WORD,     /* diff: the differing words of a changed pair */
	ST_NSTYLES
};

/* One line being built: spans of text with a style. */
typedef struct tui_span {
	int style;
	size_t off, len; /* into the line's text */
} tui_span;

typedef struct tui_out {
	char *text;
	size_t len, cap;
	tui_span *spans;
	size_t nspans, capspans;
	int width;       /* the screen width the line is drawn at, for views that lay out columns */
	int utf8;        /* the terminal takes UTF-8: views may use box and shade characters */
} tui_out;

void out_text(tui_out *o, int style, const char *s);
void out_textn(tui_out *o, int style, const char *s, size_t n);
void out_printf(tui_out *o, int style, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Pads with spaces up to display column col. */
void out_pad(tui_out *o, int col);
/* Display columns of the text so far (UTF-8 aware). */
int out_cols(const tui_out *o);

/* A key a view documents in the help screen. */
typedef struct tui_keyhelp {
	const char *keys; /* "Enter", "]  [" */
	const char *what;
} tui_keyhelp;

typedef struct view_ops {
	const char *name;                  /* "runs", "classes", ... as in :commands and the status */
	const tui_keyhelp *keys;           /* the view's own keys, ended by { NULL, NULL } */
	/* (Re)computes v->nlines and whatever the view keeps in v->data. Called when the view is
	 * pushed and whenever the data may have changed (an analysis finished, a filter applied).
	 * Returns 0, or -1 with a message set by tui_msg. */
	int (*open)(tui *t, view *v);
	/* Line i, into o. */
	void (*line)(tui *t, view *v, size_t i, tui_out *o);
	/* Enter (or Right, l, a double click) on line i: usually pushes another view. */
	void (*enter)(tui *t, view *v, size_t i);
	/* A key the framework did not take first; 1 when handled. */
	int (*key)(tui *t, view *v, int key);
	void (*close)(view *v);            /* frees v->data */
	/* Optional: a line fixed above the list (column headers), drawn under the title. */
	void (*header)(tui *t, view *v, tui_out *o);
	/* Optional: nfooter lines fixed under the list, above the status line (what the cursor is
	 * on, in detail); footer draws line row (0 .. nfooter-1). */
	int nfooter;
	void (*footer)(tui *t, view *v, int row, tui_out *o);
	/* Optional: called about every 100 ms while no key comes, on the top view (the runs view
	 * looks for runs imported meanwhile). */
	void (*idle)(tui *t, view *v);
} view_ops;

struct view {
	const view_ops *ops;
	void *data;
	size_t nlines;
	size_t top, cur;   /* first line shown, selected line */
	int hscroll;       /* columns scrolled to the left */
	size_t mark[26];   /* lines marked with m a-z (bit i of marks: mark i is set) */
	uint32_t marks;
	size_t mark_prev;  /* where the last jump to a mark started, for '' */
	char title[256];   /* the title line: what the view shows */
	view *below;       /* the view under it in the stack */
};

/* The parameters of the analyses the interface shows (changed by :filter, :attrs, the Filters
 * view). */
typedef struct tui_params {
	char filter[256];
	char attrs[32];
	unsigned k;
} tui_params;

/* ---- for views ---- */

store *tui_store(tui *t);
const tui_params *tui_get_params(tui *t);
/* Pushes a new view of ops with data (owned by the view from now on, freed by ops->close). */
view *tui_push(tui *t, const view_ops *ops, void *data, const char *title_fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* A one-line message at the bottom (errors in ST_WARN). */
void tui_msg(tui *t, int style, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The analyses come from the interface's cache of them (an_lookup.h, as the command line's):
 * the same analysis of a run under a setting as `difftrace` reads, computed in the background.
 * The cached analysis of run under the current parameters: 1 and *r when it is ready (the
 * result belongs to the interface and stays valid until it ends; do not free it), 0 when it is
 * being computed in the background (the view shows that and is reopened when it is done), -1 on
 * error (message set). */
int tui_analysis(tui *t, const char *run, const an_result **r);
/* The same under other parameters than the current ones (the ranking's look at every call). */
int tui_analysis_as(tui *t, const char *run, const tui_params *p, const an_result **r);
/* The id of run's analysis under the current parameters without loading it (for what reads
 * its results from elsewhere: the ranking cache); the same return values as tui_analysis, and
 * like it starts the analysis when it is not cached. */
int tui_analysis_id(tui *t, const char *run, int64_t *id);
int tui_analysis_id_as(tui *t, const char *run, const tui_params *p, int64_t *id);
/* The same analysis with its traces only (analysis_load_objects: no matrix, classes or
 * attribute names; the whole one when it is loaded already), for views that need no more; the
 * same return values and lifetime as tui_analysis. */
int tui_analysis_objects(tui *t, const char *run, const an_result **r);
int tui_analysis_objects_as(tui *t, const char *run, const tui_params *p, const an_result **r);
/* The interface's analyses as the diagnosis takes them (diagnosis.h): its cache under the
 * current parameters (every call: al_every); by_id 0: no ids (a read-only store keeps no
 * ranking). */
struct dg_source;
void tui_diag_source(tui *t, int by_id, struct dg_source *out);
/* Progress of the background job: -1 when none, else 0..100. */
int tui_job_progress(tui *t, char *what, size_t n);
/* 1 while the background analysis waits for the store's write lock (another program writes). */
int tui_job_waiting(tui *t);
/* What a view says of the job's progress pct (tui_job_progress): "N%", or that it waits for the
 * store. Valid until the next call. */
const char *tui_job_pct(tui *t, int pct);
/* ---- background work of a view ----
 * A task computes a view's data from the store in a thread of its own (with its own store
 * connection) while the interface draws and answers keys; the view shows what it is doing
 * meanwhile. Tasks are kept for the session by their key, so a view opened again on the same
 * data (the same run, imported once) finds the result at once. When a task ends, the views
 * reopen (tui_reopen_all) and their open finds it done. The headless script waits for tasks
 * before each key, as for analyses. */
typedef struct tui_task tui_task;
typedef struct tui_task_ops {
	const char *name; /* the view's name: DIFFTRACE_TUI_TIMING gets "NAME-ready MS ms" */
	/* In the background: the result, kept until the interface ends (not NULL). It may call
	 * tui_task_stage, and may stop early (with any result) once tui_task_cancelled. */
	void *(*run)(tui_task *k, void *arg, store *s);
	void (*free_result)(void *res);
	void (*free_arg)(void *arg);
} tui_task_ops;
/* The task of key, started with arg (owned by it from now on) when there is none yet; when
 * there is, arg is freed. NULL (message set) when no thread can be started. */
tui_task *tui_task_get(tui *t, const char *key, const tui_task_ops *ops, void *arg);
/* 1 when the task is done: *res its result, or NULL when the store could not be opened (stage
 * says why); 0 while it runs: what it does now into stage. */
int tui_task_result(tui *t, tui_task *k, void **res, char *stage, size_t n);
/* In the task: what it does now ("reading the sync events"), shown by its view. */
void tui_task_stage(tui_task *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* In the task: the interface is ending. */
int tui_task_cancelled(tui_task *k);
/* Runs as the previous views see them, for views that offer choices. */
int tui_runs(tui *t, store_run **runs, size_t *n);
/* The current run pair for the ranking (set by :rank or by choosing two runs). */
void tui_set_pair(tui *t, const char *normal, const char *faulty);
int tui_get_pair(tui *t, const char **normal, const char **faulty);
/* Asks for a line of text at the bottom (blocking on keys, not on work). NULL when cancelled;
 * the result is malloc'ed. */
char *tui_prompt(tui *t, const char *prompt, const char *initial);
/* The view on top of the stack. */
view *tui_top(tui *t);
/* tui_prompt that calls check(arg, text, o) before every key; the framework draws o on the
 * row above the prompt, so a pattern can be checked as it is typed. */
char *tui_prompt_check(tui *t, const char *prompt, const char *initial,
		       void (*check)(void *arg, const char *text, tui_out *o), void *arg);
/* Reopens every view (after the data changed). */
void tui_reopen_all(tui *t);
/* Sets the parameters and reopens the views (their analyses are looked up again). */
void tui_set_params(tui *t, const tui_params *p);
/* The screen size. */
int tui_rows(tui *t);
int tui_cols(tui *t);
/* The terminal takes UTF-8 (as tui_out.utf8). */
int tui_utf8(tui *t);
/* Runs argv[0] (looked up in PATH) on the terminal, the interface suspended until it ends, as
 * uftrace tui and tig run an editor; headless, with /dev/null for its input and output.
 * Returns its exit status, or -1 (message set) when it could not run. */
int tui_run_program(tui *t, char *const argv[]);

/* ---- the views (one file each) ---- */
extern const view_ops view_runs_ops;
extern const view_ops view_classes_ops;
extern const view_ops view_help_ops;
/* Opens the views of other modules by name, from ':' commands; see tui_commands in tui.c. */
int view_runs_open(tui *t);
int view_classes_open(tui *t, const char *run);
int view_traces_open(tui *t, const char *run, const uint32_t *objs, size_t n, const char *what);
int view_trace_open(tui *t, const char *run, int p, int thr);
int view_trace_open_as(tui *t, const tui_params *as, const char *run, int p, int thr);
int view_lattice_open(tui *t, const char *run);
int view_rank_open(tui *t, const char *normal, const char *faulty);
int view_diff_open(tui *t, const char *run_a, int pa, int ta, const char *run_b, int pb, int tb);
/* The same under the setting as, which the view keeps: a diff opened from a ranking made under
 * another filter than the interface's. NULL (view_diff_open): the one the diagnosis chooses
 * for the interface's (dg_diff_setting), as `diff` without --filter. */
int view_diff_open_as(tui *t, const tui_params *as, const char *run_a, int pa, int ta,
		      const char *run_b, int pb, int tb);
int view_report_open(tui *t, const char *run_a, int pa, int ta, const char *run_b, int pb, int tb);
int view_jsm_open(tui *t, const char *run, int delta);
int view_filters_open(tui *t);
/* The timeline of a run's sync events (view_timeline.c); at.proc < 0: at the first event. */
typedef struct tui_tl_at {
	int proc, thread; /* the trace, -1 for none */
	int64_t seq;      /* its sync event with this seq; -1: its last event */
} tui_tl_at;
int view_timeline_open(tui *t, const char *run, tui_tl_at at);
/* The timeline at the first event of trace B of run_b that differs from trace A of run_a
 * (their kept events under the current analysis, as the diff view aligns them). */
int view_timeline_diverge(tui *t, const char *run_a, int pa, int ta, const char *run_b, int pb,
			  int tb);
/* Whether run has a sync record: 1 yes, 0 no, -1 error (message set). */
int tui_has_sync(tui *t, const char *run);
/* The hang report of a run (view_hang.c), its cause weighed against normal when not NULL;
 * NULL: the interface's normal run when run is the faulty run of its pair. */
int view_hang_open(tui *t, const char *run, const char *normal);
/* Variable blame of run at main and the points (difftrace blame). */
int view_blame_open(tui *t, const char *run, char *const *points, size_t np);
/* The variables whose share of the blame changed most between two runs, per rank. */
int view_blame_change_open(tui *t, const char *normal, const char *faulty);

/* ---- running ---- */

typedef struct tui_opts {
	const char *store_path;
	const char *script;   /* headless: keys from this file (see tui_script in tui.c) */
	const char *dump;     /* headless: write the final screen here */
	int rows, cols;       /* headless screen size (default 24 x 80) */
	tui_params params;
	const char *normal, *faulty; /* open the ranking of this pair first */
} tui_opts;

/* Runs the interface until the user quits. Returns an exit status. */
int tui_main(const tui_opts *o);

#endif
