/* hangcause.c: the most likely cause of a hang (hangcause.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/hangcause.h"
#include "import/sync_file.h"
#include "util/esc.h"
#include "util/util.h"

const char *hang_cause_name(int why)
{
	static const char *const n[] = { "none", "diverged", "abort", "held",
					 "odd",	 "cycle",    "waited" };
	return why >= 0 && (size_t)why < sizeof n / sizeof *n ? n[why] : "?";
}

void hang_cause_free(hang_cause *c)
{
	free(c->threads);
	memset(c, 0, sizeof *c);
}

static void add(hang_cause *c, size_t t)
{
	c->threads = xrealloc(c->threads, (c->n + 1) * sizeof *c->threads);
	c->threads[c->n++] = t;
}

/* 2: the threads that departed from the normal run, after the fewest calls in common. */
static int diverged(const hang_report *r, const hr_info *hr, hang_cause *c)
{
	uint64_t best = UINT64_MAX;
	for (size_t t = 0; hr && t < r->nthreads; t++) {
		const hr_thread *h = hr_find(hr, r->threads[t].proc, r->threads[t].thread);
		if (!h || h->cmp != HR_DIVERGED || h->at > best)
			continue;
		if (h->at < best) {
			c->n = 0;
			best = h->at;
			c->cmp = h;
		}
		add(c, t);
	}
	return c->n ? (c->why = HANG_C_DIVERGED) : 0;
}

/* 1: the threads in MPI_Abort (an MPI error's, or the program's own). */
static int aborted(const hang_report *r, const char *const *names, size_t nnames, hang_cause *c)
{
	for (size_t t = 0; t < r->nthreads; t++) {
		uint32_t f = r->threads[t].func;
		if (r->threads[t].state == HANG_IN_CALL && f < nnames && names[f] &&
		    !strcmp(names[f], "MPI_Abort"))
			add(c, t);
	}
	return c->n ? (c->why = HANG_C_ABORT) : 0;
}

/* 3 (held: waits for nobody) and 5 (any): the most waited-for threads. */
static int waited(const hang_report *r, const size_t *in, const unsigned char *waits, int held,
		  hang_cause *c)
{
	size_t best = 0;
	for (size_t t = 0; t < r->nthreads; t++) {
		if (!in[t] || (held && waits[t]) || in[t] < best)
			continue;
		if (in[t] > best) {
			c->n = 0;
			best = in[t];
		}
		add(c, t);
	}
	c->waiters = best;
	return c->n ? (c->why = held ? HANG_C_HELD : HANG_C_WAITED) : 0;
}

static int same_place(const hang_thread *a, const hang_thread *b)
{
	return a->state == b->state && a->func == b->func && a->occurrence == b->occurrence;
}

/* 4: among the threads of the first cycle's strongly connected part, those with the fewest
 * threads of the run alike (in the same call, its same occurrence: the one rank that received
 * where the others wait in a collective) when they differ; else every one of them, tied. */
static int in_cycle(const hang_report *r, hang_cause *c)
{
	if (!r->ncycles)
		return 0;
	const hang_cycle *cy = &r->cycles[0];
	size_t m = cy->nknot, *alike = xcalloc(m ? m : 1, sizeof *alike), lo = SIZE_MAX, hi = 0;
	for (size_t i = 0; i < m; i++) {
		for (size_t j = 0; j < r->nthreads; j++)
			alike[i] += same_place(&r->threads[cy->knot[i]], &r->threads[j]);
		lo = alike[i] < lo ? alike[i] : lo;
		hi = alike[i] > hi ? alike[i] : hi;
	}
	for (size_t i = 0; i < m; i++)
		if (alike[i] == lo)
			add(c, cy->knot[i]);
	free(alike);
	c->cycle = 0;
	c->why = lo == hi ? HANG_C_CYCLE : HANG_C_ODD;
	return 1;
}

void hang_cause_find(const hang_report *r, const hr_info *hr, const char *const *names,
		     size_t nnames, hang_cause *out)
{
	memset(out, 0, sizeof *out);
	int hung = 0;
	for (size_t t = 0; t < r->nthreads; t++)
		hung |= r->threads[t].state == HANG_IN_CALL;
	if (!hung)
		return;
	size_t *in = xcalloc(r->nthreads ? r->nthreads : 1, sizeof *in);
	unsigned char *waits = xcalloc(r->nthreads ? r->nthreads : 1, 1);
	for (size_t k = 0; k < r->nedges; k++) {
		in[r->edges[k].to]++;
		waits[r->edges[k].from] = 1;
	}
	if (!aborted(r, names, nnames, out) && !diverged(r, hr && hr->n ? hr : NULL, out) &&
	    !waited(r, in, waits, 1, out) && !in_cycle(r, out))
		waited(r, in, waits, 0, out);
	free(in);
	free(waits);
}

static const char *nth(uint64_t k, char *b, size_t n)
{
	const char *suf = "th";
	if (k % 100 < 11 || k % 100 > 13)
		suf = k % 10 == 1 ? "st" : k % 10 == 2 ? "nd" : k % 10 == 3 ? "rd" : "th";
	snprintf(b, n, "%" PRIu64 "%s", k, suf);
	return b;
}

/* "MPI_Recv (1st)", "no recorded call", "MPI_Finalize (returned)" */
static void place(store *s, const hang_thread *h, char *b, size_t n)
{
	char nm[128], k[32];
	esc_str(h->func && store_func_name(s, h->func) ? store_func_name(s, h->func) : "?", nm,
		sizeof nm);
	if (h->state == HANG_IN_CALL)
		snprintf(b, n, "in %s (%s)", nm, nth(h->occurrence, k, sizeof k));
	else if (h->state == HANG_FINISHED)
		snprintf(b, n, "returned from MPI_Finalize");
	else
		snprintf(b, n, "in no recorded call (computing or spinning)");
}

void hang_cause_text(store *s, const hang_report *r, const dt_sync_event *ev,
		     const hang_cause *c, char *buf, size_t cap)
{
	size_t k = 0;
	buf[0] = 0;
	if (c->why == HANG_C_NONE || !c->n) {
		snprintf(buf, cap, "none found (%s)",
			 c->why == HANG_C_NONE ? "no thread stopped inside a call"
					       : "no thread waits for another");
		return;
	}
	for (size_t i = 0; i < c->n && k < cap; i++) {
		const hang_thread *h = &r->threads[c->threads[i]];
		if (i == 8 && c->n > 9) {
			k += (size_t)snprintf(buf + k, cap - k, " and %zu more", c->n - i);
			break;
		}
		k += (size_t)snprintf(buf + k, cap - k, "%s%" PRId32 ".%" PRId32, i ? ", " : "",
				      h->proc, h->thread);
	}
	if (c->n > 1 && k < cap)
		k += (size_t)snprintf(buf + k, cap - k, " (tied)");
	if (k >= cap)
		return;
	const hang_thread *h = &r->threads[c->threads[0]];
	char a[200], b[200];
	switch (c->why) {
	case HANG_C_DIVERGED:
		hr_event_text(s, &c->cmp->ef, &c->cmp->en, b, sizeof b);
		hr_event_text(s, &c->cmp->en, &c->cmp->ef, a, sizeof a);
		snprintf(buf + k, cap - k,
			 ": its calls depart from the normal run's at call %" PRIu64 " of %" PRIu64
			 ": %s where the normal run has %s",
			 c->cmp->at + 1, c->cmp->nn, b, a);
		break;
	case HANG_C_ABORT: {
		const dt_sync_event *x = &ev[h->entry];
		if (x->op < 0) {
			snprintf(buf + k, cap - k,
				 ": it called MPI_Abort (error code %" PRId64 "): the run aborted",
				 x->count);
			break;
		}
		/* the call the error came from: the entry just before, still open */
		const dt_sync_event *in = h->entry > 0 ? x - 1 : NULL;
		if (in && (in->proc != x->proc || in->thread != x->thread ||
			   in->phase != DT_SYNC_ENTER))
			in = NULL;
		if (in)
			hr_event_text(s, in, NULL, a, sizeof a);
		snprintf(buf + k, cap - k,
			 ": an MPI error%s%s, %s (error code %" PRId64 "): the run aborted",
			 in ? " in " : "", in ? a : "", sync_err_name(x->op), x->count);
		break;
	}
	case HANG_C_HELD:
		place(s, h, a, sizeof a);
		snprintf(buf + k, cap - k, ": %zu thread%s wait%s for it and it waits for nobody: %s",
			 c->waiters, c->waiters == 1 ? "" : "s", c->waiters == 1 ? "s" : "", a);
		break;
	case HANG_C_ODD:
		place(s, h, a, sizeof a);
		snprintf(buf + k, cap - k,
			 ": of the %zu threads that wait for each other, the one%s %s where fewest "
			 "threads are",
			 r->cycles[c->cycle].nknot, c->n == 1 ? "" : "s", a);
		break;
	case HANG_C_CYCLE: {
		const hang_cycle *cy = &r->cycles[c->cycle];
		int alike = 1;
		for (size_t i = 1; i < cy->nknot; i++)
			alike &= same_place(&r->threads[cy->knot[0]], &r->threads[cy->knot[i]]);
		place(s, h, a, sizeof a);
		snprintf(buf + k, cap - k,
			 ": %zu threads that wait for each other, %s%s (a normal run, --normal RUN, "
			 "tells them apart)",
			 cy->nknot, alike ? "all " : "in different calls that as many threads are in",
			 alike ? a : "");
		break;
	}
	default:
		snprintf(buf + k, cap - k, ": %zu thread%s wait%s for it", c->waiters,
			 c->waiters == 1 ? "" : "s", c->waiters == 1 ? "s" : "");
		break;
	}
}
