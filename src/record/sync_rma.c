/* sync_rma.c: the one-sided calls of libdifftrace-sync.so (windows, transfers, epochs) and the
 * payload digest of the bytes a call sends (difftrace-record --payload). Included by sync.c
 * after sync_mpi.c (one translation unit). */
/* ---- payload ------------------------------------------------------------------------------- */

/* The bytes a send passes, as a digest in r (dts_digest over at most g_payload of them), when
 * the recording asks for it and the buffer is a contiguous run of a predefined type without
 * padding; else r keeps 0 (derived types, the pair types of MINLOC and MAXLOC, long double,
 * MPI_BOTTOM). */
static size_t g_payload; /* DIFFTRACE_SYNC_PAYLOAD: bytes digested at most; 0 none */

static ALWAYS_INLINE void payload(dts_record *r, const void *buf, int count, MPI_Datatype t)
{
	if (__builtin_expect(!g_payload, 1))
		return;
	int size = 0;
	if (count <= 0 || !buf || buf == MPI_BOTTOM || buf == MPI_IN_PLACE || r->datatype <= 0 ||
	    t == MPI_LONG_DOUBLE ||
	    t == MPI_FLOAT_INT || t == MPI_DOUBLE_INT || t == MPI_LONG_INT || t == MPI_SHORT_INT ||
	    PMPI_Type_size(t, &size) != MPI_SUCCESS || size <= 0)
		return;
	size_t n = (size_t)count * (size_t)size;
	uint64_t d = dts_digest(buf, n < g_payload ? n : g_payload);
	r->digest_lo = (uint32_t)d;
	r->digest_hi = (uint32_t)(d >> 32);
}

/* A collective's contribution: buf (NULL or MPI_IN_PLACE: none) of n elements of type t. */
static ALWAYS_INLINE void coll_payload(dts_record *r, const void *buf, int n, MPI_Datatype t)
{
	if (__builtin_expect(!g_payload, 1) || !buf || buf == MPI_IN_PLACE)
		return;
	int32_t keep = r->datatype;
	r->datatype = type_code(t);
	payload(r, buf, n, t);
	r->datatype = keep;
}

/* The blocks a scatter, an all-to-all or a reduce-scatter takes from buf, in the order of the
 * ranks they go to, as one digest (dts_digest over the first g_payload bytes of them, one
 * after the other): n blocks of counts[i] elements of type t at displacement displs[i] (in
 * t's extent; with displs NULL, each after the last), or with counts NULL, n blocks of count
 * elements each, one after another. No digest where payload() has none. */
static void blocks_payload(dts_record *r, const void *buf, int n, const int *counts,
			   const int *displs, int count, MPI_Datatype t)
{
	int size = 0;
	MPI_Aint lb = 0, ext = 0;
	if (__builtin_expect(!g_payload, 1) || !buf || buf == MPI_IN_PLACE || n <= 0)
		return;
	if (!counts) {
		/* contiguous: the first g_payload bytes of n * count elements */
		if (count <= 0 || PMPI_Type_size(t, &size) != MPI_SUCCESS || size <= 0)
			return;
		size_t el = (size_t)n * (size_t)count, cap = g_payload / (size_t)size + 1;
		el = el < cap ? el : cap;
		coll_payload(r, buf, el < INT_MAX ? (int)el : INT_MAX, t);
		return;
	}
	int32_t code = type_code(t);
	if (code <= 0 || t == MPI_LONG_DOUBLE || t == MPI_FLOAT_INT || t == MPI_DOUBLE_INT ||
	    t == MPI_LONG_INT || t == MPI_SHORT_INT || buf == MPI_BOTTOM ||
	    PMPI_Type_size(t, &size) != MPI_SUCCESS || size <= 0 ||
	    PMPI_Type_get_extent(t, &lb, &ext) != MPI_SUCCESS || ext <= 0)
		return;
	unsigned char *tmp = malloc(g_payload);
	size_t used = 0;
	if (!tmp)
		return;
	ptrdiff_t next = 0; /* without displs, each block follows the last */
	for (int i = 0; i < n && used < g_payload; i++) {
		if (counts[i] <= 0)
			continue;
		size_t len = (size_t)counts[i] * (size_t)size, room = g_payload - used;
		ptrdiff_t at = displs ? (ptrdiff_t)displs[i] * ext : next;
		next = at + (ptrdiff_t)counts[i] * ext;
		memcpy(tmp + used, (const unsigned char *)buf + at, len < room ? len : room);
		used += len < room ? len : room;
	}
	if (used) {
		uint64_t d = dts_digest(tmp, used);
		r->digest_lo = (uint32_t)d;
		r->digest_hi = (uint32_t)(d >> 32);
	}
	free(tmp);
}

/* The rank of the caller in comm when the payload is digested (whether it is a root); -1. */
static int payload_rank(MPI_Comm comm)
{
	int me = -1;
	if (g_payload && comm != MPI_COMM_NULL)
		PMPI_Comm_rank(comm, &me);
	return me;
}

__attribute__((constructor)) static void payload_init(void)
{
	const char *v = getenv("DIFFTRACE_SYNC_PAYLOAD");
	char *end;
	if (v && *v) {
		long long n = strtoll(v, &end, 10);
		if (!*end && n > 0)
			g_payload = (size_t)n;
	}
}

/* ---- windows ------------------------------------------------------------------------------- */

#define MAX_WINS 1024

/* A window the process knows: its run-wide number (from 1), its communicator's and its
 * members' world ranks. */
static struct win_ent {
	MPI_Win h;
	int32_t id, comm, size;
	int32_t *world;
} W[MAX_WINS];
static int g_nwins, g_wins_made;

static struct win_ent *win_get(MPI_Win w)
{
	for (int i = g_nwins - 1; i >= 0; i--)
		if (W[i].world && W[i].h == w)
			return &W[i];
	return NULL;
}

/* After a window was made over comm: number it as communicators are numbered (comm_register):
 * the lowest world rank among the members and its count of windows made. */
static int32_t win_register(MPI_Comm comm, MPI_Win w)
{
	if (!g.enabled || w == MPI_WIN_NULL)
		return 0;
	int size = 0;
	PMPI_Comm_size(comm, &size);
	struct {
		int v, i;
	} in = { atomic_load(&g.rank), g_wins_made }, out = { 0, 0 };
	if (size <= 0 || PMPI_Allreduce(&in, &out, 1, MPI_2INT, MPI_MINLOC, comm) != MPI_SUCCESS)
		return 0;
	g_wins_made++;
	int32_t *world = malloc((size_t)size * sizeof *world);
	int *ranks = malloc((size_t)size * sizeof *ranks);
	if (!world || !ranks) {
		free(world);
		free(ranks);
		return 0;
	}
	MPI_Group a, b;
	for (int r = 0; r < size; r++)
		ranks[r] = r;
	PMPI_Comm_group(comm, &a);
	PMPI_Comm_group(MPI_COMM_WORLD, &b);
	PMPI_Group_translate_ranks(a, size, ranks, b, world);
	PMPI_Group_free(&a);
	PMPI_Group_free(&b);
	free(ranks);
	int64_t id = 1 + (int64_t)out.i * (g.world_size > 0 ? g.world_size : 1) + out.v;
	pthread_mutex_lock(&g.mu);
	int slot = -1;
	for (int i = 0; i < g_nwins && slot < 0; i++)
		if (!W[i].world)
			slot = i;
	if (slot < 0 && g_nwins < MAX_WINS)
		slot = g_nwins++;
	if (slot >= 0 && id <= INT32_MAX)
		W[slot] = (struct win_ent){ w, (int32_t)id, comm_id(comm_slot(comm)), size, world };
	else
		free(world), id = 0;
	pthread_mutex_unlock(&g.mu);
	return (int32_t)id;
}

static void win_forget(MPI_Win w)
{
	pthread_mutex_lock(&g.mu);
	struct win_ent *e = win_get(w);
	if (e) {
		free(e->world);
		e->world = NULL;
	}
	pthread_mutex_unlock(&g.mu);
}

/* A record of call c on window w; target (a rank of the window's group, or NO_TARGET) as a
 * world rank in dest. Not -1: MPICH's MPI_PROC_NULL is -1. */
#define NO_TARGET INT32_MIN
static ALWAYS_INLINE void rma(dts_record *r, enum dts_call c, MPI_Win w, int target)
{
	rec_init(r, c);
	pthread_mutex_lock(&g.mu);
	struct win_ent *e = win_get(w);
	if (e) {
		r->obj = (uint64_t)e->id;
		r->comm = e->comm;
		r->csize = e->size;
		if (target >= 0)
			r->dest = target < e->size ? e->world[target] : -1;
	}
	pthread_mutex_unlock(&g.mu);
	if (target == MPI_PROC_NULL)
		r->dest = -3;
}

#define MAKE_WIN(call, pcall)                                                    \
	dts_record r;                                                            \
	rec_init(&r, DTS_##call);                                                \
	r.comm = comm_id(comm_slot(comm));                                       \
	r.csize = comm_size(comm_slot(comm), comm);                              \
	r.count = (int64_t)size;                                                 \
	emit(&r, 0);                                                             \
	int rc = pcall;                                                          \
	if (rc == MPI_SUCCESS)                                                   \
		r.obj = (uint64_t)win_register(comm, *win);                      \
	emit(&r, 1);                                                             \
	return rc

int MPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
		   MPI_Win *win)
{
	MAKE_WIN(MPI_Win_create, PMPI_Win_create(base, size, disp_unit, info, comm, win));
}

int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
		     MPI_Win *win)
{
	MAKE_WIN(MPI_Win_allocate, PMPI_Win_allocate(size, disp_unit, info, comm, baseptr, win));
}

int MPI_Win_free(MPI_Win *win)
{
	dts_record r;
	rma(&r, DTS_MPI_Win_free, *win, NO_TARGET);
	MPI_Win h = *win;
	emit(&r, 0);
	int rc = PMPI_Win_free(win);
	if (rc == MPI_SUCCESS)
		win_forget(h);
	emit(&r, 1);
	return rc;
}

/* An assert in codes of its own, the same under every MPI (whose MPI_MODE_ values differ):
 * 1 MPI_MODE_NOCHECK, 2 NOSTORE, 4 NOPUT, 8 NOPRECEDE, 16 NOSUCCEED. */
static int32_t assert_code(int a)
{
	return (a & MPI_MODE_NOCHECK ? 1 : 0) | (a & MPI_MODE_NOSTORE ? 2 : 0) |
	       (a & MPI_MODE_NOPUT ? 4 : 0) | (a & MPI_MODE_NOPRECEDE ? 8 : 0) |
	       (a & MPI_MODE_NOSUCCEED ? 16 : 0);
}

/* A transfer's fields: the origin's count and type, the target and its displacement. */
static ALWAYS_INLINE void xfer(dts_record *r, enum dts_call c, MPI_Win w, int target,
			       MPI_Aint disp, int count, MPI_Datatype t, MPI_Op op)
{
	rma(r, c, w, target);
	r->objseq = (uint64_t)(int64_t)disp;
	r->count = count;
	r->datatype = type_code(t);
	if (op != MPI_OP_NULL)
		r->op = op_code(op);
}

#define CALL(pcall) \
	emit(&r, 0); \
	int rc = pcall; \
	emit(&r, 1); \
	return rc

int MPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
	    int target_rank, MPI_Aint target_disp, int target_count,
	    MPI_Datatype target_datatype, MPI_Win win)
{
	dts_record r;
	xfer(&r, DTS_MPI_Put, win, target_rank, target_disp, origin_count, origin_datatype,
	     MPI_OP_NULL);
	payload(&r, origin_addr, origin_count, origin_datatype);
	CALL(PMPI_Put(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
		      target_count, target_datatype, win));
}

int MPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
	    MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win)
{
	dts_record r;
	xfer(&r, DTS_MPI_Get, win, target_rank, target_disp, origin_count, origin_datatype,
	     MPI_OP_NULL);
	CALL(PMPI_Get(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
		      target_count, target_datatype, win));
}

int MPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
		   int target_rank, MPI_Aint target_disp, int target_count,
		   MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
	dts_record r;
	xfer(&r, DTS_MPI_Accumulate, win, target_rank, target_disp, origin_count,
	     origin_datatype, op);
	payload(&r, origin_addr, origin_count, origin_datatype);
	CALL(PMPI_Accumulate(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
			     target_count, target_datatype, op, win));
}

int MPI_Get_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
		       void *result_addr, int result_count, MPI_Datatype result_datatype,
		       int target_rank, MPI_Aint target_disp, int target_count,
		       MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
	dts_record r;
	xfer(&r, DTS_MPI_Get_accumulate, win, target_rank, target_disp, origin_count,
	     origin_datatype, op);
	payload(&r, origin_addr, origin_count, origin_datatype);
	CALL(PMPI_Get_accumulate(origin_addr, origin_count, origin_datatype, result_addr,
				 result_count, result_datatype, target_rank, target_disp,
				 target_count, target_datatype, op, win));
}

int MPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype,
		     int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win)
{
	dts_record r;
	xfer(&r, DTS_MPI_Fetch_and_op, win, target_rank, target_disp, 1, datatype, op);
	if (origin_addr)
		payload(&r, origin_addr, 1, datatype);
	CALL(PMPI_Fetch_and_op(origin_addr, result_addr, datatype, target_rank, target_disp, op,
			       win));
}

int MPI_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr,
			 MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win)
{
	dts_record r;
	xfer(&r, DTS_MPI_Compare_and_swap, win, target_rank, target_disp, 1, datatype,
	     MPI_OP_NULL);
	payload(&r, origin_addr, 1, datatype);
	CALL(PMPI_Compare_and_swap(origin_addr, compare_addr, result_addr, datatype, target_rank,
				   target_disp, win));
}

/* ---- epochs -------------------------------------------------------------------------------- */

int MPI_Win_fence(int assert, MPI_Win win)
{
	dts_record r;
	rma(&r, DTS_MPI_Win_fence, win, NO_TARGET);
	r.index = assert_code(assert);
	CALL(PMPI_Win_fence(assert, win));
}

int MPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win)
{
	dts_record r;
	rma(&r, DTS_MPI_Win_lock, win, rank);
	r.index = assert_code(assert);
	r.flags = lock_type == MPI_LOCK_EXCLUSIVE ? 1 : lock_type == MPI_LOCK_SHARED ? 2 : 0;
	CALL(PMPI_Win_lock(lock_type, rank, assert, win));
}

int MPI_Win_unlock(int rank, MPI_Win win)
{
	dts_record r;
	rma(&r, DTS_MPI_Win_unlock, win, rank);
	CALL(PMPI_Win_unlock(rank, win));
}

int MPI_Win_lock_all(int assert, MPI_Win win)
{
	dts_record r;
	rma(&r, DTS_MPI_Win_lock_all, win, NO_TARGET);
	r.index = assert_code(assert);
	CALL(PMPI_Win_lock_all(assert, win));
}

int MPI_Win_unlock_all(MPI_Win win)
{
	dts_record r;
	rma(&r, DTS_MPI_Win_unlock_all, win, NO_TARGET);
	CALL(PMPI_Win_unlock_all(win));
}

int MPI_Win_flush(int rank, MPI_Win win)
{
	dts_record r;
	rma(&r, DTS_MPI_Win_flush, win, rank);
	CALL(PMPI_Win_flush(rank, win));
}

int MPI_Win_post(MPI_Group group, int assert, MPI_Win win)
{
	dts_record r;
	rma(&r, DTS_MPI_Win_post, win, NO_TARGET);
	r.index = assert_code(assert);
	CALL(PMPI_Win_post(group, assert, win));
}

int MPI_Win_start(MPI_Group group, int assert, MPI_Win win)
{
	dts_record r;
	rma(&r, DTS_MPI_Win_start, win, NO_TARGET);
	r.index = assert_code(assert);
	CALL(PMPI_Win_start(group, assert, win));
}

int MPI_Win_complete(MPI_Win win)
{
	dts_record r;
	rma(&r, DTS_MPI_Win_complete, win, NO_TARGET);
	CALL(PMPI_Win_complete(win));
}

int MPI_Win_wait(MPI_Win win)
{
	dts_record r;
	rma(&r, DTS_MPI_Win_wait, win, NO_TARGET);
	CALL(PMPI_Win_wait(win));
}
