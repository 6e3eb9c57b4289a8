/* otf2_write.c: a run of the store as an OTF2 archive (otf2_write.h). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "export/otf2_write.h"

#ifndef HAVE_OTF2

int otf2_write_run(store *s, const store_run *r, const char *dir, const char *name,
		   size_t *nloc, uint64_t *nev, dt_err *e)
{
	(void)s, (void)r, (void)name, (void)nloc, (void)nev;
	return dt_err_at(e, dir, -1,
			 "difftrace was built without OTF2: it cannot write OTF2 archives "
			 "(install libotf2-trace-dev and build difftrace again)");
}

#else

#include <otf2/otf2.h>

#include "export/otf2_rma_write.h"
#include "import/otf2_names.h"
#include "store/store_sync.h"
#include "util/util.h"

#define BLOCK 4096

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

/* what a sync call is, for the records other readers know */
enum { C_OTHER, C_SEND, C_ISEND, C_RECV, C_IRECV, C_SENDRECV, C_WAIT, C_COLL };

static int call_class(const char *n)
{
	static const struct {
		const char *name;
		int c;
	} t[] = {
		{ "MPI_Send", C_SEND },	     { "MPI_Ssend", C_SEND },	 { "MPI_Bsend", C_SEND },
		{ "MPI_Rsend", C_SEND },     { "MPI_Isend", C_ISEND },	 { "MPI_Issend", C_ISEND },
		{ "MPI_Ibsend", C_ISEND },   { "MPI_Irsend", C_ISEND },	 { "MPI_Recv", C_RECV },
		{ "MPI_Irecv", C_IRECV },    { "MPI_Sendrecv", C_SENDRECV },
		{ "MPI_Sendrecv_replace", C_SENDRECV },
		{ "MPI_Wait", C_WAIT },	     { "MPI_Waitall", C_WAIT },	 { "MPI_Waitany", C_WAIT },
		{ "MPI_Waitsome", C_WAIT },  { "MPI_Test", C_WAIT },	 { "MPI_Testall", C_WAIT },
		{ "MPI_Testany", C_WAIT },   { "MPI_Testsome", C_WAIT },
	};
	for (size_t i = 0; i < sizeof t / sizeof *t; i++)
		if (!strcmp(n, t[i].name))
			return t[i].c;
	static const char *const coll[] = { "MPI_Barrier", "MPI_Bcast", "MPI_Reduce",
		"MPI_Allreduce", "MPI_Gather", "MPI_Gatherv", "MPI_Scatter", "MPI_Scatterv",
		"MPI_Allgather", "MPI_Allgatherv", "MPI_Alltoall", "MPI_Alltoallv",
		"MPI_Reduce_scatter", "MPI_Reduce_scatter_block", "MPI_Scan", "MPI_Exscan" };
	for (size_t i = 0; i < sizeof coll / sizeof *coll; i++)
		if (!strcmp(n, coll[i]))
			return C_COLL;
	return C_OTHER;
}

static OTF2_CollectiveOp coll_op(const char *n)
{
	static const struct {
		const char *name;
		OTF2_CollectiveOp op;
	} t[] = {
		{ "MPI_Barrier", OTF2_COLLECTIVE_OP_BARRIER },
		{ "MPI_Bcast", OTF2_COLLECTIVE_OP_BCAST },
		{ "MPI_Reduce", OTF2_COLLECTIVE_OP_REDUCE },
		{ "MPI_Allreduce", OTF2_COLLECTIVE_OP_ALLREDUCE },
		{ "MPI_Gather", OTF2_COLLECTIVE_OP_GATHER },
		{ "MPI_Gatherv", OTF2_COLLECTIVE_OP_GATHERV },
		{ "MPI_Scatter", OTF2_COLLECTIVE_OP_SCATTER },
		{ "MPI_Scatterv", OTF2_COLLECTIVE_OP_SCATTERV },
		{ "MPI_Allgather", OTF2_COLLECTIVE_OP_ALLGATHER },
		{ "MPI_Allgatherv", OTF2_COLLECTIVE_OP_ALLGATHERV },
		{ "MPI_Alltoall", OTF2_COLLECTIVE_OP_ALLTOALL },
		{ "MPI_Alltoallv", OTF2_COLLECTIVE_OP_ALLTOALLV },
		{ "MPI_Reduce_scatter", OTF2_COLLECTIVE_OP_REDUCE_SCATTER },
		{ "MPI_Reduce_scatter_block", OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK },
		{ "MPI_Scan", OTF2_COLLECTIVE_OP_SCAN },
		{ "MPI_Exscan", OTF2_COLLECTIVE_OP_EXSCAN },
	};
	for (size_t i = 0; i < sizeof t / sizeof *t; i++)
		if (!strcmp(n, t[i].name))
			return t[i].op;
	return OTF2_COLLECTIVE_OP_BARRIER;
}

/* A communicator of the run: its members (world ranks, ascending) as far as its events show
 * them, which is what OTF2's comm-local peers are numbered by; gathered in a bit per rank. */
struct xcomm {
	int32_t dt;
	uint8_t *bits;
	int32_t *m;
	size_t n;
};

typedef struct ex {
	store *s;
	const char *const *names;
	size_t nnames;
	OTF2_Archive *a;
	OTF2_EvtWriter *w;
	OTF2_AttributeList *al;
	dt_err *e;
	const char *path; /* for the messages */
	uint32_t *regref; /* function id -> its region (dense from 0, as readers want), or -1 */
	uint32_t *regfunc;/* region -> function id */
	uint32_t nreg;
	struct xcomm *comm;
	size_t ncomm, capcomm;
	size_t nranks; /* the largest rank of a trace or a peer, plus 1 */
	size_t lastc;  /* the communicator found last */
	int32_t self_rank;
	uint64_t last, nev;
	uint64_t tmax;
	/* the requests of the location: completion records say which kind they were */
	uint64_t *sreq;
	size_t nsreq, capsreq;
	otf2_rma_out rma;  /* the windows */
	store_sites sites; /* the call sites of the run; site k's file is string nnames + 2(k-1),
			    * its function the next */
} ex;

static int otf2_check(ex *x, OTF2_ErrorCode rc, const char *what)
{
	if (rc == OTF2_SUCCESS)
		return 0;
	return dt_err_at(x->e, x->path, -1, "cannot write the archive: %s: %s", what,
			 OTF2_Error_GetDescription(rc));
}

static struct xcomm *comm_get(ex *x, int32_t dt, int make)
{
	/* most events are on the communicator of the one before */
	if (x->lastc < x->ncomm && x->comm[x->lastc].dt == dt)
		return &x->comm[x->lastc];
	for (size_t i = 0; i < x->ncomm; i++)
		if (x->comm[i].dt == dt)
			return &x->comm[x->lastc = i];
	if (!make)
		return NULL;
	GROW(x->comm, x->capcomm, x->ncomm + 1);
	struct xcomm *c = &x->comm[x->ncomm++];
	memset(c, 0, sizeof *c);
	c->dt = dt;
	return c;
}

static void comm_add(ex *x, struct xcomm *c, int32_t r)
{
	if (r < 0 || (size_t)r >= x->nranks)
		return;
	if (!c->bits)
		c->bits = xcalloc(x->nranks / 8 + 1, 1);
	c->bits[r / 8] |= (uint8_t)(1u << (r % 8));
}

/* The members of each communicator, ascending, from its bits. */
static void comm_members(ex *x)
{
	for (size_t i = 0; i < x->ncomm; i++) {
		struct xcomm *c = &x->comm[i];
		c->m = xmalloc((x->nranks + 1) * sizeof *c->m);
		for (size_t r = 0; c->bits && r < x->nranks; r++)
			if (c->bits[r / 8] & (1u << (r % 8)))
				c->m[c->n++] = (int32_t)r;
	}
}

/* the OTF2 reference of communicator dt (its index), or OTF2_UNDEFINED_COMM */
static uint32_t comm_ref(ex *x, int32_t dt)
{
	struct xcomm *c = comm_get(x, dt, 0);
	return c ? (uint32_t)(c - x->comm) : OTF2_UNDEFINED_COMM;
}

/* the rank of world rank r in communicator dt; OTF2_UNDEFINED_UINT32 when not a member */
static uint32_t local_rank(ex *x, int32_t dt, int32_t r)
{
	struct xcomm *c = comm_get(x, dt, 0);
	if (!c || r < 0)
		return OTF2_UNDEFINED_UINT32;
	if (dt == 0)
		return (uint32_t)r;
	if (dt == 1)
		return 0;
	size_t lo = 0, hi = c->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->m[mid] < r)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->n && c->m[lo] == r ? (uint32_t)lo : OTF2_UNDEFINED_UINT32;
}

static uint64_t rec_time(ex *x, uint64_t t)
{
	/* a location's records in time order, as readers expect */
	if (t < x->last)
		t = x->last;
	x->last = t;
	if (t > x->tmax)
		x->tmax = t;
	return t;
}

/* The attributes of sync event v: a field equal to what the import takes when it is absent
 * (DT_SYNC_NONE, a count of -1, no request or object, a size of 0) is left out. */
static void attrs_of(ex *x, const dt_sync_event *v, int nocall)
{
	OTF2_AttributeList *al = x->al;
	OTF2_AttributeList_RemoveAllAttributes(al);
	if (nocall)
		OTF2_AttributeList_AddUint8(al, OTF2_DT_NOCALL, 1);
	OTF2_AttributeList_AddUint8(al, OTF2_DT_PHASE, v->phase);
	OTF2_AttributeList_AddStringRef(al, OTF2_DT_FUNC, v->func);
	OTF2_AttributeList_AddInt64(al, OTF2_DT_TS, v->ts);
	const struct {
		int attr;
		int32_t v;
	} i32[] = { { OTF2_DT_COMM, v->comm }, { OTF2_DT_DEST, v->dest }, { OTF2_DT_STAG, v->stag },
		    { OTF2_DT_SRC, v->src },   { OTF2_DT_RTAG, v->rtag }, { OTF2_DT_ROOT, v->root },
		    { OTF2_DT_DATATYPE, v->datatype }, { OTF2_DT_OP, v->op },
		    { OTF2_DT_TEAM, v->team }, { OTF2_DT_TNUM, v->tnum } };
	for (size_t i = 0; i < sizeof i32 / sizeof *i32; i++)
		if (i32[i].v != DT_SYNC_NONE)
			OTF2_AttributeList_AddInt32(al, (OTF2_AttributeRef)i32[i].attr, i32[i].v);
	if (v->count != -1)
		OTF2_AttributeList_AddInt64(al, OTF2_DT_COUNT, v->count);
	if (v->csize)
		OTF2_AttributeList_AddInt32(al, OTF2_DT_CSIZE, v->csize);
	const struct {
		int attr;
		uint64_t v;
	} u64[] = { { OTF2_DT_REQ, v->req }, { OTF2_DT_OBJ, v->obj }, { OTF2_DT_OBJSEQ, v->objseq } };
	for (size_t i = 0; i < sizeof u64 / sizeof *u64; i++)
		if (u64[i].v)
			OTF2_AttributeList_AddUint64(al, (OTF2_AttributeRef)u64[i].attr, u64[i].v);
	/* one-sided calls, the payload, the call site: none on most events */
	if (v->disp)
		OTF2_AttributeList_AddInt64(al, OTF2_DT_DISP, v->disp);
	if (v->rassert)
		OTF2_AttributeList_AddInt32(al, OTF2_DT_ASSERT, v->rassert);
	if (v->lock)
		OTF2_AttributeList_AddInt32(al, OTF2_DT_LOCK, v->lock);
	if (v->digest)
		OTF2_AttributeList_AddUint64(al, OTF2_DT_DIGEST, v->digest);
	const store_site *site = store_site_get(&x->sites, v->site);
	if (site) {
		uint32_t k = (uint32_t)x->nnames + 2 * (v->site - 1);
		OTF2_AttributeList_AddStringRef(al, OTF2_DT_SITE_FILE, k);
		OTF2_AttributeList_AddUint32(al, OTF2_DT_SITE_LINE, site->line);
		OTF2_AttributeList_AddStringRef(al, OTF2_DT_SITE_FUNC, k + 1);
	}
}

static const char *fname(ex *x, uint32_t f)
{
	return f < x->nnames && x->names[f] ? x->names[f] : "?";
}

/* The region of function f, numbered at its first use; -1 (e set) when f is no function. */
static int64_t region(ex *x, uint32_t f)
{
	if (f >= x->nnames)
		return dt_err_at(x->e, x->path, -1, "function %" PRIu32 " is not in the store",
				 f);
	if (x->regref[f] == UINT32_MAX) {
		x->regfunc[x->nreg] = f;
		x->regref[f] = x->nreg++;
	}
	return x->regref[f];
}

/* A message's length in bytes, as OTF2 has it: the count times the size of a predefined
 * datatype of the sync record (record/syncfmt.h, sizes of x86-64 and the other LP64 ABIs);
 * the count alone for a derived type or none (an OTF2 import's counts are bytes already). */
static uint64_t len_of(const dt_sync_event *v)
{
	/* by datatype code, from 1: DTS_TYPES' order */
	static const uint8_t size[] = { 0, 1, 1, 1, 1, 2, 2, 4, 4, 8, 8, 8, 8, 4, 8, 16, 1,
					1, 2, 4, 8, 1, 2, 4, 8, 1, 8, 16, 16, 8, 8 };
	if (v->count <= 0)
		return 0;
	uint64_t n = (uint64_t)v->count;
	if (v->datatype > 0 && (size_t)v->datatype < sizeof size && n <= UINT64_MAX / 16)
		n *= size[v->datatype];
	return n;
}

/* Whether req is an Isend's request not completed yet; it is completed now (the array holds
 * the requests in flight only, a few, however many the trace makes). */
static int is_send_req(ex *x, uint64_t req)
{
	for (size_t i = 0; i < x->nsreq; i++)
		if (x->sreq[i] == req) {
			x->sreq[i] = x->sreq[--x->nsreq];
			return 1;
		}
	return 0;
}

/* the records that complete a request: an Isend's, an Irecv's, or one of unknown origin
 * (a test that says nothing more), with attrs (NULL: none) */
static int completion(ex *x, const dt_sync_event *v, uint64_t t, OTF2_AttributeList *al)
{
	if (!v->req)
		return al ? otf2_check(x, OTF2_EvtWriter_MpiRequestTest(x->w, al, t, 0), "test")
			  : 0;
	if (is_send_req(x, v->req))
		return otf2_check(x, OTF2_EvtWriter_MpiIsendComplete(x->w, al, t, v->req - 1),
				  "isend complete");
	uint32_t c = comm_ref(x, v->comm), from = local_rank(x, v->comm, v->src);
	if (c != OTF2_UNDEFINED_COMM && from != OTF2_UNDEFINED_UINT32 && v->rtag >= 0)
		return otf2_check(x, OTF2_EvtWriter_MpiIrecv(x->w, al, t, from, c,
							     (uint32_t)v->rtag, len_of(v),
							     v->req - 1),
				  "irecv");
	return otf2_check(x, OTF2_EvtWriter_MpiRequestTest(x->w, al, t, v->req - 1), "test");
}

/* The records of sync event v at time t; with_call: the same Enter or Leave is a call. */
static int write_sync(ex *x, const dt_sync_event *v, uint64_t t, int with_call)
{
	int64_t rg = region(x, v->func);
	if (rg < 0)
		return -1;
	int cls = call_class(fname(x, v->func)), rma = otf2_rma_call(fname(x, v->func));
	uint32_t c = comm_ref(x, v->comm);
	if (v->phase == DT_SYNC_ENTER) {
		attrs_of(x, v, !with_call);
		if (otf2_check(x, OTF2_EvtWriter_Enter(x->w, x->al, t, (uint32_t)rg), "enter"))
			return -1;
		if (rma)
			return otf2_check(x, otf2_rma_records(&x->rma, x->w, v, rma, t,
							      local_rank(x, v->comm, v->dest),
							      len_of(v)),
					  "rma record");
		uint32_t to = local_rank(x, v->comm, v->dest);
		if ((cls == C_SEND || cls == C_SENDRECV) && c != OTF2_UNDEFINED_COMM &&
		    to != OTF2_UNDEFINED_UINT32 && v->stag >= 0 &&
		    otf2_check(x, OTF2_EvtWriter_MpiSend(x->w, NULL, t, to, c, (uint32_t)v->stag,
							 len_of(v)),
			       "send"))
			return -1;
		if (cls == C_COLL &&
		    otf2_check(x, OTF2_EvtWriter_MpiCollectiveBegin(x->w, NULL, t), "collective"))
			return -1;
		return 0;
	}
	if (v->phase == DT_SYNC_DONE) {
		attrs_of(x, v, 1);
		return completion(x, v, t, x->al);
	}
	/* the exit: what the call got, then its Leave */
	uint32_t from = local_rank(x, v->comm, v->src), to = local_rank(x, v->comm, v->dest);
	OTF2_ErrorCode rc = OTF2_SUCCESS;
	if ((cls == C_RECV || cls == C_SENDRECV) && c != OTF2_UNDEFINED_COMM &&
	    from != OTF2_UNDEFINED_UINT32 && v->rtag >= 0)
		rc = OTF2_EvtWriter_MpiRecv(x->w, NULL, t, from, c, (uint32_t)v->rtag, len_of(v));
	else if (cls == C_ISEND && v->req && c != OTF2_UNDEFINED_COMM &&
		 to != OTF2_UNDEFINED_UINT32 && v->stag >= 0) {
		GROW(x->sreq, x->capsreq, x->nsreq + 1);
		x->sreq[x->nsreq++] = v->req;
		rc = OTF2_EvtWriter_MpiIsend(x->w, NULL, t, to, c, (uint32_t)v->stag, len_of(v),
					     v->req - 1);
	} else if (cls == C_IRECV && v->req)
		rc = OTF2_EvtWriter_MpiIrecvRequest(x->w, NULL, t, v->req - 1);
	else if (cls == C_WAIT && v->req && completion(x, v, t, NULL))
		return -1;
	else if (rma)
		rc = otf2_rma_records(&x->rma, x->w, v, rma, t, to, len_of(v));
	else if (cls == C_COLL && c != OTF2_UNDEFINED_COMM)
		rc = OTF2_EvtWriter_MpiCollectiveEnd(
			x->w, NULL, t, coll_op(fname(x, v->func)), c,
			v->root >= 0 ? local_rank(x, v->comm, v->root) : OTF2_UNDEFINED_UINT32,
			len_of(v), len_of(v));
	if (otf2_check(x, rc, rma ? "rma record" : "mpi record"))
		return -1;
	attrs_of(x, v, !with_call);
	return otf2_check(x, OTF2_EvtWriter_Leave(x->w, x->al, t, (uint32_t)rg), "leave");
}

/* One trace as location `loc`: its calls and its sync events v[0..nv), merged in time. */
static int write_trace(ex *x, const store_trace *t, const dt_sync_event *v, size_t nv)
{
	store_cursor *cur = NULL;
	if (store_cursor_open(x->s, t, 0, &cur, x->e))
		return -1;
	uint32_t *ev = xmalloc(BLOCK * sizeof *ev), *stack = NULL;
	uint64_t *ts = xmalloc(BLOCK * sizeof *ts);
	size_t nstack = 0, capstack = 0, iv = 0;
	int rc = -1;
	uint64_t idx = 0;
	x->last = 0;
	x->nsreq = 0;
	for (;;) {
		int64_t k = store_cursor_next(cur, ev, t->has_time ? ts : NULL, BLOCK, x->e);
		if (k < 0)
			goto out;
		for (int64_t i = 0; i < k; i++) {
			int ret = ev[i] == DT_RET;
			if (ret && !nstack)
				continue; /* a return without its call: nothing to leave */
			uint32_t f = ret ? stack[nstack - 1] : ev[i];
			/* the call's time; without times, its number (and the sync events after) */
			uint64_t ct = t->has_time ? ts[i] : idx;
			int with = 0;
			while (t->has_time && iv < nv && (uint64_t)v[iv].ts <= ct) {
				const dt_sync_event *s = &v[iv++];
				/* the sync event of this very call: one Enter or Leave for both */
				with = (uint64_t)s->ts == ct && s->func == f &&
				       s->phase == (ret ? DT_SYNC_EXIT : DT_SYNC_ENTER);
				if (write_sync(x, s, rec_time(x, (uint64_t)s->ts), with))
					goto out;
				if (with)
					break;
			}
			idx++;
			x->nev++;
			uint64_t rt = rec_time(x, ct);
			int64_t rg = with ? 0 : region(x, f);
			if (rg < 0)
				goto out;
			if (!ret) {
				if (!with && otf2_check(x, OTF2_EvtWriter_Enter(x->w, NULL, rt,
										(uint32_t)rg),
							"enter"))
					goto out;
				GROW(stack, capstack, nstack + 1);
				stack[nstack++] = f;
			} else {
				nstack--;
				if (!with && otf2_check(x, OTF2_EvtWriter_Leave(x->w, NULL, rt,
										(uint32_t)rg),
							"leave"))
					goto out;
			}
		}
		if (!k)
			break;
	}
	for (; iv < nv; iv++)
		if (write_sync(x, &v[iv], rec_time(x, (uint64_t)v[iv].ts), 0))
			goto out;
	rc = 0;
out:
	free(ev);
	free(ts);
	free(stack);
	store_cursor_close(cur);
	return rc;
}

static int role_of(const char *n, OTF2_Paradigm *par)
{
	*par = OTF2_PARADIGM_USER;
	if (!strncmp(n, "MPI_", 4)) {
		*par = OTF2_PARADIGM_MPI;
		if (otf2_rma_call(n))
			return OTF2_REGION_ROLE_RMA;
		int c = call_class(n);
		if (c == C_COLL)
			return !strcmp(n, "MPI_Barrier") ? OTF2_REGION_ROLE_BARRIER
							  : OTF2_REGION_ROLE_COLL_ALL2ALL;
		return c == C_OTHER ? OTF2_REGION_ROLE_FUNCTION : OTF2_REGION_ROLE_POINT2POINT;
	}
	if (!strncmp(n, "GOMP_", 5) || !strncmp(n, "omp_", 4)) {
		*par = OTF2_PARADIGM_OPENMP;
		if (!strcmp(n, "GOMP_barrier"))
			return OTF2_REGION_ROLE_BARRIER;
		if (!strncmp(n, "GOMP_parallel", 13))
			return OTF2_REGION_ROLE_PARALLEL;
		return OTF2_REGION_ROLE_FUNCTION;
	}
	return OTF2_REGION_ROLE_FUNCTION;
}

/* A new string definition; its number (an error is kept in x->e and seen at the end). */
static uint32_t def_str(ex *x, OTF2_GlobalDefWriter *d, uint32_t *sn, const char *text)
{
	otf2_check(x, OTF2_GlobalDefWriter_WriteString(d, *sn, text), "string");
	return (*sn)++;
}

static int write_defs(ex *x, const store_trace *t, size_t n, const uint64_t *nrec,
		      char **hosts, size_t nhosts, const store_sync_clock *ck, size_t nck)
{
	OTF2_GlobalDefWriter *d = OTF2_Archive_GetGlobalDefWriter(x->a);
	if (!d)
		return dt_err_at(x->e, x->path, -1, "cannot write the archive's definitions");
#define W(call, what)                                                                        \
	do {                                                                                 \
		if (otf2_check(x, call, what))                                               \
			return -1;                                                           \
	} while (0)
	W(OTF2_GlobalDefWriter_WriteClockProperties(d, 1000000000, 0, x->tmax + 1, 0), "clock");
	/* strings: the function names by id first (the attributes' func refers to them) */
	uint32_t sn = 0;
	for (; sn < x->nnames; sn++)
		W(OTF2_GlobalDefWriter_WriteString(d, sn, fname(x, sn)), "string");
	/* then the call sites' files and functions (the attributes of the sync events) */
	for (size_t k = 0; k < x->sites.n; k++, sn += 2) {
		const store_site *st = &x->sites.v[k]; /* (a gap in the numbers: no names) */
		W(OTF2_GlobalDefWriter_WriteString(d, sn, st->file ? st->file : ""), "string");
		W(OTF2_GlobalDefWriter_WriteString(d, sn + 1, st->func ? st->func : ""), "string");
	}
#define STR(text) def_str(x, d, &sn, text)
	uint32_t empty = STR("");
	for (uint32_t r = 0; r < x->nreg; r++) {
		uint32_t f = x->regfunc[r];
		OTF2_Paradigm par;
		int role = role_of(fname(x, f), &par);
		W(OTF2_GlobalDefWriter_WriteRegion(d, r, f, f, empty, (OTF2_RegionRole)role, par,
						   OTF2_REGION_FLAG_NONE, empty, 0, 0),
		  "region");
	}
	static const struct {
		const char *name;
		OTF2_Type type;
	} attrs[] = {
#define OTF2_DT_X(id, nm, ty) { "difftrace::" #nm, OTF2_TYPE_##ty },
		OTF2_DT_ATTRS(OTF2_DT_X)
#undef OTF2_DT_X
	};
	for (uint32_t i = 0; i < OTF2_DT_NATTRS; i++) {
		uint32_t s = STR(attrs[i].name);
		W(OTF2_GlobalDefWriter_WriteAttribute(d, i, s, empty, attrs[i].type), "attribute");
	}
	/* the system tree: the run, then a node per host (and one for traces without) */
	W(OTF2_GlobalDefWriter_WriteSystemTreeNode(d, 0, STR("run"), STR("machine"),
						   OTF2_UNDEFINED_SYSTEM_TREE_NODE),
	  "system tree");
	uint32_t node = STR("node");
	strmap hostnode; /* a host's name -> its node */
	strmap_init(&hostnode);
	for (size_t h = 0; h < nhosts; h++) {
		strmap_put(&hostnode, hosts[h], strlen(hosts[h]), (uint32_t)h + 1);
		if (otf2_check(x, OTF2_GlobalDefWriter_WriteSystemTreeNode(
					  d, (uint32_t)h + 1, STR(hosts[h]), node, 0),
			       "system tree")) {
			strmap_free(&hostnode);
			return -1;
		}
	}
	/* a location group per process, a location per trace (its index) */
	int64_t maxrank = -1;
	for (size_t i = 0; i < n; i++) {
		if (t[i].rank > maxrank)
			maxrank = t[i].rank;
		if (i && t[i].proc == t[i - 1].proc)
			continue;
		char nm[64];
		snprintf(nm, sizeof nm, "process %d", t[i].proc);
		uint32_t tree = 0;
		if (t[i].host)
			strmap_get(&hostnode, t[i].host, strlen(t[i].host), &tree);
		if (otf2_check(x, OTF2_GlobalDefWriter_WriteLocationGroup(
					  d, (uint32_t)t[i].proc, STR(nm),
					  OTF2_LOCATION_GROUP_TYPE_PROCESS, tree,
					  OTF2_UNDEFINED_LOCATION_GROUP),
			       "location group")) {
			strmap_free(&hostnode);
			return -1;
		}
	}
	strmap_free(&hostnode);
	for (size_t i = 0, c = 0; i < n; i++) {
		char nm[64], val[96];
		snprintf(nm, sizeof nm, "thread %d.%d", t[i].proc, t[i].thread);
		W(OTF2_GlobalDefWriter_WriteLocation(d, i, STR(nm), OTF2_LOCATION_TYPE_CPU_THREAD,
						     nrec[i], (uint32_t)t[i].proc),
		  "location");
		OTF2_AttributeValue av;
#define PROP(key, ...)                                                                       \
	do {                                                                                 \
		snprintf(val, sizeof val, __VA_ARGS__);                                      \
		uint32_t k_ = STR(key);                                                      \
		av.stringRef = STR(val);                                                     \
		W(OTF2_GlobalDefWriter_WriteLocationProperty(d, i, k_, OTF2_TYPE_STRING, av),  \
		  "location property");                                                      \
	} while (0)
		PROP(OTF2_DT_LOC_PID, "%" PRId64, t[i].pid);
		PROP(OTF2_DT_LOC_TID, "%" PRId64, t[i].tid);
		PROP(OTF2_DT_LOC_RANK, "%" PRId64, t[i].rank);
		PROP(OTF2_DT_LOC_MAIN, "%d", t[i].thread == 0);
		if (t[i].host)
			PROP(OTF2_DT_LOC_HOST, "%s", t[i].host);
		if (!t[i].has_time)
			PROP(OTF2_DT_LOC_NOTIME, "1");
		/* the clocks are in P.T order, as the traces: one walk */
		while (c < nck && (ck[c].proc < t[i].proc ||
				   (ck[c].proc == t[i].proc && ck[c].thread < t[i].thread)))
			c++;
		if (c < nck && ck[c].proc == t[i].proc && ck[c].thread == t[i].thread)
			PROP(OTF2_DT_LOC_CLOCK, "%d %" PRId64 " %" PRId64, ck[c].clock_id,
			     ck[c].mono_ns, ck[c].real_ns);
#undef PROP
	}
	/* MPI: the ranks' locations (each rank's first trace), then the communicators (also
	 * without ranks: the records name them) */
	{
		size_t nr = (size_t)(maxrank + 1);
		uint64_t *m = xcalloc(nr ? nr : 1, sizeof *m);
		for (size_t r = 0; r < nr; r++)
			for (size_t i = n; i-- > 0;)
				if (t[i].rank == (int64_t)r)
					m[r] = i;
		OTF2_ErrorCode rc = OTF2_GlobalDefWriter_WriteGroup(
			d, 0, empty, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
			OTF2_GROUP_FLAG_NONE, (uint32_t)nr, m);
		free(m);
		W(rc, "group");
		W(OTF2_GlobalDefWriter_WriteGroup(d, 1, empty, OTF2_GROUP_TYPE_COMM_SELF,
						  OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 0, NULL),
		  "group");
		uint32_t ng = 2;
		for (size_t c = 0; c < x->ncomm; c++) {
			struct xcomm *cm = &x->comm[c];
			uint32_t g = cm->dt == 1 ? 1 : ng++;
			if (cm->dt != 1) {
				size_t k = cm->dt == 0 ? nr : cm->n;
				uint64_t *mm = xcalloc(k ? k : 1, sizeof *mm);
				for (size_t i = 0; i < k; i++)
					mm[i] = cm->dt == 0 ? i : (uint64_t)cm->m[i];
				rc = OTF2_GlobalDefWriter_WriteGroup(
					d, g, empty, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
					OTF2_GROUP_FLAG_NONE, (uint32_t)k, mm);
				free(mm);
				W(rc, "group");
			}
			char nm[64];
			if (cm->dt == 0)
				snprintf(nm, sizeof nm, "MPI_COMM_WORLD");
			else if (cm->dt == 1)
				snprintf(nm, sizeof nm, "MPI_COMM_SELF");
			else
				snprintf(nm, sizeof nm, "communicator %d", cm->dt);
			W(OTF2_GlobalDefWriter_WriteComm(d, (uint32_t)c, STR(nm), g,
							 OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE),
			  "communicator");
		}
	}
	/* the windows of the one-sided calls, on their communicators */
	for (size_t w = 0; w < x->rma.nwin; w++) {
		char nm[64];
		snprintf(nm, sizeof nm, "window %" PRIu64, x->rma.win[w]);
		W(OTF2_GlobalDefWriter_WriteRmaWin(d, (uint32_t)w, STR(nm),
						   comm_ref(x, x->rma.comm[w]),
						   OTF2_RMA_WIN_FLAG_CREATE_DESTROY_EVENTS),
		  "window");
	}
#undef STR
#undef W
	return x->e->status ? -1 : 0;
}

int otf2_write_run(store *s, const store_run *r, const char *dir, const char *name,
		   size_t *nloc, uint64_t *nev, dt_err *e)
{
	char *anchor = xmalloc(strlen(dir) + strlen(name) + 8);
	sprintf(anchor, "%s/%s.otf2", dir, name);
	struct stat st;
	if (stat(anchor, &st) == 0) {
		dt_err_at(e, anchor, -1, "exists already: name another directory");
		free(anchor);
		return -1;
	}
	ex x = { 0 };
	x.s = s;
	x.e = e;
	x.path = anchor;
	store_trace *t = NULL;
	size_t n = 0, nv = 0, nck = 0, nhosts = 0;
	dt_sync_event *v = NULL;
	store_sync_clock *ck = NULL;
	char **hosts = NULL;
	uint64_t *nrec = NULL; /* records of each location */
	int rc = -1;
	if (store_trace_list(s, r->id, &t, &n, e) || store_sync_list(s, r->id, &v, &nv, e) ||
	    store_sync_clocks(s, r->id, &ck, &nck, e) ||
	    store_sync_hosts(s, r->id, &hosts, &nhosts, e) ||
	    store_sync_sites(s, r->id, &x.sites, e))
		goto out;
	x.names = store_func_names(s, &x.nnames);
	x.regref = xmalloc((x.nnames + 1) * sizeof *x.regref);
	memset(x.regref, 0xff, (x.nnames + 1) * sizeof *x.regref);
	x.regfunc = xmalloc((x.nnames + 1) * sizeof *x.regfunc);
	/* the communicators and the members their events show */
	comm_get(&x, 0, 1);
	comm_get(&x, 1, 1);
	for (size_t j = 0; j < n; j++)
		if (t[j].rank >= 0 && (size_t)t[j].rank >= x.nranks && t[j].rank < INT32_MAX)
			x.nranks = (size_t)t[j].rank + 1;
	for (size_t i = 0; i < nv; i++) {
		int32_t p[3] = { v[i].dest, v[i].src, v[i].root };
		for (int k = 0; k < 3; k++)
			if (p[k] >= 0 && (size_t)p[k] >= x.nranks)
				x.nranks = (size_t)p[k] + 1;
	}
	/* the events are in P.T order, as the traces: one walk gives each its trace's rank */
	for (size_t i = 0, j = 0; i < nv; i++) {
		while (j < n && (t[j].proc < v[i].proc ||
				 (t[j].proc == v[i].proc && t[j].thread < v[i].thread)))
			j++;
		if (v[i].comm < 2)
			continue;
		struct xcomm *c = comm_get(&x, v[i].comm, 1);
		if (j < n && t[j].proc == v[i].proc && t[j].thread == v[i].thread && t[j].rank >= 0 &&
		    t[j].rank < INT32_MAX)
			comm_add(&x, c, (int32_t)t[j].rank);
		comm_add(&x, c, v[i].dest);
		comm_add(&x, c, v[i].src);
		comm_add(&x, c, v[i].root);
	}
	comm_members(&x);
	if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
		dt_err_at(e, dir, -1, "cannot make the directory: %s", strerror(errno));
		goto out;
	}
	/* the smallest chunks OTF2 takes: each location's writer clears a whole chunk of events
	 * and one of definitions, which at Score-P's 1 and 4 MB was most of an export of many
	 * small traces (5.9 s for 2000 traces of 6 events) */
	x.a = OTF2_Archive_Open(dir, name, OTF2_FILEMODE_WRITE, OTF2_CHUNK_SIZE_MIN,
				OTF2_CHUNK_SIZE_MIN, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
	if (!x.a) {
		dt_err_at(e, anchor, -1, "cannot make the archive");
		goto out;
	}
	OTF2_FlushCallbacks fc = { pre_flush, post_flush };
	if (otf2_check(&x, OTF2_Archive_SetFlushCallbacks(x.a, &fc, NULL), "flush") ||
	    otf2_check(&x, OTF2_Archive_SetSerialCollectiveCallbacks(x.a), "collectives") ||
	    otf2_check(&x, OTF2_Archive_SetCreator(x.a, "difftrace export"), "creator") ||
	    otf2_check(&x, OTF2_Archive_SetProperty(x.a, OTF2_DT_PROPERTY, "1", false),
		       "property") ||
	    otf2_check(&x, OTF2_Archive_OpenEvtFiles(x.a), "event files"))
		goto out;
	x.al = OTF2_AttributeList_New();
	nrec = xcalloc(n ? n : 1, sizeof *nrec);
	size_t iv = 0;
	for (size_t i = 0; i < n; i++) {
		/* the trace's sync events: the list is in P.T order as the traces are */
		while (iv < nv && (v[iv].proc < t[i].proc ||
				   (v[iv].proc == t[i].proc && v[iv].thread < t[i].thread)))
			iv++;
		size_t jv = iv;
		while (jv < nv && v[jv].proc == t[i].proc && v[jv].thread == t[i].thread)
			jv++;
		if (!(x.w = OTF2_Archive_GetEvtWriter(x.a, i))) {
			dt_err_at(e, anchor, -1, "cannot write the events of trace %d.%d", t[i].proc,
				  t[i].thread);
			goto out;
		}
		x.self_rank = (int32_t)t[i].rank;
		x.rma.op = x.rma.lock = 0;
		int wr = write_trace(&x, &t[i], v + iv, jv - iv);
		/* the location's definition says how many records it has (readers show progress) */
		if (!wr)
			wr = otf2_check(&x, OTF2_EvtWriter_GetNumberOfEvents(x.w, &nrec[i]), "count");
		if (otf2_check(&x, OTF2_Archive_CloseEvtWriter(x.a, x.w), "events") || wr)
			goto out;
		iv = jv;
	}
	if (otf2_check(&x, OTF2_Archive_CloseEvtFiles(x.a), "event files") ||
	    otf2_check(&x, OTF2_Archive_OpenDefFiles(x.a), "definition files"))
		goto out;
	for (size_t i = 0; i < n; i++)
		if (otf2_check(&x, OTF2_Archive_CloseDefWriter(x.a, OTF2_Archive_GetDefWriter(x.a, i)),
			       "definitions"))
			goto out;
	if (otf2_check(&x, OTF2_Archive_CloseDefFiles(x.a), "definition files") ||
	    write_defs(&x, t, n, nrec, hosts, nhosts, ck, nck))
		goto out;
	rc = 0;
out:
	if (x.a && otf2_check(&x, OTF2_Archive_Close(x.a), "close"))
		rc = -1;
	if (x.al)
		OTF2_AttributeList_Delete(x.al);
	if (nloc)
		*nloc = n;
	if (nev)
		*nev = x.nev;
	for (size_t i = 0; i < x.ncomm; i++) {
		free(x.comm[i].m);
		free(x.comm[i].bits);
	}
	free(x.comm);
	free(x.sreq);
	otf2_rma_free(&x.rma);
	store_sites_free(&x.sites);
	free(nrec);
	free(x.regref);
	free(x.regfunc);
	for (size_t i = 0; i < nhosts; i++)
		free(hosts[i]);
	free(hosts);
	free(ck);
	free(v);
	store_traces_free(t, n);
	free(anchor);
	return rc;
}

#endif
