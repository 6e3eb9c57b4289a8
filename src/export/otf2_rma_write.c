/* otf2_rma_write.c: one-sided sync events as OTF2's RMA records (otf2_rma_write.h). */
#ifdef HAVE_OTF2

#include <stdlib.h>
#include <string.h>

#include "export/otf2_rma_write.h"
#include "import/sync_file.h"
#include "record/syncfmt.h"
#include "util/util.h"

int otf2_rma_call(const char *name)
{
	if (strncmp(name, "MPI_", 4))
		return 0;
	for (int c = DTS_MPI_Win_create; c <= DTS_MPI_Win_wait; c++)
		if (!strcmp(sync_call_name((unsigned)c), name))
			return c;
	return 0;
}

/* the OTF2 number of window obj (of communicator comm), given at its first use */
static uint32_t win_ref(otf2_rma_out *o, uint64_t obj, int32_t comm)
{
	for (size_t i = o->nwin; i-- > 0;)
		if (o->win[i] == obj)
			return (uint32_t)i;
	size_t cap = o->capwin;
	GROW(o->win, o->capwin, o->nwin + 1);
	if (cap != o->capwin)
		o->comm = xrealloc(o->comm, o->capwin * sizeof *o->comm);
	o->win[o->nwin] = obj;
	o->comm[o->nwin] = comm;
	return (uint32_t)o->nwin++;
}

static OTF2_RmaAtomicType atomic_type(int call)
{
	switch (call) {
	case DTS_MPI_Accumulate:
		return OTF2_RMA_ATOMIC_TYPE_ACCUMULATE;
	case DTS_MPI_Compare_and_swap:
		return OTF2_RMA_ATOMIC_TYPE_COMPARE_AND_SWAP;
	default: /* Get_accumulate, Fetch_and_op */
		return OTF2_RMA_ATOMIC_TYPE_FETCH_AND_ACCUMULATE;
	}
}

/* the records of an entry */
static OTF2_ErrorCode entry(otf2_rma_out *o, OTF2_EvtWriter *w, const dt_sync_event *v,
			    int call, uint64_t t, uint32_t win, uint32_t remote, uint64_t bytes)
{
	OTF2_LockType lt = v->lock == 2 ? OTF2_LOCK_SHARED : OTF2_LOCK_EXCLUSIVE;
	switch (call) {
	case DTS_MPI_Win_free:
	case DTS_MPI_Win_fence:
		return OTF2_EvtWriter_RmaCollectiveBegin(w, NULL, t);
	case DTS_MPI_Put:
		return OTF2_EvtWriter_RmaPut(w, NULL, t, win, remote, bytes, ++o->op);
	case DTS_MPI_Get:
		return OTF2_EvtWriter_RmaGet(w, NULL, t, win, remote, bytes, ++o->op);
	case DTS_MPI_Accumulate:
		return OTF2_EvtWriter_RmaAtomic(w, NULL, t, win, remote, atomic_type(call), bytes, 0,
						++o->op);
	case DTS_MPI_Get_accumulate:
	case DTS_MPI_Fetch_and_op:
	case DTS_MPI_Compare_and_swap:
		return OTF2_EvtWriter_RmaAtomic(w, NULL, t, win, remote, atomic_type(call), bytes,
						bytes, ++o->op);
	case DTS_MPI_Win_lock:
		return OTF2_EvtWriter_RmaRequestLock(w, NULL, t, win, remote, ++o->lock, lt);
	case DTS_MPI_Win_lock_all:
		return OTF2_EvtWriter_RmaRequestLock(w, NULL, t, win, OTF2_UNDEFINED_UINT32,
						     ++o->lock, OTF2_LOCK_SHARED);
	default:
		return OTF2_SUCCESS;
	}
}

/* the records of an exit */
static OTF2_ErrorCode exit_records(otf2_rma_out *o, OTF2_EvtWriter *w, const dt_sync_event *v,
				   int call, uint64_t t, uint32_t win, uint32_t remote)
{
	OTF2_LockType lt = v->lock == 2 ? OTF2_LOCK_SHARED : OTF2_LOCK_EXCLUSIVE;
	OTF2_RmaSyncLevel both = OTF2_RMA_SYNC_LEVEL_PROCESS | OTF2_RMA_SYNC_LEVEL_MEMORY;
	OTF2_ErrorCode rc;
	switch (call) {
	case DTS_MPI_Win_create:
	case DTS_MPI_Win_allocate:
		if ((rc = OTF2_EvtWriter_RmaWinCreate(w, NULL, t, win)) != OTF2_SUCCESS)
			return rc;
		return OTF2_EvtWriter_RmaCollectiveEnd(
			w, NULL, t,
			call == DTS_MPI_Win_create ? OTF2_COLLECTIVE_OP_CREATE_HANDLE
						   : OTF2_COLLECTIVE_OP_CREATE_HANDLE_AND_ALLOCATE,
			OTF2_RMA_SYNC_LEVEL_NONE, win, OTF2_UNDEFINED_UINT32, 0, 0);
	case DTS_MPI_Win_free:
		if ((rc = OTF2_EvtWriter_RmaWinDestroy(w, NULL, t, win)) != OTF2_SUCCESS)
			return rc;
		return OTF2_EvtWriter_RmaCollectiveEnd(w, NULL, t, OTF2_COLLECTIVE_OP_DESTROY_HANDLE,
						       OTF2_RMA_SYNC_LEVEL_NONE, win,
						       OTF2_UNDEFINED_UINT32, 0, 0);
	case DTS_MPI_Win_fence:
		return OTF2_EvtWriter_RmaCollectiveEnd(w, NULL, t, OTF2_COLLECTIVE_OP_BARRIER, both,
						       win, OTF2_UNDEFINED_UINT32, 0, 0);
	case DTS_MPI_Put:
	case DTS_MPI_Get:
	case DTS_MPI_Accumulate:
	case DTS_MPI_Get_accumulate:
	case DTS_MPI_Fetch_and_op:
	case DTS_MPI_Compare_and_swap:
		/* the call returns before the transfer completes: at the next epoch's end */
		return OTF2_EvtWriter_RmaOpCompleteNonBlocking(w, NULL, t, win, o->op);
	case DTS_MPI_Win_lock:
		return OTF2_EvtWriter_RmaAcquireLock(w, NULL, t, win, remote, o->lock, lt);
	case DTS_MPI_Win_lock_all:
		return OTF2_EvtWriter_RmaAcquireLock(w, NULL, t, win, OTF2_UNDEFINED_UINT32,
						     o->lock, OTF2_LOCK_SHARED);
	case DTS_MPI_Win_unlock:
		return OTF2_EvtWriter_RmaReleaseLock(w, NULL, t, win, remote, o->lock);
	case DTS_MPI_Win_unlock_all:
		return OTF2_EvtWriter_RmaReleaseLock(w, NULL, t, win, OTF2_UNDEFINED_UINT32,
						     o->lock);
	case DTS_MPI_Win_flush:
		return OTF2_EvtWriter_RmaSync(w, NULL, t, win, remote, OTF2_RMA_SYNC_TYPE_MEMORY);
	case DTS_MPI_Win_post:
	case DTS_MPI_Win_start:
		/* the group of the epoch is not recorded */
		return OTF2_EvtWriter_RmaGroupSync(w, NULL, t, OTF2_RMA_SYNC_LEVEL_PROCESS, win,
						   OTF2_UNDEFINED_GROUP);
	case DTS_MPI_Win_complete:
	case DTS_MPI_Win_wait:
		return OTF2_EvtWriter_RmaGroupSync(w, NULL, t, both, win, OTF2_UNDEFINED_GROUP);
	default:
		return OTF2_SUCCESS;
	}
}

OTF2_ErrorCode otf2_rma_records(otf2_rma_out *o, OTF2_EvtWriter *w, const dt_sync_event *v,
				int call, uint64_t t, uint32_t remote, uint64_t bytes)
{
	int create = call == DTS_MPI_Win_create || call == DTS_MPI_Win_allocate;
	if (v->phase == DT_SYNC_ENTER && create)
		return OTF2_EvtWriter_RmaCollectiveBegin(w, NULL, t);
	if (!v->obj || v->phase == DT_SYNC_DONE)
		return OTF2_SUCCESS; /* a window the recorder did not know */
	uint32_t win = win_ref(o, v->obj, v->comm);
	if (v->phase == DT_SYNC_ENTER)
		return entry(o, w, v, call, t, win, remote, bytes);
	return exit_records(o, w, v, call, t, win, remote);
}

void otf2_rma_free(otf2_rma_out *o)
{
	free(o->win);
	free(o->comm);
	memset(o, 0, sizeof *o);
}

#else
typedef int otf2_rma_write_none; /* not an empty file: built without OTF2 */
#endif
