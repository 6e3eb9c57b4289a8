/* test_explain.c: what each event of an order waited for (order/explain.h), on a synthetic run
 * of every pattern (tests/synth_sync.h) ordered under maximal concurrency: every receive's
 * completion names, by the point-to-point rule, a send entry from its source to it with its
 * tag, delivered before it, and the two are each other's message partners; a lock's or
 * critical section's n-th acquisition names the release numbered n-1 of the same object (the
 * first: an initial fact); a collective's exit counts the entries of its instance; an event
 * with no rule names nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "order/explain.h"
#include "order/filter.h"
#include "order/rules.h"
#include "synth_sync.h"

int main(void)
{
	ord_rules *r = ord_rules_new();
	dt_err e;
	dt_err_clear(&e);
	CHECK_EQ_INT(ord_rules_load_default(r, &e), 0);
	CHECK_EQ_INT(ord_rules_bind(r, synth_names, SY_NFUNC, &e), 0);
	synth s;
	synth_init(&s, 4, 2, 2, 0, 0, 3);
	for (int k = 0; k < 26; k++)
		synth_round(&s, -1);
	uint64_t *arr = malloc(s.n * sizeof *arr);
	synth_true_order(&s, arr);
	dt_sync_event *in = malloc(s.n * sizeof *in);
	for (size_t i = 0; i < s.n; i++)
		in[i] = s.ev[arr[i]];
	ord_filter_opts o = { ORD_CONCURRENT, NULL, 0, 0, 0 };
	ord_item *it = NULL;
	size_t nit = 0;
	char *held = NULL;
	CHECK_EQ_INT(ord_order(r, &o, in, s.n, &it, &nit, &held, &e), 0);
	CHECK_EQ_INT(nit, s.n);
	CHECK(held == NULL);
	uint64_t *order = malloc((nit ? nit : 1) * sizeof *order);
	size_t *pos = malloc(s.n * sizeof *pos);
	for (size_t k = 0; k < nit; k++) {
		order[k] = it[k].id;
		pos[it[k].id] = k;
	}
	ord_explain *x = ord_explain_new(r, in, s.n, order, nit);
	size_t recvs = 0, acq = 0, colls = 0, plain = 0;
	for (size_t i = 0; i < s.n; i++) {
		const dt_sync_event *v = &in[i];
		ord_dep d[16];
		size_t nd = ord_explain_deps(x, i, d, 16);
		const char *nm = synth_names[v->func];
		int is_recv_done = (v->func == SY_RECV && v->phase == DT_SYNC_EXIT) ||
				   v->phase == DT_SYNC_DONE ||
				   (v->func == SY_WAIT && v->phase == DT_SYNC_EXIT);
		int send = 0;
		for (size_t k = 0; k < nd && k < 16; k++) {
			const char *kind = r->kind[d[k].kind].name;
			if (!strcmp(kind, "SEND") && is_recv_done) {
				CHECK(d[k].ev >= 0);
				if (d[k].ev < 0)
					continue;
				const dt_sync_event *w = &in[d[k].ev];
				CHECK_EQ_INT(w->phase, DT_SYNC_ENTER);
				CHECK_EQ_INT(w->dest, v->proc);
				CHECK(pos[d[k].ev] < pos[i]);
				CHECK_EQ_INT(ord_explain_peer(x, i), d[k].ev);
				CHECK_EQ_INT(ord_explain_peer(x, (size_t)d[k].ev), (int64_t)i);
				send = 1;
			}
			if (!strcmp(kind, "RELEASE")) {
				acq++;
				CHECK_EQ_INT(d[k].t[d[k].nt - 1], (int64_t)v->objseq - 1);
				if (v->objseq == 1) {
					CHECK_EQ_INT(d[k].ev, -1);
				} else {
					CHECK(d[k].ev >= 0);
					if (d[k].ev >= 0) {
						CHECK(in[d[k].ev].obj == v->obj);
						CHECK(in[d[k].ev].objseq == v->objseq - 1);
						CHECK(pos[d[k].ev] < pos[i]);
					}
				}
			}
			if (!strcmp(kind, "COLL_IN") && d[k].count) {
				colls++;
				CHECK(d[k].nmatch >= (size_t)v->csize);
			}
		}
		if (send)
			recvs++;
		if (!nd)
			plain++;
		(void)nm;
	}
	CHECK(recvs > 0);
	CHECK(acq > 0);
	CHECK(colls > 0);
	CHECK(plain > 0);
	/* an event not in the order names nothing */
	ord_explain_free(x);
	x = ord_explain_new(r, in, s.n, order, nit / 2);
	CHECK_EQ_INT(ord_explain_deps(x, order[nit - 1], (ord_dep[4]){ { 0 } }, 4), 0);
	ord_explain_free(x);
	free(order);
	free(pos);
	free(it);
	free(in);
	free(arr);
	synth_free(&s);
	ord_rules_free(r);
	CHECK_DONE();
}
