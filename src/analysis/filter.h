/* filter.h: filter families and filters.
 *
 * A filter family is a named set of PCRE2 patterns read from a .filter file (difftrace-filters(5)):
 * `mpi`, `ompcrit`, `memory` ... A filter is a combination of families, written as a list of
 * names (`mpi,ompcrit,custom`), as the DiffTrace paper's 16-character 0/1 string, or as the
 * paper's folder-style alias (`11.mpi.cust.0`). Filtering is per function, not per event: every
 * pattern is evaluated once per distinct function name, giving a keep table indexed by function
 * id, and the event loop only indexes that table (METHOD.md §10.1-10.2).
 *
 * What a filter keeps, for a call of function NAME:
 *   - nothing if NAME matches an include pattern of a `kind: remove` family that is not chosen
 *     (the paper's bits 0 and 1: `.plt` entries are removed unless `dotplt` is chosen);
 *   - nothing if NAME matches an exclude pattern of a chosen family;
 *   - the call if NAME matches an include pattern of a chosen family (`everything` has `^`).
 * Returns (event DT_RET) are kept only when a chosen family has `returns: yes`, and then exactly
 * the returns that close a kept call, so the filtered stream stays well nested. Each event is
 * kept at most once, except in the compatibility mode that reproduces the prototype's
 * duplication (METHOD.md §3), which is for comparing against published tables only. */
#ifndef DT_FILTER_H
#define DT_FILTER_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

enum { FILT_NBITS = 16 }; /* characters in the paper's filter string */

enum filt_kind {
	FILT_KEEP = 0,   /* choosing the family keeps what it matches */
	FILT_REMOVE = 1, /* what it matches is removed unless the family is chosen (bits 0, 1) */
};

typedef struct filt_pattern {
	char *text;
	int line, col; /* where the pattern starts in its file (1-based) */
	void *re;      /* private: the compiled pcre2_code */
} filt_pattern;

typedef struct filt_family {
	char *name;  /* [A-Za-z][A-Za-z0-9_-]* */
	char *desc;  /* one line */
	char *token; /* folder token for aliases (`mpicol`, `cust`), or NULL: the name is used */
	int bit;     /* position in the paper's 16-character string, or -1 */
	int kind;    /* FILT_KEEP or FILT_REMOVE */
	int returns; /* stands for the return events (value 0), not for names */
	filt_pattern *inc, *exc;
	size_t ninc, nexc;
	char *file;  /* where it was read from */
	int line;    /* line of its `name:` */
	int bit_line, token_line; /* lines of `bit:` and `token:`, for conflict errors */
	unsigned origin;          /* private: which load call read it */
} filt_family;

/* The families known to a command: loaded from directories and files, later ones replacing
 * earlier ones of the same name. Kept sorted by bit (families without one last), then name. */
typedef struct filt_lib filt_lib;

filt_lib *filt_lib_new(void);
void filt_lib_free(filt_lib *l);
size_t filt_lib_count(const filt_lib *l);
const filt_family *filt_lib_family(const filt_lib *l, size_t i);
/* Index of the family with this name, or -1. */
int filt_lib_find(const filt_lib *l, const char *name);
/* "returns, dotplt, plt, ..." (the known names, in order), for error messages. */
void filt_lib_names(const filt_lib *l, char *buf, size_t n);

/* Parses one family from text (the contents of file `file`, used in errors) and adds it. */
int filt_lib_parse(filt_lib *l, const char *text, size_t len, const char *file, dt_err *e);
int filt_lib_load_file(filt_lib *l, const char *path, dt_err *e);
/* Loads every DIR/NAME.filter in name order. A missing directory is not an error. */
int filt_lib_load_dir(filt_lib *l, const char *dir, dt_err *e);

/* The standard directories, lowest priority first: PKGDATADIR/filters, each directory of
 * $DIFFTRACE_FILTER_PATH (colon-separated), $XDG_CONFIG_HOME/difftrace/filters (default
 * ~/.config/difftrace/filters). Reads the environment when called. */
typedef struct filt_dirs {
	char **dir;
	size_t n;
	int user; /* the last directory is the user's, from XDG_CONFIG_HOME or HOME */
} filt_dirs;
void filt_dirs_default(filt_dirs *d);
void filt_dirs_free(filt_dirs *d);
/* Loads the standard directories in order. */
int filt_lib_load_default(filt_lib *l, dt_err *e);

/* A filter: a combination of the families of one library, which must not change while the
 * filter exists. */
typedef struct filt filt;

/* Family names separated by commas (`mpi,ompcrit,custom`); an unknown name is a DT_EUSAGE
 * error listing the known ones. */
int filt_from_names(const filt_lib *l, const char *names, filt **f, dt_err *e);
/* The paper's string: 16 characters of 0/1. Bits 0 and 1 choose their (remove) families when
 * they are 0, bits 2-15 choose theirs when they are 1. */
int filt_from_bits(const filt_lib *l, const char *bits, filt **f, dt_err *e);
/* The paper's folder name: `11.mpi.cust.0`, `11.1`, optionally followed by `K<n>` (then *k is
 * set to n, else to -1; k may be NULL). Tokens (or names) of the chosen families between the
 * first and the last dot. */
int filt_from_alias(const filt_lib *l, const char *alias, filt **f, int *k, dt_err *e);
/* Any of the three forms. */
int filt_parse(const filt_lib *l, const char *text, filt **f, dt_err *e);
void filt_free(filt *f);

/* The prototype's duplication: a call matching k include patterns of chosen keep families is
 * emitted k times, returns are not nested. Only for comparing with published numbers. */
void filt_compat_duplicates(filt *f, int on);

/* Sorted chosen names joined by commas, "+compat" appended in compatibility mode: a cache key
 * (with filt_digest, which changes when a family's patterns change). */
const char *filt_canonical(const filt *f);
/* The paper's folder-style name, without the `K<n>` the analysis appends: `11.mpi.cust.0`. */
const char *filt_alias(const filt *f);
/* The paper's 16-character string into buf (17 bytes); -1 (DT_EUSAGE) when a chosen family has
 * no bit, or a bit has no family. */
int filt_bits(const filt *f, char *buf, dt_err *e);
int filt_chosen(const filt *f, size_t family);
int filt_keeps_returns(const filt *f);
/* Hash of everything that decides what the filter keeps (chosen families' patterns, the
 * remove families' patterns, the mode). */
uint64_t filt_digest(const filt *f);

/* Why a name is kept or dropped. */
typedef struct filt_why {
	int copies;                /* 0 dropped, 1 kept (more in compatibility mode) */
	int removed;               /* dropped by an exclude pattern or an unchosen remove family */
	const filt_family *fam;    /* the family whose pattern decided, NULL if none matched */
	const filt_pattern *pat;
} filt_why;
int filt_explain(const filt *f, const char *name, filt_why *w, dt_err *e);

/* The keep table of a filter over function names indexed by id (names[0] and unused ids NULL). */
typedef struct filt_table {
	uint8_t *keep;      /* copies of a call of id to emit: 0 or 1, up to 255 in compat mode */
	size_t n;           /* ids 0 .. n-1; larger ids are dropped */
	int keep_returns;   /* keep the returns that close kept calls */
	int compat;         /* compatibility mode: each return emitted ret_copies times */
	uint8_t ret_copies;
	uint8_t max_copies; /* filtered output is at most max_copies times the input */
	size_t nkept;       /* functions kept */
} filt_table;
int filt_table_build(const filt *f, const char *const *names, size_t n, filt_table *t,
		     dt_err *e);
void filt_table_free(filt_table *t);

/* Applying a table to a trace in blocks: the state is the kept/not-kept flag of each open
 * call, so a trace can be filtered in any number of blocks with the same result. */
typedef struct filt_stream {
	const filt_table *t;
	uint64_t top;       /* kept flags of the innermost ntop open calls, innermost in bit 0 */
	unsigned ntop;      /* 0 .. 63 */
	uint8_t *deep;      /* the flags of the outer open calls, outermost first */
	size_t ndeep, capdeep;
	uint64_t unmatched; /* returns with no open call (dropped) */
} filt_stream;
void filt_stream_init(filt_stream *s, const filt_table *t);
/* Filters n events of in into out, which holds n * t->max_copies; returns the number written.
 * Open calls are only tracked when the table keeps returns. */
size_t filt_stream_apply(filt_stream *s, const uint32_t *in, size_t n, uint32_t *out);
/* Calls open at this point of the stream. */
uint64_t filt_stream_depth(const filt_stream *s);
void filt_stream_free(filt_stream *s);

#endif
