/* analysis.h: the pipeline from a run's traces to its cached analysis, and reading it back.
 *
 * analysis_run filters every trace of a run, compresses it with NLR, extracts its attributes,
 * and computes the Jaccard matrix, the equivalence classes (identical attribute sets, and
 * hierarchical clusters cut at k) and the concept lattice; it writes everything to the store in
 * one transaction. Traces are read and compressed on several threads (each with its own store
 * connection and its own loop table); the loop tables are merged in trace order, so loop ids do
 * not depend on the number of threads. An analysis with the same parameters and code version is
 * reused unless forced. analysis_load reads a cached analysis for the commands and the
 * interface, which never recompute; both find, compute and load the analysis of a run under a
 * setting through an_lookup.h. */
#ifndef DT_ANALYSIS_H
#define DT_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/attrs.h"
#include "analysis/cluster.h"
#include "analysis/fca.h"
#include "analysis/rank.h"
#include "par/par.h"
#include "store/store.h"
#include "store/store_analysis.h"

/* Bumped whenever a change in the pipeline changes its results: cached analyses of another
 * version are recomputed. */
#define ANALYSIS_VERSION "difftrace-analysis-6"

/* The defaults of every command and of the interface: the MPI and OpenMP calls, each MPI call
 * with its identifying arguments (`.args`), frequencies by order of magnitude, loop bodies of up
 * to 10 events. A store with no MPI or OpenMP function at all (a plain program's text traces)
 * gets AN_FALLBACK_FILTER instead of AN_DEFAULT_FILTER: see analysis_default_filter. ACCURACY.md
 * measures why these are the defaults. */
#define AN_DEFAULT_FILTER "ompall,mpi"
#define AN_FALLBACK_FILTER "everything"
#define AN_DEFAULT_ATTRS "sing.log10.args"
#define AN_DEFAULT_K 10

/* Concepts beyond which the lattice is not built (the analysis still succeeds). */
#define ANALYSIS_MAX_CONCEPTS 20000

typedef struct an_params {
	const char *filter;              /* a filter: family names, 16-char string or alias; NULL:
					    analysis_default_filter */
	const char *const *filter_files; /* extra family files (--filter-file) */
	size_t nfilter_files;
	attrs_mode mode;
	int args;                        /* the mode's `.args`: NAME[args] for MPI calls (attrs.h) */
	unsigned k;                      /* NLR K */
	enum clu_linkage linkage;        /* for the hierarchical classes */
	size_t kcut;                     /* clusters; 0: chosen at the largest gap */
	int threads;                     /* 0: one per core */
	int force;                       /* recompute even when cached */
	dt_par *job;                     /* an MPI job (par.h): process 0 splits the per-trace work
					    over its processes (an_split.h); NULL: this process alone */
	int uncollapsed;                 /* tests only: one matrix row per trace instead of one per
					    class of identical attribute sets (the same results) */
	void (*progress)(void *arg, uint64_t done, uint64_t total);
	void *progress_arg;
} an_params;

/* The filter used when none is given: AN_DEFAULT_FILTER when it keeps at least one function
 * of the store, else AN_FALLBACK_FILTER (every call), so that a program without MPI or OpenMP
 * is not analysed into empty traces. The choice is store-wide, so two runs of one store are
 * always compared under the same filter. A static string, or NULL on error. */
const char *analysis_default_filter(store *s, dt_err *e);

/* Computes (or finds) the analysis of run; *id gets its id, *reused whether it was cached. */
int analysis_run(store *s, const store_run *run, const an_params *p, int64_t *id, int *reused,
		 dt_err *e);

/* Whether run has a cached analysis under p of this code version: 1 and *id when it has, 0 when
 * it would have to be computed, -1 on error (a bad filter, ...). Never computes. */
int analysis_lookup(store *s, const store_run *run, const an_params *p, int64_t *id, dt_err *e);

/* A cached analysis, as the commands and the interface read it. */
typedef struct an_result {
	store_analysis meta;
	attrs_mode mode;
	int args;                /* the mode has `.args` */
	size_t n;                /* objects (traces), in P.T order */
	store_trace *traces;     /* traces[i] is object i */
	uint64_t *nfiltered;     /* events left after the filter, per object */
	/* The matrix, the clustering and the lattice are over rows, not objects: one row per
	 * class of identical attribute sets (all its objects are alike in every one of them), so
	 * that nothing is n x n. An analysis cached before the classes were collapsed has one row
	 * per object and reads back the same way. */
	size_t nrows;
	uint32_t *row;           /* row per object (nondecreasing first objects: row r's first
				    object comes before row r + 1's) */
	uint32_t *rowmult;       /* objects per row */
	float *jsm;              /* nrows x nrows Jaccard similarity: analysis_sim for objects */
	uint32_t *identical;     /* class per object: identical attribute sets */
	size_t nidentical;
	clu_merge *merges;       /* nrows - 1 merges of the clustering of the rows (cluster.h) */
	char linkage[16];
	size_t kcut;
	uint32_t *cluster;       /* cluster per object at kcut */
	char **attr_names;       /* nattrs names */
	uint32_t **oattrs;       /* the attribute ids of each object, ascending */
	size_t *noattrs;
	size_t nattrs;
	char *filter_alias;      /* the paper's folder-style name, e.g. 11.mpi.0K10 */
	/* When not NULL, the traces' strings and oattrs[i] are carved from it (objects.h) and
	 * freed with it, not one by one (equal strings of successive traces may be one): never
	 * free, change or keep them past analysis_result_free. */
	void *arena;
} an_result;

int analysis_load(store *s, int64_t id, an_result *r, dt_err *e);
/* r (loaded whole) clustered again under linkage l and cut at kcut (0: the automatic cut)
 * from its cached similarity, when they are not those it was cached with. */
int analysis_relink(an_result *r, enum clu_linkage l, size_t kcut, dt_err *e);
/* Only what names the analysis: meta, mode, args and filter_alias (n is 0, nothing per trace),
 * for what reads its results from elsewhere (the ranking cache, rankcache.h). Freed by
 * analysis_result_free. */
int analysis_load_head(store *s, int64_t id, an_result *r, dt_err *e);
/* The head and the objects: traces, nfiltered, oattrs (n set); no classes, matrix, clustering
 * or attribute names (NULL, nrows 0): for what needs only the traces (the diff view), without
 * reading an n x n matrix when every trace is its own class. */
int analysis_load_objects(store *s, int64_t id, an_result *r, dt_err *e);
void analysis_result_free(an_result *r);
/* The cached concept lattice of analysis id: 1 when loaded, 0 when the analysis has none (*why
 * gets the reason, malloc'ed), -1 on error. */
int analysis_lattice(store *s, int64_t id, fca_lattice *L, char **why, dt_err *e);
/* Compares a faulty run's analysis with a normal run's: JSM_D over the traces both have
 * (matched by P.T), with on its diagonal (0 in the paper's definition) each trace's change
 * against its own counterpart, 1 - J(normal i, faulty i) on the attributes' names, so that
 * traces that changed the same way in every process still rank above those that did not, plus
 * its novelty, the share of its attributes whose name (frequency aside) no trace of the normal
 * run has: behaviour never seen before (a call with a new argument, a loop with a new body)
 * weighs more than behaviour that only stopped early, as every trace of a hung run does. The
 * diagonal is thus in [0, 2]; and
 * the B-score, the mean over k = 2..n-1 of B_k between the two runs'
 * clusterings under linkage l (NAN with fewer than 3 matched traces). When every trace matches
 * and l is the cached linkage, the cached dendrograms are used rather than recomputed. When a
 * trace of the faulty run is flagged timed-out, j->running says which traces were still
 * running when it was stopped (rank_running on the traces' event times). */
int analysis_compare(const an_result *rn, const an_result *rf, enum clu_linkage l, rank_jsmd *j,
		     double *bscore, dt_err *e);
/* The (P, T) of each object, and the nrows x nrows JSM as doubles, as the rank module takes them
 * (malloc'ed). */
rank_key *analysis_keys(const an_result *r);
double *analysis_jsm(const an_result *r);
/* The similarity of objects i and j. */
static inline float analysis_sim(const an_result *r, size_t i, size_t j)
{
	return r->jsm[(size_t)r->row[i] * r->nrows + r->row[j]];
}
/* The object index of trace P.T, or -1. */
int analysis_object(const an_result *r, int p, int t);

#endif
