/* otf2_rma.c: OTF2's RMA records (Score-P's one-sided MPI calls) as the fields of the
 * one-sided sync events of the regions they are in (MPI_Put, MPI_Win_fence ...), as
 * difftrace-otf2(5) says. Included by import_otf2.c after its MPI records (one translation
 * unit: the records fill the frames of the location being read).
 *
 * A window's run-wide number is its definition's + 1; comm and csize are its communicator's;
 * dest is the target (or the locked rank) as a world rank; a transfer's count is its bytes
 * (the datatype is not in the archive). OTF2 has no field for the displacement or an assert:
 * they are 0 unless the archive is difftrace's own (its attributes give them back). */

static int is_rma_call(int c)
{
	return c >= DTS_MPI_Win_create && c <= DTS_MPI_Win_wait;
}

/* The innermost frame of a one-sided call, with the fields of window w; NULL when the record
 * is outside one (counted) or names a window the definitions lack (x->failed). */
static struct frame *rma_frame(otf2_loc *x, OTF2_RmaWinRef w, OTF2_CommRef *cp)
{
	otf2_in *in = x->in;
	if (w >= in->nwin || !in->win[w].defined) {
		ev_fail(x, "an RMA window %" PRIu32 " that the definitions do not have (a damaged "
			   "archive?)", w);
		return NULL;
	}
	OTF2_CommRef c = in->win[w].comm;
	if (bad_comm(x, c))
		return NULL;
	struct frame *f = top_sync(x);
	if (!f || in->reg[f->region].kind != OTK_MPI || !is_rma_call(f->sync)) {
		x->outside++;
		return NULL;
	}
	dt_sync_event *v[2] = { &f->in, &f->out };
	for (int k = 0; k < 2; k++) {
		/* a window is made by the call: its entry has none yet */
		if (k || (f->sync != DTS_MPI_Win_create && f->sync != DTS_MPI_Win_allocate))
			v[k]->obj = (uint64_t)w + 1;
		v[k]->comm = comm_of(x, c);
		v[k]->csize = comm_size(x, c);
	}
	*cp = c;
	return f;
}

/* A record of window w (and target `remote` of its communicator, OTF2_UNDEFINED_UINT32 none;
 * bytes, -1 none; lock, 0 none) at time ns. */
static OTF2_CallbackCode rma_record(otf2_loc *x, OTF2_AttributeList *al, uint64_t ns,
				    OTF2_RmaWinRef w, uint32_t remote, int64_t bytes, int lock)
{
	if (x->in->explicit_sync)
		return CB_RC(explicit_record(x, al, ns));
	OTF2_CommRef c = OTF2_UNDEFINED_COMM;
	struct frame *f = rma_frame(x, w, &c);
	if (!f)
		return x->failed ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
	dt_sync_event *v[2] = { &f->in, &f->out };
	for (int k = 0; k < 2; k++) {
		if (remote != OTF2_UNDEFINED_UINT32)
			v[k]->dest = world_rank(x, c, remote);
		if (bytes >= 0)
			v[k]->count = bytes;
		if (lock)
			v[k]->lock = lock;
	}
	return OTF2_CALLBACK_SUCCESS;
}

#define RMA_CB(name, ...)                                                                   \
	static OTF2_CallbackCode name(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t p,    \
				      void *ud, OTF2_AttributeList *al, __VA_ARGS__)
#define RMA_BEGIN(x)                                                                        \
	(void)loc, (void)p;                                                                  \
	CB_BEGIN(x, ud, t)

RMA_CB(e_rma_win, OTF2_RmaWinRef w)
{
	RMA_BEGIN(x);
	return rma_record(x, al, ns_, w, OTF2_UNDEFINED_UINT32, -1, 0);
}

RMA_CB(e_rma_op, OTF2_RmaWinRef w, uint64_t id)
{
	(void)id;
	RMA_BEGIN(x);
	return rma_record(x, al, ns_, w, OTF2_UNDEFINED_UINT32, -1, 0);
}

RMA_CB(e_rma_coll_end, OTF2_CollectiveOp op, OTF2_RmaSyncLevel level, OTF2_RmaWinRef w,
       uint32_t root, uint64_t sent, uint64_t got)
{
	(void)op, (void)level, (void)root, (void)sent, (void)got;
	RMA_BEGIN(x);
	return rma_record(x, al, ns_, w, OTF2_UNDEFINED_UINT32, -1, 0);
}

RMA_CB(e_rma_group_sync, OTF2_RmaSyncLevel level, OTF2_RmaWinRef w, OTF2_GroupRef g)
{
	(void)level, (void)g;
	RMA_BEGIN(x);
	return rma_record(x, al, ns_, w, OTF2_UNDEFINED_UINT32, -1, 0);
}

/* the lock types of the sync record: 1 exclusive, 2 shared */
static int lock_code(OTF2_LockType type)
{
	return type == OTF2_LOCK_EXCLUSIVE ? 1 : type == OTF2_LOCK_SHARED ? 2 : 0;
}

RMA_CB(e_rma_lock, OTF2_RmaWinRef w, uint32_t remote, uint64_t id, OTF2_LockType type)
{
	(void)id;
	RMA_BEGIN(x);
	return rma_record(x, al, ns_, w, remote, -1, lock_code(type));
}

RMA_CB(e_rma_release, OTF2_RmaWinRef w, uint32_t remote, uint64_t id)
{
	(void)id;
	RMA_BEGIN(x);
	return rma_record(x, al, ns_, w, remote, -1, 0);
}

RMA_CB(e_rma_sync, OTF2_RmaWinRef w, uint32_t remote, OTF2_RmaSyncType type)
{
	(void)type;
	RMA_BEGIN(x);
	return rma_record(x, al, ns_, w, remote, -1, 0);
}

RMA_CB(e_rma_xfer, OTF2_RmaWinRef w, uint32_t remote, uint64_t bytes, uint64_t id)
{
	(void)id;
	RMA_BEGIN(x);
	return rma_record(x, al, ns_, w, remote, bytes <= INT64_MAX ? (int64_t)bytes : -1, 0);
}

RMA_CB(e_rma_atomic, OTF2_RmaWinRef w, uint32_t remote, OTF2_RmaAtomicType type,
       uint64_t sent, uint64_t got, uint64_t id)
{
	(void)type, (void)got, (void)id;
	RMA_BEGIN(x);
	return rma_record(x, al, ns_, w, remote, sent <= INT64_MAX ? (int64_t)sent : -1, 0);
}

#undef RMA_CB
#undef RMA_BEGIN

/* RmaCollectiveBegin names no window: a part of the call it is in */
static OTF2_CallbackCode e_rma_begin(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t p,
				     void *ud, OTF2_AttributeList *al)
{
	(void)loc, (void)p;
	CB_BEGIN(x, ud, t);
	if (x->in->explicit_sync)
		return CB_RC(explicit_record(x, al, ns_));
	struct frame *f = top_sync(x);
	if (!f || x->in->reg[f->region].kind != OTK_MPI || !is_rma_call(f->sync))
		x->outside++;
	return OTF2_CALLBACK_SUCCESS;
}

static void rma_callbacks(OTF2_EvtReaderCallbacks *cb)
{
	OTF2_EvtReaderCallbacks_SetRmaWinCreateCallback(cb, e_rma_win);
	OTF2_EvtReaderCallbacks_SetRmaWinDestroyCallback(cb, e_rma_win);
	OTF2_EvtReaderCallbacks_SetRmaWaitChangeCallback(cb, e_rma_win);
	OTF2_EvtReaderCallbacks_SetRmaCollectiveBeginCallback(cb, e_rma_begin);
	OTF2_EvtReaderCallbacks_SetRmaCollectiveEndCallback(cb, e_rma_coll_end);
	OTF2_EvtReaderCallbacks_SetRmaGroupSyncCallback(cb, e_rma_group_sync);
	OTF2_EvtReaderCallbacks_SetRmaRequestLockCallback(cb, e_rma_lock);
	OTF2_EvtReaderCallbacks_SetRmaAcquireLockCallback(cb, e_rma_lock);
	OTF2_EvtReaderCallbacks_SetRmaTryLockCallback(cb, e_rma_lock);
	OTF2_EvtReaderCallbacks_SetRmaReleaseLockCallback(cb, e_rma_release);
	OTF2_EvtReaderCallbacks_SetRmaSyncCallback(cb, e_rma_sync);
	OTF2_EvtReaderCallbacks_SetRmaPutCallback(cb, e_rma_xfer);
	OTF2_EvtReaderCallbacks_SetRmaGetCallback(cb, e_rma_xfer);
	OTF2_EvtReaderCallbacks_SetRmaAtomicCallback(cb, e_rma_atomic);
	OTF2_EvtReaderCallbacks_SetRmaOpCompleteBlockingCallback(cb, e_rma_op);
	OTF2_EvtReaderCallbacks_SetRmaOpCompleteNonBlockingCallback(cb, e_rma_op);
	OTF2_EvtReaderCallbacks_SetRmaOpTestCallback(cb, e_rma_op);
	OTF2_EvtReaderCallbacks_SetRmaOpCompleteRemoteCallback(cb, e_rma_op);
}
