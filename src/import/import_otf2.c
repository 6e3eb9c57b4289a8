/* import_otf2.c: OTF2 archives (Score-P's traces, and difftrace export's) as a run, as
 * difftrace-otf2(5) says.
 *
 * Each location is a trace and a unit of a parallel import. The global definitions are read
 * whole (otf2_defs.h: they are small); the events of a location
 * are read by OTF2's event reader a chunk at a time and pushed to the sink in batches, so the
 * memory is a few chunks per location whatever the archive's size. Regions entered and left are
 * the trace's calls. The MPI and OpenMP records inside the regions of MPI and OpenMP calls
 * become sync events: the entry of such a region is held until the records inside it gave its
 * fields (an MPI_Send's destination is in the MpiSend record that follows the Enter), and
 * written at the first record that cannot add to it. The RMA records of one-sided calls do the
 * same (otf2_rma.c). */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "import/import.h"
#include "util/util.h"

#ifndef HAVE_OTF2

int import_otf2(const char *path, const dt_import_opts *o, dt_sink *s, dt_err *e)
{
	(void)o, (void)s;
	return dt_err_at(e, path, -1,
			 "difftrace was built without OTF2: it cannot read OTF2 archives "
			 "(install libotf2-trace-dev and build difftrace again)");
}

#else

#include <otf2/otf2.h>

#include "import/otf2_defs.h"
#include "import/sync_file.h"

#define BATCH 4096
#define CHUNK 65536 /* events per call of the event reader */

/* ---- the events of a location ------------------------------------------------------------ */

struct frame {
	uint32_t region;
	int call;          /* a call of the trace (not only a carrier of sync events) */
	int sync;          /* its sync call (dts_call), 0 none */
	int pending;       /* its sync entry is held for the records inside */
	int exited;        /* its sync exit was written (a critical section once acquired) */
	dt_sync_event in, out;
	dt_sync_event *done; /* completed requests of a Waitall/Testsome ... */
	size_t ndone, capdone;
};

typedef struct otf2_loc {
	otf2_in *in;
	struct location *l;
	dt_sink *s;
	uint32_t ev[BATCH];
	uint64_t ts[BATCH];
	size_t nev;
	dt_sync_event sb[BATCH];
	size_t nsb;
	int clk_sent;
	uint32_t seq;
	struct frame *fr;
	size_t nfr, capfr;
	uint64_t handled, unknown, pos, outside, unmatched;
	size_t npending; /* frames whose entry is held */
	uint64_t last_ts, last_raw;
	int regressed;
	unsigned flags;
	/* OpenMP: a fork waiting for its region, the master's last region for its join */
	int fork_pending;
	dt_sync_event fork;
	uint64_t par_obj, par_seq;
	int32_t par_team;
	uint64_t *par_count; /* instances of each parallel region in this thread, by region */
	size_t npar;
	uint32_t *strfid;    /* explicit archives: function ids by string ref */
	size_t nstrfid;
	uint32_t site_fs, site_fn, site_line, site_id; /* ... and the last call site */
	int failed;
} otf2_loc;

static OTF2_CallbackCode ev_fail(otf2_loc *x, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static OTF2_CallbackCode ev_fail(otf2_loc *x, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	char file[600];
	snprintf(file, sizeof file, "%s/%" PRIu64 ".evt", x->in->evtdir, x->l->ref);
	dt_err_at(x->in->e, file, -1, "event %" PRIu64 ": %s", x->pos, msg);
	x->failed = 1;
	return OTF2_CALLBACK_INTERRUPT;
}

static uint64_t to_ns(const otf2_in *in, uint64_t t)
{
	t = t >= in->offset ? t - in->offset : 0;
	if (in->res == 1000000000u || !in->res)
		return t;
	/* without overflow for any resolution below 1.8e10 ticks per second */
	return t / in->res * 1000000000u + t % in->res * 1000000000u / in->res;
}

static int flush_events(otf2_loc *x)
{
	if (x->nev && x->s->events(x->s->ctx, x->ev, x->l->notime ? NULL : x->ts, x->nev,
				   x->in->e))
		return -1;
	x->nev = 0;
	return 0;
}

static int flush_sync(otf2_loc *x)
{
	if (x->nsb && x->s->sync) {
		dt_sync_clock clk = { 1, 0, (int64_t)x->in->realtime };
		if (x->l->has_clock)
			clk = x->l->clk;
		if (x->s->sync(x->s->ctx, x->clk_sent ? NULL : &clk, x->sb, x->nsb, x->in->e))
			return -1;
		x->clk_sent = 1;
	}
	x->nsb = 0;
	return 0;
}

static int put_event(otf2_loc *x, uint32_t ev, uint64_t ts)
{
	if (x->nev == BATCH && flush_events(x))
		return -1;
	if (ts < x->last_ts)
		x->regressed = 1;
	x->last_ts = ts;
	x->ev[x->nev] = ev;
	x->ts[x->nev++] = ts;
	return 0;
}

static uint32_t func_of_call(otf2_loc *x, int call)
{
	otf2_in *in = x->in;
	if (in->fidgen[call] != in->gen) {
		in->fidgen[call] = in->gen;
		const char *n = sync_call_name((unsigned)call);
		in->fid[call] = x->s->func(x->s->ctx, n, strlen(n), in->e);
	}
	return in->fid[call];
}

static int put_sync(otf2_loc *x, const dt_sync_event *v)
{
	if (x->nsb == BATCH && flush_sync(x))
		return -1;
	dt_sync_event *o = &x->sb[x->nsb++];
	*o = *v;
	o->seq = x->seq++;
	return 0;
}

static void sync_init(dt_sync_event *v, int phase, uint32_t func, uint64_t ts)
{
	memset(v, 0, sizeof *v);
	v->phase = (uint8_t)phase;
	v->func = func;
	v->ts = (int64_t)ts;
	v->comm = v->dest = v->stag = v->src = v->rtag = v->root = DT_SYNC_NONE;
	v->datatype = v->op = v->team = v->tnum = DT_SYNC_NONE;
	v->count = -1;
}

/* the world rank of rank r of communicator c; DT_SYNC_NONE when it cannot be told */
static int32_t world_rank(otf2_loc *x, uint32_t c, uint32_t r)
{
	otf2_in *in = x->in;
	if (r == OTF2_UNDEFINED_UINT32 || c >= in->ncomm || !in->comm[c].defined)
		return DT_SYNC_NONE;
	uint32_t g = in->comm[c].group;
	if (g >= in->ngrp || !in->grp[g].defined)
		return DT_SYNC_NONE;
	if (in->grp[g].type == OTF2_GROUP_TYPE_COMM_SELF)
		return x->l->rank >= 0 ? (int32_t)x->l->rank : DT_SYNC_NONE;
	return r < in->grp[g].n && in->grp[g].m[r] <= INT32_MAX ? (int32_t)in->grp[g].m[r]
							   : DT_SYNC_NONE;
}

static int32_t comm_of(otf2_loc *x, uint32_t c)
{
	return c < x->in->ncomm && x->in->comm[c].defined ? x->in->comm[c].dt : DT_SYNC_NONE;
}

static int32_t comm_size(otf2_loc *x, uint32_t c)
{
	otf2_in *in = x->in;
	if (c >= in->ncomm || !in->comm[c].defined || in->comm[c].group >= in->ngrp)
		return 0;
	struct group *g = &in->grp[in->comm[c].group];
	return g->type == OTF2_GROUP_TYPE_COMM_SELF ? 1 : (int32_t)g->n;
}

/* the innermost frame of a sync call, or NULL */
static struct frame *top_sync(otf2_loc *x)
{
	return x->nfr && x->fr[x->nfr - 1].sync ? &x->fr[x->nfr - 1] : NULL;
}

/* Writes the held entry. At most one frame holds one, the innermost sync frame (every Enter
 * writes the one before): the walk from the top ends there. */
static int flush_pending(otf2_loc *x)
{
	for (size_t i = x->nfr; x->npending && i-- > 0;)
		if (x->fr[i].pending) {
			x->fr[i].pending = 0;
			x->npending--;
			if (put_sync(x, &x->fr[i].in))
				return -1;
		}
	return 0;
}

static uint64_t *par_counter(otf2_loc *x, uint32_t region)
{
	if (region >= x->npar) {
		size_t n = x->npar;
		GROW(x->par_count, x->npar, (size_t)region + 1);
		memset(x->par_count + n, 0, (x->npar - n) * sizeof *x->par_count);
	}
	return &x->par_count[region];
}

/* explicit archives: the call site of a sync event, its file, line and function (a site is a
 * number of its run: the sink numbers them in the run it imports into) */
static int attr_site(otf2_loc *x, OTF2_AttributeList *al, dt_sync_event *v)
{
	const uint32_t *a = x->in->attr;
	OTF2_StringRef fs, fn;
	uint32_t line = 0;
	if (!x->s->site || a[OTF2_DT_SITE_FILE] == OTF2_UNDEFINED_ATTRIBUTE ||
	    OTF2_AttributeList_GetStringRef(al, a[OTF2_DT_SITE_FILE], &fs) != OTF2_SUCCESS)
		return 0;
	if (a[OTF2_DT_SITE_FUNC] == OTF2_UNDEFINED_ATTRIBUTE ||
	    OTF2_AttributeList_GetStringRef(al, a[OTF2_DT_SITE_FUNC], &fn) != OTF2_SUCCESS)
		fn = OTF2_UNDEFINED_STRING;
	if (a[OTF2_DT_SITE_LINE] != OTF2_UNDEFINED_ATTRIBUTE)
		OTF2_AttributeList_GetUint32(al, a[OTF2_DT_SITE_LINE], &line);
	if (x->site_id && fs == x->site_fs && fn == x->site_fn && line == x->site_line) {
		v->site = x->site_id; /* the entry's site again, on its exit */
		return 0;
	}
	const char *file = otf2_str(x->in, fs);
	const char *func = fn == OTF2_UNDEFINED_STRING ? "" : otf2_str(x->in, fn);
	if (!file || !func) {
		ev_fail(x, "its call site names string %" PRIu32 ", which is not defined",
			file ? fn : fs);
		return -1;
	}
	if (!(v->site = x->s->site(x->s->ctx, file, line, func, x->in->e))) {
		x->failed = 1;
		return -1;
	}
	x->site_fs = fs;
	x->site_fn = fn;
	x->site_line = line;
	x->site_id = v->site;
	return 0;
}

/* explicit archives: the sync event an attribute list carries, if any */
static int attr_event(otf2_loc *x, OTF2_AttributeList *al, uint32_t region_func,
		      uint64_t ts, dt_sync_event *v)
{
	const uint32_t *a = x->in->attr;
	uint8_t phase;
	if (!al || a[OTF2_DT_PHASE] == OTF2_UNDEFINED_ATTRIBUTE ||
	    OTF2_AttributeList_GetUint8(al, a[OTF2_DT_PHASE], &phase) != OTF2_SUCCESS)
		return 0;
	sync_init(v, phase, region_func, ts);
	OTF2_StringRef fs;
	if (a[OTF2_DT_FUNC] != OTF2_UNDEFINED_ATTRIBUTE &&
	    OTF2_AttributeList_GetStringRef(al, a[OTF2_DT_FUNC], &fs) == OTF2_SUCCESS) {
		const char *n = otf2_str(x->in, fs);
		if (!n) {
			ev_fail(x, "its function name is string %" PRIu32 ", which is not defined",
				fs);
			return -1;
		}
		if (fs >= x->nstrfid) {
			size_t o = x->nstrfid;
			GROW(x->strfid, x->nstrfid, (size_t)fs + 1);
			memset(x->strfid + o, 0, (x->nstrfid - o) * sizeof *x->strfid);
		}
		if (!x->strfid[fs] &&
		    !(x->strfid[fs] = x->s->func(x->s->ctx, n, strlen(n), x->in->e)))
			return -1;
		v->func = x->strfid[fs];
	}
	int64_t i64;
	int32_t i32;
	uint64_t u64;
#define GETI(id, field)                                                                      \
	if (a[OTF2_DT_##id] != OTF2_UNDEFINED_ATTRIBUTE &&                                   \
	    OTF2_AttributeList_GetInt32(al, a[OTF2_DT_##id], &i32) == OTF2_SUCCESS)          \
	v->field = i32
#define GETL(id, field)                                                                      \
	if (a[OTF2_DT_##id] != OTF2_UNDEFINED_ATTRIBUTE &&                                   \
	    OTF2_AttributeList_GetInt64(al, a[OTF2_DT_##id], &i64) == OTF2_SUCCESS)          \
	v->field = i64
#define GETU(id, field)                                                                      \
	if (a[OTF2_DT_##id] != OTF2_UNDEFINED_ATTRIBUTE &&                                   \
	    OTF2_AttributeList_GetUint64(al, a[OTF2_DT_##id], &u64) == OTF2_SUCCESS)         \
	v->field = u64
	GETL(TS, ts);
	GETI(COMM, comm);
	GETI(DEST, dest);
	GETI(STAG, stag);
	GETI(SRC, src);
	GETI(RTAG, rtag);
	GETI(ROOT, root);
	GETL(COUNT, count);
	GETI(DATATYPE, datatype);
	GETI(OP, op);
	GETU(REQ, req);
	GETU(OBJ, obj);
	GETU(OBJSEQ, objseq);
	GETI(TEAM, team);
	GETI(TNUM, tnum);
	GETI(CSIZE, csize);
	GETL(DISP, disp);
	GETI(ASSERT, rassert);
	GETI(LOCK, lock);
	GETU(DIGEST, digest);
#undef GETI
#undef GETL
#undef GETU
	if (attr_site(x, al, v))
		return -1;
	if (v->phase > DT_SYNC_DONE) {
		ev_fail(x, "a sync event of phase %u (0, 1 or 2)", v->phase);
		return -1;
	}
	if (!v->func) {
		ev_fail(x, "a sync event outside a region and without a function name");
		return -1;
	}
	return 1;
}

static int nocall(otf2_loc *x, OTF2_AttributeList *al)
{
	uint8_t u;
	uint32_t a = x->in->attr[OTF2_DT_NOCALL];
	return al && a != OTF2_UNDEFINED_ATTRIBUTE &&
	       OTF2_AttributeList_GetUint8(al, a, &u) == OTF2_SUCCESS && u;
}

static int explicit_record(otf2_loc *x, OTF2_AttributeList *al, uint64_t ts)
{
	dt_sync_event v;
	int r = attr_event(x, al, 0, ts, &v);
	return r < 0 ? -1 : r ? put_sync(x, &v) : 0;
}

static struct region *region_of(otf2_loc *x, OTF2_RegionRef r)
{
	if (r >= x->in->nreg || !x->in->reg[r].defined) {
		ev_fail(x, "a region %" PRIu32 " that the definitions do not have (a damaged "
			   "archive?)", r);
		return NULL;
	}
	struct region *rg = &x->in->reg[r];
	if (rg->gen != x->in->gen) {
		rg->gen = x->in->gen;
		const char *n = otf2_str(x->in, rg->name);
		if (!(rg->fid = x->s->func(x->s->ctx, n, strlen(n), x->in->e))) {
			x->failed = 1;
			return NULL;
		}
	}
	return rg;
}

/* Every callback: count the record, check its time (OTF2 writes a location's records in time
 * order, so time going back is damage: a flipped bit, with no checksum to tell), convert it. */
#define CB_BEGIN(x, ud, t)                                                                  \
	otf2_loc *x = ud;                                                                    \
	x->pos++;                                                                            \
	x->handled++;                                                                        \
	if ((t) < x->last_raw)                                                               \
		return ev_fail(x, "its time %" PRIu64 " is before the previous record's %"   \
				  PRIu64 " (OTF2 keeps a location's records in time order): " \
				  "the archive is damaged", (uint64_t)(t), x->last_raw);     \
	x->last_raw = (t);                                                                   \
	uint64_t ns_ = to_ns(x->in, t);                                                      \
	(void)ns_

#define CB_RC(expr) ((expr) ? (x->failed = 1, OTF2_CALLBACK_INTERRUPT) : OTF2_CALLBACK_SUCCESS)

static OTF2_CallbackCode e_enter(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t p, void *ud,
				 OTF2_AttributeList *al, OTF2_RegionRef r)
{
	(void)loc, (void)p;
	CB_BEGIN(x, ud, t);
	struct region *rg = region_of(x, r);
	if (!rg)
		return OTF2_CALLBACK_INTERRUPT;
	if (x->in->explicit_sync && nocall(x, al))
		return CB_RC(explicit_record(x, al, ns_)); /* a carrier of a sync event alone */
	if (flush_pending(x))
		return CB_RC(1);
	GROW(x->fr, x->capfr, x->nfr + 1);
	struct frame *f = &x->fr[x->nfr++];
	memset(f, 0, sizeof *f);
	f->region = r;
	f->call = 1;
	if (f->call && put_event(x, rg->fid, ns_))
		return CB_RC(1);
	if (x->in->explicit_sync) {
		dt_sync_event v;
		int rc = attr_event(x, al, rg->fid, ns_, &v);
		return CB_RC(rc < 0 || (rc && put_sync(x, &v)));
	}
	if (rg->kind == OTK_NONE)
		return OTF2_CALLBACK_SUCCESS;
	if (rg->kind == OTK_PAR) {
		uint64_t *n = par_counter(x, r);
		++*n;
		uint64_t obj = (uint64_t)r + 1;
		int32_t team = x->l->group < x->in->nlg ? (int32_t)x->in->lg[x->l->group].nlocs : -1;
		if (x->fork_pending) {
			/* the master's fork, now that its region is known */
			x->fork_pending = 0;
			x->fork.obj = obj;
			x->fork.objseq = *n;
			if (x->fork.team > 0)
				team = x->fork.team;
			x->fork.team = team;
			x->fork.tnum = 0;
			if (put_sync(x, &x->fork))
				return CB_RC(1);
			x->par_obj = obj;
			x->par_seq = *n;
			x->par_team = team;
		}
		f->sync = DTS_GOMP_parallel_body;
		sync_init(&f->in, DT_SYNC_ENTER, func_of_call(x, f->sync), ns_);
		f->in.obj = obj;
		f->in.objseq = *n;
		f->in.team = team;
		f->in.tnum = x->l->thread;
		f->out = f->in;
		f->out.phase = DT_SYNC_EXIT;
		return CB_RC(put_sync(x, &f->in));
	}
	f->sync = rg->call;
	uint32_t fid = func_of_call(x, f->sync);
	if (!fid)
		return CB_RC(1);
	sync_init(&f->in, DT_SYNC_ENTER, fid, ns_);
	f->out = f->in;
	f->out.phase = DT_SYNC_EXIT;
	if (rg->kind == OTK_OMPBAR) {
		f->in.tnum = f->out.tnum = x->l->thread;
		return CB_RC(put_sync(x, &f->in));
	}
	/* a receive's source and tag are recorded when it completes (MpiRecv): the entry of
	 * one that never did says neither (DT_SYNC_NONE), as the archive does not */
	f->pending = 1;
	x->npending++;
	return OTF2_CALLBACK_SUCCESS;
}

/* Closes the innermost frame at time ns. */
static int close_frame(otf2_loc *x, uint64_t ns)
{
	struct frame *f = &x->fr[x->nfr - 1];
	if (f->pending) {
		f->pending = 0;
		x->npending--;
		if (put_sync(x, &f->in))
			return -1;
	}
	if (f->sync && !f->exited && !x->in->explicit_sync) {
		f->out.ts = (int64_t)ns;
		if (put_sync(x, &f->out))
			return -1;
		for (size_t i = 0; i < f->ndone; i++) {
			f->done[i].ts = (int64_t)ns;
			if (put_sync(x, &f->done[i]))
				return -1;
		}
	}
	free(f->done);
	int call = f->call;
	x->nfr--;
	return call ? put_event(x, DT_RET, ns) : 0;
}

static OTF2_CallbackCode e_leave(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t p, void *ud,
				 OTF2_AttributeList *al, OTF2_RegionRef r)
{
	(void)loc, (void)p;
	CB_BEGIN(x, ud, t);
	if (!region_of(x, r))
		return OTF2_CALLBACK_INTERRUPT;
	if (x->in->explicit_sync && nocall(x, al))
		return CB_RC(explicit_record(x, al, ns_));
	size_t i = x->nfr;
	while (i && x->fr[i - 1].region != r)
		i--;
	if (!i) {
		/* a leave without its enter: kept out, and said */
		x->unmatched++;
		return OTF2_CALLBACK_SUCCESS;
	}
	if (i != x->nfr)
		x->unmatched++;
	while (x->nfr >= i)
		if (close_frame(x, ns_))
			return CB_RC(1);
	return CB_RC(x->in->explicit_sync && explicit_record(x, al, ns_));
}

/* The MPI records: fields of the innermost MPI call. A record outside one is counted. */
static struct frame *mpi_frame(otf2_loc *x)
{
	struct frame *f = top_sync(x);
	if (!f || x->in->reg[f->region].kind != OTK_MPI) {
		x->outside++;
		return NULL;
	}
	return f;
}

/* A record naming a communicator the definitions lack is damage (a flipped bit). */
static int bad_comm(otf2_loc *x, OTF2_CommRef c)
{
	if (c < x->in->ncomm && x->in->comm[c].defined)
		return 0;
	ev_fail(x, "a communicator %" PRIu32 " that the definitions do not have (a damaged "
		   "archive?)", c);
	return 1;
}

static OTF2_CallbackCode e_send(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t p, void *ud,
				OTF2_AttributeList *al, uint32_t to, OTF2_CommRef c, uint32_t tag,
				uint64_t len)
{
	(void)loc, (void)p;
	CB_BEGIN(x, ud, t);
	if (x->in->explicit_sync)
		return CB_RC(explicit_record(x, al, ns_));
	if (bad_comm(x, c))
		return OTF2_CALLBACK_INTERRUPT;
	struct frame *f = mpi_frame(x);
	if (!f)
		return OTF2_CALLBACK_SUCCESS;
	dt_sync_event *v[2] = { &f->in, &f->out };
	for (int k = 0; k < 2; k++) {
		v[k]->dest = world_rank(x, c, to);
		v[k]->stag = tag <= INT32_MAX ? (int32_t)tag : DT_SYNC_NONE;
		v[k]->comm = comm_of(x, c);
		v[k]->count = (int64_t)len;
	}
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_isend(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t p, void *ud,
				 OTF2_AttributeList *al, uint32_t to, OTF2_CommRef c,
				 uint32_t tag, uint64_t len, uint64_t req)
{
	OTF2_CallbackCode rc = e_send(loc, t, p, ud, al, to, c, tag, len);
	otf2_loc *x = ud;
	struct frame *f = top_sync(x);
	if (rc == OTF2_CALLBACK_SUCCESS && !x->in->explicit_sync && f &&
	    x->in->reg[f->region].kind == OTK_MPI)
		f->out.req = req + 1;
	return rc;
}

static void recv_fields(otf2_loc *x, dt_sync_event *v, uint32_t from, OTF2_CommRef c,
			uint32_t tag, uint64_t len)
{
	v->src = world_rank(x, c, from);
	v->rtag = tag <= INT32_MAX ? (int32_t)tag : DT_SYNC_NONE;
	v->comm = comm_of(x, c);
	if (v->count < 0)
		v->count = (int64_t)len;
}

static OTF2_CallbackCode e_recv(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t p, void *ud,
				OTF2_AttributeList *al, uint32_t from, OTF2_CommRef c,
				uint32_t tag, uint64_t len)
{
	(void)loc, (void)p;
	CB_BEGIN(x, ud, t);
	if (x->in->explicit_sync)
		return CB_RC(explicit_record(x, al, ns_));
	if (bad_comm(x, c))
		return OTF2_CALLBACK_INTERRUPT;
	struct frame *f = mpi_frame(x);
	if (!f)
		return OTF2_CALLBACK_SUCCESS;
	/* the entry is written with the source it got: the archive does not say whether it
	 * was any */
	if (f->pending)
		recv_fields(x, &f->in, from, c, tag, len);
	recv_fields(x, &f->out, from, c, tag, len);
	return OTF2_CALLBACK_SUCCESS;
}

static int multi_completion(int call)
{
	return call == DTS_MPI_Waitall || call == DTS_MPI_Waitsome || call == DTS_MPI_Waitany ||
	       call == DTS_MPI_Testall || call == DTS_MPI_Testsome || call == DTS_MPI_Testany;
}

/* A request completed inside a Wait or Test: the single call's exit, or one DONE more. */
static dt_sync_event *completion(otf2_loc *x, struct frame *f)
{
	if (!multi_completion(f->sync))
		return &f->out;
	GROW(f->done, f->capdone, f->ndone + 1);
	dt_sync_event *d = &f->done[f->ndone++];
	sync_init(d, DT_SYNC_DONE, f->out.func, 0);
	(void)x;
	return d;
}

static OTF2_CallbackCode e_irecv(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t p, void *ud,
				 OTF2_AttributeList *al, uint32_t from, OTF2_CommRef c,
				 uint32_t tag, uint64_t len, uint64_t req)
{
	(void)loc, (void)p;
	CB_BEGIN(x, ud, t);
	if (x->in->explicit_sync)
		return CB_RC(explicit_record(x, al, ns_));
	if (bad_comm(x, c))
		return OTF2_CALLBACK_INTERRUPT;
	struct frame *f = mpi_frame(x);
	if (!f)
		return OTF2_CALLBACK_SUCCESS;
	dt_sync_event *d = completion(x, f);
	recv_fields(x, d, from, c, tag, len);
	d->req = req + 1;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_isend_done(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t p,
				      void *ud, OTF2_AttributeList *al, uint64_t req)
{
	(void)loc, (void)p;
	CB_BEGIN(x, ud, t);
	if (x->in->explicit_sync)
		return CB_RC(explicit_record(x, al, ns_));
	struct frame *f = mpi_frame(x);
	if (f)
		completion(x, f)->req = req + 1;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_irecv_req(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t p,
				     void *ud, OTF2_AttributeList *al, uint64_t req)
{
	(void)loc, (void)p;
	CB_BEGIN(x, ud, t);
	if (x->in->explicit_sync)
		return CB_RC(explicit_record(x, al, ns_));
	struct frame *f = mpi_frame(x);
	if (f)
		f->out.req = req + 1;
	return OTF2_CALLBACK_SUCCESS;
}

/* Records that add nothing to a sync event (a test that did not complete, a cancel, the
 * beginning of a collective): read, and carriers of sync events in an explicit archive. */
static OTF2_CallbackCode e_req_other(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t p,
				     void *ud, OTF2_AttributeList *al, uint64_t req)
{
	(void)loc, (void)p, (void)req;
	CB_BEGIN(x, ud, t);
	return CB_RC(x->in->explicit_sync && explicit_record(x, al, ns_));
}

static OTF2_CallbackCode e_coll_begin(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t p,
				      void *ud, OTF2_AttributeList *al)
{
	(void)loc, (void)p;
	CB_BEGIN(x, ud, t);
	return CB_RC(x->in->explicit_sync && explicit_record(x, al, ns_));
}

/* An OpenMP thread team's begin or end (OMPT): what it says, the parallel region's regions
 * say too. Read, and a carrier of sync events in an explicit archive. */
static OTF2_CallbackCode e_team(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t p, void *ud,
				OTF2_AttributeList *al, OTF2_CommRef team)
{
	(void)loc, (void)p, (void)team;
	CB_BEGIN(x, ud, t);
	return CB_RC(x->in->explicit_sync && explicit_record(x, al, ns_));
}

static OTF2_CallbackCode e_coll_end(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t p,
				    void *ud, OTF2_AttributeList *al, OTF2_CollectiveOp op,
				    OTF2_CommRef c, uint32_t root, uint64_t sent, uint64_t got)
{
	(void)loc, (void)p, (void)op, (void)sent, (void)got;
	CB_BEGIN(x, ud, t);
	if (x->in->explicit_sync)
		return CB_RC(explicit_record(x, al, ns_));
	if (bad_comm(x, c))
		return OTF2_CALLBACK_INTERRUPT;
	struct frame *f = mpi_frame(x);
	if (!f)
		return OTF2_CALLBACK_SUCCESS;
	dt_sync_event *v[2] = { &f->in, &f->out };
	for (int k = 0; k < 2; k++) {
		v[k]->comm = comm_of(x, c);
		v[k]->csize = comm_size(x, c);
		v[k]->root = root == OTF2_COLLECTIVE_ROOT_SELF || root == OTF2_COLLECTIVE_ROOT_THIS_GROUP
				     ? DT_SYNC_NONE : world_rank(x, c, root);
	}
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_fork(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t p, void *ud,
				OTF2_AttributeList *al, OTF2_Paradigm model, uint32_t n)
{
	(void)loc, (void)p;
	CB_BEGIN(x, ud, t);
	if (x->in->explicit_sync)
		return CB_RC(explicit_record(x, al, ns_));
	if (model != OTF2_PARADIGM_OPENMP) {
		x->handled--;
		return OTF2_CALLBACK_SUCCESS;
	}
	if (flush_pending(x))
		return CB_RC(1);
	uint32_t fid = func_of_call(x, DTS_GOMP_parallel);
	if (!fid)
		return CB_RC(1);
	sync_init(&x->fork, DT_SYNC_ENTER, fid, ns_);
	x->fork.team = n ? (int32_t)n : -1;
	x->fork_pending = 1;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_join(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t p, void *ud,
				OTF2_AttributeList *al, OTF2_Paradigm model)
{
	(void)loc, (void)p;
	CB_BEGIN(x, ud, t);
	if (x->in->explicit_sync)
		return CB_RC(explicit_record(x, al, ns_));
	if (model != OTF2_PARADIGM_OPENMP) {
		x->handled--;
		return OTF2_CALLBACK_SUCCESS;
	}
	if (flush_pending(x))
		return CB_RC(1);
	uint32_t fid = func_of_call(x, DTS_GOMP_parallel);
	if (!fid)
		return CB_RC(1);
	if (x->fork_pending) {
		/* a fork without a region: its entry first */
		x->fork_pending = 0;
		if (put_sync(x, &x->fork))
			return CB_RC(1);
	}
	dt_sync_event v;
	sync_init(&v, DT_SYNC_EXIT, fid, ns_);
	v.obj = x->par_obj;
	v.objseq = x->par_seq;
	v.team = x->par_team;
	v.tnum = 0;
	return CB_RC(put_sync(x, &v));
}

static OTF2_CallbackCode e_lock(otf2_loc *x, OTF2_AttributeList *al, uint64_t ns,
				OTF2_Paradigm model, uint32_t lock, uint32_t order, int acquire)
{
	if (x->in->explicit_sync)
		return CB_RC(explicit_record(x, al, ns));
	if (model != OTF2_PARADIGM_OPENMP) {
		x->handled--;
		return OTF2_CALLBACK_SUCCESS;
	}
	struct frame *f = top_sync(x);
	int kind = f ? x->in->reg[f->region].kind : OTK_NONE;
	/* OpenMP's lock ids are numbers of the process; 0 and 1 are the recorder's "none" and
	 * "the unnamed critical section" */
	uint64_t obj = (uint64_t)lock + 2, seq = (uint64_t)order + 1;
	if (acquire && (kind == OTK_CRIT || kind == OTK_SETLOCK)) {
		f->in.obj = f->out.obj = obj;
		f->out.objseq = seq;
		if (kind == OTK_CRIT) {
			/* acquired here; the rest of the region is the section's body */
			f->out.ts = (int64_t)ns;
			f->exited = 1;
			if (flush_pending(x) || put_sync(x, &f->out))
				return CB_RC(1);
		}
		return OTF2_CALLBACK_SUCCESS;
	}
	if (!acquire && kind == OTK_UNSETLOCK) {
		f->in.obj = f->out.obj = obj;
		f->in.objseq = f->out.objseq = seq;
		return OTF2_CALLBACK_SUCCESS;
	}
	if (!acquire && kind == OTK_CRIT) {
		uint32_t fid = func_of_call(x, DTS_GOMP_critical_end);
		if (!fid || flush_pending(x))
			return CB_RC(1);
		dt_sync_event v;
		sync_init(&v, DT_SYNC_ENTER, fid, ns);
		v.obj = obj;
		v.objseq = seq;
		if (put_sync(x, &v))
			return CB_RC(1);
		v.phase = DT_SYNC_EXIT;
		return CB_RC(put_sync(x, &v));
	}
	x->outside++;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_acquire(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t p,
				   void *ud, OTF2_AttributeList *al, OTF2_Paradigm model,
				   uint32_t lock, uint32_t order)
{
	(void)loc, (void)p;
	CB_BEGIN(x, ud, t);
	return e_lock(x, al, ns_, model, lock, order, 1);
}

static OTF2_CallbackCode e_release(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t p,
				   void *ud, OTF2_AttributeList *al, OTF2_Paradigm model,
				   uint32_t lock, uint32_t order)
{
	(void)loc, (void)p;
	CB_BEGIN(x, ud, t);
	return e_lock(x, al, ns_, model, lock, order, 0);
}

/* The records of OpenMP before OTF2 2.0 (older Score-P), as their successors. */
static OTF2_CallbackCode e_omp_fork(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t p,
				    void *ud, OTF2_AttributeList *al, uint32_t n)
{
	return e_fork(loc, t, p, ud, al, OTF2_PARADIGM_OPENMP, n);
}

static OTF2_CallbackCode e_omp_join(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t p,
				    void *ud, OTF2_AttributeList *al)
{
	return e_join(loc, t, p, ud, al, OTF2_PARADIGM_OPENMP);
}

static OTF2_CallbackCode e_omp_acquire(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t p,
				       void *ud, OTF2_AttributeList *al, uint32_t lock,
				       uint32_t order)
{
	return e_acquire(loc, t, p, ud, al, OTF2_PARADIGM_OPENMP, lock, order);
}

static OTF2_CallbackCode e_omp_release(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t p,
				       void *ud, OTF2_AttributeList *al, uint32_t lock,
				       uint32_t order)
{
	return e_release(loc, t, p, ud, al, OTF2_PARADIGM_OPENMP, lock, order);
}

#include "import/otf2_rma.c"

static OTF2_CallbackCode e_unknown(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t p,
				   void *ud, OTF2_AttributeList *al)
{
	(void)loc, (void)t, (void)p, (void)al;
	otf2_loc *x = ud;
	x->pos++;
	x->unknown++;
	return OTF2_CALLBACK_SUCCESS;
}

static void note_add(dt_buf *note, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void note_add(dt_buf *note, const char *fmt, ...)
{
	char tmp[600];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	if (note->len)
		buf_put(note, "; ", 2);
	buf_put(note, tmp, strlen(tmp));
}

static OTF2_EvtReaderCallbacks *evt_callbacks(void)
{
	OTF2_EvtReaderCallbacks *cb = OTF2_EvtReaderCallbacks_New();
	if (!cb)
		return NULL;
	OTF2_EvtReaderCallbacks_SetEnterCallback(cb, e_enter);
	OTF2_EvtReaderCallbacks_SetLeaveCallback(cb, e_leave);
	OTF2_EvtReaderCallbacks_SetMpiSendCallback(cb, e_send);
	OTF2_EvtReaderCallbacks_SetMpiIsendCallback(cb, e_isend);
	OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(cb, e_isend_done);
	OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(cb, e_irecv_req);
	OTF2_EvtReaderCallbacks_SetMpiRecvCallback(cb, e_recv);
	OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(cb, e_irecv);
	OTF2_EvtReaderCallbacks_SetMpiRequestTestCallback(cb, e_req_other);
	OTF2_EvtReaderCallbacks_SetMpiRequestCancelledCallback(cb, e_req_other);
	OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback(cb, e_coll_begin);
	OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, e_coll_end);
	OTF2_EvtReaderCallbacks_SetThreadForkCallback(cb, e_fork);
	OTF2_EvtReaderCallbacks_SetThreadJoinCallback(cb, e_join);
	OTF2_EvtReaderCallbacks_SetThreadAcquireLockCallback(cb, e_acquire);
	OTF2_EvtReaderCallbacks_SetThreadReleaseLockCallback(cb, e_release);
	OTF2_EvtReaderCallbacks_SetThreadTeamBeginCallback(cb, e_team);
	OTF2_EvtReaderCallbacks_SetThreadTeamEndCallback(cb, e_team);
	OTF2_EvtReaderCallbacks_SetOmpForkCallback(cb, e_omp_fork);
	OTF2_EvtReaderCallbacks_SetOmpJoinCallback(cb, e_omp_join);
	OTF2_EvtReaderCallbacks_SetOmpAcquireLockCallback(cb, e_omp_acquire);
	OTF2_EvtReaderCallbacks_SetOmpReleaseLockCallback(cb, e_omp_release);
	rma_callbacks(cb);
	OTF2_EvtReaderCallbacks_SetUnknownCallback(cb, e_unknown);
	return cb;
}

static int otf2_fail(otf2_in *in, const char *file, const char *what, OTF2_ErrorCode rc)
{
	return dt_err_at(in->e, file, -1, "%s: %s", what,
			 otf2_error_text(rc));
}

/* One location as one trace. */
static int read_location(otf2_in *in, OTF2_Reader *rd, struct location *l, dt_sink *s,
			 const OTF2_EvtReaderCallbacks *cb)
{
	otf2_loc *x = xcalloc(1, sizeof *x);
	x->in = in;
	x->l = l;
	x->s = s;
	char file[600];
	snprintf(file, sizeof file, "%s/%" PRIu64 ".evt", in->evtdir, l->ref);
	dt_trace_meta m = { l->pid, l->tid, l->rank, l->is_main, l->host, file };
	dt_buf note = { 0 };
	int rc = -1;
	in->gen++;
	if (s->begin(s->ctx, &m, in->e))
		goto out;
	/* the local definitions map the location's numbers to the global ones (Score-P) */
	OTF2_DefReader *dr = OTF2_Reader_GetDefReader(rd, l->ref);
	if (dr) {
		uint64_t nd = 0;
		OTF2_ErrorCode ec = OTF2_Reader_ReadAllLocalDefinitions(rd, dr, &nd);
		OTF2_Reader_CloseDefReader(rd, dr);
		if (ec != OTF2_SUCCESS) {
			snprintf(file, sizeof file, "%s/%" PRIu64 ".def", in->evtdir, l->ref);
			otf2_fail(in, file, "cannot read the location's definitions", ec);
			goto out;
		}
	}
	uint64_t total = 0;
	struct stat st;
	/* a location its definition says has no events may have no file either: an empty
	 * trace (flagged below), not an error */
	int nofile = !l->nevents && stat(file, &st) != 0 && errno == ENOENT;
	if (!nofile) {
		otf2_error_clear();
		OTF2_EvtReader *er = OTF2_Reader_GetEvtReader(rd, l->ref);
		if (!er) {
			otf2_fail(in, file, "cannot open the location's events", OTF2_ERROR_INVALID);
			goto out;
		}
		OTF2_Reader_RegisterEvtCallbacks(rd, er, cb, x);
		for (;;) {
			uint64_t got = 0;
			OTF2_ErrorCode ec = OTF2_Reader_ReadLocalEvents(rd, er, CHUNK, &got);
			total += got;
			if (x->failed) { /* a callback's error, already in e */
				OTF2_Reader_CloseEvtReader(rd, er);
				goto out;
			}
			if (ec != OTF2_SUCCESS) {
				char what[160];
				snprintf(what, sizeof what,
					 "the events are damaged after event %" PRIu64, total);
				otf2_fail(in, file, what, ec);
				OTF2_Reader_CloseEvtReader(rd, er);
				goto out;
			}
			if (got < CHUNK)
				break;
		}
		OTF2_Reader_CloseEvtReader(rd, er);
	}
	/* what is still open at the end: a thread stopped inside a call */
	uint64_t open = 0;
	for (size_t i = 0; i < x->nfr; i++)
		open += x->fr[i].call;
	if (flush_pending(x))
		goto out;
	if (x->fork_pending) {
		x->fork_pending = 0;
		if (put_sync(x, &x->fork))
			goto out;
	}
	for (size_t i = 0; i < x->nfr; i++)
		free(x->fr[i].done);
	if (flush_events(x) || flush_sync(x))
		goto out;
	unsigned flags = 0;
	if (!total) {
		flags |= DT_TF_EMPTY;
		note_add(&note, "the archive has no events for location %" PRIu64 " (%s)%s", l->ref,
			 otf2_str(in, l->name) ? otf2_str(in, l->name) : "unnamed",
			 nofile ? ", not even its file" : "");
	}
	if (l->nevents && total != l->nevents) {
		/* the writer counted the location's records in its definition: the file holds
		 * fewer (a file ended at a chunk's end) or more (definitions of another run) */
		if (total < l->nevents)
			flags |= DT_TF_TRUNCATED;
		note_add(&note, "the location's definition counts %" PRIu64 " records, its file "
				"holds %" PRIu64, l->nevents, total);
	}
	if (open) {
		flags |= DT_TF_OPEN_FRAMES;
		note_add(&note, "%" PRIu64 " call%s open at the end (left open)", open,
			 open == 1 ? "" : "s");
	}
	if (x->unmatched) {
		flags |= DT_TF_UNMATCHED;
		note_add(&note, "%" PRIu64 " leave record%s without the enter of its region",
			 x->unmatched, x->unmatched == 1 ? "" : "s");
	}
	if (x->regressed)
		flags |= DT_TF_TIME_REGRESSED;
	uint64_t unmapped = total - x->handled - x->unknown;
	if (unmapped)
		note_add(&note,
			 "%" PRIu64 " record%s of kinds difftrace does not map (metrics, "
			 "parameters, I/O...) left out",
			 unmapped, unmapped == 1 ? "" : "s");
	if (x->unknown)
		note_add(&note, "%" PRIu64 " record%s of kinds this OTF2 library does not know "
				"left out", x->unknown, x->unknown == 1 ? "" : "s");
	if (x->outside)
		note_add(&note, "%" PRIu64 " MPI or OpenMP record%s outside the region of a call "
				"that difftrace knows left out", x->outside,
			 x->outside == 1 ? "" : "s");
	buf_byte(&note, 0);
	rc = s->end(s->ctx, flags, (const char *)note.p, in->e);
out:
	buf_free(&note);
	free(x->fr);
	free(x->par_count);
	free(x->strfid);
	free(x);
	return rc;
}

/* The anchor file of PATH: PATH itself, or the one *.otf2 file of a directory. */
static char *anchor_of(const char *path, dt_err *e)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		dt_err_at(e, path, -1, "cannot read: %s", strerror(errno));
		return NULL;
	}
	if (!S_ISDIR(st.st_mode))
		return xstrdup(path);
	DIR *d = opendir(path);
	if (!d) {
		dt_err_at(e, path, -1, "cannot open directory: %s", strerror(errno));
		return NULL;
	}
	char *found = NULL;
	int n = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		if (l > 5 && !strcmp(de->d_name + l - 5, ".otf2")) {
			n++;
			if (!found)
				found = path_join(path, de->d_name);
		}
	}
	closedir(d);
	if (n != 1) {
		free(found);
		dt_err_at(e, path, -1, n ? "more than one OTF2 archive here: name its .otf2 file"
					 : "no OTF2 archive here (no .otf2 anchor file)");
		return NULL;
	}
	return found;
}

int import_otf2(const char *path, const dt_import_opts *o, dt_sink *s, dt_err *e)
{
	char *anchor = anchor_of(path, e);
	if (!anchor)
		return -1;
	otf2_in in = { 0 };
	in.path = anchor;
	in.e = e;
	for (int i = 0; i < OTF2_DT_NATTRS; i++)
		in.attr[i] = OTF2_UNDEFINED_ATTRIBUTE;
	size_t al = strlen(anchor);
	in.evtdir = xstrdup(anchor);
	if (al > 5 && !strcmp(anchor + al - 5, ".otf2"))
		in.evtdir[al - 5] = 0;
	otf2_errors_catch();
	otf2_error_clear();
	int rc = -1;
	OTF2_EvtReaderCallbacks *ecb = NULL;
	OTF2_Reader *rd = OTF2_Reader_Open(anchor);
	if (!rd) {
		otf2_fail(&in, anchor, "not an OTF2 archive, or a damaged anchor file",
			  OTF2_ERROR_INVALID);
		goto out;
	}
	OTF2_ErrorCode ec = OTF2_Reader_SetSerialCollectiveCallbacks(rd);
	char *prop = NULL;
	if (OTF2_Reader_GetProperty(rd, OTF2_DT_PROPERTY, &prop) == OTF2_SUCCESS) {
		in.explicit_sync = 1;
		free(prop);
	}
	if (ec != OTF2_SUCCESS) {
		otf2_fail(&in, anchor, "cannot open the global definitions", ec);
		goto out;
	}
	if (otf2_defs_read(&in, rd))
		goto out;
	if (!in.nloc) {
		dt_err_at(e, anchor, -1, "the archive defines no locations");
		goto out;
	}
	for (size_t i = 0; i < in.nloc; i++)
		OTF2_Reader_SelectLocation(rd, in.loc[i].ref);
	if ((ec = OTF2_Reader_OpenDefFiles(rd)) != OTF2_SUCCESS ||
	    (ec = OTF2_Reader_OpenEvtFiles(rd)) != OTF2_SUCCESS) {
		otf2_fail(&in, anchor, "cannot open the archive's files", ec);
		goto out;
	}
	if (!(ecb = evt_callbacks())) {
		dt_errf(e, DT_EDATA, "out of memory");
		goto out;
	}
	rc = 0;
	for (size_t i = 0; i < in.nloc && !rc; i++) {
		int mine = import_unit(o, e);
		if (mine < 0)
			rc = -1;
		else if (mine)
			rc = read_location(&in, rd, &in.loc[i], s, ecb);
	}
	OTF2_Reader_CloseEvtFiles(rd);
	OTF2_Reader_CloseDefFiles(rd);
out:
	if (ecb)
		OTF2_EvtReaderCallbacks_Delete(ecb);
	if (rd)
		OTF2_Reader_Close(rd);
	otf2_defs_free(&in);
	free(anchor);
	return rc;
}

#endif
