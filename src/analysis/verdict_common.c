/* verdict_common.c: the change common to a class of traces in the ranking
 * (verdict_common.h). */
#include <stdlib.h>
#include <string.h>

#include "analysis/nlr.h"
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
	nlr_table *t = nlr_table_new();
	int began = store_read_begin(s, e);
	int rc = began < 0 ? -1 : vd_load_loops(s, t, e);
	for (size_t k = 0; !rc && k < n; k++) {
		rank_key key = keys[v->it[k].i];
		obj[2 * k] = analysis_object(&r[0], key.proc, key.thread);
		obj[2 * k + 1] = analysis_object(&r[1], key.proc, key.thread);
		uint32_t *a = NULL, *b = NULL;
		size_t na = 0, nb = 0;
		rc = vd_kept_events(s, t, fn, obj[2 * k], &a, &na, e);
		if (!rc && v->it[k].change == VD_DIVERGED)
			rc = vd_kept_events(s, t, ff, obj[2 * k + 1], &b, &nb, e);
		if (!rc) {
			cls[k] = behaviour(a, na);
			if (v->it[k].change == VD_DIVERGED)
				cc_deltas(a, na, b, nb, &ds[k]);
		}
		free(a);
		free(b);
	}
	if (!rc)
		cc_common(ds, cls, n, cs);
	/* the traces whose change is the common one alone, and where the others depart from it */
	int any = 0;
	for (size_t k = 0; !rc && k < n; k++) {
		vd_item *x = &v->it[k];
		x->common = x->beyond = 0;
		if (x->change != VD_DIVERGED || !cs[k].n)
			continue;
		uint32_t *a = NULL, *b = NULL;
		size_t na = 0, nb = 0;
		rc = vd_kept_events(s, t, fn, obj[2 * k], &a, &na, e);
		if (!rc)
			rc = vd_kept_events(s, t, ff, obj[2 * k + 1], &b, &nb, e);
		if (!rc) {
			int same = cc_reduced_same(a, na, b, nb, &cs[k], &x->c_at, &x->c_ev_n,
						   &x->c_ev_f);
			if (same)
				x->common = 1;
			else
				x->beyond = any = 1;
		}
		free(a);
		free(b);
	}
	if (began >= 0)
		store_read_end(s, began);
	/* the header's: the common change that explains the most traces */
	cc_free(&v->common);
	int *flag = xcalloc(n ? n : 1, sizeof *flag);
	for (size_t k = 0; k < n; k++)
		flag[k] = v->it[k].common;
	v->ncommon = rc ? 0 : cc_most_shared(cs, flag, n, &v->common);
	free(flag);
	/* when no trace changed more than its peers, the common change is all there is: it may
	 * be the bug itself (one in every worker), not an input; the verdict stays as it was, the
	 * traces marked input for the timing rule (a changed input and a slow function) */
	cc_free(&v->input_common);
	v->ninput = 0;
	v->all_input = 0;
	if (!rc && !any) {
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
	}
	free(ds);
	free(cs);
	free(cls);
	free(obj);
	nlr_table_free(t);
	analysis_result_free(&r[0]);
	analysis_result_free(&r[1]);
	return rc;
}
