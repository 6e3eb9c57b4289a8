/* uftrace_data.h: the pieces of a uftrace.data directory other than the records themselves.
 *
 * Reads the `info` file (binary header and text sections), `task.txt` (sessions, tasks, forks,
 * dlopens), the `sid-*.map` memory maps, the `<module>.sym` symbol tables and `.dbg` argument
 * specs, and answers the questions the record importer asks while it streams a `<tid>.dat`:
 * which process a thread belongs to, which session (program image) was running at a time, which
 * symbol an address falls in, and how the argument bytes recorded after an entry or exit are
 * laid out. Everything is read lazily and cached, because an Open MPI rank maps ~90 modules
 * while its records touch two or three. See shared/formats/uftrace.md for the format. */
#ifndef DT_UFTRACE_DATA_H
#define DT_UFTRACE_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"
#include "util/util.h"

/* Feature bits of the info header. */
enum {
	UFD_FEAT_PLTHOOK = 1u << 0,
	UFD_FEAT_TASK_SESSION = 1u << 1,
	UFD_FEAT_KERNEL = 1u << 2,
	UFD_FEAT_ARGUMENT = 1u << 3,
	UFD_FEAT_RETVAL = 1u << 4,
	UFD_FEAT_SYM_REL_ADDR = 1u << 5,
	UFD_FEAT_MAX_STACK = 1u << 6,
	UFD_FEAT_EVENT = 1u << 7,
	UFD_FEAT_PERF_EVENT = 1u << 8,
	UFD_FEAT_AUTO_ARGS = 1u << 9,
	UFD_FEAT_DEBUG_INFO = 1u << 10,
	UFD_FEAT_ESTIMATE_RETURN = 1u << 11,
	UFD_FEAT_SYM_SIZE = 1u << 12,
	UFD_FEAT_CALLSITE = 1u << 13,
};

/* Info bits: which text sections follow the header. */
enum {
	UFD_INFO_TASKINFO = 1u << 7,
	UFD_INFO_ARG_SPEC = 1u << 10,
};

typedef struct ufd_info {
	uint32_t version;     /* 3 or 4 */
	uint16_t hdr_size;
	uint8_t endian;       /* 1 little, 2 big (ELF EI_DATA) */
	uint8_t elf_class;    /* 1 32-bit, 2 64-bit */
	uint64_t feat, info_mask;
	uint16_t max_stack;
	int swap;             /* the data's byte order is not the host's */
	char *exename, *cmdline, *hostname, *version_str;
	char *argspec, *retspec, *argauto, *retauto; /* NULL when absent */
	int auto_args;        /* recorded with -a/--auto-args ("auto-args:1") */
	int glob_patterns;    /* pattern_type:glob (default regex) */
	int64_t *tids;        /* taskinfo:tids, NULL when the section is absent */
	size_t ntids;
} ufd_info;

/* Reads DIR/info. Errors name the file and the byte offset of the bad field or line. */
int ufd_info_read(const char *dir, ufd_info *inf, dt_err *e);
void ufd_info_free(ufd_info *inf);

typedef struct ufd_sess {
	int64_t pid;
	uint64_t ts;          /* ns */
	char sid[24];
	char *exename;
	int map_loaded;       /* 0 not yet, 1 loaded */
	struct ufd_range *ranges; /* from sid-SID.map, sorted by start */
	size_t nranges;
	struct ufd_dlop *dlops;   /* this session's dlopens, deduplicated, sorted by base */
	size_t ndlops;
	int mpi_family;       /* ufd_mpi_family's answer plus one; 0 not asked yet */
} ufd_sess;

typedef struct ufd_task {
	int64_t tid, pid;
	uint64_t ts;
} ufd_task;

typedef struct ufd_fork {
	int64_t pid, ppid;
	uint64_t ts;
} ufd_fork;

typedef struct ufd_data ufd_data;

/* Opens a uftrace.data directory: reads info and task.txt; maps and symbols come later, when an
 * address needs them. */
int ufd_open(ufd_data **out, const char *dir, dt_err *e);
void ufd_close(ufd_data *d);

const ufd_info *ufd_get_info(const ufd_data *d);
const char *ufd_dir(const ufd_data *d);
/* The modules whose symbols were read from a sibling directory because this one has no .sym
 * file for them ("ilcs from rank-1, ..."), or NULL. */
const char *ufd_borrowed(const ufd_data *d);
/* The file name of module mod (of ufd_sym.module). */
const char *ufd_module_name(const ufd_data *d, int mod);
/* The sessions, tasks and forks of task.txt, in file order. */
const ufd_sess *ufd_sessions(const ufd_data *d, size_t *n);
const ufd_task *ufd_tasks(const ufd_data *d, size_t *n);
/* Number of DLOP lines read and how many were distinct (uftrace 0.13 repeats them). */
void ufd_dlop_counts(const ufd_data *d, size_t *lines, size_t *distinct);

/* The pid of a thread from the TASK lines; the tid itself when no line names it. */
int64_t ufd_task_pid(const ufd_data *d, int64_t tid);
/* The program a process ran last (its last session, else its forking parent's), or NULL. */
const char *ufd_proc_exename(const ufd_data *d, int64_t pid);
/* The session running in process pid at time ts: the latest of its sessions that started at or
 * before ts, else (a forked child before its exec) its parent's at the fork, else its first;
 * -1 when the directory has none. Sets *until to the start of the pid's next session (or
 * UINT64_MAX), so callers can keep using the answer until then. */
int ufd_session_at(const ufd_data *d, int64_t pid, uint64_t ts, uint64_t *until);

/* What an address resolved to. */
typedef struct ufd_sym {
	const char *name;     /* symbol name, or a fallback such as "libfoo.so+0x1a0" or "0x7f..." */
	size_t len;
	int module;           /* module index, -1 when no module contains the address */
	int found;            /* 1 when a symbol of the module's table contains the address */
	int module_syms;      /* 1 when the module has a symbol table (found could be 1) */
	const char *path;     /* the module's file as the recording names it, or NULL */
	const char *bid;      /* its build id (hex) as the recording's map has it, or NULL */
} ufd_sym;

/* Resolves addr recorded at time ts in session sess: module from the session's map or a
 * dlopen done before ts, then the symbol whose [addr, addr+size) holds it (size 0: up to the
 * next symbol), PLT entries included. The returned name stays valid until the next call. */
int ufd_resolve(ufd_data *d, int sess, uint64_t ts, uint64_t addr, ufd_sym *out, dt_err *e);

/* Where sym is defined by its module's .dbg file ("L: LINE FILE" lines, written by uftrace
 * record --srcline): 1 with *file (as uftrace wrote it, often relative to the folder the
 * program was compiled in; valid while d is open) and *line, else 0. */
int ufd_srcline(ufd_data *d, const ufd_sym *sym, const char **file, unsigned *line);
/* Whether module mod's .dbg file has source lines. */
int ufd_has_srclines(ufd_data *d, int mod);

/* The data symbol (an object such as Open MPI's ompi_mpi_op_max, not a function) that starts
 * exactly at addr in session sess at time ts: 1 and *name (valid while d is open), 0 when there
 * is none, -1 on a bad symbol or map file. .sym files list data symbols too (uftrace 0.13). */
int ufd_resolve_object(ufd_data *d, int sess, uint64_t ts, uint64_t addr, const char **name,
		       dt_err *e);

/* The MPI family (mpi_family.h) of the libraries session sess mapped or dlopen()ed:
 * MPI_FAM_UNKNOWN when none says; -1 on a bad map file. */
int ufd_mpi_family(ufd_data *d, int sess, dt_err *e);

/* ---- arguments and return values ---------------------------------------------------------- */

enum { UFD_ARG_INT = 0, UFD_ARG_FLOAT = 1, UFD_ARG_RET = 2 };

typedef struct ufd_argitem {
	uint8_t kind;         /* UFD_ARG_INT (argN), UFD_ARG_FLOAT (fpargN), UFD_ARG_RET */
	uint8_t fmt;          /* 0 (auto: long/double), 'd','i','u','x','c','s','S','f','p','e' */
	uint8_t size;         /* bytes of the value: 1, 2, 4, 8 */
	uint16_t idx;         /* N of argN / fpargN, 0 for retval */
} ufd_argitem;

typedef struct ufd_argspec {
	ufd_argitem *items;
	size_t n;
} ufd_argspec;

/* The layout of the argument (is_ret 0) or return value (is_ret 1) bytes recorded for a call
 * of the symbol sym, following the rules libmcount applied at record time: the explicit
 * -A/-R specs that match the name (merged by index, later ones changing the format), else with
 * -a the module's DWARF spec (.dbg) or uftrace's built-in list for well-known functions.
 * *spec is NULL when nothing applies. The spec is owned by d. */
int ufd_argspec_for(ufd_data *d, const ufd_sym *sym, int is_ret, const ufd_argspec **spec,
		    dt_err *e);

/* Decodes the payload at p (avail bytes) laid out by spec into text such as
 * `arg1=5, arg2="str"` (appended to out, NUL-terminated). Returns 0 and sets *used (the
 * payload size, a multiple of 8); 1 when more bytes are needed (*used is then a lower bound of
 * what is needed); -1 when the payload cannot be decoded (e with msg only). */
int ufd_args_decode(const ufd_data *d, const ufd_argspec *spec, const uint8_t *p, size_t avail,
		    size_t *used, dt_buf *out, dt_err *e);

/* Parses one spec list such as "arg1/i32,arg2/s,fparg1/32" or "retval/x64" (a leading '@' is
 * skipped). Exposed for the tests. */
int ufd_argspec_parse(const char *s, size_t len, int lp64, ufd_argspec *out, char *why,
		      size_t whylen);

/* Byte-order helpers shared with the record reader. */
uint16_t ufd_get16(const uint8_t *p, int swap);
uint32_t ufd_get32(const uint8_t *p, int swap);
uint64_t ufd_get64(const uint8_t *p, int swap);

#endif
