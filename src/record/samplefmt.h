/* samplefmt.h: the file format of the sample record (difftrace-sample(5)), shared by the
 * preloaded sampler (sample.c, libdifftrace-sample.so) and the importer (blame/sample_file.c).
 *
 * One file per thread, DIR/<pid>.<tid>.dtp, made like the sync record (difftrace-sync(5)): a
 * 4096-byte header, then fixed-size records in chunks mapped MAP_SHARED as the file grows, each
 * record's commit word written last with release order, so the records written before a
 * kill -9 are in the page cache and a torn record ends the file. Beside the thread files,
 * DIR/<pid>.maps is a copy of the process's /proc/self/maps, rewritten when MPI_Init returns
 * and when the process exits, which maps program counters back to binaries. Append only. */
#ifndef DT_SAMPLEFMT_H
#define DT_SAMPLEFMT_H

#include <stdint.h>

#define DTP_MAGIC "DTSAMPL\n" /* 8 bytes, written last when the header is made */
#define DTP_VERSION 4u     /* 4: a register word's register number in DTP_WORDS; 3: stack
			    * references in DTP_WORDS; 2: DTP_WORDS records after a sample; 1 to 3
			    * are still read */
#define DTP_HEADER_SIZE 4096u
#define DTP_RECORD_SIZE 256u
#define DTP_CHUNK_RECORDS 4096u /* records per chunk: 1 MiB */
#define DTP_FRAMES 23           /* return addresses kept per record, innermost first */

enum dtp_source { DTP_SRC_NONE = 0, DTP_SRC_TIMER = 1, DTP_SRC_PAPI = 2 };

/* Written into the header when the sampler stops recording a thread that goes on running:
 * the file could not grow (a full disk or quota: its blocks are reserved before the pages are
 * written, as a store into a page without a block would kill the program with SIGBUS), or
 * growing it failed otherwise. The records before stay valid. Older files hold 0 there. */
enum dtp_stop { DTP_STOP_FULL = 1, DTP_STOP_ERROR = 2 };

typedef struct dtp_header {
	char magic[8];
	uint32_t version, header_size, record_size, chunk_records;
	uint32_t endian;  /* 0x01020304 */
	int32_t source;   /* enum dtp_source: what a sample's cost counts */
	int64_t pid, tid;
	int32_t is_main;
	int32_t stopped;  /* 0, or enum dtp_stop: why the thread's records end early */
	int64_t period;   /* timer: ns of thread CPU time between samples; PAPI: counter events */
	char event[64];   /* "cpu-time" or the PAPI event name */
	int64_t mono_ns;  /* CLOCK_MONOTONIC when the file was made */
} dtp_header;

enum dtp_kind {
	DTP_SAMPLE = 1, /* addr: PC; cost, weight; call/buf/bytes: the MPI call the thread is in */
	DTP_ALLOC = 2,  /* addr, size; call: enum dtp_alloc; buf[0]: the old block of a realloc */
	DTP_FREE = 3,   /* addr; call: enum dtp_alloc (free or munmap); size for munmap */
	DTP_WORDS = 4,  /* (version 2) follows a sample: the pointer-like words of one of its
			 * frames, as struct dtp_words */
};

#define DTP_WORDS_MAX 27    /* words of one DTP_WORDS record */
#define DTP_WORDS_RECORDS 6 /* DTP_WORDS records per sample at most */
#define DTP_STACK_WORDS 16  /* stack words scanned per frame, from its SP up */

enum dtp_alloc {
	DTP_A_MALLOC = 1, DTP_A_CALLOC, DTP_A_REALLOC, DTP_A_MEMALIGN, DTP_A_MMAP, DTP_A_FREE,
	DTP_A_MUNMAP
};

typedef struct dtp_record {
	uint32_t commit; /* dtp_commit(seq), written last */
	uint8_t kind;    /* enum dtp_kind */
	uint8_t nframes; /* valid entries of frames[] */
	uint16_t call;   /* DTP_SAMPLE: the MPI call (syncfmt.h code), 0 none; else dtp_alloc */
	int64_t ts;      /* ns, CLOCK_MONOTONIC */
	uint64_t cost;   /* DTP_SAMPLE: thread CPU ns (timer) or counter events (PAPI) */
	uint64_t weight; /* DTP_SAMPLE: ticks it stands for (> 1 when ticks were merged) */
	uint64_t addr, size; /* DTP_SAMPLE: size holds DTP_BUF*_STACKREF (version 3), else 0 */
	uint64_t buf[2]; /* DTP_SAMPLE in an MPI call: its buffers (send, receive), 0 none; a
			  * buffer on the stack the walk covered is a stack reference (below) */
	uint64_t bytes;  /* DTP_SAMPLE in an MPI call: the bytes of one buffer (count x type) */
	uint64_t frames[DTP_FRAMES]; /* return addresses, innermost first */
} dtp_record;

/* A DTP_WORDS record (version 2) follows its sample (or another DTP_WORDS record of it): words
 * of the sample's frames that look like pointers, w[i] found in frame fr[i] & DTP_FR_FRAME (0
 * the interrupted frame, k the frame that return address frames[k-1] returns into), innermost
 * frame first; bit DTP_FR_STACK of fr[i] is set for a word of the frame's stack (where a
 * function also saves its caller's registers), clear for a register.
 * A frame's words are its registers (all general registers in frame 0, the callee-saved ones
 * in the others, as libunwind recovers them) and up to DTP_STACK_WORDS words of its stack
 * from its SP up to its caller's SP, less the frame's return address. The importer keeps
 * those that point into a live container: a conservative scan of the frames' pointers.
 * A value that points into the part of the stack the walk covered is, from version 3, a
 * stack reference (bit DTP_FR_STACKREF of fr[i] set): w[i] >> DTP_REF_SHIFT is the frame whose
 * stack it points into (0 the interrupted frame, whose stack reaches 128 bytes below its SP,
 * k as above), (w[i] >> DTP_REF_FSIZE_SHIFT) & DTP_REF_FSIZE the bytes from that frame's SP
 * up to its CFA (DTP_REF_FSIZE itself: more), and w[i] & DTP_REF_OFFSET how many bytes below
 * the CFA (its caller's SP, the frame base of DWARF's DW_OP_call_frame_cfa) it points; the
 * importer finds the local variable there from the function's DWARF. Values into the stack
 * of a frame whose CFA the walk did not find (the outermost), or 4 GiB or more below it, are
 * dropped, as version 2 dropped them all.
 * From version 4 a register's word (DTP_FR_STACK and DTP_FR_STACKREF clear) holds in its top
 * byte, w[i] >> DTP_REG_SHIFT, the register's DWARF number (x86-64: 0 rax, 1 rdx, 2 rcx,
 * 3 rbx, 4 rsi, 5 rdi, 6 rbp, 8 to 15 r8 to r15) plus one, 0 unknown; the address is
 * w[i] & DTP_REG_VALUE (a user address is below 2^47, so the byte was 0 before). */
#define DTP_BUF0_STACKREF 1u /* DTP_SAMPLE's size, version 3: buf[0] is a stack reference */
#define DTP_BUF1_STACKREF 2u /* and buf[1] */
#define DTP_FR_FRAME 0x3f
#define DTP_FR_STACKREF 0x40 /* version 3 */
#define DTP_FR_STACK 0x80
#define DTP_REF_SHIFT 56
#define DTP_REF_FSIZE_SHIFT 32
#define DTP_REF_FSIZE 0xffffffull
#define DTP_REF_OFFSET 0xffffffffull
#define DTP_REG_SHIFT 56 /* version 4 */
#define DTP_REG_VALUE ((1ull << DTP_REG_SHIFT) - 1)
typedef struct dtp_words {
	uint32_t commit;
	uint8_t kind;    /* DTP_WORDS */
	uint8_t nwords;  /* valid entries of w[] and fr[] */
	uint16_t reserved;
	uint8_t fr[DTP_WORDS_MAX];
	uint8_t pad[5];
	uint64_t w[DTP_WORDS_MAX];
} dtp_words;

_Static_assert(sizeof(dtp_record) == DTP_RECORD_SIZE, "dtp_record is 256 bytes");
_Static_assert(sizeof(dtp_words) == DTP_RECORD_SIZE, "dtp_words is 256 bytes");
_Static_assert(sizeof(dtp_header) <= DTP_HEADER_SIZE, "dtp_header fits its page");

static inline uint32_t dtp_commit(uint64_t seq)
{
	return 0x80000000u | (uint32_t)((seq + 1) & 0x7fffffffu);
}

#endif
