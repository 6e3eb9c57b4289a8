/* an_lookup.c: finding, computing and keeping the analysis of a run under a setting
 * (an_lookup.h), for the command line and the interface alike. */
#include <stdlib.h>
#include <string.h>

#include "analysis/an_lookup.h"
#include "util/util.h"

/* One analysis loaded: its run and setting (copied), whole or its objects only. */
struct al_entry {
	char *run;
	char *filter; /* NULL: the store's default */
	char **files;
	size_t nfiles;
	attrs_mode mode;
	int args;
	unsigned k;
	enum clu_linkage linkage;
	size_t kcut;
	int whole;
	an_result r;
};

void al_every(const an_params *p, an_params *out)
{
	*out = *p;
	out->filter = AN_FALLBACK_FILTER;
}

int al_find(store *s, const char *run, const an_params *p, int64_t *id, dt_err *e)
{
	store_run sr;
	if (store_run_get_lite(s, run, &sr, e))
		return -1;
	int r = analysis_lookup(s, &sr, p, id, e);
	store_run_free(&sr);
	return r;
}

int al_compute(store *s, const char *run, const an_params *p, int64_t *id, int *reused,
	       dt_err *e)
{
	store_run sr;
	if (store_run_get_lite(s, run, &sr, e))
		return -1;
	int rc = analysis_run(s, &sr, p, id, reused, e);
	store_run_free(&sr);
	return rc ? -1 : 0;
}

int al_load(store *s, int64_t id, const an_params *p, an_result *r, dt_err *e)
{
	if (analysis_load(s, id, r, e))
		return -1;
	/* a different linkage or cut than the cached one: clustered again from its similarity */
	if (analysis_relink(r, p->linkage, p->kcut, e)) {
		analysis_result_free(r);
		return -1;
	}
	return 0;
}

void al_cache_init(al_cache *c, store *s)
{
	memset(c, 0, sizeof *c);
	c->s = s;
}

static void entry_free(al_entry *x)
{
	analysis_result_free(&x->r);
	free(x->run);
	free(x->filter);
	for (size_t i = 0; i < x->nfiles; i++)
		free(x->files[i]);
	free(x->files);
	free(x);
}

void al_cache_free(al_cache *c)
{
	for (size_t i = 0; i < c->n; i++)
		entry_free(c->ent[i]);
	free(c->ent);
	c->ent = NULL;
	c->n = 0;
}

static int same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Whether x is run's analysis under p: the same store key and the same classes. */
static int matches(const al_entry *x, const char *run, const an_params *p)
{
	if (strcmp(x->run, run) || !same_str(x->filter, p->filter) ||
	    x->nfiles != p->nfilter_files || memcmp(&x->mode, &p->mode, sizeof x->mode) ||
	    x->args != p->args || x->k != p->k || x->linkage != p->linkage || x->kcut != p->kcut)
		return 0;
	for (size_t i = 0; i < x->nfiles; i++)
		if (strcmp(x->files[i], p->filter_files[i]))
			return 0;
	return 1;
}

static al_entry *entry_new(al_cache *c, const char *run, const an_params *p, int whole)
{
	al_entry *x = xcalloc(1, sizeof *x);
	x->run = xstrdup(run);
	x->filter = p->filter ? xstrdup(p->filter) : NULL;
	x->nfiles = p->nfilter_files;
	x->files = xmalloc((x->nfiles ? x->nfiles : 1) * sizeof *x->files);
	for (size_t i = 0; i < x->nfiles; i++)
		x->files[i] = xstrdup(p->filter_files[i]);
	x->mode = p->mode;
	x->args = p->args;
	x->k = p->k;
	x->linkage = p->linkage;
	x->kcut = p->kcut;
	x->whole = whole;
	c->ent = xrealloc(c->ent, (c->n + 1) * sizeof *c->ent);
	c->ent[c->n++] = x;
	return x;
}

/* The entry of run under p (whole: only one loaded whole): 1 with *hit, 0 when there is none,
 * -1 when another difftrace removed the run since (rm). */
static int cached(al_cache *c, const char *run, const an_params *p, int whole, al_entry **hit,
		  dt_err *e)
{
	for (size_t i = 0; i < c->n; i++) {
		al_entry *x = c->ent[i];
		if ((whole && !x->whole) || !matches(x, run, p))
			continue;
		dt_err ign;
		dt_err_clear(&ign);
		if (store_run_exists(c->s, run, &ign) == 0)
			return dt_errf(e, DT_EDATA, "run %s was removed", run);
		*hit = x;
		return 1;
	}
	return 0;
}

/* The id of run's analysis under p from the store: found, or computed where c computes. */
static int store_id(al_cache *c, const char *run, const an_params *p, int64_t *id, dt_err *e)
{
	if (c->later) {
		int f = al_find(c->s, run, p, id, e);
		if (f != 0)
			return f;
	}
	if (c->compute)
		return c->compute(c->ctx, run, p, id, e);
	int reused;
	return al_compute(c->s, run, p, id, &reused, e) ? -1 : 1;
}

int al_id(al_cache *c, const char *run, const an_params *p, int64_t *id, dt_err *e)
{
	al_entry *hit;
	int f = cached(c, run, p, 0, &hit, e);
	if (f) {
		if (f > 0)
			*id = hit->r.meta.id;
		return f;
	}
	return store_id(c, run, p, id, e);
}

static int fetch(al_cache *c, const char *run, const an_params *p, int whole,
		 const an_result **r, dt_err *e)
{
	al_entry *hit;
	int f = cached(c, run, p, whole, &hit, e);
	if (f) {
		if (f > 0)
			*r = &hit->r;
		return f;
	}
	int64_t id;
	f = store_id(c, run, p, &id, e);
	if (f <= 0)
		return f;
	an_result got;
	if (whole ? al_load(c->s, id, p, &got, e) : analysis_load_objects(c->s, id, &got, e))
		return -1;
	al_entry *x = entry_new(c, run, p, whole);
	x->r = got;
	*r = &x->r;
	return 1;
}

int al_get(al_cache *c, const char *run, const an_params *p, const an_result **r, dt_err *e)
{
	return fetch(c, run, p, 1, r, e);
}

int al_objects(al_cache *c, const char *run, const an_params *p, const an_result **r,
	       dt_err *e)
{
	return fetch(c, run, p, 0, r, e);
}

void al_add(al_cache *c, const char *run, const an_params *p, an_result *r)
{
	al_entry *x = entry_new(c, run, p, 1);
	x->r = *r;
}
