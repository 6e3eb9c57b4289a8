/* sweep.c: one row of the sweep table (sweep.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/sweep.h"
#include "analysis/verdict.h"
#include "util/util.h"

static int same_score(double a, double b)
{
	return nearbyint(a * 1e9) == nearbyint(b * 1e9);
}

/* How many of sc[shown..n) tie with sc[shown - 1]. */
static size_t tied_after(const double *sc, size_t n, size_t shown)
{
	size_t q = shown;
	while (shown && q < n && same_score(sc[q], sc[shown - 1]))
		q++;
	return q - shown;
}

static size_t at_most(size_t n, size_t max)
{
	if (max > RANK_TOP_MAX)
		max = RANK_TOP_MAX;
	return n < max ? n : max;
}

/* The listed threads and processes of row from JSM_D's order it (ni traces that changed). */
static void row_lists(const rank_jsmd *j, const rank_item *it, size_t ni, const sw_opts *o,
		      rank_row *row)
{
	double *sc = xmalloc((ni ? ni : 1) * sizeof *sc);
	row->n_threads = at_most(ni, o->threads);
	for (size_t q = 0; q < ni; q++)
		sc[q] = it[q].score;
	for (size_t q = 0; q < row->n_threads; q++) {
		row->top_threads[q] = j->keys[it[q].i];
		row->thread_score[q] = it[q].score;
	}
	row->more_threads = tied_after(sc, ni, row->n_threads);
	free(sc);
	int *p = xmalloc((j->n ? j->n : 1) * sizeof *p);
	double *ps = xmalloc((j->n ? j->n : 1) * sizeof *ps);
	size_t np = rank_top_procs_scored(j, it, ni, p, ps, j->n);
	row->n_procs = at_most(np, o->procs);
	for (size_t q = 0; q < row->n_procs; q++) {
		row->top_procs[q] = p[q];
		row->proc_score[q] = ps[q];
	}
	row->more_procs = tied_after(ps, np, row->n_procs);
	free(p);
	free(ps);
}

int sw_row(store *s, const an_result *rn, const an_result *rf, const sw_opts *o, rank_row *row,
	   size_t *matched, dt_err *e)
{
	rank_jsmd j;
	double b;
	memset(&j, 0, sizeof j);
	if (analysis_compare(rn, rf, o->linkage, &j, &b, e))
		return -1;
	const char *filter = row->filter, *attrs = row->attrs;
	memset(row, 0, sizeof *row);
	row->filter = filter;
	row->attrs = attrs;
	row->k = rn->meta.k;
	row->bscore = b;
	row->scored = 1;
	if (matched)
		*matched = j.n;
	if (!o->self)
		rank_jsmd_pure(&j);
	rank_item *it = xmalloc((j.n ? j.n : 1) * sizeof *it);
	size_t ni = rank_order(&j, j.n, it);
	while (ni && it[ni - 1].score <= 1e-12)
		ni--; /* unchanged traces are not suspects */
	row_lists(&j, it, ni, o, row);
	free(it);
	int rc = 0;
	if (!ni) { /* every row sum 0: whether the kept events differ all the same */
		vd_rank v;
		rc = vd_build(s, rn, rf, &j, &v, e);
		if (!rc) {
			row->empty = v.ndiff || j.n_only_normal || j.n_only_faulty
					     ? RANK_ROW_BLIND
					     : RANK_ROW_SAME;
			vd_free(&v);
		}
	}
	rank_jsmd_free(&j);
	return rc;
}
