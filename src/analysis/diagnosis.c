/* diagnosis.c: the verdict of a faulty run against a normal one (diagnosis.h), for `rank` and
 * the interface's ranking view alike. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/diagnosis.h"
#include "analysis/diff.h"
#include "analysis/timing.h"
#include "analysis/verdict_common.h"
#include "analysis/verdict_data.h"
#include "analysis/verdict_own.h"
#include "store/store_analysis.h"
#include "util/util.h"

int dg_every_call(const char *alias)
{
	return !strcmp(alias, AN_FALLBACK_FILTER) || !strncmp(alias, "11.1K", 5);
}

static void ranked_free(dg_ranked *r)
{
	if (r->have)
		rk_free(&r->k);
	if (r->have_h) {
		analysis_result_free(&r->hn);
		analysis_result_free(&r->hf);
	}
	memset(r, 0, sizeof *r);
}

/* The setting (every 0) or every call. */
static void setting(const dg_source *src, int every, an_params *p)
{
	if (every)
		al_every(&src->p, p);
	else
		*p = src->p;
}

/* Both ids, or both analyses: 1, 0 pending, -1 error. */
static int both_ids(const dg_source *src, const dg_opts *o, int every, int64_t id[2], dt_err *e)
{
	an_params p;
	setting(src, every, &p);
	int a = al_id(src->cache, o->normal, &p, &id[0], e);
	if (a < 0)
		return -1;
	int b = al_id(src->cache, o->faulty, &p, &id[1], e);
	if (b < 0)
		return -1;
	return a && b;
}

static int both(const dg_source *src, const dg_opts *o, int every, const an_result *r[2],
		dt_err *e)
{
	an_params p;
	setting(src, every, &p);
	int a = al_get(src->cache, o->normal, &p, &r[0], e);
	if (a < 0)
		return -1;
	int b = al_get(src->cache, o->faulty, &p, &r[1], e);
	if (b < 0)
		return -1;
	return a && b;
}

/* One ranking under the setting (every 0) or every call: from the store's cache when it has it
 * (the analyses' heads only), else computed from the analyses and kept. 1, 0 pending, -1. */
static int rank_under(store *s, const dg_source *src, const dg_opts *o, int every, dg_ranked *r,
		      dt_err *e)
{
	memset(r, 0, sizeof *r);
	if (src->by_id && !o->matrix) {
		int64_t id[2];
		int g = both_ids(src, o, every, id, e);
		if (g <= 0)
			return g;
		g = rk_load(s, id[0], id[1], o->linkage, &r->k, e);
		if (g < 0)
			return -1;
		if (g == 1) {
			r->have = 1;
			if (analysis_load_head(s, id[0], &r->hn, e)) {
				rk_free(&r->k);
				r->have = 0;
				return -1;
			}
			if (analysis_load_head(s, id[1], &r->hf, e)) {
				analysis_result_free(&r->hn);
				rk_free(&r->k);
				r->have = 0;
				return -1;
			}
			r->have_h = 1;
			r->rn = &r->hn;
			r->rf = &r->hf;
			return 1;
		}
	}
	const an_result *a[2];
	int g = both(src, o, every, a, e);
	if (g <= 0)
		return g;
	rank_jsmd j;
	double b;
	vd_rank v;
	if (analysis_compare(a[0], a[1], o->linkage, &j, &b, e))
		return -1;
	if (vd_build(s, a[0], a[1], &j, &v, e)) {
		rank_jsmd_free(&j);
		return -1;
	}
	rk_from(a[0], a[1], &j, b, &v, o->matrix, &r->k);
	if (o->keep)
		rk_save(s, a[0]->meta.id, a[1]->meta.id, o->linkage, &r->k);
	r->rn = a[0];
	r->rf = a[1];
	r->have = 1;
	return 1;
}

static int nothing_differs(const rk_rank *k)
{
	return !k->v.ndiff && !k->j.n_only_normal && !k->j.n_only_faulty;
}

/* Rule 3: the calls the filter drops order each class of the verdict (verdict_own.h). */
static int other_calls(store *s, const dg_source *src, const dg_opts *o, dg_verdict *v,
		       dt_err *e)
{
	int64_t id[2];
	int g;
	if (src->by_id) {
		g = both_ids(src, o, 1, id, e);
	} else {
		const an_result *a[2];
		g = both(src, o, 1, a, e);
		if (g > 0) {
			id[0] = a[0]->meta.id;
			id[1] = a[1]->meta.id;
		}
	}
	if (g <= 0)
		return g;
	dg_ranked *r = &v->set;
	if (vd_own_apply(s, r->rn->meta.id, r->rf->meta.id, id[0], id[1], r->k.j.keys, &r->k.v,
			 e))
		return -1;
	snprintf(v->other, sizeof v->other, "%s", r->rn->filter_alias);
	return 1;
}

/* Rule 6: the traces whose own functions took longer than their peers' (timing.h) are marked
 * slow in u's verdict, which is put in order: 1 when there are, 0 when not. */
static int time_changes(store *s, const dg_opts *o, dg_ranked *u, dt_err *e)
{
	tm_find *t;
	size_t n;
	if (tm_compare(s, o->normal, o->faulty, &t, &n, e))
		return -1;
	vd_rank *v = &u->k.v;
	v->nslow = 0;
	for (size_t i = 0; i < n && t[i].significant; i++) {
		for (size_t q = 0; q < v->n; q++) {
			vd_item *x = &v->it[q];
			rank_key key = u->k.j.keys[x->i];
			if (key.proc != t[i].proc || key.thread != t[i].thread ||
			    (x->change != VD_SAME && !x->input))
				continue;
			x->slow = 1;
			x->slow_f = t[i].func;
			x->slow_x = t[i].factor;
			x->slow_peers = t[i].peers;
			x->slow_gain = t[i].gained;
			v->nslow++;
		}
	}
	free(t);
	if (v->nslow)
		vd_order(v->it, v->n);
	return v->nslow > 0;
}

/* The traces that changed only by the change common to their class, when a trace of them also
 * took longer than its peers: that change is the input (the header's), and they are ordered
 * with it, the slow ones first (verdict.c). */
static void input_is_common(vd_rank *v)
{
	for (size_t k = 0; k < v->n; k++)
		v->it[k].common = v->it[k].input;
	cc_free(&v->common);
	v->common = v->input_common;
	v->input_common = (cc_set){ 0 };
	v->ncommon = v->ninput;
	vd_order(v->it, v->n);
}

/* The order by JSM_D row sums (--score jsmd, the paper's; jsmd-self, with the self term):
 * running traces first, as items with tied positions. */
static void jsmd_items(rank_jsmd *j, vd_rank *v, int self)
{
	if (!self)
		rank_jsmd_pure(j);
	rank_item *it = xmalloc((j->n ? j->n : 1) * sizeof *it);
	size_t m = rank_order(j, j->n, it);
	vd_item *o = xmalloc((m ? m : 1) * sizeof *o);
	for (size_t r = 0; r < m; r++) {
		for (size_t q = 0; q < v->n; q++)
			if (v->it[q].i == it[r].i)
				o[r] = v->it[q];
		if (!self)
			o[r].rowsum = it[r].score;
		o[r].score = o[r].rowsum;
		int tie = r && nearbyint(o[r].score * 1e9) == nearbyint(o[r - 1].score * 1e9) &&
			  o[r].running == o[r - 1].running;
		o[r].pos = tie ? o[r - 1].pos : r + 1;
	}
	free(v->it);
	v->it = o;
	v->n = m;
	free(it);
}

/* What the front-ends list of the ranking shown u: its traces in JSM_D's order under --score
 * jsmd, and the pairs whose similarity changed (v->pairs). */
static void shown(const dg_opts *o, dg_ranked *u, dg_verdict *v)
{
	if (o->jsmd)
		jsmd_items(&u->k.j, &u->k.v, o->self);
	size_t np;
	v->pairs = xmalloc((o->pairs ? o->pairs : 1) * sizeof *v->pairs);
	if (u->k.j.cd) { /* JSM_D whole */
		np = rank_jsmd_top_pairs(&u->k.j, o->pairs, v->pairs);
	} else { /* the cache's, the first of the same order */
		np = o->pairs < u->k.npairs ? o->pairs : u->k.npairs;
		memcpy(v->pairs, u->k.pairs, np * sizeof *v->pairs);
	}
	while (np && v->pairs[np - 1].score <= 1e-12)
		np--; /* pairs whose similarity did not change are not listed */
	v->npairs = np;
}

int dg_rank(store *s, const dg_source *src, const dg_opts *o, dg_verdict *v, dt_err *e)
{
	memset(v, 0, sizeof *v);
	int g = rank_under(s, src, o, 0, &v->set, e);
	if (g <= 0)
		return g;
	v->use = &v->set;
	const char *alias = v->set.rn->filter_alias;
	int can_fall_back = !dg_every_call(alias);
	/* Rule 2: the filter is blind to the matched traces; every call may not be */
	if (can_fall_back && !v->set.k.v.ndiff) {
		g = rank_under(s, src, o, 1, &v->every, e);
		if (g < 0)
			goto fail;
		if (g == 0) {
			v->pending = 1;
		} else if (!v->every.k.v.ndiff) {
			v->every_same = 1;
		} else if (o->jsmd) {
			v->own_only = 1;
		} else {
			v->use = &v->every;
			snprintf(v->blind, sizeof v->blind, "%s", alias);
		}
	}
	/* Rule 3: a change every trace of a class makes alike is a changed input: the traces
	 * that changed more come first (verdict_common.h) */
	if (!o->jsmd && v->use->k.v.ndiff >= 2) {
		dg_ranked *u = v->use == &v->every ? &v->every : &v->set;
		if (vd_common_apply(s, u->rn->meta.id, u->rf->meta.id, u->k.j.keys, &u->k.v, e))
			goto fail;
	}
	/* Rule 4: the filter singles out no trace */
	if (!o->jsmd && v->use == &v->set && can_fall_back && vd_own_undecided(&v->set.k.v)) {
		g = other_calls(s, src, o, v, e);
		if (g < 0)
			goto fail;
		if (g == 0)
			v->pending = 1;
	}
	const rk_rank *k = &v->use->k;
	v->none = nothing_differs(k);
	/* Rule 5: no calls differ; the data they sent, or a one-sided call's arguments, may
	 * (verdict_data.h) */
	if (v->none && !o->jsmd && !v->pending) {
		dg_ranked *u = v->use == &v->every ? &v->every : &v->set;
		int g5 = vd_data_apply(s, u->rn->meta.run_id, u->rf->meta.run_id, u->k.j.keys,
				       &u->k.v, e);
		if (g5 < 0)
			goto fail;
		v->none = !g5;
	}
	/* Rule 6: no calls differ, or only as every trace of a class changed them (a changed
	 * input, rule 3); the time of the traces' own functions may */
	int all_input = v->use->k.v.all_input;
	if ((v->none || all_input) && !o->jsmd && !v->pending) {
		dg_ranked *u = v->use == &v->every ? &v->every : &v->set;
		int g5 = time_changes(s, o, u, e);
		if (g5 < 0)
			goto fail;
		if (v->none)
			v->none = !g5;
		else if (g5) /* the change every trace made is the input, the slow one the bug */
			input_is_common(&u->k.v);
	}
	shown(o, v->use == &v->every ? &v->every : &v->set, v);
	return 1;
fail:
	dg_free(v);
	return -1;
}

void dg_free(dg_verdict *v)
{
	ranked_free(&v->set);
	ranked_free(&v->every);
	free(v->pairs);
	v->pairs = NULL;
	v->npairs = 0;
	v->use = NULL;
}

int dg_outliers(const an_result *r, rank_outlier *out, dt_err *e)
{
	double *j = analysis_jsm(r);
	int *cls = xmalloc((r->n ? r->n : 1) * sizeof *cls);
	for (size_t i = 0; i < r->n; i++)
		cls[i] = (int)r->cluster[i];
	int rc = rank_outliers_rows(j, r->nrows, r->row, cls, r->n, out, e);
	free(cls);
	free(j);
	return rc;
}

/* Whether the two traces' entries under one setting (every: every call) differ: 1 with *differs
 * and alias (the setting's filter), 0 pending, -1. */
static int pair_differs(store *s, const dg_source *src, const char *const run[2], const int p[2],
			const int t[2], int every, int *differs, char *alias, size_t cap, dt_err *e)
{
	nlr_entry *v[2] = { NULL, NULL };
	size_t n[2] = { 0, 0 };
	int rc = -1;
	for (int i = 0; i < 2; i++) {
		const an_result *r;
		an_params sp;
		setting(src, every, &sp);
		int g = (src->objects ? al_objects : al_get)(src->cache, run[i], &sp, &r, e);
		if (g <= 0) {
			rc = g;
			goto out;
		}
		int obj = analysis_object(r, p[i], t[i]);
		if (obj < 0) {
			dt_errf(e, DT_EDATA, "no trace %d.%d in run %s (see 'difftrace traces %s')",
				p[i], t[i], run[i], run[i]);
			goto out;
		}
		if (store_analysis_get_trace(s, r->meta.id, obj, NULL, NULL, &v[i], &n[i], NULL,
					     NULL, e))
			goto out;
		if (!i)
			snprintf(alias, cap, "%s", r->filter_alias);
	}
	diff_script ds = { 0 };
	if (diff_nlr(v[0], n[0], v[1], n[1], NULL, &ds, e))
		goto out;
	*differs = 0;
	for (size_t i = 0; i < ds.n; i++)
		*differs |= ds.h[i].kind != DIFF_SAME;
	diff_script_free(&ds);
	rc = 1;
out:
	free(v[0]);
	free(v[1]);
	return rc;
}

/* What the verdict of run[1] against run[0] found of trace P.T when its calls are alike: its
 * sent data, its time (vd_same_reason), into d->found. 1, or 0 pending; a verdict that cannot
 * be made (a sync record that cannot be read) leaves the diff as it is, and says nothing. */
static int verdict_of(store *s, const dg_source *src, const char *const run[2], int p, int t,
		      enum clu_linkage linkage, int keep, dg_diff *d)
{
	const dg_opts o = { .normal = run[0], .faulty = run[1], .linkage = linkage, .keep = keep };
	dg_verdict v;
	dt_err e;
	dt_err_clear(&e);
	int g = dg_rank(s, src, &o, &v, &e);
	if (g <= 0)
		return g < 0 ? 1 : 0;
	const dg_ranked *u = v.use;
	for (size_t q = 0; q < u->k.v.n; q++) {
		const vd_item *x = &u->k.v.it[q];
		rank_key k = u->k.j.keys[x->i];
		if (k.proc != p || k.thread != t)
			continue;
		static const char head[] = "calls identical under every filter; ";
		snprintf(d->found, sizeof d->found, "%s", head);
		if (!vd_same_reason(s, x, d->found + strlen(head), sizeof d->found - strlen(head)))
			d->found[0] = 0;
		break;
	}
	dg_free(&v);
	return 1;
}

int dg_diff_setting(store *s, const dg_source *src, const char *const run[2], const int p[2],
		    const int t[2], enum clu_linkage linkage, int keep, dg_diff *d, dt_err *e)
{
	memset(d, 0, sizeof *d);
	char alias[256], every_alias[256];
	int differs;
	int g = pair_differs(s, src, run, p, t, 0, &differs, alias, sizeof alias, e);
	if (g <= 0 || differs)
		return g;
	if (!dg_every_call(alias)) {
		g = pair_differs(s, src, run, p, t, 1, &differs, every_alias, sizeof every_alias, e);
		if (g <= 0)
			return g;
		if (differs) {
			d->every = 1;
			snprintf(d->blind, sizeof d->blind, "%s", alias);
			return 1;
		}
	}
	/* the same trace of two runs: rank's verdict on it */
	if (strcmp(run[0], run[1]) && p[0] == p[1] && t[0] == t[1])
		return verdict_of(s, src, run, p[0], t[0], linkage, keep, d);
	return 1;
}
