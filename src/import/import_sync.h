/* import_sync.h: the sync record of a run (difftrace-sync(5)), found beside a uftrace
 * recording or alone (difftrace-record --sync-only).
 *
 * A sync directory holds one <pid>.<tid>.dts file per thread. The uftrace importer attaches a
 * file's events to the trace of the same pid and tid (sync_dir_push), then makes traces of the
 * files no uftrace thread claimed (sync_dir_rest). A trace made from a sync file alone gets
 * the calls as its events too (entry a call, exit a return), so a run recorded with
 * --sync-only can be analysed like any other. */
#ifndef DT_IMPORT_SYNC_H
#define DT_IMPORT_SYNC_H

#include "import/import.h"
#include "util/util.h"

typedef struct sync_dir sync_dir;

/* Lists DIR's .dts files; *out is NULL (and 0 returned) when DIR does not exist. */
int sync_dir_open(const char *dir, sync_dir **out, dt_err *e);
void sync_dir_free(sync_dir *d);
/* The sync directory of a recording directory: DIR/sync, or DIR itself when it holds .dts
 * files; a new string, or NULL. */
char *sync_dir_find(const char *dir);
/* Pushes the events of the file of (pid, tid), if any, into the current trace of s; adds to
 * *flags and to note (a "; "-separated text, not NUL-terminated) what was wrong with it. */
int sync_dir_push(sync_dir *d, int64_t pid, int64_t tid, dt_sink *s, unsigned *flags,
		  dt_buf *note, dt_err *e);
/* Makes a trace of every file not pushed yet; rank is the directory's (-1 unknown). Adds the
 * number of traces made to *made. */
int sync_dir_rest(sync_dir *d, int64_t rank, const char *why, dt_sink *s, size_t *made,
		  dt_err *e);

#endif
