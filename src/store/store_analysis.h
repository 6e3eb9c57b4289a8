/* store_analysis.h: the analysis cache and the loop table, in the store.
 *
 * An analysis is the result of running the pipeline (filter, NLR, attributes, similarity,
 * classes, lattice) on one run with one set of parameters. It is written in one transaction and
 * found again by (run, filter, attribute mode, K); a different code version makes it stale, and
 * it is then recomputed. Readers (the CLI, the interface) only read it. */
#ifndef DT_STORE_ANALYSIS_H
#define DT_STORE_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/nlr_entry.h"
#include "store/store.h"
#include "util/util.h"

typedef struct store_analysis {
	int64_t id, run_id;
	char *filter, *attrs, *version, *created;
	int k, ntraces, nattrs, nclasses;
} store_analysis;

void store_analysis_free(store_analysis *a);
void store_analyses_free(store_analysis *a, size_t n);

/* 1 and *a filled when an analysis with these parameters exists (whatever its version), 0 when
 * none does, -1 on error. */
int store_analysis_find(store *s, int64_t run_id, const char *filter, const char *attrs, int k,
			store_analysis *a, dt_err *e);
int store_analysis_get(store *s, int64_t id, store_analysis *a, dt_err *e);
/* Every analysis of a run (run_id < 0: of every run), newest first. */
int store_analysis_list(store *s, int64_t run_id, store_analysis **v, size_t *n, dt_err *e);

/* Starts writing an analysis, replacing any with the same parameters. Inside a transaction. */
int store_analysis_create(store *s, int64_t run_id, const char *filter, const char *attrs, int k,
			  const char *version, int64_t *id, dt_err *e);
int store_analysis_set_counts(store *s, int64_t id, int ntraces, int nattrs, int nclasses,
			      dt_err *e);
int store_analysis_put_trace(store *s, int64_t id, int obj, int64_t trace_id, uint64_t nfiltered,
			     const nlr_entry *nlr, size_t nn, const uint32_t *attrs, size_t na,
			     dt_err *e);
/* Reads object obj's results; arrays are malloc'ed (pass NULL for what you do not need). */
int store_analysis_get_trace(store *s, int64_t id, int obj, int64_t *trace_id,
			     uint64_t *nfiltered, nlr_entry **nlr, size_t *nn, uint32_t **attrs,
			     size_t *na, dt_err *e);
/* The trace id and the events kept by the filter of objects 0..n-1, in one query (without the
 * NLR and attribute blobs). */
int store_analysis_objects(store *s, int64_t id, size_t n, int64_t *trace_ids, uint64_t *nfiltered,
			   dt_err *e);
/* The attribute ids of objects 0..n-1 (ids[obj] malloc'ed, nids[obj] long), in one query. */
int store_analysis_object_attrs(store *s, int64_t id, size_t n, uint32_t **ids, size_t *nids,
				dt_err *e);
/* All of objects 0..n-1 in one query: the trace (traces[obj], as store_trace_list has it; the
 * caller frees each), the events kept and the attribute ids (as the two above). */
int store_analysis_object_rows(store *s, int64_t id, size_t n, store_trace *traces,
			       uint64_t *nfiltered, uint32_t **ids, size_t *nids, dt_err *e);
int store_analysis_put_attr(store *s, int64_t id, uint32_t attr, const char *name, dt_err *e);
/* All attribute names, names[i] for attribute i; caller frees each and the array. */
int store_analysis_attr_names(store *s, int64_t id, char ***names, size_t *n, dt_err *e);
int store_analysis_put_blob(store *s, int64_t id, const char *key, const void *p, size_t n,
			    dt_err *e);
/* 1 and a malloc'ed copy when present, 0 when absent, -1 on error. */
int store_analysis_get_blob(store *s, int64_t id, const char *key, uint8_t **p, size_t *n,
			    dt_err *e);

/* The ranking cache (store_schema.c's rank_cache): the value kept for the analyses normal and
 * faulty under opts. get: 1 and a malloc'ed copy, 0 when there is none (or the store predates
 * the table: a read-only store of an older schema), -1 on error. put replaces any. */
int store_rank_cache_get(store *s, int64_t normal, int64_t faulty, const char *opts, uint8_t **p,
			 size_t *n, dt_err *e);
int store_rank_cache_put(store *s, int64_t normal, int64_t faulty, const char *opts,
			 const void *p, size_t n, dt_err *e);

/* The store-wide loop table: bodies by id. */
int store_loop_put(store *s, uint32_t id, const nlr_entry *body, size_t n, dt_err *e);
/* Calls fn for every loop in id order; fn returns non-zero to stop with an error. */
int store_loops_each(store *s, int (*fn)(void *ctx, uint32_t id, const nlr_entry *body, size_t n),
		     void *ctx, dt_err *e);
/* Largest loop id + 1 (0 when there are none). */
int store_loops_count(store *s, uint32_t *n, dt_err *e);

/* Entry arrays as blobs: LEB128 (sym, count) pairs. */
void nlr_blob_encode(const nlr_entry *v, size_t n, dt_buf *out);
int nlr_blob_decode(const uint8_t *p, size_t len, nlr_entry **v, size_t *n);

#endif
