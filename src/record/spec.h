/* spec.h: the fault specification of libdifftrace-inject (see difftrace-inject(7)).
 *
 * Parsed without MPI or OpenMP so that it can be unit-tested, and so that the preloaded
 * library can refuse a bad specification before the program's main() runs. Names of MPI
 * operations and datatypes are kept as indexes into the lists below; the library turns them
 * into handles at call time, because Open MPI's handles are addresses only libmpi knows. */
#ifndef DT_INJECT_SPEC_H
#define DT_INJECT_SPEC_H

#include <stdbool.h>

/* Inside the preloaded library these names must not be exported: a program may well have a
 * spec_parse of its own. */
#if defined(__GNUC__)
#pragma GCC visibility push(hidden)
#endif

#define SPEC_MAX_FAULTS 32
#define SPEC_MAX_RANGES 16
#define SPEC_ANY (-1) /* source=any, tag=any */

/* The functions the library interposes: X(enum suffix, C name). */
#define SPEC_FUNCS(X)                                                                      \
	X(ALLREDUCE, MPI_Allreduce)                                                        \
	X(REDUCE, MPI_Reduce)                                                              \
	X(BCAST, MPI_Bcast)                                                                \
	X(BARRIER, MPI_Barrier)                                                            \
	X(SEND, MPI_Send)                                                                  \
	X(ISEND, MPI_Isend)                                                                \
	X(RECV, MPI_Recv)                                                                  \
	X(CRITICAL_START, GOMP_critical_start)                                             \
	X(CRITICAL_END, GOMP_critical_end)                                                 \
	X(CRITICAL_NAME_START, GOMP_critical_name_start)                                   \
	X(CRITICAL_NAME_END, GOMP_critical_name_end)                                       \
	X(GOMP_BARRIER, GOMP_barrier)                                                      \
	X(SET_LOCK, omp_set_lock)                                                          \
	X(UNSET_LOCK, omp_unset_lock)

/* MPI reduction operations accepted by op=, as MPI_<name>. */
#define SPEC_OPS(X)                                                                        \
	X(MAX) X(MIN) X(SUM) X(PROD) X(LAND) X(BAND) X(LOR) X(BOR) X(LXOR) X(BXOR)           \
	X(MAXLOC) X(MINLOC) X(REPLACE) X(NO_OP)

/* MPI datatypes accepted by datatype=, as MPI_<name>. */
#define SPEC_TYPES(X)                                                                      \
	X(CHAR) X(SIGNED_CHAR) X(UNSIGNED_CHAR) X(BYTE) X(SHORT) X(UNSIGNED_SHORT) X(INT)    \
	X(UNSIGNED) X(LONG) X(UNSIGNED_LONG) X(LONG_LONG) X(UNSIGNED_LONG_LONG) X(FLOAT)     \
	X(DOUBLE) X(LONG_DOUBLE) X(FLOAT_INT) X(DOUBLE_INT) X(LONG_INT) X(2INT)

#define SPEC_X_ENUM(n, ...) SPEC_FN_##n,
enum spec_fn { SPEC_FUNCS(SPEC_X_ENUM) SPEC_FN_COUNT };
#undef SPEC_X_ENUM
#define SPEC_X_ENUM(n) SPEC_OP_##n,
enum spec_op { SPEC_OPS(SPEC_X_ENUM) SPEC_OP_COUNT };
#undef SPEC_X_ENUM
#define SPEC_X_ENUM(n) SPEC_TYPE_##n,
enum spec_type { SPEC_TYPES(SPEC_X_ENUM) SPEC_TYPE_COUNT };
#undef SPEC_X_ENUM

enum spec_kind {
	SPEC_ALLREDUCE, SPEC_REDUCE, SPEC_BCAST, SPEC_BARRIER, SPEC_SEND, SPEC_ISEND, SPEC_RECV,
	SPEC_CRITICAL, SPEC_LOCK, SPEC_SPIN, SPEC_KIND_COUNT
};

/* What a fault changes (bits of spec_fault.set). */
enum {
	SPEC_SET_COUNT = 1 << 0,
	SPEC_SET_OP = 1 << 1,
	SPEC_SET_TYPE = 1 << 2,
	SPEC_SET_ROOT = 1 << 3,
	SPEC_SET_DEST = 1 << 4,
	SPEC_SET_SOURCE = 1 << 5,
	SPEC_SET_TAG = 1 << 6,
};

/* A union of ranges lo..hi (hi = SPEC_OPEN for "lo-"); no ranges = every value. */
#define SPEC_OPEN 0x7fffffffL
struct spec_ranges {
	int n;
	struct {
		long lo, hi;
	} r[SPEC_MAX_RANGES];
};

struct spec_fault {
	enum spec_kind kind;
	enum spec_fn fn; /* the call counted: the MPI function, the *_start/set one, spin's func */
	struct spec_ranges calls, ranks, threads;
	unsigned set; /* SPEC_SET_* */
	long count;   /* new count, or the change when count_rel */
	bool count_rel, drop, busy;
	enum spec_op op;
	enum spec_type type;
	int root, dest, source, tag; /* source and tag may be SPEC_ANY */
	int line, col;               /* where the fault starts, for messages */
};

struct spec {
	int n;
	struct spec_fault f[SPEC_MAX_FAULTS];
};

struct spec_error {
	int line, col; /* 1-based, of the offending text */
	char msg[256];
};

/* Parse TEXT (faults separated by ';' or newlines, '#' comments) into OUT. Returns 0, or -1
 * with ERR filled in. An empty TEXT gives no faults. */
int spec_parse(const char *text, struct spec *out, struct spec_error *err);

/* Does the range list hold V? (An empty list holds every value.) */
bool spec_in(const struct spec_ranges *r, long v);

const char *spec_fn_name(enum spec_fn fn);
const char *spec_op_name(enum spec_op op);
const char *spec_type_name(enum spec_type t);
const char *spec_kind_name(enum spec_kind k);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif
