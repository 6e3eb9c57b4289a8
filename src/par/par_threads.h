/* par_threads.h: a parallel job of threads inside this one process (difftrace import --jobs).
 *
 * The transport of par.h over in-memory queues, so that the import an MPI job shares over its
 * processes (cli_par.h) is shared the same way over the cores of one machine: the caller is
 * process 0 of the job, and threads 1..size-1 each run fn with their own dt_par. The caller
 * only writes the store (root_writes_only): writing is the import's serial part, and a thread
 * that also decoded its share would hold the others back. A worker's
 * queue holds at most PAR_THREADS_DEPTH messages (send waits while it is full), so the memory
 * in flight is bounded by that many parts (wire.h) a worker. */
#ifndef DT_PAR_THREADS_H
#define DT_PAR_THREADS_H

#include "par/par.h"

#define PAR_THREADS_DEPTH 4

typedef struct par_threads par_threads;

/* Starts a job of size members (2 or more): size-1 threads running fn(their dt_par, arg).
 * NULL with e set when a thread cannot be made (the ones made are stopped). */
par_threads *par_threads_start(int size, int (*fn)(dt_par *p, void *arg), void *arg, dt_err *e);
/* The caller's side (rank 0): recv from the others, abort. */
dt_par *par_threads_root(par_threads *t);
/* Ends the job: sends that wait or come later fail, every thread is joined, the messages not
 * received are dropped. Returns how many workers' fn returned other than 0. */
int par_threads_end(par_threads *t);

/* The number of cores this process may run on (its CPU affinity), at least 1. */
int par_threads_cores(void);

#endif
