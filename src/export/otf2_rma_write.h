/* otf2_rma_write.h: the one-sided sync events of a run (MPI_Put, MPI_Win_fence ...) as OTF2's
 * RMA records, for the other readers of an exported archive (Vampir, otf2-print); difftrace's
 * own import reads the events' attributes (otf2_write.c). Each window of the run is an RmaWin
 * definition, numbered at its first use. Only with OTF2. */
#ifndef DT_OTF2_RMA_WRITE_H
#define DT_OTF2_RMA_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include <otf2/otf2.h>

#include "import/sync_event.h"

typedef struct otf2_rma_out {
	uint64_t *win;    /* the windows by their OTF2 number: their run-wide numbers */
	int32_t *comm;    /* ... and their communicators (run-wide) */
	size_t nwin, capwin;
	uint64_t op;      /* the matching id of the location's last transfer */
	uint64_t lock;    /* ... and of its last lock */
} otf2_rma_out;

/* The one-sided call (dts_call) function `name` is, 0 when it is none. */
int otf2_rma_call(const char *name);
/* Writes the RMA records of sync event v of one-sided call `call` at time t: those of its
 * entry after its Enter, those of its exit before its Leave. remote is the target (or the
 * locked rank) in the window's communicator, OTF2_UNDEFINED_UINT32 when none; bytes the
 * transfer's length. */
OTF2_ErrorCode otf2_rma_records(otf2_rma_out *o, OTF2_EvtWriter *w, const dt_sync_event *v,
				int call, uint64_t t, uint32_t remote, uint64_t bytes);
void otf2_rma_free(otf2_rma_out *o);

#endif
