/* syncfmt.h: the file format of the sync record (difftrace-sync(5)), shared by the preloaded
 * recorder (sync.c, built with mpicc) and the importer (import/sync_file.c).
 *
 * One file per thread, DIR/<pid>.<tid>.dts: a 4096-byte header, then fixed-size records in
 * chunks that the recorder maps with mmap(MAP_SHARED) as the file grows. A record's last word
 * (commit) is written last, with release order, and is a function of the record's sequence
 * number: a record whose commit word does not match was never finished (the thread was killed
 * while writing it) and ends the file. Zero bytes after the last record are the unused rest of
 * the last chunk. Only appends: a field or a call code is never renumbered. */
#ifndef DT_SYNCFMT_H
#define DT_SYNCFMT_H

#include <stddef.h>
#include <stdint.h>

#define DTS_MAGIC "DTSYNC\r\n" /* 8 bytes, written last when the header is made */
#define DTS_VERSION 2u
#define DTS_HEADER_SIZE 4096u
#define DTS_RECORD_SIZE 112u
#define DTS_CHUNK_RECORDS 8192u /* records per chunk: 896 KiB, a whole number of pages */
/* Version 1 had no call site: its records are the first 92 bytes of version 2's, then the
 * commit word (96 bytes, commit at offset 92). Readers take both. */
#define DTS_VERSION_1 1u
#define DTS_RECORD_SIZE_1 96u
/* The process's module map, for the call sites: DIR/<pid>.maps, a copy of /proc/<pid>/maps
 * made when a thread of the process opens its file. */
#define DTS_MAPS_SUFFIX ".maps"
#define DTS_HOST_MAX 256

/* Little-endian as written by the recording host (the reader checks `endian`). */
typedef struct dts_header {
	char magic[8];
	uint32_t version, header_size, record_size, chunk_records;
	uint32_t endian;      /* 0x01020304 */
	int32_t rank;         /* MPI_COMM_WORLD rank; -1 until known */
	int64_t pid, tid;
	int32_t is_main;      /* the process's first thread (tid == pid) */
	int32_t clock_id;     /* the clock of the records' ts: CLOCK_MONOTONIC (1) */
	int64_t mono_ns;      /* a reading of CLOCK_MONOTONIC ... */
	int64_t real_ns;      /* ... and of CLOCK_REALTIME right after it, when the file was made */
	char host[DTS_HOST_MAX]; /* gethostname(), NUL-terminated */
	/* 0; else the errno with which the file could not grow (a full disk: ENOSPC), after which
	 * the thread recorded nothing more. Files made before it have 0 here (the page's rest). */
	int32_t stop_errno;
} dts_header;

typedef struct dts_record {
	uint16_t call;   /* enum dts_call */
	uint8_t phase;   /* dt_sync_phase: 0 enter, 1 exit, 2 one completed request */
	uint8_t flags;   /* reserved, 0 */
	int32_t comm;    /* run-wide communicator number, -1 none */
	int64_t ts;      /* ns, CLOCK_MONOTONIC */
	int32_t dest, stag, src, rtag; /* MPI_COMM_WORLD ranks and tags; -1 none, -2 any, -3 null */
	int32_t root, datatype, op, team;
	int64_t count;
	uint64_t req, obj, objseq;
	int32_t tnum;
	int32_t index;   /* Waitany/Testany/DONE: the request's index in the array; else -1 */
	int32_t csize;   /* the size of the call's communicator; 0 when it has none */
	/* Version 2: the call site, an address in the process (DIR/<pid>.maps says in which
	 * module), as two halves (low first) so that no padding comes in: the return address
	 * into the innermost frame of the program (not of the recorder, libmpi, libgomp or a
	 * Fortran binding); for GOMP_parallel_body, the region's function + 1. 0: not known. */
	uint32_t site_lo, site_hi;
	/* The digest of the bytes a send or a one-sided transfer passed (difftrace-record
	 * --payload; dts_digest), two halves, low first; 0: none. */
	uint32_t digest_lo, digest_hi;
	uint32_t commit; /* dts_commit(seq), written last */
} dts_record;

_Static_assert(sizeof(dts_record) == DTS_RECORD_SIZE, "dts_record is 112 bytes");
_Static_assert(offsetof(dts_record, site_lo) == DTS_RECORD_SIZE_1 - 4,
	       "version 1's fields are version 2's first");
_Static_assert((DTS_CHUNK_RECORDS * DTS_RECORD_SIZE) % 4096 == 0, "chunks are whole pages");
_Static_assert(sizeof(dts_header) <= DTS_HEADER_SIZE, "dts_header fits its page");

/* The commit word of the record with sequence number seq (0, 1, ...): never 0. */
/* The payload digest: FNV-1a of 64 bits over the bytes, 8 at a time (each 8-byte word, read
 * little-endian, is folded in as one step; the last 1..7 bytes one by one), never 0 (a digest
 * of 0 becomes 1). Shared by the recorder and the tests. */
static inline uint64_t dts_digest(const void *p, size_t n)
{
	const unsigned char *b = (const unsigned char *)p;
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t w = 0;
		for (int k = 7; k >= 0; k--)
			w = w << 8 | b[i + (size_t)k];
		h = (h ^ w) * 0x100000001b3ull;
		h ^= h >> 29;
	}
	for (; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h ? h : 1;
}

static inline uint32_t dts_commit(uint64_t seq)
{
	return 0x80000000u | (uint32_t)((seq + 1) & 0x7fffffffu);
}

/* The calls, by code (the position in this list, from 1). Append only. */
#define DTS_CALLS(X)                                                                         \
	X(MPI_Init) X(MPI_Init_thread) X(MPI_Finalize) X(MPI_Abort)                          \
	X(MPI_Send) X(MPI_Ssend) X(MPI_Bsend) X(MPI_Rsend) X(MPI_Recv)                       \
	X(MPI_Isend) X(MPI_Issend) X(MPI_Ibsend) X(MPI_Irsend) X(MPI_Irecv)                  \
	X(MPI_Wait) X(MPI_Waitall) X(MPI_Waitany) X(MPI_Waitsome)                            \
	X(MPI_Test) X(MPI_Testall) X(MPI_Testany) X(MPI_Testsome)                            \
	X(MPI_Probe) X(MPI_Sendrecv) X(MPI_Sendrecv_replace)                                 \
	X(MPI_Barrier) X(MPI_Bcast) X(MPI_Reduce) X(MPI_Allreduce) X(MPI_Gather)             \
	X(MPI_Gatherv) X(MPI_Scatter) X(MPI_Scatterv) X(MPI_Allgather) X(MPI_Allgatherv)     \
	X(MPI_Alltoall) X(MPI_Alltoallv) X(MPI_Reduce_scatter) X(MPI_Reduce_scatter_block)   \
	X(MPI_Scan) X(MPI_Exscan)                                                            \
	X(MPI_Ibarrier) X(MPI_Ibcast) X(MPI_Ireduce) X(MPI_Iallreduce)                       \
	X(MPI_Comm_dup) X(MPI_Comm_split) X(MPI_Comm_create) X(MPI_Comm_split_type)          \
	X(MPI_Comm_free)                                                                     \
	X(GOMP_parallel) X(GOMP_parallel_body) X(GOMP_barrier)                               \
	X(GOMP_critical_start) X(GOMP_critical_end)                                          \
	X(GOMP_critical_name_start) X(GOMP_critical_name_end)                                \
	X(omp_set_lock) X(omp_unset_lock) X(omp_set_nest_lock) X(omp_unset_nest_lock)      \
	X(MPI_Send_init) X(MPI_Ssend_init) X(MPI_Bsend_init) X(MPI_Rsend_init)              \
	X(MPI_Recv_init) X(MPI_Start) \
	DTS_RMA_CALLS(X) X(MPI_Request_free)

/* The one-sided calls (difftrace-sync(5): codes from 68). obj is the window's run-wide
 * number, comm its communicator's, csize its size; dest the target's (or the locked rank's)
 * MPI_COMM_WORLD rank; objseq the target displacement; index the assert (fence, lock, post,
 * start); flags the lock type (1 exclusive, 2 shared). */
#define DTS_RMA_CALLS(X)                                                                     \
	X(MPI_Win_create) X(MPI_Win_allocate) X(MPI_Win_free) X(MPI_Put) X(MPI_Get)          \
	X(MPI_Accumulate) X(MPI_Get_accumulate) X(MPI_Fetch_and_op) X(MPI_Compare_and_swap)  \
	X(MPI_Win_fence) X(MPI_Win_lock) X(MPI_Win_unlock) X(MPI_Win_lock_all)               \
	X(MPI_Win_unlock_all) X(MPI_Win_flush) X(MPI_Win_post) X(MPI_Win_start)              \
	X(MPI_Win_complete) X(MPI_Win_wait)

enum dts_call {
	DTS_CALL_NONE = 0,
#define DTS_X(n) DTS_##n,
	DTS_CALLS(DTS_X)
#undef DTS_X
	DTS_NCALLS
};

/* Predefined datatypes, coded by position from 1; 0 is any other (derived) type. */
#define DTS_TYPES(X)                                                                         \
	X(CHAR) X(SIGNED_CHAR) X(UNSIGNED_CHAR) X(BYTE) X(SHORT) X(UNSIGNED_SHORT) X(INT)    \
	X(UNSIGNED) X(LONG) X(UNSIGNED_LONG) X(LONG_LONG) X(UNSIGNED_LONG_LONG) X(FLOAT)     \
	X(DOUBLE) X(LONG_DOUBLE) X(C_BOOL) X(INT8_T) X(INT16_T) X(INT32_T) X(INT64_T)        \
	X(UINT8_T) X(UINT16_T) X(UINT32_T) X(UINT64_T) X(PACKED) X(FLOAT_INT) X(DOUBLE_INT)  \
	X(LONG_INT) X(2INT) X(SHORT_INT) X(INTEGER) X(REAL) X(DOUBLE_PRECISION) X(COMPLEX)      \
	X(DOUBLE_COMPLEX) X(LOGICAL) X(CHARACTER) X(2INTEGER) X(2REAL) X(2DOUBLE_PRECISION)

/* Predefined reduction operations, coded by position from 1; 0 is a user operation. */
#define DTS_OPS(X)                                                                           \
	X(MAX) X(MIN) X(SUM) X(PROD) X(LAND) X(BAND) X(LOR) X(BOR) X(LXOR) X(BXOR)           \
	X(MAXLOC) X(MINLOC) X(REPLACE)

/* The error classes an MPI error's MPI_Abort record names in its op field (codes from 1; 0 a
 * class not in the list). */
#define DTS_ERRS(X)                                                                          \
	X(BUFFER) X(COUNT) X(TYPE) X(TAG) X(COMM) X(RANK) X(REQUEST) X(ROOT) X(GROUP) X(OP)  \
	X(TOPOLOGY) X(DIMS) X(ARG) X(UNKNOWN) X(TRUNCATE) X(OTHER) X(INTERN) X(IN_STATUS)    \
	X(PENDING)

#define DTS_UNNAMED_CRITICAL 1u /* obj of the unnamed critical section */

#endif
