/* sink.h: what an importer produces, and where it goes.
 *
 * Importers read trace files and push traces into a dt_sink: begin a trace, intern function
 * names, append events (with timestamps when the source has them), attach argument text,
 * lost-record gaps and sync events (MPI and OpenMP calls recorded apart), end the trace with
 * its flags. The store implements a sink that writes compressed chunks; tests and fuzzers use a memory sink. Importers never see SQLite. */
#ifndef DT_SINK_H
#define DT_SINK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/err.h"
#include "import/sync_event.h"

/* An event is a function id for a call and DT_RET (0) for a return, as in ParLOT. */
#define DT_RET 0u

/* Trace flags: what the importer had to work around. Never hidden from the user. */
enum {
	DT_TF_TRUNCATED = 1u << 0,    /* the file ends inside a record/group; the tail was dropped */
	DT_TF_UNTERMINATED = 1u << 1, /* no end marker (ParLOT trailer): the process was killed */
	DT_TF_OPEN_FRAMES = 1u << 2,  /* calls still open at the end of the trace */
	DT_TF_LOST = 1u << 3,         /* the tracer lost records (uftrace LOST) */
	DT_TF_INFO_TRUNCATED = 1u << 4, /* function table incomplete; unknown ids named "?N" */
	DT_TF_EMPTY = 1u << 5,        /* no events at all */
	DT_TF_UNMATCHED = 1u << 6,    /* returns without a call, or exits that did not nest */
	DT_TF_TIMEOUT = 1u << 7,      /* the recording was ended by difftrace-record --timeout */
	/* a timestamp earlier than the one before it (a clock that went back, a file repeated):
	 * the trace's times take no part in any ordering */
	DT_TF_TIME_REGRESSED = 1u << 8,
	/* the file decodes, but holds what its format never produces (a ParLOT stream that its
	 * encoder cannot have written): damaged, with no checksum to tell */
	DT_TF_CORRUPT = 1u << 9,
	/* most addresses of a module resolve to no symbol (a uftrace map with a wrong base):
	 * calls are named module+offset and filters by name keep nothing of them */
	DT_TF_UNRESOLVED = 1u << 10,
};

/* Names of the flags, in bit order, for display ("truncated,open-frames"). */
const char *dt_flag_name(unsigned bit);
/* Writes the comma-separated names of the set flags into buf ("-" for none). */
void dt_flags_str(unsigned flags, char *buf, size_t n);

/* What is known about a trace before its events. */
typedef struct dt_trace_meta {
	int64_t pid;       /* process id, or a process number when the source has no pid */
	int64_t tid;       /* thread id (uftrace), or thread number (ParLOT, text) */
	int64_t rank;      /* MPI rank when known (rank-N directory, manifest), else -1 */
	int is_main;       /* the process's main thread: gets thread index 0 */
	const char *host;  /* may be NULL */
	const char *source;/* the file the trace came from */
} dt_trace_meta;

enum { DT_ARG = 0, DT_RETVAL = 1 };

/* The clock of a trace's sync events: its id and a pair of readings taken together, so that
 * monotonic times of different hosts can be put on one wall clock. */
typedef struct dt_sync_clock {
	int32_t clock_id;      /* CLOCK_MONOTONIC (1) */
	int64_t mono_ns, real_ns;
} dt_sync_clock;

typedef struct dt_sink {
	void *ctx;
	int (*begin)(void *ctx, const dt_trace_meta *m, dt_err *e);
	/* Interns a function name; returns its id (>= 1) or 0 on error. */
	uint32_t (*func)(void *ctx, const char *name, size_t len, dt_err *e);
	/* Appends n events; ts is NULL when the source has no timestamps (then it must stay NULL
	 * for the whole trace). */
	int (*events)(void *ctx, const uint32_t *ev, const uint64_t *ts, size_t n, dt_err *e);
	/* Attaches text (decoded arguments or return value) to event number idx of the trace. */
	int (*arg)(void *ctx, uint64_t idx, int kind, const char *text, dt_err *e);
	/* Records that `lost` records were lost before event number idx. */
	int (*gap)(void *ctx, uint64_t idx, uint64_t lost, dt_err *e);
	int (*end)(void *ctx, unsigned flags, const char *note, dt_err *e);
	/* Appends n sync events to the trace (between begin and end; seq ascending; proc,
	 * thread and host are left for the sink to fill). clk, when not NULL, is the clock of
	 * their timestamps (n may be 0: the clock alone). NULL in a sink that does not keep sync
	 * events. */
	int (*sync)(void *ctx, const dt_sync_clock *clk, const dt_sync_event *ev, size_t n,
		    dt_err *e);
	/* Where function `func` (flen bytes) is defined: file and line (>= 1) from the binary's
	 * debug information, at any time of the import. flen 0: a note on the program `file`,
	 * line 0: it has no debug information (built without -g), 1: it cannot be read here,
	 * 2: the file there is another build than the one recorded.
	 * NULL in a sink that keeps no lines. */
	int (*srcline)(void *ctx, const char *func, size_t flen, const char *file, unsigned line,
		       dt_err *e);
	/* Interns a call site of sync events (dt_sync_event.site): the file and line of the call
	 * and the function it is in; line 0, a binary without debug information: file is the
	 * binary, func "symbol+0xoffset". Returns its id in the run (>= 1), 0 on error. NULL in
	 * a sink that keeps no sites. */
	uint32_t (*site)(void *ctx, const char *file, unsigned line, const char *func, dt_err *e);
	/* Appends n sync events given as the columns of a chunk (store/sync_codec.h's
	 * sync_cols_put, len bytes, the ids the sink's): a chunk of its own, after a multiple of
	 * SYNC_CHUNK_EVENTS sync events of the trace (or at its end). The thread that writes the
	 * store gets them so from the worker threads (import/wire.h). NULL in a sink that takes
	 * sync events only through sync. */
	int (*sync_cols)(void *ctx, const uint8_t *raw, size_t len, size_t n, dt_err *e);
} dt_sink;

/* The key a sink interns a site by: file, line and function, NUL-separated, into key (cut to
 * cap - 1 bytes); returns its length. */
static inline size_t dt_site_key(char *key, size_t cap, const char *file, unsigned line,
				 const char *func)
{
	int n = snprintf(key, cap, "%s%c%u%c%s", file, 0, line, 0, func);
	return n > 0 && (size_t)n < cap ? (size_t)n : cap - 1;
}

#endif
