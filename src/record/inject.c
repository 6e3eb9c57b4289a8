/* inject.c: libdifftrace-inject.so, a fault injector loaded with LD_PRELOAD into an MPI +
 * OpenMP program we did not write (difftrace-inject(7)).
 *
 * It defines MPI functions (calling the next definition: libdifftrace-sync.so's when it is
 * preloaded after this one, else the MPI library's, which is the PMPI one) and
 * the libgomp entry points of critical sections and locks (calling the real ones found with
 * dlsym(RTLD_NEXT)); a call chosen by the specification in DIFFTRACE_INJECT (or the file
 * DIFFTRACE_INJECT_FILE) gets changed arguments, is skipped, or is followed by a hang. The
 * constructor parses the specification before main() runs and exits 2 on a bad one, so a
 * typo never gives a "normal" run that was meant to be faulty. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <omp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "abiguard.h"
#include "spec.h"

#define INJ_MAX_THREADS 256 /* OpenMP thread numbers counted apart; higher ones share a slot */
#define INJ_MAX_LOCKS 32    /* skipped locks a thread may hold at once */

/* Everything the library keeps. An LD_PRELOAD library has no caller to hand it a context:
 * the interposed functions are called by the program with the program's arguments only, so
 * the parsed specification and the call counters must live in a global. They live in this
 * one struct, written only by the constructor (and `rank` once by MPI_Init), except for the
 * counters, which are atomics. */
static struct {
	struct spec spec;
	int verbose;
	_Atomic int rank; /* -1 until the environment or MPI_Init says */
	int (*thread_num)(void);
	void (*critical_start)(void), (*critical_end)(void);
	void (*critical_name_start)(void **), (*critical_name_end)(void **);
	void (*gomp_barrier)(void);
	void (*set_lock)(omp_lock_t *), (*unset_lock)(omp_lock_t *);
	/* calls of fault f's function by OpenMP thread t, in the chosen ranks and threads */
	atomic_ulong calls[SPEC_MAX_FAULTS][INJ_MAX_THREADS];
} inj = { .rank = -1 };

/* Which critical sections and locks this thread skipped, so that the matching end or unset
 * is skipped too. Per OS thread (a critical section or lock is left by the thread that took
 * it), hence thread-local rather than in `inj`. */
static _Thread_local struct {
	uint64_t crit_skipped; /* bit d: the critical section at nesting depth d was skipped */
	int crit_depth;
	omp_lock_t *locks[INJ_MAX_LOCKS];
	int nlocks;
} tls;

static int thread_num(void) { return inj.thread_num ? inj.thread_num() : 0; }

__attribute__((format(printf, 1, 2))) static void say(const char *fmt, ...)
{
	char buf[512];
	int n = snprintf(buf, sizeof buf, "difftrace-inject: rank %d thread %d: ",
			 atomic_load(&inj.rank), thread_num());
	va_list ap;
	va_start(ap, fmt);
	if (n > 0 && (size_t)n < sizeof buf)
		n += vsnprintf(buf + n, sizeof buf - (size_t)n, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof buf - 1)
		n = (int)sizeof buf - 2;
	buf[n++] = '\n';
	/* one write, so that lines of several threads and ranks do not mix */
	ssize_t w = write(STDERR_FILENO, buf, (size_t)n);
	(void)w;
}

static void *real(const char *name, const char *version)
{
	void *p = version ? dlvsym(RTLD_NEXT, name, version) : NULL;
	return p ? p : dlsym(RTLD_NEXT, name);
}

static int env_rank(void)
{
	static const char *const vars[] = { "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK",
					    "SLURM_PROCID", "MV2_COMM_WORLD_RANK" };
	for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
		const char *v = getenv(vars[i]);
		char *end;
		if (v && *v) {
			long r = strtol(v, &end, 10);
			if (!*end && r >= 0 && r < 1L << 30)
				return (int)r;
		}
	}
	return -1;
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	size_t n;
	while (buf && (n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
		len += n;
		if (len + 1 == cap) {
			char *b = realloc(buf, cap *= 2);
			if (!b)
				free(buf);
			buf = b;
		}
	}
	if (buf)
		buf[len] = 0;
	fclose(f);
	return buf;
}

/* The next definition of each MPI function the injector changes: libdifftrace-sync.so's when
 * it is preloaded after this library, so that the sync record shows each call as changed here
 * (and a dropped one not at all), else the MPI library's own. Looked up by the constructor. */
static void (*next_mpi(const char *name, void (*fallback)(void)))(void)
{
	void (*p)(void) = (void (*)(void))dlsym(RTLD_NEXT, name);
	return p ? p : fallback;
}
#define NEXT_FNS(X) X(Init) X(Init_thread) X(Allreduce) X(Reduce) X(Bcast) X(Barrier) X(Send) \
	X(Isend) X(Recv)
#define NEXT_DECL(f) static __typeof__(&PMPI_##f) next_MPI_##f;
NEXT_FNS(NEXT_DECL)
#undef NEXT_DECL
#define NEXT(fn) (next_##fn)

__attribute__((constructor)) static void inj_init(void)
{
	abi_guard("difftrace-inject");
	const char *text = getenv("DIFFTRACE_INJECT"), *file = getenv("DIFFTRACE_INJECT_FILE");
	char *owned = NULL;
	if (text && *text && file && *file) {
		fputs("difftrace-inject: set DIFFTRACE_INJECT or DIFFTRACE_INJECT_FILE, not both\n",
		      stderr);
		_exit(2);
	}
	if (file && *file) {
		owned = read_file(file);
		if (!owned) {
			fprintf(stderr, "difftrace-inject: cannot read %s\n", file);
			_exit(2);
		}
		text = owned;
	}
	struct spec_error err;
	if (spec_parse(text ? text : "", &inj.spec, &err)) {
		if (file && *file)
			fprintf(stderr,
				"difftrace-inject: bad specification in %s at line %d, column %d: "
				"%s\n",
				file, err.line, err.col, err.msg);
		else if (err.line > 1)
			fprintf(stderr,
				"difftrace-inject: bad specification at line %d, column %d: %s\n",
				err.line, err.col, err.msg);
		else
			fprintf(stderr, "difftrace-inject: bad specification at column %d: %s\n",
				err.col, err.msg);
		_exit(2);
	}
	free(owned);
#define NEXT_SET(f) \
	next_MPI_##f = (__typeof__(&PMPI_##f))next_mpi("MPI_" #f, (void (*)(void))&PMPI_##f);
	NEXT_FNS(NEXT_SET)
#undef NEXT_SET
	const char *v = getenv("DIFFTRACE_INJECT_VERBOSE");
	inj.verbose = v && *v && strcmp(v, "0") != 0;
	atomic_store(&inj.rank, env_rank());
	/* Not linked with libgomp: a program without OpenMP must not get it. These stay NULL
	 * there, and then the interposed GOMP functions are never called. */
	inj.thread_num = (int (*)(void))dlsym(RTLD_DEFAULT, "omp_get_thread_num");
	inj.critical_start = (void (*)(void))real("GOMP_critical_start", NULL);
	inj.critical_end = (void (*)(void))real("GOMP_critical_end", NULL);
	inj.critical_name_start = (void (*)(void **))real("GOMP_critical_name_start", NULL);
	inj.critical_name_end = (void (*)(void **))real("GOMP_critical_name_end", NULL);
	inj.gomp_barrier = (void (*)(void))real("GOMP_barrier", NULL);
	/* libgomp keeps an OMP_1.0 omp_set_lock for the old lock layout; programs built
	 * today call the OMP_3.0 one, which plain dlsym might not return */
	inj.set_lock = (void (*)(omp_lock_t *))real("omp_set_lock", "OMP_3.0");
	inj.unset_lock = (void (*)(omp_lock_t *))real("omp_unset_lock", "OMP_3.0");
	if (inj.verbose && inj.spec.n)
		say("%d fault(s) armed", inj.spec.n);
}

static void missing(const char *name)
{
	say("the real %s was not found (is libgomp loaded?)", name);
	_exit(2);
}

/* The faults that apply to this call of FN, as a bit set; counts the call for each. */
static uint64_t match(enum spec_fn fn, unsigned long *callno)
{
	uint64_t m = 0;
	const struct spec *s = &inj.spec;
	if (!s->n)
		return 0;
	int rank = atomic_load(&inj.rank), t = thread_num();
	int slot = t < 0 ? 0 : t < INJ_MAX_THREADS ? t : INJ_MAX_THREADS - 1;
	for (int i = 0; i < s->n; i++) {
		const struct spec_fault *f = &s->f[i];
		/* a critical fault counts named and unnamed critical sections alike */
		if (f->fn != fn && !(f->kind == SPEC_CRITICAL && fn == SPEC_FN_CRITICAL_NAME_START))
			continue;
		if (f->ranks.n && (rank < 0 || !spec_in(&f->ranks, rank)))
			continue;
		if (!spec_in(&f->threads, t))
			continue;
		unsigned long n = atomic_fetch_add(&inj.calls[i][slot], 1) + 1;
		if (spec_in(&f->calls, (long)n)) {
			m |= UINT64_C(1) << i;
			callno[i] = n;
		}
	}
	return m;
}

/* The faults matched that change or skip the call (spin faults act after it). */
static uint64_t acting(uint64_t m)
{
	uint64_t a = 0;
	for (int i = 0; i < inj.spec.n; i++)
		if ((m >> i & 1) && inj.spec.f[i].kind != SPEC_SPIN)
			a |= UINT64_C(1) << i;
	return a;
}

/* After the call: hang if a spin fault matched. pause() sleeps, so that a hung rank does
 * not take a core from the others; `busy` burns the core like a real livelock would. */
static void after(uint64_t m, const unsigned long *callno)
{
	for (int i = 0; i < inj.spec.n; i++) {
		const struct spec_fault *f = &inj.spec.f[i];
		if (!(m >> i & 1) || f->kind != SPEC_SPIN)
			continue;
		if (inj.verbose)
			say("%s call %lu: spinning forever%s", spec_fn_name(f->fn), callno[i],
			    f->busy ? " (busy)" : "");
		if (f->busy) {
			volatile unsigned long x = 0;
			for (;;)
				x++;
		}
		for (;;)
			pause();
	}
}

/* ---- MPI ------------------------------------------------------------------------------ */

static MPI_Op mpi_op(enum spec_op op)
{
	switch (op) {
#define X_CASE(n)         \
	case SPEC_OP_##n: \
		return MPI_##n;
		SPEC_OPS(X_CASE)
#undef X_CASE
	default:
		return MPI_OP_NULL;
	}
}

static MPI_Datatype mpi_type(enum spec_type t)
{
	switch (t) {
#define X_CASE(n)           \
	case SPEC_TYPE_##n: \
		return MPI_##n;
		SPEC_TYPES(X_CASE)
#undef X_CASE
	default:
		return MPI_DATATYPE_NULL;
	}
}

/* The arguments a fault may change. */
struct mpi_args {
	int count;
	MPI_Datatype type;
	MPI_Op op;
	int root, peer, tag;
};

/* Apply the faults of FN's call to A; true when the call is to be dropped. */
static int mpi_enter(enum spec_fn fn, struct mpi_args *a, uint64_t *m, unsigned long *callno)
{
	*m = match(fn, callno);
	uint64_t act = acting(*m);
	int drop = 0;
	for (int i = 0; i < inj.spec.n; i++) {
		if (!(act >> i & 1))
			continue;
		const struct spec_fault *f = &inj.spec.f[i];
		const char *name = spec_fn_name(fn);
		if (f->drop) {
			drop = 1;
			if (inj.verbose)
				say("%s call %lu: dropped", name, callno[i]);
			continue;
		}
		if (f->set & SPEC_SET_COUNT) {
			long c = f->count_rel ? a->count + f->count : f->count;
			c = c < 0 ? 0 : c > INT32_MAX ? INT32_MAX : c;
			if (inj.verbose)
				say("%s call %lu: count %d -> %ld", name, callno[i], a->count, c);
			a->count = (int)c;
		}
		if (f->set & SPEC_SET_OP) {
			a->op = mpi_op(f->op);
			if (inj.verbose)
				say("%s call %lu: op -> %s", name, callno[i], spec_op_name(f->op));
		}
		if (f->set & SPEC_SET_TYPE) {
			a->type = mpi_type(f->type);
			if (inj.verbose)
				say("%s call %lu: datatype -> %s", name, callno[i],
				    spec_type_name(f->type));
		}
		if (f->set & SPEC_SET_ROOT) {
			if (inj.verbose)
				say("%s call %lu: root %d -> %d", name, callno[i], a->root, f->root);
			a->root = f->root;
		}
		if (f->set & (SPEC_SET_DEST | SPEC_SET_SOURCE)) {
			int p = f->set & SPEC_SET_DEST ? f->dest : f->source;
			p = p == SPEC_ANY ? MPI_ANY_SOURCE : p;
			if (inj.verbose)
				say("%s call %lu: %s %d -> %d", name, callno[i],
				    f->set & SPEC_SET_DEST ? "dest" : "source", a->peer, p);
			a->peer = p;
		}
		if (f->set & SPEC_SET_TAG) {
			int tag = f->tag == SPEC_ANY ? MPI_ANY_TAG : f->tag;
			if (inj.verbose)
				say("%s call %lu: tag %d -> %d", name, callno[i], a->tag, tag);
			a->tag = tag;
		}
	}
	return drop;
}

/* Learn the rank from MPI itself when the launcher's environment did not say. */
static void learn_rank(void)
{
	int r;
	if (atomic_load(&inj.rank) < 0 && PMPI_Comm_rank(MPI_COMM_WORLD, &r) == MPI_SUCCESS)
		atomic_store(&inj.rank, r);
}

int MPI_Init(int *argc, char ***argv)
{
	int rc = NEXT(MPI_Init)(argc, argv);
	if (rc == MPI_SUCCESS)
		learn_rank();
	return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
	int rc = NEXT(MPI_Init_thread)(argc, argv, required, provided);
	if (rc == MPI_SUCCESS)
		learn_rank();
	return rc;
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
		  MPI_Op op, MPI_Comm comm)
{
	struct mpi_args a = { count, datatype, op, 0, 0, 0 };
	uint64_t m;
	unsigned long n[SPEC_MAX_FAULTS];
	int rc = MPI_SUCCESS;
	if (!mpi_enter(SPEC_FN_ALLREDUCE, &a, &m, n))
		rc = NEXT(MPI_Allreduce)(sendbuf, recvbuf, a.count, a.type, a.op, comm);
	after(m, n);
	return rc;
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
	       int root, MPI_Comm comm)
{
	struct mpi_args a = { count, datatype, op, root, 0, 0 };
	uint64_t m;
	unsigned long n[SPEC_MAX_FAULTS];
	int rc = MPI_SUCCESS;
	if (!mpi_enter(SPEC_FN_REDUCE, &a, &m, n))
		rc = NEXT(MPI_Reduce)(sendbuf, recvbuf, a.count, a.type, a.op, a.root, comm);
	after(m, n);
	return rc;
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
	struct mpi_args a = { count, datatype, MPI_OP_NULL, root, 0, 0 };
	uint64_t m;
	unsigned long n[SPEC_MAX_FAULTS];
	int rc = MPI_SUCCESS;
	if (!mpi_enter(SPEC_FN_BCAST, &a, &m, n))
		rc = NEXT(MPI_Bcast)(buffer, a.count, a.type, a.root, comm);
	after(m, n);
	return rc;
}

int MPI_Barrier(MPI_Comm comm)
{
	struct mpi_args a = { 0, MPI_DATATYPE_NULL, MPI_OP_NULL, 0, 0, 0 };
	uint64_t m;
	unsigned long n[SPEC_MAX_FAULTS];
	int rc = MPI_SUCCESS;
	if (!mpi_enter(SPEC_FN_BARRIER, &a, &m, n))
		rc = NEXT(MPI_Barrier)(comm);
	after(m, n);
	return rc;
}

int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
	     MPI_Comm comm)
{
	struct mpi_args a = { count, datatype, MPI_OP_NULL, 0, dest, tag };
	uint64_t m;
	unsigned long n[SPEC_MAX_FAULTS];
	int rc = MPI_SUCCESS;
	if (!mpi_enter(SPEC_FN_SEND, &a, &m, n))
		rc = NEXT(MPI_Send)(buf, a.count, a.type, a.peer, a.tag, comm);
	after(m, n);
	return rc;
}

int MPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
	      MPI_Comm comm, MPI_Request *request)
{
	struct mpi_args a = { count, datatype, MPI_OP_NULL, 0, dest, tag };
	uint64_t m;
	unsigned long n[SPEC_MAX_FAULTS];
	int rc = MPI_SUCCESS;
	if (!mpi_enter(SPEC_FN_ISEND, &a, &m, n))
		rc = NEXT(MPI_Isend)(buf, a.count, a.type, a.peer, a.tag, comm, request);
	else /* a dropped send completes at once: waiting on a null request returns */
		*request = MPI_REQUEST_NULL;
	after(m, n);
	return rc;
}

int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
	     MPI_Status *status)
{
	struct mpi_args a = { count, datatype, MPI_OP_NULL, 0, source, tag };
	uint64_t m;
	unsigned long n[SPEC_MAX_FAULTS];
	int rc = MPI_SUCCESS;
	mpi_enter(SPEC_FN_RECV, &a, &m, n); /* recv takes no drop */
	rc = NEXT(MPI_Recv)(buf, a.count, a.type, a.peer, a.tag, comm, status);
	after(m, n);
	return rc;
}

/* ---- Fortran (Open MPI) ---------------------------------------------------------------- */

#if defined(OPEN_MPI)
/* Open MPI's Fortran bindings (mpi_send_; ompi_send_f under `use mpi_f08`) call its PMPI_
 * functions, never the MPI_ ones above: these apply the same faults to them. The arguments
 * are converted to C for the match and the change, and back to Fortran for the next library's
 * mpi_send_ (the sync recorder's, which records the changed call, or Open MPI's own), so the
 * Fortran conventions (status arrays, MPI_IN_PLACE) stay the library's. MPICH's Fortran
 * bindings call the C functions, which the wrappers above change: its build has none. */
typedef MPI_Fint fint;

#define FNEXT(type, name)                                                  \
	static _Atomic(__typeof__(type)) fn; /* threads may race to set it */ \
	if (!fn) {                                                         \
		fn = (type)dlsym(RTLD_NEXT, name);                         \
		if (!fn)                                                   \
			missing(name);                                     \
	}
#define F_ALIAS(cname, fname) __typeof__(fname) cname __attribute__((alias(#fname)));

void mpi_init_(fint *ierr);
void mpi_init_(fint *ierr)
{
	FNEXT(void (*)(fint *), "mpi_init_");
	fn(ierr);
	if (*ierr == MPI_SUCCESS)
		learn_rank();
}
void ompi_init_f(fint *ierr);
F_ALIAS(ompi_init_f, mpi_init_)

void mpi_init_thread_(fint *required, fint *provided, fint *ierr);
void mpi_init_thread_(fint *required, fint *provided, fint *ierr)
{
	FNEXT(void (*)(fint *, fint *, fint *), "mpi_init_thread_");
	fn(required, provided, ierr);
	if (*ierr == MPI_SUCCESS)
		learn_rank();
}
void ompi_init_thread_f(fint *required, fint *provided, fint *ierr);
F_ALIAS(ompi_init_thread_f, mpi_init_thread_)

/* The C view of a Fortran call's arguments, and the Fortran values of the changed ones. */
static struct mpi_args f_args(const fint *count, const fint *type, const fint *op,
			      const fint *root, const fint *peer, const fint *tag)
{
	struct mpi_args a = { count ? *count : 0,
			      type ? PMPI_Type_f2c(*type) : MPI_DATATYPE_NULL,
			      op ? PMPI_Op_f2c(*op) : MPI_OP_NULL, root ? *root : 0,
			      peer ? *peer : 0, tag ? *tag : 0 };
	return a;
}

struct f_vals {
	fint count, type, op, root, peer, tag;
};

static struct f_vals f_back(const struct mpi_args *a)
{
	struct f_vals v = { a->count,
			    a->type == MPI_DATATYPE_NULL ? 0 : PMPI_Type_c2f(a->type),
			    a->op == MPI_OP_NULL ? 0 : PMPI_Op_c2f(a->op), a->root, a->peer,
			    a->tag };
	return v;
}

void mpi_allreduce_(void *sbuf, void *rbuf, fint *count, fint *type, fint *op, fint *comm,
		    fint *ierr);
void mpi_allreduce_(void *sbuf, void *rbuf, fint *count, fint *type, fint *op, fint *comm,
		    fint *ierr)
{
	FNEXT(void (*)(void *, void *, fint *, fint *, fint *, fint *, fint *), "mpi_allreduce_");
	struct mpi_args a = f_args(count, type, op, NULL, NULL, NULL);
	uint64_t m;
	unsigned long n[SPEC_MAX_FAULTS];
	*ierr = MPI_SUCCESS;
	if (!mpi_enter(SPEC_FN_ALLREDUCE, &a, &m, n)) {
		struct f_vals v = f_back(&a);
		fn(sbuf, rbuf, &v.count, &v.type, &v.op, comm, ierr);
	}
	after(m, n);
}
void ompi_allreduce_f(void *sbuf, void *rbuf, fint *count, fint *type, fint *op, fint *comm,
		      fint *ierr);
F_ALIAS(ompi_allreduce_f, mpi_allreduce_)

void mpi_reduce_(void *sbuf, void *rbuf, fint *count, fint *type, fint *op, fint *root,
		 fint *comm, fint *ierr);
void mpi_reduce_(void *sbuf, void *rbuf, fint *count, fint *type, fint *op, fint *root,
		 fint *comm, fint *ierr)
{
	FNEXT(void (*)(void *, void *, fint *, fint *, fint *, fint *, fint *, fint *),
	      "mpi_reduce_");
	struct mpi_args a = f_args(count, type, op, root, NULL, NULL);
	uint64_t m;
	unsigned long n[SPEC_MAX_FAULTS];
	*ierr = MPI_SUCCESS;
	if (!mpi_enter(SPEC_FN_REDUCE, &a, &m, n)) {
		struct f_vals v = f_back(&a);
		fn(sbuf, rbuf, &v.count, &v.type, &v.op, &v.root, comm, ierr);
	}
	after(m, n);
}
void ompi_reduce_f(void *sbuf, void *rbuf, fint *count, fint *type, fint *op, fint *root,
		   fint *comm, fint *ierr);
F_ALIAS(ompi_reduce_f, mpi_reduce_)

void mpi_bcast_(void *buf, fint *count, fint *type, fint *root, fint *comm, fint *ierr);
void mpi_bcast_(void *buf, fint *count, fint *type, fint *root, fint *comm, fint *ierr)
{
	FNEXT(void (*)(void *, fint *, fint *, fint *, fint *, fint *), "mpi_bcast_");
	struct mpi_args a = f_args(count, type, NULL, root, NULL, NULL);
	uint64_t m;
	unsigned long n[SPEC_MAX_FAULTS];
	*ierr = MPI_SUCCESS;
	if (!mpi_enter(SPEC_FN_BCAST, &a, &m, n)) {
		struct f_vals v = f_back(&a);
		fn(buf, &v.count, &v.type, &v.root, comm, ierr);
	}
	after(m, n);
}
void ompi_bcast_f(void *buf, fint *count, fint *type, fint *root, fint *comm, fint *ierr);
F_ALIAS(ompi_bcast_f, mpi_bcast_)

void mpi_barrier_(fint *comm, fint *ierr);
void mpi_barrier_(fint *comm, fint *ierr)
{
	FNEXT(void (*)(fint *, fint *), "mpi_barrier_");
	struct mpi_args a = f_args(NULL, NULL, NULL, NULL, NULL, NULL);
	uint64_t m;
	unsigned long n[SPEC_MAX_FAULTS];
	*ierr = MPI_SUCCESS;
	if (!mpi_enter(SPEC_FN_BARRIER, &a, &m, n))
		fn(comm, ierr);
	after(m, n);
}
void ompi_barrier_f(fint *comm, fint *ierr);
F_ALIAS(ompi_barrier_f, mpi_barrier_)

void mpi_send_(void *buf, fint *count, fint *type, fint *dest, fint *tag, fint *comm, fint *ierr);
void mpi_send_(void *buf, fint *count, fint *type, fint *dest, fint *tag, fint *comm, fint *ierr)
{
	FNEXT(void (*)(void *, fint *, fint *, fint *, fint *, fint *, fint *), "mpi_send_");
	struct mpi_args a = f_args(count, type, NULL, NULL, dest, tag);
	uint64_t m;
	unsigned long n[SPEC_MAX_FAULTS];
	*ierr = MPI_SUCCESS;
	if (!mpi_enter(SPEC_FN_SEND, &a, &m, n)) {
		struct f_vals v = f_back(&a);
		fn(buf, &v.count, &v.type, &v.peer, &v.tag, comm, ierr);
	}
	after(m, n);
}
void ompi_send_f(void *buf, fint *count, fint *type, fint *dest, fint *tag, fint *comm,
		 fint *ierr);
F_ALIAS(ompi_send_f, mpi_send_)

void mpi_isend_(void *buf, fint *count, fint *type, fint *dest, fint *tag, fint *comm,
		fint *req, fint *ierr);
void mpi_isend_(void *buf, fint *count, fint *type, fint *dest, fint *tag, fint *comm,
		fint *req, fint *ierr)
{
	FNEXT(void (*)(void *, fint *, fint *, fint *, fint *, fint *, fint *, fint *),
	      "mpi_isend_");
	struct mpi_args a = f_args(count, type, NULL, NULL, dest, tag);
	uint64_t m;
	unsigned long n[SPEC_MAX_FAULTS];
	*ierr = MPI_SUCCESS;
	if (!mpi_enter(SPEC_FN_ISEND, &a, &m, n)) {
		struct f_vals v = f_back(&a);
		fn(buf, &v.count, &v.type, &v.peer, &v.tag, comm, req, ierr);
	} else { /* a dropped send completes at once: waiting on a null request returns */
		*req = PMPI_Request_c2f(MPI_REQUEST_NULL);
	}
	after(m, n);
}
void ompi_isend_f(void *buf, fint *count, fint *type, fint *dest, fint *tag, fint *comm,
		  fint *req, fint *ierr);
F_ALIAS(ompi_isend_f, mpi_isend_)

void mpi_recv_(void *buf, fint *count, fint *type, fint *source, fint *tag, fint *comm,
	       fint *status, fint *ierr);
void mpi_recv_(void *buf, fint *count, fint *type, fint *source, fint *tag, fint *comm,
	       fint *status, fint *ierr)
{
	FNEXT(void (*)(void *, fint *, fint *, fint *, fint *, fint *, fint *, fint *),
	      "mpi_recv_");
	struct mpi_args a = f_args(count, type, NULL, NULL, source, tag);
	uint64_t m;
	unsigned long n[SPEC_MAX_FAULTS];
	mpi_enter(SPEC_FN_RECV, &a, &m, n); /* recv takes no drop */
	struct f_vals v = f_back(&a);
	fn(buf, &v.count, &v.type, &v.peer, &v.tag, comm, status, ierr);
	after(m, n);
}
void ompi_recv_f(void *buf, fint *count, fint *type, fint *source, fint *tag, fint *comm,
		 fint *status, fint *ierr);
F_ALIAS(ompi_recv_f, mpi_recv_)
#endif

/* ---- OpenMP (libgomp) ------------------------------------------------------------------ */

/* Enter a critical section: skipped when a critical fault matches; remembered by depth so
 * that its end is skipped too. */
static int crit_enter(uint64_t *m, unsigned long *callno, enum spec_fn fn)
{
	*m = match(fn, callno);
	uint64_t act = acting(*m);
	int d = tls.crit_depth++;
	if (d < 64) {
		if (act)
			tls.crit_skipped |= UINT64_C(1) << d;
		else
			tls.crit_skipped &= ~(UINT64_C(1) << d);
	}
	if (act && inj.verbose)
		for (int i = 0; i < inj.spec.n; i++)
			if (act >> i & 1)
				say("%s call %lu: critical section skipped", spec_fn_name(fn),
				    callno[i]);
	return act != 0;
}

static int crit_leave(void)
{
	int d = tls.crit_depth > 0 ? --tls.crit_depth : 0;
	return d < 64 && (tls.crit_skipped >> d & 1);
}

/* libgomp's entry points have no public header */
void GOMP_critical_start(void);
void GOMP_critical_end(void);

void GOMP_critical_start(void)
{
	uint64_t m;
	unsigned long n[SPEC_MAX_FAULTS];
	if (!crit_enter(&m, n, SPEC_FN_CRITICAL_START)) {
		if (!inj.critical_start)
			missing("GOMP_critical_start");
		inj.critical_start();
	}
	after(m, n);
}

void GOMP_critical_end(void)
{
	unsigned long n[SPEC_MAX_FAULTS];
	uint64_t m = match(SPEC_FN_CRITICAL_END, n);
	if (!crit_leave()) {
		if (!inj.critical_end)
			missing("GOMP_critical_end");
		inj.critical_end();
	}
	after(m, n);
}

void GOMP_critical_name_start(void **pptr);
void GOMP_critical_name_start(void **pptr)
{
	uint64_t m;
	unsigned long n[SPEC_MAX_FAULTS];
	if (!crit_enter(&m, n, SPEC_FN_CRITICAL_NAME_START)) {
		if (!inj.critical_name_start)
			missing("GOMP_critical_name_start");
		inj.critical_name_start(pptr);
	}
	after(m, n);
}

void GOMP_critical_name_end(void **pptr);
void GOMP_critical_name_end(void **pptr)
{
	unsigned long n[SPEC_MAX_FAULTS];
	uint64_t m = match(SPEC_FN_CRITICAL_NAME_END, n);
	if (!crit_leave()) {
		if (!inj.critical_name_end)
			missing("GOMP_critical_name_end");
		inj.critical_name_end(pptr);
	}
	after(m, n);
}

void GOMP_barrier(void);
void GOMP_barrier(void)
{
	unsigned long n[SPEC_MAX_FAULTS];
	uint64_t m = match(SPEC_FN_GOMP_BARRIER, n);
	if (!inj.gomp_barrier)
		missing("GOMP_barrier");
	inj.gomp_barrier();
	after(m, n);
}

void omp_set_lock(omp_lock_t *lock)
{
	unsigned long n[SPEC_MAX_FAULTS];
	uint64_t m = match(SPEC_FN_SET_LOCK, n);
	uint64_t act = acting(m);
	if (act && tls.nlocks < INJ_MAX_LOCKS) {
		tls.locks[tls.nlocks++] = lock;
		if (inj.verbose)
			for (int i = 0; i < inj.spec.n; i++)
				if (act >> i & 1)
					say("omp_set_lock call %lu: lock skipped", n[i]);
	} else {
		if (!inj.set_lock)
			missing("omp_set_lock");
		inj.set_lock(lock);
	}
	after(m, n);
}

void omp_unset_lock(omp_lock_t *lock)
{
	unsigned long n[SPEC_MAX_FAULTS];
	uint64_t m = match(SPEC_FN_UNSET_LOCK, n);
	int skipped = 0;
	for (int i = tls.nlocks - 1; i >= 0 && !skipped; i--)
		if (tls.locks[i] == lock) {
			tls.locks[i] = tls.locks[--tls.nlocks];
			skipped = 1;
		}
	if (!skipped) {
		if (!inj.unset_lock)
			missing("omp_unset_lock");
		inj.unset_lock(lock);
	}
	after(m, n);
}
