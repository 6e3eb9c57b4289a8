/* verdict_own.c: the calls the filter drops, compared when the filter's comparison does not
 * single out a trace (see verdict_own.h). */
#include <stdlib.h>
#include <string.h>

#include "analysis/nlr.h"
#include "analysis/verdict_own.h"
#include "import/sink.h"
#include "util/util.h"

int vd_own_undecided(const vd_rank *v)
{
	if (v->ndiff < 2 || v->n < 2)
		return 0;
	return v->ndiff == v->n || v->it[1].pos == v->it[0].pos;
}

static int cmp_u32(const void *p, const void *q)
{
	uint32_t a = *(const uint32_t *)p, b = *(const uint32_t *)q;
	return a < b ? -1 : a > b;
}

/* The events of e that are calls (not returns) of a function not in kept (sorted, nk), in
 * place. */
static size_t own_calls(uint32_t *e, size_t n, const uint32_t *kept, size_t nk)
{
	size_t m = 0;
	for (size_t k = 0; k < n; k++)
		if (e[k] && !bsearch(&e[k], kept, nk, sizeof *kept, cmp_u32))
			e[m++] = e[k];
	return m;
}

void vd_own_compare(const uint32_t *fa, size_t nfa, const uint32_t *fb, size_t nfb,
		    const uint32_t *ea, size_t nea, const uint32_t *eb, size_t neb, int cut,
		    vd_item *it)
{
	size_t nk = nfa + nfb;
	uint32_t *kept = xmalloc((nk ? nk : 1) * sizeof *kept);
	if (nfa)
		memcpy(kept, fa, nfa * sizeof *kept);
	if (nfb)
		memcpy(kept + nfa, fb, nfb * sizeof *kept);
	qsort(kept, nk, sizeof *kept, cmp_u32);
	uint32_t *a = xmalloc((nea ? nea : 1) * sizeof *a);
	uint32_t *b = xmalloc((neb ? neb : 1) * sizeof *b);
	if (nea)
		memcpy(a, ea, nea * sizeof *a);
	if (neb)
		memcpy(b, eb, neb * sizeof *b);
	size_t na = own_calls(a, nea, kept, nk), nb = own_calls(b, neb, kept, nk);
	size_t pre = 0, lim = na < nb ? na : nb;
	while (pre < lim && a[pre] == b[pre])
		pre++;
	/* in a run that was cut, own calls that only stopped early are no sign (verdict.h) */
	it->own = !(pre == na && pre == nb) && !(cut && pre == nb);
	it->own_at = pre;
	it->own_n = na;
	it->own_ev_n = pre < na ? a[pre] : 0;
	it->own_ev_f = pre < nb ? b[pre] : 0;
	free(a);
	free(b);
	free(kept);
}

int vd_own_apply(store *s, int64_t fn, int64_t ff, int64_t en, int64_t ef, const rank_key *keys,
		 vd_rank *v, dt_err *e)
{
	an_result r[4];
	int64_t id[4] = { fn, ff, en, ef };
	size_t got = 0;
	int rc = 0;
	for (; got < 4 && !rc; got++)
		if (analysis_load_objects(s, id[got], &r[got], e))
			rc = -1;
	if (rc)
		got--;
	nlr_table *t = nlr_table_new();
	int began = rc ? -1 : store_read_begin(s, e);
	if (!rc && began < 0)
		rc = -1;
	if (!rc)
		rc = vd_load_loops(s, t, e);
	/* the faulty run was cut (a call left open, the run stopped), as vd_build tells it */
	unsigned cutf = DT_TF_OPEN_FRAMES | DT_TF_TIMEOUT | DT_TF_UNTERMINATED | DT_TF_TRUNCATED;
	int cut = 0;
	for (size_t k = 0; !rc && k < r[1].n; k++)
		cut |= (r[1].traces[k].flags & cutf) != 0;
	for (size_t k = 0; !rc && k < v->n; k++) {
		vd_item *x = &v->it[k];
		rank_key key = keys[x->i];
		uint32_t *ev[4] = { NULL, NULL, NULL, NULL };
		size_t nev[4] = { 0, 0, 0, 0 };
		for (int q = 0; q < 4 && !rc; q++)
			rc = vd_kept_events(s, t, id[q],
					    analysis_object(&r[q], key.proc, key.thread), &ev[q],
					    &nev[q], e);
		if (!rc)
			vd_own_compare(ev[0], nev[0], ev[1], nev[1], ev[2], nev[2], ev[3], nev[3],
				       cut, x);
		for (int q = 0; q < 4; q++)
			free(ev[q]);
	}
	if (began >= 0)
		store_read_end(s, began);
	nlr_table_free(t);
	for (size_t q = 0; q < got; q++)
		analysis_result_free(&r[q]);
	if (!rc)
		vd_order(v->it, v->n);
	for (size_t k = 0; rc && k < v->n; k++)
		v->it[k].own = 0; /* the verdict as it was */
	return rc;
}
