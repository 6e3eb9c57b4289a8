/* ptrange.h: compact text for sets of traces P.T (process P, thread T), as STAT prints ranks.
 *
 * A list of numbers is written as ascending ranges joined by commas, a run of two or more
 * consecutive numbers as `a-b`: {0,1,2,3,5} is `0-3,5`.
 *
 * A set of P.T pairs is written in one of two forms:
 *
 *   uniform   `P <list> T <list>` when every process of the set has the same set of threads:
 *             `P 0-3,5 T 0` is threads 0 of processes 0, 1, 2, 3 and 5; `P 2 T 0-7`.
 *   grouped   otherwise, groups `<pset>.<tset>` joined by ", ": processes with the same thread
 *             set form one group, groups in order of their first process. A set that is one range
 *             is written bare (`4`, `0-2`); a set of several ranges is put in brackets, so that
 *             commas inside a set never read as group separators:
 *             `0.0-2, 3.1, 5.0-1`, `[0-1,4].[0,2], 2.0`.
 *
 * The empty set is the empty string. Duplicates in the input are ignored. ptr_parse reads both
 * forms back (spaces optional after commas and around the P, T and `.`), so a printed set can be
 * given on a command line. */
#ifndef DT_PTRANGE_H
#define DT_PTRANGE_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

typedef struct ptr_pt {
	uint32_t p, t;
} ptr_pt;

/* The compact form of a set of pairs (any order), as a new string (free() it). */
char *ptr_format(const ptr_pt *pts, size_t n);

/* The list form `0-3,5` of a set of numbers (any order), as a new string (free() it). */
char *ptr_format_list(const uint32_t *v, size_t n);

/* Reads either form into a new array of pairs sorted by (P, T), without duplicates. A malformed
 * string is a DT_EUSAGE error giving the column. */
int ptr_parse(const char *s, ptr_pt **pts, size_t *n, dt_err *e);

#endif
