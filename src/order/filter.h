/* filter.h: the causality filter (Kraemer, "Causality filters"): sync events arrive merged from
 * many threads, in any order that keeps each thread's own order; an event whose rules
 * (rules.h) are not yet satisfied waits in its thread's hold queue; the heads of the queues are
 * checked in rounds and released in an order that agrees with the rules, under one of three
 * policies. Memory is bounded by the disorder of the input (the held events), plus an entry
 * per key the rules number (peer, tag, lock, collective instance) used in the last 65,536
 * deliveries, and about 20 bytes per older key (put aside, its numbers kept exactly).
 *
 * No I/O: events in (one at a time or an array), ordered events out through a callback. */
#ifndef DT_ORDER_FILTER_H
#define DT_ORDER_FILTER_H

#include <stddef.h>
#include <stdint.h>

#include "import/sync_event.h"
#include "order/rules.h"
#include "util/err.h"

/* One released event. */
typedef struct ord_out {
	const dt_sync_event *ev; /* the event as pushed (valid during the callback only) */
	uint64_t id;             /* the caller's id given to ord_filter_push */
	uint64_t index;          /* position in the output, from 0 */
	uint64_t step;           /* ORD_CONCURRENT: its step, events of one step are concurrent;
				  * otherwise the index */
	int64_t ts;              /* ORD_TIMESTAMP: the adjusted timestamp; otherwise ev->ts plus
				  * its host's offset */
	int64_t adj;             /* ts - (ev->ts + host offset): how far the policy moved it */
} ord_out;

typedef void (*ord_emit_fn)(void *ctx, const ord_out *o);

typedef struct ord_filter_opts {
	int policy;               /* enum ord_policy */
	const int64_t *host_off;  /* ns added to the timestamps of host h (clock alignment), or NULL */
	size_t nhost;
	size_t max_held;          /* held events beyond which the rules are reported as never
				   * releasing (ord_filter_push fails); 0 for 1<<20 */
	uint64_t retire_after;    /* deliveries after which an idle numbered key is put aside
				   * (filter.c, sweep); 0 for ORD_RETIRE_AFTER, UINT64_MAX never */
} ord_filter_opts;

#define ORD_RETIRE_AFTER ((uint64_t)1 << 14)

typedef struct ord_filter ord_filter;

/* r must be bound (ord_rules_bind) and outlive the filter. */
ord_filter *ord_filter_new(const ord_rules *r, const ord_filter_opts *o, ord_emit_fn emit,
			   void *ctx);
void ord_filter_free(ord_filter *f);
/* ORD_CONCURRENT: every round made at ord_filter_drain, over the whole input (a post-mortem
 * levelling, the most concurrency; not the paper's online rounds). Before the first push. */
void ord_filter_set_whole(ord_filter *f);
/* Adds one event (copied). ORD_MINIMAL and ORD_TIMESTAMP release what became valid before
 * returning; ORD_CONCURRENT releases the rounds whose heads are decided (every thread's queue
 * has a head: a thread without one could still send an event valid in the round; the threads a
 * `fork` announced count as queues without a head until they start), the rest on
 * ord_filter_drain (all of them there after ord_filter_set_whole). Fails (DT_EDATA, a one-line message
 * naming the first held thread's event and rule) when more than max_held events are held:
 * ord_filter_explain then says which and why for every held thread. */
int ord_filter_push(ord_filter *f, const dt_sync_event *e, uint64_t id, dt_err *err);
/* Releases everything that can be released now (for ORD_CONCURRENT, in rounds: the heads
 * valid in one round form one step). Returns the number of events still held. */
size_t ord_filter_drain(ord_filter *f);
size_t ord_filter_held(const ord_filter *f);
/* Events not delivered because their thread was off (the rules' `start` and `end`). */
uint64_t ord_filter_ignored(const ord_filter *f);
/* Peak number of held events, and of queues, since the start. */
size_t ord_filter_peak_held(const ord_filter *f);
/* Bytes the filter's tables use now (queues, facts, links), for the benchmarks. */
size_t ord_filter_bytes(const ord_filter *f);

/* One line per held queue head: the event, the rule that holds it, and what it waits for
 * ("needs SEND(0, 1, 2, 5, 3): highest delivered 2"). At most max_lines lines, then a count of
 * the rest. malloc'ed. */
char *ord_filter_explain(ord_filter *f, size_t max_lines);

/* One held queue, for reports that print them their own way (the hang report). */
typedef struct ord_held {
	dt_sync_event ev; /* the head of the queue: the event that cannot go out */
	uint64_t id;      /* the caller's id given to ord_filter_push */
	size_t nheld;     /* events held in that queue, the head included */
	char rule[160];   /* the first rule that holds it back, "file:line", or "" when it is
			   * valid and only waits for its round */
	char *why;        /* what the rule waits for, in words (malloc'ed) */
} ord_held;

/* Every held queue, in the order the queues were made (the first thread to arrive first).
 * Free with ord_held_free. */
void ord_filter_held_list(ord_filter *f, ord_held **out, size_t *n);
void ord_held_free(ord_held *h, size_t n);

/* ---- on arrays -------------------------------------------------------------------------------- */

typedef struct ord_item {
	uint64_t id;    /* index of the event in the input array */
	uint64_t step;
	int64_t ts, adj;
} ord_item;

/* Orders n events (given in arrival order: any order that keeps each thread's order) through a
 * filter; *out gets the released events in order (*nout of them, malloc'ed). Events that can
 * never be released stay out; then *held (if not NULL) gets ord_filter_explain's report
 * (malloc'ed, NULL when every event was released). Fails only on the max_held limit. */
int ord_order(const ord_rules *r, const ord_filter_opts *o, const dt_sync_event *ev, size_t n,
	      ord_item **out, size_t *nout, char **held, dt_err *err);
/* ord_order, and *ignored the events not delivered because their thread was off. */
int ord_order_ignoring(const ord_rules *r, const ord_filter_opts *o, const dt_sync_event *ev,
		       size_t n, ord_item **out, size_t *nout, char **held, uint64_t *ignored,
		       dt_err *err);
/* ord_order with ORD_CONCURRENT's rounds over the whole input (ord_filter_set_whole). */
int ord_order_levelled(const ord_rules *r, const ord_filter_opts *o, const dt_sync_event *ev,
		       size_t n, ord_item **out, size_t *nout, char **held, dt_err *err);
/* The same, with the held queues at the end of the input as a list (ord_filter_held_list)
 * instead of a text; *held NULL and *nheld 0 when everything was released. */
int ord_order_held(const ord_rules *r, const ord_filter_opts *o, const dt_sync_event *ev,
		   size_t n, ord_item **out, size_t *nout, ord_held **held, size_t *nheld,
		   dt_err *err);

#endif
