/* store_int.h: what the store's own files share; nothing outside store*.c includes it. */
#ifndef DT_STORE_INT_H
#define DT_STORE_INT_H

#include <sqlite3.h>

#include "store/store.h"

struct store {
	sqlite3 *db;
	char *path;
	char **fnames; /* fnames[id]; loaded on first use, extended by the writer */
	size_t nfnames;
	int fnames_loaded;
};

/* Fills e with the SQLite error of db and returns -1. */
int store_sqlerr(store *s, dt_err *e, const char *what);
int store_prepare(store *s, const char *sql, sqlite3_stmt **st, dt_err *e);
int store_exec(store *s, const char *sql, dt_err *e);
/* Creates or migrates the schema to the current version. */
int store_schema_migrate(store *s, dt_err *e);
/* Remembers a newly interned function so that store_func_name sees it. */
void store_fnames_add(store *s, uint32_t id, const char *name, size_t len);

/* Chunk blob of argument texts: records of (uvar event offset in chunk, byte kind, uvar len,
 * bytes). Parsed by store_read.c, written by store_write.c. */

#endif
