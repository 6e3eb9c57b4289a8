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
	static const char *const n[] = { "none", "diverged", "abort",  "held",	  "coll",
					 "odd",	 "cycle",    "waited", "mismatch" };
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

/* ---- 3: a collective whose members disagree ------------------------------------------------ */

/* Collectives whose members must all give the same count and datatype (not the v-forms, not
 * the gathers and scatters, whose root's counts differ), and root and op when they have one. */
int hang_coll_kind(const char *nm)
{
	static const char *const same[] = { "MPI_Bcast", "MPI_Reduce", "MPI_Allreduce", "MPI_Scan",
					     "MPI_Exscan", "MPI_Reduce_scatter_block",
					     "MPI_Allgather", "MPI_Alltoall", "MPI_Ibcast",
					     "MPI_Ireduce", "MPI_Iallreduce" };
	static const char *const other[] = { "MPI_Barrier", "MPI_Gather", "MPI_Gatherv",
					      "MPI_Scatter", "MPI_Scatterv", "MPI_Allgatherv",
					      "MPI_Alltoallv", "MPI_Reduce_scatter", "MPI_Ibarrier" };
	for (size_t i = 0; nm && i < sizeof same / sizeof *same; i++)
		if (!strcmp(nm, same[i]))
			return 2;
	for (size_t i = 0; nm && i < sizeof other / sizeof *other; i++)
		if (!strcmp(nm, other[i]))
			return 1;
	return 0;
}

struct centry {
	int32_t comm, proc;
	uint64_t k; /* the k-th collective of proc on comm */
	size_t ev;
};

static int cmp_centry(const void *a, const void *b)
{
	const struct centry *x = a, *y = b;
	if (x->comm != y->comm)
		return x->comm < y->comm ? -1 : 1;
	if (x->k != y->k)
		return x->k < y->k ? -1 : 1;
	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	return (x->ev > y->ev) - (x->ev < y->ev);
}

static int same_coll(const dt_sync_event *a, const dt_sync_event *b, int strict)
{
	if (a->func != b->func)
		return 0;
	return !strict || (a->count == b->count && a->datatype == b->datatype &&
			   a->root == b->root && a->op == b->op);
}

/* In one instance [b, e) of a collective: the members unlike the most of them, when those
 * are a strict majority; 0 when all agree or none is. */
static size_t odd_members(const struct centry *c, size_t b, size_t e, const dt_sync_event *ev,
			  const char *const *names, size_t nnames, size_t *usual)
{
	size_t best = 0, bi = b;
	for (size_t i = b; i < e; i++) {
		size_t like = 0;
		for (size_t j = b; j < e; j++) {
			const dt_sync_event *x = &ev[c[i].ev], *y = &ev[c[j].ev];
			like += same_coll(x, y, x->func < nnames && hang_coll_kind(names[x->func]) == 2);
		}
		if (like > best) {
			best = like;
			bi = i;
		}
	}
	*usual = bi;
	return 2 * best > e - b && best < e - b ? e - b - best : 0;
}

static int coll_mismatch(const hang_report *r, const dt_sync_event *ev, size_t n,
			 const char *const *names, size_t nnames, hang_cause *c)
{
	struct centry *ce = NULL;
	size_t m = 0, cap = 0;
	for (size_t i = 0; i < n; i++) {
		const dt_sync_event *v = &ev[i];
		if (v->phase != DT_SYNC_ENTER || v->comm < 0 || v->comm == 1 || v->func >= nnames ||
		    !hang_coll_kind(names[v->func]))
			continue;
		GROW(ce, cap, m + 1);
		ce[m++] = (struct centry){ v->comm, v->proc, 0, i };
	}
	/* k in program order per (comm, proc): ev is in (proc, thread, seq) order */
	if (m)
		qsort(ce, m, sizeof *ce, cmp_centry); /* by comm, k 0, proc, event */
	for (size_t i = 0; i < m; i++)
		ce[i].k = i && ce[i - 1].comm == ce[i].comm && ce[i - 1].proc == ce[i].proc
				  ? ce[i - 1].k + 1
				  : 1;
	if (m)
		qsort(ce, m, sizeof *ce, cmp_centry);
	size_t fb = SIZE_MAX, fe = 0, fu = 0;
	uint64_t fk = UINT64_MAX;
	for (size_t b = 0; b < m;) {
		size_t e = b, u;
		while (e < m && ce[e].comm == ce[b].comm && ce[e].k == ce[b].k)
			e++;
		if (e - b >= 3 && ce[b].k < fk && odd_members(ce, b, e, ev, names, nnames, &u)) {
			fb = b;
			fe = e;
			fu = u;
			fk = ce[b].k;
		}
		b = e;
	}
	if (fb != SIZE_MAX) {
		const dt_sync_event *y = &ev[ce[fu].ev];
		int strict = hang_coll_kind(names[y->func]) == 2;
		c->usual = ce[fu].ev;
		c->members = fe - fb;
		for (size_t i = fb; i < fe; i++) {
			const dt_sync_event *x = &ev[ce[i].ev];
			if (same_coll(x, y, strict))
				continue;
			if (!c->n)
				c->odd = ce[i].ev;
			/* the thread of the entry */
			for (size_t t = 0; t < r->nthreads; t++)
				if (r->threads[t].proc == x->proc && r->threads[t].thread == x->thread) {
					add(c, t);
					break;
				}
		}
	}
	free(ce);
	return c->n ? (c->why = HANG_C_COLL) : 0;
}

static int same_place(const hang_thread *a, const hang_thread *b)
{
	return a->state == b->state && a->func == b->func && a->occurrence == b->occurrence;
}

static int in_knot(const hang_cycle *cy, size_t t)
{
	for (size_t i = 0; i < cy->nknot; i++)
		if (cy->knot[i] == t)
			return 1;
	return 0;
}

/* 4: among the threads of the first cycle's strongly connected part: a blocked receive and
 * the sender of its near-match (the send with another tag, peer or size that no receive
 * took), tied: one of the two has it wrong, and which one the record alone cannot say; else
 * those with the fewest threads of the run alike (in the same call, its same occurrence: the
 * one rank that received where the others wait in a collective) when they differ; else every
 * one of them, tied. */
static int in_cycle(const hang_report *r, hang_cause *c)
{
	if (!r->ncycles)
		return 0;
	const hang_cycle *cy = &r->cycles[0];
	for (size_t k = 0; k < r->nnears; k++) {
		const hang_near *m = &r->nears[k];
		if (m->sender == SIZE_MAX || m->sender == m->thread || !in_knot(cy, m->thread) ||
		    !in_knot(cy, m->sender))
			continue;
		add(c, m->thread < m->sender ? m->thread : m->sender);
		add(c, m->thread < m->sender ? m->sender : m->thread);
		c->cycle = 0;
		c->near = k;
		return c->why = HANG_C_NEAR;
	}
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

static int coll_given(const hang_coll_odd *o, hang_cause *c)
{
	if (!o->n)
		return 0;
	for (size_t i = 0; i < o->n; i++)
		add(c, o->threads[i]);
	c->odd = o->odd;
	c->usual = o->usual;
	c->members = o->members;
	return c->why = HANG_C_COLL;
}

static void find(const hang_report *r, const dt_sync_event *ev, size_t n,
		 const hang_coll_odd *odd, const hr_info *hr, const char *const *names,
		 size_t nnames, hang_cause *out)
{
	memset(out, 0, sizeof *out);
	int hung = 0;
	for (size_t t = 0; t < r->nthreads; t++)
		hung |= r->threads[t].state == HANG_IN_CALL;
	if (!hung)
		return;
	out->inside = 1;
	out->normal = hr && hr->n;
	size_t *in = xcalloc(r->nthreads ? r->nthreads : 1, sizeof *in);
	unsigned char *waits = xcalloc(r->nthreads ? r->nthreads : 1, 1);
	for (size_t k = 0; k < r->nedges; k++) {
		in[r->edges[k].to]++;
		waits[r->edges[k].from] = 1;
	}
	if (!aborted(r, names, nnames, out) && !diverged(r, hr && hr->n ? hr : NULL, out) &&
	    !(odd ? coll_given(odd, out) : coll_mismatch(r, ev, n, names, nnames, out)) &&
	    !waited(r, in, waits, 1, out) && !in_cycle(r, out))
		waited(r, in, waits, 0, out);
	free(in);
	free(waits);
}

void hang_cause_find(const hang_report *r, const dt_sync_event *ev, size_t n,
		     const hr_info *hr, const char *const *names, size_t nnames, hang_cause *out)
{
	find(r, ev, n, NULL, hr, names, nnames, out);
}

void hang_cause_find_odd(const hang_report *r, const hang_coll_odd *odd, const hr_info *hr,
			 const char *const *names, size_t nnames, hang_cause *out)
{
	find(r, NULL, 0, odd, hr, names, nnames, out);
}

uint32_t hang_cause_site(const hang_report *r, const dt_sync_event *ev, const hang_cause *c)
{
	if (c->why == HANG_C_NONE || !c->n)
		return 0;
	const hang_thread *h = &r->threads[c->threads[0]];
	switch (c->why) {
	case HANG_C_DIVERGED:
		return c->cmp ? c->cmp->ef.site : 0;
	case HANG_C_COLL:
		return ev ? ev[c->odd].site : 0;
	case HANG_C_NEAR:
		return ev ? ev[r->nears[c->near].recv].site : 0;
	case HANG_C_ABORT: {
		if (!ev)
			return 0;
		const dt_sync_event *x = &ev[h->entry];
		const dt_sync_event *in = x->op >= 0 && h->entry > 0 ? x - 1 : NULL;
		if (in && in->proc == x->proc && in->thread == x->thread &&
		    in->phase == DT_SYNC_ENTER)
			return in->site;
		return x->op < 0 ? x->site : 0;
	}
	case HANG_C_HELD:
	case HANG_C_ODD:
	case HANG_C_CYCLE:
		return ev && h->state == HANG_IN_CALL ? ev[h->entry].site : 0;
	default: /* the cause names no call */
		return 0;
	}
}

/* "MPI_Recv (1st)", "no recorded call", "MPI_Finalize (returned)" */
static void place(store *s, const hang_thread *h, char *b, size_t n)
{
	char nm[128], k[32];
	esc_str(h->func && store_func_name(s, h->func) ? store_func_name(s, h->func) : "?", nm,
		sizeof nm);
	if (h->state == HANG_IN_CALL)
		snprintf(b, n, "in %s (%s)", nm, ordinal(h->occurrence, k, sizeof k));
	else if (h->state == HANG_FINISHED)
		snprintf(b, n, "returned from MPI_Finalize");
	else
		snprintf(b, n, "in no recorded call (computing or spinning)");
}

void hang_cause_text(store *s, const hang_report *r, const dt_sync_event *ev,
		     const hang_cause *c, char *buf, size_t cap)
{
	hang_cause_text_sites(s, r, ev, c, NULL, buf, cap);
}

void hang_cause_text_sites(store *s, const hang_report *r, const dt_sync_event *ev,
			   const hang_cause *c, const store_sites *sites, char *buf, size_t cap)
{
	char w[220];
	store_site_at(sites, hang_cause_site(r, ev, c), w, sizeof w);
	size_t k = 0;
	buf[0] = 0;
	if (c->why == HANG_C_NONE || !c->n) {
		snprintf(buf, cap, "none found (%s)",
			 !c->inside ? "no thread stopped inside a call"
				    : "the threads inside calls wait for no thread the record names");
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
			 ": %s%s where the normal run has %s",
			 c->cmp->at + 1, c->cmp->nn, b, w, a);
		break;
	case HANG_C_ABORT: {
		const dt_sync_event *x = &ev[h->entry];
		if (x->op < 0) {
			snprintf(buf + k, cap - k,
				 ": it called MPI_Abort%s (error code %" PRId64 "): the run aborted",
				 w, x->count);
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
			 ": an MPI error%s%s%s, %s (error code %" PRId64 "): the run aborted",
			 in ? " in " : "", in ? a : "", in ? w : "", sync_err_name(x->op), x->count);
		break;
	}
	case HANG_C_HELD:
		place(s, h, a, sizeof a);
		snprintf(buf + k, cap - k,
			 ": %zu thread%s wait%s for it and it waits for nobody: %s%s", c->waiters,
			 c->waiters == 1 ? "" : "s", c->waiters == 1 ? "s" : "", a, w);
		break;
	case HANG_C_COLL: {
		const dt_sync_event *x = &ev[c->odd], *y = &ev[c->usual];
		hr_event_text(s, x, y, a, sizeof a);
		hr_event_text(s, y, x, b, sizeof b);
		snprintf(buf + k, cap - k,
			 ": in a collective of %zu members, %s%s where %zu others have %s",
			 c->members, a, w, c->members - c->n, b);
		break;
	}
	case HANG_C_NEAR: {
		const hang_near *m = &r->nears[c->near];
		hang_near_text(r, ev, m, sync_type_name, a, sizeof a);
		char w2[220];
		store_site_at(sites, ev ? ev[m->send].site : 0, w2, sizeof w2);
		if (m->kind == HANG_NEAR_UNNAMED)
			snprintf(buf + k, cap - k,
				 ": a send that no receive took, to a process waiting in a receive, "
				 "between threads that wait for each other, %s: one of the two has it "
				 "wrong%s%s%s%s",
				 a, w[0] ? "; the receive" : "", w, w2[0] ? "; the send" : "", w2);
		else
			snprintf(buf + k, cap - k,
				 ": a %s mismatch between threads that wait for each other, %s: one "
				 "of the two has it wrong%s%s%s%s",
				 hang_near_name(m->kind), a, w[0] ? "; the receive" : "", w,
				 w2[0] ? "; the send" : "", w2);
		break;
	}
	case HANG_C_ODD:
		place(s, h, a, sizeof a);
		snprintf(buf + k, cap - k,
			 ": of the %zu threads that wait for each other, the one%s %s%s where "
			 "fewest threads are",
			 r->cycles[c->cycle].nknot, c->n == 1 ? "" : "s", a, w);
		break;
	case HANG_C_CYCLE: {
		const hang_cycle *cy = &r->cycles[c->cycle];
		int alike = 1;
		for (size_t i = 1; i < cy->nknot; i++)
			alike &= same_place(&r->threads[cy->knot[0]], &r->threads[cy->knot[i]]);
		place(s, h, a, sizeof a);
		snprintf(buf + k, cap - k,
			 ": %zu threads that wait for each other, %s%s%s (%s)",
			 cy->nknot, alike ? "all " : "in different calls that as many threads are in",
			 alike ? a : "", alike ? w : "",
			 c->normal ? "the normal run does not tell them apart"
				   : "a normal run, --normal RUN, tells them apart");
		break;
	}
	default:
		snprintf(buf + k, cap - k, ": %zu thread%s wait%s for it", c->waiters,
			 c->waiters == 1 ? "" : "s", c->waiters == 1 ? "s" : "");
		break;
	}
}
