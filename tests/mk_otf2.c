/* mk_otf2.c: writes OTF2 archives as Score-P writes them, for the tests and the benchmark of
 * the OTF2 importer (difftrace-otf2(5)).
 *
 *   mk_otf2 DIR normal|tagmismatch|calls [--empty] [--metric] [--miscount] [--omp1]
 *           [--ompt] [--rma [--nowin]] [--iters N]
 *
 * An MPI + OpenMP run of 2 processes with 2 threads each (4 locations): each process runs an
 * OpenMP parallel region (a critical section, a barrier), then rank 0 sends to rank 1 and
 * rank 1 answers, a non-blocking pair (Isend/Irecv, Wait), an MPI_Barrier and an MPI_Bcast
 * from rank 1 on a communicator of the ranks in reverse order. In
 * tagmismatch, rank 1 answers with tag 8 where rank 0 receives tag 7: rank 1's send is eager
 * and returns, rank 0 stops in MPI_Recv and rank 1 in the MPI_Barrier after it, and the
 * archive ends there (as Score-P's would after the run was stopped and its buffers flushed):
 * the receive without its MpiRecv record, the barrier without its MpiCollectiveEnd. --iters N repeats the compute and the
 * ring N times (a large archive for the benchmark); --empty adds a fifth location without
 * events; --metric writes a metric record difftrace does not map; --miscount gives rank 0's
 * master thread 5 records more in its definition than its file holds; --omp1 writes OpenMP's
 * fork, join and locks as the records of OTF2 before 2.0 (OmpFork ...), as older Score-P did;
 * --ompt adds, as Score-P's OMPT adapter, an OpenMP thread team (a communicator defined before
 * the reversed one) begun and ended by each thread of a parallel region. --rma adds, before
 * MPI_Finalize, one-sided calls as Score-P records them, on a window over the reversed
 * communicator: both ranks make it (MPI_Win_create) and fence, rank 0 puts 32 bytes to rank 1
 * (rank 0 of the window), both fence; rank 1 locks rank 0 shared, gets 16 bytes, unlocks; both
 * free the window; and rank 0's main has an RmaWaitChange outside any one-sided call (--nowin:
 * the window's definition is left out, a damaged archive).
 * calls: the same 4 locations
 * with calls of user functions only (compute, 40 records an iteration), no MPI or OpenMP. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <otf2/otf2.h>

enum { R_MAIN, R_COMPUTE, R_INIT, R_FINALIZE, R_SEND, R_RECV, R_ISEND, R_IRECV, R_WAIT,
       R_BARRIER, R_PAR, R_OMPBAR, R_CRIT, R_SBLOCK, R_COMM_RANK, R_BCAST, R_WIN_CREATE,
       R_WIN_FENCE, R_PUT, R_GET, R_WIN_LOCK, R_WIN_UNLOCK, R_WIN_FREE, NREG };

static const struct {
	const char *name;
	OTF2_RegionRole role;
	OTF2_Paradigm par;
} regions[NREG] = {
	{ "main", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_COMPILER },
	{ "compute", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_COMPILER },
	{ "MPI_Init", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_MPI },
	{ "MPI_Finalize", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_MPI },
	{ "MPI_Send", OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI },
	{ "MPI_Recv", OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI },
	{ "MPI_Isend", OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI },
	{ "MPI_Irecv", OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI },
	{ "MPI_Wait", OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI },
	{ "MPI_Barrier", OTF2_REGION_ROLE_BARRIER, OTF2_PARADIGM_MPI },
	{ "!$omp parallel @ring.c:20", OTF2_REGION_ROLE_PARALLEL, OTF2_PARADIGM_OPENMP },
	{ "!$omp barrier @ring.c:25", OTF2_REGION_ROLE_BARRIER, OTF2_PARADIGM_OPENMP },
	{ "!$omp critical @ring.c:22", OTF2_REGION_ROLE_CRITICAL, OTF2_PARADIGM_OPENMP },
	{ "!$omp critical sblock @ring.c:22", OTF2_REGION_ROLE_CRITICAL_SBLOCK,
	  OTF2_PARADIGM_OPENMP },
	{ "MPI_Comm_rank", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_MPI },
	{ "MPI_Bcast", OTF2_REGION_ROLE_COLL_ONE2ALL, OTF2_PARADIGM_MPI },
	{ "MPI_Win_create", OTF2_REGION_ROLE_RMA, OTF2_PARADIGM_MPI },
	{ "MPI_Win_fence", OTF2_REGION_ROLE_RMA, OTF2_PARADIGM_MPI },
	{ "MPI_Put", OTF2_REGION_ROLE_RMA, OTF2_PARADIGM_MPI },
	{ "MPI_Get", OTF2_REGION_ROLE_RMA, OTF2_PARADIGM_MPI },
	{ "MPI_Win_lock", OTF2_REGION_ROLE_RMA, OTF2_PARADIGM_MPI },
	{ "MPI_Win_unlock", OTF2_REGION_ROLE_RMA, OTF2_PARADIGM_MPI },
	{ "MPI_Win_free", OTF2_REGION_ROLE_RMA, OTF2_PARADIGM_MPI },
};

static OTF2_FlushType pre_flush(void *u, OTF2_FileType ft, OTF2_LocationRef l, void *cb,
				bool final)
{
	(void)u, (void)ft, (void)l, (void)cb, (void)final;
	return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *u, OTF2_FileType ft, OTF2_LocationRef l)
{
	(void)u, (void)ft, (void)l;
	return 0;
}

static void check(OTF2_ErrorCode rc, const char *what)
{
	if (rc != OTF2_SUCCESS) {
		fprintf(stderr, "mk_otf2: %s: %s\n", what, OTF2_Error_GetDescription(rc));
		exit(1);
	}
}

/* OTF2 2.0 deprecated the records of OpenMP that older Score-P wrote: written on purpose */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static int omp1, ompt;

static OTF2_ErrorCode w_fork(OTF2_EvtWriter *w, uint64_t t, uint32_t n)
{
	return omp1 ? OTF2_EvtWriter_OmpFork(w, NULL, t, n)
		    : OTF2_EvtWriter_ThreadFork(w, NULL, t, OTF2_PARADIGM_OPENMP, n);
}

static OTF2_ErrorCode w_join(OTF2_EvtWriter *w, uint64_t t)
{
	return omp1 ? OTF2_EvtWriter_OmpJoin(w, NULL, t)
		    : OTF2_EvtWriter_ThreadJoin(w, NULL, t, OTF2_PARADIGM_OPENMP);
}

static OTF2_ErrorCode w_lock(OTF2_EvtWriter *w, uint64_t t, int acquire, uint32_t order)
{
	if (omp1)
		return acquire ? OTF2_EvtWriter_OmpAcquireLock(w, NULL, t, 0, order)
			       : OTF2_EvtWriter_OmpReleaseLock(w, NULL, t, 0, order);
	return acquire ? OTF2_EvtWriter_ThreadAcquireLock(w, NULL, t, OTF2_PARADIGM_OPENMP, 0,
							  order)
		       : OTF2_EvtWriter_ThreadReleaseLock(w, NULL, t, OTF2_PARADIGM_OPENMP, 0,
							  order);
}

static uint64_t loc_id(int rank, int thread)
{
	return ((uint64_t)thread << 32) | (uint64_t)rank;
}

struct w {
	OTF2_EvtWriter *w;
	uint64_t t;
};

static void enter(struct w *w, int r)
{
	check(OTF2_EvtWriter_Enter(w->w, NULL, w->t += 10, r), "enter");
}

static void leave(struct w *w, int r)
{
	check(OTF2_EvtWriter_Leave(w->w, NULL, w->t += 10, r), "leave");
}

/* One thread's part of the parallel region: compute, a critical section, a barrier. */
static void omp_body(struct w *w, int tnum, uint32_t *order)
{
	if (ompt)
		check(OTF2_EvtWriter_ThreadTeamBegin(w->w, NULL, w->t += 1, 2), "team begin");
	enter(w, R_PAR);
	enter(w, R_COMPUTE);
	leave(w, R_COMPUTE);
	enter(w, R_CRIT);
	/* the two threads of a process take the lock in turn: thread 0 first */
	uint32_t o = (*order)++;
	w->t += 5 + 20 * (uint64_t)tnum;
	check(w_lock(w->w, w->t, 1, o), "acquire");
	enter(w, R_SBLOCK);
	leave(w, R_SBLOCK);
	check(w_lock(w->w, w->t += 1, 0, o), "release");
	leave(w, R_CRIT);
	enter(w, R_OMPBAR);
	leave(w, R_OMPBAR);
	leave(w, R_PAR);
	if (ompt)
		check(OTF2_EvtWriter_ThreadTeamEnd(w->w, NULL, w->t += 1, 2), "team end");
}

static void fence(struct w *m)
{
	enter(m, R_WIN_FENCE);
	check(OTF2_EvtWriter_RmaCollectiveBegin(m->w, NULL, m->t += 1), "rma begin");
	check(OTF2_EvtWriter_RmaCollectiveEnd(m->w, NULL, m->t += 5, OTF2_COLLECTIVE_OP_BARRIER,
					      OTF2_RMA_SYNC_LEVEL_PROCESS |
						      OTF2_RMA_SYNC_LEVEL_MEMORY,
					      0, OTF2_UNDEFINED_UINT32, 0, 0),
	      "rma end");
	leave(m, R_WIN_FENCE);
}

/* The one-sided calls of --rma on window 0 (its communicator: the reversed one, where world
 * rank 1 is 0). */
static void rma(struct w *m, int rank)
{
	enter(m, R_WIN_CREATE);
	check(OTF2_EvtWriter_RmaCollectiveBegin(m->w, NULL, m->t += 1), "rma begin");
	check(OTF2_EvtWriter_RmaWinCreate(m->w, NULL, m->t += 1, 0), "win create");
	check(OTF2_EvtWriter_RmaCollectiveEnd(m->w, NULL, m->t += 1,
					      OTF2_COLLECTIVE_OP_CREATE_HANDLE,
					      OTF2_RMA_SYNC_LEVEL_NONE, 0, OTF2_UNDEFINED_UINT32,
					      0, 0),
	      "rma end");
	leave(m, R_WIN_CREATE);
	fence(m);
	if (rank == 0) {
		enter(m, R_PUT);
		check(OTF2_EvtWriter_RmaPut(m->w, NULL, m->t += 1, 0, 0, 32, 1), "put");
		check(OTF2_EvtWriter_RmaOpCompleteNonBlocking(m->w, NULL, m->t += 1, 0, 1),
		      "op complete");
		leave(m, R_PUT);
	}
	fence(m);
	if (rank == 1) {
		enter(m, R_WIN_LOCK);
		check(OTF2_EvtWriter_RmaRequestLock(m->w, NULL, m->t += 1, 0, 1, 7,
						    OTF2_LOCK_SHARED),
		      "request lock");
		leave(m, R_WIN_LOCK);
		enter(m, R_GET);
		check(OTF2_EvtWriter_RmaGet(m->w, NULL, m->t += 1, 0, 1, 16, 2), "get");
		leave(m, R_GET);
		enter(m, R_WIN_UNLOCK);
		check(OTF2_EvtWriter_RmaOpCompleteRemote(m->w, NULL, m->t += 1, 0, 2), "remote");
		check(OTF2_EvtWriter_RmaReleaseLock(m->w, NULL, m->t += 1, 0, 1, 7), "release");
		leave(m, R_WIN_UNLOCK);
	} else {
		check(OTF2_EvtWriter_RmaWaitChange(m->w, NULL, m->t += 1, 0), "wait change");
	}
	enter(m, R_WIN_FREE);
	check(OTF2_EvtWriter_RmaCollectiveBegin(m->w, NULL, m->t += 1), "rma begin");
	check(OTF2_EvtWriter_RmaWinDestroy(m->w, NULL, m->t += 1, 0), "win destroy");
	check(OTF2_EvtWriter_RmaCollectiveEnd(m->w, NULL, m->t += 1,
					      OTF2_COLLECTIVE_OP_DESTROY_HANDLE,
					      OTF2_RMA_SYNC_LEVEL_NONE, 0, OTF2_UNDEFINED_UINT32,
					      0, 0),
	      "rma end");
	leave(m, R_WIN_FREE);
}

int main(int argc, char **argv)
{
	if (argc < 3 || (strcmp(argv[2], "normal") && strcmp(argv[2], "tagmismatch") &&
			 strcmp(argv[2], "calls"))) {
		fprintf(stderr, "usage: mk_otf2 DIR normal|tagmismatch|calls [--empty] [--metric] "
				"[--miscount] [--omp1] [--ompt] [--rma [--nowin]] [--iters N]\n");
		return 2;
	}
	int faulty = !strcmp(argv[2], "tagmismatch"), empty = 0, metric = 0, with_rma = 0, nowin = 0;
	int calls = !strcmp(argv[2], "calls");
	uint64_t miscount = 0;
	long iters = 1;
	for (int i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "--empty"))
			empty = 1;
		else if (!strcmp(argv[i], "--metric"))
			metric = 1;
		else if (!strcmp(argv[i], "--miscount"))
			miscount = 5;
		else if (!strcmp(argv[i], "--omp1"))
			omp1 = 1;
		else if (!strcmp(argv[i], "--ompt"))
			ompt = 1;
		else if (!strcmp(argv[i], "--rma"))
			with_rma = 1;
		else if (!strcmp(argv[i], "--nowin"))
			nowin = 1;
		else if (!strcmp(argv[i], "--iters") && i + 1 < argc)
			iters = strtol(argv[++i], NULL, 10);
	}
	OTF2_Archive *a = OTF2_Archive_Open(argv[1], "traces", OTF2_FILEMODE_WRITE, 1024 * 1024,
					    4 * 1024 * 1024, OTF2_SUBSTRATE_POSIX,
					    OTF2_COMPRESSION_NONE);
	if (!a) {
		fprintf(stderr, "mk_otf2: cannot make %s/traces.otf2\n", argv[1]);
		return 1;
	}
	OTF2_FlushCallbacks fc = { pre_flush, post_flush };
	check(OTF2_Archive_SetFlushCallbacks(a, &fc, NULL), "flush callbacks");
	check(OTF2_Archive_SetSerialCollectiveCallbacks(a), "collective callbacks");
	check(OTF2_Archive_OpenEvtFiles(a), "open events");
	uint64_t tmax = 0, nrec[2][3] = { { 0 } };
	for (int rank = 0; rank < 2; rank++) {
		struct w m = { OTF2_Archive_GetEvtWriter(a, loc_id(rank, 0)), 1000 };
		struct w t1 = { OTF2_Archive_GetEvtWriter(a, loc_id(rank, 1)), 0 };
		uint32_t order = 0;
		enter(&m, R_MAIN);
		enter(&m, R_INIT);
		leave(&m, R_INIT);
		enter(&m, R_COMM_RANK);
		leave(&m, R_COMM_RANK);
		if (metric)
			check(OTF2_EvtWriter_ParameterInt(m.w, NULL, m.t += 1, 0, 42), "parameter");
		int hung = 0;
		for (long it = 0; calls && it < iters; it++)
			for (int k = 0; k < 20; k++) {
				struct w *x = k % 2 ? &t1 : &m;
				enter(x, R_COMPUTE);
				leave(x, R_COMPUTE);
			}
		for (long it = 0; it < iters && !hung && !calls; it++) {
			check(w_fork(m.w, m.t += 10, 2), "fork");
			t1.t = m.t;
			omp_body(&m, 0, &order);
			omp_body(&t1, 1, &order);
			if (t1.t > m.t)
				m.t = t1.t;
			check(w_join(m.w, m.t += 10), "join");
			/* the ring: rank 0 sends tag 7 and receives; rank 1 receives and answers */
			uint32_t stag = faulty && rank == 1 ? 8 : 7;
			if (rank == 0) {
				enter(&m, R_SEND);
				check(OTF2_EvtWriter_MpiSend(m.w, NULL, m.t += 1, 1, 0, 7, 64), "send");
				leave(&m, R_SEND);
				enter(&m, R_RECV);
				if (faulty) {
					hung = 1;
					break;
				}
				check(OTF2_EvtWriter_MpiRecv(m.w, NULL, m.t += 100, 1, 0, 7, 64),
				      "recv");
				leave(&m, R_RECV);
			} else {
				enter(&m, R_RECV);
				check(OTF2_EvtWriter_MpiRecv(m.w, NULL, m.t += 100, 0, 0, 7, 64),
				      "recv");
				leave(&m, R_RECV);
				enter(&m, R_SEND);
				check(OTF2_EvtWriter_MpiSend(m.w, NULL, m.t += 1, 0, 0, stag, 64),
				      "send");
				leave(&m, R_SEND);
				if (faulty) {
					enter(&m, R_BARRIER);
					check(OTF2_EvtWriter_MpiCollectiveBegin(m.w, NULL, m.t += 1),
					      "coll begin");
					hung = 1;
					break;
				}
			}
			/* a non-blocking pair: rank 0 Isend(tag 3), rank 1 Irecv, both Wait */
			uint64_t req = 100 + (uint64_t)it;
			if (rank == 0) {
				enter(&m, R_ISEND);
				check(OTF2_EvtWriter_MpiIsend(m.w, NULL, m.t += 1, 1, 0, 3, 8, req),
				      "isend");
				leave(&m, R_ISEND);
				enter(&m, R_WAIT);
				check(OTF2_EvtWriter_MpiIsendComplete(m.w, NULL, m.t += 5, req),
				      "isend complete");
				leave(&m, R_WAIT);
			} else {
				enter(&m, R_IRECV);
				check(OTF2_EvtWriter_MpiIrecvRequest(m.w, NULL, m.t += 1, req),
				      "irecv request");
				leave(&m, R_IRECV);
				enter(&m, R_WAIT);
				check(OTF2_EvtWriter_MpiIrecv(m.w, NULL, m.t += 5, 0, 0, 3, 8, req),
				      "irecv");
				leave(&m, R_WAIT);
			}
			enter(&m, R_BARRIER);
			check(OTF2_EvtWriter_MpiCollectiveBegin(m.w, NULL, m.t += 1), "coll begin");
			m.t = 1000 + (uint64_t)(it + 1) * 100000; /* both leave the barrier together */
			check(OTF2_EvtWriter_MpiCollectiveEnd(m.w, NULL, m.t, OTF2_COLLECTIVE_OP_BARRIER,
							      0, OTF2_UNDEFINED_UINT32, 0, 0),
			      "coll end");
			leave(&m, R_BARRIER);
			/* a broadcast from rank 1 on a communicator of the ranks in reverse order,
			 * where rank 1 is 0 */
			enter(&m, R_BCAST);
			check(OTF2_EvtWriter_MpiCollectiveBegin(m.w, NULL, m.t += 1), "coll begin");
			check(OTF2_EvtWriter_MpiCollectiveEnd(m.w, NULL, m.t += 5,
							      OTF2_COLLECTIVE_OP_BCAST, 2 + ompt, 0,
							      8, 8),
			      "coll end");
			leave(&m, R_BCAST);
		}
		if (!hung) {
			if (with_rma)
				rma(&m, rank);
			enter(&m, R_FINALIZE);
			leave(&m, R_FINALIZE);
			leave(&m, R_MAIN);
		}
		if (m.t > tmax)
			tmax = m.t;
		/* each location's definition has its number of records, as Score-P's */
		check(OTF2_EvtWriter_GetNumberOfEvents(m.w, &nrec[rank][0]), "count");
		if (rank == 0)
			nrec[rank][0] += miscount;
		check(OTF2_EvtWriter_GetNumberOfEvents(t1.w, &nrec[rank][1]), "count");
		check(OTF2_Archive_CloseEvtWriter(a, m.w), "close");
		check(OTF2_Archive_CloseEvtWriter(a, t1.w), "close");
	}
	if (empty)
		check(OTF2_Archive_CloseEvtWriter(a, OTF2_Archive_GetEvtWriter(a, loc_id(1, 2))),
		      "close");
	check(OTF2_Archive_CloseEvtFiles(a), "close events");
	/* the local definitions: none, but every location has its file, as Score-P writes */
	check(OTF2_Archive_OpenDefFiles(a), "open defs");
	for (int rank = 0; rank < 2; rank++)
		for (int t = 0; t < 2 + (empty && rank == 1); t++)
			check(OTF2_Archive_CloseDefWriter(a, OTF2_Archive_GetDefWriter(
							       a, loc_id(rank, t))),
			      "close def");
	check(OTF2_Archive_CloseDefFiles(a), "close defs");

	OTF2_GlobalDefWriter *d = OTF2_Archive_GetGlobalDefWriter(a);
	check(OTF2_GlobalDefWriter_WriteClockProperties(d, 1000000000, 0, tmax + 1, 0), "clock");
	uint32_t s = 0;
#define STR(text) (check(OTF2_GlobalDefWriter_WriteString(d, s, text), "string"), s++)
	uint32_t empty_s = STR("");
	uint32_t reg[NREG];
	for (int i = 0; i < NREG; i++)
		reg[i] = STR(regions[i].name);
	for (int i = 0; i < NREG; i++)
		check(OTF2_GlobalDefWriter_WriteRegion(d, (uint32_t)i, reg[i], reg[i], empty_s,
						       regions[i].role, regions[i].par,
						       OTF2_REGION_FLAG_NONE, empty_s, 0, 0),
		      "region");
	uint32_t machine = STR("cluster"), node = STR("node0"), cm = STR("machine"),
		 cn = STR("node");
	check(OTF2_GlobalDefWriter_WriteSystemTreeNode(d, 0, machine, cm,
						       OTF2_UNDEFINED_SYSTEM_TREE_NODE),
	      "tree");
	check(OTF2_GlobalDefWriter_WriteSystemTreeNode(d, 1, node, cn, 0), "tree");
	uint32_t master = STR("Master thread"), worker = STR("OMP thread 1"),
		 worker2 = STR("OMP thread 2");
	for (int rank = 0; rank < 2; rank++) {
		char name[32];
		snprintf(name, sizeof name, "MPI Rank %d", rank);
		uint32_t n = STR(name);
		check(OTF2_GlobalDefWriter_WriteLocationGroup(d, (uint32_t)rank, n,
							      OTF2_LOCATION_GROUP_TYPE_PROCESS, 1,
							      OTF2_UNDEFINED_LOCATION_GROUP),
		      "group");
	}
	for (int rank = 0; rank < 2; rank++)
		for (int t = 0; t < 2 + (empty && rank == 1); t++)
			check(OTF2_GlobalDefWriter_WriteLocation(
				      d, loc_id(rank, t), t == 0 ? master : t == 1 ? worker : worker2,
				      OTF2_LOCATION_TYPE_CPU_THREAD, nrec[rank][t], (uint32_t)rank),
			      "location");
	uint64_t locs[2] = { loc_id(0, 0), loc_id(1, 0) }, ranks[2] = { 0, 1 };
	check(OTF2_GlobalDefWriter_WriteGroup(d, 0, empty_s, OTF2_GROUP_TYPE_COMM_LOCATIONS,
					      OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 2, locs),
	      "group");
	check(OTF2_GlobalDefWriter_WriteGroup(d, 1, empty_s, OTF2_GROUP_TYPE_COMM_GROUP,
					      OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 2, ranks),
	      "group");
	check(OTF2_GlobalDefWriter_WriteGroup(d, 2, empty_s, OTF2_GROUP_TYPE_COMM_SELF,
					      OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 0, NULL),
	      "group");
	uint64_t rev[2] = { 1, 0 };
	check(OTF2_GlobalDefWriter_WriteGroup(d, 3, empty_s, OTF2_GROUP_TYPE_COMM_GROUP,
					      OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 2, rev),
	      "group");
	check(OTF2_GlobalDefWriter_WriteComm(d, 0, STR("MPI_COMM_WORLD"), 1, OTF2_UNDEFINED_COMM,
					     OTF2_COMM_FLAG_NONE),
	      "comm");
	check(OTF2_GlobalDefWriter_WriteComm(d, 1, STR("MPI_COMM_SELF"), 2, OTF2_UNDEFINED_COMM,
					     OTF2_COMM_FLAG_NONE),
	      "comm");
	if (ompt) {
		uint64_t th[2] = { 0, 1 };
		check(OTF2_GlobalDefWriter_WriteGroup(d, 4, empty_s, OTF2_GROUP_TYPE_COMM_GROUP,
						      OTF2_PARADIGM_OPENMP, OTF2_GROUP_FLAG_NONE, 2,
						      th),
		      "group");
		check(OTF2_GlobalDefWriter_WriteComm(d, 2, STR("OpenMP thread team"), 4,
						     OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE),
		      "comm");
	}
	check(OTF2_GlobalDefWriter_WriteComm(d, 2 + (uint32_t)ompt, STR("reversed"), 3, 0,
					     OTF2_COMM_FLAG_NONE),
	      "comm");
	if (with_rma && !nowin)
		check(OTF2_GlobalDefWriter_WriteRmaWin(d, 0, STR("window"), 2 + (uint32_t)ompt,
						       OTF2_RMA_WIN_FLAG_CREATE_DESTROY_EVENTS),
		      "window");
	if (metric)
		check(OTF2_GlobalDefWriter_WriteParameter(d, 0, STR("size"), OTF2_PARAMETER_TYPE_INT64),
		      "parameter");
	check(OTF2_Archive_Close(a), "close archive");
	return 0;
}
