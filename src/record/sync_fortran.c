/* sync_fortran.c: the Fortran bindings of MPI in libdifftrace-sync.so (Open MPI's mpi_*_ and
 * mpi_f08 entry points, MPICH's mpi_f08 calls that bypass its C functions), recorded as the C
 * calls. Included by sync.c (one translation unit). */
/* ---- Fortran (Open MPI) --------------------------------------------------------------------- */

#if defined(OPEN_MPI)
/* Open MPI's Fortran bindings (mpif.h and `use mpi`: mpi_send_; `use mpi_f08`: mpi_send_f08,
 * which calls ompi_send_f, the same function as mpi_send_) call the C PMPI_ functions, not the
 * MPI_ ones above: a Fortran program had no sync events at all. These wrappers record the
 * calls as the C ones, with the handles converted by the f2c functions, and hand them on to
 * the library's own Fortran entry (pmpi_send_), so Fortran's conventions (status arrays,
 * MPI_BOTTOM, MPI_IN_PLACE) stay the library's business. MPICH's Fortran bindings call the C
 * MPI_ functions, which the wrappers above record: its build has none of these. */
typedef MPI_Fint fint;

/* The library's Fortran entry `name`, found once. */
#define FREAL(type, name)                                                  \
	static _Atomic(__typeof__(type)) fn; /* threads may race to set it */ \
	if (!fn) {                                                         \
		fn = (type)dlsym(RTLD_NEXT, name);                         \
		if (!fn)                                                   \
			missing(name);                                     \
	}

/* A Fortran status to read after the call: the caller's, or ours for MPI_STATUS_IGNORE. */
#define FSTATUS_WORDS (sizeof(MPI_Status) / sizeof(fint) + 2)
static fint *fstatus(fint *st, fint *own)
{
	return st == MPI_F_STATUS_IGNORE ? own : st;
}

static int fstatus_c(const fint *st, MPI_Status *out)
{
	return PMPI_Status_f2c(st, out) == MPI_SUCCESS;
}

/* The payload digest of a Fortran buffer (difftrace-record --payload): the program passes
 * MPI_BOTTOM and MPI_IN_PLACE as the addresses of the library's common blocks
 * (mpi_fortran_bottom_, mpi_fortran_in_place_, under each of the compilers' manglings),
 * which are looked up once. fbuf(p): p, or NULL (no digest) for those or when they cannot be
 * found; fin_place(p): whether p is MPI_IN_PLACE. */
static const void *f_bottom[4], *f_in_place[4];
static int f_consts_found;
static pthread_once_t f_consts_once = PTHREAD_ONCE_INIT;

static void f_consts_find(void)
{
	static const char *const b[4] = { "mpi_fortran_bottom_", "mpi_fortran_bottom",
					  "mpi_fortran_bottom__", "MPI_FORTRAN_BOTTOM" };
	static const char *const i[4] = { "mpi_fortran_in_place_", "mpi_fortran_in_place",
					  "mpi_fortran_in_place__", "MPI_FORTRAN_IN_PLACE" };
	for (int k = 0; k < 4; k++) {
		f_bottom[k] = dlsym(RTLD_DEFAULT, b[k]);
		f_in_place[k] = dlsym(RTLD_DEFAULT, i[k]);
		f_consts_found |= f_bottom[k] && f_in_place[k];
	}
}

static int fin_place(const void *p)
{
	if (!g_payload)
		return 0;
	pthread_once(&f_consts_once, f_consts_find);
	for (int k = 0; k < 4; k++)
		if (p && p == f_in_place[k])
			return 1;
	return 0;
}

static const void *fbuf(const void *p)
{
	if (!g_payload || fin_place(p) || !f_consts_found)
		return NULL;
	for (int k = 0; k < 4; k++)
		if (p == f_bottom[k])
			return NULL;
	return p;
}

#define F_ALIAS(cname, fname) \
	__typeof__(fname) cname __attribute__((alias(#fname)));

void mpi_init_(fint *ierr);
void mpi_init_(fint *ierr)
{
	FREAL(void (*)(fint *), "pmpi_init_");
	dts_record r;
	rec_init(&r, DTS_MPI_Init);
	emit(&r, 0);
	fn(ierr);
	if (*ierr == MPI_SUCCESS)
		learn_rank();
	emit(&r, 1);
}
void ompi_init_f(fint *ierr);
F_ALIAS(ompi_init_f, mpi_init_)

void mpi_init_thread_(fint *required, fint *provided, fint *ierr);
void mpi_init_thread_(fint *required, fint *provided, fint *ierr)
{
	FREAL(void (*)(fint *, fint *, fint *), "pmpi_init_thread_");
	dts_record r;
	rec_init(&r, DTS_MPI_Init_thread);
	emit(&r, 0);
	fn(required, provided, ierr);
	if (*ierr == MPI_SUCCESS)
		learn_rank();
	emit(&r, 1);
}
void ompi_init_thread_f(fint *required, fint *provided, fint *ierr);
F_ALIAS(ompi_init_thread_f, mpi_init_thread_)

void mpi_finalize_(fint *ierr);
void mpi_finalize_(fint *ierr)
{
	FREAL(void (*)(fint *), "pmpi_finalize_");
	dts_record r;
	rec_init(&r, DTS_MPI_Finalize);
	emit(&r, 0);
	fn(ierr);
	emit(&r, 1);
}
void ompi_finalize_f(fint *ierr);
F_ALIAS(ompi_finalize_f, mpi_finalize_)

void mpi_send_(void *buf, fint *count, fint *type, fint *dest, fint *tag, fint *comm, fint *ierr);
void mpi_send_(void *buf, fint *count, fint *type, fint *dest, fint *tag, fint *comm, fint *ierr)
{
	FREAL(void (*)(void *, fint *, fint *, fint *, fint *, fint *, fint *), "pmpi_send_");
	MPI_Comm c = PMPI_Comm_f2c(*comm);
	dts_record r;
	int slot;
	p2p(&r, DTS_MPI_Send, c, &slot, *count, PMPI_Type_f2c(*type));
	r.dest = to_world(slot, c, *dest);
	r.stag = *tag;
	payload(&r, fbuf(buf), *count, PMPI_Type_f2c(*type));
	emit(&r, 0);
	fn(buf, count, type, dest, tag, comm, ierr);
	emit(&r, 1);
}
void ompi_send_f(void *buf, fint *count, fint *type, fint *dest, fint *tag, fint *comm,
		 fint *ierr);
F_ALIAS(ompi_send_f, mpi_send_)

void mpi_isend_(void *buf, fint *count, fint *type, fint *dest, fint *tag, fint *comm,
		fint *req, fint *ierr);
void mpi_isend_(void *buf, fint *count, fint *type, fint *dest, fint *tag, fint *comm,
		fint *req, fint *ierr)
{
	FREAL(void (*)(void *, fint *, fint *, fint *, fint *, fint *, fint *, fint *),
	      "pmpi_isend_");
	MPI_Comm c = PMPI_Comm_f2c(*comm);
	dts_record r;
	int slot;
	p2p(&r, DTS_MPI_Isend, c, &slot, *count, PMPI_Type_f2c(*type));
	r.dest = to_world(slot, c, *dest);
	r.stag = *tag;
	payload(&r, fbuf(buf), *count, PMPI_Type_f2c(*type));
	emit(&r, 0);
	fn(buf, count, type, dest, tag, comm, req, ierr);
	if (*ierr == MPI_SUCCESS && g.enabled)
		r.req = req_add_buf(PMPI_Request_f2c(*req), slot, 0, fbuf(buf), *count,
				    PMPI_Type_f2c(*type));
	emit(&r, 1);
}
void ompi_isend_f(void *buf, fint *count, fint *type, fint *dest, fint *tag, fint *comm,
		  fint *req, fint *ierr);
F_ALIAS(ompi_isend_f, mpi_isend_)

void mpi_recv_(void *buf, fint *count, fint *type, fint *source, fint *tag, fint *comm,
	       fint *status, fint *ierr);
void mpi_recv_(void *buf, fint *count, fint *type, fint *source, fint *tag, fint *comm,
	       fint *status, fint *ierr)
{
	FREAL(void (*)(void *, fint *, fint *, fint *, fint *, fint *, fint *, fint *),
	      "pmpi_recv_");
	MPI_Comm c = PMPI_Comm_f2c(*comm);
	fint own[FSTATUS_WORDS];
	fint *st = fstatus(status, own);
	dts_record r;
	int slot;
	p2p(&r, DTS_MPI_Recv, c, &slot, *count, PMPI_Type_f2c(*type));
	r.src = to_world(slot, c, *source);
	r.rtag = tag_of(*tag);
	emit(&r, 0);
	fn(buf, count, type, source, tag, comm, st, ierr);
	MPI_Status cs;
	if (*ierr == MPI_SUCCESS && fstatus_c(st, &cs))
		status_src(&r, slot, c, &cs);
	emit(&r, 1);
}
void ompi_recv_f(void *buf, fint *count, fint *type, fint *source, fint *tag, fint *comm,
		 fint *status, fint *ierr);
F_ALIAS(ompi_recv_f, mpi_recv_)

void mpi_irecv_(void *buf, fint *count, fint *type, fint *source, fint *tag, fint *comm,
		fint *req, fint *ierr);
void mpi_irecv_(void *buf, fint *count, fint *type, fint *source, fint *tag, fint *comm,
		fint *req, fint *ierr)
{
	FREAL(void (*)(void *, fint *, fint *, fint *, fint *, fint *, fint *, fint *),
	      "pmpi_irecv_");
	MPI_Comm c = PMPI_Comm_f2c(*comm);
	dts_record r;
	int slot;
	p2p(&r, DTS_MPI_Irecv, c, &slot, *count, PMPI_Type_f2c(*type));
	r.src = to_world(slot, c, *source);
	r.rtag = tag_of(*tag);
	emit(&r, 0);
	fn(buf, count, type, source, tag, comm, req, ierr);
	if (*ierr == MPI_SUCCESS && g.enabled)
		r.req = req_add(PMPI_Request_f2c(*req), slot, 1);
	emit(&r, 1);
}
void ompi_irecv_f(void *buf, fint *count, fint *type, fint *source, fint *tag, fint *comm,
		  fint *req, fint *ierr);
F_ALIAS(ompi_irecv_f, mpi_irecv_)

void mpi_wait_(fint *req, fint *status, fint *ierr);
void mpi_wait_(fint *req, fint *status, fint *ierr)
{
	FREAL(void (*)(fint *, fint *, fint *), "pmpi_wait_");
	dts_record r;
	struct req_ent q = { .comm_slot = -1 };
	fint own[FSTATUS_WORDS];
	fint *st = fstatus(status, own);
	rec_init(&r, DTS_MPI_Wait);
	if (g.enabled)
		req_find(PMPI_Request_f2c(*req), &q, 1);
	r.req = q.id;
	emit(&r, 0);
	fn(req, st, ierr);
	MPI_Status cs;
	if (*ierr == MPI_SUCCESS && fstatus_c(st, &cs))
		done_fields(&r, &q, &cs);
	emit(&r, 1);
}
void ompi_wait_f(fint *req, fint *status, fint *ierr);
F_ALIAS(ompi_wait_f, mpi_wait_)

void mpi_waitall_(fint *count, fint *reqs, fint *statuses, fint *ierr);
void mpi_waitall_(fint *count, fint *reqs, fint *statuses, fint *ierr)
{
	FREAL(void (*)(fint *, fint *, fint *, fint *), "pmpi_waitall_");
	int n = *count;
	struct reqs a;
	MPI_Request hs[32], *h = n > 32 ? malloc((size_t)n * sizeof *h) : hs;
	fint *st = statuses;
	if (h && statuses == MPI_F_STATUSES_IGNORE)
		st = malloc((size_t)(n > 0 ? n : 1) * FSTATUS_WORDS * sizeof *st);
	if (!h || !st || !g.enabled || n < 0) {
		if (h != hs)
			free(h);
		if (st && st != statuses)
			free(st);
		fn(count, reqs, statuses, ierr);
		return;
	}
	for (int i = 0; i < n; i++)
		h[i] = PMPI_Request_f2c(reqs[i]);
	if (reqs_get(&a, n, h, MPI_STATUSES_IGNORE, 1)) {
		fn(count, reqs, st, ierr);
	} else {
		dts_record r;
		rec_init(&r, DTS_MPI_Waitall);
		r.count = n;
		emit(&r, 0);
		fn(count, reqs, st, ierr);
		emit(&r, 1);
		/* statuses has MPI_STATUS_SIZE integers per request, which is sizeof(MPI_Status)
		 * in Open MPI */
		size_t words = sizeof(MPI_Status) / sizeof(fint);
		if (*ierr == MPI_SUCCESS)
			for (int i = 0; i < n; i++)
				if (a.q[i].id && fstatus_c(st + (size_t)i * words, &a.st[i]))
					done(DTS_MPI_Waitall, &a, i, 0);
		reqs_free(&a, MPI_STATUSES_IGNORE);
	}
	if (h != hs)
		free(h);
	if (st != statuses)
		free(st);
}
void ompi_waitall_f(fint *count, fint *reqs, fint *statuses, fint *ierr);
F_ALIAS(ompi_waitall_f, mpi_waitall_)

void mpi_barrier_(fint *comm, fint *ierr);
void mpi_barrier_(fint *comm, fint *ierr)
{
	FREAL(void (*)(fint *, fint *), "pmpi_barrier_");
	dts_record r;
	coll(&r, DTS_MPI_Barrier, PMPI_Comm_f2c(*comm), -1, MPI_DATATYPE_NULL, MPI_OP_NULL, -1);
	emit(&r, 0);
	fn(comm, ierr);
	emit(&r, 1);
}
void ompi_barrier_f(fint *comm, fint *ierr);
F_ALIAS(ompi_barrier_f, mpi_barrier_)

void mpi_bcast_(void *buf, fint *count, fint *type, fint *root, fint *comm, fint *ierr);
void mpi_bcast_(void *buf, fint *count, fint *type, fint *root, fint *comm, fint *ierr)
{
	FREAL(void (*)(void *, fint *, fint *, fint *, fint *, fint *), "pmpi_bcast_");
	dts_record r;
	MPI_Comm c = PMPI_Comm_f2c(*comm);
	coll(&r, DTS_MPI_Bcast, c, *count, PMPI_Type_f2c(*type), MPI_OP_NULL, *root);
	if (payload_rank(c) == *root) /* the root's buffer alone holds data */
		coll_payload(&r, fbuf(buf), *count, PMPI_Type_f2c(*type));
	emit(&r, 0);
	fn(buf, count, type, root, comm, ierr);
	emit(&r, 1);
}
void ompi_bcast_f(void *buf, fint *count, fint *type, fint *root, fint *comm, fint *ierr);
F_ALIAS(ompi_bcast_f, mpi_bcast_)

void mpi_reduce_(void *sbuf, void *rbuf, fint *count, fint *type, fint *op, fint *root,
		 fint *comm, fint *ierr);
void mpi_reduce_(void *sbuf, void *rbuf, fint *count, fint *type, fint *op, fint *root,
		 fint *comm, fint *ierr)
{
	FREAL(void (*)(void *, void *, fint *, fint *, fint *, fint *, fint *, fint *),
	      "pmpi_reduce_");
	dts_record r;
	coll(&r, DTS_MPI_Reduce, PMPI_Comm_f2c(*comm), *count, PMPI_Type_f2c(*type),
	     PMPI_Op_f2c(*op), *root);
	coll_payload(&r, fbuf(fin_place(sbuf) ? rbuf : sbuf), *count, PMPI_Type_f2c(*type));
	emit(&r, 0);
	fn(sbuf, rbuf, count, type, op, root, comm, ierr);
	emit(&r, 1);
}
void ompi_reduce_f(void *sbuf, void *rbuf, fint *count, fint *type, fint *op, fint *root,
		   fint *comm, fint *ierr);
F_ALIAS(ompi_reduce_f, mpi_reduce_)

void mpi_allreduce_(void *sbuf, void *rbuf, fint *count, fint *type, fint *op, fint *comm,
		    fint *ierr);
void mpi_allreduce_(void *sbuf, void *rbuf, fint *count, fint *type, fint *op, fint *comm,
		    fint *ierr)
{
	FREAL(void (*)(void *, void *, fint *, fint *, fint *, fint *, fint *), "pmpi_allreduce_");
	dts_record r;
	coll(&r, DTS_MPI_Allreduce, PMPI_Comm_f2c(*comm), *count, PMPI_Type_f2c(*type),
	     PMPI_Op_f2c(*op), -1);
	coll_payload(&r, fbuf(fin_place(sbuf) ? rbuf : sbuf), *count, PMPI_Type_f2c(*type));
	emit(&r, 0);
	fn(sbuf, rbuf, count, type, op, comm, ierr);
	emit(&r, 1);
}
void ompi_allreduce_f(void *sbuf, void *rbuf, fint *count, fint *type, fint *op, fint *comm,
		      fint *ierr);
F_ALIAS(ompi_allreduce_f, mpi_allreduce_)

void mpi_ssend_(void *buf, fint *count, fint *type, fint *dest, fint *tag, fint *comm, fint *ierr);
void mpi_ssend_(void *buf, fint *count, fint *type, fint *dest, fint *tag, fint *comm, fint *ierr)
{
	FREAL(void (*)(void *, fint *, fint *, fint *, fint *, fint *, fint *), "pmpi_ssend_");
	MPI_Comm c = PMPI_Comm_f2c(*comm);
	dts_record r;
	int slot;
	p2p(&r, DTS_MPI_Ssend, c, &slot, *count, PMPI_Type_f2c(*type));
	r.dest = to_world(slot, c, *dest);
	r.stag = *tag;
	payload(&r, fbuf(buf), *count, PMPI_Type_f2c(*type));
	emit(&r, 0);
	fn(buf, count, type, dest, tag, comm, ierr);
	emit(&r, 1);
}
void ompi_ssend_f(void *buf, fint *count, fint *type, fint *dest, fint *tag, fint *comm,
		  fint *ierr);
F_ALIAS(ompi_ssend_f, mpi_ssend_)

void mpi_sendrecv_(void *sbuf, fint *scount, fint *stype, fint *dest, fint *stag, void *rbuf,
		   fint *rcount, fint *rtype, fint *source, fint *rtag, fint *comm, fint *status,
		   fint *ierr);
void mpi_sendrecv_(void *sbuf, fint *scount, fint *stype, fint *dest, fint *stag, void *rbuf,
		   fint *rcount, fint *rtype, fint *source, fint *rtag, fint *comm, fint *status,
		   fint *ierr)
{
	FREAL(void (*)(void *, fint *, fint *, fint *, fint *, void *, fint *, fint *, fint *,
		       fint *, fint *, fint *, fint *),
	      "pmpi_sendrecv_");
	MPI_Comm c = PMPI_Comm_f2c(*comm);
	fint own[FSTATUS_WORDS];
	fint *st = fstatus(status, own);
	dts_record r;
	int slot;
	p2p(&r, DTS_MPI_Sendrecv, c, &slot, *scount, PMPI_Type_f2c(*stype));
	r.dest = to_world(slot, c, *dest);
	r.stag = *stag;
	r.src = to_world(slot, c, *source);
	r.rtag = tag_of(*rtag);
	payload(&r, fbuf(sbuf), *scount, PMPI_Type_f2c(*stype));
	emit(&r, 0);
	fn(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm, st, ierr);
	MPI_Status cs;
	if (*ierr == MPI_SUCCESS && fstatus_c(st, &cs))
		status_src(&r, slot, c, &cs);
	emit(&r, 1);
}
void ompi_sendrecv_f(void *sbuf, fint *scount, fint *stype, fint *dest, fint *stag, void *rbuf,
		     fint *rcount, fint *rtype, fint *source, fint *rtag, fint *comm,
		     fint *status, fint *ierr);
F_ALIAS(ompi_sendrecv_f, mpi_sendrecv_)

void mpi_test_(fint *req, fint *flag, fint *status, fint *ierr);
void mpi_test_(fint *req, fint *flag, fint *status, fint *ierr)
{
	FREAL(void (*)(fint *, fint *, fint *, fint *), "pmpi_test_");
	dts_record r;
	struct req_ent q = { .comm_slot = -1 };
	fint own[FSTATUS_WORDS];
	fint *st = fstatus(status, own);
	rec_init(&r, DTS_MPI_Test);
	MPI_Request h = PMPI_Request_f2c(*req);
	if (g.enabled)
		req_find(h, &q, 0);
	r.req = q.id;
	emit(&r, 0);
	fn(req, flag, st, ierr);
	r.req = 0;
	MPI_Status cs;
	if (*ierr == MPI_SUCCESS && *flag) {
		if (q.id)
			req_find(h, &q, 1);
		done_fields(&r, &q, fstatus_c(st, &cs) ? &cs : NULL);
	}
	emit(&r, 1);
}
void ompi_test_f(fint *req, fint *flag, fint *status, fint *ierr);
F_ALIAS(ompi_test_f, mpi_test_)

/* The rooted and all-to-all collectives: the count and type recorded are the C wrappers';
 * dig makes the digest as theirs do (r, the communicator c and the arguments at hand). */
#define F_ROOTED(lname, call, cnt, typ, dig)                                                  \
	void mpi_##lname##_(void *sbuf, fint *scount, fint *stype, void *rbuf, fint *rcount,  \
			    fint *rtype, fint *root, fint *comm, fint *ierr);                 \
	void mpi_##lname##_(void *sbuf, fint *scount, fint *stype, void *rbuf, fint *rcount,  \
			    fint *rtype, fint *root, fint *comm, fint *ierr)                  \
	{                                                                                     \
		FREAL(void (*)(void *, fint *, fint *, void *, fint *, fint *, fint *, fint *,  \
			       fint *),                                                        \
		      "pmpi_" #lname "_");                                                      \
		dts_record r;                                                                 \
		MPI_Comm c = PMPI_Comm_f2c(*comm);                                            \
		coll(&r, DTS_MPI_##call, c, *cnt, PMPI_Type_f2c(*typ), MPI_OP_NULL, *root);   \
		dig;                                                                          \
		emit(&r, 0);                                                                  \
		fn(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, ierr);               \
		emit(&r, 1);                                                                  \
	}                                                                                     \
	void ompi_##lname##_f(void *sbuf, fint *scount, fint *stype, void *rbuf, fint *rcount, \
			      fint *rtype, fint *root, fint *comm, fint *ierr);               \
	F_ALIAS(ompi_##lname##_f, mpi_##lname##_)
F_ROOTED(gather, Gather, scount, stype,
	 coll_payload(&r, fbuf(sbuf), *scount, PMPI_Type_f2c(*stype)))
F_ROOTED(scatter, Scatter, rcount, rtype,
	 if (payload_rank(c) == *root)
		 blocks_payload(&r, fbuf(sbuf), r.csize, NULL, NULL, *scount, PMPI_Type_f2c(*stype)))

#define F_ALLTO(lname, call, dig)                                                             \
	void mpi_##lname##_(void *sbuf, fint *scount, fint *stype, void *rbuf, fint *rcount,  \
			    fint *rtype, fint *comm, fint *ierr);                             \
	void mpi_##lname##_(void *sbuf, fint *scount, fint *stype, void *rbuf, fint *rcount,  \
			    fint *rtype, fint *comm, fint *ierr)                              \
	{                                                                                     \
		FREAL(void (*)(void *, fint *, fint *, void *, fint *, fint *, fint *, fint *), \
		      "pmpi_" #lname "_");                                                      \
		dts_record r;                                                                 \
		coll(&r, DTS_MPI_##call, PMPI_Comm_f2c(*comm), *scount, PMPI_Type_f2c(*stype),\
		     MPI_OP_NULL, -1);                                                        \
		dig;                                                                          \
		emit(&r, 0);                                                                  \
		fn(sbuf, scount, stype, rbuf, rcount, rtype, comm, ierr);                     \
		emit(&r, 1);                                                                  \
	}                                                                                     \
	void ompi_##lname##_f(void *sbuf, fint *scount, fint *stype, void *rbuf, fint *rcount, \
			      fint *rtype, fint *comm, fint *ierr);                           \
	F_ALIAS(ompi_##lname##_f, mpi_##lname##_)
F_ALLTO(allgather, Allgather, coll_payload(&r, fbuf(sbuf), *scount, PMPI_Type_f2c(*stype)))
F_ALLTO(alltoall, Alltoall,
	if (fin_place(sbuf)) blocks_payload(&r, fbuf(rbuf), r.csize, NULL, NULL, *rcount,
					    PMPI_Type_f2c(*rtype));
	else blocks_payload(&r, fbuf(sbuf), r.csize, NULL, NULL, *scount, PMPI_Type_f2c(*stype)))

/* Communicators: the new one numbered as the C wrappers number it (comm_register). */
static void f_made(dts_record *r, MPI_Comm parent, const fint *ierr, const fint *newcomm)
{
	if (*ierr == MPI_SUCCESS) {
		int32_t id = comm_register(parent, PMPI_Comm_f2c(*newcomm));
		r->obj = id < 0 ? 0 : (uint64_t)id;
	}
}

void mpi_comm_split_(fint *comm, fint *color, fint *key, fint *newcomm, fint *ierr);
void mpi_comm_split_(fint *comm, fint *color, fint *key, fint *newcomm, fint *ierr)
{
	FREAL(void (*)(fint *, fint *, fint *, fint *, fint *), "pmpi_comm_split_");
	MPI_Comm c = PMPI_Comm_f2c(*comm);
	dts_record r;
	coll(&r, DTS_MPI_Comm_split, c, -1, MPI_DATATYPE_NULL, MPI_OP_NULL, -1);
	emit(&r, 0);
	fn(comm, color, key, newcomm, ierr);
	f_made(&r, c, ierr, newcomm);
	emit(&r, 1);
}
void ompi_comm_split_f(fint *comm, fint *color, fint *key, fint *newcomm, fint *ierr);
F_ALIAS(ompi_comm_split_f, mpi_comm_split_)

void mpi_comm_dup_(fint *comm, fint *newcomm, fint *ierr);
void mpi_comm_dup_(fint *comm, fint *newcomm, fint *ierr)
{
	FREAL(void (*)(fint *, fint *, fint *), "pmpi_comm_dup_");
	MPI_Comm c = PMPI_Comm_f2c(*comm);
	dts_record r;
	coll(&r, DTS_MPI_Comm_dup, c, -1, MPI_DATATYPE_NULL, MPI_OP_NULL, -1);
	emit(&r, 0);
	fn(comm, newcomm, ierr);
	f_made(&r, c, ierr, newcomm);
	emit(&r, 1);
}
void ompi_comm_dup_f(fint *comm, fint *newcomm, fint *ierr);
F_ALIAS(ompi_comm_dup_f, mpi_comm_dup_)

void mpi_comm_free_(fint *comm, fint *ierr);
void mpi_comm_free_(fint *comm, fint *ierr)
{
	FREAL(void (*)(fint *, fint *), "pmpi_comm_free_");
	MPI_Comm h = PMPI_Comm_f2c(*comm);
	dts_record r;
	coll(&r, DTS_MPI_Comm_free, h, -1, MPI_DATATYPE_NULL, MPI_OP_NULL, -1);
	emit(&r, 0);
	fn(comm, ierr);
	if (*ierr == MPI_SUCCESS)
		comm_forget(h);
	emit(&r, 1);
}
void ompi_comm_free_f(fint *comm, fint *ierr);
F_ALIAS(ompi_comm_free_f, mpi_comm_free_)

/* One-sided (sync_rma.c): the origin's data digested as the C wrappers do (fbuf). */
void mpi_win_create_(void *base, MPI_Aint *size, fint *unit, fint *info, fint *comm, fint *win,
		     fint *ierr);
void mpi_win_create_(void *base, MPI_Aint *size, fint *unit, fint *info, fint *comm, fint *win,
		     fint *ierr)
{
	FREAL(void (*)(void *, MPI_Aint *, fint *, fint *, fint *, fint *, fint *),
	      "pmpi_win_create_");
	MPI_Comm c = PMPI_Comm_f2c(*comm);
	dts_record r;
	rec_init(&r, DTS_MPI_Win_create);
	r.comm = comm_id(comm_slot(c));
	r.csize = comm_size(comm_slot(c), c);
	r.count = (int64_t)*size;
	emit(&r, 0);
	fn(base, size, unit, info, comm, win, ierr);
	if (*ierr == MPI_SUCCESS)
		r.obj = (uint64_t)win_register(c, PMPI_Win_f2c(*win));
	emit(&r, 1);
}
void ompi_win_create_f(void *base, MPI_Aint *size, fint *unit, fint *info, fint *comm, fint *win,
		       fint *ierr);
F_ALIAS(ompi_win_create_f, mpi_win_create_)

void mpi_win_free_(fint *win, fint *ierr);
void mpi_win_free_(fint *win, fint *ierr)
{
	FREAL(void (*)(fint *, fint *), "pmpi_win_free_");
	MPI_Win h = PMPI_Win_f2c(*win);
	dts_record r;
	rma(&r, DTS_MPI_Win_free, h, NO_TARGET);
	emit(&r, 0);
	fn(win, ierr);
	if (*ierr == MPI_SUCCESS)
		win_forget(h);
	emit(&r, 1);
}
void ompi_win_free_f(fint *win, fint *ierr);
F_ALIAS(ompi_win_free_f, mpi_win_free_)

#define F_XFER(lname, call, dig)                                                             \
	void mpi_##lname##_(void *o, fint *oc, fint *ot, fint *t, MPI_Aint *d, fint *tc,      \
			    fint *tt, fint *win, fint *ierr);                                 \
	void mpi_##lname##_(void *o, fint *oc, fint *ot, fint *t, MPI_Aint *d, fint *tc,      \
			    fint *tt, fint *win, fint *ierr)                                  \
	{                                                                                     \
		FREAL(void (*)(void *, fint *, fint *, fint *, MPI_Aint *, fint *, fint *,    \
			       fint *, fint *),                                               \
		      "pmpi_" #lname "_");                                                    \
		dts_record r;                                                                 \
		xfer(&r, DTS_##call, PMPI_Win_f2c(*win), *t, *d, *oc, PMPI_Type_f2c(*ot),     \
		     MPI_OP_NULL);                                                            \
		if (dig)                                                                      \
			payload(&r, fbuf(o), *oc, PMPI_Type_f2c(*ot));                        \
		emit(&r, 0);                                                                  \
		fn(o, oc, ot, t, d, tc, tt, win, ierr);                                       \
		emit(&r, 1);                                                                  \
	}                                                                                     \
	void ompi_##lname##_f(void *o, fint *oc, fint *ot, fint *t, MPI_Aint *d, fint *tc,    \
			      fint *tt, fint *win, fint *ierr);                               \
	F_ALIAS(ompi_##lname##_f, mpi_##lname##_)
F_XFER(put, MPI_Put, 1)
F_XFER(get, MPI_Get, 0)

void mpi_accumulate_(void *o, fint *oc, fint *ot, fint *t, MPI_Aint *d, fint *tc, fint *tt,
		     fint *op, fint *win, fint *ierr);
void mpi_accumulate_(void *o, fint *oc, fint *ot, fint *t, MPI_Aint *d, fint *tc, fint *tt,
		     fint *op, fint *win, fint *ierr)
{
	FREAL(void (*)(void *, fint *, fint *, fint *, MPI_Aint *, fint *, fint *, fint *, fint *,
		       fint *),
	      "pmpi_accumulate_");
	dts_record r;
	xfer(&r, DTS_MPI_Accumulate, PMPI_Win_f2c(*win), *t, *d, *oc, PMPI_Type_f2c(*ot),
	     PMPI_Op_f2c(*op));
	payload(&r, fbuf(o), *oc, PMPI_Type_f2c(*ot));
	emit(&r, 0);
	fn(o, oc, ot, t, d, tc, tt, op, win, ierr);
	emit(&r, 1);
}
void ompi_accumulate_f(void *o, fint *oc, fint *ot, fint *t, MPI_Aint *d, fint *tc, fint *tt,
		       fint *op, fint *win, fint *ierr);
F_ALIAS(ompi_accumulate_f, mpi_accumulate_)

void mpi_win_fence_(fint *assert, fint *win, fint *ierr);
void mpi_win_fence_(fint *assert, fint *win, fint *ierr)
{
	FREAL(void (*)(fint *, fint *, fint *), "pmpi_win_fence_");
	dts_record r;
	rma(&r, DTS_MPI_Win_fence, PMPI_Win_f2c(*win), NO_TARGET);
	r.index = assert_code(*assert);
	emit(&r, 0);
	fn(assert, win, ierr);
	emit(&r, 1);
}
void ompi_win_fence_f(fint *assert, fint *win, fint *ierr);
F_ALIAS(ompi_win_fence_f, mpi_win_fence_)

void mpi_win_lock_(fint *type, fint *rank, fint *assert, fint *win, fint *ierr);
void mpi_win_lock_(fint *type, fint *rank, fint *assert, fint *win, fint *ierr)
{
	FREAL(void (*)(fint *, fint *, fint *, fint *, fint *), "pmpi_win_lock_");
	dts_record r;
	rma(&r, DTS_MPI_Win_lock, PMPI_Win_f2c(*win), *rank);
	r.index = assert_code(*assert);
	r.flags = *type == MPI_LOCK_EXCLUSIVE ? 1 : *type == MPI_LOCK_SHARED ? 2 : 0;
	emit(&r, 0);
	fn(type, rank, assert, win, ierr);
	emit(&r, 1);
}
void ompi_win_lock_f(fint *type, fint *rank, fint *assert, fint *win, fint *ierr);
F_ALIAS(ompi_win_lock_f, mpi_win_lock_)

void mpi_win_unlock_(fint *rank, fint *win, fint *ierr);
void mpi_win_unlock_(fint *rank, fint *win, fint *ierr)
{
	FREAL(void (*)(fint *, fint *, fint *), "pmpi_win_unlock_");
	dts_record r;
	rma(&r, DTS_MPI_Win_unlock, PMPI_Win_f2c(*win), *rank);
	emit(&r, 0);
	fn(rank, win, ierr);
	emit(&r, 1);
}
void ompi_win_unlock_f(fint *rank, fint *win, fint *ierr);
F_ALIAS(ompi_win_unlock_f, mpi_win_unlock_)
#endif

/* ---- Fortran mpi_f08 (MPICH) ---------------------------------------------------------------- */

#if defined(MPICH_VERSION) && !defined(OPEN_MPI)
/* MPICH's mpif.h and `use mpi` bindings, and the `use mpi_f08` ones with a buffer
 * (mpi_send_f08ts_), call the C MPI_ functions, which the wrappers above record. Its other
 * mpi_f08 bindings (mpi_barrier_f08_, mpi_wait_f08_ ...) call PMPI_ directly: these wrappers
 * record them as the C calls and hand them on to the library's own. A TYPE(MPI_Comm) or
 * TYPE(MPI_Request) is one integer, the C handle's value in MPICH; a TYPE(MPI_Status) is read
 * with MPI_Status_f082c; the optional ierror may be absent (NULL). */
typedef MPI_Fint fint8;

#define F08REAL(type, name)                                                \
	static _Atomic(__typeof__(type)) fn; /* threads may race to set it */ \
	if (!fn) {                                                         \
		fn = (type)dlsym(RTLD_NEXT, name);                         \
		if (!fn)                                                   \
			missing(name);                                     \
	}

/* PMPI_Status_f082c, looked up when first needed: an MPICH whose headers declare it may be
 * built without it (Debian's libmpich.so.12 here), and a reference the loader must resolve
 * would stop the recorder from loading at all under LD_BIND_NOW, which difftrace-record sets
 * under uftrace. MPI_ERR_OTHER where the library lacks it: the status is then not read. */
static int status_f082c(const MPI_F08_status *f, MPI_Status *c)
{
	typedef int (*f082c_fn)(const MPI_F08_status *, MPI_Status *);
	static _Atomic(f082c_fn) fn; /* threads may race to set it */
	static atomic_int looked;
	if (!fn && !atomic_load(&looked)) {
		fn = (f082c_fn)dlsym(RTLD_DEFAULT, "PMPI_Status_f082c");
		atomic_store(&looked, 1);
	}
	f082c_fn call = fn;
	return call ? call(f, c) : MPI_ERR_OTHER;
}

static int f08_ok(const fint8 *ierr)
{
	return !ierr || *ierr == MPI_SUCCESS;
}

void mpi_init_f08_(fint8 *ierr);
void mpi_init_f08_(fint8 *ierr)
{
	F08REAL(void (*)(fint8 *), "mpi_init_f08_");
	dts_record r;
	rec_init(&r, DTS_MPI_Init);
	emit(&r, 0);
	fn(ierr);
	if (f08_ok(ierr))
		learn_rank();
	emit(&r, 1);
}

void mpi_init_thread_f08_(fint8 *required, fint8 *provided, fint8 *ierr);
void mpi_init_thread_f08_(fint8 *required, fint8 *provided, fint8 *ierr)
{
	F08REAL(void (*)(fint8 *, fint8 *, fint8 *), "mpi_init_thread_f08_");
	dts_record r;
	rec_init(&r, DTS_MPI_Init_thread);
	emit(&r, 0);
	fn(required, provided, ierr);
	if (f08_ok(ierr))
		learn_rank();
	emit(&r, 1);
}

void mpi_finalize_f08_(fint8 *ierr);
void mpi_finalize_f08_(fint8 *ierr)
{
	F08REAL(void (*)(fint8 *), "mpi_finalize_f08_");
	dts_record r;
	rec_init(&r, DTS_MPI_Finalize);
	emit(&r, 0);
	fn(ierr);
	emit(&r, 1);
}

void mpi_barrier_f08_(fint8 *comm, fint8 *ierr);
void mpi_barrier_f08_(fint8 *comm, fint8 *ierr)
{
	F08REAL(void (*)(fint8 *, fint8 *), "mpi_barrier_f08_");
	dts_record r;
	coll(&r, DTS_MPI_Barrier, PMPI_Comm_f2c(*comm), -1, MPI_DATATYPE_NULL, MPI_OP_NULL, -1);
	emit(&r, 0);
	fn(comm, ierr);
	emit(&r, 1);
}

void mpi_wait_f08_(fint8 *req, MPI_F08_status *status, fint8 *ierr);
void mpi_wait_f08_(fint8 *req, MPI_F08_status *status, fint8 *ierr)
{
	F08REAL(void (*)(fint8 *, MPI_F08_status *, fint8 *), "mpi_wait_f08_");
	dts_record r;
	struct req_ent q = { .comm_slot = -1 };
	rec_init(&r, DTS_MPI_Wait);
	if (g.enabled)
		req_find(PMPI_Request_f2c(*req), &q, 1);
	r.req = q.id;
	emit(&r, 0);
	fn(req, status, ierr);
	MPI_Status cs;
	if (f08_ok(ierr)) {
		int have = status && status != MPI_F08_STATUS_IGNORE &&
			   status_f082c(status, &cs) == MPI_SUCCESS;
		done_fields(&r, &q, have ? &cs : NULL);
	}
	emit(&r, 1);
}

void mpi_waitall_f08_(fint8 *count, fint8 *reqs, MPI_F08_status *statuses, fint8 *ierr);
void mpi_waitall_f08_(fint8 *count, fint8 *reqs, MPI_F08_status *statuses, fint8 *ierr)
{
	F08REAL(void (*)(fint8 *, fint8 *, MPI_F08_status *, fint8 *), "mpi_waitall_f08_");
	int n = *count;
	struct reqs a;
	MPI_Request hs[32], *h = n > 32 ? malloc((size_t)n * sizeof *h) : hs;
	if (!h || !g.enabled || n < 0) {
		if (h != hs)
			free(h);
		fn(count, reqs, statuses, ierr);
		return;
	}
	for (int i = 0; i < n; i++)
		h[i] = PMPI_Request_f2c(reqs[i]);
	if (reqs_get(&a, n, h, MPI_STATUSES_IGNORE, 1)) {
		fn(count, reqs, statuses, ierr);
	} else {
		dts_record r;
		rec_init(&r, DTS_MPI_Waitall);
		r.count = n;
		emit(&r, 0);
		fn(count, reqs, statuses, ierr);
		emit(&r, 1);
		int have = statuses && statuses != MPI_F08_STATUSES_IGNORE;
		if (f08_ok(ierr))
			for (int i = 0; i < n; i++) {
				if (!a.q[i].id)
					continue;
				/* without the statuses, a receive's source and tag stay unknown */
				if (!have || status_f082c(&statuses[i], &a.st[i]) != MPI_SUCCESS)
					a.q[i].is_recv = 0;
				done(DTS_MPI_Waitall, &a, i, 0);
			}
		reqs_free(&a, MPI_STATUSES_IGNORE);
	}
	if (h != hs)
		free(h);
}
#endif
