/* nlr_ref.h: the plain NLR, written the obvious way, as the yardstick for src/analysis/nlr.c.
 *
 * After each push it tries every span i = 2 .. 3K in order (METHOD.md §5, with K the longest
 * body for both rules): the triplet rule for b = i/3 by comparing the three blocks entry by
 * entry, then the extension rule for body length i-1 by comparing the entries above the loop
 * with its body, and starts again after any change: Θ(K²) comparisons per event. It honours
 * the same options as nlr_comp (window, count limit) so the two must agree entry for entry.
 * The benchmark times it; the tests compare against it. Header-only, static functions. */
#ifndef DT_BENCH_NLR_REF_H
#define DT_BENCH_NLR_REF_H

#include <stdlib.h>
#include <string.h>

#include "analysis/nlr.h"
#include "util/util.h"

typedef struct nlr_ref {
	nlr_table *t;
	size_t k, window;
	uint32_t cmax;
	nlr_entry *st;
	size_t h, cap;
	nlr_entry *out;
	size_t nout, capout;
} nlr_ref;

static inline void nlr_ref_init(nlr_ref *r, nlr_table *t, const nlr_opts *o)
{
	memset(r, 0, sizeof *r);
	r->t = t;
	r->k = o && o->k ? o->k : NLR_K_DEFAULT;
	r->window = o && o->window ? o->window : NLR_WINDOW(r->k);
	r->cmax = o && o->count_max ? o->count_max : UINT32_MAX;
}

static inline int nlr_ref_same(nlr_entry a, nlr_entry b)
{
	return a.sym == b.sym && a.count == b.count;
}

static inline void nlr_ref_push(nlr_ref *r, uint32_t ev)
{
	if (r->h >= 2 * r->window) {
		size_t cut = r->h - r->window;
		GROW(r->out, r->capout, r->nout + cut);
		memcpy(r->out + r->nout, r->st, cut * sizeof *r->st);
		r->nout += cut;
		memmove(r->st, r->st + cut, r->window * sizeof *r->st);
		r->h = r->window;
	}
	GROW(r->st, r->cap, r->h + 1);
	r->st[r->h++] = (nlr_entry){ ev, 1 };
restart:
	for (size_t i = 2; i <= 3 * r->k; i++) {
		nlr_entry *st = r->st;
		size_t h = r->h;
		if (i % 3 == 0 && i <= h) {
			size_t b = i / 3, s = h - i, j;
			for (j = 0; j < b; j++)
				if (!nlr_ref_same(st[s + j], st[s + b + j]) ||
				    !nlr_ref_same(st[s + j], st[s + 2 * b + j]))
					break;
			if (j == b) {
				uint32_t id;
				dt_err e;
				dt_err_clear(&e);
				if (nlr_table_intern(r->t, st + h - b, b, &id, &e))
					abort();
				st[s] = (nlr_entry){ NLR_LOOP | id, 3 };
				r->h = s + 1;
				goto restart;
			}
		}
		if (i > h)
			break;
		if (i - 1 <= r->k && nlr_is_loop(st[h - i]) && st[h - i].count < r->cmax) {
			size_t len, j;
			const nlr_entry *body = nlr_table_body(r->t, nlr_loop_id(st[h - i]), &len);
			if (len == i - 1) {
				for (j = 0; j < len; j++)
					if (!nlr_ref_same(body[j], st[h - i + 1 + j]))
						break;
				if (j == len) {
					st[h - i].count++;
					r->h = h - i + 1;
					goto restart;
				}
			}
		}
	}
}

/* Moves what is left on the stack to the output. */
static inline void nlr_ref_finish(nlr_ref *r)
{
	GROW(r->out, r->capout, r->nout + r->h + 1);
	memcpy(r->out + r->nout, r->st, r->h * sizeof *r->st);
	r->nout += r->h;
	r->h = 0;
}

static inline void nlr_ref_free(nlr_ref *r)
{
	free(r->st);
	free(r->out);
}

#endif
