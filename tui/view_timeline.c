/* view_timeline.c: the sync events of a run (the MPI and OpenMP calls of its sync record) merged
 * by the causality filter under maximal concurrency, drawn as a timeline: a column (lane) per
 * trace, grouped by process (a process collapses into one lane and back), a row per step of the
 * order (the events of one step are concurrent) or, toggled, per instant of the aligned clocks.
 *
 * A cell shows the call without its MPI_/GOMP_/omp_ prefix and its phase: "Recv(" entered,
 * "Recv)" returned, "Waitall*" one completed request. An MPI message is marked on both of its
 * lanes: ">2" on the send (to process 2), "<0" on the receive that matched it (from process 0);
 * with the cursor on one end, the other end is marked '@'. The cursor's cell is in [ ]. Under
 * the list, two lines tell the event under the cursor: its arguments, its step and time, and
 * what it waited for: the rule of the ordering rules that held it and the event that satisfied
 * it (a receive's send, a lock's release, the last entry a collective counted).
 *
 * Everything is computed once per run and session, in the background (a tui_task: reading the
 * events, the filter over the whole run, what each event waited for and its message partner,
 * the rows of both modes): the view opens at once, says what is being computed and answers
 * the keys meanwhile (q goes back; the work goes on and a timeline of the same run opened
 * later finds it done). Drawing a row only looks at that row's events. Colour is never
 * needed: the markers are characters. */
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/diff.h"
#include "analysis/nlr.h"
#include "analysis/verdict.h"
#include "import/sync_file.h"
#include "order/args.h"
#include "order/arrival.h"
#include "order/explain.h"
#include "order/filter.h"
#include "order/hang.h"
#include "order/rules.h"
#include "store/store_analysis.h"
#include "store/store_sync.h"
#include "source.h"
#include "tui.h"
#include "util/util.h"

#define CELL 11  /* columns of a lane: a separator and 10 of text */
#define LSTEP 4  /* lanes H and L move by */

struct lane {
	int32_t proc, thread;
};

/* What to put the cursor on when the view opens. */
struct at {
	int proc, thread;
	int64_t seq;       /* -1: the trace's last event */
	char fname[128];   /* when set: the occ-th entry of this call in the trace */
	uint64_t occ;
	int after;         /* with fname: the event after that entry */
	char why[300];     /* said when the view opens there */
};

/* What the view shows of a run, computed in the background (tui_task) and then read only: the
 * timelines of one run opened again share it. */
struct tlm {
	int state;          /* 1 ready, -1 nothing to show (err says why) */
	char err[1200];
	dt_sync_event *ev;  /* in arrival order */
	size_t n;
	ord_rules *rules;
	ord_explain *ex;    /* its message partners computed (ord_explain_peer) */
	ord_item *it;       /* the order */
	size_t nit;
	uint64_t *order;
	size_t nheld;       /* events never delivered */
	int64_t *itof;      /* per event: its index in it, -1 when held */
	struct lane *lanes; /* per trace, by P.T */
	size_t nlanes;
	uint32_t *lane_of;  /* per event */
	/* rows, per mode (0 steps, 1 time): item indices, a row's sorted by lane */
	size_t *rows[2], *rstart[2], nrows[2];
	int64_t *rowof[2];  /* per item: its row */
	int64_t t0;         /* the earliest aligned time */
	/* the mismatches of the hang report (hang.h): the open call of the blocked receive, the
	 * unreceived send (indices in ev) and the words, for p */
	size_t *near_call, *near_send;
	char **near_txt;
	size_t nnear;
	/* time rows: per lane the rows its outermost calls span, from the entry's row to the
	 * exit's (a call with no exit, as a blocked one, through the last row), in order: the cells
	 * between them show the call's duration as a bar */
	struct span {
		int64_t a, b;
	} **span;
	size_t *nspan;
	store_sites sites;  /* where the calls were made (e opens the editor there) */
};

struct tl {
	char run[128];
	int state;          /* 0 computing, 1 ready, -1 nothing to show (m->err says why) */
	struct at at;
	tui_task *task;     /* computes m */
	const struct tlm *m;
	const char *const *names;
	size_t nnames;
	int mode;
	/* columns: a lane, or a collapsed process (all its lanes) */
	unsigned char *collapsed; /* per lane: its process is collapsed (set on all its lanes) */
	size_t *col_first;  /* per column: its first lane */
	size_t *col_n;      /* and how many lanes it shows */
	size_t ncols;
	size_t *colof;      /* per lane: its column */
	size_t col, left;   /* the cursor's column, the first column shown */
	int64_t cur_ev;     /* the event the cursor was on last drawn, -1 */
};

static const tui_keyhelp keys[] = {
	{ "Left Right  h l", "the previous / next lane (q goes back)" },
	{ "H L", "scroll the lanes by four" },
	{ "]  [", "the next / previous event of the cursor's lane" },
	{ "Enter  o", "collapse / expand the cursor's process (its threads in one lane)" },
	{ "z", "collapse every process, or expand all" },
	{ "t", "rows: steps of the order (concurrent events share one), or time (a call's "
	       "duration a bar)" },
	{ "p", "to what the event waited for, or the other end of its message" },
	{ "e", "the editor ($VISUAL, $EDITOR) where the program made the event's call" },
	{ "", "cells: Name( entered, Name) returned, Name* a request completed;" },
	{ "", "  >P a message sent to process P, <P received from P;" },
	{ "", "  [ ] the cursor, @ the other end of its message" },
	{ NULL, NULL },
};

/* ---- building ---- */

static int lane_cmp(const void *a, const void *b)
{
	const struct lane *x = a, *y = b;
	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	return (x->thread > y->thread) - (x->thread < y->thread);
}

static size_t lane_find(const struct tlm *m, int32_t p, int32_t t)
{
	size_t lo = 0, hi = m->nlanes;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		struct lane k = { p, t };
		int c = lane_cmp(&m->lanes[mid], &k);
		if (!c)
			return mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return SIZE_MAX;
}

/* qsort has no context: the rows are sorted one at a time, in the task's thread */
static _Thread_local const struct tlm *g_m;

static int by_lane(const void *a, const void *b)
{
	uint32_t x = g_m->lane_of[g_m->it[*(const size_t *)a].id];
	uint32_t y = g_m->lane_of[g_m->it[*(const size_t *)b].id];
	return (x > y) - (x < y);
}

static int by_time(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	const ord_item *it = g_m->it;
	if (it[x].ts != it[y].ts)
		return it[x].ts < it[y].ts ? -1 : 1;
	return (x > y) - (x < y);
}

/* Rows of one mode from the items in seq order: a new row when the key changes or the lane
 * already has an event in the row. */
static void make_rows(struct tlm *m, int mode, const size_t *seq)
{
	size_t n = m->nit;
	m->rows[mode] = xmalloc((n ? n : 1) * sizeof *m->rows[mode]);
	m->rstart[mode] = xmalloc((n + 1) * sizeof *m->rstart[mode]);
	m->rowof[mode] = xmalloc((n ? n : 1) * sizeof *m->rowof[mode]);
	int64_t *last = xmalloc((m->nlanes ? m->nlanes : 1) * sizeof *last);
	for (size_t l = 0; l < m->nlanes; l++)
		last[l] = -1;
	size_t nr = 0;
	int64_t key = 0;
	for (size_t k = 0; k < n; k++) {
		const ord_item *x = &m->it[seq[k]];
		int64_t kk = mode ? x->ts / 1000 : (int64_t)x->step; /* time: to the microsecond */
		uint32_t l = m->lane_of[x->id];
		if (!nr || kk != key || last[l] == (int64_t)nr - 1) {
			m->rstart[mode][nr++] = k;
			key = kk;
		}
		last[l] = (int64_t)nr - 1;
		m->rows[mode][k] = seq[k];
		m->rowof[mode][seq[k]] = (int64_t)nr - 1;
	}
	m->rstart[mode][nr] = n;
	m->nrows[mode] = nr;
	free(last);
	g_m = m;
	for (size_t r = 0; r < nr; r++)
		qsort(m->rows[mode] + m->rstart[mode][r], m->rstart[mode][r + 1] - m->rstart[mode][r],
		      sizeof(size_t), by_lane);
}

/* The spans of the outermost calls of each lane in time rows (struct tlm). The events are
 * in arrival order, which keeps each thread's order; a held event (never ordered) ends its
 * lane's spans, as its thread's later events are held too. */
static void make_spans(struct tlm *m)
{
	size_t nl = m->nlanes ? m->nlanes : 1;
	m->span = xcalloc(nl, sizeof *m->span);
	m->nspan = xcalloc(nl, sizeof *m->nspan);
	size_t *cap = xcalloc(nl, sizeof *cap);
	uint32_t *depth = xcalloc(nl, sizeof *depth);
	int64_t *start = xcalloc(nl, sizeof *start);
	unsigned char *stop = xcalloc(nl, 1);
	for (size_t i = 0; i < m->n; i++) {
		uint32_t l = m->lane_of[i];
		if (stop[l])
			continue;
		if (m->itof[i] < 0) {
			stop[l] = 1;
			continue;
		}
		int64_t row = m->rowof[1][m->itof[i]];
		if (m->ev[i].phase == DT_SYNC_ENTER) {
			if (!depth[l]++)
				start[l] = row;
		} else if (m->ev[i].phase == DT_SYNC_EXIT && depth[l] && !--depth[l]) {
			GROW(m->span[l], cap[l], m->nspan[l] + 1);
			m->span[l][m->nspan[l]++] = (struct span){ start[l], row };
		}
	}
	for (size_t l = 0; l < m->nlanes; l++)
		if (depth[l]) {
			GROW(m->span[l], cap[l], m->nspan[l] + 1);
			m->span[l][m->nspan[l]++] =
				(struct span){ start[l], (int64_t)m->nrows[1] }; /* past the last */
		}
	free(cap);
	free(depth);
	free(start);
	free(stop);
}

/* Whether time row r is inside a call of lane l, between its entry's row and its exit's. */
static int in_span(const struct tlm *m, size_t l, size_t r)
{
	const struct span *s = m->span ? m->span[l] : NULL;
	size_t lo = 0, hi = m->span ? m->nspan[l] : 0;
	while (lo < hi) { /* the last span that starts before r */
		size_t mid = lo + (hi - lo) / 2;
		if (s[mid].a < (int64_t)r)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && (int64_t)r < s[lo - 1].b;
}

static void make_cols(struct tl *d)
{
	free(d->col_first);
	free(d->col_n);
	d->col_first = xmalloc((d->m->nlanes ? d->m->nlanes : 1) * sizeof *d->col_first);
	d->col_n = xmalloc((d->m->nlanes ? d->m->nlanes : 1) * sizeof *d->col_n);
	d->ncols = 0;
	for (size_t l = 0; l < d->m->nlanes;) {
		size_t e = l + 1;
		if (d->collapsed[l])
			while (e < d->m->nlanes && d->m->lanes[e].proc == d->m->lanes[l].proc)
				e++;
		d->col_first[d->ncols] = l;
		d->col_n[d->ncols] = e - l;
		for (size_t k = l; k < e; k++)
			d->colof[k] = d->ncols;
		d->ncols++;
		l = e;
	}
	if (d->col >= d->ncols)
		d->col = d->ncols ? d->ncols - 1 : 0;
}

static void tlm_free(void *p)
{
	struct tlm *m = p;
	if (!m)
		return;
	free(m->ev);
	store_sites_free(&m->sites);
	ord_explain_free(m->ex);
	ord_rules_free(m->rules);
	free(m->it);
	free(m->order);
	free(m->itof);
	free(m->lanes);
	free(m->lane_of);
	for (size_t l = 0; m->span && l < m->nlanes; l++)
		free(m->span[l]);
	free(m->span);
	free(m->nspan);
	for (size_t i = 0; i < m->nnear; i++)
		free(m->near_txt[i]);
	free(m->near_call);
	free(m->near_send);
	free(m->near_txt);
	for (int k = 0; k < 2; k++) {
		free(m->rows[k]);
		free(m->rstart[k]);
		free(m->rowof[k]);
	}
	free(m);
}

/* What the task computes from: the run, by name and id. */
struct tl_arg {
	char run[128];
	int64_t id;
};

/* In the background (tui_task): the sync events of the run in arrival order, the causality
 * filter over them under maximal concurrency, what each event waited for and its message
 * partner, the rows of both modes. */
static void *tl_compute(tui_task *k, void *arg, store *s)
{
	const struct tl_arg *a = arg;
	struct tlm *m = xcalloc(1, sizeof *m);
	dt_err e;
	dt_err_clear(&e);
	dt_sync_event *ev = NULL;
	store_sync_clock *ck = NULL;
	size_t n = 0, nck = 0;
	tui_task_stage(k, "reading the sync events");
	int rc = store_sync_list(s, a->id, &ev, &n, &e);
	if (!rc)
		rc = store_sync_clocks(s, a->id, &ck, &nck, &e);
	if (!rc)
		rc = store_sync_sites(s, a->id, &m->sites, &e);
	if (rc) {
		free(ev);
		free(ck);
		m->state = -1;
		snprintf(m->err, sizeof m->err, "no timeline of %s: %s", a->run, e.msg);
		return m;
	}
	if (!n) {
		m->state = -1;
		snprintf(m->err, sizeof m->err,
			 "run %s has no sync record: no timeline. Record it with difftrace-record "
			 "(without --no-sync) to see its MPI and OpenMP calls in order.", a->run);
		free(ev);
		free(ck);
		return m;
	}
	/* lanes: every trace with sync events (ev is sorted by P.T) */
	size_t caplanes = 0;
	for (size_t i = 0; i < n; i++)
		if (!i || ev[i].proc != ev[i - 1].proc || ev[i].thread != ev[i - 1].thread) {
			GROW(m->lanes, caplanes, m->nlanes + 1);
			m->lanes[m->nlanes++] = (struct lane){ ev[i].proc, ev[i].thread };
		}
	tui_task_stage(k, "putting %zu sync events in arrival order", n);
	size_t nhost = 0;
	int64_t *off = ord_host_offsets(ev, n, ck, nck, &nhost);
	size_t *idx = xmalloc(n * sizeof *idx);
	ord_arrival(ev, n, off, idx);
	m->ev = xmalloc(n * sizeof *m->ev);
	for (size_t i = 0; i < n; i++)
		m->ev[i] = ev[idx[i]];
	m->n = n;
	size_t nnames = 0;
	const char *const *names = store_func_names(s, &nnames);
	/* the mismatches of a stopped run, for p on a receive that waits for nothing recorded */
	hang_report hr;
	dt_err he;
	dt_err_clear(&he);
	if (hang_analyze(ev, n, names, nnames, &hr, &he) == 0) {
		if (hr.nnears) {
			size_t *pos = xmalloc(n * sizeof *pos);
			for (size_t i = 0; i < n; i++)
				pos[idx[i]] = i;
			m->near_call = xmalloc(hr.nnears * sizeof *m->near_call);
			m->near_send = xmalloc(hr.nnears * sizeof *m->near_send);
			m->near_txt = xmalloc(hr.nnears * sizeof *m->near_txt);
			for (size_t i = 0; i < hr.nnears; i++) {
				char b[512];
				hang_near_text(&hr, ev, &hr.nears[i], sync_type_name, b, sizeof b);
				size_t l = strlen(b) + 16;
				m->near_txt[i] = xmalloc(l);
				snprintf(m->near_txt[i], l, "%s mismatch: %s",
					 hang_near_name(hr.nears[i].kind), b);
				m->near_call[i] = pos[hr.threads[hr.nears[i].thread].entry];
				m->near_send[i] = pos[hr.nears[i].send];
			}
			m->nnear = hr.nnears;
			free(pos);
		}
		hang_report_free(&hr);
	}
	free(idx);
	free(ev);
	free(ck);
	m->rules = ord_rules_new();
	char *held = NULL;
	ord_filter_opts fo = { ORD_CONCURRENT, off, nhost, 0, 0 };
	rc = ord_rules_load_default(m->rules, &e);
	if (!rc)
		rc = ord_rules_bind(m->rules, names, (uint32_t)nnames, &e);
	if (!rc && tui_task_cancelled(k))
		rc = dt_errf(&e, DT_EDATA, "cancelled");
	if (!rc) {
		tui_task_stage(k, "ordering %zu sync events (causality filter, maximal concurrency)",
			       n);
		rc = ord_order_levelled(m->rules, &fo, m->ev, n, &m->it, &m->nit, &held, &e);
	}
	free(off);
	free(held);
	if (rc) {
		m->state = -1;
		snprintf(m->err, sizeof m->err, "no timeline of %s: %s", a->run, e.msg);
		return m;
	}
	if (tui_task_cancelled(k))
		return m;
	tui_task_stage(k, "finding what each of %zu events waited for", m->nit);
	m->nheld = n - m->nit;
	m->lane_of = xmalloc(n * sizeof *m->lane_of);
	m->itof = xmalloc(n * sizeof *m->itof);
	for (size_t i = 0; i < n; i++) {
		m->lane_of[i] = (uint32_t)lane_find(m, m->ev[i].proc, m->ev[i].thread);
		m->itof[i] = -1;
	}
	m->order = xmalloc((m->nit ? m->nit : 1) * sizeof *m->order);
	m->t0 = m->nit ? m->it[0].ts : 0;
	for (size_t q = 0; q < m->nit; q++) {
		m->order[q] = m->it[q].id;
		m->itof[m->it[q].id] = (int64_t)q;
		m->t0 = m->it[q].ts < m->t0 ? m->it[q].ts : m->t0;
	}
	m->ex = ord_explain_new(m->rules, m->ev, n, m->order, m->nit);
	ord_explain_peer(m->ex, 0); /* the message partners of every event, now: read only after */
	if (tui_task_cancelled(k))
		return m;
	tui_task_stage(k, "laying out the rows");
	size_t *seq = xmalloc((m->nit ? m->nit : 1) * sizeof *seq);
	for (size_t q = 0; q < m->nit; q++)
		seq[q] = q;
	make_rows(m, 0, seq);
	g_m = m;
	qsort(seq, m->nit, sizeof *seq, by_time);
	make_rows(m, 1, seq);
	free(seq);
	make_spans(m);
	m->state = 1;
	return m;
}

static const tui_task_ops tl_task_ops = {
	.name = "timeline", .run = tl_compute, .free_result = tlm_free, .free_arg = free,
};

/* Starts the computation, or finds the one of an earlier timeline of the same run. */
static int start(tui *t, struct tl *d)
{
	store *s = tui_store(t);
	dt_err e;
	dt_err_clear(&e);
	store_run run;
	if (store_run_get_lite(s, d->run, &run, &e)) {
		tui_msg(t, ST_WARN, "%s", e.msg);
		return -1;
	}
	struct tl_arg *a = xcalloc(1, sizeof *a);
	snprintf(a->run, sizeof a->run, "%s", d->run);
	a->id = run.id;
	/* the run as imported: a run removed and imported again under its name is another */
	char key[512];
	snprintf(key, sizeof key, "timeline\n%" PRId64 "\n%s\n%s", run.id,
		 run.created ? run.created : "", d->run);
	store_run_free(&run);
	d->task = tui_task_get(t, key, &tl_task_ops, a);
	return d->task ? 0 : -1;
}

/* ---- where things are ---- */

static int visible_cols(tui *t, const struct tl *d)
{
	int lw = d->mode ? 12 : 7;
	int n = (tui_cols(t) - 2 - lw) / CELL;
	return n < 1 ? 1 : n;
}

/* The item of the cursor's column in row r (the first of a collapsed process's), -1 none. */
static int64_t cell_item(const struct tl *d, size_t r, size_t col, size_t *count)
{
	int m = d->mode;
	int64_t found = -1;
	size_t c = 0;
	if (r >= d->m->nrows[m])
		return -1;
	for (size_t k = d->m->rstart[m][r]; k < d->m->rstart[m][r + 1]; k++) {
		size_t x = d->m->rows[m][k];
		if (d->colof[d->m->lane_of[d->m->it[x].id]] == col) {
			if (found < 0)
				found = (int64_t)x;
			c++;
		}
	}
	if (count)
		*count = c;
	return found;
}

static void show_col(tui *t, struct tl *d)
{
	size_t vis = (size_t)visible_cols(t, d);
	if (d->col < d->left)
		d->left = d->col;
	if (d->col >= d->left + vis)
		d->left = d->col - vis + 1;
}

/* Puts the cursor on event i (an index into ev), its row in sight. */
static void goto_event(tui *t, view *v, struct tl *d, size_t i)
{
	int64_t x = d->m->itof[i];
	if (x < 0)
		return;
	size_t r = (size_t)d->m->rowof[d->mode][x];
	v->cur = r;
	size_t rows = tui_rows(t) > 10 ? (size_t)tui_rows(t) - 8 : 1;
	if (r < v->top || r >= v->top + rows)
		v->top = r > rows / 2 ? r - rows / 2 : 0;
	d->col = d->colof[d->m->lane_of[i]];
	show_col(t, d);
}

/* The event `at` names, -1 when none (why in msg). */
static int64_t locate(const struct tl *d, const struct at *a, char *msg, size_t cap)
{
	int64_t best = -1, bestseq = -1, entry = -1;
	uint64_t occ = 0;
	int64_t after = -1; /* a.fname: the first event after the entry */
	for (size_t i = 0; i < d->m->n; i++) {
		const dt_sync_event *e = &d->m->ev[i];
		if (e->proc != a->proc || e->thread != a->thread)
			continue;
		if (a->fname[0]) {
			const char *nm = e->func < d->nnames ? d->names[e->func] : NULL;
			if (e->phase == DT_SYNC_ENTER && nm && !strcmp(nm, a->fname) &&
			    ++occ == a->occ)
				entry = (int64_t)i;
			continue;
		}
		if (a->seq >= 0 ? e->seq == (uint32_t)a->seq : (int64_t)e->seq > bestseq) {
			best = (int64_t)i;
			bestseq = e->seq;
		}
	}
	if (a->fname[0] && entry >= 0 && a->after) {
		uint32_t want = d->m->ev[entry].seq + 1;
		for (size_t i = 0; i < d->m->n; i++)
			if (d->m->ev[i].proc == a->proc && d->m->ev[i].thread == a->thread &&
			    d->m->ev[i].seq == want)
				after = (int64_t)i;
		best = after >= 0 ? after : entry;
	} else if (a->fname[0]) {
		best = entry;
	}
	if (best < 0) {
		snprintf(msg, cap, "trace %d.%d has no such event in the sync record of %s", a->proc,
			 a->thread, d->run);
		return -1;
	}
	if (d->m->itof[best] < 0) {
		/* never delivered (a hung run): its thread's last delivered event */
		int64_t alt = -1;
		for (size_t i = 0; i < d->m->n; i++)
			if (d->m->ev[i].proc == a->proc && d->m->ev[i].thread == a->thread &&
			    d->m->itof[i] >= 0 && d->m->ev[i].seq < d->m->ev[best].seq &&
			    (alt < 0 || d->m->ev[i].seq > d->m->ev[alt].seq))
				alt = (int64_t)i;
		snprintf(msg, cap, "%d.%d #%u is never delivered (what it waits for never happened): "
			 "at its last delivered event", a->proc, a->thread, d->m->ev[best].seq);
		return alt;
	}
	return best;
}

/* ---- the view ---- */

static void set_title(view *v, const struct tl *d)
{
	if (d->mode)
		snprintf(v->title, sizeof v->title,
			 "difftrace: timeline of %s: %zu traces, %zu instants (aligned clocks)",
			 d->run, d->m->nlanes, d->m->nrows[1]);
	else
		snprintf(v->title, sizeof v->title,
			 "difftrace: timeline of %s: %zu traces, %zu steps (maximal concurrency)",
			 d->run, d->m->nlanes, d->m->nrows[0]);
	if (d->m->nheld) {
		size_t l = strlen(v->title);
		snprintf(v->title + l, sizeof v->title - l, ", %zu events never delivered",
			 d->m->nheld);
	}
}

static int tl_open(tui *t, view *v)
{
	struct tl *d = v->data;
	if (d->state)
		return 0; /* computed once: the sync record does not change */
	if (!d->task && start(t, d))
		return -1;
	void *res;
	char stage[160];
	if (!tui_task_result(t, d->task, &res, stage, sizeof stage)) {
		v->nlines = 2; /* what it computes; the keys work meanwhile */
		return 0;
	}
	if (!res) {
		tui_msg(t, ST_WARN, "%s", stage);
		static const struct tlm none = { .state = -1, .err = "no timeline: the store cannot be read" };
		d->m = &none;
		d->state = -1;
		v->nlines = 1;
		return 0;
	}
	d->m = res;
	if (d->m->state < 0) {
		d->state = -1;
		v->nlines = 1;
		return 0;
	}
	d->names = store_func_names(tui_store(t), &d->nnames);
	d->collapsed = xcalloc(d->m->nlanes ? d->m->nlanes : 1, 1);
	d->colof = xmalloc((d->m->nlanes ? d->m->nlanes : 1) * sizeof *d->colof);
	make_cols(d);
	d->state = 1;
	v->nlines = d->m->nrows[0];
	set_title(v, d);
	if (d->at.proc >= 0) {
		char msg[300] = "";
		int64_t i = locate(d, &d->at, msg, sizeof msg);
		if (i >= 0)
			goto_event(t, v, d, (size_t)i);
		if (msg[0])
			tui_msg(t, ST_WARN, "%s", msg);
		else if (d->at.why[0])
			tui_msg(t, ST_DIM, "%s", d->at.why);
	}
	return 0;
}

static const char *short_name(const struct tl *d, uint32_t f)
{
	const char *nm = f < d->nnames ? d->names[f] : NULL;
	if (!nm)
		return "?";
	static const char *const pfx[] = { "MPI_", "GOMP_", "omp_" };
	/* names that would be cut to the same or to nothing clear (the footer has them whole) */
	static const char *const abbr[][2] = {
		{ "critical_start", "crit_in" },     { "critical_end", "crit_out" },
		{ "critical_name_start", "ncrit_in" }, { "critical_name_end", "ncrit_out" },
		{ "parallel_body", "par_body" },     { "parallel_start", "par_start" },
		{ "parallel_end", "par_end" },       { "set_nest_lock", "set_nlock" },
		{ "unset_nest_lock", "unset_nlk" },  { "unset_lock", "unset_lk" },
		{ "Comm_split", "Csplit" },          { "Comm_split_type", "Csplit_t" },
		{ "Comm_create", "Ccreate" },        { "Init_thread", "Init_thr" },
		{ "Allgatherv", "Allgathv" },        { "Reduce_scatter", "Red_scat" },
		{ "Reduce_scatter_block", "Red_scat_b" }, { "Sendrecv_replace", "Sendrecv_r" },
		{ "Iallreduce", "Iallred" },
	};
	for (size_t k = 0; k < 3; k++)
		if (!strncmp(nm, pfx[k], strlen(pfx[k])) && nm[strlen(pfx[k])]) {
			nm += strlen(pfx[k]);
			for (size_t a = 0; a < sizeof abbr / sizeof *abbr; a++)
				if (!strcmp(nm, abbr[a][0]))
					return abbr[a][1];
			return nm;
		}
	return nm;
}

/* Escaped into buf, at most max bytes of name. */
static void esc_name(const char *nm, char *buf, size_t cap, size_t max)
{
	size_t k = 0;
	for (size_t i = 0; nm[i] && k + 5 < cap && i < max; i++) {
		unsigned char c = (unsigned char)nm[i];
		if (c < 0x20 || c == 0x7f || c >= 0x80)
			k += (size_t)snprintf(buf + k, cap - k, "?");
		else
			buf[k++] = (char)c;
	}
	buf[k] = 0;
}

/* The 10 columns of a cell. */
static void cell_text(struct tl *d, size_t x, size_t count, char *out)
{
	const dt_sync_event *e = &d->m->ev[d->m->it[x].id];
	char suf[48] = "";
	const char *ph = e->phase == DT_SYNC_ENTER ? "(" : e->phase == DT_SYNC_EXIT ? ")" : "*";
	int64_t peer = ord_explain_peer(d->m->ex, d->m->it[x].id);
	if (peer >= 0)
		snprintf(suf, sizeof suf, "%s%s%d", ph,
			 d->m->ev[peer].proc == e->proc ? "=" : (d->m->itof[peer] >= 0 &&
							      d->m->itof[peer] < (int64_t)x) ? "<" : ">",
			 d->m->ev[peer].proc);
	else
		snprintf(suf, sizeof suf, "%s", ph);
	if (count > 1) {
		size_t l = strlen(suf);
		snprintf(suf + l, sizeof suf - l, "+%zu", count - 1);
	}
	suf[9] = 0;
	size_t ls = strlen(suf), room = 10 - ls;
	char nm[64];
	esc_name(short_name(d, e->func), nm, sizeof nm, room);
	size_t ln = strlen(nm);
	memcpy(out, nm, ln);
	memcpy(out + ln, suf, ls + 1);
}

static void row_label(const struct tl *d, size_t r, tui_out *o)
{
	int m = d->mode;
	if (r >= d->m->nrows[m])
		return;
	const ord_item *x = &d->m->it[d->m->rows[m][d->m->rstart[m][r]]];
	if (!m) {
		out_printf(o, ST_DIM, "%6" PRIu64 " ", x->step + 1);
	} else {
		double ms = (double)(x->ts - d->m->t0) / 1e6;
		if (ms < 100000)
			out_printf(o, ST_DIM, "%9.3fms ", ms);
		else
			out_printf(o, ST_DIM, "%10.2fs ", ms / 1e3);
	}
}

static void tl_line(tui *t, view *v, size_t r, tui_out *o)
{
	struct tl *d = v->data;
	if (!d->state) {
		void *res;
		char stage[160];
		if (tui_task_result(t, d->task, &res, stage, sizeof stage)) {
			if (!r)
				out_text(o, ST_DIM, "computed: showing it");
		} else if (!r)
			out_printf(o, ST_DIM, "computing the timeline of %s (q goes back, the work goes "
				   "on)", d->run);
		else
			out_printf(o, ST_DIM, "  %s ...", stage);
		return;
	}
	if (d->state != 1) {
		out_text(o, ST_WARN, d->m->err);
		return;
	}
	row_label(d, r, o);
	int vis = visible_cols(t, d);
	const char *bar = o->utf8 ? "\xe2\x94\x82" : "|";
	int64_t peer = -1;
	if (v->cur < d->m->nrows[d->mode]) {
		int64_t ci = cell_item(d, v->cur, d->col, NULL);
		if (ci >= 0)
			peer = ord_explain_peer(d->m->ex, d->m->it[ci].id);
	}
	int m = d->mode;
	size_t k = d->m->rstart[m][r], end = d->m->rstart[m][r + 1];
	int close = 0; /* the cell before was the cursor's: its ']' is this separator */
	for (size_t c = d->left; c < d->left + (size_t)vis && c < d->ncols; c++) {
		/* the row's events are sorted by lane, the columns too */
		while (k < end && d->colof[d->m->lane_of[d->m->it[d->m->rows[m][k]].id]] < c)
			k++;
		int64_t x = -1;
		size_t count = 0;
		while (k < end && d->colof[d->m->lane_of[d->m->it[d->m->rows[m][k]].id]] == c) {
			if (x < 0)
				x = (int64_t)d->m->rows[m][k];
			count++;
			k++;
		}
		int is_cur = r == v->cur && c == d->col;
		int is_peer = x >= 0 && peer >= 0 && d->m->it[x].id == (uint64_t)peer;
		out_text(o, is_cur ? ST_KEY : is_peer ? ST_MATCH : close ? ST_KEY : ST_DIM,
			 is_cur ? "[" : is_peer ? "@" : close ? "]" : bar);
		close = is_cur;
		if (x < 0 && m == 1 && d->col_n[c] == 1 && !d->collapsed[d->col_first[c]] &&
		    in_span(d->m, d->col_first[c], r)) {
			/* inside a call: its duration as a bar down the lane */
			out_text(o, is_cur ? ST_KEY : ST_DIM, o->utf8 ? " \xe2\x94\x83" : " :");
			out_printf(o, ST_DIM, "%-8s", "");
			continue;
		}
		char txt[16] = "";
		if (x >= 0)
			cell_text(d, (size_t)x, count, txt);
		int style = is_peer ? ST_MATCH : x >= 0 && d->m->ev[d->m->it[x].id].phase == DT_SYNC_ENTER
						 ? ST_NORMAL
						 : ST_HEADER;
		if (x < 0)
			style = ST_DIM;
		out_printf(o, style, "%-10s", txt);
	}
	if (close)
		out_text(o, ST_KEY, "]");
}

static void tl_header(tui *t, view *v, tui_out *o)
{
	struct tl *d = v->data;
	if (d->state != 1)
		return;
	out_text(o, ST_HEADER, d->mode ? "       TIME " : "  STEP ");
	int vis = visible_cols(t, d);
	for (size_t c = d->left; c < d->left + (size_t)vis && c < d->ncols; c++) {
		const struct lane *l = &d->m->lanes[d->col_first[c]];
		char b[32];
		if (d->col_n[c] > 1 || d->collapsed[d->col_first[c]])
			snprintf(b, sizeof b, "%d.*(%zu)", l->proc, d->col_n[c]);
		else
			snprintf(b, sizeof b, "%d.%d", l->proc, l->thread);
		out_printf(o, c == d->col ? ST_KEY : ST_HEADER, "%s%-10s",
			   c == d->col ? ">" : " ", b);
	}
	if (d->left + (size_t)vis < d->ncols)
		out_printf(o, ST_DIM, " +%zu", d->ncols - d->left - (size_t)vis);
}

static void event_str(const struct tl *d, size_t i, char *b, size_t cap)
{
	const dt_sync_event *e = &d->m->ev[i];
	static const char *const ph[] = { "enter", "exit", "done" };
	char nm[160];
	esc_name(e->func < d->nnames && d->names[e->func] ? d->names[e->func] : "?", nm, sizeof nm,
		 120);
	int64_t x = d->m->itof[i];
	if (x >= 0)
		snprintf(b, cap, "%d.%d #%u %s %s (step %" PRIu64 ")", e->proc, e->thread, e->seq, nm,
			 e->phase <= 2 ? ph[e->phase] : "?", d->m->it[x].step + 1);
	else
		snprintf(b, cap, "%d.%d #%u %s %s (never delivered)", e->proc, e->thread, e->seq, nm,
			 e->phase <= 2 ? ph[e->phase] : "?");
}

static void tl_footer(tui *t, view *v, int row, tui_out *o)
{
	(void)t;
	struct tl *d = v->data;
	if (d->state != 1)
		return;
	size_t count = 0;
	int64_t x = cell_item(d, v->cur, d->col, &count);
	if (x < 0) {
		if (!row)
			out_printf(o, ST_DIM, "no event of lane %d.%s in this %s ([ ] go to the lane's events)",
				   d->m->lanes[d->col_first[d->col]].proc,
				   d->col_n[d->col] > 1 ? "*" : "", d->mode ? "row" : "step");
		return;
	}
	size_t i = d->m->it[x].id;
	const dt_sync_event *e = &d->m->ev[i];
	char b[400], args[512];
	if (row == 0) {
		event_str(d, i, b, sizeof b);
		ord_event_args(e, args, sizeof args);
		out_text(o, ST_HEADER, b);
		out_text(o, ST_NORMAL, args);
		tui_site_suffix(o, &d->m->sites, e->site);
		out_printf(o, ST_DIM, "  t=%.3fms", (double)(d->m->it[x].ts - d->m->t0) / 1e6);
		if (count > 1)
			out_printf(o, ST_DIM, "  (+%zu more threads here)", count - 1);
		return;
	}
	ord_dep dep[8];
	size_t nd = ord_explain_deps(d->m->ex, i, dep, 8);
	if (!nd) {
		out_text(o, ST_DIM, "waited for: its thread's previous event only (no rule)");
		return;
	}
	out_text(o, ST_NORMAL, "waited for: ");
	for (size_t k = 0; k < nd && k < 8; k++) {
		const ord_rule *ru = &d->m->rules->rule[dep[k].rule];
		const char *file = strrchr(ru->file, '/');
		char tup[200];
		size_t tl = (size_t)snprintf(tup, sizeof tup, "%s%s(", dep[k].count ? "#" : "",
					     d->m->rules->kind[dep[k].kind].name);
		for (int q = 0; q < dep[k].nt && tl < sizeof tup; q++) {
			if (dep[k].given >> q & 1)
				tl += (size_t)snprintf(tup + tl, sizeof tup - tl, "%s%" PRId64,
						       q ? ", " : "", dep[k].t[q]);
			else
				tl += (size_t)snprintf(tup + tl, sizeof tup - tl, "%s_", q ? ", " : "");
		}
		if (tl < sizeof tup)
			snprintf(tup + tl, sizeof tup - tl, ")");
		out_printf(o, ST_NORMAL, "%s%s = ", k ? "; " : "", tup);
		if (dep[k].ev < 0) {
			out_text(o, ST_DIM, dep[k].count ? "none yet" : "initially true");
		} else {
			event_str(d, (size_t)dep[k].ev, b, sizeof b);
			if (dep[k].count)
				out_printf(o, ST_HEADER, "%zu, the last %s", dep[k].nmatch, b);
			else
				out_text(o, ST_HEADER, b);
		}
		out_printf(o, ST_DIM, " [%s:%d]", file ? file + 1 : ru->file, ru->line);
	}
}

static void next_in_lane(tui *t, view *v, struct tl *d, int dir)
{
	size_t nr = d->m->nrows[d->mode];
	for (size_t r = v->cur; dir > 0 ? r + 1 < nr : r > 0;) {
		r = dir > 0 ? r + 1 : r - 1;
		if (cell_item(d, r, d->col, NULL) >= 0) {
			v->cur = r;
			return;
		}
	}
	tui_msg(t, ST_DIM, "no %s event in this lane", dir > 0 ? "later" : "earlier");
}

static void toggle_proc(tui *t, struct tl *d, size_t col)
{
	size_t l = d->col_first[col];
	int32_t p = d->m->lanes[l].proc;
	size_t nthr = 0;
	for (size_t k = 0; k < d->m->nlanes; k++)
		nthr += d->m->lanes[k].proc == p;
	if (nthr < 2 && !d->collapsed[l]) {
		tui_msg(t, ST_DIM, "process %d has one thread: nothing to collapse", p);
		return;
	}
	unsigned char to = !d->collapsed[l];
	for (size_t k = 0; k < d->m->nlanes; k++)
		if (d->m->lanes[k].proc == p)
			d->collapsed[k] = to;
	make_cols(d);
	d->col = d->colof[l];
	tui_msg(t, ST_DIM, "process %d %s", p, to ? "collapsed into one lane" : "expanded");
}

static int tl_key(tui *t, view *v, int k)
{
	struct tl *d = v->data;
	if (d->state != 1)
		return 0;
	int64_t x = cell_item(d, v->cur, d->col, NULL);
	int64_t ev = x >= 0 ? (int64_t)d->m->it[x].id : -1;
	switch (k) {
	case 'e':
		tui_site_edit(t, &d->m->sites, ev >= 0 ? d->m->ev[ev].site : 0, ev >= 0);
		return 1;
	case KEY_LEFT:
	case 'h':
		if (d->col)
			d->col--;
		show_col(t, d);
		return 1;
	case KEY_RIGHT:
	case 'l':
		if (d->col + 1 < d->ncols)
			d->col++;
		show_col(t, d);
		return 1;
	case 'H':
		d->col = d->col > LSTEP ? d->col - LSTEP : 0;
		d->left = d->left > LSTEP ? d->left - LSTEP : 0;
		show_col(t, d);
		return 1;
	case 'L':
		d->col = d->col + LSTEP < d->ncols ? d->col + LSTEP : (d->ncols ? d->ncols - 1 : 0);
		d->left += LSTEP;
		if (d->left + (size_t)visible_cols(t, d) > d->ncols)
			d->left = d->ncols > (size_t)visible_cols(t, d) ? d->ncols - (size_t)visible_cols(t, d) : 0;
		show_col(t, d);
		return 1;
	case ']':
	case '[':
		next_in_lane(t, v, d, k == ']' ? 1 : -1);
		return 1;
	case 'o':
		toggle_proc(t, d, d->col);
		return 1;
	case 'z': {
		int any = 0;
		for (size_t l = 0; l < d->m->nlanes; l++)
			any |= d->collapsed[l];
		size_t keep = d->col_first[d->col];
		for (size_t l = 0; l < d->m->nlanes; l++) {
			int multi = (l && d->m->lanes[l - 1].proc == d->m->lanes[l].proc) ||
				    (l + 1 < d->m->nlanes && d->m->lanes[l + 1].proc == d->m->lanes[l].proc);
			d->collapsed[l] = !any && multi;
		}
		make_cols(d);
		d->col = d->colof[keep];
		show_col(t, d);
		tui_msg(t, ST_DIM, any ? "every process expanded" : "every process collapsed");
		return 1;
	}
	case 't': {
		d->mode = !d->mode;
		v->nlines = d->m->nrows[d->mode];
		set_title(v, d);
		if (ev >= 0)
			goto_event(t, v, d, (size_t)ev);
		else if (v->cur >= v->nlines)
			v->cur = v->nlines ? v->nlines - 1 : 0;
		tui_msg(t, ST_DIM, d->mode ? "rows: time (aligned clocks, to the microsecond)"
					   : "rows: steps of the order (maximal concurrency)");
		return 1;
	}
	case 'p': {
		if (ev < 0) {
			tui_msg(t, ST_WARN, "no event under the cursor");
			return 1;
		}
		int64_t to = ord_explain_peer(d->m->ex, (size_t)ev);
		if (to < 0) {
			ord_dep dep[8];
			size_t nd = ord_explain_deps(d->m->ex, (size_t)ev, dep, 8);
			for (size_t q = 0; q < nd && q < 8 && to < 0; q++)
				to = dep[q].ev;
		}
		for (size_t q = 0; to < 0 && q < d->m->nnear; q++)
			if (d->m->near_call[q] == (size_t)ev) {
				/* a receive that no send fits: the send alike but for one thing */
				goto_event(t, v, d, d->m->near_send[q]);
				tui_msg(t, ST_WARN, "%s", d->m->near_txt[q]);
				return 1;
			}
		if (to < 0) {
			tui_msg(t, ST_DIM, "it waited for nothing but its thread's previous event");
			return 1;
		}
		char b[400];
		event_str(d, (size_t)to, b, sizeof b);
		goto_event(t, v, d, (size_t)to);
		tui_msg(t, ST_DIM, "%s", b);
		return 1;
	}
	}
	return 0;
}

static void tl_enter(tui *t, view *v, size_t i)
{
	(void)i;
	struct tl *d = v->data;
	if (d->state == 1)
		toggle_proc(t, d, d->col);
}

static void tl_close(view *v)
{
	struct tl *d = v->data; /* m belongs to its task, kept for the session */
	free(d->collapsed);
	free(d->col_first);
	free(d->col_n);
	free(d->colof);
	free(d);
}

static const view_ops tl_ops = {
	.name = "timeline", .keys = keys, .open = tl_open, .line = tl_line, .enter = tl_enter,
	.key = tl_key, .close = tl_close, .header = tl_header, .nfooter = 2, .footer = tl_footer,
};

static int open_at(tui *t, const char *run, const struct at *a)
{
	struct tl *d = xcalloc(1, sizeof *d);
	snprintf(d->run, sizeof d->run, "%s", run);
	d->at = *a;
	return tui_push(t, &tl_ops, d, "difftrace: timeline of %s", d->run) ? 0 : -1;
}

int view_timeline_open(tui *t, const char *run, tui_tl_at at)
{
	struct at a;
	memset(&a, 0, sizeof a);
	a.proc = at.proc;
	a.thread = at.thread;
	a.seq = at.seq;
	return open_at(t, run, &a);
}

int tui_has_sync(tui *t, const char *run)
{
	store *s = tui_store(t);
	dt_err e;
	dt_err_clear(&e);
	store_run r;
	store_sync_clock *ck = NULL;
	size_t n = 0;
	if (store_run_get_lite(s, run, &r, &e)) {
		tui_msg(t, ST_WARN, "%s", e.msg);
		return -1;
	}
	int rc = store_sync_clocks(s, r.id, &ck, &n, &e);
	store_run_free(&r);
	free(ck);
	if (rc) {
		tui_msg(t, ST_WARN, "%s", e.msg);
		return -1;
	}
	return n > 0;
}

/* ---- from a diff: the first diverging call ---- */

static int load_loop(void *ctx, uint32_t id, const nlr_entry *body, size_t n)
{
	dt_err e;
	dt_err_clear(&e);
	return nlr_table_load(ctx, id, body, n, &e);
}

/* The kept events of trace p.t under analysis r, expanded. */
static int kept_events(store *s, const an_result *r, nlr_table *tab, int p, int th, uint32_t **ev,
		       size_t *n, dt_err *e)
{
	int obj = analysis_object(r, p, th);
	if (obj < 0)
		return dt_errf(e, DT_EDATA, "no trace %d.%d in the analysis", p, th);
	nlr_entry *v = NULL;
	size_t nv = 0;
	if (store_analysis_get_trace(s, r->meta.id, obj, NULL, NULL, &v, &nv, NULL, NULL, e))
		return -1;
	int rc = nlr_expand(tab, v, nv, ev, n, e);
	free(v);
	return rc;
}

/* A call the sync recorder records (difftrace-sync(5)): MPI and OpenMP runtime calls. */
static int is_sync_name(const char *nm)
{
	return !strncmp(nm, "MPI_", 4) || !strncmp(nm, "GOMP_", 5) || !strncmp(nm, "omp_", 4);
}

static void base_name(const char *nm, char *b, size_t cap)
{
	snprintf(b, cap, "%s", nm ? nm : "");
	b[strcspn(b, "[")] = 0; /* a call with its arguments (attributes .args) */
}

int view_timeline_diverge(tui *t, const char *run_a, int pa, int ta, const char *run_b, int pb,
			  int tb)
{
	int hs = tui_has_sync(t, run_b);
	if (hs < 0)
		return -1;
	if (!hs) {
		tui_msg(t, ST_WARN, "run %s has no sync record: no timeline (record it with "
			"difftrace-record, without --no-sync)", run_b);
		return -1;
	}
	const an_result *ra = NULL, *rb = NULL;
	int sa = tui_analysis(t, run_a, &ra), sb = tui_analysis(t, run_b, &rb);
	if (sa < 0 || sb < 0)
		return -1;
	if (!sa || !sb) {
		tui_msg(t, ST_DIM, "the analyses are being computed: try again when they are done");
		return -1;
	}
	store *s = tui_store(t);
	dt_err e;
	dt_err_clear(&e);
	nlr_table *tab = nlr_table_new();
	uint32_t *ea = NULL, *eb = NULL;
	size_t na = 0, nb = 0;
	int rc = store_loops_each(s, load_loop, tab, &e);
	if (!rc)
		rc = kept_events(s, ra, tab, pa, ta, &ea, &na, &e);
	if (!rc)
		rc = kept_events(s, rb, tab, pb, tb, &eb, &nb, &e);
	nlr_table_free(tab);
	if (rc) {
		free(ea);
		free(eb);
		tui_msg(t, ST_WARN, "%s", e.msg);
		return -1;
	}
	vd_item it;
	memset(&it, 0, sizeof it);
	vd_compare(ea, na, eb, nb, &it);
	struct at a;
	memset(&a, 0, sizeof a);
	a.proc = pb;
	a.thread = tb;
	a.seq = -1;
	size_t at = (size_t)it.at;
	/* the call at the divergence (or the first call after a differing return); when the
	 * trace ended early, its last call */
	size_t k = at;
	while (k < nb && eb[k] == DT_RET)
		k++;
	int past = k >= nb;
	if (past) {
		k = at < nb ? at : nb;
		while (k > 0 && eb[k - 1] == DT_RET)
			k--;
		k = k ? k - 1 : SIZE_MAX;
	}
	if (it.change == VD_SAME) {
		snprintf(a.why, sizeof a.why, "%d.%d does not differ from %s %d.%d: at its last event",
			 pb, tb, run_a, pa, ta);
	} else if (k == SIZE_MAX) {
		snprintf(a.why, sizeof a.why, "%d.%d has no call before its divergence: at its last event",
			 pb, tb);
	} else {
		/* its occurrence among the calls of that name; a call the sync record does not
		 * have (a function of the program): the sync event after the last call before
		 * it that the record has */
		char want[128], nm[128];
		const char *nmk = store_func_name(s, eb[k]);
		base_name(nmk, want, sizeof want);
		size_t use = k;
		if (!is_sync_name(want)) {
			use = SIZE_MAX;
			for (size_t q = k; q-- > 0;) {
				if (eb[q] == DT_RET)
					continue;
				base_name(store_func_name(s, eb[q]), nm, sizeof nm);
				if (is_sync_name(nm)) {
					use = q;
					break;
				}
			}
		}
		if (use == SIZE_MAX) {
			snprintf(a.why, sizeof a.why, "the first diverging call of %d.%d (%s) follows no "
				 "MPI or OpenMP call: at the trace's first event", pb, tb, want);
			a.seq = 0;
		} else {
			base_name(store_func_name(s, eb[use]), a.fname, sizeof a.fname);
			for (size_t q = 0; q <= use; q++) {
				if (eb[q] == DT_RET)
					continue;
				base_name(store_func_name(s, eb[q]), nm, sizeof nm);
				a.occ += !strcmp(nm, a.fname);
			}
			a.after = use != k;
			char fe[160], o[32];
			esc_name(a.fname, fe, sizeof fe, 100);
			ordinal(a.occ, o, sizeof o);
			if (past)
				snprintf(a.why, sizeof a.why, "%d.%d stopped early: at its last call, %s (%s)",
					 pb, tb, fe, o);
			else if (use == k)
				snprintf(a.why, sizeof a.why, "first diverging call of %d.%d (kept event %zu): %s (%s)",
					 pb, tb, at + 1, fe, o);
			else
				snprintf(a.why, sizeof a.why, "%d.%d diverges in a call the sync record does not "
					 "have: at the event after %s (%s)", pb, tb, fe, o);
		}
	}
	free(ea);
	free(eb);
	return open_at(t, run_b, &a);
}
