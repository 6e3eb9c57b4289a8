/* objects.h: an analysis's objects packed in one blob (analysis_blobs key "objects").
 *
 * Reading an analysis back (analysis_load) needs every object's trace row, the events its
 * filter kept and its attribute ids. Row by row through SQLite that is most of the cost of
 * opening a view on a large run (about 20 columns a trace); the same values packed in one blob
 * at analysis time read back several times faster. The blob is written with the analysis, in
 * its transaction, from the very rows it analysed (a run's traces do not change once
 * imported); an analysis cached without it is read from the rows. Strings are stored as the
 * length shared with the previous object's and the rest; numbers as LEB128 (signed ones
 * zigzag), ids as differences from the previous object's. */
#ifndef DT_OBJECTS_H
#define DT_OBJECTS_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"
#include "util/util.h"

typedef struct an_objects_w {
	dt_buf b;
	const store_trace *prev; /* the previous object's trace: strings and ids coded against it */
	size_t n, count;
} an_objects_w;

/* Starts the blob of n objects. */
void an_objects_begin(an_objects_w *w, size_t n);
/* Adds the next object: its trace, kept events and attribute ids (ascending). t must stay
 * valid until the next call. */
void an_objects_put(an_objects_w *w, const store_trace *t, uint64_t nfiltered,
		    const uint32_t *attrs, size_t na);
/* Fills n objects from a blob: traces[i], nfiltered[i], ids[i] and nids[i]. With arena NULL
 * the strings and ids are malloc'ed one by one (store_traces_free and free them); else they
 * are carved from a few large blocks, *arena, freed at once by an_arena_free (one malloc per
 * megabyte instead of four per trace: the most of what reading 10^5 objects costs). -1 when
 * the blob is damaged or not of n objects (the arrays may be partly filled: the caller frees
 * what is there, and *arena). */
int an_objects_decode(const uint8_t *p, size_t len, size_t n, store_trace *traces,
		      uint64_t *nfiltered, uint32_t **ids, size_t *nids, void **arena);
void an_arena_free(void *arena);

#endif
