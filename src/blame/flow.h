/* flow.h: the join of a sample's stack with the static data flow of blame-index (index.h): the
 * paper's transfer functions for the program's own functions.
 *
 * A sample goes from the innermost frame of the program to its source line, to the variables
 * the statement(s) of that line write (for a loop, if or switch condition line, the variables
 * the condition controls), then through the function's relations to its exit variables (the
 * globals and statics, the return value, a parameter written through), and through the call
 * site of the caller's frame line (the call's result variable, the argument's variable) to the
 * caller's variables, and so on up the stack. It stops at a blame point:
 *  - the table's point (its frame on the sample's stack), where a temporary of the point (a
 *    local that is no pointer and only feeds other variables of the point) passes its share
 *    on, in equal parts, to the variables it flows into;
 *  - a global or static (named by its own name);
 *  - a function whose written variable reaches no exit variable (its local keeps the blame:
 *    the paper's automatic blame point; a pointer written through is named, as below, by the
 *    memory it points to);
 *  - a caller without an index entry, or no caller of the program: the exit variable keeps
 *    the blame, named by the memory the frame's pointers point into when it is a pointer (part
 *    1's runtime containers) and the scan found any; otherwise, below a caller without an
 *    index entry or whose call site the index does not follow, part 1's heuristic takes over
 *    from that caller's frame (the containers its pointers, or its callers', point into), the
 *    variable keeping what the scan cannot place.
 * A sample inside a library function that the transfer functions know (difftrace-transfer(5):
 * MPI_Bcast blames its buffer, MPI_Reduce its result) starts instead from the variable of the
 * argument its transfer function blames, at the call on the program's line (the prototype
 * table, then the data flow).
 * A sample whose innermost program frame has no index entry, or whose line writes nothing
 * known, is not joined (the caller blames it by part 1's heuristic). */
#ifndef DT_BLAME_FLOW_H
#define DT_BLAME_FLOW_H

#include <stddef.h>
#include <stdint.h>

#include "blame/index.h"
#include "blame/transfer.h"
#include "import/blame_data.h"

/* The indexed functions of the program, as the blame stage uses them. */
typedef struct blame_src {
	const bx_func *fn; /* one per function name (the caller picks one among homonyms) */
	size_t n;
	double auto_pct;   /* > 0: tables are added for the functions whose variables hold more
			    * than this percent of main's total (the paper's criterion) */
} blame_src;

/* Where a share of a sample's blame ends. */
typedef struct flow_target {
	int fn;         /* index in blame_src.fn */
	int var;        /* variable of fn */
	size_t frame;   /* the frame of fn on the sample's stack */
	int pointer;    /* var is a pointer written through (its runtime container may name it) */
	size_t origin;  /* the innermost frame that wrote through a pointer parameter on the
			 * way to var (SIZE_MAX none): its pointers name that container first */
	double share;   /* of the sample; the targets of one sample add up to 1 */
	size_t heur;    /* the frame of the caller where the walk found no way up (no index
			 * entry, or a call site the index does not follow; SIZE_MAX none):
			 * part 1's scan from that frame up names the blame when it finds a
			 * container, else the variable keeps it */
	/* with flow_ctx.why: the recorded item whose variable reached this target (its chain in
	 * why->hop), and the relations of its function from that variable to var (why->rel[rel0
	 * .. rel0 + nrel), in order); the targets are then not merged */
	size_t hop, rel0, nrel;
	/* a pointer's field written through it on the way to var ("x": the blame is pb->x's, the
	 * block that field points to), NULL none (var's own memory); points into the index */
	const char *field;
	/* the sample's own line wrote var's memory (var itself, or through pointers passed up
	 * unchanged), not a variable computed from it: the paper's Base Data Centric */
	int direct;
} flow_target;

/* One item of a sample's walk, as recorded for "why" (flow_ctx.why). */
typedef struct flow_hop {
	size_t parent;       /* the item it came from (SIZE_MAX: a seed, the sample's line) */
	int fn, var;         /* the variable reached: var of src function fn */
	int through;         /* written through var (a pointer) */
	size_t frame;        /* the frame of fn on the sample's stack */
	const bx_call *call; /* the caller's call site it came up through (NULL: a seed) */
	int ex, exth;        /* the parent's exit variable it came up from, and its through flag */
	size_t rel0, nrel;   /* the parent's relations from its variable to ex (flow_why.rel) */
	int targ;            /* a seed from the argument a transfer function blames (from 1;
			      * TRANSFER_RETURN: the call's value) */
	const char *tname;   /* with targ, the function of the table that placed it */
} flow_hop;

/* The record of one sample's walk: its items and the relation paths they name (indices in
 * their function's rels). Reset by each flow_sample. */
typedef struct flow_why {
	flow_hop *hop;
	size_t nhop, caphop;
	int *rel;
	size_t nrel, caprel;
} flow_why;

typedef struct flow_ctx {
	const dt_blame_data *d;
	const blame_src *src;
	int32_t *fnix;  /* per location: its function's index in src, -1 none */
	uint8_t *noted; /* per location: a function of the program without an index entry that
			 * took a sample */
	size_t maxv;    /* the most variables of a function */
	const transfer_set *tf; /* the transfer functions by prototype (NULL none) */
	flow_why *why;  /* not NULL: flow_sample records the path of every target (a little
			 * slower; the caller sets it only to explain one variable's blame) */
} flow_ctx;

/* Whether symbol sym is the code of the function the index calls name: the same, or a copy the
 * compiler made and renamed with a suffix after a dot (gcc -O2's name.constprop.0, .isra.0,
 * .part.0, .cold: a C identifier has no dot). */
int flow_same_function(const char *name, const char *sym);

void flow_init(flow_ctx *x, const dt_blame_data *d, const blame_src *src);
void flow_free(flow_ctx *x);
void flow_why_free(flow_why *w);

/* The targets of the sample with stack S[0..m1) at the point whose frame is S[k] (k >= m1:
 * not on the stack). Returns their number (0: not joined), *t grown as needed. For each target
 * fnv[f] is set to 1 for each function whose variables the blame passed through (fnv: one byte
 * per src function, or NULL). */
size_t flow_sample(flow_ctx *x, const int32_t *S, size_t m1, size_t k, flow_target **t,
		   size_t *cap, uint8_t *fnv);

#endif
