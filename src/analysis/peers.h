/* peers.h: MPI peer ranks that compare across ranks (METHOD.md §4, `.args`).
 *
 * With `.args` an MPI call becomes NAME[args], e.g. MPI_Isend[count=1,datatype=DOUBLE,dest=3,
 * tag=7,comm=WORLD]. An absolute peer makes every rank of a ring or a pairwise exchange a class
 * of its own; relative to the caller (dest=rank+1, source=rank-1, the nearest way round the ranks;
 * never a bare -1, which is MPI_ANY_SOURCE in Open MPI and MPI_PROC_NULL in MPICH) a
 * regular pattern is one call. A root, a master or MPI_ANY_SOURCE is the other way round. So,
 * per kind of call (the function with its other arguments), a run writes its peers relative
 * unless that gives more distinct peers over the run than the absolute ranks (a master, a
 * root). The importer has written MPI_ANY_SOURCE and MPI_PROC_NULL as ANY and PROC_NULL
 * (import/mpi_family.h): words, and negative numbers (the constants of an MPI it could not
 * tell), are no peers and stay as they are. On a tie, relative: a run cut short that kept
 * one rank of a ring or an exchange still names its peers as a whole run does. Nothing here
 * reads the store. */
#ifndef DT_PEERS_H
#define DT_PEERS_H

#include <stddef.h>

#include "util/util.h"

typedef struct peers peers;

peers *peers_new(int nprocs);
void peers_free(peers *p);
/* Counts the peers of one distinct NAME[args] of a trace of process proc. */
void peers_see(peers *p, const char *name, int proc);
/* Decides, once every name was seen. */
void peers_decide(peers *p);
/* Writes name as it compares across ranks into out (NUL-terminated, out->len without it). */
void peers_rewrite(const peers *p, const char *name, int proc, dt_buf *out);

#endif
