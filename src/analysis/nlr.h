/* nlr.h: lossless nested loop recognition (Ketterlin & Clauss; METHOD.md §5, §10.3-10.4).
 *
 * A trace (an array of events, each a function id; 0 is just another symbol) becomes a shorter
 * array of nlr_entry: functions, and loops `L<id>^<count>` whose bodies live in a loop table.
 *
 * The algorithm keeps a stack of entries. After each push it applies, at the top, the rule
 * that spans the fewest entries (the triplet rule first when both span as many; in fact at
 * most one ever applies at a time), and starts again until none applies:
 *   - triplet: the top 3b entries (1 <= b <= K) are three equal blocks of b entries: they
 *     become one loop, body = the block, count 3;
 *   - extension: the entry b+1 from the top (1 <= b <= K) is a loop of body length b and the
 *     b entries above it equal its body: they are popped and the loop's count grows by one.
 * Entries are equal when sym and count are equal, so `(f g^5)^6` extends one iteration at a
 * time and stays `^6`; two copies of a body are not folded. Every rule keeps the expansion,
 * so expanding the output gives the input back exactly. K bounds both rules (the prototype's
 * loop bound 3K-1 stops triplets at b = K-1; here K is the longest body, as documented).
 *
 * Loop identity is structural: a body (its entries, nested loops with their counts) gets the
 * same id in every trace compressed with the same table. A body only refers to smaller ids.
 *
 * Threads. A table is not locked: one writer, or any number of readers. To compress several
 * traces at once, give each its own table and merge the tables into the shared one afterwards,
 * in trace order, with nlr_table_merge, then nlr_remap the entries. We chose this over a mutex
 * on a shared table because the ids then do not depend on thread timing: the same traces get
 * the same ids on 1 or 16 threads, so cached analyses, golden outputs and diffs are
 * reproducible, and the compressor's hot path never takes a lock. Merging costs one hash
 * lookup per distinct body, which is tiny next to the events.
 *
 * Streaming. The compressor takes events in blocks of any size and hands over the entries that
 * are finished. Being more than 3K entries deep does not make an entry final: a completed
 * inner loop can collapse a whole nest of open loops in one cascade, and each open level may
 * hold up to 3K-1 entries (with K = 2, p (q (x y)^3)^3 repeated three times folds 15 entries
 * at its last event). A cascade climbs one nesting level per step and a nest D levels deep
 * takes at least 3^D events, so the compressor keeps a window of NLR_WINDOW(K) = 64 levels of
 * 3K entries: whenever the stack reaches twice the window, all but the top window entries
 * are emitted, and the rest of the trace is compressed as if the stack started there. Memory
 * is bounded, the output is lossless in any case and identical to the unbounded algorithm's
 * unless a rule would have needed an entry below the window, and it does not depend on how
 * the events were split into blocks. */
#ifndef DT_NLR_H
#define DT_NLR_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/err.h"
#include "analysis/nlr_entry.h"

#define NLR_K_DEFAULT 10u
#define NLR_KMAX 32u
#define NLR_WINDOW(k) (192u * (k))

/* ---- the loop table ---- */

typedef struct nlr_table nlr_table;

nlr_table *nlr_table_new(void);
void nlr_table_free(nlr_table *t);
/* Ids in the table are 0 .. nlr_table_count(t) - 1. */
uint32_t nlr_table_count(const nlr_table *t);
/* The body of loop id (id < count); *len gets its length. Valid until the table grows. */
const nlr_entry *nlr_table_body(const nlr_table *t, uint32_t id, size_t *len);
/* Whether a and b hold the same bodies under the same ids (for the tests and benchmarks that
 * check two ways of compressing agree). */
int nlr_table_equal(const nlr_table *a, const nlr_table *b);
/* The id of body, interning it if new. A body is 1+ entries: functions with count 1, loops
 * with count >= 1 and an id already in the table; anything else is a DT_EDATA error. */
int nlr_table_intern(nlr_table *t, const nlr_entry *body, size_t len, uint32_t *id, dt_err *e);
/* Calls fn for every body from id `since` on, in id order (what to persist after a trace);
 * stops at and returns the first nonzero result of fn. Fits store_loop_put. */
int nlr_table_each(const nlr_table *t, uint32_t since,
		   int (*fn)(void *ctx, uint32_t id, const nlr_entry *body, size_t len), void *ctx);
/* Re-loads a persisted body: it must come out as exactly `id` (so load in id order, from 0 or
 * from nlr_table_count). Fits store_loops_each. */
int nlr_table_load(nlr_table *t, uint32_t id, const nlr_entry *body, size_t len, dt_err *e);
/* Interns every body of src into dst, in src id order; map[i] (for i < nlr_table_count(src))
 * gets the dst id of src body i. Ids new to dst are numbered in src order. */
int nlr_table_merge(nlr_table *dst, const nlr_table *src, uint32_t *map, dt_err *e);
/* Rewrites the loop ids of v[0..n) through map (from nlr_table_merge). */
void nlr_remap(nlr_entry *v, size_t n, const uint32_t *map);

/* ---- compression ---- */

typedef struct nlr_opts {
	unsigned k;         /* longest loop body, 1..NLR_KMAX; 0 means NLR_K_DEFAULT */
	uint32_t window;    /* entries kept below the top; 0 means NLR_WINDOW(k) */
	uint32_t count_max; /* loops stop extending at this count (>= 3); 0 means UINT32_MAX */
} nlr_opts;

typedef struct nlr_comp nlr_comp;

/* A compressor interning into t (which must outlive it); o may be NULL for the defaults. */
nlr_comp *nlr_comp_new(nlr_table *t, const nlr_opts *o, dt_err *e);
void nlr_comp_free(nlr_comp *c);
/* Makes c as new, interning into t, with its options kept (one compressor for many traces:
 * a new one clears and faults in about 1 MB at K = 32; a reset clears what the last trace
 * used). */
void nlr_comp_reset(nlr_comp *c, nlr_table *t);
/* Pushes n events. An event >= 2^31 is a DT_EDATA error (the events before it are kept). */
int nlr_comp_push(nlr_comp *c, const uint32_t *ev, size_t n, dt_err *e);
/* Ends the trace: every entry left on the stack becomes output. */
void nlr_comp_finish(nlr_comp *c);
/* Hands over the entries finished since the last take, in trace order; they stay valid until
 * the next call on c. Take after every push to keep memory bounded. */
const nlr_entry *nlr_comp_take(nlr_comp *c, size_t *n);
/* Events pushed so far. */
uint64_t nlr_comp_events(const nlr_comp *c);

/* One-shot: compresses ev[0..n) into a new array *out (free() it) of *nout entries. */
int nlr_compress(nlr_table *t, const nlr_opts *o, const uint32_t *ev, size_t n, nlr_entry **out,
		 size_t *nout, dt_err *e);

/* When K folds nothing in a trace: the smallest K' in (k, kmax] under which NLR finds a loop in
 * v[0..n) (the entries at k, expanded through t first), and in *body the length of that loop's
 * body; 0 when no K' up to kmax folds anything, or when v already has a loop. Each K' tried costs
 * one compression (O(events·K')), so traces of more than max_events events are not tried
 * (0). */
unsigned nlr_suggest_k(const nlr_table *t, const nlr_entry *v, size_t n, unsigned k, unsigned kmax,
		       size_t max_events, size_t *body, dt_err *e);

/* ---- expansion ---- */

/* The number of events v[0..n) stands for. */
int nlr_expanded_len(const nlr_table *t, const nlr_entry *v, size_t n, uint64_t *len, dt_err *e);
/* Unfolds v[0..n) into a new array *ev (free() it) of *nev events. */
int nlr_expand(const nlr_table *t, const nlr_entry *v, size_t n, uint32_t **ev, size_t *nev,
	       dt_err *e);

/* ---- rendering ---- */

/* The name of function fid; NULL prints `?<fid>`. */
typedef const char *(*nlr_name_fn)(void *ctx, uint32_t fid);

/* One entry as a token: `MPI_Recv`, `L3^6`. Returns the length it needs (as snprintf). */
int nlr_token(char *buf, size_t size, nlr_entry x, nlr_name_fn name, void *ctx);
/* One line per entry: a function is its name, a loop `(e1 - e2 - ...)^count` with each ei a
 * token. DT_EDATA on an unknown loop id or a write error. */
int nlr_render(FILE *f, const nlr_table *t, const nlr_entry *v, size_t n, nlr_name_fn name,
	       void *ctx, dt_err *e);
/* `L<id> = (e1 - e2 - ...)` for every loop v[0..n) uses, nested ones included, by id. */
int nlr_render_loops(FILE *f, const nlr_table *t, const nlr_entry *v, size_t n, nlr_name_fn name,
		     void *ctx, dt_err *e);

#endif
