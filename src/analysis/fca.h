/* fca.h: the concept lattice of a formal context (METHOD.md §6), for browsing and export.
 *
 * A concept is a pair (extent, intent): the extent is a set of objects (traces), the intent the
 * set of attributes they all share, each the largest set the other allows. Concepts are ordered
 * by extent; the Hasse diagram links each concept to the concepts just below it (parent -> child,
 * from the larger extent to the smaller). The top concept holds every object and the attributes
 * they all have; the bottom concept holds every attribute and the objects that have them all.
 *
 * Construction is incremental, one object at a time, with AddIntent (van der Merwe, Obiedkov and
 * Kourie, 2004), which inserts the object's intent below the concepts that generate it and fixes
 * the covering edges as it goes. The prototype uses Godin et al. 1995 (METHOD.md §6); both give
 * the one lattice of the context, and AddIntent needs no pass over all concepts per object.
 *
 * Concepts are numbered after construction in a fixed order that depends only on the context:
 * by intent size, then by their sorted intents compared as lists of attribute ids. So concept 0
 * is the top and concept nconcepts - 1 the bottom, and two builds of one context agree.
 *
 * Reduced labels: attribute a is shown on its attribute concept (the largest extent whose intent
 * holds a) and object g on its object concept (the smallest extent holding g); every other
 * concept's intent and extent follow from the order, so the picture names each thing once.
 *
 * A lattice can have exponentially many concepts. fca_build stops with an error past a caller's
 * limit instead of filling memory. */
#ifndef DT_FCA_H
#define DT_FCA_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/context.h"
#include "util/err.h"
#include "util/ptrange.h"

typedef struct fca_concept {
	uint64_t *extent; /* ctx_words(n) words over objects */
	uint64_t *intent; /* ctx_words(m) words over attributes */
	size_t next, nint; /* their sizes */
	uint32_t *up;      /* parents (covers above: larger extents), ascending */
	uint32_t *down;    /* children (covers below), ascending */
	size_t nup, ndown;
} fca_concept;

typedef struct fca_lattice {
	size_t n, m;            /* objects, attributes */
	size_t nconcepts;
	fca_concept *c;         /* by concept id */
	size_t nedges;          /* Hasse edges: the sum of ndown */
	size_t top, bottom;     /* 0 and nconcepts - 1 */
	uint32_t *obj_concept;  /* n: each object's object concept */
	uint32_t *attr_concept; /* m: each attribute's attribute concept */
} fca_lattice;

/* Builds the lattice of ctx. More than max_concepts concepts is a DT_EDATA error saying so
 * (and *L is left empty). Free with fca_free. */
int fca_build(const ctx_bits *ctx, size_t max_concepts, fca_lattice *L, dt_err *e);
void fca_free(fca_lattice *L);

/* A display name for object or attribute `index`: either a string the callback keeps, or one it
 * writes into scratch (size bytes); NULL shows the default. */
typedef const char *(*fca_namefn)(void *ud, size_t index, char *scratch, size_t size);

typedef struct fca_names {
	fca_namefn object;    /* default: the object's index */
	fca_namefn attribute; /* default: `a<index>` */
	const ptr_pt *pt;     /* the P.T of each object, or NULL: when set, object sets are shown
				 as compact P.T sets (ptrange.h) instead of one name each */
	void *ud;
} fca_names;

/* Graphviz: `digraph lattice`, one box per concept `c<id>` labelled with its id, its reduced
 * attributes and its reduced objects, one edge per Hasse edge parent -> child. nm may be NULL.
 * A write error on out is a DT_EDATA error. */
int fca_render_dot(const fca_lattice *L, const fca_names *nm, FILE *out, dt_err *e);

/* One line per concept, four fields separated by tabs:
 *   c<id>  extent  intent  children
 * the extent as a compact P.T set when nm->pt is given, else the object indices as ranges
 * (`0-3,5`); the intent as attribute names joined by "; "; the children as `c1,c4`. An empty
 * field is `-`. */
int fca_render_text(const fca_lattice *L, const fca_names *nm, FILE *out, dt_err *e);

#endif
