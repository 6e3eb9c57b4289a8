/* an_split.h: `difftrace analyze` over the processes of an MPI job (par.h).
 *
 * The per-trace work of an analysis (the first pass of args mode, which gathers each trace's
 * NAME[args]; then filter and NLR) is split over the job: trace i of a run is process
 * i mod P's, as the import deals its units. For each pass process 0 sends every process the
 * same message: the run, K, the filter's table and, for the second pass of args mode, the
 * first pass's names of every trace and the ids they were given (each process decides the
 * peers from them as process 0 does, peers.h). Each process reads its share of the traces
 * from the store, read-only, and answers with its share's results: per trace the NAME[args]
 * it found, or its events kept by the filter, its own loop table and its NLR entries, or the
 * error that stopped it. Process 0 runs its own share meanwhile, puts the others' results in
 * their places and goes on as a serial analysis does (loop tables merged in trace order, the
 * attributes, the matrix, the clustering, the lattice, the one transaction that writes them),
 * so the analysis is the one a serial run computes. The bytes are the host's own layout: the
 * processes of one job run the same build. Process 0 ends every command with an end message
 * carrying its exit status; the others exit with it. */
#ifndef DT_AN_SPLIT_H
#define DT_AN_SPLIT_H

#include "analysis/an_pool.h"
#include "par/par.h"

/* Process 0: one pass over the run's traces on every process of the job (pool->collect says
 * which), this process's share on pool's threads, the others' received into pool->jobs. args:
 * for the second pass of args mode, an_split_snames then an_split_smap (NULL otherwise). The
 * first failed trace's error (in trace order) into e. */
int an_split_pass(dt_par *job, struct an_pool *pool, const an_params *p, int64_t run_id,
		  const dt_buf *args, dt_err *e);
/* Appends the first pass's NAME[args] of each of jobs[0..n), as found (before the peers'
 * rewrite). */
void an_split_snames(dt_buf *b, const struct an_job *jobs, size_t n);
/* Appends the rewritten NAME[args] of jobs[0..n) with their function ids in smap. */
void an_split_smap(dt_buf *b, const struct an_job *jobs, size_t n, const strmap *smap);
/* Process 0, at the end of the command: the other processes' serve ends with status. */
int an_split_end(dt_par *job, int status, dt_err *e);

/* The other processes: answers process 0's passes from the store s (opened read-only; NULL
 * when it could not be opened, open_err saying why) until the end message; returns the status
 * it carries. */
int an_split_serve(dt_par *job, store *s, const dt_err *open_err);

#endif
