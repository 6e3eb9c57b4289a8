/* import.h: the trace importers and the choice between them.
 *
 * Each importer reads one PATH (a file or a directory, as its format wants) and pushes every
 * trace it finds into a dt_sink. They share nothing but this header. */
#ifndef DT_IMPORT_H
#define DT_IMPORT_H

#include "import/sink.h"

typedef enum dt_format {
	DT_FMT_AUTO = 0,
	DT_FMT_UFTRACE,
	DT_FMT_PARLOT,     /* compressed ParLOT (LZa3 | ZE) with a .info file */
	DT_FMT_PARLOT_RAW, /* WDBG: raw little-endian 16-bit words, then one 0x00 byte */
	DT_FMT_TEXT,       /* texTrace: one function name per line, [ret] for a return */
	DT_FMT_SYNC,       /* the sync record alone (difftrace-record --sync-only) */
	DT_FMT_OTF2,       /* an OTF2 archive (Score-P): difftrace-otf2(5) */
} dt_format;

typedef struct dt_import_opts {
	const char *manifest; /* uftrace: a file mapping pids or directories to MPI ranks, or NULL */
	int quiet;
	/* ParLOT: number the .info names as DiffTrace's reference reader does (whitespace-separated
	 * tokens), to reproduce its texTrace output; 0 (default): by lines, as the tracer wrote
	 * them. The two differ after any name containing a space (Go's `type..eq.struct { ... }`). */
	int parlot_token_names;
	/* uftrace: do not read the recorded binaries' debug information for source lines (an
	 * import that must not depend on which binaries this machine has) */
	int no_srclines;
	/* uftrace: name functions as the binaries do (C++ names mangled, Fortran MPI bindings as
	 * mpi_send_), not as util/names.h makes them */
	int no_demangle;
	/* A parallel import (difftrace import under mpirun): called before each unit of work (a
	 * rank directory, a trace file), in the same order in every process; the importer does
	 * the unit when it returns 1, skips it on 0, and fails on -1. NULL: every unit. With it,
	 * an importer with no unit of its own to do is no error. */
	int (*unit)(void *ctx, dt_err *e);
	void *unit_ctx;
} dt_import_opts;

/* Whether to do the next unit (1), skip it (0), or fail (-1): see dt_import_opts.unit. */
static inline int import_unit(const dt_import_opts *o, dt_err *e)
{
	return o && o->unit ? o->unit(o->unit_ctx, e) : 1;
}

const char *dt_format_name(dt_format f);
/* Parses "uftrace", "parlot", "parlot-raw", "text", "sync", "otf2"; -1 when unknown. */
int dt_format_parse(const char *s);
/* Looks at PATH and says which importer can read it; DT_FMT_AUTO (0) with e set when none. */
dt_format import_detect(const char *path, dt_err *e);

int import_uftrace(const char *path, const dt_import_opts *o, dt_sink *s, dt_err *e);
int import_parlot(const char *path, int raw, const dt_import_opts *o, dt_sink *s, dt_err *e);
int import_text(const char *path, const dt_import_opts *o, dt_sink *s, dt_err *e);
int import_sync(const char *path, const dt_import_opts *o, dt_sink *s, dt_err *e);
/* PATH: an archive's anchor file (NAME.otf2) or the directory that holds it. Built without
 * OTF2, it fails saying so. */
int import_otf2(const char *path, const dt_import_opts *o, dt_sink *s, dt_err *e);

/* Runs the importer for fmt (detecting it when DT_FMT_AUTO). */
int import_path(const char *path, dt_format fmt, const dt_import_opts *o, dt_sink *s, dt_err *e);

#endif
