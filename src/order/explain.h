/* explain.h: what each event of a given order waited for. The instances of the rule kinds are
 * numbered along the order (as the checker does), indexed, and the atoms of an event's rules are
 * evaluated on demand to the events they name: a receive's completion names the send it matches
 * (RECV <- SEND), a lock's acquisition the release before it, a collective's exit the entries it
 * counted. The interface's timeline shows it for the event under its cursor and draws the MPI
 * messages it finds (an atom naming an event of another process). No I/O. */
#ifndef DT_ORDER_EXPLAIN_H
#define DT_ORDER_EXPLAIN_H

#include <stddef.h>
#include <stdint.h>

#include "import/sync_event.h"
#include "order/rules.h"

typedef struct ord_explain ord_explain;

/* One atom of a rule of an event, evaluated. */
typedef struct ord_dep {
	int rule;                      /* index into ord_rules.rule */
	int kind;                      /* the kind the atom names */
	int64_t t[ORD_MAXKEY + 1];     /* its tuple (the key and n; for a count, `_` is -1) */
	int nt;
	unsigned given;                /* bit i: position i given (a count's `_` are not) */
	int count;                     /* 0: an atom; 1: a count (#KIND(...)) */
	size_t nmatch;                 /* a count: the matching instances delivered before */
	int64_t ev;                    /* the event that is the instance (a count: the latest of
					* them), -1 when none (an initial fact, or never delivered) */
} ord_dep;

/* ev[0..n): the events the order indexes; order[0..norder): the delivered ones, in order. r
 * must be bound and outlive the result. */
ord_explain *ord_explain_new(const ord_rules *r, const dt_sync_event *ev, size_t n,
			     const uint64_t *order, size_t norder);
void ord_explain_free(ord_explain *x);
/* The atoms event ev[i]'s rules needed (at most max into out; returns how many there are).
 * Atoms under a `||` whose other side holds on the event's own fields are left out. 0 for an
 * event not delivered or with no rule (program order only). */
size_t ord_explain_deps(const ord_explain *x, size_t i, ord_dep *out, size_t max);
/* The event of another process that ev[i] is matched with by a rule atom (a receive's send, and
 * the send's receive), -1 when none. Computed for all events on the first call. */
int64_t ord_explain_peer(ord_explain *x, size_t i);

#endif
