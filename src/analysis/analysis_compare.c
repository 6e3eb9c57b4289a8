/* analysis_compare.c: two analyses of one setting compared (JSM_D and the B-score of their
 * clusterings, rank.h), the faulty run's against the normal run's. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/an_pool.h"
#include "analysis/fca.h"
#include "analysis/filter.h"
#include "analysis/jaccard.h"
#include "analysis/nlr.h"
#include "analysis/objects.h"
#include "util/ptrange.h"
#include "util/util.h"

rank_key *analysis_keys(const an_result *r)
{
	rank_key *k = xmalloc((r->n ? r->n : 1) * sizeof *k);
	for (size_t i = 0; i < r->n; i++)
		k[i] = (rank_key){ r->traces[i].proc, r->traces[i].thread };
	return k;
}

double *analysis_jsm(const an_result *r)
{
	size_t nr = r->nrows;
	double *d = xmalloc((nr ? nr * nr : 1) * sizeof *d);
	for (size_t i = 0; i < nr * nr; i++)
		d[i] = r->jsm[i];
	return d;
}

/* The dendrogram of r restricted to the objects obj[0..m) (ascending), over their rows: *cls
 * gets each one's class there (renumbered in order of first object), *nc their number, and
 * *out the nc - 1 merges: the cached ones when the objects are all of r and the linkage is the
 * cached one; else computed on the rows they use, with the multiplicities they have. */
static int merges_on(const an_result *r, const double *jsm, const size_t *obj, size_t m,
		     enum clu_linkage l, uint32_t **cls, size_t *nc, clu_merge **out, dt_err *e)
{
	size_t nr = r->nrows;
	uint32_t *renum = xmalloc((nr ? nr : 1) * sizeof *renum);
	for (size_t i = 0; i < nr; i++)
		renum[i] = UINT32_MAX;
	uint32_t *c = xmalloc((m ? m : 1) * sizeof *c), *orig = xmalloc((nr ? nr : 1) * sizeof *orig);
	size_t k = 0;
	for (size_t i = 0; i < m; i++) {
		uint32_t x = r->row[obj[i]];
		if (renum[x] == UINT32_MAX) {
			orig[k] = x;
			renum[x] = (uint32_t)k++;
		}
		c[i] = renum[x];
	}
	int all = m == r->n && !strcmp(r->linkage, clu_linkage_name(l));
	for (size_t i = 0; all && i < k; i++)
		all = orig[i] == i;
	*cls = c;
	*nc = k;
	*out = xmalloc((k > 1 ? k - 1 : 1) * sizeof **out);
	int rc = 0;
	if (all) {
		if (k > 1)
			memcpy(*out, r->merges, (k - 1) * sizeof **out);
	} else {
		uint32_t *mult = xcalloc(k ? k : 1, sizeof *mult);
		for (size_t i = 0; i < m; i++)
			mult[c[i]]++;
		double *sub = xmalloc((k ? k * k : 1) * sizeof *sub);
		for (size_t i = 0; i < k; i++)
			for (size_t j = 0; j < k; j++)
				sub[i * k + j] = jsm[(size_t)orig[i] * nr + orig[j]];
		rc = clu_linkage_classes(sub, k, mult, l, *out, e);
		free(sub);
		free(mult);
	}
	free(renum);
	free(orig);
	return rc;
}

/* For each attribute id of rb, the id of the attribute of the same name in ra, or UINT32_MAX:
 * attribute ids are per analysis, their names (functions, structural loop ids, frequencies)
 * are not. Built once per comparison, so that each trace's comparison is on integers. */
static uint32_t *attr_map(const an_result *ra, const an_result *rb)
{
	strmap m;
	strmap_init(&m);
	for (size_t i = 0; i < ra->nattrs; i++)
		strmap_put(&m, ra->attr_names[i], strlen(ra->attr_names[i]), (uint32_t)i);
	uint32_t *map = xmalloc((rb->nattrs ? rb->nattrs : 1) * sizeof *map);
	for (size_t i = 0; i < rb->nattrs; i++)
		if (!strmap_get(&m, rb->attr_names[i], strlen(rb->attr_names[i]), &map[i]))
			map[i] = UINT32_MAX;
	strmap_free(&m);
	return map;
}

static int cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	return (a > b) - (a < b);
}

/* 1 - Jaccard of object a's attributes in ra and object b's in rb (map: rb ids to ra ids). */
static double self_change(const an_result *ra, size_t a, const an_result *rb, size_t b,
			  const uint32_t *map, uint32_t *scratch)
{
	size_t na = ra->noattrs[a], nb = rb->noattrs[b], k = 0;
	for (size_t i = 0; i < nb; i++) {
		uint32_t id = rb->oattrs[b][i];
		if (id < rb->nattrs && map[id] != UINT32_MAX)
			scratch[k++] = map[id];
	}
	qsort(scratch, k, sizeof *scratch, cmp_u32);
	size_t inter = 0;
	for (size_t i = 0, q = 0; i < na && q < k;) { /* both ascending */
		if (ra->oattrs[a][i] < scratch[q])
			i++;
		else if (ra->oattrs[a][i] > scratch[q])
			q++;
		else {
			inter++;
			i++;
			q++;
		}
	}
	size_t uni = na + nb - inter;
	return uni ? 1.0 - (double)inter / (double)uni : 0.0;
}

/* The length of an attribute's name without its frequency: `:<f>` ends it unless the mode is
 * orig (attrs_render). */
static size_t base_len(const an_result *r, const char *name)
{
	const char *c = r->mode.freq == ATTRS_ORIG ? NULL : strrchr(name, ':');
	return c ? (size_t)(c - name) : strlen(name);
}

/* For each attribute of rb, whether no trace of ra has an attribute of that name, frequency
 * aside: behaviour the normal run never showed (a call with a new argument, a loop with a new
 * body), as opposed to behaviour that only stopped early or repeated more or less often. */
static uint8_t *attr_novel(const an_result *ra, const an_result *rb)
{
	strmap m;
	strmap_init(&m);
	for (size_t i = 0; i < ra->nattrs; i++)
		strmap_put(&m, ra->attr_names[i], base_len(ra, ra->attr_names[i]), 1);
	uint8_t *novel = xmalloc(rb->nattrs ? rb->nattrs : 1);
	for (size_t i = 0; i < rb->nattrs; i++) {
		uint32_t v;
		novel[i] = !strmap_get(&m, rb->attr_names[i], base_len(rb, rb->attr_names[i]), &v);
	}
	strmap_free(&m);
	return novel;
}

/* The share of trace b's attributes that are novel. */
static double novelty(const an_result *rb, size_t b, const uint8_t *novel)
{
	size_t nb = rb->noattrs[b], k = 0;
	for (size_t i = 0; i < nb; i++)
		k += rb->oattrs[b][i] < rb->nattrs && novel[rb->oattrs[b][i]];
	return nb ? (double)k / (double)nb : 0.0;
}

/* When the faulty run was stopped (a trace flagged timed-out), which of j's traces were still
 * running then (rank_running). */
static void find_running(const an_result *rf, rank_jsmd *j)
{
	int stopped = 0;
	for (size_t i = 0; i < rf->n; i++)
		stopped |= (rf->traces[i].flags & DT_TF_TIMEOUT) != 0;
	if (!stopped || !j->n)
		return;
	uint64_t *first = xmalloc(j->n * sizeof *first), *last = xmalloc(j->n * sizeof *last);
	uint8_t *valid = xmalloc(j->n);
	for (size_t i = 0; i < j->n; i++) {
		const store_trace *t = &rf->traces[j->row_faulty[i]];
		first[i] = t->first_ts;
		last[i] = t->last_ts;
		/* a clock that went back orders nothing */
		valid[i] = t->has_time && t->nevents > 0 && !(t->flags & DT_TF_TIME_REGRESSED);
	}
	j->running = xmalloc(j->n);
	j->n_running = rank_running(first, last, valid, j->n, j->running, &j->quiet);
	free(first);
	free(last);
	free(valid);
}

int analysis_compare(const an_result *rn, const an_result *rf, enum clu_linkage l, rank_jsmd *j,
		     double *bscore, dt_err *e)
{
	memset(j, 0, sizeof *j);
	rank_key *kn = analysis_keys(rn), *kf = analysis_keys(rf);
	double *jn = analysis_jsm(rn), *jf = analysis_jsm(rf);
	int r = rank_jsmd_build_rows(kn, rn->row, jn, rn->nrows, rn->n, kf, rf->row, jf, rf->nrows,
				     rf->n, j, e);
	if (!r && rn->oattrs && rf->oattrs && j->n) {
		uint32_t *map = attr_map(rn, rf);
		uint8_t *novel = attr_novel(rn, rf);
		size_t most = 1;
		for (size_t i = 0; i < rf->n; i++)
			most = rf->noattrs[i] > most ? rf->noattrs[i] : most;
		uint32_t *scratch = xmalloc(most * sizeof *scratch);
		/* a class's traces have the same attributes in both runs: its first one says */
		uint8_t *done = xcalloc(j->nc ? j->nc : 1, 1);
		for (size_t i = 0; i < j->n; i++) {
			/* a flag, not a count: a byte wraps at a class's 257th trace */
			if (done[j->cls[i]])
				continue;
			done[j->cls[i]] = 1;
			j->diag[j->cls[i]] = self_change(rn, j->row_normal[i], rf, j->row_faulty[i],
							 map, scratch) +
					     novelty(rf, j->row_faulty[i], novel);
		}
		free(done);
		free(scratch);
		free(map);
		free(novel);
	}
	if (!r)
		find_running(rf, j);
	*bscore = NAN;
	if (!r && j->n >= 3) {
		size_t m = j->n, dn = 0, df = 0;
		clu_merge *mn = NULL, *mf = NULL;
		uint32_t *cn = NULL, *cf = NULL;
		r = merges_on(rn, jn, j->row_normal, m, l, &cn, &dn, &mn, e);
		if (!r)
			r = merges_on(rf, jf, j->row_faulty, m, l, &cf, &df, &mf, e);
		if (!r)
			r = rank_bscore_mean_classes(m, cn, mn, dn, cf, mf, df, bscore, NULL);
		free(mn);
		free(mf);
		free(cn);
		free(cf);
	}
	if (r) {
		rank_jsmd_free(j);
		memset(j, 0, sizeof *j);
	}
	free(kn);
	free(kf);
	free(jn);
	free(jf);
	return r;
}

