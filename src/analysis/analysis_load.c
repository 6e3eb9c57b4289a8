/* analysis_load.c: an analysis cached in the store read back: whole, its head alone (for
 * the ranking cache), or its objects (the traces with their kept events and attributes), and
 * its lattice. The pipeline that writes them is analysis.c. */
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

static int get_u32s(const uint8_t *p, size_t len, size_t *pos, uint32_t **out, size_t *n)
{
	uint64_t cnt, x;
	if (uvar_get(p, len, pos, &cnt) || cnt > len)
		return -1;
	uint32_t *v = xmalloc((cnt ? cnt : 1) * sizeof *v);
	for (uint64_t i = 0; i < cnt; i++) {
		if (uvar_get(p, len, pos, &x) || x > UINT32_MAX) {
			free(v);
			return -1;
		}
		v[i] = (uint32_t)x;
	}
	*out = v;
	*n = (size_t)cnt;
	return 0;
}

static int get_merges(const uint8_t *p, size_t len, clu_merge **out, size_t *n)
{
	size_t pos = 0;
	uint64_t cnt, a, b, sz, h;
	if (uvar_get(p, len, &pos, &cnt) || cnt > len)
		return -1;
	clu_merge *m = xmalloc((cnt ? cnt : 1) * sizeof *m);
	for (uint64_t i = 0; i < cnt; i++) {
		if (uvar_get(p, len, &pos, &a) || uvar_get(p, len, &pos, &b) ||
		    uvar_get(p, len, &pos, &sz) || uvar_get(p, len, &pos, &h)) {
			free(m);
			return -1;
		}
		m[i].a = (uint32_t)a;
		m[i].b = (uint32_t)b;
		m[i].size = (uint32_t)sz;
		memcpy(&m[i].height, &h, sizeof h);
	}
	*out = m;
	*n = (size_t)cnt;
	return 0;
}

void analysis_result_free(an_result *r)
{
	store_analysis_free(&r->meta);
	if (r->arena) { /* the strings and ids are the arena's */
		free(r->traces);
		free(r->oattrs);
		r->oattrs = NULL;
		an_arena_free(r->arena);
	} else {
		store_traces_free(r->traces, r->n);
	}
	free(r->nfiltered);
	free(r->jsm);
	free(r->row);
	free(r->rowmult);
	free(r->identical);
	free(r->merges);
	free(r->cluster);
	for (size_t i = 0; i < r->nattrs; i++)
		free(r->attr_names[i]);
	free(r->attr_names);
	free(r->filter_alias);
	for (size_t i = 0; r->oattrs && i < r->n; i++)
		free(r->oattrs[i]);
	free(r->oattrs);
	free(r->noattrs);
	memset(r, 0, sizeof *r);
}

int analysis_object(const an_result *r, int p, int t)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->traces[i].proc == p && r->traces[i].thread == t)
			return (int)i;
	return -1;
}

/* Each object's trace, kept events and attributes into r (meta read): packed with the analysis
 * (objects.h), else in one pass over the analysis's rows. */
static int load_objects(store *s, int64_t id, an_result *r, dt_err *e)
{
	uint8_t *p = NULL;
	size_t len = 0;
	r->n = (size_t)r->meta.ntraces;
	r->traces = xcalloc(r->n ? r->n : 1, sizeof *r->traces);
	r->nfiltered = xcalloc(r->n ? r->n : 1, sizeof *r->nfiltered);
	r->oattrs = xcalloc(r->n ? r->n : 1, sizeof *r->oattrs);
	r->noattrs = xcalloc(r->n ? r->n : 1, sizeof *r->noattrs);
	int go = store_analysis_get_blob(s, id, "objects", &p, &len, e);
	if (go < 0)
		return -1;
	int bad = go && an_objects_decode(p, len, r->n, r->traces, r->nfiltered, r->oattrs,
					  r->noattrs, &r->arena);
	free(p);
	if (bad)
		return dt_err_at(e, store_path(s), -1, "analysis %lld: damaged objects",
				 (long long)id);
	if (!go && store_analysis_object_rows(s, id, r->n, r->traces, r->nfiltered, r->oattrs,
					      r->noattrs, e))
		return -1;
	return 0;
}

int analysis_load_objects(store *s, int64_t id, an_result *r, dt_err *e)
{
	if (analysis_load_head(s, id, r, e))
		return -1;
	if (load_objects(s, id, r, e)) {
		analysis_result_free(r);
		return -1;
	}
	return 0;
}

int analysis_load_head(store *s, int64_t id, an_result *r, dt_err *e)
{
	memset(r, 0, sizeof *r);
	if (store_analysis_get(s, id, &r->meta, e))
		return -1;
	if (attrs_mode_parse_args(r->meta.attrs, &r->mode, &r->args, e)) {
		analysis_result_free(r);
		return -1;
	}
	uint8_t *p = NULL;
	size_t len = 0;
	int g = store_analysis_get_blob(s, id, "alias", &p, &len, e);
	if (g < 0) {
		analysis_result_free(r);
		return -1;
	}
	r->filter_alias = g ? xstrndup((const char *)p, len) : xstrdup(r->meta.filter);
	free(p);
	return 0;
}

int analysis_load(store *s, int64_t id, an_result *r, dt_err *e)
{
	memset(r, 0, sizeof *r);
	uint8_t *p = NULL, *rb = NULL;
	size_t len = 0, rlen = 0;
	if (store_analysis_get(s, id, &r->meta, e))
		return -1;
	if (attrs_mode_parse_args(r->meta.attrs, &r->mode, &r->args, e))
		goto fail;
	if (load_objects(s, id, r, e))
		goto fail;
	size_t pos = 0, cnt;
	if (store_analysis_get_blob(s, id, "identical", &p, &len, e) != 1 ||
	    get_u32s(p, len, &pos, &r->identical, &cnt) || cnt != r->n) {
		dt_err_at(e, store_path(s), -1, "analysis %lld: damaged classes", (long long)id);
		goto fail;
	}
	free(p);
	p = NULL;
	r->nidentical = 0;
	for (size_t i = 0; i < r->n; i++)
		if (r->identical[i] + 1 > r->nidentical)
			r->nidentical = r->identical[i] + 1;
	int g = store_analysis_get_blob(s, id, "jsm", &p, &len, e);
	if (g < 0)
		goto fail;
	/* the rows: the classes; an explicit map (uncollapsed); or, in an analysis cached before
	 * the collapse, the objects (a dense n x n matrix) */
	int gr = g ? store_analysis_get_blob(s, id, "rows", &rb, &rlen, e) : 0;
	if (gr < 0)
		goto fail;
	pos = 0;
	if (gr) {
		if (get_u32s(rb, rlen, &pos, &r->row, &cnt) || cnt != r->n) {
			dt_err_at(e, store_path(s), -1, "analysis %lld: damaged rows", (long long)id);
			goto fail;
		}
	} else {
		r->row = xmalloc((r->n ? r->n : 1) * sizeof *r->row);
		int dense = r->nidentical < r->n && len == r->n * r->n * sizeof(float);
		for (size_t i = 0; i < r->n; i++)
			r->row[i] = dense ? (uint32_t)i : r->identical[i];
	}
	r->nrows = 0;
	for (size_t i = 0; i < r->n; i++)
		if (r->row[i] + 1 > r->nrows)
			r->nrows = r->row[i] + 1;
	r->rowmult = xcalloc(r->nrows ? r->nrows : 1, sizeof *r->rowmult);
	for (size_t i = 0; i < r->n; i++)
		r->rowmult[r->row[i]]++;
	if (!g || len != r->nrows * r->nrows * sizeof(float)) {
		dt_err_at(e, store_path(s), -1, "analysis %lld: damaged similarity matrix",
			  (long long)id);
		goto fail;
	}
	r->jsm = (float *)p;
	p = NULL;
	if (store_analysis_get_blob(s, id, "cut", &p, &len, e) != 1) {
		dt_err_at(e, store_path(s), -1, "analysis %lld: no clustering", (long long)id);
		goto fail;
	}
	uint64_t k;
	pos = 0;
	if (uvar_get(p, len, &pos, &k) || len - pos >= sizeof r->linkage) {
		dt_err_at(e, store_path(s), -1, "analysis %lld: damaged clustering", (long long)id);
		goto fail;
	}
	r->kcut = (size_t)k;
	memcpy(r->linkage, p + pos, len - pos);
	r->linkage[len - pos] = 0;
	free(p);
	p = NULL;
	char key[64];
	snprintf(key, sizeof key, "merges.%s", r->linkage);
	size_t nm;
	if (store_analysis_get_blob(s, id, key, &p, &len, e) != 1 ||
	    get_merges(p, len, &r->merges, &nm) || nm != (r->nrows ? r->nrows - 1 : 0)) {
		dt_err_at(e, store_path(s), -1, "analysis %lld: damaged clustering", (long long)id);
		goto fail;
	}
	free(p);
	p = NULL;
	r->cluster = xmalloc((r->n ? r->n : 1) * sizeof *r->cluster);
	if (r->n)
		clu_cut_classes(r->merges, r->nrows, r->row, r->n, r->kcut ? r->kcut : 1, r->cluster);
	if (store_analysis_attr_names(s, id, &r->attr_names, &r->nattrs, e))
		goto fail;
	if (store_analysis_get_blob(s, id, "alias", &p, &len, e) == 1) {
		r->filter_alias = xstrndup((const char *)p, len);
	} else {
		r->filter_alias = xstrdup(r->meta.filter);
	}
	free(p);
	free(rb);
	return 0;
fail:
	free(p);
	free(rb);
	analysis_result_free(r);
	return -1;
}

/* The row of each of the n objects of analysis id (analysis.h): the "rows" map when there is
 * one, else the classes, except in an analysis cached before the collapse (one row per object);
 * *nrows their number. */
static int an_rows(store *s, int64_t id, int current, size_t n, uint32_t **row, size_t *nrows,
		   dt_err *e)
{
	uint8_t *p = NULL;
	size_t len = 0, pos = 0, cnt = 0;
	*row = NULL;
	int g = store_analysis_get_blob(s, id, "rows", &p, &len, e);
	if (g < 0)
		return -1;
	if (!g && current) {
		free(p);
		p = NULL;
		g = store_analysis_get_blob(s, id, "identical", &p, &len, e);
		if (g < 0)
			return -1;
	}
	if (g) {
		int bad = get_u32s(p, len, &pos, row, &cnt) || cnt != n;
		free(p);
		if (bad) {
			free(*row);
			*row = NULL;
			return dt_err_at(e, store_path(s), -1, "analysis %lld: damaged classes",
					 (long long)id);
		}
	} else {
		*row = xmalloc((n ? n : 1) * sizeof **row);
		for (size_t i = 0; i < n; i++)
			(*row)[i] = (uint32_t)i;
	}
	*nrows = 0;
	for (size_t i = 0; i < n; i++)
		if ((*row)[i] + 1 > *nrows)
			*nrows = (*row)[i] + 1;
	return 0;
}

int analysis_lattice(store *s, int64_t id, fca_lattice *L, char **why, dt_err *e)
{
	memset(L, 0, sizeof *L);
	*why = NULL;
	store_analysis a;
	if (store_analysis_get(s, id, &a, e))
		return -1;
	size_t n = (size_t)a.ntraces, m = (size_t)a.nattrs, nr = 0;
	int current = !strcmp(a.version, ANALYSIS_VERSION);
	store_analysis_free(&a);
	uint32_t *row;
	if (an_rows(s, id, current, n, &row, &nr, e))
		return -1;
	/* the objects of each row, in order */
	size_t *off = xcalloc(nr + 2, sizeof *off);
	uint32_t *obj = xmalloc((n ? n : 1) * sizeof *obj);
	for (size_t i = 0; i < n; i++)
		off[row[i] + 2]++;
	for (size_t r = 0; r < nr; r++)
		off[r + 2] += off[r + 1];
	for (size_t i = 0; i < n; i++)
		obj[off[row[i] + 1]++] = (uint32_t)i;
	free(row);
	uint8_t *p;
	size_t len;
	int g = store_analysis_get_blob(s, id, "lattice", &p, &len, e);
	if (g < 0)
		goto fail;
	if (!g) {
		free(off);
		free(obj);
		if (store_analysis_get_blob(s, id, "lattice.error", &p, &len, e) == 1) {
			*why = xstrndup((const char *)p, len);
			free(p);
		} else {
			*why = xstrdup("no lattice was computed");
		}
		return 0;
	}
	size_t pos = 0, wn = ctx_words(n), wm = ctx_words(m);
	uint64_t nc;
	if (uvar_get(p, len, &pos, &nc) || nc == 0 || nc > len)
		goto bad;
	L->n = n;
	L->m = m;
	L->nconcepts = (size_t)nc;
	L->c = xcalloc(L->nconcepts, sizeof *L->c);
	for (size_t i = 0; i < L->nconcepts; i++) {
		fca_concept *c = &L->c[i];
		uint32_t *v;
		size_t k;
		c->extent = xcalloc(wn, sizeof *c->extent);
		c->intent = xcalloc(wm, sizeof *c->intent);
		if (get_u32s(p, len, &pos, &v, &k))
			goto bad;
		c->next = 0;
		for (size_t j = 0; j < k; j++)
			if (v[j] < nr)
				for (size_t q = off[v[j]]; q < off[v[j] + 1]; q++) {
					ctx_bset(c->extent, obj[q]);
					c->next++;
				}
		free(v);
		if (get_u32s(p, len, &pos, &v, &k))
			goto bad;
		for (size_t j = 0; j < k; j++)
			if (v[j] < m)
				ctx_bset(c->intent, v[j]);
		c->nint = k;
		free(v);
		if (get_u32s(p, len, &pos, &c->down, &c->ndown))
			goto bad;
		for (size_t j = 0; j < c->ndown; j++)
			if (c->down[j] >= nc)
				goto bad;
		L->nedges += c->ndown;
	}
	/* parents: the children lists inverted, in ascending order */
	for (size_t i = 0; i < L->nconcepts; i++)
		for (size_t j = 0; j < L->c[i].ndown; j++)
			L->c[L->c[i].down[j]].nup++;
	for (size_t i = 0; i < L->nconcepts; i++) {
		L->c[i].up = xmalloc((L->c[i].nup ? L->c[i].nup : 1) * sizeof *L->c[i].up);
		L->c[i].nup = 0;
	}
	for (size_t i = 0; i < L->nconcepts; i++)
		for (size_t j = 0; j < L->c[i].ndown; j++) {
			fca_concept *ch = &L->c[L->c[i].down[j]];
			ch->up[ch->nup++] = (uint32_t)i;
		}
	L->top = 0;
	L->bottom = L->nconcepts - 1;
	/* an object's concept has the largest intent among those holding it; an attribute's the
	 * smallest intent holding it */
	L->obj_concept = xcalloc(n ? n : 1, sizeof *L->obj_concept);
	L->attr_concept = xcalloc(m ? m : 1, sizeof *L->attr_concept);
	for (size_t r = 0; r < nr; r++) { /* the objects of a row share their concept */
		if (off[r] == off[r + 1])
			continue;
		size_t best = 0, bi = 0;
		for (size_t i = 0; i < L->nconcepts; i++)
			if (ctx_btest(L->c[i].extent, obj[off[r]]) && L->c[i].nint >= best) {
				best = L->c[i].nint;
				bi = i;
			}
		for (size_t q = off[r]; q < off[r + 1]; q++)
			L->obj_concept[obj[q]] = (uint32_t)bi;
	}
	for (size_t at = 0; at < m; at++) {
		size_t best = SIZE_MAX, bi = L->bottom;
		for (size_t i = 0; i < L->nconcepts; i++)
			if (ctx_btest(L->c[i].intent, at) && L->c[i].nint < best) {
				best = L->c[i].nint;
				bi = i;
			}
		L->attr_concept[at] = (uint32_t)bi;
	}
	free(p);
	free(off);
	free(obj);
	return 1;
bad:
	free(p);
	fca_free(L);
	dt_err_at(e, store_path(s), -1, "analysis %lld: damaged lattice", (long long)id);
fail:
	free(off);
	free(obj);
	return -1;
}

int analysis_relink(an_result *r, enum clu_linkage l, size_t kcut, dt_err *e)
{
	if (r->n <= 1 || (!strcmp(r->linkage, clu_linkage_name(l)) && !kcut))
		return 0;
	size_t n = r->n, nr = r->nrows;
	double *j = analysis_jsm(r);
	r->merges = xrealloc(r->merges, (nr > 1 ? nr - 1 : 1) * sizeof *r->merges);
	int bad = nr > 1 && clu_linkage_classes(j, nr, r->rowmult, l, r->merges, e);
	free(j);
	if (bad)
		return -1;
	snprintf(r->linkage, sizeof r->linkage, "%s", clu_linkage_name(l));
	size_t kmax = n < 16 ? n : 16;
	r->kcut = kcut ? (kcut < n ? kcut : n)
		       : nr > 1 ? clu_auto_k(r->merges, nr, kmax < nr ? kmax : nr) : 1;
	clu_cut_classes(r->merges, nr, r->row, n, r->kcut, r->cluster);
	return 0;
}
