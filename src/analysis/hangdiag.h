/* hangdiag.h: the hang report of a stopped run, made once for every front-end (`difftrace
 * hang` in text and JSON, the interface's hang view), which only format it:
 *   - the report, streamed from the store (order/hangscan.h): where each thread is at the end,
 *     the wait-for graph, its cycles, the mismatches, the locks held;
 *   - the calls that can never complete: the open calls' completions put through the
 *     causality filter after the run's events (order/never.h);
 *   - with a normal run, the comparison of the two sync records (hangrank.h), and the
 *     arguments every thread changed alike (a changed input);
 *   - the most likely cause (hangcause.h), weighing that comparison when there is one.
 * The same run and the same normal run give the same report, whichever front-end asks. */
#ifndef DT_HANGDIAG_H
#define DT_HANGDIAG_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/hangcause.h"
#include "analysis/hangrank.h"
#include "import/sync_event.h"
#include "order/filter.h"
#include "order/hang.h"
#include "store/store.h"
#include "store/store_sync.h"
#include "util/err.h"

typedef struct hang_diag_opts {
	const char *normal;     /* the name of a normal run of the same program, or NULL */
	const char *rules_file; /* the ordering rules (difftrace-rules(5)); NULL: the shipped ones */
	size_t max_held;        /* the causality filter's bound on held events (0: its default) */
	int whole;              /* read the whole record (and the normal run's) at once, memory for
				 * every event: the same report, to check the streamed one */
	/* When not NULL, called before each step with what it does ("putting the open calls'
	 * completions through the causality filter"); nonzero stops the work there. */
	int (*step)(void *ctx, const char *what);
	void *ctx;
} hang_diag_opts;

typedef struct hang_diag {
	size_t n;               /* the run's sync events; 0: none, and no report */
	dt_sync_event *ev;      /* the events the report's indices refer to */
	size_t nev;
	hang_report rep;
	ord_held *held;         /* the calls that can never complete, in P.T order */
	size_t nheld;
	size_t *thread_of;      /* held[i].id (a pending completion): its thread in rep */
	char *stopped;          /* why the causality filter stopped, or NULL */
	store_sites sites;      /* where the program made the calls */
	hr_info hr;             /* the comparison with the normal run (hr.n 0: none) */
	hang_coll_odd odd;      /* the first collective whose members disagree (streamed) */
	hang_cause cause;       /* the most likely cause */
	char cause_text[1024];  /* it for people, after "most likely cause: " (escaped) */
	char args_text[1024];   /* the arguments every thread changed alike against the normal
				 * run ("count 64 -> 200000 in MPI_Send"), "" when none */
} hang_diag;

/* The report of run (an id of s) into *out (zeroed first; free it with hang_diag_free
 * whatever the result). 0 when made (out->n 0: the run has no sync events, nothing else
 * is set), 1 when o->step stopped it, -1 on an error (e: a normal run not in the store, a
 * bad rules file, a store that cannot be read). */
int hang_diagnose(store *s, int64_t run, const hang_diag_opts *o, hang_diag *out, dt_err *e);
void hang_diag_free(hang_diag *d);

#endif
