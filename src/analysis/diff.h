/* diff.h: diffNLR, the difference of two compressed traces (METHOD.md §9, §10.7).
 *
 * Two arrays of NLR entries (trace x of the normal run = A, of the faulty run = B) are aligned
 * with Myers' O(ND) diff and its linear-space middle-snake recursion; two entries are equal when
 * they have the same sym and the same count. The edit script is then refined so that a loop
 * whose body matches but whose count differs is one changed entry ("L3^6" against "L3^4"), not
 * a deletion plus an insertion. The script renders as GNU `diff -y` style columns, as a unified
 * diff, or as the prototype's Graphviz picture (a stem of common blocks, A and B blocks side by
 * side at each divergence). Rendering writes to a FILE* the caller gives; nothing else does I/O.
 *
 * The count-change rule: take each replaced region (the entries between two common runs: some
 * only in A, some only in B). Its changed pairs are a longest common subsequence of the region's
 * A side and B side under "both are loops with the same loop id", found with the same Myers
 * diff, so they are paired in order and as many as possible; what is left stays only-in-A /
 * only-in-B. Inside a region, each gap between changed pairs is written A's entries first. */
#ifndef DT_DIFF_H
#define DT_DIFF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/err.h"
#include "analysis/nlr_entry.h"

enum diff_kind {
	DIFF_SAME,   /* a[a+i] == b[b+i] for i < n */
	DIFF_ONLY_A, /* a[a..a+n) is only in A; b is where it would be in B */
	DIFF_ONLY_B, /* b[b..b+n) is only in B; a is where it would be in A */
	DIFF_COUNT,  /* a[a+i], b[b+i] are the same loop with different counts, for i < n */
};

/* A hunk of the edit script. Hunks cover A and B in order, without gaps or overlaps. */
typedef struct diff_hunk {
	int kind;     /* enum diff_kind */
	size_t a, b;  /* start in A and in B */
	size_t n;     /* entries (in A for ONLY_A, in B for ONLY_B, pairs otherwise) */
} diff_hunk;

typedef struct diff_script {
	diff_hunk *h;
	size_t n, cap;
	size_t na, nb; /* the lengths of A and B */
} diff_script;

/* Two traces that differ all along cost Myers O((na+nb)·D), seconds for D in the tens of
 * thousands. As git's Myers does, the search for each split stops after max_cost differences
 * and takes the furthest point reached: the script stays valid (it turns A into B) but may
 * then be longer than the shortest. Traces that differ in a few places (D below the budget)
 * always get the shortest script. */
#define DIFF_COST_MIN 256

typedef struct diff_opts {
	int minimal;     /* always the shortest script, whatever it costs (git diff --minimal) */
	size_t max_cost; /* the budget per split; 0: max(DIFF_COST_MIN, √(na+nb)) */
} diff_opts;

/* The edit script from A to B. o may be NULL (the defaults). Time O((na+nb)·D) for D
 * differences (minimal), at most about O((na+nb)·max_cost·log D) otherwise; memory O(na+nb).
 * Returns 0 (the signature leaves room for failures); free with diff_script_free. */
int diff_nlr(const nlr_entry *a, size_t na, const nlr_entry *b, size_t nb, const diff_opts *o,
	     diff_script *out, dt_err *e);
void diff_script_free(diff_script *s);

/* ---- rows: the side-by-side alignment, shared by the renderers and the interface ---------- */

enum diff_row_kind {
	DIFF_ROW_SAME,    /* ' ' the same entry on both sides */
	DIFF_ROW_COUNT,   /* '|' the same loop, another count */
	DIFF_ROW_REPLACE, /* '|' different entries, paired by position as diff -y does */
	DIFF_ROW_LEFT,    /* '<' only in A */
	DIFF_ROW_RIGHT,   /* '>' only in B */
};

/* One row. a is the entry's index in A when the row has an A side, else the number of A entries
 * before the row (where it would be); b likewise. */
typedef struct diff_row {
	int kind; /* enum diff_row_kind */
	size_t a, b;
} diff_row;

typedef struct diff_stats {
	size_t same, count, replace, left, right; /* rows of each kind */
} diff_stats;

/* Turns the script into rows: an ONLY_A hunk directly followed by an ONLY_B hunk pairs
 * position by position (REPLACE rows) and the longer one's rest is LEFT or RIGHT rows.
 * *rows is malloc'ed; st may be NULL. */
void diff_rows(const diff_script *s, diff_row **rows, size_t *n, diff_stats *st);
/* The gutter marker of a row kind: ' ', '|', '<' or '>'. */
char diff_row_marker(int kind);

/* ---- rendering ------------------------------------------------------------------------------ */

/* The name of a function id, or NULL when unknown (printed "?<id>"). */
typedef const char *(*diff_name_fn)(void *ctx, uint32_t fid);
/* The body of a loop (its entries, inner loops with their counts), 0; or nonzero if unknown. */
typedef int (*diff_body_fn)(void *ctx, uint32_t loop_id, const nlr_entry **body, size_t *n);

typedef struct diff_render_opts {
	const char *label_a, *label_b; /* the two traces, e.g. "normal 1.0", for the headers */
	diff_name_fn name;             /* NULL: every function prints as "?<id>" */
	diff_body_fn loop_body;        /* needed by expand */
	void *ctx;                     /* for name and loop_body */
	/* expand: under each loop line, its body once, indented two spaces per level, nested loops
	 * expanded the same way. Repeating the body count times would bury the one line that
	 * changed under thousands of identical ones; the loop line already says how many times.
	 * Body lines are display lines only: they are not counted in unified hunk headers or in
	 * the fold's "N identical entries". */
	int expand;
	int width;   /* side-by-side: total line width, >= 20 (default 130, as diff -y) */
	int fold;    /* side-by-side and DOT: fold common runs, keeping context entries next to
			each change, into "... N identical entries ..." (side by side: one line
			centred across both columns) */
	int changes; /* side by side: only the rows around changes, `context` rows of common
			entries on each side, each hunk under an "@@ -a,b +c,d @@" line giving its
			entry positions as unified does (diff -y --suppress-common-lines with
			context); 0: every row */
	int context; /* entries of context around changes: unified hunks, changes, fold (default 3) */
	const char *cut; /* side by side: the mark of a cut line, one column ("~"; "…" in a UTF-8 locale) */
	int color;   /* side by side and unified: ANSI colours as git diff's */
	/* side by side: the header's word for two traces without a change (NULL: "identical"),
	 * when more is known of them (what rank found of a trace whose calls are alike) */
	const char *same;
} diff_render_opts;

/* width 130, context 3, no labels ("A", "B"), no names, no expansion, no folding, every row. */
void diff_render_opts_init(diff_render_opts *o);

/* GNU diff -y style: a header line naming the traces over their columns and counting the
 * changes, then one row per line, two columns separated by a gutter " X " (X = ' ', '|', '<',
 * '>'), left column (width - 3) / 2, no trailing blanks. A line too long for its column ends
 * in the cut mark (o->cut, default "~"); a changed pair that does not fit shows its differing
 * part (diff_elide) with the cut mark where the common part was left out. With o->color, the
 * lines are coloured as git diff colours them (red left, green right, the differing words of a
 * changed pair in reverse video). Loops print as L<id>^<count>. With o->changes, only the
 * hunks around the changes, as the unified form chooses them, each under its @@ line; two
 * traces that are the same print the header line alone. */
int diff_render_side(FILE *f, const nlr_entry *a, const nlr_entry *b, const diff_script *s,
		     const diff_render_opts *o, dt_err *e);
/* Unified: "--- A", "+++ B", then "@@ -a,b +c,d @@" hunks (1-based entry positions; a count of
 * 0 has the position before, as GNU diff) with context lines, ' ', '-', '+' prefixes, a changed
 * region's A side before its B side. Nothing at all when A and B are the same, as diff. */
int diff_render_unified(FILE *f, const nlr_entry *a, const nlr_entry *b, const diff_script *s,
			const diff_render_opts *o, dt_err *e);
/* Graphviz: Start, a stem of common blocks (green), at each divergence an A block (blue, bold)
 * and a B block (red, dashed) on the same rank, End. Record nodes, one line per entry. A side
 * with nothing at a divergence is an edge in its style straight past it. */
int diff_render_dot(FILE *f, const nlr_entry *a, const nlr_entry *b, const diff_script *s,
		    const diff_render_opts *o, dt_err *e);

/* ---- a loop against a different loop --------------------------------------------------------- */

/* Where two loops that NLR folded differently (L0^8 against L12^5) part: both unrolled into the
 * calls they make, compared call by call. */
typedef struct diff_part {
	int same;              /* the same calls in the same order: folded differently, no more */
	size_t agree;          /* calls made alike before they part */
	size_t iter_a, iter_b; /* the iteration of each loop where they part, from 1 */
	size_t call_a, call_b; /* the call within that iteration, from 1 */
	int end_a, end_b;      /* the loop has ended there (the other goes on) */
} diff_part;

/* Calls of either loop unrolled beyond this are not compared (-1). */
#define DIFF_PART_MAX ((size_t)1 << 20)

/* Compares loops a and b through body; 0 and *p, or -1 when a body is unknown, the nesting is
 * too deep or a loop makes more than DIFF_PART_MAX calls. */
int diff_loop_part(diff_body_fn body, void *ctx, nlr_entry a, nlr_entry b, diff_part *p);
/* The sentence for p: "L0^8 and L12^5 make the same calls for 3 iterations of L0 (2 of L12),
 * then part in iteration 4 of L0 (3 of L12), call 2". */
void diff_part_text(const diff_part *p, nlr_entry a, nlr_entry b, char *buf, size_t n);

/* ---- the differing part of a changed pair (word diff) -------------------------------------- */

/* Marks the bytes of a and b outside a longest common subsequence of their words, as
 * git diff --word-diff does: a word is a run of letters, digits and "_.:@", every other byte is
 * a word of its own, so "MPI_Allreduce[count=1,op=SUM]" against "...op=MAX]" marks SUM and MAX
 * only. ma[i] (mb[i]) is set to 1 for a differing byte of a (b), 0 otherwise; the arrays have
 * strlen(a) and strlen(b) bytes. Lines of more than DIFF_WORDS_MAX words each fall back to the
 * common prefix and suffix (the middle is marked). Returns the offset in a of its first marked
 * byte (strlen(a) when none). */
#define DIFF_WORDS_MAX 256
size_t diff_words(const char *a, const char *b, unsigned char *ma, unsigned char *mb);

/* How to show s in w columns so that its byte `first` (the first that differs from the other
 * side) is visible: s[0..*head) then a cut mark then s[*tail..]. The head keeps the function
 * name up to its first '[' or '(' when that leaves room; the tail starts at a word boundary a
 * few columns before `first`. Returns 0 when nothing needs eliding (s fits, or `first` is
 * within the first w - 1 columns), 1 when *head and *tail are set. Columns are UTF-8
 * characters. */
int diff_elide(const char *s, size_t first, size_t w, size_t *head, size_t *tail);

#endif
