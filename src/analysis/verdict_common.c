/* verdict_common.c: the change common to a class of traces in the ranking
 * (verdict_common.h). */
#include <stdlib.h>
#include <string.h>

#include "analysis/nlr.h"
#include "analysis/verdict_args.h"
#include "analysis/verdict_common.h"
#include "util/util.h"

/* The class of a trace: its calls in the normal run (FNV-1a). */
static int64_t behaviour(const uint32_t *v, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++) {
		if (!v[i])
			continue;
		h ^= v[i];
		h *= 1099511628211ull;
	}
	return (int64_t)(h >> 1);
}

/* The arguments every trace making a call changed alike (verdict_args.h): with them left out,
 * each changed trace compared again; a trace whose change was that alone is marked common,
 * the others take the comparison without it. Nothing changes when no trace changed more (the
 * common change is then all there is, as for the calls). 1 when some trace did. */
static int args_apply(store *s, const an_result *rn, const an_result *rf, const int *obj,
		      uint32_t **ea, const size_t *na, uint32_t **eb, const size_t *nb, vd_rank *v)
{
	size_t n = v->n;
	ac_set c = { 0 };
	uint32_t **b = xcalloc(n ? n : 1, sizeof *b);
	for (size_t k = 0; k < n; k++) {
		b[k] = xmalloc((nb[k] ? nb[k] : 1) * sizeof **b);
		if (nb[k])
			memcpy(b[k], eb[k], nb[k] * sizeof **b);
	}
	int beyond = 0;
	vd_item *y = xcalloc(n ? n : 1, sizeof *y);
	if (vd_args_common(s, ea, na, b, nb, n, &c)) {
		int cut = vd_run_cut(rf);
		for (size_t k = 0; k < n; k++) {
			y[k] = v->it[k];
			if (y[k].change == VD_SAME || obj[2 * k] < 0 || obj[2 * k + 1] < 0)
				continue;
			vd_compare(ea[k], na[k], b[k], nb[k], &y[k]);
			vd_settle(s, &y[k], cut, &rn->traces[obj[2 * k]], &rf->traces[obj[2 * k + 1]]);
			beyond |= y[k].change != VD_SAME;
		}
	}
	if (beyond) {
		v->nargs = 0;
		for (size_t k = 0; k < n; k++) {
			vd_item *x = &v->it[k];
			if (x->change == VD_SAME || obj[2 * k] < 0 || obj[2 * k + 1] < 0)
				continue;
			/* the faulty trace's events with the input's change undone, for the rule on
			 * calls that follows */
			free(eb[k]);
			eb[k] = b[k];
			b[k] = NULL;
			v->nargs += y[k].at != x->at || y[k].change != x->change;
			if (y[k].change == VD_SAME) {
				x->common = 1; /* its change was the input's alone */
				x->c_at = 0;
				x->c_ev_n = x->c_ev_f = 0;
				continue;
			}
			x->change = y[k].change;
			x->share = y[k].share;
			x->at = y[k].at;
			x->ev_n = y[k].ev_n;
			x->ev_f = y[k].ev_f;
			x->spun = y[k].spun;
			x->ended = y[k].ended;
		}
		ac_free(&v->args);
		v->args = c;
	} else {
		ac_free(&c);
	}
	for (size_t k = 0; k < n; k++)
		free(b[k]);
	free(b);
	free(y);
	return beyond;
}

int vd_common_apply(store *s, int64_t fn, int64_t ff, const rank_key *keys, vd_rank *v,
		    dt_err *e)
{
	an_result r[2];
	if (analysis_load_objects(s, fn, &r[0], e))
		return -1;
	if (analysis_load_objects(s, ff, &r[1], e)) {
		analysis_result_free(&r[0]);
		return -1;
	}
	size_t n = v->n;
	cc_set *ds = xcalloc(n ? n : 1, sizeof *ds), *cs = xcalloc(n ? n : 1, sizeof *cs);
	int64_t *cls = xcalloc(n ? n : 1, sizeof *cls);
	int *obj = xmalloc((n ? 2 * n : 1) * sizeof *obj);
	uint32_t **ea = xcalloc(n ? n : 1, sizeof *ea), **eb = xcalloc(n ? n : 1, sizeof *eb);
	size_t *na = xcalloc(n ? n : 1, sizeof *na), *nb = xcalloc(n ? n : 1, sizeof *nb);
	nlr_table *t = nlr_table_new();
	int began = store_read_begin(s, e);
	int rc = began < 0 ? -1 : vd_load_loops(s, t, e);
	for (size_t k = 0; !rc && k < n; k++) {
		rank_key key = keys[v->it[k].i];
		obj[2 * k] = analysis_object(&r[0], key.proc, key.thread);
		obj[2 * k + 1] = analysis_object(&r[1], key.proc, key.thread);
		rc = vd_kept_events(s, t, fn, obj[2 * k], &ea[k], &na[k], e);
		if (!rc && v->it[k].change != VD_SAME)
			rc = vd_kept_events(s, t, ff, obj[2 * k + 1], &eb[k], &nb[k], e);
	}
	if (began >= 0)
		store_read_end(s, began);
	for (size_t k = 0; k < n; k++)
		v->it[k].common = v->it[k].beyond = 0;
	/* the arguments every trace making a call changed alike, left out (verdict_args.h) */
	int any = 0;
	if (!rc)
		any = args_apply(s, &r[0], &r[1], obj, ea, na, eb, nb, v);
	for (size_t k = 0; !rc && k < n; k++) {
		cls[k] = behaviour(ea[k], na[k]);
		if (v->it[k].change == VD_DIVERGED && !v->it[k].common)
			cc_deltas(ea[k], na[k], eb[k], nb[k], &ds[k]);
	}
	if (!rc)
		cc_common(ds, cls, n, cs);
	/* the traces whose change is the common one alone, and where the others depart from it */
	int *flag = xcalloc(n ? n : 1, sizeof *flag);
	for (size_t k = 0; !rc && k < n; k++) {
		vd_item *x = &v->it[k];
		if (x->change != VD_DIVERGED || x->common || !cs[k].n)
			continue;
		x->beyond = 0;
		if (cc_reduced_same(ea[k], na[k], eb[k], nb[k], &cs[k], &x->c_at, &x->c_ev_n,
				    &x->c_ev_f)) {
			x->common = flag[k] = 1;
		} else {
			x->beyond = any = 1;
			x->c_pos = cc_reduced_index(eb[k], nb[k], &cs[k], x->c_at);
		}
	}
	/* the header's: the common change that explains the most traces */
	cc_free(&v->common);
	v->ncommon = rc ? 0 : cc_most_shared(cs, flag, n, &v->common);
	/* when no trace changed more than its peers, the common change is all there is: it may
	 * be the bug itself (one in every worker), not an input; the verdict stays as it was, the
	 * traces marked input for the timing rule (a changed input and a slow function) */
	cc_free(&v->input_common);
	v->ninput = 0;
	v->all_input = 0;
	if (!rc && !any) {
		for (size_t k = 0; k < n; k++)
			v->it[k].common = flag[k];
		size_t ndiv = 0;
		for (size_t k = 0; k < n; k++) {
			v->it[k].input = v->it[k].common;
			v->ninput += (size_t)v->it[k].input;
			ndiv += v->it[k].change != VD_SAME;
		}
		v->all_input = v->ninput >= 2 && v->ninput == ndiv;
		cc_free(&v->input_common);
		v->input_common = v->common;
		v->common = (cc_set){ 0 };
		v->ncommon = 0;
	}
	if (!rc && any)
		vd_order(v->it, n);
	for (size_t k = 0; (rc || !any) && k < n; k++)
		v->it[k].common = v->it[k].beyond = 0; /* the verdict as it was */
	for (size_t k = 0; k < n; k++) {
		cc_free(&ds[k]);
		cc_free(&cs[k]);
		free(ea[k]);
		free(eb[k]);
	}
	free(flag);
	free(ea);
	free(eb);
	free(na);
	free(nb);
	free(ds);
	free(cs);
	free(cls);
	free(obj);
	nlr_table_free(t);
	analysis_result_free(&r[0]);
	analysis_result_free(&r[1]);
	return rc;
}
