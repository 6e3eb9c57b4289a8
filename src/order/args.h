/* args.h: the arguments of a sync event for people, as "name=value" words, shared by
 * `difftrace sync`, `difftrace hang` and the interface's timeline. */
#ifndef DT_ORDER_ARGS_H
#define DT_ORDER_ARGS_H

#include <stddef.h>

#include "import/sync_event.h"

/* " comm=0 dest=1 tag=5 count=4 type=int" (each word after a space; "" when none). */
void ord_event_args(const dt_sync_event *v, char *b, size_t n);

#endif
