/* evsites.h: where the program made the calls of a trace, from its run's sync record (the call
 * sites import resolved from the record's return addresses, store_sync.h).
 *
 * Of a run recorded by the sync recorder alone (format "sync"), the trace's events are the
 * record's entries and exits (its DONE records left out), each with its own site. Of a uftrace
 * run with a sync record, a call of the trace is matched to the record's entries of the same
 * thread and function in order: the k-th call of MPI_Send is the k-th entry of MPI_Send (a
 * function is matched when the trace has no more of its calls than the record, unless the
 * tracer lost records). Other formats have no sites.
 *
 * `show` names the site of each event; the views and the ranking's reasons name that of an
 * event an analysis kept (evsites_kept maps it back through the analysis's filter). */
#ifndef DT_EVSITES_H
#define DT_EVSITES_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/analysis.h"
#include "store/store.h"

/* The events of trace trc (of run_id, recorded in format) that have a site: event idx[k]
 * (ascending) has site id sid[k] of the run's sites (store_sync_sites). Both malloc'ed, NULL
 * (and *n 0) when none. */
int evsites_raw(store *s, int64_t run_id, const char *format, const store_trace *trc,
		uint64_t **idx, uint32_t **sid, size_t *n, dt_err *e);

/* The site id of each event analysis r kept of its trace obj (0: none), into *site
 * (r->nfiltered[obj] entries, malloc'ed; NULL when the trace has no site at all); with only
 * (nonly positions of kept events, ascending), of those alone (nonly entries; any number of
 * kept events is followed). 1 when read; 0 with *why set when the kept events cannot be
 * mapped (the filter keeps others now, too many events); -1 on error. format is the run's. */
int evsites_kept(store *s, const an_result *r, const char *format, int obj,
		 const uint64_t *only, size_t nonly, uint32_t **site, char *why, size_t nwhy,
		 dt_err *e);

/* The same of trace t of run run_id under filter (an analysis's canonical form, named alias),
 * which keeps want events of it: for an analysis known only by its head (analysis.h). */
int evsites_kept_trace(store *s, const char *filter, const char *alias, int64_t run_id,
		       const char *format, const store_trace *t, uint64_t want, const uint64_t *only,
		       size_t nonly, uint32_t **site, char *why, size_t nwhy, dt_err *e);

/* The same for a run named run, whose format is read from the store. */
int evsites_kept_run(store *s, const an_result *r, const char *run, int obj,
		     const uint64_t *only, size_t nonly, uint32_t **site, char *why, size_t nwhy,
		     dt_err *e);

#endif
