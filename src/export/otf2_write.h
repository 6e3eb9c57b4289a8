/* otf2_write.h: a run of the store as an OTF2 archive (difftrace export --format otf2).
 *
 * Each trace is a location (its process a location group, its host a system tree node); its
 * calls are regions entered and left; its sync events are written as the MPI and OpenMP
 * records other readers know (Vampir, otf2-print: MpiSend and MpiRecv with the same
 * communicator and tag match as messages, collectives, requests) and, for difftrace's own
 * import, as attributes that give back every field (import/otf2_names.h), so that the import
 * of the archive is the same run. difftrace-otf2(5) says what is kept and what is not. */
#ifndef DT_OTF2_WRITE_H
#define DT_OTF2_WRITE_H

#include "store/store.h"
#include "util/err.h"

/* Writes run r as DIR/NAME.otf2 (the anchor file) with DIR/NAME.def and DIR/NAME/; DIR is
 * made and must not hold an archive of that name. Counts of what was written in *nloc and
 * *nev (may be NULL). Fails saying difftrace was built without OTF2 when it was. */
int otf2_write_run(store *s, const store_run *r, const char *dir, const char *name,
		   size_t *nloc, uint64_t *nev, dt_err *e);

#endif
