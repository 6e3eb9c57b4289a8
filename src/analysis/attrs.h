/* attrs.h: the attributes of compressed traces (METHOD.md §4), interned per analysis.
 *
 * An attribute mode is a kind, a frequency and, for doub, a pairing:
 *   sing     one attribute per distinct top-level token of the NLR trace: a function, or a loop
 *            `L<id>` with its iteration count dropped. The token's frequency is its number of
 *            plain occurrences plus, for a loop, the sum of the iteration counts of all its
 *            top-level occurrences. Functions inside loop bodies are not seen separately.
 *   doub     one attribute per distinct pair of consecutive top-level tokens, loops keeping their
 *            count (`L0^16 MPI_Send` and `L0^7 MPI_Send` differ). The frequency of a pair is the
 *            number of times it occurs.
 *     .w     pairs with overlap: (t0 t1), (t1 t2), ... (a sliding window, step 1).
 *     .wo    pairs without overlap: (t0 t1), (t2 t3), ... (step 2). When the trace has an odd
 *            number of tokens the last one is simply not paired (the prototype read past the end
 *            of the trace there). A trace of fewer than two tokens has no doub attribute.
 *   orig     the attribute is the token or pair alone: presence/absence (the paper's noFreq).
 *   log2     the attribute is `key:⌊log2 f⌋`, log10 `key:⌊log10 f⌋`, actual `key:f`. Different
 *            values are different attributes: that is how frequency changes similarity.
 *
 * Mode names: `sing.<freq>` and `doub.<freq>.<w|wo>`, freq one of orig, log2, log10, actual.
 * attrs_mode_parse also accepts `noFreq` for orig, a missing freq (orig), a missing pairing for
 * doub (w), and a pairing after sing (ignored: the prototype names every lattice with one).
 * For an analysis any of them may end with `.args` (or `+args`, canonical `.args`): then a call
 * of an MPI function (a name starting MPI_ or PMPI_) that carries recorded argument text counts
 * as the function `NAME[args]` (`MPI_Allreduce[count=1,datatype=INT,op=MIN,comm=WORLD]`),
 * interned in the store by the analysis (analysis.c), so that a changed argument is a changed
 * function everywhere. The flag is the analysis's, not the mode's (an_params.args): only
 * attrs_mode_parse_args and attrs_mode_name_args know the suffix.
 *
 * Attributes are keys of a few integers (attrs_key), never strings, until they are rendered for
 * display. An attrs_set interns the keys of one analysis: attribute ids 0..m-1 are given in order
 * of first appearance, object by object and, within an object, in order of first appearance in
 * the trace. (The prototype orders an object's new attributes by their strings; ids only name
 * attributes, they change neither the similarity nor the lattice.)
 *
 * attrs_extract is pure and may run on many traces at once; attrs_add_keys then interns the
 * results in object order on one thread. */
#ifndef DT_ATTRS_H
#define DT_ATTRS_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/context.h"
#include "util/err.h"
#include "analysis/nlr_entry.h"

enum attrs_kind { ATTRS_SING = 1, ATTRS_DOUB = 2 };
/* The values are the prototype's -q numbers. */
enum attrs_freq { ATTRS_ORIG = 0, ATTRS_LOG2 = 1, ATTRS_LOG10 = 2, ATTRS_ACTUAL = 3 };
/* The values are the prototype's -n numbers. */
enum attrs_pairs { ATTRS_W = 0, ATTRS_WO = 1 };

typedef struct attrs_mode {
	enum attrs_kind kind;
	enum attrs_freq freq;
	enum attrs_pairs pairs; /* doub only; ATTRS_W for sing */
} attrs_mode;

/* Room for any canonical mode name. */
#define ATTRS_MODE_NAME_MAX 24

/* Parses a mode name (see above); a wrong name is a DT_EUSAGE error naming it. */
int attrs_mode_parse(const char *s, attrs_mode *m, dt_err *e);
/* The canonical name (`sing.log10`, `doub.orig.w`) into buf; returns buf. */
const char *attrs_mode_name(attrs_mode m, char *buf, size_t size);
/* The same with the `.args` suffix: *args set to whether the name has it. */
int attrs_mode_parse_args(const char *s, attrs_mode *m, int *args, dt_err *e);
const char *attrs_mode_name_args(attrs_mode m, int args, char *buf, size_t size);

#define ATTRS_NONE 0xffffffffu

/* One attribute. A token is an nlr_entry sym (a function id, or NLR_LOOP | loop id). */
typedef struct attrs_key {
	uint32_t a;      /* the token (sing) or the first token of the pair (doub) */
	uint32_t acount; /* doub: the loop count of a, or 0 when a is a function; sing: 0 */
	uint32_t b;      /* doub: the second token; sing: ATTRS_NONE */
	uint32_t bcount; /* doub: the loop count of b, or 0; sing: 0 */
	uint64_t f;      /* the frequency value (⌊log2 f⌋, ⌊log10 f⌋ or f); 0 for orig */
} attrs_key;

static inline int attrs_key_eq(const attrs_key *x, const attrs_key *y)
{
	return x->a == y->a && x->acount == y->acount && x->b == y->b &&
	       x->bcount == y->bcount && x->f == y->f;
}

/* The distinct attributes of one compressed trace, in order of first appearance, into a new
 * array *keys (free() it); returns how many. Thread-safe: touches nothing shared. */
size_t attrs_extract(attrs_mode mode, const nlr_entry *ent, size_t n, attrs_key **keys);

typedef struct attrs_set attrs_set;

attrs_set *attrs_new(attrs_mode mode);
void attrs_free(attrs_set *s);
attrs_mode attrs_set_mode(const attrs_set *s);

/* Adds the next object (trace): extracts and interns its attributes. Returns its index. */
size_t attrs_add(attrs_set *s, const nlr_entry *ent, size_t n);
/* The same from keys attrs_extract gave (distinct keys, in the trace's order). */
size_t attrs_add_keys(attrs_set *s, const attrs_key *keys, size_t nkeys);

size_t attrs_nobjects(const attrs_set *s);
size_t attrs_nattrs(const attrs_set *s);
/* The key of attribute id (< attrs_nattrs). */
const attrs_key *attrs_key_of(const attrs_set *s, uint32_t id);
/* The attribute id of a key, or ATTRS_NONE when no object has it. */
uint32_t attrs_find(const attrs_set *s, const attrs_key *k);
/* The attribute ids of object obj, ascending; *len set to their number. */
const uint32_t *attrs_object(const attrs_set *s, size_t obj, size_t *len);
/* The formal context: one row per object, attrs_nattrs columns. Free with ctx_free. */
void attrs_context(const attrs_set *s, ctx_bits *c);

/* A function's name for display, or NULL (then `f<id>` is shown). */
typedef const char *(*attrs_namefn)(void *ud, uint32_t fid);

/* Renders an attribute for display: function names through name, loops as `L<id>` (sing) or
 * `L<id>^<count>` (doub), the two tokens of a pair joined by one space, then `:<f>` unless the
 * mode is orig. snprintf semantics: writes at most size bytes including the NUL and returns the
 * length the whole string has. */
size_t attrs_render(attrs_mode mode, const attrs_key *k, attrs_namefn name, void *ud, char *buf,
		    size_t size);

#endif
