/* store_srcline.h: where a run's functions are defined in the source (file and line, from the
 * debug information of the recorded binaries), and which programs had none.
 *
 * The importer hands them to the store's sink (dt_sink.srcline); the commands and the interface
 * load a run's table once and look names up in it. A store made before the table existed, or a
 * run imported from a format without binaries, simply has no lines. */
#ifndef DT_STORE_SRCLINE_H
#define DT_STORE_SRCLINE_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

typedef struct store_srclines store_srclines;

/* The source lines of run_id (an empty table when the store or the run has none). */
int store_srclines_load(store *s, int64_t run_id, store_srclines **out, dt_err *e);
void store_srclines_free(store_srclines *l);
/* Where function `name` is defined: 1 with *file and *line (valid while l lives), else 0.
 * An MPI call named with its arguments (NAME[args]) is looked up by NAME. l may be NULL. */
int store_srclines_find(const store_srclines *l, const char *name, const char **file,
			int *line);
/* file as people read it: relative to the current folder when it lies under it, else as is
 * (into buf when shortened). */
const char *store_srcline_show(const char *file, char *buf, size_t n);
/* Functions with a line. */
size_t store_srclines_count(const store_srclines *l);
/* The programs of the run that had no debug information (no -g) or could not be read at
 * import, n of them. */
const char *const *store_srclines_nodebug(const store_srclines *l, size_t *n);
/* Why program i of store_srclines_nodebug has no lines: "it has no debug information (-g)",
 * "it could not be read at import" or that the file there was another build. */
const char *store_srclines_why(const store_srclines *l, size_t i);
/* 1 when program i could not be read at import, 2 when the file there was another build than
 * the one recorded, 0 when it has no debug information. */
int store_srclines_unreadable(const store_srclines *l, size_t i);

#endif
