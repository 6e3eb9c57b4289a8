/* sync_event.h: the sync events of a run, as the importer produces them, the store keeps them
 * and the order stage (causality filter, hang report) reads them.
 *
 * A sync event is the entry or the exit of one MPI or OpenMP synchronisation call in one thread.
 * The preloaded recorder writes the entry before the call can block and the exit after it
 * returned, so a thread stopped inside a call has an entry without an exit. Everything here is
 * in the terms of the run, not of one process: communicators and peers are the same numbers in
 * every process, so events of different processes can be matched by comparing fields.
 *
 * This is the contract between src/record + src/import (which fill it) and src/order (which
 * reads it); change it in one commit with both sides. */
#ifndef DT_SYNC_EVENT_H
#define DT_SYNC_EVENT_H

#include <stdint.h>

enum dt_sync_phase {
	DT_SYNC_ENTER = 0, /* the call began (written before it can block) */
	DT_SYNC_EXIT = 1,  /* the call returned */
	/* One completed request of a call that completes several (Waitall, Waitsome, Testall ...):
	 * written after that call's DT_SYNC_EXIT, one per completed request, in program order. */
	DT_SYNC_DONE = 2,
};

#define DT_SYNC_NONE (-1)       /* a field the call does not have */
#define DT_SYNC_ANY_SOURCE (-2) /* MPI_ANY_SOURCE (an entry's src; the exit has the actual one) */
#define DT_SYNC_ANY_TAG (-2)    /* MPI_ANY_TAG, likewise */
#define DT_SYNC_PROC_NULL (-3)  /* MPI_PROC_NULL */

typedef struct dt_sync_event {
	int32_t proc, thread; /* the trace, P.T */
	uint32_t seq;         /* position among the sync events of its thread (program order) */
	uint8_t phase;        /* enum dt_sync_phase */
	uint32_t func;        /* the call, as a function id of the store (MPI_Isend, GOMP_critical_start) */
	int64_t ts;           /* ns on its host's CLOCK_MONOTONIC, as recorded */
	int32_t host;         /* its host, an index into the run's hosts */
	/* MPI. Ranks are MPI_COMM_WORLD ranks, whatever the communicator of the call. */
	int32_t comm;         /* the communicator, run-wide: 0 WORLD, 1 SELF, then one number per
			       * communicator made (split, dup, create), the same in all its members */
	int32_t dest, stag;   /* a send's destination and tag (Sendrecv: its send half) */
	int32_t src, rtag;    /* a receive's source and tag; on DT_SYNC_EXIT/DONE the actual ones */
	int32_t root;         /* a rooted collective's root */
	int64_t count;        /* elements, as passed */
	int32_t datatype, op; /* small codes of the recorder's tables; DT_SYNC_NONE when absent */
	uint64_t req;         /* the request an Isend/Irecv made (on its exit) or a Wait/Test or a
			       * DONE completed; 0 when none. Unique within a process for its lifetime */
	/* OpenMP. */
	uint64_t obj;         /* the lock, the critical section's name, or the parallel region
			       * (a per-process identity; 0 when none) */
	uint64_t objseq;      /* the acquisition's number for obj (1, 2, ...: the exit of an acquire
			       * and the entry of its release carry the same number); for a parallel
			       * region, the region's instance number in its process */
	int32_t team, tnum;   /* a region's team size and the thread's number in it */
	int32_t csize;        /* a collective's communicator size; 0 when not known (the ordering
			       * rules of collectives need it: every member's entry before an exit) */
	uint32_t site;        /* where the program made the call: a site of the run (the store's
			       * sync_sites, dt_sink.site), 0 when not known */
	/* One-sided calls (MPI_Put, MPI_Win_fence ...): obj is the window, run-wide (0 none),
	 * comm and csize its communicator's, dest the target's or the locked rank. */
	int64_t disp;         /* the target displacement of a transfer (Put, Get ...); else 0 */
	int32_t rassert;      /* the assert of a fence, lock, post or start; else 0 */
	int32_t lock;         /* MPI_Win_lock: 1 exclusive, 2 shared; 0 none */
	uint64_t digest;      /* the digest of the bytes sent or put (difftrace-record --payload;
			       * difftrace-sync(5)); 0 none */
} dt_sync_event;

#endif
