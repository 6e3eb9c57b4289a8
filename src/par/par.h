/* par.h: the processes of a parallel difftrace job (difftrace import and analyze under mpirun
 * or srun).
 *
 * difftrace itself has no MPI in it: under a launcher with more than one process, `difftrace
 * import` and `difftrace analyze` run difftrace-mpi (src/par/par_mpi.c), which is the same
 * program with this transport set. Process 0 writes the store. In an import the others decode
 * their share of the traces and send it to process 0, one message per unit of work, then one
 * last message (empty when they succeeded, an error otherwise). In an analysis process 0 sends
 * every process the same message for each pass over a run's traces, and each answers with its
 * share's results (analysis/an_split.h). */
#ifndef DT_PAR_H
#define DT_PAR_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

typedef struct dt_par {
	int rank, size;
	/* an import's units go to every process (0), or to all but process 0 (1: a job of
	 * threads, whose thread 0 only writes the store): see par_unit_owner */
	int root_writes_only;
	/* process 0: the next message of process `from` (*buf malloc'd, may be NULL when n is 0) */
	int (*recv)(struct dt_par *p, int from, uint8_t **buf, size_t *n, dt_err *e);
	/* the others: a message to process 0 */
	int (*send)(struct dt_par *p, const uint8_t *buf, size_t n, dt_err *e);
	/* the same, taking buf (malloc'd) over, or NULL when the transport has no use for it
	 * (a job of threads hands the buffer on where send copies it) */
	int (*give)(struct dt_par *p, uint8_t *buf, size_t n, dt_err *e);
	/* every process: process 0's *buf and *n to all; the others get them (*buf malloc'd) */
	int (*bcast)(struct dt_par *p, uint8_t **buf, size_t *n, dt_err *e);
	/* ends every process of the job with this status (process 0, after a failure) */
	void (*abort)(struct dt_par *p, int status);
} dt_par;

/* The process that decodes an import's unit u: dealt round robin. */
static inline int par_unit_owner(const dt_par *p, uint64_t u)
{
	if (p->root_writes_only && p->size > 1)
		return 1 + (int)(u % (uint64_t)(p->size - 1));
	return (int)(u % (uint64_t)p->size);
}

#endif
