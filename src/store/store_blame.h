/* store_blame.h: the blame data of a run (import/blame_data.h) in the store: written by the
 * import in its transaction, read whole by the blame stage. */
#ifndef DT_STORE_BLAME_H
#define DT_STORE_BLAME_H

#include <stdint.h>

#include "import/blame_data.h"
#include "store/store.h"

/* Writes d as the blame data of run_id (inside the caller's transaction). */
int store_blame_write(store *s, int64_t run_id, const dt_blame_data *d, dt_err *e);
/* Reads the blame data of run_id into d (zeroed first; empty when the run has none). */
int store_blame_read(store *s, int64_t run_id, dt_blame_data *d, dt_err *e);

#endif
