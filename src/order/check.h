/* check.h: verifies a given order of sync events against a rule set, independently of the
 * causality filter: it numbers the instances along the order, indexes every instance by key
 * and position (sorted arrays, binary search), and re-evaluates every rule of every event
 * against "what came before it" (the positions before it, or, for adjusted timestamps, the
 * events with smaller adjusted timestamps). The tests judge every policy with it. */
#ifndef DT_ORDER_CHECK_H
#define DT_ORDER_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "import/sync_event.h"
#include "order/rules.h"
#include "util/err.h"

/* ev[0..n) are the events in their input order (each thread's events in program order);
 * order[0..norder) the indices of the delivered events, in delivery order. norder < n is
 * allowed (events held back): every thread's delivered events must then be the first of its
 * events, less those the rules' `start` and `end` ignore (walked here on the input, apart from
 * the filter), which must not be delivered. ts, when not NULL, gives adjusted timestamps by event index: they must not decrease
 * along a thread, and every rule must also hold with "before" meaning "smaller adjusted
 * timestamp" (negations are judged on the order only). Returns 0 when the order is valid, else
 * -1 with the first violation in e (DT_EDATA). r must be bound. */
int ord_check(const ord_rules *r, const dt_sync_event *ev, size_t n, const uint64_t *order,
	      size_t norder, const int64_t *ts, dt_err *e);

#endif
