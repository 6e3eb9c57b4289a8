/* blame_data.h: what the sample importer makes of a run's sample record (difftrace-sample(5)),
 * the contract between import/import_sample.c, the store (store/store_blame.c) and the blame
 * stage (blame/).
 *
 * Program counters are symbolized once into locations (function, file, line, binary); a call
 * path is a list of locations, innermost first: a program counter inside functions the compiler
 * inlined gives one location per inlined level (dt_bloc.inl), then its real function's. Containers are the memory regions blame can go
 * to: heap blocks and anonymous mappings from their allocation to their free, the program's
 * globals and statics for the whole run, and the local arrays and structures of its functions
 * that the samples' frames point into. Samples are grouped: one row per (process, thread, call
 * path, MPI call, containers of its buffers), with the ticks, the cost and the records summed,
 * so the blame stage reads what it needs and never one row per tick. A sample's scan is the
 * list of (frame, container) pairs found by the conservative scan of its frames' words: the
 * containers that the pointers of the functions on its stack point into. */
#ifndef DT_BLAME_DATA_H
#define DT_BLAME_DATA_H

#include <stddef.h>
#include <stdint.h>

/* DT_BC_STACK: a local array or structure of a function (DWARF, -g), one container per
 * (function, variable) and process, whatever its address in each call: addr is its offset
 * from the function's frame base (two's complement), t_alloc and t_free the first and last
 * sample that pointed into it (+1 ns), site a path of one location, the function at the
 * variable's declaration. */
enum dt_bc_kind {
	DT_BC_HEAP = 1, DT_BC_MMAP = 2, DT_BC_GLOBAL = 3, DT_BC_STATIC = 4, DT_BC_STACK = 5
};

/* What a process's record lacked; shown by difftrace blame and import, never hidden. */
enum {
	DT_BF_NO_SAMPLES = 1u << 0, /* no sample at all (a run without --sample, or too short) */
	DT_BF_NO_DEBUG = 1u << 1,   /* the program has no DWARF (-g): globals from the symbol table
				     * only, no types, allocation sites without file:line */
	DT_BF_TORN = 1u << 2,       /* a file ended in an unfinished record: the process was killed */
	DT_BF_NO_MAPS = 1u << 3,    /* no maps file: program counters stay unsymbolized */
	DT_BF_MERGED = 1u << 4,     /* some ticks came while the thread was recording: merged into
				     * its next sample */
	DT_BF_FULL = 1u << 5,       /* the sampler stopped recording a thread: the disk was full */
	DT_BF_STOPPED = 1u << 6,    /* the sampler stopped recording a thread: its file could not
				     * grow for another reason */
	DT_BF_LOST = 1u << 7,       /* arrays or structures of the program's sampled functions have
				     * no stack location at the sampled code (an optimized build;
				     * the import named them) */
};

typedef struct dt_bloc {
	char *func;   /* "?" when unknown; "0x..." with the binary when it has no symbol */
	char *file;   /* "" when unknown */
	int32_t line; /* 0 when unknown */
	char *module; /* the binary's base name */
	int in_main;  /* the location is in the program itself (not a shared library) */
	int inl;      /* an inlined level (DWARF inline info): a function the compiler inlined,
		       * at its line; the next location of the path is its caller at the call's
		       * line, in the same real frame. A path has one location per inlined level
		       * and real frame (innermost first); a scan's levels count real frames only */
} dt_bloc;

typedef struct dt_bcontainer {
	int32_t rank;
	int64_t pid;
	int32_t kind;          /* enum dt_bc_kind */
	uint64_t addr, size;
	int64_t t_alloc, t_free; /* ns, CLOCK_MONOTONIC; globals 0 and INT64_MAX; never freed:
				  * INT64_MAX */
	char *name, *type;     /* the source name and type (globals, statics, stack); NULL for
				* heap */
	int32_t site;          /* the allocation's call path, -1 none */
	int32_t prev;          /* the block a realloc moved this one from, -1 none */
	int32_t alloc_call;    /* enum dtp_alloc (samplefmt.h), 0 for globals */
} dt_bcontainer;

typedef struct dt_bsample {
	int32_t rank;
	int64_t pid, tid;
	int32_t path;        /* PC first, then the return addresses */
	int32_t call;        /* the MPI call the thread was in (syncfmt.h code), 0 none */
	int32_t c0, c1;      /* the containers its buffers point into, -1 none */
	int32_t scan;        /* the containers its frames point into, -1 none (difftrace-sample(5)
			      * version 1, or no word of its frames points into a container) */
	uint64_t nrec;       /* sample records grouped here */
	uint64_t weight;     /* ticks */
	uint64_t cost;       /* thread CPU ns, or counter events */
	uint64_t bytes;      /* bytes of the buffers (the MPI call's count x type) */
} dt_bsample;

typedef struct dt_bproc {
	int32_t rank;
	int64_t pid;
	uint32_t flags;      /* DT_BF_* */
	int32_t source;      /* enum dtp_source */
	int64_t period;
	char *event;
	char *exe;           /* the program's path */
} dt_bproc;

/* A variable of the program's sampled functions that has no stack location at the sampled
 * code (an optimized build), once per function and variable: stored, `blame` says them. */
typedef struct dt_blost {
	char *func;
	char *var;           /* "p (struct pair)": its name and type */
	char *why;           /* why it has none */
} dt_blost;

typedef struct dt_blame_data {
	char **notes;        /* what the import found missing, one line each (not stored: the
			      * import says them; those of lost variables are stored as lost) */
	size_t nnotes, capnotes;
	dt_blost *lost;
	size_t nlost, caplost;
	dt_bloc *locs;
	size_t nlocs, caplocs;
	int32_t *pathv;      /* the paths' locations, one after another */
	size_t npathv, cappathv;
	uint32_t *path_off;  /* path i is pathv[path_off[i] .. path_off[i+1]) */
	size_t npaths, cappaths;
	int32_t *scanv;      /* the scans: (level, container) pairs, one after another, by level:
			      * 2 x frame for the frame's registers, + 1 for its stack words */
	size_t nscanv, capscanv;
	uint32_t *scan_off;  /* scan i is scanv[scan_off[i] .. scan_off[i+1]), 2 ints a pair */
	size_t nscans, capscans;
	dt_bcontainer *cont;
	size_t ncont, capcont;
	dt_bsample *samp;
	size_t nsamp, capsamp;
	dt_bproc *proc;
	size_t nproc, capproc;
} dt_blame_data;

void dt_blame_data_free(dt_blame_data *d);

#endif
