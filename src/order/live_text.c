/* live_text.c: the state of a recording in progress (live.h) as text, for `difftrace watch`'s
 * snapshots and its screen alike: each thread's call or what it does between calls, grouped
 * by call when there are many, and the wait-for cycles among them. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "order/hang.h"
#include "order/live.h"
#include "order/live_text.h"
#include "record/syncfmt.h"
#include "util/esc.h"
#include "util/ptrange.h"
#include "util/util.h"

static int64_t clock_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* "12.3s", "4m05s", "2h03m" */
static const char *dur(int64_t ns, char *b, size_t n)
{
	int64_t ds = ns / 100000000; /* tenths */
	if (ds < 600)
		snprintf(b, n, "%" PRId64 ".%" PRId64 "s", ds / 10, ds % 10);
	else if (ds < 36000)
		snprintf(b, n, "%" PRId64 "m%02" PRId64 "s", ds / 600, ds / 10 % 60);
	else
		snprintf(b, n, "%" PRId64 "h%02" PRId64 "m", ds / 36000, ds / 600 % 60);
	return b;
}

const char *live_pt_str(const live_thread *t, char *b, size_t n)
{
	if (t->proc >= 0)
		snprintf(b, n, "%d.%d", t->proc, t->thread);
	else
		snprintf(b, n, "pid%" PRId64 ".%d", t->pid, t->thread);
	return b;
}

/* What a thread is doing, in words: "in MPI_Recv (1st) src=1 tag=0". */
static void what(FILE *f, const live_thread *t)
{
	char b[32], a[256];
	switch (t->state) {
	case LIVE_STARTING:
		fprintf(f, "starting (no call recorded yet)");
		return;
	case LIVE_FINISHED:
		fprintf(f, "finished (returned from MPI_Finalize)");
		return;
	case LIVE_OUTSIDE:
		fprintf(f, "%s", live_activity_name(t->activity));
		if (t->cur.func)
			fprintf(f, " (after %s, %s)", live_call_name(t->cur.func),
				live_nth(t->occurrence, b, sizeof b));
		return;
	default:
		live_args(&t->cur, a, sizeof a);
		fprintf(f, "in %s (%s)%s%s", live_call_name(t->cur.func),
			live_nth(t->occurrence, b, sizeof b), a[0] ? " " : "", a);
	}
}

/* What follows it: the locks held, a process that ended. */
static void notes(FILE *f, const live_thread *t)
{
	if (t->nholds)
		fprintf(f, ", holding obj=%#" PRIx64 "%s", t->holds, t->nholds > 1 ? " and more" : "");
	if (t->gone)
		fprintf(f, " [process gone]");
}

/* The P.T set of a group: the ranked threads in ptrange form, then the others by pid. */
char *live_group_pts(const live_thread *th, const live_group *g)
{
	ptr_pt *v = xmalloc((g->n ? g->n : 1) * sizeof *v);
	size_t k = 0;
	for (size_t i = 0; i < g->n; i++) {
		const live_thread *t = &th[g->threads[i]];
		if (t->proc >= 0)
			v[k++] = (ptr_pt){ (uint32_t)t->proc, (uint32_t)t->thread };
	}
	char *s = k == 1 ? NULL : ptr_format(v, k);
	if (k == 1) {
		char b[48];
		s = xstrdup(live_pt_str(&th[g->threads[0]], b, sizeof b));
	}
	free(v);
	for (size_t i = 0; i < g->n; i++) {
		const live_thread *t = &th[g->threads[i]];
		if (t->proc >= 0)
			continue;
		char b[48], *x;
		if (asprintf(&x, "%s%s%s", s, s[0] ? ", " : "", live_pt_str(t, b, sizeof b)) < 0)
			abort();
		free(s);
		s = x;
	}
	return s;
}

/* The wait-for cycles among the calls the threads are in now (hang.h on one entry per thread:
 * the open call, or the last call's entry and exit): a deadlock of receives, sends,
 * collectives or MPI_Finalize shows while it happens. Locks, barriers and requests need the
 * events before (difftrace hang DIR). *nc the cycles, each a -1-ended list of thread indices
 * into th, malloc'ed. */
size_t **live_cycles_of(const live_thread *th, size_t n, size_t *nc)
{
	*nc = 0;
	dt_sync_event *ev = xmalloc((2 * n + 1) * sizeof *ev);
	size_t *of = xmalloc((2 * n + 1) * sizeof *of), m = 0;
	for (size_t i = 0; i < n; i++) {
		const live_thread *t = &th[i];
		if (t->proc < 0 || t->state == LIVE_STARTING || !t->cur.func ||
		    (m && ev[m - 1].proc == t->proc && ev[m - 1].thread == t->thread))
			continue;
		dt_sync_event e = t->cur;
		e.proc = t->proc;
		e.thread = t->thread;
		e.seq = 1;
		e.phase = DT_SYNC_ENTER;
		of[m] = i;
		ev[m++] = e;
		if (t->state != LIVE_IN_CALL) { /* returned from it */
			e.seq = 2;
			e.phase = DT_SYNC_EXIT;
			of[m] = i;
			ev[m++] = e;
		}
	}
	const char *names[DTS_NCALLS];
	for (unsigned c = 0; c < DTS_NCALLS; c++)
		names[c] = c ? live_call_name(c) : NULL;
	hang_report r;
	dt_err e;
	dt_err_clear(&e);
	size_t **out = NULL;
	if (m && hang_analyze(ev, m, names, DTS_NCALLS, &r, &e) == 0) {
		out = xmalloc((r.ncycles ? r.ncycles : 1) * sizeof *out);
		for (size_t c = 0; c < r.ncycles; c++) {
			out[c] = xmalloc((r.cycles[c].n + 1) * sizeof **out);
			for (size_t k = 0; k < r.cycles[c].n; k++)
				out[c][k] = of[r.threads[r.cycles[c].threads[k]].entry];
			out[c][r.cycles[c].n] = SIZE_MAX;
		}
		*nc = r.ncycles;
		hang_report_free(&r);
	}
	free(ev);
	free(of);
	return out;
}

void live_cycles_free(size_t **c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(c[i]);
	free(c);
}

/* One line per cycle: "deadlock: 0.0 -> 1.0 -> 0.0". */
static void cycles_text(FILE *f, const live_thread *th, size_t n)
{
	size_t nc;
	size_t **c = live_cycles_of(th, n, &nc);
	char b[48];
	for (size_t i = 0; i < nc; i++) {
		fprintf(f, "%sdeadlock: ", i ? "" : "\n");
		for (size_t k = 0; c[i][k] != SIZE_MAX; k++)
			fprintf(f, "%s -> ", live_pt_str(&th[c[i][k]], b, sizeof b));
		fprintf(f, "%s\n", live_pt_str(&th[c[i][0]], b, sizeof b));
	}
	if (nc)
		fprintf(f, "(from the calls they are in; the whole graph: difftrace hang DIR)\n");
	live_cycles_free(c, nc);
}

/* One snapshot in text: a header, then a line per thread or per group, then the cycles. */
void live_text(FILE *f, const live *l, const char *dir, int group, size_t rows)
{
	size_t n, ng;
	const live_thread *th = live_threads(l, &n);
	const live_group *gr = live_groups(l, &ng);
	uint64_t rec, del, held;
	const char *stopped;
	live_counts(l, &rec, &del, &held, &stopped);
	size_t procs = 0;
	for (size_t i = 0; i < n; i++)
		procs += !i || th[i].proc != th[i - 1].proc || th[i].pid != th[i - 1].pid;
	time_t now = time(NULL);
	struct tm tm;
	char clock[16] = "";
	if (localtime_r(&now, &tm))
		strftime(clock, sizeof clock, "%H:%M:%S", &tm);
	fprintf(f, "difftrace watch ");
	esc_fputs(dir, f);
	fprintf(f, "  %s\n%zu process%s, %zu thread%s, %" PRIu64 " events; in causal order %" PRIu64
		   ", held %" PRIu64 "\n",
		clock, procs, procs == 1 ? "" : "es", n, n == 1 ? "" : "s", rec, del, held);
	if (stopped) {
		fprintf(f, "the causality filter stopped: ");
		esc_fputs(stopped, f);
		fputc('\n', f);
	}
	if (!n) {
		fprintf(f, "\nno sync file yet (the program has made no MPI or OpenMP call, or "
			   "DIR is not where difftrace-record writes)\n");
		return;
	}
	int grouped = group == GROUP_ALWAYS || (group == GROUP_AUTO && n > rows);
	char b[48], d[32];
	if (!grouped) {
		fprintf(f, "\n%-10s %8s  %s\n", "P.T", "FOR", "WHERE");
		for (size_t i = 0; i < n; i++) {
			const live_thread *t = &th[i];
			fprintf(f, "%-10s %8s  ", live_pt_str(t, b, sizeof b),
				t->state == LIVE_STARTING || t->state == LIVE_FINISHED
					? ""
					: dur(t->elapsed_ns, d, sizeof d));
			what(f, t);
			notes(f, t);
			fputc('\n', f);
		}
		cycles_text(f, th, n);
		return;
	}
	fprintf(f, "\n%-20s %8s  %s\n", "P.T", "LONGEST", "WHERE");
	for (size_t i = 0; i < ng; i++) {
		const live_group *g = &gr[i];
		char *pts = live_group_pts(th, g);
		fprintf(f, "%-20s %8s  ", pts,
			g->state == LIVE_STARTING || g->state == LIVE_FINISHED ? ""
										: dur(g->max_ns, d, sizeof d));
		free(pts);
		const live_thread *t = &th[g->threads[0]];
		switch (g->state) {
		case LIVE_IN_CALL:
			fprintf(f, "in %s", live_call_name(g->func));
			int same = 1;
			for (size_t k = 1; k < g->n; k++)
				same &= th[g->threads[k]].occurrence == t->occurrence;
			if (g->n > 1 && same)
				fprintf(f, " (%s)", live_nth(t->occurrence, b, sizeof b));
			if (g->n == 1) {
				char a[256];
				live_args(&t->cur, a, sizeof a);
				fprintf(f, " (%s)%s%s", live_nth(t->occurrence, b, sizeof b),
					a[0] ? " " : "", a);
			}
			break;
		case LIVE_OUTSIDE:
			fprintf(f, "%s", live_activity_name(g->activity));
			break;
		default:
			what(f, t);
		}
		fputc('\n', f);
	}
	cycles_text(f, th, n);
}

int live_poll_now(live *l, dt_err *e)
{
	return live_poll(l, clock_ns(CLOCK_MONOTONIC), clock_ns(CLOCK_REALTIME), e);
}
