/* an_pool.h: the per-trace work of an analysis (filter, NLR, the NAME[args] of args mode) on
 * worker threads; shared by analysis.c and its split over an MPI job (an_split.c). */
#ifndef DT_AN_POOL_H
#define DT_AN_POOL_H

#include <pthread.h>

#include "analysis/analysis.h"
#include "analysis/filter.h"
#include "analysis/nlr.h"
#include "analysis/peers.h"

struct an_job {
	const store_trace *t;
	struct an_sname {
		char *name;
		uint32_t base; /* the function NAME */
	} *snames;         /* args mode, first pass: this trace's distinct NAME[args], in order */
	size_t nsnames, capsnames;
	nlr_table *loops;  /* this trace's own table, merged into the store's in trace order */
	nlr_entry *ent;
	size_t nent;
	uint64_t nfiltered;
	dt_err err;
	int failed;
	int stopped;       /* failed only because another job failed */
};

struct an_pool {
	const char *path;
	const filt_table *keep;
	nlr_opts nopts;
	struct an_job *jobs;
	size_t njobs, next;
	uint64_t done_events, total_events;
	pthread_mutex_t mu;
	pthread_cond_t done;   /* signalled by each worker as it ends */
	int ended;             /* workers that ended */
	int stop;
	const an_params *p;
	/* args mode (attrs `.args`): cand[fid] for the MPI functions whose calls may carry argument
	 * text (fid < ncand), their names, and NAME[args] -> function id for the second pass */
	int collect;       /* 1: the first pass, which only gathers the NAME[args] of each trace */
	const uint8_t *cand;
	size_t ncand;
	const char *const *names;
	const strmap *smap;
	const peers *peers; /* the second pass: peers relative or absolute (peers.h) */
	/* the jobs this process runs: first, first + step, ... (0 and 1, or 0: all of them); the
	 * others are another process's share of an MPI job (an_split.h) */
	size_t first, step;
};

/* Runs the pool's jobs (this process's share) on worker threads, reporting progress from this
 * one; the first failed job's error (in trace order) into e. */
int an_pool_run(struct an_pool *pool, const an_params *p, dt_err *e);
/* The first failed job's error, in trace order, into e (one that failed of itself before one
 * stopped by it): -1; 0 when none failed. */
int an_pool_error(const struct an_pool *pool, dt_err *e);
/* Args mode: the peers decision (peers.h) over the NAME[args] the first pass found, per trace
 * of traces[0..n). */
peers *an_peers(const struct an_job *jobs, const store_trace *traces, size_t n);

#endif
