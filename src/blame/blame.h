/* blame.h: variable blame (Rutar and Hollingsworth, "Assigning Blame"), computed from the
 * blame data of a run (import/blame_data.h), joined with the static data flow of blame-index
 * where it has the sample's function (flow.h), by the heuristic below where not.
 *
 * Every sample is blamed exactly once at each blame point whose function is on its stack
 * (`main` takes every sample of the run, threads included):
 *  - a sample with an output routine (write, the printf family, fwrite, MPI_File_*) on its
 *    stack, at or below the point, goes to Output;
 *  - a sample inside an MPI call goes to the container its transfer function blames
 *    (difftrace-transfer(5)), when that container is visible at the point;
 *  - a sample the data flow places (flow_sample, with an index) goes to the variables it
 *    names: "v (func)" for a function's variable, a global by its name, a pointer written
 *    through by the visible container its frames point into when the scan found one;
 *  - otherwise (computation, or an MPI buffer not visible at the point) the frames are scanned
 *    innermost first, up to the point's frame: the first frame whose words point into visible
 *    containers divides the sample among them in equal parts (the paper's heuristic for
 *    functions without source, which divides a function's blame between its parameters);
 *  - a sample that reaches no container goes to Other.
 * A container is visible at the point unless it belongs to the call still running below it:
 * a heap block whose allocation path has the point's function calling the function the
 * sample's stack has below the point (the paths aligned on the point's outermost occurrence:
 * a temporary of a callee, whose blame passes to what the callee's frames point to further
 * out), or a block allocated only by libraries (the MPI library's own buffers); a local
 * variable is visible when it is the program's and its function runs at or above the point.
 * A main-thread sample whose stack stops before main and before the thread's start (cut
 * short) sees at main no block or local of main's callees: which of them run is not known.
 * Fields bubble up: the import maps an address to the outermost container holding it.
 * Containers are grouped into variables: globals and statics by their DWARF name, locals by
 * function and DWARF name (shown as the name at their function's point, function::name at
 * others), heap blocks by their allocation site (the innermost frame of the program on the
 * allocation's call path). */
#ifndef DT_BLAME_H
#define DT_BLAME_H

#include <stddef.h>
#include <stdint.h>

#include "blame/flow.h"
#include "blame/transfer.h"
#include "import/blame_data.h"
#include "util/err.h"

enum blame_metric { BLAME_SAMPLES, BLAME_TIME, BLAME_BYTES };

enum blame_vkind { BV_VAR = 0, BV_OTHER = 1, BV_OUTPUT = 2 };

typedef struct blame_var {
	char *name;        /* escaped on output by the caller */
	char *type;        /* the DWARF type (globals, statics, locals), "heap", "mmap", or "-" */
	int vkind;         /* enum blame_vkind */
	int ckind;         /* the dt_bc_kind of its first container, 0 for Other and Output */
	double *rank;      /* blame per rank column */
	double total;
	double direct;     /* of total, the samples whose own source line wrote the variable's
			    * memory (the paper's Base Data Centric; with a blame index only) */
	uint64_t calls;    /* bit c-1: MPI call c (syncfmt.h code) contributed */
	size_t ncont;      /* containers that got blame */
	int32_t first;     /* its first container (for the allocation site), -1 none */
	int skind;         /* from the static data flow: its bx_var_kind + 1; 0 not */
	/* the functions that blamed it: the function of the frame where the scan found it, else
	 * (MPI transfer, Other, Output) the innermost function of the program on the stack; as
	 * location ids of the function's first location (-1 none), the first BLAME_FUNCS seen,
	 * the rest summed in fn_rest */
	int32_t fn[8];
	double fn_amount[8];
	int nfn;
	double fn_rest;
} blame_var;

#define BLAME_FUNCS 8

/* "Why" a variable has its blame: one way a sample's blame came to it, as steps from the
 * variable back to the sample: "x (main)", "produce(&x, PHASE), line 67" (a call site of the
 * caller), "*out (produce)" (the callee's exit variable), "r, line 39" (a relation: the
 * previous step's variable was computed from r at line 39), "sample at dflow.c:38 in
 * produce". Not escaped (the caller escapes on output). */
typedef struct blame_path {
	char **steps;
	size_t nsteps;
	double blame;      /* of the table's metric */
} blame_path;

typedef struct blame_table {
	char *point;
	blame_var *vars;   /* the variables by total blame, then Other, then Output */
	size_t nvars;
	double *rank;      /* the table's total per rank column */
	double total;
	uint64_t nsamples; /* sample records (not ticks) the point took */
	int automatic;     /* added by the automatic criterion (blame_src.auto_pct) */
	double joined;     /* the part of total blamed through the static data flow */
	double tracer;     /* left out of total: the samples in the tracer's own code (uftrace's
			    * libmcount, and the loader's symbol binding) */
	/* with blame_compute_why: the variable's largest paths (nwhy of why_all) and its blame */
	blame_path *why;
	size_t nwhy, why_all;
	double why_total;
} blame_table;

typedef struct blame_result {
	int metric;
	size_t nranks;
	int32_t *ranks;    /* the rank of each column (-1 unknown) */
	blame_table *tables;
	size_t ntables;
	uint32_t flags;    /* DT_BF_* of all processes */
	const char *unit;  /* "ticks", "ns", "events", "bytes" */
	char **nosrc;      /* the program's functions without an index entry that took samples
			    * (blamed by the heuristic), when an index was given */
	size_t nnosrc;
	char **ends;       /* the functions other than the points where blame stopped (a local
			    * passing it nowhere: automatic blame points) */
	size_t nends;
	int index_nodebug; /* an index was given but the program has no -g (no source lines to
			    * join it to): blamed as without one */
	int no_index;      /* set by the caller: the store has no blame index of the run's
			    * program (and it was not turned off) */
} blame_result;

/* Blame tables of d at the points (NULL or none: main). tf may be NULL (no MPI transfer). */
int blame_compute(const dt_blame_data *d, const transfer_set *tf, const char *const *points,
		  size_t npoints, int metric, blame_result *out, dt_err *e);
void blame_result_free(blame_result *r);

/* The same, joined with the static data flow of src (flow.h) where it has the functions; src
 * NULL: as blame_compute. */
int blame_compute_src(const dt_blame_data *d, const transfer_set *tf, const blame_src *src,
		      const char *const *points, size_t npoints, int metric, blame_result *out,
		      dt_err *e);

/* The same, and for each table the paths that brought blame to the variable named `var` (its
 * row's name), the `top` largest by blame (0: all) in blame_table.why. The data flow records
 * its walks only here. */
int blame_compute_why(const dt_blame_data *d, const transfer_set *tf, const blame_src *src,
		      const char *const *points, size_t npoints, int metric, const char *var,
		      size_t top, blame_result *out, dt_err *e);

/* Line k (0, 1, ...) of what r's blame lacked or left out and what to do about it, most
 * important first (uftrace's own time, no stacks, no frame words, no -g, no blame index): 1
 * and buf set, 0 when there are no more.
 * The command line and the interface say the same. */
int blame_lack(const blame_result *r, const dt_blame_data *d, int k, char *buf, size_t n);

/* The note of the k-th function (0, 1, ...) whose arrays or structures an optimized build left
 * without a stack location at the sampled code (the import's dt_blost, stored): "in work: p
 * (struct pair), its location list does not cover the sampled code (optimized out there); ...",
 * in a new string; NULL when there are no more. Not escaped (the caller escapes on output). */
char *blame_lost_note(const dt_blame_data *d, size_t k);

/* Whether a binary (its base name) is the tracer's own (uftrace's libmcount*.so). */
int blame_is_tracer(const char *module);

/* Whether func is an output routine (Output row). */
int blame_is_output(const char *func);

/* The variables' node mean and (population) standard deviation over the rank columns. */
void blame_var_stats(const blame_result *r, const blame_var *v, double *mean, double *sd);

/* The change between two runs' tables at one point, per rank and variable (matched by name),
 * in percent of the rank's total; rows sorted per rank by the size of the change. */
typedef struct blame_change {
	int32_t rank;
	const char *name, *type;
	double a, b;       /* blame in the normal and the faulty run */
	double pa, pb;     /* the same in percent of the rank's total */
} blame_change;

/* Changes of table tb (faulty) against ta (normal); ranks matched by rank number. *out is
 * allocated; at most top rows per rank (0: all). */
void blame_diff(const blame_result *ra, const blame_table *ta, const blame_result *rb,
		const blame_table *tb, size_t top, blame_change **out, size_t *n);

#endif
