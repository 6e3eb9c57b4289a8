/* sync_mpi.c: the MPI wrappers of libdifftrace-sync.so: point-to-point calls and their
 * requests, collectives, communicators. Included by sync.c, whose record they write (one
 * translation unit: nothing else of the library is seen by the program). */
/* ---- MPI wrappers --------------------------------------------------------------------------- */

/* An MPI error where the program left MPI_ERRORS_ARE_FATAL: recorded as an MPI_Abort whose
 * op is the error's class (a code of DTS_ERRS) and count the error code, said on stderr with
 * the library's text, then the run aborted as the library would have. */
static void on_mpi_error(MPI_Comm *comm, int *code, ...)
{
	(void)comm;
	int cls = 0, len = 0;
	char msg[MPI_MAX_ERROR_STRING + 1];
	if (PMPI_Error_class(*code, &cls) != MPI_SUCCESS)
		cls = -1;
	if (PMPI_Error_string(*code, msg, &len) != MPI_SUCCESS || len < 0)
		len = 0;
	msg[len < MPI_MAX_ERROR_STRING ? len : MPI_MAX_ERROR_STRING] = 0;
	dts_record r;
	rec_init(&r, DTS_MPI_Abort);
	r.comm = 0;
	r.csize = g.world_size;
	r.count = *code;
	r.op = err_code(cls);
	emit(&r, 0);
	char buf[MPI_MAX_ERROR_STRING + 96];
	int n = snprintf(buf, sizeof buf, "difftrace-sync: rank %d: MPI error: %s; aborting\n",
			 (int)atomic_load(&g.rank), msg);
	ssize_t w = write(STDERR_FILENO, buf, n > 0 && (size_t)n < sizeof buf ? (size_t)n : 0);
	(void)w;
	PMPI_Abort(MPI_COMM_WORLD, *code);
}

/* The error handler of MPI_COMM_WORLD (the communicators made from it inherit it), when the
 * program has not set one: MPI_Init leaves MPI_ERRORS_ARE_FATAL. */
static void catch_errors(void)
{
	MPI_Errhandler cur, eh;
	if (PMPI_Comm_get_errhandler(MPI_COMM_WORLD, &cur) != MPI_SUCCESS ||
	    cur != MPI_ERRORS_ARE_FATAL)
		return;
	if (PMPI_Comm_create_errhandler(on_mpi_error, &eh) == MPI_SUCCESS)
		PMPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);
}

static void learn_rank(void)
{
	int r, n;
	if (g.enabled)
		catch_errors();
	if (PMPI_Comm_rank(MPI_COMM_WORLD, &r) == MPI_SUCCESS) {
		atomic_store(&g.rank, r);
		if (T.state == 1 && T.hdr)
			T.hdr->rank = r;
	}
	if (PMPI_Comm_size(MPI_COMM_WORLD, &n) == MPI_SUCCESS)
		g.world_size = n;
}

int MPI_Init(int *argc, char ***argv)
{
	dts_record r;
	rec_init(&r, DTS_MPI_Init);
	emit(&r, 0);
	int rc = PMPI_Init(argc, argv);
	if (rc == MPI_SUCCESS)
		learn_rank();
	emit(&r, 1);
	return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
	dts_record r;
	rec_init(&r, DTS_MPI_Init_thread);
	emit(&r, 0);
	int rc = PMPI_Init_thread(argc, argv, required, provided);
	if (rc == MPI_SUCCESS)
		learn_rank();
	emit(&r, 1);
	return rc;
}

#define SIMPLE(call, pcall)              \
	dts_record r;                    \
	rec_init(&r, DTS_##call);        \
	emit(&r, 0);                     \
	int rc = pcall;                  \
	emit(&r, 1);                     \
	return rc

int MPI_Finalize(void)
{
	SIMPLE(MPI_Finalize, PMPI_Finalize());
}

int MPI_Abort(MPI_Comm comm, int errorcode)
{
	dts_record r;
	rec_init(&r, DTS_MPI_Abort);
	int slot = comm_slot(comm);
	r.comm = comm_id(slot);
	r.csize = comm_size(slot, comm);
	r.count = errorcode;
	r.op = -1; /* the program's own: not an MPI error */
	emit(&r, 0);
	return PMPI_Abort(comm, errorcode);
}

static ALWAYS_INLINE void p2p(dts_record *r, enum dts_call c, MPI_Comm comm, int *slot, int count,
		MPI_Datatype t)
{
	rec_init(r, c);
	*slot = comm_slot(comm);
	r->comm = comm_id(*slot);
	r->csize = comm_size(*slot, comm);
	r->count = count;
	r->datatype = type_code(t);
}

static void status_src(dts_record *r, int slot, MPI_Comm comm, const MPI_Status *st)
{
	r->src = to_world(slot, comm, st->MPI_SOURCE);
	r->rtag = tag_of(st->MPI_TAG);
}

#define SEND(name)                                                                            \
	int MPI_##name(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,  \
		       MPI_Comm comm)                                                         \
	{                                                                                     \
		dts_record r;                                                                 \
		int slot;                                                                     \
		p2p(&r, DTS_MPI_##name, comm, &slot, count, datatype);                        \
		r.dest = to_world(slot, comm, dest);                                          \
		r.stag = tag;                                                                 \
		payload(&r, buf, count, datatype);                                            \
		emit(&r, 0);                                                                  \
		int rc = PMPI_##name(buf, count, datatype, dest, tag, comm);                  \
		emit(&r, 1);                                                                  \
		return rc;                                                                    \
	}
SEND(Send)
SEND(Ssend)
SEND(Bsend)
SEND(Rsend)

/* A send that makes a request: keep (a statement) records the request *request made, with
 * r and slot at hand: an Isend's request (req_add), a persistent send's arguments (preq_put,
 * below). dig: whether its entry has the payload digest (a persistent send's is taken by each
 * MPI_Start: the buffer holds the data to send then, not at the init). */
#define SEND_REQ(name, dig, keep)                                                             \
	int MPI_##name(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,  \
		       MPI_Comm comm, MPI_Request *request)                                   \
	{                                                                                     \
		dts_record r;                                                                 \
		int slot;                                                                     \
		p2p(&r, DTS_MPI_##name, comm, &slot, count, datatype);                        \
		r.dest = to_world(slot, comm, dest);                                          \
		r.stag = tag;                                                                 \
		if (dig)                                                                      \
			payload(&r, buf, count, datatype);                                    \
		emit(&r, 0);                                                                  \
		int rc = PMPI_##name(buf, count, datatype, dest, tag, comm, request);         \
		if (rc == MPI_SUCCESS && g.enabled)                                           \
			keep;                                                                 \
		emit(&r, 1);                                                                  \
		return rc;                                                                    \
	}
#define ISEND(name)                                                                           \
	SEND_REQ(name, 1, r.req = req_add_buf(*request, slot, 0, buf, count, datatype))
ISEND(Isend)
ISEND(Issend)
ISEND(Ibsend)
ISEND(Irsend)

int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
	     MPI_Status *status)
{
	dts_record r;
	int slot;
	MPI_Status own;
	if (status == MPI_STATUS_IGNORE)
		status = &own;
	p2p(&r, DTS_MPI_Recv, comm, &slot, count, datatype);
	r.src = to_world(slot, comm, source);
	r.rtag = tag_of(tag);
	emit(&r, 0);
	int rc = PMPI_Recv(buf, count, datatype, source, tag, comm, status);
	if (rc == MPI_SUCCESS)
		status_src(&r, slot, comm, status);
	emit(&r, 1);
	return rc;
}

int MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
	      MPI_Request *request)
{
	dts_record r;
	int slot;
	p2p(&r, DTS_MPI_Irecv, comm, &slot, count, datatype);
	r.src = to_world(slot, comm, source);
	r.rtag = tag_of(tag);
	emit(&r, 0);
	int rc = PMPI_Irecv(buf, count, datatype, source, tag, comm, request);
	if (rc == MPI_SUCCESS && g.enabled)
		r.req = req_add(*request, slot, 1);
	emit(&r, 1);
	return rc;
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
	dts_record r;
	int slot;
	MPI_Status own;
	if (status == MPI_STATUS_IGNORE)
		status = &own;
	p2p(&r, DTS_MPI_Probe, comm, &slot, -1, MPI_DATATYPE_NULL);
	r.src = to_world(slot, comm, source);
	r.rtag = tag_of(tag);
	emit(&r, 0);
	int rc = PMPI_Probe(source, tag, comm, status);
	if (rc == MPI_SUCCESS)
		status_src(&r, slot, comm, status);
	emit(&r, 1);
	return rc;
}

int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
		 int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source,
		 int recvtag, MPI_Comm comm, MPI_Status *status)
{
	dts_record r;
	int slot;
	MPI_Status own;
	if (status == MPI_STATUS_IGNORE)
		status = &own;
	p2p(&r, DTS_MPI_Sendrecv, comm, &slot, sendcount, sendtype);
	(void)recvcount;
	(void)recvtype;
	r.dest = to_world(slot, comm, dest);
	r.stag = sendtag;
	r.src = to_world(slot, comm, source);
	r.rtag = tag_of(recvtag);
	payload(&r, sendbuf, sendcount, sendtype);
	emit(&r, 0);
	int rc = PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
			       recvtype, source, recvtag, comm, status);
	if (rc == MPI_SUCCESS)
		status_src(&r, slot, comm, status);
	emit(&r, 1);
	return rc;
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
			 int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
	dts_record r;
	int slot;
	MPI_Status own;
	if (status == MPI_STATUS_IGNORE)
		status = &own;
	p2p(&r, DTS_MPI_Sendrecv_replace, comm, &slot, count, datatype);
	r.dest = to_world(slot, comm, dest);
	r.stag = sendtag;
	r.src = to_world(slot, comm, source);
	r.rtag = tag_of(recvtag);
	payload(&r, buf, count, datatype);
	emit(&r, 0);
	int rc = PMPI_Sendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm,
				       status);
	if (rc == MPI_SUCCESS)
		status_src(&r, slot, comm, status);
	emit(&r, 1);
	return rc;
}

/* ---- persistent requests: made by an *_init, activated by each MPI_Start -------------------- */

/* The arguments of a persistent request, for the MPI_Start records that activate it (one per
 * activation, with a request number of its own, as an Isend or Irecv has). */
#define PREQ_MAX 1024
static struct preq {
	uint64_t key; /* the handle's bits; 0 free */
	dts_record r;
	int slot, is_recv;
	const void *buf; /* a send's buffer, count and type, for the digest of each start */
	int count;
	MPI_Datatype type;
} preqs[PREQ_MAX];

static void preq_put(MPI_Request h, const dts_record *r, int slot, int is_recv, const void *buf,
		     int count, MPI_Datatype type)
{
	uint64_t k = req_key(h);
	if (h == MPI_REQUEST_NULL || !k)
		return;
	pthread_mutex_lock(&g.mu);
	struct preq *f = NULL;
	for (size_t i = 0; i < PREQ_MAX; i++)
		if (preqs[i].key == k || (!f && !preqs[i].key))
			f = &preqs[i];
	if (f)
		*f = (struct preq){ k, *r, slot, is_recv, buf, count, type };
	pthread_mutex_unlock(&g.mu);
}

/* with del, forgets it (MPI_Request_free) */
static int preq_get(MPI_Request h, struct preq *out, int del)
{
	uint64_t k = req_key(h);
	int found = 0;
	if (h == MPI_REQUEST_NULL || !k)
		return 0;
	pthread_mutex_lock(&g.mu);
	for (size_t i = 0; i < PREQ_MAX && !found; i++)
		if (preqs[i].key == k) {
			*out = preqs[i];
			found = 1;
			if (del)
				preqs[i].key = 0;
		}
	pthread_mutex_unlock(&g.mu);
	return found;
}

#define PSEND(name) SEND_REQ(name, 0, preq_put(*request, &r, slot, 0, buf, count, datatype))
PSEND(Send_init)
PSEND(Ssend_init)
PSEND(Bsend_init)
PSEND(Rsend_init)

int MPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag,
		  MPI_Comm comm, MPI_Request *request)
{
	dts_record r;
	int slot;
	p2p(&r, DTS_MPI_Recv_init, comm, &slot, count, datatype);
	r.src = to_world(slot, comm, source);
	r.rtag = tag_of(tag);
	emit(&r, 0);
	int rc = PMPI_Recv_init(buf, count, datatype, source, tag, comm, request);
	if (rc == MPI_SUCCESS && g.enabled)
		preq_put(*request, &r, slot, 1, NULL, 0, MPI_DATATYPE_NULL);
	emit(&r, 1);
	return rc;
}

/* An MPI_Start record of a persistent request: its init's arguments (none when unknown). */
static int start_record(dts_record *r, MPI_Request h, int *slot, int *is_recv)
{
	struct preq p;
	rec_init(r, DTS_MPI_Start);
	*slot = -2;
	*is_recv = 0;
	if (!g.enabled || !preq_get(h, &p, 0))
		return 0;
	r->comm = p.r.comm;
	r->csize = p.r.csize;
	r->count = p.r.count;
	r->datatype = p.r.datatype;
	r->dest = p.r.dest;
	r->stag = p.r.stag;
	r->src = p.r.src;
	r->rtag = p.r.rtag;
	*slot = p.slot;
	*is_recv = p.is_recv;
	if (!p.is_recv)
		payload(r, p.buf, p.count, p.type);
	return 1;
}

int MPI_Start(MPI_Request *request)
{
	dts_record r;
	int slot, is_recv;
	start_record(&r, *request, &slot, &is_recv);
	emit(&r, 0);
	int rc = PMPI_Start(request);
	if (rc == MPI_SUCCESS && g.enabled)
		r.req = req_add_as(*request, slot, is_recv, NULL, 0, MPI_DATATYPE_NULL, 1);
	emit(&r, 1);
	return rc;
}

/* Recorded as one MPI_Start per request, after it returned (it does not block). */
int MPI_Startall(int count, MPI_Request array_of_requests[])
{
	int rc = PMPI_Startall(count, array_of_requests);
	for (int i = 0; rc == MPI_SUCCESS && i < count; i++) {
		dts_record r;
		int slot, is_recv;
		start_record(&r, array_of_requests[i], &slot, &is_recv);
		emit(&r, 0);
		if (g.enabled)
			r.req = req_add_as(array_of_requests[i], slot, is_recv, NULL, 0,
					   MPI_DATATYPE_NULL, 1);
		emit(&r, 1);
	}
	return rc;
}

/* Recorded with the number of the request it frees (0: none, as a persistent request not
 * started): no wait completes it now, and the analyses see it ended. */
int MPI_Request_free(MPI_Request *request)
{
	struct preq p;
	struct req_ent q = { .comm_slot = -1 };
	dts_record r;
	rec_init(&r, DTS_MPI_Request_free);
	/* a persistent request's handle is its own: whatever was started with it goes; another
	 * handle may be shared (req_add_as): the oldest of its requests is the one freed */
	if (g.enabled) {
		if (preq_get(*request, &p, 1)) {
			req_find(*request, &q, 0);
			req_forget(*request);
		} else {
			req_find(*request, &q, 1);
		}
	}
	r.req = q.id;
	emit(&r, 0);
	int rc = PMPI_Request_free(request);
	if (rc != MPI_SUCCESS)
		r.req = 0;
	emit(&r, 1);
	return rc;
}

/* A completed request's fields: its number, for a receive the actual source and tag (none
 * when it was cancelled), and for a nonblocking send with --payload the digest of its buffer
 * now (the same as at the call unless the program wrote into the buffer while the send was in
 * flight). */
static void done_fields(dts_record *r, const struct req_ent *q, const MPI_Status *st)
{
	r->req = q->id;
	if (q->buf)
		coll_payload(r, q->buf, q->count, q->type);
	r->src = r->rtag = -1;
	int cancelled = 0;
	/* a cancelled receive took no message: its status's source and tag mean nothing */
	if (q->is_recv && st && PMPI_Test_cancelled(st, &cancelled) == MPI_SUCCESS && cancelled)
		return;
	if (q->is_recv && st) {
		int s = q->comm_slot;
		r->src = s == -1 ? st->MPI_SOURCE : s >= 0 && st->MPI_SOURCE >= 0 &&
				st->MPI_SOURCE < g.comms[s].size ? g.comms[s].world[st->MPI_SOURCE]
								 : -1;
		if (st->MPI_SOURCE == MPI_PROC_NULL)
			r->src = -3;
		r->rtag = tag_of(st->MPI_TAG);
	}
}

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
	dts_record r;
	struct req_ent q = { .comm_slot = -1 };
	MPI_Status own;
	if (status == MPI_STATUS_IGNORE)
		status = &own;
	rec_init(&r, DTS_MPI_Wait);
	/* a wait always completes its request: forget it now, before the handle can be reused */
	if (g.enabled)
		req_find(*request, &q, 1);
	r.req = q.id;
	emit(&r, 0);
	int rc = PMPI_Wait(request, status);
	if (rc == MPI_SUCCESS)
		done_fields(&r, &q, status);
	emit(&r, 1);
	return rc;
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
	dts_record r;
	struct req_ent q = { .comm_slot = -1 };
	MPI_Status own;
	if (status == MPI_STATUS_IGNORE)
		status = &own;
	rec_init(&r, DTS_MPI_Test);
	MPI_Request h = *request;
	if (g.enabled)
		req_find(h, &q, 0);
	r.req = q.id;
	emit(&r, 0);
	int rc = PMPI_Test(request, flag, status);
	r.req = 0;
	if (rc == MPI_SUCCESS && *flag) {
		if (q.id)
			req_find(h, &q, 1);
		done_fields(&r, &q, status);
	}
	emit(&r, 1);
	return rc;
}

/* The requests of an array call, looked up (and with del, forgotten) before it. */
struct reqs {
	struct req_ent *q;
	MPI_Request *h;
	MPI_Status *st;
	struct req_ent q_s[32];
	MPI_Request h_s[32];
	MPI_Status st_s[32];
};

static void reqs_free(struct reqs *a, MPI_Status *st)
{
	if (a->q != a->q_s)
		free(a->q);
	if (a->h != a->h_s)
		free(a->h);
	if (a->st != st && a->st != a->st_s)
		free(a->st);
}

static int reqs_get(struct reqs *a, int n, MPI_Request *v, MPI_Status *st, int del)
{
	a->q = a->q_s;
	a->h = a->h_s;
	a->st = st;
	if (n > 32) {
		a->q = malloc((size_t)n * sizeof *a->q);
		a->h = malloc((size_t)n * sizeof *a->h);
	}
	if (st == MPI_STATUSES_IGNORE)
		a->st = n > 32 ? malloc((size_t)n * sizeof *a->st) : a->st_s;
	if (!a->q || !a->h || !a->st) {
		/* not recorded; a wait still forgets its requests, lest their handles, reused,
		 * find them */
		for (int i = 0; del && g.enabled && i < n; i++) {
			struct req_ent q;
			req_find(v[i], &q, 1);
		}
		reqs_free(a, st);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		a->h[i] = v[i];
		a->q[i] = (struct req_ent){ .comm_slot = -1 };
		if (g.enabled)
			req_find(v[i], &a->q[i], del);
	}
	return 0;
}

/* One DONE record per request i completed. */
static ALWAYS_INLINE void done(enum dts_call c, struct reqs *a, int i, int del)
{
	dts_record d;
	rec_init(&d, c);
	if (del && a->q[i].id)
		req_find(a->h[i], &a->q[i], 1);
	done_fields(&d, &a->q[i], &a->st[i]);
	d.index = i;
	emit(&d, 2);
}

int MPI_Waitall(int count, MPI_Request array[], MPI_Status statuses[])
{
	struct reqs a;
	if (!g.enabled || reqs_get(&a, count, array, statuses, 1))
		return PMPI_Waitall(count, array, statuses);
	dts_record r;
	rec_init(&r, DTS_MPI_Waitall);
	r.count = count;
	emit(&r, 0);
	int rc = PMPI_Waitall(count, array, a.st);
	emit(&r, 1);
	if (rc == MPI_SUCCESS)
		for (int i = 0; i < count; i++)
			if (a.q[i].id)
				done(DTS_MPI_Waitall, &a, i, 0);
	reqs_free(&a, statuses);
	return rc;
}

int MPI_Testall(int count, MPI_Request array[], int *flag, MPI_Status statuses[])
{
	struct reqs a;
	if (!g.enabled || reqs_get(&a, count, array, statuses, 0))
		return PMPI_Testall(count, array, flag, statuses);
	dts_record r;
	rec_init(&r, DTS_MPI_Testall);
	r.count = count;
	emit(&r, 0);
	int rc = PMPI_Testall(count, array, flag, a.st);
	emit(&r, 1);
	if (rc == MPI_SUCCESS && *flag)
		for (int i = 0; i < count; i++)
			if (a.q[i].id)
				done(DTS_MPI_Testall, &a, i, 1);
	reqs_free(&a, statuses);
	return rc;
}

static ALWAYS_INLINE int any(enum dts_call c, int count, MPI_Request array[], int *index, int *flag,
	       MPI_Status *status)
{
	MPI_Status own;
	if (status == MPI_STATUS_IGNORE)
		status = &own;
	struct reqs a;
	if (!g.enabled || reqs_get(&a, count, array, MPI_STATUSES_IGNORE, 0))
		return flag ? PMPI_Testany(count, array, index, flag, status)
			    : PMPI_Waitany(count, array, index, status);
	dts_record r;
	rec_init(&r, c);
	r.count = count;
	emit(&r, 0);
	int rc = flag ? PMPI_Testany(count, array, index, flag, status)
		      : PMPI_Waitany(count, array, index, status);
	if (rc == MPI_SUCCESS && (!flag || *flag) && *index != MPI_UNDEFINED && *index >= 0 &&
	    *index < count) {
		struct req_ent *q = &a.q[*index];
		if (q->id)
			req_find(a.h[*index], q, 1);
		done_fields(&r, q, status);
		r.index = *index;
	}
	emit(&r, 1);
	reqs_free(&a, MPI_STATUSES_IGNORE);
	return rc;
}

int MPI_Waitany(int count, MPI_Request array[], int *index, MPI_Status *status)
{
	return any(DTS_MPI_Waitany, count, array, index, NULL, status);
}

int MPI_Testany(int count, MPI_Request array[], int *index, int *flag, MPI_Status *status)
{
	return any(DTS_MPI_Testany, count, array, index, flag, status);
}

static ALWAYS_INLINE int some(enum dts_call c, int incount, MPI_Request array[], int *outcount,
		int indices[], MPI_Status statuses[])
{
	struct reqs a;
	int test = c == DTS_MPI_Testsome;
	if (!g.enabled || reqs_get(&a, incount, array, statuses, 0))
		return test ? PMPI_Testsome(incount, array, outcount, indices, statuses)
			    : PMPI_Waitsome(incount, array, outcount, indices, statuses);
	dts_record r;
	rec_init(&r, c);
	r.count = incount;
	emit(&r, 0);
	int rc = test ? PMPI_Testsome(incount, array, outcount, indices, a.st)
		      : PMPI_Waitsome(incount, array, outcount, indices, a.st);
	emit(&r, 1);
	if (rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED)
		for (int k = 0; k < *outcount; k++) {
			int i = indices[k];
			if (i < 0 || i >= incount || !a.q[i].id)
				continue;
			/* Waitsome's statuses are by position in indices, not by request */
			MPI_Status keep = a.st[i];
			a.st[i] = a.st[k];
			done(c, &a, i, 1);
			a.st[i] = keep;
		}
	reqs_free(&a, statuses);
	return rc;
}

int MPI_Waitsome(int incount, MPI_Request array[], int *outcount, int indices[],
		 MPI_Status statuses[])
{
	return some(DTS_MPI_Waitsome, incount, array, outcount, indices, statuses);
}

int MPI_Testsome(int incount, MPI_Request array[], int *outcount, int indices[],
		 MPI_Status statuses[])
{
	return some(DTS_MPI_Testsome, incount, array, outcount, indices, statuses);
}

/* ---- collectives ---------------------------------------------------------------------------- */

static ALWAYS_INLINE int coll(dts_record *r, enum dts_call c, MPI_Comm comm, int count, MPI_Datatype t,
		MPI_Op op, int root)
{
	rec_init(r, c);
	int slot = comm_slot(comm);
	r->comm = comm_id(slot);
	r->csize = comm_size(slot, comm);
	r->count = count;
	r->datatype = type_code(t);
	r->op = op == MPI_OP_NULL ? -1 : op_code(op);
	if (root != -1)
		r->root = to_world(slot, comm, root);
	return slot;
}

#define COLL(call, pcall, count, type, op, root)                              \
	COLL_DATA(call, pcall, count, type, op, root, NULL, 0, MPI_DATATYPE_NULL)

/* A collective whose entry has a payload digest (sync_rma.c) of buf's n elements of type t:
 * what the process contributes */
#define COLL_DATA(call, pcall, count, type, op, root, buf, n, t)               \
	COLL_WITH(call, pcall, count, type, op, root, coll_payload(&r, buf, n, t))

/* A collective whose digest is made by dig, a statement with the record r at hand */
#define COLL_WITH(call, pcall, count, type, op, root, dig)                     \
	dts_record r;                                                         \
	coll(&r, DTS_##call, comm, count, type, op, root);                    \
	dig;                                                                  \
	emit(&r, 0);                                                          \
	int rc = pcall;                                                       \
	emit(&r, 1);                                                          \
	return rc

int MPI_Barrier(MPI_Comm comm)
{
	COLL(MPI_Barrier, PMPI_Barrier(comm), -1, MPI_DATATYPE_NULL, MPI_OP_NULL, -1);
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
	/* the root's buffer alone holds data before the call */
	int me = payload_rank(comm);
	COLL_DATA(MPI_Bcast, PMPI_Bcast(buffer, count, datatype, root, comm), count, datatype,
		  MPI_OP_NULL, root, me == root ? buffer : NULL, count, datatype);
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
	       int root, MPI_Comm comm)
{
	COLL_DATA(MPI_Reduce, PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm),
		  count, datatype, op, root, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, count,
		  datatype);
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
		  MPI_Op op, MPI_Comm comm)
{
	COLL_DATA(MPI_Allreduce, PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm),
		  count, datatype, op, -1, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, count,
		  datatype);
}

int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
	     MPI_Comm comm)
{
	COLL_DATA(MPI_Scan, PMPI_Scan(sendbuf, recvbuf, count, datatype, op, comm), count,
		  datatype, op, -1, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, count, datatype);
}

int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
	       MPI_Comm comm)
{
	COLL_DATA(MPI_Exscan, PMPI_Exscan(sendbuf, recvbuf, count, datatype, op, comm), count,
		  datatype, op, -1, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, count, datatype);
}

int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
			     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	/* csize blocks of recvcount, in the receive buffer under MPI_IN_PLACE */
	COLL_WITH(MPI_Reduce_scatter_block,
		  PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm),
		  recvcount, datatype, op, -1,
		  blocks_payload(&r, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, r.csize, NULL,
				 NULL, recvcount, datatype));
}

int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
		       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	/* the blocks of recvcounts, one after another */
	COLL_WITH(MPI_Reduce_scatter,
		  PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm), -1,
		  datatype, op, -1,
		  blocks_payload(&r, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, r.csize,
				 recvcounts, NULL, 0, datatype));
}

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
	       int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	COLL_DATA(MPI_Gather,
		  PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
			      comm),
		  sendcount, sendtype, MPI_OP_NULL, root, sendbuf, sendcount, sendtype);
}

int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
		MPI_Comm comm)
{
	COLL_DATA(MPI_Gatherv,
		  PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
			       root, comm),
		  sendcount, sendtype, MPI_OP_NULL, root, sendbuf, sendcount, sendtype);
}

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	/* the root's whole send buffer: a block for each rank */
	int me = payload_rank(comm);
	COLL_WITH(MPI_Scatter,
		  PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
			       comm),
		  recvcount, recvtype, MPI_OP_NULL, root,
		  if (me == root) blocks_payload(&r, sendbuf, r.csize, NULL, NULL, sendcount,
						 sendtype));
}

int MPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
		 MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
		 int root, MPI_Comm comm)
{
	/* the root's blocks, in the order of the ranks they go to */
	int me = payload_rank(comm);
	COLL_WITH(MPI_Scatterv,
		  PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
				recvtype, root, comm),
		  recvcount, recvtype, MPI_OP_NULL, root,
		  if (me == root) blocks_payload(&r, sendbuf, r.csize, sendcounts, displs, 0,
						 sendtype));
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
	COLL_DATA(MPI_Allgather,
		  PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm),
		  sendcount, sendtype, MPI_OP_NULL, -1, sendbuf, sendcount, sendtype);
}

int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		   const int recvcounts[], const int displs[], MPI_Datatype recvtype,
		   MPI_Comm comm)
{
	COLL_DATA(MPI_Allgatherv,
		  PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
				  recvtype, comm),
		  sendcount, sendtype, MPI_OP_NULL, -1, sendbuf, sendcount, sendtype);
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		 int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
	/* a block for each rank; the receive buffer's under MPI_IN_PLACE */
	int inp = sendbuf == MPI_IN_PLACE;
	COLL_WITH(MPI_Alltoall,
		  PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm),
		  sendcount, sendtype, MPI_OP_NULL, -1,
		  blocks_payload(&r, inp ? recvbuf : sendbuf, r.csize, NULL, NULL,
				 inp ? recvcount : sendcount, inp ? recvtype : sendtype));
}

int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
		  MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
		  const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
	int inp = sendbuf == MPI_IN_PLACE;
	COLL_WITH(MPI_Alltoallv,
		  PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
				 rdispls, recvtype, comm),
		  -1, sendtype, MPI_OP_NULL, -1,
		  blocks_payload(&r, inp ? recvbuf : sendbuf, r.csize, inp ? recvcounts : sendcounts,
				 inp ? rdispls : sdispls, 0, inp ? recvtype : sendtype));
}

/* Nonblocking collectives: their request is numbered like a send's. */
#define ICOLL(call, pcall, count, type, op, root)                              \
	ICOLL_DATA(call, pcall, count, type, op, root, NULL, 0, MPI_DATATYPE_NULL)
/* with a digest of buf's n elements of type t, as COLL_DATA: the data when the call is made */
#define ICOLL_DATA(call, pcall, count, type, op, root, buf, n, t)              \
	dts_record r;                                                          \
	int slot = coll(&r, DTS_##call, comm, count, type, op, root);          \
	coll_payload(&r, buf, n, t);                                           \
	emit(&r, 0);                                                           \
	int rc = pcall;                                                        \
	if (rc == MPI_SUCCESS && g.enabled)                                    \
		r.req = req_add(*request, slot, 0);                            \
	emit(&r, 1);                                                           \
	return rc

int MPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
	ICOLL(MPI_Ibarrier, PMPI_Ibarrier(comm, request), -1, MPI_DATATYPE_NULL, MPI_OP_NULL, -1);
}

int MPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
	       MPI_Request *request)
{
	int me = payload_rank(comm);
	ICOLL_DATA(MPI_Ibcast, PMPI_Ibcast(buffer, count, datatype, root, comm, request), count,
		   datatype, MPI_OP_NULL, root, me == root ? buffer : NULL, count, datatype);
}

int MPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
		MPI_Op op, int root, MPI_Comm comm, MPI_Request *request)
{
	ICOLL_DATA(MPI_Ireduce,
		   PMPI_Ireduce(sendbuf, recvbuf, count, datatype, op, root, comm, request), count,
		   datatype, op, root, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, count,
		   datatype);
}

int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
		   MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
	ICOLL_DATA(MPI_Iallreduce,
		   PMPI_Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, request), count,
		   datatype, op, -1, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, count, datatype);
}

/* ---- communicators: the new one's number is in obj on the exit --------------------------------- */

#define MAKE(call, pcall)                                  \
	dts_record r;                                      \
	coll(&r, DTS_##call, comm, -1, MPI_DATATYPE_NULL, MPI_OP_NULL, -1); \
	emit(&r, 0);                                       \
	int rc = pcall;                                    \
	if (rc == MPI_SUCCESS) {                           \
		int32_t id = comm_register(comm, *newcomm); \
		r.obj = id < 0 ? 0 : (uint64_t)id;         \
	}                                                  \
	emit(&r, 1);                                       \
	return rc

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
	MAKE(MPI_Comm_dup, PMPI_Comm_dup(comm, newcomm));
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
	MAKE(MPI_Comm_split, PMPI_Comm_split(comm, color, key, newcomm));
}

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
	MAKE(MPI_Comm_create, PMPI_Comm_create(comm, group, newcomm));
}

int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
			MPI_Comm *newcomm)
{
	MAKE(MPI_Comm_split_type, PMPI_Comm_split_type(comm, split_type, key, info, newcomm));
}

int MPI_Comm_free(MPI_Comm *comm)
{
	dts_record r;
	coll(&r, DTS_MPI_Comm_free, *comm, -1, MPI_DATATYPE_NULL, MPI_OP_NULL, -1);
	MPI_Comm h = *comm;
	emit(&r, 0);
	int rc = PMPI_Comm_free(comm);
	if (rc == MPI_SUCCESS)
		comm_forget(h);
	emit(&r, 1);
	return rc;
}
