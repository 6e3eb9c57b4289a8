/* sync.c: libdifftrace-sync.so, the hang-safe record of MPI and OpenMP synchronisation calls,
 * loaded with LD_PRELOAD by difftrace-record (difftrace-sync(5) describes its files).
 *
 * It defines the MPI functions (calling the real ones through PMPI) and the libgomp entry
 * points of parallel regions, barriers, critical sections and locks (calling the real ones
 * found with dlsym(RTLD_NEXT)). Every such call writes a record when it begins, before it can
 * block, and one when it returns, into a per-thread file mapped MAP_SHARED: the records are in
 * the kernel's page cache as soon as they are written, so they survive kill -9 and can be read
 * while the program runs. Nothing is recorded unless DIFFTRACE_SYNC_DIR names a directory.
 *
 * Identities are made run-wide here, where the handles are known: peers become MPI_COMM_WORLD
 * ranks, communicators get numbers that all their members agree on, requests get numbers that
 * are never reused within the process, locks and critical sections count their acquisitions.
 *
 * One translation unit, so that nothing but the wrapped entry points is seen by the program
 * it is preloaded into: this file is the record itself (the files, the records, the run-wide
 * identities); the wrappers are in the files it includes at its end: sync_mpi.c (MPI's
 * point-to-point calls, collectives, communicators), sync_rma.c (one-sided calls, payload
 * digests), sync_omp.c (libgomp's), sync_fortran.c
 * (the Fortran bindings). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <mpi.h>
#include <omp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "abiguard.h"
#include "syncfmt.h"

#define CHUNK_BYTES ((size_t)DTS_CHUNK_RECORDS * DTS_RECORD_SIZE)
#define MAX_COMMS 4096
#define REQ_SLOTS (1u << 16) /* slots of the request table (two for a handle's first request) */
#define REQ_FULL (REQ_SLOTS / 4 * 3) /* slots used at most: probes stay short */
#define REQ_SAME ((int)(REQ_SLOTS / 8)) /* live requests of one handle at most */
#define OBJ_SLOTS 4096u      /* locks and critical sections of the process */

/* A communicator the process knows: its run-wide number and its members' world ranks. */
struct comm_ent {
	MPI_Comm h;
	int32_t id, size;
	int32_t *world; /* world[r]: the MPI_COMM_WORLD rank of rank r of the communicator */
};

struct req_ent {
	uint64_t key; /* the handle's bits; 0 free */
	uint64_t nth; /* 0: the handle's entry; else the request's place among the handle's */
	uint64_t id;  /* the request's number (the handle's entry: the nth of its oldest) */
	int32_t comm_slot; /* index into g.comms, -1 WORLD, -2 other */
	int is_recv;
	/* with --payload, a nonblocking send's buffer, for its digest again at completion */
	const void *buf;
	int count; /* the handle's entry: its live requests */
	MPI_Datatype type;
};

struct obj_ent {
	uint64_t key; /* lock address or critical section identity; 0 free */
	uint64_t seq; /* acquisitions so far */
	long owner;   /* tid holding it (nest locks) */
	int depth;
};

/* The process's state. A preloaded library has no caller to give it a context, so this one
 * struct is global; it is written by the constructor, and after that under its mutexes or
 * through atomics. */
static struct {
	int enabled;
	char dir[3072];
	char host[DTS_HOST_MAX];
	_Atomic int rank;
	atomic_uint gen; /* bumped in a forked child: its threads open files of their own */
	int world_size;
	pthread_mutex_t mu; /* comms, requests, objects, directory creation */
	int dir_made;
	struct comm_ent comms[MAX_COMMS];
	_Atomic int ncomms;
	int ncreated; /* communicators made that this process is a member of */
	struct req_ent reqs[REQ_SLOTS];
	size_t nreqs; /* slots used */
	atomic_ullong next_req;
	struct obj_ent objs[OBJ_SLOTS];
	atomic_ullong next_region;
	pthread_key_t key;
	int (*thread_num)(void), (*num_threads)(void);
	void (*parallel)(void (*)(void *), void *, unsigned, unsigned);
	void (*barrier)(void);
	void (*critical_start)(void), (*critical_end)(void);
	void (*critical_name_start)(void **), (*critical_name_end)(void **);
	void (*set_lock)(omp_lock_t *), (*unset_lock)(omp_lock_t *);
	void (*set_nest_lock)(omp_nest_lock_t *), (*unset_nest_lock)(omp_nest_lock_t *);
} g = { .rank = -1, .mu = PTHREAD_MUTEX_INITIALIZER, .next_req = 1, .next_region = 1 };

/* Where the code that is not the program lies (call sites, site_of): the recorder's own, and
 * the MPI, Fortran-binding and OpenMP libraries'. Written by the constructor only. */
#define MAX_SKIP 48
static struct {
	uintptr_t exe_lo, exe_hi;           /* the executable's code: a call site for sure */
	uintptr_t lo[MAX_SKIP], hi[MAX_SKIP];
	int n;
} S;

/* The thread's file. */
struct tstate {
	unsigned gen;
	int state; /* 0 not opened, 1 open, -1 cannot record */
	int fd;
	dts_header *hdr;
	dts_record *chunk; /* the mapped run of chunks */
	size_t maplen;     /* its bytes */
	uint64_t nchunk;   /* chunks mapped so far */
	uint32_t pos, end; /* next record in the mapping, and its record count */
	uint64_t seq;
	long tid;
};
static _Thread_local struct tstate T __attribute__((tls_model("initial-exec")));
/* The parallel region the thread is working in (team 0: none). */
static _Thread_local struct {
	uint64_t region, instance;
	int32_t team, tnum;
} R __attribute__((tls_model("initial-exec")));

static int64_t now_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void note(const char *what)
{
	char buf[3400];
	int n = snprintf(buf, sizeof buf, "difftrace-sync: %s: %s (recording stops in this thread)\n",
			 what, strerror(errno));
	if (n > 0) {
		ssize_t w = write(STDERR_FILENO, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
		(void)w;
	}
}

static void thread_gone(void *p)
{
	struct tstate *t = p;
	if (t && t->state == 1 && t->gen == atomic_load(&g.gen)) {
		munmap(t->chunk, t->maplen);
		munmap(t->hdr, DTS_HEADER_SIZE);
		close(t->fd);
		t->state = 0;
	}
}

/* The next chunks of the file, mapped and their pages made, before any record goes in. The
 * mapping doubles from one chunk to MAX_MAP_CHUNKS (a thread with few calls keeps a small file).
 * The pages are made for writing in one call (MADV_POPULATE_WRITE, Linux 5.14): in a virtual
 * machine a page fault costs microseconds, and MAP_POPULATE alone makes the pages of a shared
 * mapping readable only, so that the first store to each still faults. The file's blocks are
 * allocated first (fallocate), which saves the filesystem a reservation per page. */
#define MAX_MAP_CHUNKS 8
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
static int map_chunk(struct tstate *t)
{
	uint64_t n = t->nchunk ? t->nchunk : 1;
	if (n > MAX_MAP_CHUNKS)
		n = MAX_MAP_CHUNKS;
	size_t len = (size_t)n * CHUNK_BYTES;
	off_t start = (off_t)DTS_HEADER_SIZE + (off_t)(t->nchunk * CHUNK_BYTES);
	/* a full disk stops the recording here (a store into a page the file has no block for
	 * would kill the program with SIGBUS); a filesystem without fallocate gets a sparse file.
	 * The first time, the header's page too: it is written after this, and a disk with room
	 * for the chunk alone killed the program there */
	off_t from = t->nchunk ? start : 0;
	if (fallocate(t->fd, 0, from, start + (off_t)len - from) != 0 &&
	    ((errno != EOPNOTSUPP && errno != ENOSYS) ||
	     ftruncate(t->fd, start + (off_t)len) != 0))
		return -1;
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, t->fd, start);
	if (p == MAP_FAILED)
		return -1;
	if (madvise(p, len, MADV_POPULATE_WRITE) != 0) {
		if (errno != EINVAL) {
			munmap(p, len);
			return -1;
		}
		/* a kernel before 5.14: made readable at least, as before */
		munmap(p, len);
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, t->fd, start);
		if (p == MAP_FAILED)
			return -1;
	}
	if (t->chunk)
		munmap(t->chunk, t->maplen);
	t->chunk = p;
	t->maplen = len;
	t->nchunk += n;
	t->pos = 0;
	t->end = (uint32_t)(n * DTS_CHUNK_RECORDS);
	return 0;
}

/* DIR/<pid>.maps: a copy of /proc/self/maps, the modules the call sites of the process's records
 * lie in (the import resolves them with the modules' debug information). Made again by each
 * new thread, so that a library loaded since is in it; written aside and renamed, so that a
 * reader never sees half of it. No malloc: this runs inside any MPI or OpenMP call. */
static void save_maps(long pid, long tid)
{
	char tmp[sizeof g.dir + 80], path[sizeof g.dir + 64], buf[4096];
	snprintf(tmp, sizeof tmp, "%s/.%ld.%ld" DTS_MAPS_SUFFIX, g.dir, pid, tid);
	snprintf(path, sizeof path, "%s/%ld" DTS_MAPS_SUFFIX, g.dir, pid);
	int in = open("/proc/self/maps", O_RDONLY | O_CLOEXEC), ok = in >= 0;
	int out = ok ? open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666) : -1;
	ok = ok && out >= 0;
	ssize_t n;
	while (ok && (n = read(in, buf, sizeof buf)) > 0)
		ok = write(out, buf, (size_t)n) == n;
	if (in >= 0)
		close(in);
	if (out >= 0 && (close(out) != 0 || !ok || rename(tmp, path) != 0))
		unlink(tmp);
}

static void open_thread(struct tstate *t)
{
	unsigned gen = atomic_load(&g.gen);
	if (t->state == 1 && t->gen != gen) {
		/* a forked child: the parent's mappings are shared with it; leave them */
		t->chunk = NULL;
		t->hdr = NULL;
		close(t->fd);
	}
	memset(t, 0, sizeof *t);
	t->gen = gen;
	t->state = -1;
	if (!g.enabled)
		return;
	pthread_mutex_lock(&g.mu);
	if (!g.dir_made) {
		/* mkdir -p */
		char p[sizeof g.dir];
		snprintf(p, sizeof p, "%s", g.dir);
		for (char *s = p + 1; *s; s++)
			if (*s == '/') {
				*s = 0;
				mkdir(p, 0777);
				*s = '/';
			}
		mkdir(p, 0777);
		g.dir_made = 1;
	}
	pthread_mutex_unlock(&g.mu);
	long pid = getpid(), tid = syscall(SYS_gettid);
	char path[sizeof g.dir + 64];
	int fd = -1;
	for (int k = 1; fd < 0 && k < 100; k++) {
		if (k == 1)
			snprintf(path, sizeof path, "%s/%ld.%ld.dts", g.dir, pid, tid);
		else /* a tid used again by a later thread of the process */
			snprintf(path, sizeof path, "%s/%ld.%ld-%d.dts", g.dir, pid, tid, k);
		fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		note(path);
		return;
	}
	t->fd = fd;
	t->tid = tid;
	void *h = MAP_FAILED;
	if (ftruncate(fd, DTS_HEADER_SIZE) == 0)
		h = mmap(NULL, DTS_HEADER_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (h == MAP_FAILED || (t->hdr = h, map_chunk(t) != 0)) {
		note(path);
		if (h != MAP_FAILED)
			munmap(h, DTS_HEADER_SIZE);
		close(fd);
		return;
	}
	dts_header *hd = t->hdr;
	hd->version = DTS_VERSION;
	hd->header_size = DTS_HEADER_SIZE;
	hd->record_size = DTS_RECORD_SIZE;
	hd->chunk_records = DTS_CHUNK_RECORDS;
	hd->endian = 0x01020304u;
	hd->rank = atomic_load(&g.rank);
	hd->pid = pid;
	hd->tid = tid;
	hd->is_main = pid == tid;
	hd->clock_id = CLOCK_MONOTONIC;
	hd->mono_ns = now_ns(CLOCK_MONOTONIC);
	hd->real_ns = now_ns(CLOCK_REALTIME);
	memcpy(hd->host, g.host, sizeof hd->host);
	atomic_thread_fence(memory_order_release);
	memcpy(hd->magic, DTS_MAGIC, 8);
	t->state = 1;
	pthread_setspecific(g.key, t);
	save_maps(pid, tid);
}

/* Writes r as the thread's next record, with the phase and a fresh timestamp. */
static void emit(dts_record *r, int phase)
{
	struct tstate *t = &T;
	if (__builtin_expect(t->state != 1 || t->gen != atomic_load_explicit(&g.gen,
									    memory_order_relaxed), 0)) {
		if (t->state < 0 && t->gen == atomic_load(&g.gen))
			return;
		open_thread(t);
		if (t->state != 1)
			return;
	}
	if (__builtin_expect(t->pos == t->end, 0) && map_chunk(t) != 0) {
		int err = errno ? errno : ENOSPC;
		note("growing the record file");
		/* said in the record too, so that the import tells a full disk from a thread that
		 * ended (the header's page has had its block since the file was made) */
		t->hdr->stop_errno = err;
		t->state = -1;
		return;
	}
	dts_record *slot = t->chunk + t->pos;
	r->phase = (uint8_t)phase;
	r->ts = now_ns(CLOCK_MONOTONIC);
	memcpy(slot, r, offsetof(dts_record, commit));
	atomic_store_explicit((_Atomic uint32_t *)&slot->commit, dts_commit(t->seq),
			      memory_order_release);
	t->pos++;
	t->seq++;
}

/* ---- call sites ---------------------------------------------------------------------------- */

static int not_program(uintptr_t a)
{
	for (int i = 0; i < S.n; i++)
		if (a - S.lo[i] < S.hi[i] - S.lo[i])
			return 1;
	return 0;
}

/* The first frame of the stack in the program's code: the call came through a library (a
 * Fortran binding, a helper of the recorder the compiler did not inline). */
__attribute__((noinline)) static uint64_t site_walk(uintptr_t ra)
{
	void *f[24];
	int n = backtrace(f, 24);
	for (int i = 0; i < n; i++)
		if (!not_program((uintptr_t)f[i]))
			return (uint64_t)(uintptr_t)f[i];
	return ra;
}

/* The call site of a wrapper whose return address is ra: ra itself when the program called
 * the wrapper (the common case, a comparison or a few), else the innermost frame of the
 * program, walked to. */
static inline __attribute__((always_inline)) uint64_t site_of(void *ra)
{
	uintptr_t a = (uintptr_t)ra;
	if (__builtin_expect(a - S.exe_lo < S.exe_hi - S.exe_lo, 1) || !not_program(a))
		return a;
	return site_walk(a);
}

static inline __attribute__((always_inline)) void rec_init_at(dts_record *r, enum dts_call c,
							       uint64_t site)
{
	*r = (dts_record){ .call = (uint16_t)c, .comm = -1, .dest = -1, .stag = -1, .src = -1,
			   .rtag = -1, .root = -1, .datatype = -1, .op = -1, .team = -1,
			   .count = -1, .tnum = -1, .index = -1, .site_lo = (uint32_t)site,
			   .site_hi = (uint32_t)(site >> 32) };
}

/* A record of call c, its site the caller of the function this is written in: in a wrapper,
 * or in a helper that is always inlined into one (ALWAYS_INLINE). */
#define rec_init(r, c) rec_init_at((r), (c), site_of(__builtin_return_address(0)))
#define ALWAYS_INLINE inline __attribute__((always_inline))

/* The code of the libraries whose calls to the wrapped functions are not the program's. */
static int runtime_lib(const char *path)
{
	static const char *const pre[] = { "libmpi", "libpmpi", "libmpich", "libmpifort",
					   "libfmpich", "libmpicxx", "libgomp", "libopen-pal",
					   "libopen-rte", "libompitrace",
					   /* uftrace's: it puts its trampoline in the return
					    * addresses of the calls it traces */
					   "libmcount" };
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	for (size_t i = 0; i < sizeof pre / sizeof *pre; i++)
		if (!strncmp(b, pre[i], strlen(pre[i])))
			return 1;
	return 0;
}

static int note_module(struct dl_phdr_info *info, size_t size, void *self)
{
	(void)size;
	int first = !S.exe_hi && !S.n && (!info->dlpi_name || !*info->dlpi_name);
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
		if (first && !S.exe_hi) {
			S.exe_lo = lo;
			S.exe_hi = hi;
		} else if (((uintptr_t)self - lo < hi - lo ||
			    (info->dlpi_name && runtime_lib(info->dlpi_name))) &&
			   S.n < MAX_SKIP) {
			S.lo[S.n] = lo;
			S.hi[S.n] = hi;
			S.n++;
		}
	}
	return 0;
}

/* The recorder's own code is found by an address in it; the walk's unwinder is loaded now,
 * not inside the first call that needs it. */
static void sites_init(void)
{
	dl_iterate_phdr(note_module, (void *)(uintptr_t)&note_module);
	void *f[2];
	backtrace(f, 2);
}

static void child_after_fork(void)
{
	atomic_fetch_add(&g.gen, 1);
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

__attribute__((constructor)) static void sync_init(void)
{
	abi_guard("difftrace-sync");
	const char *d = getenv("DIFFTRACE_SYNC_DIR");
	if (d && *d && strlen(d) < sizeof g.dir) {
		snprintf(g.dir, sizeof g.dir, "%s", d);
		g.enabled = 1;
	}
	if (gethostname(g.host, sizeof g.host - 1) != 0)
		snprintf(g.host, sizeof g.host, "?");
	atomic_store(&g.rank, env_rank());
	pthread_key_create(&g.key, thread_gone);
	if (g.enabled)
		sites_init();
	pthread_atfork(NULL, NULL, child_after_fork);
	/* Not linked with libgomp: a program without OpenMP must not get it. */
	g.thread_num = (int (*)(void))dlsym(RTLD_DEFAULT, "omp_get_thread_num");
	g.num_threads = (int (*)(void))dlsym(RTLD_DEFAULT, "omp_get_num_threads");
	g.parallel = (void (*)(void (*)(void *), void *, unsigned, unsigned))real("GOMP_parallel",
										     NULL);
	g.barrier = (void (*)(void))real("GOMP_barrier", NULL);
	g.critical_start = (void (*)(void))real("GOMP_critical_start", NULL);
	g.critical_end = (void (*)(void))real("GOMP_critical_end", NULL);
	g.critical_name_start = (void (*)(void **))real("GOMP_critical_name_start", NULL);
	g.critical_name_end = (void (*)(void **))real("GOMP_critical_name_end", NULL);
	/* programs built today call the OMP_3.0 lock functions; plain dlsym may give OMP_1.0's */
	g.set_lock = (void (*)(omp_lock_t *))real("omp_set_lock", "OMP_3.0");
	g.unset_lock = (void (*)(omp_lock_t *))real("omp_unset_lock", "OMP_3.0");
	g.set_nest_lock = (void (*)(omp_nest_lock_t *))real("omp_set_nest_lock", "OMP_3.0");
	g.unset_nest_lock = (void (*)(omp_nest_lock_t *))real("omp_unset_nest_lock", "OMP_3.0");
}

static void missing(const char *name)
{
	char buf[200];
	int n = snprintf(buf, sizeof buf, "difftrace-sync: the real %s was not found\n", name);
	ssize_t w = write(STDERR_FILENO, buf, (size_t)n);
	(void)w;
	_exit(2);
}

/* ---- MPI identities --------------------------------------------------------------------- */

static int32_t type_code(MPI_Datatype t)
{
	if (t == MPI_DATATYPE_NULL)
		return -1;
	int32_t i = 1;
#define DTS_X(n)             \
	if (t == MPI_##n)    \
		return i;    \
	i++;
	DTS_TYPES(DTS_X)
#undef DTS_X
	return 0;
}

static int32_t op_code(MPI_Op o)
{
	if (o == MPI_OP_NULL)
		return -1;
	int32_t i = 1;
#define DTS_X(n)             \
	if (o == MPI_##n)    \
		return i;    \
	i++;
	DTS_OPS(DTS_X)
#undef DTS_X
	return 0;
}

static int32_t err_code(int cls)
{
	int32_t i = 1;
#define DTS_X(n)                  \
	if (cls == MPI_ERR_##n)   \
		return i;         \
	i++;
	DTS_ERRS(DTS_X)
#undef DTS_X
	return 0;
}

/* The slot of a known communicator: -1 WORLD, -3 SELF, -2 unknown, else an index. */
static int comm_slot(MPI_Comm c)
{
	if (c == MPI_COMM_WORLD)
		return -1;
	if (c == MPI_COMM_SELF)
		return -3;
	int n = atomic_load_explicit(&g.ncomms, memory_order_acquire);
	for (int i = n - 1; i >= 0; i--)
		if (g.comms[i].h == c && g.comms[i].world)
			return i;
	return -2;
}

static int32_t comm_id(int slot)
{
	return slot == -1 ? 0 : slot == -3 ? 1 : slot == -2 ? -1 : g.comms[slot].id;
}

/* The size of the communicator in slot (of handle c): the order stage's collective rules
 * count its members' entries. */
static int32_t comm_size(int slot, MPI_Comm c)
{
	if (slot == -1 && g.world_size > 0)
		return g.world_size;
	if (slot == -3)
		return 1;
	if (slot >= 0)
		return g.comms[slot].size;
	int n = 0;
	return PMPI_Comm_size(c, &n) == MPI_SUCCESS ? n : 0;
}

/* The world rank of rank r of the communicator in slot (of handle c). */
static int32_t to_world(int slot, MPI_Comm c, int r)
{
	if (r == MPI_ANY_SOURCE)
		return -2;
	if (r == MPI_PROC_NULL)
		return -3;
	if (r < 0)
		return -1;
	if (slot == -1)
		return r;
	if (slot == -3)
		return atomic_load(&g.rank);
	if (slot >= 0)
		return r < g.comms[slot].size ? g.comms[slot].world[r] : -1;
	/* a communicator made by a call not interposed (Cart_create, an intercommunicator) */
	int inter = 0, w = MPI_UNDEFINED;
	MPI_Group a, b;
	if (PMPI_Comm_test_inter(c, &inter) != MPI_SUCCESS || inter)
		return -1;
	if (PMPI_Comm_group(c, &a) == MPI_SUCCESS) {
		if (PMPI_Comm_group(MPI_COMM_WORLD, &b) == MPI_SUCCESS) {
			PMPI_Group_translate_ranks(a, 1, &r, b, &w);
			PMPI_Group_free(&b);
		}
		PMPI_Group_free(&a);
	}
	return w == MPI_UNDEFINED ? -1 : w;
}

static int32_t tag_of(int tag)
{
	return tag == MPI_ANY_TAG ? -2 : tag;
}

/* After a communicator was made: number it. Every member contributes (its world rank, its
 * count of communicators made); MINLOC gives all of them the lowest world rank L among the
 * members and L's count, a pair no other communicator has. */
static int32_t comm_register(MPI_Comm parent, MPI_Comm c)
{
	(void)parent;
	if (c == MPI_COMM_NULL || !g.enabled)
		return -1;
	int inter = 0;
	if (PMPI_Comm_test_inter(c, &inter) != MPI_SUCCESS || inter)
		return -1;
	int size = 0;
	PMPI_Comm_size(c, &size);
	struct {
		int v, i;
	} in = { atomic_load(&g.rank), g.ncreated }, out = { 0, 0 };
	if (PMPI_Allreduce(&in, &out, 1, MPI_2INT, MPI_MINLOC, c) != MPI_SUCCESS)
		return -1;
	g.ncreated++;
	int32_t *world = malloc((size_t)(size > 0 ? size : 1) * sizeof *world);
	int *ranks = malloc((size_t)(size > 0 ? size : 1) * sizeof *ranks);
	if (!world || !ranks) {
		free(world);
		free(ranks);
		return -1;
	}
	MPI_Group a, b;
	for (int r = 0; r < size; r++)
		ranks[r] = r;
	PMPI_Comm_group(c, &a);
	PMPI_Comm_group(MPI_COMM_WORLD, &b);
	PMPI_Group_translate_ranks(a, size, ranks, b, world);
	PMPI_Group_free(&a);
	PMPI_Group_free(&b);
	free(ranks);
	int64_t id = 2 + (int64_t)out.i * (g.world_size > 0 ? g.world_size : 1) + out.v;
	if (id > INT32_MAX)
		id = -1;
	pthread_mutex_lock(&g.mu);
	int n = atomic_load(&g.ncomms), slot = -1;
	for (int i = 0; i < n && slot < 0; i++)
		if (!g.comms[i].world)
			slot = i;
	if (slot < 0 && n < MAX_COMMS)
		slot = n;
	if (slot >= 0) {
		g.comms[slot].h = c;
		g.comms[slot].id = (int32_t)id;
		g.comms[slot].size = size;
		atomic_thread_fence(memory_order_release);
		g.comms[slot].world = world;
		if (slot == n)
			atomic_store_explicit(&g.ncomms, n + 1, memory_order_release);
	} else {
		free(world);
	}
	pthread_mutex_unlock(&g.mu);
	return (int32_t)id;
}

static void comm_forget(MPI_Comm c)
{
	pthread_mutex_lock(&g.mu);
	int s = comm_slot(c);
	if (s >= 0) {
		/* readers in other threads may still look at it: the array is kept */
		g.comms[s].h = MPI_COMM_NULL;
	}
	pthread_mutex_unlock(&g.mu);
}

/* ---- requests ------------------------------------------------------------------------------ */

/* The table of the requests made and not completed yet, by handle. An MPI library may hand
 * back one handle for several live requests: Open MPI and MPICH give every send they complete
 * at once the same handle (a preallocated completed request), so a program's Isend, Isend,
 * Waitall can pass one handle twice. Each handle has its own entry (nth 0: id holds the nth of
 * its oldest live request, count how many it has) and each of its requests one (nth 1, 2 ...),
 * at the slot of (handle, nth): adding and taking the oldest are a look-up each, however many
 * requests share the handle. Open addressing with linear probing; deletion by backward shift
 * keeps every entry reachable from its home. All under g.mu. */
static uint64_t req_key(MPI_Request r)
{
	uint64_t k = 0;
	memcpy(&k, &r, sizeof r < sizeof k ? sizeof r : sizeof k);
	return k;
}

static size_t req_hash(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return (size_t)k & (REQ_SLOTS - 1);
}

static size_t req_home(uint64_t k, uint64_t nth)
{
	return req_hash(k ^ nth * 0x9e3779b97f4a7c15ULL);
}

/* The slot of (k, nth), or SIZE_MAX. The table is never full (REQ_FULL), so a probe ends. */
static size_t req_slot(uint64_t k, uint64_t nth)
{
	for (size_t h = req_home(k, nth); g.reqs[h].key; h = (h + 1) & (REQ_SLOTS - 1))
		if (g.reqs[h].key == k && g.reqs[h].nth == nth)
			return h;
	return SIZE_MAX;
}

/* A free slot for (k, nth), taken. */
static struct req_ent *req_new(uint64_t k, uint64_t nth)
{
	size_t h = req_home(k, nth);
	while (g.reqs[h].key)
		h = (h + 1) & (REQ_SLOTS - 1);
	g.nreqs++;
	g.reqs[h].key = k;
	g.reqs[h].nth = nth;
	return &g.reqs[h];
}

/* Frees slot h: the entries after it that may not lie before their home move back. */
static void req_drop(size_t h)
{
	size_t hole = h, j = h;
	for (;;) {
		j = (j + 1) & (REQ_SLOTS - 1);
		if (!g.reqs[j].key)
			break;
		size_t home = req_home(g.reqs[j].key, g.reqs[j].nth);
		/* move j into the hole unless its home lies cyclically in (hole, j] */
		if ((j > hole && (home <= hole || home > j)) ||
		    (j < hole && home <= hole && home > j)) {
			g.reqs[hole] = g.reqs[j];
			hole = j;
		}
	}
	g.reqs[hole].key = 0;
	g.nreqs--;
}

/* The oldest live request made with handle k, into *out (when out); with del, forgotten. */
static int req_oldest(uint64_t k, struct req_ent *out, int del)
{
	size_t c = req_slot(k, 0);
	if (c == SIZE_MAX)
		return 0;
	uint64_t nth = g.reqs[c].id;
	size_t e = req_slot(k, nth);
	if (out && e != SIZE_MAX)
		*out = g.reqs[e];
	if (!del)
		return e != SIZE_MAX;
	if (e != SIZE_MAX) {
		req_drop(e);
		c = req_slot(k, 0); /* the shift may have moved it */
	}
	g.reqs[c].id = nth + 1;
	if (--g.reqs[c].count <= 0)
		req_drop(c);
	return e != SIZE_MAX;
}

/* Forgets every request made with handle k. */
static void req_forget_all(uint64_t k)
{
	while (req_slot(k, 0) != SIZE_MAX)
		req_oldest(k, NULL, 1);
}

/* How many live requests handle r has (MPI_REQUEST_NULL: 0). */
static int req_count(MPI_Request r)
{
	uint64_t k = req_key(r);
	if (r == MPI_REQUEST_NULL || !k)
		return 0;
	pthread_mutex_lock(&g.mu);
	size_t c = req_slot(k, 0);
	int n = c == SIZE_MAX ? 0 : g.reqs[c].count;
	pthread_mutex_unlock(&g.mu);
	return n;
}

/* Gives a new request its number, after the call that made it (not under g.mu); a
 * nonblocking send's buffer is kept with it, for the payload digest at its completion
 * (done_fields). fresh: the requests made before with the handle are gone (their completions
 * were not seen): so after an MPI_Start, which activates a persistent request that must have
 * been inactive, and after a call that gave back a handle the library has not completed yet,
 * as only a completed request's handle is shared. Otherwise they are kept, and the oldest
 * live request of the handle is the one its next completion completes. */
static uint64_t req_add_as(MPI_Request r, int slot, int is_recv, const void *buf, int count,
			   MPI_Datatype type, int fresh)
{
	uint64_t k = req_key(r), id = atomic_fetch_add(&g.next_req, 1);
	if (r == MPI_REQUEST_NULL || !k)
		return 0;
	if (!fresh && req_count(r) > 0) {
		/* a handle with live requests: shared if the library has completed this one
		 * (asked outside g.mu: the library's progress may run the program's callbacks) */
		int done = 1;
		if (PMPI_Request_get_status(r, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done)
			fresh = 1;
	}
	pthread_mutex_lock(&g.mu);
	if (fresh)
		req_forget_all(k);
	size_t c = req_slot(k, 0);
	if (c != SIZE_MAX && g.reqs[c].count >= REQ_SAME) {
		req_oldest(k, NULL, 1); /* the oldest gives way */
		c = req_slot(k, 0);
	}
	if (g.nreqs + (c == SIZE_MAX ? 2 : 1) <= REQ_FULL) {
		if (c == SIZE_MAX) {
			struct req_ent *h = req_new(k, 0);
			h->id = 1;
			h->count = 0;
			c = (size_t)(h - g.reqs);
		}
		uint64_t nth = g.reqs[c].id + (uint64_t)g.reqs[c].count++;
		struct req_ent *e = req_new(k, nth);
		e->id = id;
		e->comm_slot = slot;
		e->is_recv = is_recv;
		e->buf = buf;
		e->count = count;
		e->type = type;
	}
	pthread_mutex_unlock(&g.mu);
	return id;
}

static uint64_t req_add_buf(MPI_Request r, int slot, int is_recv, const void *buf, int count,
			    MPI_Datatype type)
{
	return req_add_as(r, slot, is_recv, buf, count, type, 0);
}

static uint64_t req_add(MPI_Request r, int slot, int is_recv)
{
	return req_add_as(r, slot, is_recv, NULL, 0, MPI_DATATYPE_NULL, 0);
}

/* Looks up the oldest live request made with handle r; with del, forgets it. */
static int req_find(MPI_Request r, struct req_ent *out, int del)
{
	uint64_t k = req_key(r);
	out->id = 0;
	out->comm_slot = -1;
	out->is_recv = 0;
	out->buf = NULL;
	if (r == MPI_REQUEST_NULL || !k)
		return 0;
	pthread_mutex_lock(&g.mu);
	int found = req_oldest(k, out, del);
	pthread_mutex_unlock(&g.mu);
	return found;
}

/* Forgets every live request made with handle r (a persistent request freed). */
static void req_forget(MPI_Request r)
{
	uint64_t k = req_key(r);
	if (r == MPI_REQUEST_NULL || !k)
		return;
	pthread_mutex_lock(&g.mu);
	req_forget_all(k);
	pthread_mutex_unlock(&g.mu);
}

/* ---- locks and critical sections ----------------------------------------------------------- */

static struct obj_ent *obj_get(uint64_t key)
{
	size_t h = req_hash(key) & (OBJ_SLOTS - 1);
	for (size_t i = 0; i < OBJ_SLOTS; i++, h = (h + 1) & (OBJ_SLOTS - 1))
		if (!g.objs[h].key || g.objs[h].key == key) {
			g.objs[h].key = key;
			return &g.objs[h];
		}
	return NULL;
}

/* After an acquisition (the caller holds obj): its number. */
static uint64_t obj_acquired(uint64_t key)
{
	long me = T.state == 1 ? T.tid : syscall(SYS_gettid);
	pthread_mutex_lock(&g.mu);
	struct obj_ent *o = obj_get(key);
	uint64_t n = 0;
	if (o) {
		if (o->depth > 0 && o->owner == me) {
			o->depth++;
		} else {
			o->owner = me;
			o->depth = 1;
			o->seq++;
		}
		n = o->seq;
	}
	pthread_mutex_unlock(&g.mu);
	return n;
}

/* Before a release (the caller still holds obj): the number of the acquisition it ends. */
static uint64_t obj_releasing(uint64_t key)
{
	pthread_mutex_lock(&g.mu);
	struct obj_ent *o = obj_get(key);
	uint64_t n = 0;
	if (o) {
		n = o->seq;
		if (o->depth > 0 && --o->depth == 0)
			o->owner = 0;
	}
	pthread_mutex_unlock(&g.mu);
	return n;
}

/* the wrappers: one translation unit with the record above (see the top of this file) */
#include "sync_rma.c" /* first: the sends of sync_mpi.c digest their payload with it */
#include "sync_mpi.c"
#include "sync_omp.c"
#include "sync_fortran.c"
