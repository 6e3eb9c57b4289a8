/* nlr_entry.h: the element of a compressed trace, shared by NLR, attributes and diffNLR.
 *
 * A compressed trace is an array of entries. An entry is a function (sym = function id, count 1)
 * or a loop (sym = NLR_LOOP | loop id, count = iterations). A loop id names a loop *body*,
 * itself an array of entries (nested loops keep their inner counts), interned in a loop table
 * so that the same body has the same id in every trace and every run of a store. */
#ifndef DT_NLR_ENTRY_H
#define DT_NLR_ENTRY_H

#include <stdint.h>

#define NLR_LOOP 0x80000000u

typedef struct nlr_entry {
	uint32_t sym;   /* function id (< 2^31), or NLR_LOOP | loop id */
	uint32_t count; /* 1 for a function; the number of iterations for a loop */
} nlr_entry;

static inline int nlr_is_loop(nlr_entry e)
{
	return (e.sym & NLR_LOOP) != 0;
}

static inline uint32_t nlr_loop_id(nlr_entry e)
{
	return e.sym & ~NLR_LOOP;
}

static inline int nlr_entry_eq(nlr_entry a, nlr_entry b)
{
	return a.sym == b.sym && a.count == b.count;
}

#endif
