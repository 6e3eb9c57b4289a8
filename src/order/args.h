/* args.h: the arguments of a sync event for people, as "name=value" words, shared by
 * `difftrace sync`, `difftrace hang` and the interface's timeline. */
#ifndef DT_ORDER_ARGS_H
#define DT_ORDER_ARGS_H

#include <stddef.h>
#include <stdint.h>

#include "import/sync_event.h"

/* " comm=0 dest=1 tag=5 count=4 type=int" (each word after a space; "" when none). */
void ord_event_args(const dt_sync_event *v, char *b, size_t n);

/* A peer rank for people: "any" (MPI_ANY_SOURCE), "null" (MPI_PROC_NULL) or the number. */
void ord_peer_str(char *b, size_t n, int32_t v);
/* Appends printf-formatted text at b + *len (b holds n bytes, n > *len), advancing *len; text
 * that does not fit is cut, and b stays NUL-terminated. */
void ord_addf(char *b, size_t n, size_t *len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
