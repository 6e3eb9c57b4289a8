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
 * are never reused within the process, locks and critical sections count their acquisitions. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
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
#define REQ_SLOTS (1u << 16) /* open requests of the process at once */
#define OBJ_SLOTS 4096u      /* locks and critical sections of the process */

/* A communicator the process knows: its run-wide number and its members' world ranks. */
struct comm_ent {
	MPI_Comm h;
	int32_t id, size;
	int32_t *world; /* world[r]: the MPI_COMM_WORLD rank of rank r of the communicator */
};

struct req_ent {
	uint64_t key; /* the handle's bits; 0 free */
	uint64_t id;
	int32_t comm_slot; /* index into g.comms, -1 WORLD, -2 other */
	int is_recv;
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

static void rec_init(dts_record *r, enum dts_call c)
{
	*r = (dts_record){ .call = (uint16_t)c, .comm = -1, .dest = -1, .stag = -1, .src = -1,
			   .rtag = -1, .root = -1, .datatype = -1, .op = -1, .team = -1,
			   .count = -1, .tnum = -1, .index = -1 };
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

/* Gives a new request its number (not under g.mu). */
static uint64_t req_add(MPI_Request r, int slot, int is_recv)
{
	uint64_t k = req_key(r), id = atomic_fetch_add(&g.next_req, 1);
	if (r == MPI_REQUEST_NULL || !k)
		return 0;
	pthread_mutex_lock(&g.mu);
	size_t h = req_hash(k);
	for (size_t i = 0; i < REQ_SLOTS; i++, h = (h + 1) & (REQ_SLOTS - 1))
		if (!g.reqs[h].key || g.reqs[h].key == k) {
			g.reqs[h] = (struct req_ent){ k, id, slot, is_recv };
			break;
		}
	pthread_mutex_unlock(&g.mu);
	return id;
}

/* Looks a request up; with del, removes it (backward-shift deletion keeps probing exact). */
static int req_find(MPI_Request r, struct req_ent *out, int del)
{
	uint64_t k = req_key(r);
	out->id = 0;
	out->comm_slot = -1;
	out->is_recv = 0;
	if (r == MPI_REQUEST_NULL || !k)
		return 0;
	int found = 0;
	pthread_mutex_lock(&g.mu);
	size_t h = req_hash(k);
	for (size_t i = 0; i < REQ_SLOTS && g.reqs[h].key; i++, h = (h + 1) & (REQ_SLOTS - 1))
		if (g.reqs[h].key == k) {
			*out = g.reqs[h];
			found = 1;
			break;
		}
	if (found && del) {
		size_t hole = h, j = h;
		for (;;) {
			j = (j + 1) & (REQ_SLOTS - 1);
			if (!g.reqs[j].key)
				break;
			size_t home = req_hash(g.reqs[j].key);
			/* move j into the hole unless its home lies cyclically in (hole, j] */
			if ((j > hole && (home <= hole || home > j)) ||
			    (j < hole && home <= hole && home > j)) {
				g.reqs[hole] = g.reqs[j];
				hole = j;
			}
		}
		g.reqs[hole].key = 0;
	}
	pthread_mutex_unlock(&g.mu);
	return found;
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

/* ---- MPI wrappers --------------------------------------------------------------------------- */

static void learn_rank(void)
{
	int r, n;
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
	emit(&r, 0);
	return PMPI_Abort(comm, errorcode);
}

static void p2p(dts_record *r, enum dts_call c, MPI_Comm comm, int *slot, int count,
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
		emit(&r, 0);                                                                  \
		int rc = PMPI_##name(buf, count, datatype, dest, tag, comm);                  \
		emit(&r, 1);                                                                  \
		return rc;                                                                    \
	}
SEND(Send)
SEND(Ssend)
SEND(Bsend)
SEND(Rsend)

#define ISEND(name)                                                                           \
	int MPI_##name(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,  \
		       MPI_Comm comm, MPI_Request *request)                                   \
	{                                                                                     \
		dts_record r;                                                                 \
		int slot;                                                                     \
		p2p(&r, DTS_MPI_##name, comm, &slot, count, datatype);                        \
		r.dest = to_world(slot, comm, dest);                                          \
		r.stag = tag;                                                                 \
		emit(&r, 0);                                                                  \
		int rc = PMPI_##name(buf, count, datatype, dest, tag, comm, request);         \
		if (rc == MPI_SUCCESS && g.enabled)                                           \
			r.req = req_add(*request, slot, 0);                                   \
		emit(&r, 1);                                                                  \
		return rc;                                                                    \
	}
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
	emit(&r, 0);
	int rc = PMPI_Sendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm,
				       status);
	if (rc == MPI_SUCCESS)
		status_src(&r, slot, comm, status);
	emit(&r, 1);
	return rc;
}

/* A completed request's fields: its number, and for a receive the actual source and tag. */
static void done_fields(dts_record *r, const struct req_ent *q, const MPI_Status *st)
{
	r->req = q->id;
	r->src = r->rtag = -1;
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
	struct req_ent q = { 0, 0, -1, 0 };
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
	struct req_ent q = { 0, 0, -1, 0 };
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

static int reqs_get(struct reqs *a, int n, MPI_Request *v, MPI_Status *st, int del)
{
	a->q = a->q_s;
	a->h = a->h_s;
	a->st = st;
	if (n > 32) {
		a->q = malloc((size_t)n * sizeof *a->q);
		a->h = malloc((size_t)n * sizeof *a->h);
		if (!a->q || !a->h)
			return -1;
	}
	if (st == MPI_STATUSES_IGNORE) {
		a->st = n > 32 ? malloc((size_t)n * sizeof *a->st) : a->st_s;
		if (!a->st)
			return -1;
	}
	for (int i = 0; i < n; i++) {
		a->h[i] = v[i];
		a->q[i] = (struct req_ent){ 0, 0, -1, 0 };
		if (g.enabled)
			req_find(v[i], &a->q[i], del);
	}
	return 0;
}

static void reqs_free(struct reqs *a, MPI_Status *st)
{
	if (a->q != a->q_s)
		free(a->q);
	if (a->h != a->h_s)
		free(a->h);
	if (a->st != st && a->st != a->st_s)
		free(a->st);
}

/* One DONE record per request i completed. */
static void done(enum dts_call c, struct reqs *a, int i, int del)
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

static int any(enum dts_call c, int count, MPI_Request array[], int *index, int *flag,
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

static int some(enum dts_call c, int incount, MPI_Request array[], int *outcount,
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

static int coll(dts_record *r, enum dts_call c, MPI_Comm comm, int count, MPI_Datatype t,
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
	dts_record r;                                                         \
	coll(&r, DTS_##call, comm, count, type, op, root);                    \
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
	COLL(MPI_Bcast, PMPI_Bcast(buffer, count, datatype, root, comm), count, datatype,
	     MPI_OP_NULL, root);
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
	       int root, MPI_Comm comm)
{
	COLL(MPI_Reduce, PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm), count,
	     datatype, op, root);
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
		  MPI_Op op, MPI_Comm comm)
{
	COLL(MPI_Allreduce, PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm), count,
	     datatype, op, -1);
}

int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
	     MPI_Comm comm)
{
	COLL(MPI_Scan, PMPI_Scan(sendbuf, recvbuf, count, datatype, op, comm), count, datatype, op,
	     -1);
}

int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
	       MPI_Comm comm)
{
	COLL(MPI_Exscan, PMPI_Exscan(sendbuf, recvbuf, count, datatype, op, comm), count,
	     datatype, op, -1);
}

int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
			     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	COLL(MPI_Reduce_scatter_block,
	     PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm), recvcount,
	     datatype, op, -1);
}

int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
		       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	COLL(MPI_Reduce_scatter,
	     PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm), -1, datatype,
	     op, -1);
}

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
	       int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	COLL(MPI_Gather,
	     PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm),
	     sendcount, sendtype, MPI_OP_NULL, root);
}

int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
		MPI_Comm comm)
{
	COLL(MPI_Gatherv,
	     PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
			  comm),
	     sendcount, sendtype, MPI_OP_NULL, root);
}

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	COLL(MPI_Scatter,
	     PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm),
	     recvcount, recvtype, MPI_OP_NULL, root);
}

int MPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
		 MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
		 int root, MPI_Comm comm)
{
	COLL(MPI_Scatterv,
	     PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
			   root, comm),
	     recvcount, recvtype, MPI_OP_NULL, root);
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
	COLL(MPI_Allgather,
	     PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm),
	     sendcount, sendtype, MPI_OP_NULL, -1);
}

int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		   const int recvcounts[], const int displs[], MPI_Datatype recvtype,
		   MPI_Comm comm)
{
	COLL(MPI_Allgatherv,
	     PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
			     comm),
	     sendcount, sendtype, MPI_OP_NULL, -1);
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		 int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
	COLL(MPI_Alltoall,
	     PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm),
	     sendcount, sendtype, MPI_OP_NULL, -1);
}

int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
		  MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
		  const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
	COLL(MPI_Alltoallv,
	     PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
			    recvtype, comm),
	     -1, sendtype, MPI_OP_NULL, -1);
}

/* Nonblocking collectives: their request is numbered like a send's. */
#define ICOLL(call, pcall, count, type, op, root)                              \
	dts_record r;                                                          \
	int slot = coll(&r, DTS_##call, comm, count, type, op, root);          \
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
	ICOLL(MPI_Ibcast, PMPI_Ibcast(buffer, count, datatype, root, comm, request), count,
	      datatype, MPI_OP_NULL, root);
}

int MPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
		MPI_Op op, int root, MPI_Comm comm, MPI_Request *request)
{
	ICOLL(MPI_Ireduce,
	      PMPI_Ireduce(sendbuf, recvbuf, count, datatype, op, root, comm, request), count,
	      datatype, op, root);
}

int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
		   MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
	ICOLL(MPI_Iallreduce,
	      PMPI_Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, request), count,
	      datatype, op, -1);
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

/* ---- OpenMP (libgomp) ----------------------------------------------------------------------- */

/* libgomp's entry points have no public header */
void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags);
void GOMP_barrier(void);
void GOMP_critical_start(void);
void GOMP_critical_end(void);
void GOMP_critical_name_start(void **pptr);
void GOMP_critical_name_end(void **pptr);

struct region {
	void (*fn)(void *);
	void *data;
	uint64_t instance;
	int32_t team; /* the team's size, as its thread 0 saw it: the join's record carries it */
};

/* What every thread of the team runs: its part of the region, between two records. */
static void region_body(void *p)
{
	struct region *rg = p;
	__typeof__(R) outer = R;
	R.region = (uint64_t)(uintptr_t)rg->fn;
	R.instance = rg->instance;
	R.team = g.num_threads ? g.num_threads() : -1;
	R.tnum = g.thread_num ? g.thread_num() : -1;
	dts_record r;
	rec_init(&r, DTS_GOMP_parallel_body);
	r.obj = R.region;
	r.objseq = R.instance;
	r.team = R.team;
	r.tnum = R.tnum;
	if (R.tnum == 0)
		rg->team = R.team;
	emit(&r, 0);
	rg->fn(rg->data);
	emit(&r, 1);
	/* the thread may run another region next (a pool thread), or the enclosing one again */
	R = outer;
}

void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags)
{
	if (!g.parallel)
		missing("GOMP_parallel");
	if (!g.enabled) {
		g.parallel(fn, data, num_threads, flags);
		return;
	}
	struct region rg = { fn, data, atomic_fetch_add(&g.next_region, 1), -1 };
	dts_record r;
	rec_init(&r, DTS_GOMP_parallel);
	r.obj = (uint64_t)(uintptr_t)fn;
	r.objseq = rg.instance;
	r.team = num_threads ? (int32_t)num_threads : -1; /* 0: the default, decided inside */
	r.tnum = R.team ? R.tnum : 0;
	emit(&r, 0);
	g.parallel(region_body, &rg, num_threads, flags);
	r.team = rg.team;
	emit(&r, 1);
}

void GOMP_barrier(void)
{
	if (!g.barrier)
		missing("GOMP_barrier");
	dts_record r;
	rec_init(&r, DTS_GOMP_barrier);
	r.obj = R.region;
	r.objseq = R.instance;
	r.team = R.team ? R.team : -1;
	r.tnum = R.tnum;
	emit(&r, 0);
	g.barrier();
	emit(&r, 1);
}

/* An acquire: entry, the real call, exit with the acquisition's number. */
#define ACQUIRE(call, key, realcall)                     \
	dts_record r;                                    \
	rec_init(&r, DTS_##call);                        \
	r.obj = key;                                     \
	r.tnum = R.team ? R.tnum : 0;                                 \
	emit(&r, 0);                                     \
	realcall;                                        \
	if (g.enabled)                                   \
		r.objseq = obj_acquired(r.obj);          \
	emit(&r, 1)

#define RELEASE(call, key, realcall)                     \
	dts_record r;                                    \
	rec_init(&r, DTS_##call);                        \
	r.obj = key;                                     \
	r.tnum = R.team ? R.tnum : 0;                                 \
	if (g.enabled)                                   \
		r.objseq = obj_releasing(r.obj);         \
	emit(&r, 0);                                     \
	realcall;                                        \
	emit(&r, 1)

void GOMP_critical_start(void)
{
	if (!g.critical_start)
		missing("GOMP_critical_start");
	ACQUIRE(GOMP_critical_start, DTS_UNNAMED_CRITICAL, g.critical_start());
}

void GOMP_critical_end(void)
{
	if (!g.critical_end)
		missing("GOMP_critical_end");
	RELEASE(GOMP_critical_end, DTS_UNNAMED_CRITICAL, g.critical_end());
}

void GOMP_critical_name_start(void **pptr)
{
	if (!g.critical_name_start)
		missing("GOMP_critical_name_start");
	ACQUIRE(GOMP_critical_name_start, (uint64_t)(uintptr_t)pptr, g.critical_name_start(pptr));
}

void GOMP_critical_name_end(void **pptr)
{
	if (!g.critical_name_end)
		missing("GOMP_critical_name_end");
	RELEASE(GOMP_critical_name_end, (uint64_t)(uintptr_t)pptr, g.critical_name_end(pptr));
}

void omp_set_lock(omp_lock_t *lock)
{
	if (!g.set_lock)
		missing("omp_set_lock");
	ACQUIRE(omp_set_lock, (uint64_t)(uintptr_t)lock, g.set_lock(lock));
}

void omp_unset_lock(omp_lock_t *lock)
{
	if (!g.unset_lock)
		missing("omp_unset_lock");
	RELEASE(omp_unset_lock, (uint64_t)(uintptr_t)lock, g.unset_lock(lock));
}

void omp_set_nest_lock(omp_nest_lock_t *lock)
{
	if (!g.set_nest_lock)
		missing("omp_set_nest_lock");
	ACQUIRE(omp_set_nest_lock, (uint64_t)(uintptr_t)lock, g.set_nest_lock(lock));
}

void omp_unset_nest_lock(omp_nest_lock_t *lock)
{
	if (!g.unset_nest_lock)
		missing("omp_unset_nest_lock");
	RELEASE(omp_unset_nest_lock, (uint64_t)(uintptr_t)lock, g.unset_nest_lock(lock));
}

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
	emit(&r, 0);
	fn(buf, count, type, dest, tag, comm, req, ierr);
	if (*ierr == MPI_SUCCESS && g.enabled)
		r.req = req_add(PMPI_Request_f2c(*req), slot, 0);
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
	struct req_ent q = { 0, 0, -1, 0 };
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
	coll(&r, DTS_MPI_Bcast, PMPI_Comm_f2c(*comm), *count, PMPI_Type_f2c(*type), MPI_OP_NULL,
	     *root);
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
	struct req_ent q = { 0, 0, -1, 0 };
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

/* The rooted and all-to-all collectives: the count and type recorded are the C wrappers'. */
#define F_ROOTED(lname, call, cnt, typ)                                                       \
	void mpi_##lname##_(void *sbuf, fint *scount, fint *stype, void *rbuf, fint *rcount,  \
			    fint *rtype, fint *root, fint *comm, fint *ierr);                 \
	void mpi_##lname##_(void *sbuf, fint *scount, fint *stype, void *rbuf, fint *rcount,  \
			    fint *rtype, fint *root, fint *comm, fint *ierr)                  \
	{                                                                                     \
		FREAL(void (*)(void *, fint *, fint *, void *, fint *, fint *, fint *, fint *,  \
			       fint *),                                                        \
		      "pmpi_" #lname "_");                                                      \
		dts_record r;                                                                 \
		coll(&r, DTS_MPI_##call, PMPI_Comm_f2c(*comm), *cnt, PMPI_Type_f2c(*typ),     \
		     MPI_OP_NULL, *root);                                                     \
		emit(&r, 0);                                                                  \
		fn(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, ierr);               \
		emit(&r, 1);                                                                  \
	}                                                                                     \
	void ompi_##lname##_f(void *sbuf, fint *scount, fint *stype, void *rbuf, fint *rcount, \
			      fint *rtype, fint *root, fint *comm, fint *ierr);               \
	F_ALIAS(ompi_##lname##_f, mpi_##lname##_)
F_ROOTED(gather, Gather, scount, stype)
F_ROOTED(scatter, Scatter, rcount, rtype)

#define F_ALLTO(lname, call)                                                                  \
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
		emit(&r, 0);                                                                  \
		fn(sbuf, scount, stype, rbuf, rcount, rtype, comm, ierr);                     \
		emit(&r, 1);                                                                  \
	}                                                                                     \
	void ompi_##lname##_f(void *sbuf, fint *scount, fint *stype, void *rbuf, fint *rcount, \
			      fint *rtype, fint *comm, fint *ierr);                           \
	F_ALIAS(ompi_##lname##_f, mpi_##lname##_)
F_ALLTO(allgather, Allgather)
F_ALLTO(alltoall, Alltoall)

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
	struct req_ent q = { 0, 0, -1, 0 };
	rec_init(&r, DTS_MPI_Wait);
	if (g.enabled)
		req_find(PMPI_Request_f2c(*req), &q, 1);
	r.req = q.id;
	emit(&r, 0);
	fn(req, status, ierr);
	MPI_Status cs;
	if (f08_ok(ierr)) {
		int have = status && status != MPI_F08_STATUS_IGNORE &&
			   PMPI_Status_f082c(status, &cs) == MPI_SUCCESS;
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
				if (!have || PMPI_Status_f082c(&statuses[i], &a.st[i]) != MPI_SUCCESS)
					a.q[i].is_recv = 0;
				done(DTS_MPI_Waitall, &a, i, 0);
			}
		reqs_free(&a, MPI_STATUSES_IGNORE);
	}
	if (h != hs)
		free(h);
}
#endif
