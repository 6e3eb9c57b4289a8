/* hang_both.h: the hang report of the same events made both ways, from the whole record
 * (hang_analyze, hang_pending, hang_cause_find) and streamed (order/hangscan.h), must be the
 * same: threads, groups, edges, cycles, near-matches, pending completions and the cause, the
 * events they point to compared by content. The events are pushed thread after thread and
 * again a thread's event at a time in turn (receives before their sends, completions before
 * their requests' makers in another thread). For the unit tests that build events. */
#ifndef DT_TESTS_HANG_BOTH_H
#define DT_TESTS_HANG_BOTH_H

#include <stdlib.h>

#include "analysis/hangcause.h"
#include "check.h"
#include "order/hang.h"
#include "order/hangscan.h"

static int hb_same_ev(const dt_sync_event *a, const dt_sync_event *b)
{
	return a->proc == b->proc && a->thread == b->thread && a->seq == b->seq &&
	       a->phase == b->phase && a->func == b->func && a->ts == b->ts &&
	       a->comm == b->comm && a->dest == b->dest && a->stag == b->stag &&
	       a->src == b->src && a->rtag == b->rtag && a->root == b->root &&
	       a->count == b->count && a->datatype == b->datatype && a->op == b->op &&
	       a->req == b->req && a->obj == b->obj && a->objseq == b->objseq &&
	       a->site == b->site;
}

/* The event just before i in its thread, an entry (the cause's "MPI error in"), or NULL. */
static const dt_sync_event *hb_before(const dt_sync_event *ev, size_t i)
{
	if (!i)
		return NULL;
	const dt_sync_event *x = &ev[i], *p = &ev[i - 1];
	return p->proc == x->proc && p->thread == x->thread && p->phase == DT_SYNC_ENTER ? p : NULL;
}

static void hb_same(const hang_report *a, const dt_sync_event *ea, const hang_report *b,
		    const dt_sync_event *eb)
{
	CHECK_EQ_INT(a->nthreads, b->nthreads);
	for (size_t t = 0; t < a->nthreads && t < b->nthreads; t++) {
		const hang_thread *x = &a->threads[t], *y = &b->threads[t];
		CHECK(x->proc == y->proc && x->thread == y->thread && x->state == y->state &&
		      x->func == y->func && x->occurrence == y->occurrence);
		CHECK(hb_same_ev(&ea[x->entry], &eb[y->entry]));
		const dt_sync_event *p = hb_before(ea, x->entry), *q = hb_before(eb, y->entry);
		CHECK(x->state != HANG_IN_CALL || (!p && !q) || (p && q && hb_same_ev(p, q)));
		CHECK_EQ_INT(x->nheld, y->nheld);
		for (size_t i = 0; i < x->nheld && i < y->nheld; i++)
			CHECK(hb_same_ev(&ea[x->held[i]], &eb[y->held[i]]));
	}
	CHECK_EQ_INT(a->ngroups, b->ngroups);
	for (size_t i = 0; i < a->ngroups && i < b->ngroups; i++) {
		const hang_group *x = &a->groups[i], *y = &b->groups[i];
		CHECK(x->state == y->state && x->func == y->func && x->occurrence == y->occurrence &&
		      x->n == y->n && !memcmp(x->threads, y->threads, x->n * sizeof *x->threads));
	}
	CHECK_EQ_INT(a->nedges, b->nedges);
	for (size_t i = 0; i < a->nedges && i < b->nedges; i++)
		CHECK(a->edges[i].from == b->edges[i].from && a->edges[i].to == b->edges[i].to &&
		      a->edges[i].why == b->edges[i].why);
	CHECK_EQ_INT(a->ncycles, b->ncycles);
	for (size_t i = 0; i < a->ncycles && i < b->ncycles; i++) {
		const hang_cycle *x = &a->cycles[i], *y = &b->cycles[i];
		CHECK(x->n == y->n && x->nknot == y->nknot &&
		      !memcmp(x->threads, y->threads, x->n * sizeof *x->threads) &&
		      !memcmp(x->knot, y->knot, x->nknot * sizeof *x->knot));
	}
	CHECK_EQ_INT(a->nnears, b->nnears);
	for (size_t i = 0; i < a->nnears && i < b->nnears; i++) {
		const hang_near *x = &a->nears[i], *y = &b->nears[i];
		CHECK(x->thread == y->thread && x->kind == y->kind);
		CHECK(hb_same_ev(&ea[x->recv], &eb[y->recv]));
		CHECK(hb_same_ev(&ea[x->send], &eb[y->send]));
	}
}

/* The streamed report of ev (n), pushed thread by thread (turns 0) or a thread's event at a
 * time in turn (1); compared with the whole record's r and c. */
static void hb_stream(const dt_sync_event *ev, size_t n, const char *const *names, size_t nn,
		      const hr_info *hr, const hang_report *r, const hang_cause *c, int turns)
{
	size_t nt = 0, *tr = malloc((n ? n : 1) * sizeof *tr), *pos = NULL, *end = NULL;
	for (size_t i = 0; i < n; i++) {
		if (i && (ev[i].proc != ev[i - 1].proc || ev[i].thread != ev[i - 1].thread))
			nt++;
		tr[i] = nt;
	}
	nt += n > 0;
	pos = calloc(nt ? nt : 1, sizeof *pos);
	end = calloc(nt ? nt : 1, sizeof *end);
	for (size_t i = 0; i < n; i++) {
		if (!end[tr[i]])
			pos[tr[i]] = i;
		end[tr[i]] = i + 1;
	}
	hang_scan *h = hang_scan_new(names, nn, nt);
	dt_err e;
	dt_err_clear(&e);
	if (!turns) {
		for (size_t i = 0; i < n; i++)
			CHECK(hang_scan_push(h, tr[i], &ev[i], &e) == 0);
	} else {
		for (int more = 1; more;) {
			more = 0;
			for (size_t k = 0; k < nt; k++)
				if (pos[k] < end[k]) {
					CHECK(hang_scan_push(h, k, &ev[pos[k]++], &e) == 0);
					more = 1;
				}
		}
	}
	hang_report r2;
	dt_sync_event *ev2 = NULL;
	size_t nev2 = 0;
	CHECK(hang_scan_report(h, &r2, &ev2, &nev2, &e) == 0);
	hb_same(r, ev, &r2, ev2);
	/* the pending completions */
	dt_sync_event *p1, *p2;
	size_t *t1, *t2, *k2;
	size_t n1 = hang_pending(ev, n, names, nn, r, &p1, &t1);
	size_t n2 = hang_scan_pending(h, &r2, ev2, &p2, &t2, &k2);
	CHECK_EQ_INT(n1, n2);
	for (size_t i = 0; i < n1 && i < n2; i++)
		CHECK(hb_same_ev(&p1[i], &p2[i]) && t1[i] == t2[i]);
	/* the cause */
	hang_coll_odd odd;
	hang_scan_odd(h, &r2, &odd);
	for (size_t i = 0; i < n; i++)
		hang_scan_capture(h, &ev[i]);
	hang_scan_odd_events(h, &odd, &ev2, &nev2);
	hang_cause c2;
	hang_cause_find_odd(&r2, &odd, hr, names, nn, &c2);
	CHECK_EQ_INT(c->why, c2.why);
	CHECK(c->n == c2.n && (!c->n || !memcmp(c->threads, c2.threads, c->n * sizeof *c->threads)));
	CHECK(c->waiters == c2.waiters && c->cycle == c2.cycle && c->members == c2.members);
	if (c->why == HANG_C_COLL && c2.why == HANG_C_COLL)
		CHECK(hb_same_ev(&ev[c->odd], &ev2[c2.odd]) &&
		      hb_same_ev(&ev[c->usual], &ev2[c2.usual]));
	hang_cause_free(&c2);
	free(odd.threads);
	free(p1);
	free(t1);
	free(p2);
	free(t2);
	free(k2);
	free(ev2);
	hang_report_free(&r2);
	hang_scan_free(h);
	free(tr);
	free(pos);
	free(end);
}

/* Both ways, both orders. */
static void hang_both(const dt_sync_event *ev, size_t n, const char *const *names, size_t nn,
		      const hr_info *hr, const hang_report *r, const hang_cause *c)
{
	hb_stream(ev, n, names, nn, hr, r, c, 0);
	hb_stream(ev, n, names, nn, hr, r, c, 1);
}

#endif
