/* retired.h: the facts the causality filter put aside (filter.c): the numbers of a key that has
 * been idle for a while, kept in a few bytes so that the filter's table of live entries (128
 * bytes each) holds only the keys in use. A record whose messages each have their own tag
 * makes a key per message; put aside, each costs about 20 bytes instead of 140, and a key that
 * comes back gets its numbers back exactly.
 *
 * Keys are up to ORD_MAXKEY + 2 values (the kind's tag first); the numbers are the highest
 * instance delivered and the next to give. */
#ifndef DT_ORDER_RETIRED_H
#define DT_ORDER_RETIRED_H

#include <stddef.h>
#include <stdint.h>

typedef struct ord_retired ord_retired;

ord_retired *ord_retired_new(void);
void ord_retired_free(ord_retired *t);
/* Puts key k aside with its numbers; k must not be there already. Returns 0, or -1 when the
 * table is full (4 GB of records): the caller keeps the entry live. */
int ord_retired_put(ord_retired *t, const int64_t *k, int nk, int64_t hw, int64_t cnt);
/* Takes key k back: 1 with its numbers (and the key no longer put aside), 0 when absent. */
int ord_retired_take(ord_retired *t, const int64_t *k, int nk, int64_t *hw, int64_t *cnt);
size_t ord_retired_count(const ord_retired *t);
size_t ord_retired_bytes(const ord_retired *t);

#endif
