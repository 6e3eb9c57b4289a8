/* view_hang.c: the hang report of a run, the one `difftrace hang` prints (analysis/hangdiag.h):
 * its most likely cause (analysis/hangcause.h), weighed against a normal run when the view has
 * one (given, or the normal run of the pair the interface ranks), the threads grouped by
 * where they are at the end (the call they are inside and which of its calls it is, with
 * their P.T ranges, STAT-like), the wait-for graph (who waits for whom and why), the
 * mismatches (a blocked receive and a send alike but for its tag, peer or count), the locks
 * and critical sections held, the calls that can never complete (order/never.h: held by the
 * causality filter at the end, with the rule), and the cycles of the graph (deadlocks).
 * A line that names a call says where the program made it (file:line (function)), and e opens
 * the editor there. Enter on a group, an edge, a lock or a cycle opens the timeline at the
 * last event of its (first) thread. Computed in the background (a tui_task, kept for the session): the view opens
 * at once, says what it computes and answers the keys meanwhile. */
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/sync_file.h"
#include "analysis/hangdiag.h"
#include "order/args.h"
#include "order/hang.h"
#include "order/never.h"
#include "store/store_sync.h"
#include "source.h"
#include "tui.h"
#include "util/esc.h"
#include "util/ptrange.h"
#include "util/util.h"

enum hkind { H_MSG, H_SUMMARY, H_BLANK, H_TITLE, H_GROUP, H_EDGE, H_NONE, H_HELD, H_CYCLE,
	     H_NEAR, H_NEARAT, H_NEVER, H_STOPPED, H_CAUSE, H_ARGS };

struct hline {
	int kind;
	size_t i, j; /* group, first edge and end of its run, thread and lock, cycle; a
		      * mismatch and which of its calls (0 the receive, 1 the send) */
};

/* The report of a run (analysis/hangdiag.h, as `difftrace hang` makes it), computed in the
 * background and then read only. */
struct hres {
	int state; /* 1 ready, -1 no report (msg says why) */
	char msg[600];
	dt_sync_event *ev;
	size_t n;
	hang_report r;
	ord_held *held; /* the calls that can never complete */
	size_t nheld, *thread_of;
	char *stopped;  /* the filter's error, or NULL */
	hang_cause cause; /* the most likely cause */
	char cause_text[1024];
	store_sites sites; /* where the calls were made */
	hr_info hr;        /* the comparison with the normal run (hr.n 0: none), which the
			    * cause weighed */
	char args_text[1024]; /* the arguments every thread changed alike against it */
};

struct hang {
	char run[128];
	char normal[128]; /* the normal run the cause is weighed against, "" when none */
	int state; /* 0 computing, 1 ready, -1 no report (msg says why) */
	char msg[600];
	unsigned flags;
	tui_task *task;
	const dt_sync_event *ev;
	size_t n;
	const hang_report *rp;
	const struct hres *res;
	struct hline *ln;
	size_t nln, cap;
};

static const tui_keyhelp keys[] = {
	{ "Enter", "the timeline at the last event of the line's (first) thread" },
	{ "T", "the timeline of the run from its start" },
	{ "e", "the editor ($VISUAL, $EDITOR) where the line's call was made (a mismatch: its "
	       "receive; the lines below it: the receive, the send)" },
	{ "", "groups: P.T ranges of the threads in the same call (the" },
	{ "", "  how-manieth call of it in the thread), as difftrace hang" },
	{ NULL, NULL },
};

static void push(struct hang *d, int kind, size_t i, size_t j)
{
	GROW(d->ln, d->cap, d->nln + 1);
	d->ln[d->nln++] = (struct hline){ kind, i, j };
}

static void hres_free(void *p)
{
	struct hres *h = p;
	if (!h)
		return;
	hang_cause_free(&h->cause);
	hr_free(&h->hr);
	hang_report_free(&h->r);
	ord_held_free(h->held, h->nheld);
	free(h->thread_of);
	free(h->stopped);
	store_sites_free(&h->sites);
	free(h->ev);
	free(h);
}

struct hang_arg {
	char run[128];
	int64_t id;
	char normal[128]; /* the normal run, "" when none */
};

static int hang_step(void *k, const char *what)
{
	tui_task_stage(k, "%s", what);
	return tui_task_cancelled(k);
}

/* In the background (tui_task): the report, as `difftrace hang` makes it (hangdiag.h), and
 * with the same normal run when the view has one. */
static void *hang_compute(tui_task *k, void *arg, store *s)
{
	const struct hang_arg *a = arg;
	struct hres *h = xcalloc(1, sizeof *h);
	dt_err e;
	dt_err_clear(&e);
	hang_diag d;
	hang_diag_opts o = { .normal = a->normal[0] ? a->normal : NULL, .step = hang_step,
			     .ctx = k };
	int rc = hang_diagnose(s, a->id, &o, &d, &e);
	if (rc < 0) {
		h->state = -1;
		snprintf(h->msg, sizeof h->msg, "no hang report: %s", e.msg);
	} else if (!rc && !d.n) {
		h->state = -1;
		snprintf(h->msg, sizeof h->msg,
			 "run %s has no sync record: no hang report. Record it with difftrace-record "
			 "(without --no-sync): its MPI and OpenMP calls are then written before they "
			 "can block.", a->run);
	} else if (!rc) {
		/* the report moves into the view's result */
		h->ev = d.ev;
		h->n = d.n;
		h->r = d.rep;
		h->held = d.held;
		h->nheld = d.nheld;
		h->thread_of = d.thread_of;
		h->stopped = d.stopped;
		h->cause = d.cause;
		h->sites = d.sites;
		h->hr = d.hr;
		memcpy(h->cause_text, d.cause_text, sizeof h->cause_text);
		memcpy(h->args_text, d.args_text, sizeof h->args_text);
		free(d.odd.threads);
		memset(&d, 0, sizeof d);
		h->state = 1;
	}
	hang_diag_free(&d);
	return h;
}

static const tui_task_ops hang_task_ops = {
	.name = "hang", .run = hang_compute, .free_result = hres_free, .free_arg = free,
};

static int hang_open(tui *t, view *v)
{
	struct hang *d = v->data;
	if (d->state) {
		v->nlines = d->nln;
		return 0;
	}
	if (!d->task) {
		store *s = tui_store(t);
		dt_err e;
		dt_err_clear(&e);
		store_run run, nr = { 0 };
		if (store_run_get_lite(s, d->run, &run, &e)) {
			tui_msg(t, ST_WARN, "%s", e.msg);
			return -1;
		}
		if (d->normal[0] && store_run_get_lite(s, d->normal, &nr, &e)) {
			tui_msg(t, ST_WARN, "normal run: %s", e.msg);
			store_run_free(&run);
			return -1;
		}
		d->flags = run.flags;
		struct hang_arg *a = xcalloc(1, sizeof *a);
		snprintf(a->run, sizeof a->run, "%s", d->run);
		snprintf(a->normal, sizeof a->normal, "%s", d->normal);
		a->id = run.id;
		char key[1024]; /* the runs as imported (see view_timeline.c) */
		snprintf(key, sizeof key, "hang\n%" PRId64 "\n%s\n%s\n%" PRId64 "\n%s\n%s", run.id,
			 run.created ? run.created : "", d->run, d->normal[0] ? nr.id : 0,
			 nr.created ? nr.created : "", d->normal);
		store_run_free(&run);
		store_run_free(&nr);
		if (!(d->task = tui_task_get(t, key, &hang_task_ops, a)))
			return -1;
	}
	void *res;
	char stage[160];
	if (!tui_task_result(t, d->task, &res, stage, sizeof stage)) {
		v->nlines = 2; /* what it computes; the keys work meanwhile */
		return 0;
	}
	const struct hres *h = res;
	if (!h) {
		d->state = -1;
		snprintf(d->msg, sizeof d->msg, "no hang report: %s", stage);
	} else if (h->state < 0) {
		d->state = -1;
		snprintf(d->msg, sizeof d->msg, "%s", h->msg);
	} else {
		d->state = 1;
		d->ev = h->ev;
		d->n = h->n;
		d->rp = &h->r;
		d->res = h;
	}
	if (d->state < 0) {
		push(d, H_MSG, 0, 0);
		v->nlines = d->nln;
		return 0;
	}
	const hang_report *r = d->rp;
	push(d, H_CAUSE, 0, 0);
	if (d->res->args_text[0])
		push(d, H_ARGS, 0, 0);
	push(d, H_BLANK, 0, 0);
	push(d, H_SUMMARY, 0, 0);
	push(d, H_BLANK, 0, 0);
	push(d, H_TITLE, 0, 0);
	size_t first = d->nln; /* the cursor on the first group */
	for (size_t i = 0; i < r->ngroups; i++)
		push(d, H_GROUP, i, 0);
	push(d, H_BLANK, 0, 0);
	push(d, H_TITLE, 1, 0);
	for (size_t i = 0; i < r->nedges;) {
		size_t j = i;
		while (j < r->nedges && r->edges[j].from == r->edges[i].from &&
		       r->edges[j].why == r->edges[i].why)
			j++;
		push(d, H_EDGE, i, j);
		i = j;
	}
	if (!r->nedges)
		push(d, H_NONE, 0, 0);
	if (r->nnears) {
		push(d, H_BLANK, 0, 0);
		push(d, H_TITLE, 4, 0);
	}
	for (size_t i = 0; i < r->nnears; i++) {
		/* where the program made the two calls, as difftrace hang says */
		const hang_near *m = &r->nears[i];
		push(d, H_NEAR, i, 0);
		if (store_site_get(&d->res->sites, d->ev[m->recv].site))
			push(d, H_NEARAT, i, 0);
		if (store_site_get(&d->res->sites, d->ev[m->send].site))
			push(d, H_NEARAT, i, 1);
	}
	int held = 0;
	for (size_t i = 0; i < r->nthreads; i++)
		for (size_t k = 0; k < r->threads[i].nheld; k++) {
			if (!held++) {
				push(d, H_BLANK, 0, 0);
				push(d, H_TITLE, 2, 0);
			}
			push(d, H_HELD, i, k);
		}
	push(d, H_BLANK, 0, 0);
	push(d, H_TITLE, 5, 0);
	for (size_t i = 0; i < d->res->nheld; i++)
		push(d, H_NEVER, i, 0);
	if (d->res->stopped)
		push(d, H_STOPPED, 0, 0);
	else if (!d->res->nheld)
		push(d, H_NONE, 0, 0);
	push(d, H_BLANK, 0, 0);
	push(d, H_TITLE, 3, 0);
	for (size_t i = 0; i < r->ncycles; i++)
		push(d, H_CYCLE, i, 0);
	v->nlines = d->nln;
	v->cur = first < d->nln ? first : 0;
	return 0;
}

static void put_name(tui_out *o, int style, store *s, uint32_t f)
{
	const char *nm = store_func_name(s, f);
	char b[200];
	size_t k = 0;
	for (; nm && *nm && k + 5 < sizeof b; nm++) {
		unsigned char c = (unsigned char)*nm;
		if (c < 0x20 || c == 0x7f)
			k += (size_t)snprintf(b + k, sizeof b - k, "\\x%02x", c);
		else
			b[k++] = (char)c;
	}
	b[k] = 0;
	out_text(o, style, k ? b : "?");
}

static void pts(tui_out *o, int style, const hang_report *r, const size_t *idx, size_t n)
{
	if (n == 1) {
		out_printf(o, style, "%d.%d", r->threads[idx[0]].proc, r->threads[idx[0]].thread);
		return;
	}
	ptr_pt *v = xmalloc((n ? n : 1) * sizeof *v);
	for (size_t i = 0; i < n; i++)
		v[i] = (ptr_pt){ (uint32_t)r->threads[idx[i]].proc,
				 (uint32_t)r->threads[idx[i]].thread };
	char *s = ptr_format(v, n);
	out_text(o, style, s);
	free(s);
	free(v);
}

static size_t line_thread(const struct hang *d, size_t i);

/* The site of the call a line names (0: none). */
static uint32_t line_site(const struct hang *d, size_t i)
{
	if (d->state != 1 || i >= d->nln)
		return 0;
	const struct hline *l = &d->ln[i];
	if (l->kind == H_HELD)
		return d->ev[d->rp->threads[l->i].held[l->j]].site;
	if (l->kind == H_NEVER)
		return d->res->held[l->i].ev.site;
	if (l->kind == H_NEAR || l->kind == H_NEARAT) {
		const hang_near *m = &d->rp->nears[l->i];
		return d->ev[l->kind == H_NEARAT && l->j ? m->send : m->recv].site;
	}
	if (l->kind != H_GROUP && l->kind != H_EDGE)
		return 0;
	size_t th = line_thread(d, i);
	const hang_thread *h = th == SIZE_MAX ? NULL : &d->rp->threads[th];
	return h && h->func ? d->ev[h->entry].site : 0;
}

/* Whether every thread of a group made its call in one place. */
static int group_one_site(const struct hang *d, const hang_group *g)
{
	const hang_thread *a = &d->rp->threads[g->threads[0]];
	for (size_t k = 1; k < g->n; k++) {
		const hang_thread *h = &d->rp->threads[g->threads[k]];
		if (!a->func || !h->func || d->ev[h->entry].site != d->ev[a->entry].site)
			return 0;
	}
	return 1;
}

static void hang_line(tui *t, view *v, size_t i, tui_out *o)
{
	struct hang *d = v->data;
	if (!d->state) {
		void *res;
		char stage[160];
		if (tui_task_result(t, d->task, &res, stage, sizeof stage))
			return;
		if (!i)
			out_printf(o, ST_DIM, "computing the hang report of %s (q goes back, the work "
				   "goes on)", d->run);
		else
			out_printf(o, ST_DIM, "  %s ...", stage);
		return;
	}
	const struct hline *l = &d->ln[i];
	const hang_report *r = d->rp;
	store *s = tui_store(t);
	char b[32];
	switch (l->kind) {
	case H_MSG:
		out_text(o, ST_WARN, d->msg);
		break;
	case H_SUMMARY: {
		char fl[200];
		dt_flags_str(d->flags, fl, sizeof fl);
		out_printf(o, ST_NORMAL, "run %s: %zu threads with sync events", d->run, r->nthreads);
		int aborted = d->res->cause.why == HANG_C_ABORT;
		if (aborted)
			out_text(o, ST_WARN, ", aborted");
		else if (d->flags & DT_TF_TIMEOUT)
			out_text(o, ST_WARN, ", stopped by difftrace-record --timeout");
		out_printf(o, ST_DIM, " (flags %s)", fl);
		if (r->ncycles)
			out_printf(o, ST_WARN, "; %s: %zu cycle%s",
				   aborted ? "wait-for at the abort" : "deadlock", r->ncycles,
				   r->ncycles == 1 ? "" : "s");
		if (d->res->sites.nodebug)
			out_printf(o, ST_DIM, "; %s", store_sites_note(&d->res->sites));
		break;
	}
	case H_BLANK:
		break;
	case H_TITLE: {
		static const char *const tt[] = { "where each thread is at the end:",
						  "wait-for graph:",
						  "locks and critical sections held at the end:",
						  "wait-for cycles (deadlock):",
						  "mismatches (a blocked receive, a send alike but for one "
						  "thing):",
						  "calls that can never complete (held by the causality "
						  "filter at the end):" };
		out_text(o, ST_HEADER, tt[l->i]);
		if (l->i == 1)
			out_printf(o, ST_DIM, " %zu edge%s", r->nedges, r->nedges == 1 ? "" : "s");
		if (l->i == 3 && !r->ncycles)
			out_text(o, ST_DIM, " none");
		break;
	}
	case H_GROUP: {
		const hang_group *g = &r->groups[l->i];
		const hang_thread *h = &r->threads[g->threads[0]];
		size_t c0 = (size_t)out_cols(o);
		pts(o, ST_HEADER, r, g->threads, g->n);
		out_pad(o, (int)c0 + 20);
		out_text(o, ST_NORMAL, " ");
		if (h->state == HANG_FINISHED) {
			out_text(o, ST_DIM, "finished (returned from MPI_Finalize)");
		} else if (h->state == HANG_OUTSIDE) {
			out_text(o, ST_NORMAL, "not in a recorded call");
			if (h->func) {
				out_text(o, ST_DIM, " (after ");
				put_name(o, ST_DIM, s, h->func);
				out_printf(o, ST_DIM, ", %s)", ordinal(h->occurrence, b, sizeof b));
			}
		} else {
			out_text(o, ST_NORMAL, "in ");
			put_name(o, ST_WARN, s, h->func);
			out_printf(o, ST_NORMAL, " (%s)", ordinal(h->occurrence, b, sizeof b));
		}
		out_printf(o, ST_DIM, "  %zu thread%s", g->n, g->n == 1 ? "" : "s");
		uint32_t site = line_site(d, i);
		tui_site_suffix(o, &d->res->sites, site);
		if (site && !group_one_site(d, g))
			out_text(o, ST_DIM, " (the first thread's; others elsewhere)");
		break;
	}
	case H_EDGE: {
		const hang_edge *a = &r->edges[l->i];
		const hang_thread *h = &r->threads[a->from];
		size_t k = l->j - l->i;
		size_t *to = xmalloc(k * sizeof *to);
		for (size_t q = 0; q < k; q++)
			to[q] = r->edges[l->i + q].to;
		char pt[32];
		snprintf(pt, sizeof pt, "%d.%d", h->proc, h->thread);
		out_printf(o, ST_HEADER, "%-8s", pt);
		out_text(o, ST_NORMAL, " waits for ");
		pts(o, ST_HEADER, r, to, k);
		out_printf(o, ST_NORMAL, " (%s: ", hang_why_name(a->why));
		put_name(o, ST_NORMAL, s, h->func);
		char args[512];
		ord_event_args(&d->ev[h->entry], args, sizeof args);
		out_printf(o, ST_NORMAL, "%s)", args);
		tui_site_suffix(o, &d->res->sites, line_site(d, i));
		free(to);
		break;
	}
	case H_NONE:
		out_text(o, ST_DIM, "(none)");
		break;
	case H_HELD: {
		const hang_thread *h = &r->threads[l->i];
		const dt_sync_event *e = &d->ev[h->held[l->j]];
		out_printf(o, ST_HEADER, "%d.%d", h->proc, h->thread);
		out_text(o, ST_NORMAL, " holds ");
		put_name(o, ST_NORMAL, s, e->func);
		out_printf(o, ST_NORMAL, " obj=%#" PRIx64 " (%s acquisition)", e->obj,
			   ordinal(e->objseq, b, sizeof b));
		tui_site_suffix(o, &d->res->sites, e->site);
		break;
	}
	case H_NEAR: {
		const hang_near *m = &r->nears[l->i];
		char txt[512];
		hang_near_text(r, d->ev, m, sync_type_name, txt, sizeof txt);
		out_printf(o, ST_WARN, "%s mismatch: ", hang_near_name(m->kind));
		out_text(o, ST_NORMAL, txt);
		break;
	}
	case H_NEARAT: {
		const store_site *site = store_site_get(&d->res->sites, line_site(d, i));
		char st[1800], w[1800];
		out_text(o, ST_NORMAL, l->j ? "  the send" : "  the receive");
		if (site)
			out_printf(o, ST_DIM, " at %s",
				   esc_str(store_site_str(site, st, sizeof st), w, sizeof w));
		break;
	}
	case H_NEVER: {
		const ord_held *h = &d->res->held[l->i];
		out_printf(o, ST_HEADER, "%d.%d ", h->ev.proc, h->ev.thread);
		if (h->id != SIZE_MAX) {
			out_text(o, ST_NORMAL, "in ");
			put_name(o, ST_WARN, s, h->ev.func);
			out_printf(o, ST_NORMAL, " (%s)",
				   ordinal(r->threads[d->res->thread_of[h->id]].occurrence, b, sizeof b));
		} else {
			out_printf(o, ST_NORMAL, "#%" PRIu32 " ", h->ev.seq);
			put_name(o, ST_NORMAL, s, h->ev.func);
			out_printf(o, ST_NORMAL, " %s (%zu held)",
				   h->ev.phase == DT_SYNC_ENTER ? "enter" : "exit", h->nheld);
		}
		const char *rule = strrchr(h->rule, '/');
		out_printf(o, ST_DIM, ": rule %s: ", h->rule[0] ? rule ? rule + 1 : h->rule : "(none)");
		out_text(o, ST_NORMAL, h->why ? h->why : "");
		tui_site_suffix(o, &d->res->sites, h->ev.site);
		break;
	}
	case H_CAUSE:
		out_text(o, ST_WARN, "most likely cause: ");
		out_text(o, ST_NORMAL, d->res->cause_text);
		break;
	case H_ARGS:
		out_text(o, ST_NORMAL, "  every thread that makes these calls changed them alike against "
			 "the normal run: ");
		out_text(o, ST_WARN, d->res->args_text);
		out_text(o, ST_NORMAL, ": a changed input, left out of the comparison");
		break;
	case H_STOPPED:
		out_text(o, ST_WARN, "the causality filter stopped: ");
		out_text(o, ST_NORMAL, d->res->stopped);
		break;
	case H_CYCLE: {
		const hang_cycle *c = &r->cycles[l->i];
		for (size_t k = 0; k <= c->n; k++) {
			const hang_thread *h = &r->threads[c->threads[k % c->n]];
			out_printf(o, ST_WARN, "%s%d.%d", k ? " -> " : "", h->proc, h->thread);
		}
		break;
	}
	}
}

/* The thread a line is about, or SIZE_MAX. */
static size_t line_thread(const struct hang *d, size_t i)
{
	if (d->state != 1 || i >= d->nln)
		return SIZE_MAX;
	const struct hline *l = &d->ln[i];
	switch (l->kind) {
	case H_GROUP: return d->rp->groups[l->i].threads[0];
	case H_EDGE: return d->rp->edges[l->i].from;
	case H_HELD: return l->i;
	case H_CAUSE: return d->res->cause.n ? d->res->cause.threads[0] : SIZE_MAX;
	case H_CYCLE: return d->rp->cycles[l->i].threads[0];
	case H_NEAR: return d->rp->nears[l->i].thread;
	case H_NEARAT: return l->j ? d->rp->nears[l->i].sender : d->rp->nears[l->i].thread;
	case H_NEVER: {
		const ord_held *h = &d->res->held[l->i];
		return h->id != SIZE_MAX ? d->res->thread_of[h->id] : SIZE_MAX;
	}
	}
	return SIZE_MAX;
}

static void hang_enter(tui *t, view *v, size_t i)
{
	struct hang *d = v->data;
	size_t th = line_thread(d, i);
	if (th == SIZE_MAX) {
		tui_msg(t, ST_DIM, "Enter works on a group, an edge, a mismatch, a lock or a cycle");
		return;
	}
	const hang_thread *h = &d->rp->threads[th];
	view_timeline_open(t, d->run, (tui_tl_at){ h->proc, h->thread, -1 });
}

static int hang_key(tui *t, view *v, int k)
{
	struct hang *d = v->data;
	if (k == 'T') {
		view_timeline_open(t, d->run, (tui_tl_at){ -1, -1, -1 });
		return 1;
	}
	if (k == 'e' && d->state == 1) {
		uint32_t site = line_site(d, v->cur);
		int kind = v->cur < d->nln ? d->ln[v->cur].kind : H_MSG;
		int call = kind == H_GROUP || kind == H_EDGE || kind == H_HELD || kind == H_NEVER ||
			   kind == H_NEAR || kind == H_NEARAT;
		if (kind == H_GROUP && !d->rp->threads[line_thread(d, v->cur)].func)
			call = 0;
		tui_site_edit(t, &d->res->sites, site, call);
		return 1;
	}
	return 0;
}

static void hang_close(view *v)
{
	struct hang *d = v->data;
	free(d->ln); /* the report belongs to its task, kept for the session */
	free(d);
}

static const view_ops hang_ops = {
	.name = "hang", .keys = keys, .open = hang_open, .line = hang_line, .enter = hang_enter,
	.key = hang_key, .close = hang_close,
};

int view_hang_open(tui *t, const char *run, const char *normal)
{
	struct hang *d = xcalloc(1, sizeof *d);
	snprintf(d->run, sizeof d->run, "%s", run);
	const char *pn, *pf;
	if (!normal && tui_get_pair(t, &pn, &pf) && pn && pf && !strcmp(pf, run))
		normal = pn; /* the pair the interface ranks: run is its faulty one */
	if (normal && strcmp(normal, run))
		snprintf(d->normal, sizeof d->normal, "%s", normal);
	if (d->normal[0])
		return tui_push(t, &hang_ops, d,
				"difftrace: where each thread of %s is at the end, against the normal "
				"run %s", d->run, d->normal) ? 0 : -1;
	return tui_push(t, &hang_ops, d, "difftrace: where each thread of %s is at the end", d->run)
		       ? 0
		       : -1;
}
