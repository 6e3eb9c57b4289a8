/* an_lookup.h: "the" analysis of a run under a setting, for every front-end.
 *
 * A setting is an an_params: the filter (NULL: the store's default, analysis_default_filter),
 * its filter files, the attribute mode, K, and the linkage and cut the classes are shown under.
 * The analysis of a run under it is the one the store keeps under its key (the filter's
 * canonical form and digest, the attribute mode, K: analysis.h), clustered again under the
 * setting's linkage and cut when it was cached under others (analysis_relink). The command line
 * and the interface find, compute and load analyses only through these functions, so that both
 * read the same analysis of a run and show it alike; the interface only computes them in its
 * background job (al_compute there), where the command line computes them on the spot.
 *
 * al_cache keeps the analyses a front-end has loaded for as long as it runs (a command, an
 * interface session), each once per run and setting, whole or with its traces only; the
 * diagnosis (diagnosis.h) takes its analyses from it. */
#ifndef DT_AN_LOOKUP_H
#define DT_AN_LOOKUP_H

#include <stdint.h>

#include "analysis/analysis.h"

/* p under every call (AN_FALLBACK_FILTER), its other parameters p's: the setting the
 * diagnosis falls back to when p's filter is blind. */
void al_every(const an_params *p, an_params *out);

/* Whether run has its analysis under p cached: 1 with *id, 0 when it must be computed, -1 on
 * error (a run that does not exist, a bad filter: e says which). Never computes. */
int al_find(store *s, const char *run, const an_params *p, int64_t *id, dt_err *e);
/* Finds it, or computes it (p->progress reports; p->force recomputes): 0 with *id and
 * *reused (whether it was cached), -1. */
int al_compute(store *s, const char *run, const an_params *p, int64_t *id, int *reused,
	       dt_err *e);
/* Loads analysis id whole, clustered under p's linkage and cut. 0, or -1 (nothing to free). */
int al_load(store *s, int64_t id, const an_params *p, an_result *r, dt_err *e);

typedef struct al_entry al_entry;

typedef struct al_cache {
	store *s;
	/* Where an analysis that is not cached gets computed. NULL: here, al_compute. Else the
	 * front-end's: 1 with *id when computed here (the command line's, with its progress
	 * line), 0 when started elsewhere (the interface's background job; the lookup then
	 * answers 0, pending, until it is cached), -1. When it may start elsewhere (later set),
	 * the cache first looks with al_find, and calls it only for what is not cached. */
	int (*compute)(void *ctx, const char *run, const an_params *p, int64_t *id, dt_err *e);
	void *ctx;
	int later;
	al_entry **ent; /* never freed before al_cache_free: the analyses handed out stay valid */
	size_t n;
} al_cache;

void al_cache_init(al_cache *c, store *s);
void al_cache_free(al_cache *c);

/* run's analysis under p, loaded whole: 1 with *r (the cache's, valid until al_cache_free), 0
 * while it is computed elsewhere, -1 (e set; a run removed since it was loaded says so). */
int al_get(al_cache *c, const char *run, const an_params *p, const an_result **r, dt_err *e);
/* The same with its traces at least (analysis_load_objects; the whole one when loaded). */
int al_objects(al_cache *c, const char *run, const an_params *p, const an_result **r,
	       dt_err *e);
/* Its id, without loading it; the same return values. */
int al_id(al_cache *c, const char *run, const an_params *p, int64_t *id, dt_err *e);
/* Adds r (loaded whole: the cache owns it now) as run's analysis under p: one computed in
 * memory over a read-only store by another connection, which this one cannot read back. */
void al_add(al_cache *c, const char *run, const an_params *p, an_result *r);

#endif
