/* store_bindex.h: the static data flow index of blame-index (blame/index.h) in the store
 * (schema 5, the bindex_* tables). */
#ifndef DT_STORE_BINDEX_H
#define DT_STORE_BINDEX_H

#include <stdint.h>

#include "blame/index.h"
#include "import/blame_data.h"
#include "store/store.h"

/* Writes the functions of f, replacing what was indexed before for the same path in the same
 * scope: run_id, or the whole store when run_id < 0. Inside the caller's transaction. */
int store_bindex_write(store *s, int64_t run_id, const bx_file *f, const char *clang_version,
		       dt_err *e);

/* Reads every indexed function called name: of run_id's index and the store-wide one, or of
 * every index when run_id < 0. Ordered by file and line. */
int store_bindex_find(store *s, int64_t run_id, const char *name, bx_func **fns, size_t *n,
		      dt_err *e);

typedef struct store_bfile {
	char *path;
	char *run; /* the run's name, or NULL for the store-wide index */
	int lines, nfuncs, nerrors;
	char *created;
} store_bfile;

/* The indexed files (of run_id and the store-wide index, or all when run_id < 0). */
int store_bindex_files(store *s, int64_t run_id, store_bfile **files, size_t *n, dt_err *e);
void store_bfiles_free(store_bfile *f, size_t n);

/* The indexed functions of the program's functions in d (its locations in the program), for
 * blame (blame/flow.h): one per name, the one whose file has the base name of the location's
 * file when the index has several; none when the store has no index. Free with
 * bx_funcs_free. */
int store_bindex_src(store *s, int64_t run_id, const dt_blame_data *d, bx_func **fns, size_t *n,
		     dt_err *e);
void bx_funcs_free(bx_func *f, size_t n);

/* 1 when the store has the index tables (a store of an older schema opened read-only has
 * not), 0 when not, -1 on error. */
int store_bindex_exists(store *s, dt_err *e);

#endif
