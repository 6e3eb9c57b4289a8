/* sample.c: libdifftrace-sample.so, the sampler and allocation record of variable blame,
 * loaded with LD_PRELOAD by difftrace-record --sample (difftrace-sample(5) describes its files).
 *
 * Samples: every thread gets a timer on its own CPU-time clock (timer_create on
 * CLOCK_THREAD_CPUTIME_ID, delivered to that thread with SIGEV_THREAD_ID), or, where PAPI
 * reports the counter, a counter overflow. Some kernels check CPU-time timers late (under
 * load, a virtual machine's kernel was seen to deliver one signal per half second of a
 * thread's CPU time): a watch thread wakes on the monotonic clock every 4 ms (or period),
 * reads each sampled thread's CPU clock and signals a thread that ran two of its wakes' worth
 * of CPU time since its last sample and is still running. Each tick records the interrupted PC and a libunwind
 * walk of the stack from the signal context (local-only libunwind, whose unw_init_local2 and
 * unw_step may be used in a signal handler). Allocations: malloc, calloc, realloc, free,
 * posix_memalign, aligned_alloc, memalign, anonymous mmap and munmap are wrapped and recorded
 * with their address, size and call path, so the importer can rebuild each block's lifetime.
 * MPI calls that move data are wrapped too (before libdifftrace-sync.so in LD_PRELOAD, handing
 * on to the next definition), so that a sample taken inside one knows its buffers.
 *
 * Reentrancy: a thread's record writer is used from ordinary code (allocations) and from the
 * signal handler. While the thread is inside the writer, or inside libunwind, or inside the
 * allocator wrappers' own work, a tick is not written but merged into the thread's next
 * sample (its weight and cost add up), so no tick is lost or counted twice. Allocations made
 * while recording (libunwind's, dlsym's) are passed on unrecorded; those made before dlsym has
 * found the real allocator come from a small static arena and are never freed.
 * Nothing is recorded unless DIFFTRACE_SAMPLE_DIR names a directory. */
#define _GNU_SOURCE
#define UNW_LOCAL_ONLY
#include <dlfcn.h>
#include <link.h>
#include <errno.h>
#include <fcntl.h>
#include <libunwind.h>
#include <mpi.h>
#include <pthread.h>
#include <signal.h>
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
#ifdef HAVE_PAPI
#include <papi.h>
#endif

#include "abiguard.h"
#include "samplefmt.h"
#include "syncfmt.h"

#define CHUNK_BYTES ((size_t)DTP_CHUNK_RECORDS * DTP_RECORD_SIZE)
#define ARENA_BYTES (256u * 1024u)
#define REQ_SLOTS 4096u

static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void (*real_free)(void *);
static int (*real_memalign)(void **, size_t, size_t);
static void *(*real_aligned)(size_t, size_t);
static void *(*real_mmap)(void *, size_t, int, int, int, off_t);
static int (*real_munmap)(void *, size_t);
static int (*real_pthread_create)(pthread_t *, const pthread_attr_t *, void *(*)(void *),
				  void *);

/* The process's settings, written by the constructor before any thread is sampled. */
static struct {
	int enabled;
	int source;     /* enum dtp_source */
	long hz;        /* timer rate */
	long threshold; /* PAPI overflow threshold */
	char event[64];
	int sig;
	char dir[3072];
	pthread_key_t key;
	int papi_event;
} g = { .hz = 1000 };

/* The dynamic loader's text: a tick that interrupts it (dlopen, dlclose with the loader's
 * lock held) is recorded with its PC only, as the stack walk would need that lock. */
static uintptr_t ld_lo, ld_hi;
/* Held by the thread that walks a stack. libunwind holds locks of its own while it waits for
 * the loader's lock; a thread ticked while it holds the loader's lock (dl_iterate_phdr, as
 * uftrace's libmcount calls it) must not wait for those: only one stack walk at a time, and a
 * walk that would wait is not made (the sample keeps its PC, the allocation has no path). */
static atomic_flag walking = ATOMIC_FLAG_INIT;
/* Under uftrace, which replaces the return addresses of the functions it traces with its own
 * trampolines (mcount_return, plthook_return: no unwind information), a walk reads garbage
 * past the first of them. uftrace's libmcount exports mcount_restore and mcount_reset (for
 * backtrace(3)), which put the original return addresses back on the thread's stack and the
 * trampolines again: a walk that meets a trampoline is made between the two. That is safe
 * only while the thread is not inside libmcount (which is then changing its return stack): a
 * walk that meets a frame of libmcount's own (the interrupted PC, or a return address after
 * a call instruction in its text) keeps the frames up to it and writes nothing. Without the
 * two functions (another tracer), samples keep their PC only under uftrace. */
static int pc_only;
static uintptr_t mc_lo, mc_hi; /* libmcount's text */
static void (*mc_restore)(void), (*mc_reset)(void);

static _Alignas(64) unsigned char arena[ARENA_BYTES];
static atomic_size_t arena_used;
static _Atomic int resolving; /* inside dlsym: allocations come from the arena */

/* The thread's record. `busy` is set while the thread is inside the writer or libunwind. */
struct tstate {
	int state; /* 0 not opened, 1 open, -1 cannot record */
	int fd;
	dtp_header *hdr;
	dtp_record *chunk;
	uint64_t nchunk;
	uint32_t pos;
	uint64_t seq;
	volatile sig_atomic_t busy;
	uint64_t missed, missed_cost; /* ticks merged into the next sample */
	int64_t last_cpu;
	int watch_slot; /* 1 + its entry in watched[], 0 none */
	int has_timer;  /* sampled by the timer source */
	int own_timer;  /* timer made */
	timer_t timer;
#ifdef HAVE_PAPI
	int papi_set;
#endif
	int quiet; /* inside MPI_Init or MPI_Finalize: the library's own blocks are not recorded */
	/* the MPI call the thread is in */
	uint16_t call;
	uint64_t buf[2], bytes;
};
static _Thread_local struct tstate T __attribute__((tls_model("initial-exec")));

/* The threads the watch thread looks after: tid 0 is a free entry. A thread writes its entry's
 * last_cpu at each sample; the watch thread keeps `seen`, the CPU time it read last. */
#define WATCH_MAX 1024
static struct watched {
	_Atomic int tid;
	clockid_t clock;
	_Atomic int64_t last_cpu;
	int64_t seen;
} watched[WATCH_MAX];
static _Atomic int watched_hi; /* entries in use are below it */
static int watch_mode = 1;     /* DIFFTRACE_SAMPLE_WATCH: 0 off, 1 on, 2 only (no CPU timer) */

static int64_t now_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void note(const char *what)
{
	char buf[3400];
	int n = snprintf(buf, sizeof buf, "difftrace-sample: %s: %s\n", what, strerror(errno));
	if (n > 0) {
		ssize_t w = write(STDERR_FILENO, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
		(void)w;
	}
}

/* ---- the bootstrap arena and the real functions ------------------------------------------ */

static void *arena_alloc(size_t n, size_t align)
{
	if (align < 16)
		align = 16;
	size_t old = atomic_load(&arena_used), start;
	do {
		start = (old + align - 1) & ~(align - 1);
		if (start + n > ARENA_BYTES)
			return NULL;
	} while (!atomic_compare_exchange_weak(&arena_used, &old, start + n));
	return arena + start;
}

static int in_arena(const void *p)
{
	return (const unsigned char *)p >= arena && (const unsigned char *)p < arena + ARENA_BYTES;
}

static void resolve(void)
{
	if (real_malloc)
		return;
	atomic_store(&resolving, 1);
	real_calloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
	real_realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
	real_free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
	real_memalign = (int (*)(void **, size_t, size_t))dlsym(RTLD_NEXT, "posix_memalign");
	real_aligned = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "aligned_alloc");
	real_mmap = (void *(*)(void *, size_t, int, int, int, off_t))dlsym(RTLD_NEXT, "mmap");
	real_munmap = (int (*)(void *, size_t))dlsym(RTLD_NEXT, "munmap");
	real_pthread_create = (int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *),
				       void *))dlsym(RTLD_NEXT, "pthread_create");
	void *(*m)(size_t) = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
	atomic_store(&resolving, 0);
	real_malloc = m; /* last: it is the flag that the others are set */
}

/* ---- the thread's file -------------------------------------------------------------------- */

/* Gives the file its blocks from off to off + len before they are mapped: a store into a page
 * of a shared mapping that the filesystem cannot back (a full disk, a quota) kills the program
 * with SIGBUS, so the space is reserved first and a failure stops the recording instead. A
 * filesystem without fallocate gets a sparse file, as before. */
static int reserve(int fd, off_t off, off_t len)
{
	if (fallocate(fd, 0, off, len) == 0)
		return 0;
	if (errno != EOPNOTSUPP && errno != ENOSYS)
		return -1;
	return ftruncate(fd, off + len);
}

static int map_chunk(struct tstate *t)
{
	off_t end = (off_t)DTP_HEADER_SIZE + (off_t)((t->nchunk + 1) * CHUNK_BYTES);
	if (reserve(t->fd, end - (off_t)CHUNK_BYTES, (off_t)CHUNK_BYTES) != 0)
		return -1;
	void *p = real_mmap(NULL, CHUNK_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, t->fd,
			    end - (off_t)CHUNK_BYTES);
	if (p == MAP_FAILED)
		return -1;
	if (t->chunk)
		real_munmap(t->chunk, CHUNK_BYTES);
	t->chunk = p;
	t->nchunk++;
	t->pos = 0;
	return 0;
}

/* Opens the thread's file; called in ordinary context with t->busy set. */
static void open_thread(struct tstate *t)
{
	t->state = -1;
	if (!g.enabled)
		return;
	/* mkdir -p, here rather than in the constructor: uftrace moves an old rank directory
	 * aside before it starts the program */
	char p[sizeof g.dir];
	snprintf(p, sizeof p, "%s", g.dir);
	for (char *s = p + 1; *s; s++)
		if (*s == '/') {
			*s = 0;
			mkdir(p, 0777);
			*s = '/';
		}
	mkdir(p, 0777);
	long pid = getpid(), tid = syscall(SYS_gettid);
	char path[sizeof g.dir + 64];
	int fd = -1;
	for (int k = 1; fd < 0 && k < 100; k++) {
		if (k == 1)
			snprintf(path, sizeof path, "%s/%ld.%ld.dtp", g.dir, pid, tid);
		else
			snprintf(path, sizeof path, "%s/%ld.%ld-%d.dtp", g.dir, pid, tid, k);
		fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		note(path);
		return;
	}
	t->fd = fd;
	void *h = MAP_FAILED;
	if (reserve(fd, 0, DTP_HEADER_SIZE) == 0)
		h = real_mmap(NULL, DTP_HEADER_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (h == MAP_FAILED || map_chunk(t) != 0) {
		note(path);
		if (h != MAP_FAILED)
			real_munmap(h, DTP_HEADER_SIZE);
		close(fd);
		/* a file without its header says nothing: not left for the importer */
		unlink(path);
		return;
	}
	dtp_header *hd = h;
	hd->version = DTP_VERSION;
	hd->header_size = DTP_HEADER_SIZE;
	hd->record_size = DTP_RECORD_SIZE;
	hd->chunk_records = DTP_CHUNK_RECORDS;
	hd->endian = 0x01020304u;
	hd->source = g.source;
	hd->pid = pid;
	hd->tid = tid;
	hd->is_main = pid == tid;
	hd->period = g.source == DTP_SRC_PAPI ? g.threshold : 1000000000L / g.hz;
	snprintf(hd->event, sizeof hd->event, "%s", g.event);
	hd->mono_ns = now_ns(CLOCK_MONOTONIC);
	atomic_thread_fence(memory_order_release);
	memcpy(hd->magic, DTP_MAGIC, 8);
	t->hdr = hd;
	t->state = 1;
	pthread_setspecific(g.key, t);
}

/* The next free record, or NULL; t->busy is set by the caller. */
static dtp_record *slot(struct tstate *t)
{
	if (t->state == 0)
		open_thread(t);
	if (t->state != 1)
		return NULL;
	if (t->pos == DTP_CHUNK_RECORDS && map_chunk(t) != 0) {
		/* the thread runs on unrecorded; its header (whose page is the file's) says so */
		t->hdr->stopped = errno == ENOSPC || errno == EDQUOT ? DTP_STOP_FULL : DTP_STOP_ERROR;
		note("growing the sample file (recording stops in this thread)");
		real_munmap(t->chunk, CHUNK_BYTES);
		real_munmap(t->hdr, DTP_HEADER_SIZE);
		close(t->fd);
		t->state = -1;
		return NULL;
	}
	return &t->chunk[t->pos];
}

static void commit(struct tstate *t, dtp_record *r)
{
	atomic_store_explicit((_Atomic uint32_t *)&r->commit, dtp_commit(t->seq),
			      memory_order_release);
	t->seq++;
	t->pos++;
}

static void thread_gone(void *p)
{
	struct tstate *t = p;
	if (!t || t != &T)
		return;
	t->busy = 1;
	if (t->watch_slot) {
		atomic_store(&watched[t->watch_slot - 1].tid, 0);
		t->watch_slot = 0;
	}
	if (t->own_timer) {
		timer_delete(t->timer);
		t->own_timer = 0;
	}
	t->has_timer = 0;
#ifdef HAVE_PAPI
	if (t->papi_set != PAPI_NULL && t->papi_set) {
		long long v;
		PAPI_stop(t->papi_set, &v);
	}
#endif
	if (t->state == 1) {
		real_munmap(t->chunk, CHUNK_BYTES);
		real_munmap(t->hdr, DTP_HEADER_SIZE);
		close(t->fd);
	}
	t->state = -1; /* the thread records nothing more */
}

/* ---- the words of a sample's frames (DTP_WORDS) ------------------------------------------- */

#define FW_MAX (DTP_WORDS_MAX * DTP_WORDS_RECORDS)

struct fwords {
	int n;
	uint64_t sp_lo, sp_hi; /* the stack the walk covered */
	int nsp;
	uint64_t sp[DTP_FRAMES + 2]; /* sp[k]: frame k's SP; sp[k + 1] is its CFA */
	uint8_t fr[FW_MAX];
	uint8_t reg[FW_MAX]; /* a register's DWARF number + 1, 0 a stack word */
	uint64_t w[FW_MAX];
};

static void fw_put(struct fwords *fw, int frame, int reg, uint64_t v)
{
	/* user-space addresses above the first pages: small integers and most doubles are not */
	if (v < 0x10000 || v >= 0x800000000000ull || fw->n == FW_MAX || frame > 255 ||
	    (frame & DTP_FR_FRAME) > DTP_FRAMES)
		return;
	fw->fr[fw->n] = (uint8_t)frame;
	fw->reg[fw->n] = (uint8_t)(reg + 1);
	fw->w[fw->n++] = v;
}

/* The registers of frame `frame`: all general registers in the interrupted frame, the
 * callee-saved ones (which libunwind recovers) in its callers; libunwind's x86-64 register
 * numbers are DWARF's. */
static void regs_of(struct fwords *fw, unw_cursor_t *c, int frame)
{
	static const int all[] = { UNW_X86_64_RAX, UNW_X86_64_RDX, UNW_X86_64_RCX,
				   UNW_X86_64_RBX, UNW_X86_64_RSI, UNW_X86_64_RDI,
				   UNW_X86_64_RBP, UNW_X86_64_R8,  UNW_X86_64_R9,
				   UNW_X86_64_R10, UNW_X86_64_R11, UNW_X86_64_R12,
				   UNW_X86_64_R13, UNW_X86_64_R14, UNW_X86_64_R15 };
	static const int saved[] = { UNW_X86_64_RBX, UNW_X86_64_RBP, UNW_X86_64_R12,
				     UNW_X86_64_R13, UNW_X86_64_R14, UNW_X86_64_R15 };
	const int *r = frame ? saved : all;
	int k = frame ? (int)(sizeof saved / sizeof *saved) : (int)(sizeof all / sizeof *all);
	for (int i = 0; i < k; i++) {
		unw_word_t v;
		if (unw_get_reg(c, r[i], &v) == 0)
			fw_put(fw, frame, r[i], v);
	}
}

/* Up to DTP_STACK_WORDS words of frame `frame`'s stack, from its sp up to its caller's (nsp),
 * less its return address (ret). Read only when the caller's sp is above and near. */
static void stack_of(struct fwords *fw, int frame, uint64_t sp, uint64_t nsp, uint64_t ret)
{
	if (!sp || nsp <= sp || nsp - sp > (1u << 20) || (sp & 7))
		return;
	const uint64_t *p = (const uint64_t *)(uintptr_t)sp;
	for (uint64_t i = 0; i < DTP_STACK_WORDS && sp + 8 * (i + 1) <= nsp; i++)
		if (p[i] != ret)
			fw_put(fw, frame | DTP_FR_STACK, -1, p[i]);
}

/* The frame whose stack v points into, as a stack reference (DTP_FR_STACKREF): the frame, its
 * size (from its SP to its CFA, its caller's SP) and the distance from v down from its CFA; 0
 * when v is in no frame the walk covered with its caller's SP known. The interrupted frame's
 * stack reaches 128 bytes below its SP (the red zone, where a leaf function keeps its
 * locals). */
static uint64_t stack_ref(const struct fwords *fw, uint64_t v)
{
	for (int k = 0; k + 1 < fw->nsp; k++) {
		uint64_t lo = k ? fw->sp[k] : fw->sp[0] - 128, cfa = fw->sp[k + 1];
		if (cfa <= fw->sp[k])
			return 0;
		if (v >= lo && v < cfa) {
			uint64_t size = cfa - fw->sp[k];
			if (cfa - v > DTP_REF_OFFSET)
				return 0;
			return (uint64_t)k << DTP_REF_SHIFT |
			       (size < DTP_REF_FSIZE ? size : DTP_REF_FSIZE) << DTP_REF_FSIZE_SHIFT |
			       (cfa - v);
		}
	}
	return 0;
}

/* Writes the words as DTP_WORDS records after their sample. A word that points into the stack
 * the walk covered (saved frame pointers, addresses of locals) is written as a stack reference
 * (fr[] bit DTP_FR_STACKREF), once per record, or dropped when no frame with a known CFA holds
 * it. */
static void write_words(struct tstate *t, struct fwords *fw)
{
	uint64_t lo = fw->sp_lo > 4096 ? fw->sp_lo - 4096 : 0, hi = fw->sp_hi + 4096;
	int i = 0;
	while (i < fw->n) {
		dtp_record *r = slot(t);
		if (!r)
			return;
		dtp_words *x = (dtp_words *)(void *)r;
		int k = 0;
		for (; i < fw->n && k < DTP_WORDS_MAX; i++) {
			uint64_t v = fw->w[i];
			uint8_t f = fw->fr[i];
			if (v >= lo && v < hi) {
				if (!(v = stack_ref(fw, v)))
					continue;
				f |= DTP_FR_STACKREF;
				/* a reference already written for this sample (in this record) */
				int seen = 0;
				for (int j = 0; j < k && !seen; j++)
					seen = x->w[j] == v && (x->fr[j] & DTP_FR_STACKREF);
				if (seen)
					continue;
			} else if (!(f & DTP_FR_STACK))
				v |= (uint64_t)fw->reg[i] << DTP_REG_SHIFT; /* version 4 */
			x->fr[k] = f;
			x->w[k++] = v;
		}
		if (!k)
			return;
		x->kind = DTP_WORDS;
		x->nwords = (uint8_t)k;
		x->reserved = 0;
		memset(x->pad, 0, sizeof x->pad);
		commit(t, r);
	}
}

/* ---- under uftrace ------------------------------------------------------------------------ */

static int in_mcount(uintptr_t ip)
{
	return ip >= mc_lo && ip < mc_hi;
}

/* Whether ip, in libmcount's text, follows a call instruction (a return address into
 * libmcount's own code: the thread is inside it) rather than being the start of a trampoline.
 * Every near call's encoding is tried (e8 rel32; ff /2 with each ModRM and SIB form); a
 * doubt counts as a call, which only costs the sample its outer frames. */
static int after_call(uintptr_t ip)
{
	if (ip < mc_lo + 8)
		return 1;
	const uint8_t *p = (const uint8_t *)ip;
	if (p[-5] == 0xe8)
		return 1;
	for (int len = 2; len <= 7; len++) {
		const uint8_t *q = p - len;
		if (q[0] != 0xff || (q[1] & 0x38) != 0x10)
			continue;
		int mod = q[1] >> 6, rm = q[1] & 7, n = 2;
		if (mod != 3 && rm == 4) {
			n++; /* SIB */
			if (mod == 0 && (q[2] & 7) == 5)
				n += 4;
		}
		if (mod == 1)
			n += 1;
		else if (mod == 2 || (mod == 0 && rm == 5))
			n += 4;
		if (n == len)
			return 1;
	}
	return 0;
}

enum { MC_CLEAN, MC_HOOKED, MC_INSIDE };

/* Looks along the walk from c (a copy is stepped, c is left as it was): MC_CLEAN when it meets
 * no frame of libmcount within the frames kept, MC_HOOKED when it meets a trampoline first,
 * MC_INSIDE when the thread is inside libmcount, its frame being *at (0 the interrupted one,
 * k the one return address k-1 returns into). */
static int mcount_scan(const unw_cursor_t *c, int *at)
{
	unw_cursor_t w = *c;
	for (int k = 0; k <= DTP_FRAMES; k++) {
		unw_word_t ip;
		if (k && unw_step(&w) <= 0)
			break;
		if (unw_get_reg(&w, UNW_REG_IP, &ip) != 0 || !ip)
			break;
		if (!in_mcount((uintptr_t)ip))
			continue;
		if (k == 0 || after_call((uintptr_t)ip)) {
			*at = k;
			return MC_INSIDE;
		}
		return MC_HOOKED;
	}
	return MC_CLEAN;
}

static int find_mcount(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size, (void)arg;
	if (!info->dlpi_name || !strstr(info->dlpi_name, "/libmcount"))
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		uintptr_t a = info->dlpi_addr + ph->p_vaddr;
		if (!mc_lo || a < mc_lo)
			mc_lo = a;
		if (a + ph->p_memsz > mc_hi)
			mc_hi = a + ph->p_memsz;
	}
	return 1;
}

/* ---- samples ------------------------------------------------------------------------------ */

/* Writes one sample of `cost` from the signal context uc (NULL: walk from here, skipping the
 * frames up to pc). Runs in a signal handler: no locks, no allocation. */
static void take_sample(uint64_t cost, uint64_t ticks, void *uc, uint64_t pc)
{
	struct tstate *t = &T;
	int saved = errno;
	if (t->busy || t->state != 1) {
		t->missed += ticks;
		t->missed_cost += cost;
		errno = saved;
		return;
	}
	t->busy = 1;
	dtp_record *r = slot(t);
	if (r) {
		unw_cursor_t c;
		int n = 0, ok, locked = 0;
		if (uc) {
			uintptr_t ip = (uintptr_t)((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP];
			if (pc_only || (ip >= ld_lo && ip < ld_hi) ||
			    atomic_flag_test_and_set_explicit(&walking, memory_order_acquire)) {
				pc = ip;
				ok = 0;
			} else {
				locked = 1;
				ok = unw_init_local2(&c, (unw_context_t *)uc,
						     UNW_INIT_SIGNAL_FRAME) == 0;
			}
		}
		else if (pc_only ||
			 atomic_flag_test_and_set_explicit(&walking, memory_order_acquire))
			ok = 0;
		else {
			locked = 1;
			unw_context_t ctx;
			ok = unw_getcontext(&ctx) == 0 && unw_init_local(&c, &ctx) == 0;
			if (ok) { /* skip the handler's own frames, up to the interrupted pc */
				unw_word_t ip = 0;
				int k = 0;
				while (k++ < 16 && unw_step(&c) > 0) {
					unw_get_reg(&c, UNW_REG_IP, &ip);
					if (ip == pc)
						break;
				}
				ok = ip == pc;
			}
		}
		uint64_t first = pc;
		struct fwords fw;
		fw.n = 0;
		fw.nsp = 0;
		fw.sp_lo = fw.sp_hi = 0;
		int limit = DTP_FRAMES, hooked = 0, at = 0;
		if (ok && mc_lo) {
			int m = mcount_scan(&c, &at);
			if (m == MC_INSIDE)
				limit = at; /* the frames up to libmcount's, which the importer names */
			else if (m == MC_HOOKED) {
				mc_restore();
				hooked = 1;
			}
		}
		if (ok) {
			unw_word_t ip, sp = 0, nsp;
			if (unw_get_reg(&c, UNW_REG_IP, &ip) == 0)
				first = ip;
			unw_get_reg(&c, UNW_REG_SP, &sp);
			fw.sp_lo = fw.sp_hi = sp;
			fw.sp[fw.nsp++] = sp;
			regs_of(&fw, &c, 0);
			while (n < limit && unw_step(&c) > 0) {
				if (unw_get_reg(&c, UNW_REG_IP, &ip) != 0 || !ip)
					break;
				r->frames[n++] = ip;
				if (unw_get_reg(&c, UNW_REG_SP, &nsp) != 0)
					nsp = 0;
				stack_of(&fw, n - 1, sp, nsp, ip);
				regs_of(&fw, &c, n);
				sp = nsp;
				fw.sp[fw.nsp++] = nsp;
				if (nsp > fw.sp_hi)
					fw.sp_hi = nsp;
			}
		}
		if (hooked)
			mc_reset();
		if (locked)
			atomic_flag_clear_explicit(&walking, memory_order_release);
		r->kind = DTP_SAMPLE;
		r->nframes = (uint8_t)n;
		r->call = t->call;
		r->ts = now_ns(CLOCK_MONOTONIC);
		r->cost = cost + t->missed_cost;
		r->weight = ticks + t->missed;
		r->addr = first;
		r->size = 0;
		for (int b = 0; b < 2; b++) { /* a buffer on the stack: as a stack reference */
			uint64_t ref = t->buf[b] ? stack_ref(&fw, t->buf[b]) : 0;
			r->buf[b] = ref ? ref : t->buf[b];
			if (ref)
				r->size |= DTP_BUF0_STACKREF << b;
		}
		r->bytes = t->bytes;
		t->missed = t->missed_cost = 0;
		commit(t, r);
		write_words(t, &fw);
	}
	t->busy = 0;
	errno = saved;
}

static void on_tick(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)si;
	int64_t period = 1000000000L / g.hz;
	int64_t cpu = now_ns(CLOCK_THREAD_CPUTIME_ID);
	int64_t cost = cpu - T.last_cpu;
	/* a signal that comes before half a period of CPU time (the kernel's timer just after the
	 * watch thread's, or a signal sent as the thread stopped running) waits for the next */
	if (cost < period / 2)
		return;
	T.last_cpu = cpu;
	if (T.watch_slot)
		atomic_store_explicit(&watched[T.watch_slot - 1].last_cpu, cpu,
				      memory_order_relaxed);
	/* the periods of CPU time it stands for: the kernel's overrun count is not trusted, as a
	 * late kernel reports fewer overruns than periods went by */
	uint64_t ticks = (uint64_t)((cost + period / 2) / period);
	take_sample((uint64_t)cost, ticks ? ticks : 1, uc, 0);
}

#ifdef HAVE_PAPI
static void on_overflow(int set, void *address, long long vec, void *ctx)
{
	(void)set, (void)vec, (void)ctx;
	take_sample((uint64_t)g.threshold, 1, NULL, (uint64_t)(uintptr_t)address);
}
#endif

/* The watch thread: at each wake, a thread that ran long enough since its last sample and ran
 * since the last wake (so is most likely running now, not blocked in a call that a signal would
 * interrupt) gets the tick its CPU-time timer did not deliver. */
static void *watch_main(void *arg)
{
	(void)arg;
	T.state = -1; /* records nothing of its own */
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	/* Alone (DIFFTRACE_SAMPLE_WATCH=only) it ticks at the rate asked. Beside the CPU-time
	 * timers it only rescues a thread whose timer is late: it wakes at most every 4 ms and
	 * signals a thread that ran two of its wakes' worth without a sample (a wake costs a few
	 * microseconds of CPU on a virtual machine: a thousand a second cost 2 % of a run) */
	int64_t period = 1000000000L / g.hz, every = period, late = period;
	if (watch_mode != 2) {
		every = period > 4000000 ? period : 4000000;
		late = 2 * every;
	}
	struct timespec next;
	clock_gettime(CLOCK_MONOTONIC, &next);
	pid_t pid = getpid();
	for (;;) {
		next.tv_nsec += every;
		while (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
			;
		if (!g.enabled)
			return NULL;
		int hi = atomic_load(&watched_hi);
		for (int i = 0; i < hi; i++) {
			struct watched *w = &watched[i];
			int tid = atomic_load(&w->tid);
			struct timespec ts;
			if (tid <= 0 || clock_gettime(w->clock, &ts) != 0)
				continue;
			int64_t cpu = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
			int64_t ran = cpu - w->seen;
			w->seen = cpu;
			if (ran > 0 && cpu - atomic_load(&w->last_cpu) >= late &&
			    atomic_load(&w->tid) == tid)
				syscall(SYS_tgkill, pid, tid, g.sig);
		}
		/* a late wake (the machine is loaded): start again from now, not in a burst */
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > next.tv_sec + 1)
			next = now;
	}
}

static void start_watch(void)
{
	pthread_t th;
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&a, 64 * 1024);
	if (real_pthread_create(&th, &a, watch_main, NULL) != 0) {
		note("the watch thread");
		watch_mode = 0;
	}
	pthread_attr_destroy(&a);
}

/* Enters the calling thread in watched[] (t->last_cpu set). */
static void watch_thread(struct tstate *t)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	clockid_t clk;
	if (!watch_mode || pthread_getcpuclockid(pthread_self(), &clk) != 0)
		return;
	int tid = (int)syscall(SYS_gettid);
	for (int i = 0; i < WATCH_MAX; i++) {
		int free_ = 0;
		if (!atomic_compare_exchange_strong(&watched[i].tid, &free_, -1))
			continue;
		watched[i].clock = clk;
		watched[i].seen = t->last_cpu;
		atomic_store(&watched[i].last_cpu, t->last_cpu);
		atomic_store(&watched[i].tid, tid);
		int hi = atomic_load(&watched_hi);
		while (hi < i + 1 && !atomic_compare_exchange_weak(&watched_hi, &hi, i + 1))
			;
		t->watch_slot = i + 1;
		pthread_once(&once, start_watch);
		return;
	}
}

/* Starts sampling the calling thread (ordinary context). */
static void start_thread(void)
{
	struct tstate *t = &T;
	if (!g.enabled)
		return;
	if (t->state == 0) {
		t->busy = 1;
		open_thread(t);
		t->busy = 0;
	}
	if (t->state != 1 || g.source == DTP_SRC_NONE || t->has_timer)
		return;
#ifdef HAVE_PAPI
	if (t->papi_set)
		return;
#endif
	t->last_cpu = now_ns(CLOCK_THREAD_CPUTIME_ID);
#ifdef HAVE_PAPI
	if (g.source == DTP_SRC_PAPI) {
		int set = PAPI_NULL;
		if (PAPI_create_eventset(&set) != PAPI_OK || PAPI_add_event(set, g.papi_event) != PAPI_OK ||
		    PAPI_overflow(set, g.papi_event, (int)g.threshold, 0, on_overflow) != PAPI_OK ||
		    PAPI_start(set) != PAPI_OK) {
			errno = EINVAL;
			note("PAPI counter overflow for this thread");
			return;
		}
		t->papi_set = set;
		return;
	}
#endif
	t->has_timer = 1; /* the thread is sampled, by its timer or the watch thread */
	watch_thread(t);
	if (watch_mode == 2)
		return;
	struct sigevent sev;
	memset(&sev, 0, sizeof sev);
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = g.sig;
	sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	if (timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &t->timer) != 0) {
		note("timer_create");
		return;
	}
	t->own_timer = 1;
	long ns = 1000000000L / g.hz;
	struct itimerspec its = { { ns / 1000000000L, ns % 1000000000L },
				  { ns / 1000000000L, ns % 1000000000L } };
	if (timer_settime(t->timer, 0, &its, NULL) != 0)
		note("timer_settime");
}

struct start_arg {
	void *(*fn)(void *);
	void *arg;
};

static void *thread_main(void *p)
{
	struct start_arg a = *(struct start_arg *)p;
	real_free(p);
	start_thread();
	return a.fn(a.arg);
}

int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	resolve();
	if (!g.enabled)
		return real_pthread_create(th, attr, fn, arg);
	struct start_arg *a = real_malloc(sizeof *a);
	if (!a)
		return real_pthread_create(th, attr, fn, arg);
	a->fn = fn;
	a->arg = arg;
	int rc = real_pthread_create(th, attr, thread_main, a);
	if (rc)
		real_free(a);
	return rc;
}

/* ---- allocations -------------------------------------------------------------------------- */

/* The return addresses of the calling code (fr[0] its own frame), at most max; under uftrace
 * with the original return addresses (above), and *inside set when the allocation is
 * libmcount's own. */
static inline __attribute__((always_inline)) int alloc_path(uint64_t *fr, int max, int *inside)
{
	unw_context_t ctx;
	unw_cursor_t c;
	if (unw_getcontext(&ctx) != 0 || unw_init_local(&c, &ctx) != 0)
		return 0;
	int hooked = 0, at = 0;
	if (mc_lo) {
		int m = mcount_scan(&c, &at);
		if (m == MC_INSIDE) {
			*inside = 1;
			return 0;
		}
		if (m == MC_HOOKED) {
			mc_restore();
			hooked = 1;
		}
	}
	int n = 0;
	do {
		unw_word_t ip;
		if (unw_get_reg(&c, UNW_REG_IP, &ip) != 0 || !ip)
			break;
		fr[n++] = ip;
	} while (n < max && unw_step(&c) > 0);
	if (hooked)
		mc_reset();
	return n;
}

/* Records an allocation event with the call path of the caller of the wrapper. */
__attribute__((noinline)) static void record_mem(int kind, int call, const void *addr, size_t size,
						 const void *old)
{
	struct tstate *t = &T;
	if (!g.enabled || t->busy || t->state < 0 || t->quiet)
		return;
	t->busy = 1;
	dtp_record *r = slot(t);
	if (r) {
		int n = 0;
		if (kind == DTP_ALLOC &&
		    !atomic_flag_test_and_set_explicit(&walking, memory_order_acquire)) {
			uint64_t fr[DTP_FRAMES + 2];
			int inside = 0;
			n = alloc_path(fr, DTP_FRAMES + 2, &inside);
			atomic_flag_clear_explicit(&walking, memory_order_release);
			if (inside) { /* libmcount's own block: not the program's */
				t->busy = 0;
				return;
			}
			/* fr[0] is here, fr[1] the wrapper: keep the wrapper's callers */
			int k = 0;
			for (int i = 2; i < n && k < DTP_FRAMES; i++)
				r->frames[k++] = fr[i];
			n = k;
		}
		r->kind = (uint8_t)kind;
		r->nframes = (uint8_t)n;
		r->call = (uint16_t)call;
		r->ts = now_ns(CLOCK_MONOTONIC);
		r->cost = r->weight = 0;
		r->addr = (uint64_t)(uintptr_t)addr;
		r->size = size;
		r->buf[0] = (uint64_t)(uintptr_t)old;
		r->buf[1] = 0;
		r->bytes = 0;
		commit(t, r);
	}
	t->busy = 0;
}

void *malloc(size_t n)
{
	if (!real_malloc) {
		if (atomic_load(&resolving))
			return arena_alloc(n, 16);
		resolve();
	}
	void *p = real_malloc(n);
	if (p)
		record_mem(DTP_ALLOC, DTP_A_MALLOC, p, n, NULL);
	return p;
}

void *calloc(size_t n, size_t m)
{
	if (!real_malloc) {
		if (atomic_load(&resolving)) {
			if (m && n > SIZE_MAX / m)
				return NULL;
			return arena_alloc(n * m, 16); /* static: already zero */
		}
		resolve();
	}
	void *p = real_calloc(n, m);
	if (p)
		record_mem(DTP_ALLOC, DTP_A_CALLOC, p, n * m, NULL);
	return p;
}

void free(void *p)
{
	if (!p || in_arena(p))
		return;
	if (!real_malloc)
		resolve();
	record_mem(DTP_FREE, DTP_A_FREE, p, 0, NULL);
	real_free(p);
}

void *realloc(void *p, size_t n)
{
	if (!real_malloc) {
		if (atomic_load(&resolving)) {
			void *q = arena_alloc(n, 16);
			if (q && p)
				memcpy(q, p, n); /* the arena is one block: reading past p is safe */
			return q;
		}
		resolve();
	}
	if (p && in_arena(p)) {
		void *q = real_malloc(n);
		if (q) {
			size_t room = (size_t)(arena + ARENA_BYTES - (unsigned char *)p);
			memcpy(q, p, n < room ? n : room);
			record_mem(DTP_ALLOC, DTP_A_MALLOC, q, n, NULL);
		}
		return q;
	}
	void *q = real_realloc(p, n);
	if (q || n == 0) {
		if (p)
			record_mem(DTP_FREE, DTP_A_REALLOC, p, 0, NULL);
		if (q)
			record_mem(DTP_ALLOC, DTP_A_REALLOC, q, n, p);
	}
	return q;
}

int posix_memalign(void **out, size_t align, size_t n)
{
	if (!real_malloc) {
		if (atomic_load(&resolving)) {
			*out = arena_alloc(n, align);
			return *out ? 0 : ENOMEM;
		}
		resolve();
	}
	int rc = real_memalign(out, align, n);
	if (rc == 0)
		record_mem(DTP_ALLOC, DTP_A_MEMALIGN, *out, n, NULL);
	return rc;
}

void *aligned_alloc(size_t align, size_t n)
{
	if (!real_malloc) {
		if (atomic_load(&resolving))
			return arena_alloc(n, align);
		resolve();
	}
	void *p = real_aligned(align, n);
	if (p)
		record_mem(DTP_ALLOC, DTP_A_MEMALIGN, p, n, NULL);
	return p;
}

void *memalign(size_t align, size_t n); /* obsolete, not declared by <stdlib.h> */
void *memalign(size_t align, size_t n)
{
	void *p = NULL;
	return posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, n) ? NULL : p;
}

void *mmap(void *a, size_t n, int prot, int flags, int fd, off_t off)
{
	if (!real_mmap) {
		/* before dlsym has run: the system call itself */
		return (void *)syscall(SYS_mmap, a, n, prot, flags, fd, off);
	}
	void *p = real_mmap(a, n, prot, flags, fd, off);
	if (p != MAP_FAILED && (flags & MAP_ANONYMOUS))
		record_mem(DTP_ALLOC, DTP_A_MMAP, p, n, NULL);
	return p;
}

int munmap(void *a, size_t n)
{
	if (!real_munmap)
		return (int)syscall(SYS_munmap, a, n);
	record_mem(DTP_FREE, DTP_A_MUNMAP, a, n, NULL);
	return real_munmap(a, n);
}

/* ---- the maps file ------------------------------------------------------------------------ */

/* Copies /proc/self/maps to DIR/<pid>.maps (through a temporary file and rename, so a reader
 * never sees half of one). */
static void save_maps(void)
{
	if (!g.enabled)
		return;
	struct tstate *t = &T;
	sig_atomic_t was = t->busy;
	t->busy = 1;
	char tmp[sizeof g.dir + 64], path[sizeof g.dir + 64], buf[8192];
	long pid = getpid();
	snprintf(tmp, sizeof tmp, "%s/.%ld.maps.tmp", g.dir, pid);
	snprintf(path, sizeof path, "%s/%ld.maps", g.dir, pid);
	int in = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	int out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	int ok = in >= 0 && out >= 0;
	ssize_t k;
	while (ok && (k = read(in, buf, sizeof buf)) > 0)
		ok = write(out, buf, (size_t)k) == k;
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	if (ok && rename(tmp, path) == 0) {
		t->busy = was;
		return;
	}
	note(path);
	unlink(tmp);
	t->busy = was;
}

/* ---- MPI calls that move data: note the buffers for the samples taken inside them --------- */

static struct {
	_Atomic uint64_t key; /* the request handle's bits; 0 free */
	uint64_t buf, bytes;
} reqs[REQ_SLOTS];

static uint64_t bytes_of(int count, MPI_Datatype t)
{
	int sz = 0;
	if (count <= 0 || t == MPI_DATATYPE_NULL || PMPI_Type_size(t, &sz) != MPI_SUCCESS || sz < 0)
		return 0;
	return (uint64_t)count * (uint64_t)sz;
}

static uint64_t req_key(MPI_Request r)
{
	uint64_t k = 0;
	memcpy(&k, &r, sizeof r < sizeof k ? sizeof r : sizeof k);
	return k;
}

static void req_put(MPI_Request r, const void *buf, uint64_t bytes)
{
	uint64_t k = req_key(r);
	if (!k)
		return;
	for (uint32_t i = 0; i < 64; i++) {
		uint32_t s = (uint32_t)((k >> 4) + i) % REQ_SLOTS;
		uint64_t want = 0;
		if (atomic_load(&reqs[s].key) == k ||
		    atomic_compare_exchange_strong(&reqs[s].key, &want, k)) {
			reqs[s].buf = (uint64_t)(uintptr_t)buf;
			reqs[s].bytes = bytes;
			return;
		}
	}
}

static int req_get(MPI_Request r, uint64_t *buf, uint64_t *bytes)
{
	uint64_t k = req_key(r);
	if (!k)
		return 0;
	for (uint32_t i = 0; i < 64; i++) {
		uint32_t s = (uint32_t)((k >> 4) + i) % REQ_SLOTS;
		if (atomic_load(&reqs[s].key) == k) {
			*buf = reqs[s].buf;
			*bytes = reqs[s].bytes;
			return 1;
		}
	}
	return 0;
}

static void in_call(uint16_t call, const void *b0, const void *b1, uint64_t bytes)
{
	T.buf[0] = (uint64_t)(uintptr_t)b0;
	T.buf[1] = (uint64_t)(uintptr_t)b1;
	T.bytes = bytes;
	atomic_signal_fence(memory_order_seq_cst);
	T.call = call;
}

static void out_call(void)
{
	T.call = 0;
	atomic_signal_fence(memory_order_seq_cst);
	T.buf[0] = T.buf[1] = T.bytes = 0;
}

#define NEXT(name, type)                                                     \
	static type next_##name;                                             \
	if (!next_##name)                                                    \
		next_##name = (type)dlsym(RTLD_NEXT, #name)

#define WRAP(call, b0, b1, bytes, type, args)                 \
	NEXT(call, type);                                     \
	in_call(DTS_##call, b0, b1, bytes);                   \
	int rc = next_##call args;                            \
	out_call();                                           \
	return rc

typedef int (*send_fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm);
typedef int (*isend_fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);

int MPI_Send(const void *buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm comm)
{
	WRAP(MPI_Send, buf, NULL, bytes_of(count, t), send_fn, (buf, count, t, dest, tag, comm));
}

int MPI_Ssend(const void *buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm comm)
{
	WRAP(MPI_Ssend, buf, NULL, bytes_of(count, t), send_fn, (buf, count, t, dest, tag, comm));
}

int MPI_Recv(void *buf, int count, MPI_Datatype t, int src, int tag, MPI_Comm comm,
	     MPI_Status *st)
{
	typedef int (*fn)(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Status *);
	WRAP(MPI_Recv, NULL, buf, bytes_of(count, t), fn, (buf, count, t, src, tag, comm, st));
}

int MPI_Isend(const void *buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm comm,
	      MPI_Request *req)
{
	uint64_t b = bytes_of(count, t);
	NEXT(MPI_Isend, isend_fn);
	in_call(DTS_MPI_Isend, buf, NULL, b);
	int rc = next_MPI_Isend(buf, count, t, dest, tag, comm, req);
	if (rc == MPI_SUCCESS && req)
		req_put(*req, buf, b);
	out_call();
	return rc;
}

int MPI_Irecv(void *buf, int count, MPI_Datatype t, int src, int tag, MPI_Comm comm,
	      MPI_Request *req)
{
	typedef int (*fn)(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);
	uint64_t b = bytes_of(count, t);
	NEXT(MPI_Irecv, fn);
	in_call(DTS_MPI_Irecv, NULL, buf, b);
	int rc = next_MPI_Irecv(buf, count, t, src, tag, comm, req);
	if (rc == MPI_SUCCESS && req)
		req_put(*req, buf, b);
	out_call();
	return rc;
}

int MPI_Wait(MPI_Request *req, MPI_Status *st)
{
	typedef int (*fn)(MPI_Request *, MPI_Status *);
	uint64_t b = 0, n = 0;
	if (req)
		req_get(*req, &b, &n);
	WRAP(MPI_Wait, (void *)(uintptr_t)b, NULL, n, fn, (req, st));
}

int MPI_Waitall(int count, MPI_Request reqv[], MPI_Status st[])
{
	typedef int (*fn)(int, MPI_Request *, MPI_Status *);
	uint64_t b[2] = { 0, 0 }, n = 0;
	for (int i = 0, k = 0; i < count && k < 2; i++) {
		uint64_t bb, nn;
		if (req_get(reqv[i], &bb, &nn)) {
			b[k++] = bb;
			n = nn;
		}
	}
	WRAP(MPI_Waitall, (void *)(uintptr_t)b[0], (void *)(uintptr_t)b[1], n, fn,
	     (count, reqv, st));
}

int MPI_Sendrecv(const void *sb, int sc, MPI_Datatype st, int dest, int stag, void *rb, int rc_,
		 MPI_Datatype rt, int src, int rtag, MPI_Comm comm, MPI_Status *status)
{
	typedef int (*fn)(const void *, int, MPI_Datatype, int, int, void *, int, MPI_Datatype,
			  int, int, MPI_Comm, MPI_Status *);
	WRAP(MPI_Sendrecv, sb, rb, bytes_of(sc, st), fn,
	     (sb, sc, st, dest, stag, rb, rc_, rt, src, rtag, comm, status));
}

int MPI_Bcast(void *buf, int count, MPI_Datatype t, int root, MPI_Comm comm)
{
	typedef int (*fn)(void *, int, MPI_Datatype, int, MPI_Comm);
	WRAP(MPI_Bcast, buf, NULL, bytes_of(count, t), fn, (buf, count, t, root, comm));
}

int MPI_Reduce(const void *sb, void *rb, int count, MPI_Datatype t, MPI_Op op, int root,
	       MPI_Comm comm)
{
	typedef int (*fn)(const void *, void *, int, MPI_Datatype, MPI_Op, int, MPI_Comm);
	WRAP(MPI_Reduce, sb == MPI_IN_PLACE ? NULL : sb, rb, bytes_of(count, t), fn,
	     (sb, rb, count, t, op, root, comm));
}

int MPI_Allreduce(const void *sb, void *rb, int count, MPI_Datatype t, MPI_Op op, MPI_Comm comm)
{
	typedef int (*fn)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm);
	WRAP(MPI_Allreduce, sb == MPI_IN_PLACE ? NULL : sb, rb, bytes_of(count, t), fn,
	     (sb, rb, count, t, op, comm));
}

int MPI_Gather(const void *sb, int sc, MPI_Datatype st, void *rb, int rc_, MPI_Datatype rt,
	       int root, MPI_Comm comm)
{
	typedef int (*fn)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, int,
			  MPI_Comm);
	WRAP(MPI_Gather, sb == MPI_IN_PLACE ? NULL : sb, rb, bytes_of(sc, st), fn,
	     (sb, sc, st, rb, rc_, rt, root, comm));
}

int MPI_Scatter(const void *sb, int sc, MPI_Datatype st, void *rb, int rc_, MPI_Datatype rt,
		int root, MPI_Comm comm)
{
	typedef int (*fn)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, int,
			  MPI_Comm);
	WRAP(MPI_Scatter, sb, rb == MPI_IN_PLACE ? NULL : rb, bytes_of(rc_, rt), fn,
	     (sb, sc, st, rb, rc_, rt, root, comm));
}

int MPI_Allgather(const void *sb, int sc, MPI_Datatype st, void *rb, int rc_, MPI_Datatype rt,
		  MPI_Comm comm)
{
	typedef int (*fn)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm);
	WRAP(MPI_Allgather, sb == MPI_IN_PLACE ? NULL : sb, rb, bytes_of(sc, st), fn,
	     (sb, sc, st, rb, rc_, rt, comm));
}

int MPI_Alltoall(const void *sb, int sc, MPI_Datatype st, void *rb, int rc_, MPI_Datatype rt,
		 MPI_Comm comm)
{
	typedef int (*fn)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm);
	WRAP(MPI_Alltoall, sb == MPI_IN_PLACE ? NULL : sb, rb, bytes_of(sc, st), fn,
	     (sb, sc, st, rb, rc_, rt, comm));
}

int MPI_Init(int *argc, char ***argv)
{
	typedef int (*fn)(int *, char ***);
	NEXT(MPI_Init, fn);
	T.quiet = 1;
	int rc = next_MPI_Init(argc, argv);
	T.quiet = 0;
	save_maps(); /* the libraries MPI_Init loaded */
	return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int req, int *prov)
{
	typedef int (*fn)(int *, char ***, int, int *);
	NEXT(MPI_Init_thread, fn);
	T.quiet = 1;
	int rc = next_MPI_Init_thread(argc, argv, req, prov);
	T.quiet = 0;
	save_maps();
	return rc;
}

int MPI_Finalize(void)
{
	typedef int (*fn)(void);
	NEXT(MPI_Finalize, fn);
	T.quiet = 1;
	int rc = next_MPI_Finalize();
	T.quiet = 0;
	return rc;
}

/* ---- set-up ------------------------------------------------------------------------------- */

/* DIFFTRACE_SAMPLE: "auto" (the default: PAPI cycles where PAPI reports the counter, else the
 * timer), "timer[:HZ]", "papi[:EVENT[:THRESHOLD]]", or "none" (allocations only). */
static int parse_spec(const char *s)
{
	char mode[16] = "auto";
	const char *rest = "";
	if (s && *s) {
		size_t n = strcspn(s, ":");
		if (n >= sizeof mode)
			return -1;
		memcpy(mode, s, n);
		mode[n] = 0;
		rest = s[n] ? s + n + 1 : "";
	}
	snprintf(g.event, sizeof g.event, "cpu-time");
	if (!strcmp(mode, "none")) {
		g.source = DTP_SRC_NONE;
		return 0;
	}
	if (!strcmp(mode, "timer")) {
		g.source = DTP_SRC_TIMER;
		if (*rest) {
			char *end;
			long hz = strtol(rest, &end, 10);
			if (*end || hz < 1 || hz > 100000)
				return -1;
			g.hz = hz;
		}
		return 0;
	}
	if (strcmp(mode, "papi") && strcmp(mode, "auto"))
		return -1;
	g.source = DTP_SRC_TIMER;
#ifdef HAVE_PAPI
	char ev[64] = "PAPI_TOT_CYC";
	long th = 10000000; /* 10^7 cycles: about 1 kHz at a few GHz */
	if (*rest) {
		size_t n = strcspn(rest, ":");
		if (n == 0 || n >= sizeof ev)
			return -1;
		memcpy(ev, rest, n);
		ev[n] = 0;
		if (rest[n]) {
			char *end;
			th = strtol(rest + n + 1, &end, 10);
			if (*end || th < 1000)
				return -1;
		}
	}
	int code;
	if (PAPI_library_init(PAPI_VER_CURRENT) == PAPI_VER_CURRENT &&
	    PAPI_thread_init((unsigned long (*)(void))pthread_self) == PAPI_OK &&
	    PAPI_event_name_to_code(ev, &code) == PAPI_OK && PAPI_query_event(code) == PAPI_OK) {
		g.source = DTP_SRC_PAPI;
		g.papi_event = code;
		g.threshold = th;
		snprintf(g.event, sizeof g.event, "%s", ev);
		return 0;
	}
#endif
	if (!strcmp(mode, "papi")) {
		const char *m = "difftrace-sample: PAPI does not report the counter on this machine "
				"(or difftrace was built without PAPI); sampling with the CPU-time timer\n";
		ssize_t w = write(STDERR_FILENO, m, strlen(m));
		(void)w;
	}
	return 0;
}

static int find_ld(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size, (void)arg;
	if (!info->dlpi_name || !strstr(info->dlpi_name, "/ld-linux"))
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		uintptr_t a = info->dlpi_addr + ph->p_vaddr;
		if (!ld_lo || a < ld_lo)
			ld_lo = a;
		if (a + ph->p_memsz > ld_hi)
			ld_hi = a + ph->p_memsz;
	}
	return 1;
}

static void on_exit_save(void)
{
	save_maps();
}

/* A forked child shares the parent's files and has no timers: it records nothing (a program
 * it execs is recorded afresh, LD_PRELOAD being inherited). */
static void in_child(void)
{
	g.enabled = 0;
	T.state = -1;
}

__attribute__((constructor)) static void sample_init(void)
{
	resolve();
	/* after resolve(): the guard's dlopen allocates, through the wrappers above */
	abi_guard("difftrace-sample");
	const char *d = getenv("DIFFTRACE_SAMPLE_DIR");
	if (!d || !*d || strlen(d) >= sizeof g.dir)
		return;
	/* preloaded into uftrace too, which starts the program: record the program only; and
	 * into the MPI library's own daemons that a program started without a launcher execs
	 * (Open MPI's singleton start runs orted or prted, MPICH's hydra its proxy), which are
	 * not the program either */
	static const char *const not_ours[] = { "uftrace", "orted",   "prted",	  "prte",
						"mpirun",  "mpiexec", "hydra_pmi_proxy" };
	for (size_t i = 0; i < sizeof not_ours / sizeof *not_ours; i++)
		if (!strcmp(program_invocation_short_name, not_ours[i]))
			return;
	snprintf(g.dir, sizeof g.dir, "%s", d);
	if (parse_spec(getenv("DIFFTRACE_SAMPLE")) != 0) {
		const char *m = "difftrace-sample: bad DIFFTRACE_SAMPLE (timer[:HZ], papi[:EVENT[:N]], "
				"auto or none); nothing is recorded\n";
		ssize_t w = write(STDERR_FILENO, m, strlen(m));
		(void)w;
		return;
	}
	if (getenv("UFTRACE_SHMEM") || getenv("UFTRACE_DIR")) {
		dl_iterate_phdr(find_mcount, NULL);
		mc_restore = (void (*)(void))dlsym(RTLD_DEFAULT, "mcount_restore");
		mc_reset = (void (*)(void))dlsym(RTLD_DEFAULT, "mcount_reset");
		pc_only = !mc_lo || !mc_restore || !mc_reset;
		if (pc_only)
			mc_lo = mc_hi = 0;
	}
	const char *wm = getenv("DIFFTRACE_SAMPLE_WATCH");
	if (wm && (!strcmp(wm, "0") || !strcmp(wm, "off")))
		watch_mode = 0;
	else if (wm && !strcmp(wm, "only"))
		watch_mode = 2;
	g.sig = SIGRTMIN + 4;
	if (pthread_key_create(&g.key, thread_gone) != 0)
		return;
	if (g.source == DTP_SRC_TIMER) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_sigaction = on_tick;
		sa.sa_flags = SA_SIGINFO | SA_RESTART;
		sigemptyset(&sa.sa_mask);
		sigaction(g.sig, &sa, NULL);
	}
	/* Per-thread caches: the global one has a lock that a tick could find held by a thread
	 * that waits for the loader's lock, held by the ticking thread (dlclose). libunwind's
	 * first use allocates its caches: do it before any signal can need it. */
	unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
	dl_iterate_phdr(find_ld, NULL);
	void *fr[4];
	T.busy = 1;
	unw_backtrace(fr, 4);
	T.busy = 0;
	g.enabled = 1;
	start_thread(); /* makes the directory */
	save_maps();
	atexit(on_exit_save);
	pthread_atfork(NULL, NULL, in_child);
}
