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

/* The own calls of a trace and its counterpart (fa/fb kept under the filter, ea/eb every
 * call), each into a new array. */
static void own_pair(const uint32_t *fa, size_t nfa, const uint32_t *fb, size_t nfb,
		     const uint32_t *ea, size_t nea, const uint32_t *eb, size_t neb, uint32_t **a,
		     size_t *na, uint32_t **b, size_t *nb)
{
	size_t nk = nfa + nfb;
	uint32_t *kept = xmalloc((nk ? nk : 1) * sizeof *kept);
	if (nfa)
		memcpy(kept, fa, nfa * sizeof *kept);
	if (nfb)
		memcpy(kept + nfa, fb, nfb * sizeof *kept);
	qsort(kept, nk, sizeof *kept, cmp_u32);
	*a = xmalloc((nea ? nea : 1) * sizeof **a);
	*b = xmalloc((neb ? neb : 1) * sizeof **b);
	if (nea)
		memcpy(*a, ea, nea * sizeof **a);
	if (neb)
		memcpy(*b, eb, neb * sizeof **b);
	*na = own_calls(*a, nea, kept, nk);
	*nb = own_calls(*b, neb, kept, nk);
	free(kept);
}

void vd_own_compare(const uint32_t *fa, size_t nfa, const uint32_t *fb, size_t nfb,
		    const uint32_t *ea, size_t nea, const uint32_t *eb, size_t neb, int cut,
		    vd_item *it)
{
	uint32_t *a, *b;
	size_t na, nb;
	own_pair(fa, nfa, fb, nfb, ea, nea, eb, neb, &a, &na, &b, &nb);
	size_t pre = 0, lim = na < nb ? na : nb;
	while (pre < lim && a[pre] == b[pre])
		pre++;
	/* in a run that was cut, own calls that only stopped early are no sign (verdict.h) */
	it->own = !(pre == na && pre == nb) && !(cut && pre == nb);
	it->own_at = pre;
	it->own_n = na;
	it->own_ev_n = pre < na ? a[pre] : 0;
	it->own_ev_f = pre < nb ? b[pre] : 0;
	it->own_input = 0;
	free(a);
	free(b);
}

void vd_own_common(const uint32_t *a, size_t na, const uint32_t *b, size_t nb, const cc_set *c,
		   int cut, vd_item *it)
{
	if (!it->own || !c->n)
		return;
	uint64_t at;
	uint32_t ev_n, ev_f;
	if (cc_reduced_same(a, na, b, nb, c, &at, &ev_n, &ev_f) || (cut && !ev_f)) {
		it->own = 0; /* only the change its peers made (or, cut, only stopped early then) */
		it->own_input = 1;
		return;
	}
	it->own_at = at;
	it->own_ev_n = ev_n;
	it->own_ev_f = ev_f;
}

/* The class of a trace for the common change of its own calls: its own calls in the normal
 * run (FNV-1a). */
static int64_t own_class(const uint32_t *v, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++) {
		h ^= v[i];
		h *= 1099511628211ull;
	}
	return (int64_t)(h >> 1);
}

/* What vd_own_apply reads of one trace: its kept events in the four analyses. */
static int own_events(store *s, const nlr_table *t, const int64_t *id, an_result *r,
		      rank_key key, uint32_t **ev, size_t *nev, dt_err *e)
{
	int rc = 0;
	for (int q = 0; q < 4; q++) {
		ev[q] = NULL;
		nev[q] = 0;
	}
	for (int q = 0; q < 4 && !rc; q++)
		rc = vd_kept_events(s, t, id[q], analysis_object(&r[q], key.proc, key.thread),
				    &ev[q], &nev[q], e);
	return rc;
}

/* The common change of the own calls for the header: the one shared by the most traces whose
 * own calls changed only by it. In a run that was cut, fewer calls are the cut's, not the
 * input's: only the functions called more are named (none: no header). */
static void own_header(vd_rank *v, const cc_set *cs, int cut)
{
	int *flag = xcalloc(v->n ? v->n : 1, sizeof *flag);
	for (size_t k = 0; k < v->n; k++)
		flag[k] = v->it[k].own_input;
	v->nown_common = cc_most_shared(cs, flag, v->n, &v->own_common);
	free(flag);
	size_t m = 0;
	for (size_t i = 0; i < v->own_common.n; i++)
		if (!cut || v->own_common.d[i].d > 0)
			v->own_common.d[m++] = v->own_common.d[i];
	v->own_common.n = m;
	if (!m) {
		cc_free(&v->own_common);
		v->nown_common = 0;
	}
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
	size_t n = v->n;
	cc_set *ds = xcalloc(n ? n : 1, sizeof *ds), *cs = xcalloc(n ? n : 1, sizeof *cs);
	int64_t *cls = xcalloc(n ? n : 1, sizeof *cls);
	/* first the own calls compared as they are, and each trace's change of them */
	for (size_t k = 0; !rc && k < n; k++) {
		uint32_t *ev[4], *a = NULL, *b = NULL;
		size_t nev[4], na = 0, nb = 0;
		rc = own_events(s, t, id, r, keys[v->it[k].i], ev, nev, e);
		if (!rc) {
			vd_own_compare(ev[0], nev[0], ev[1], nev[1], ev[2], nev[2], ev[3], nev[3],
				       cut, &v->it[k]);
			own_pair(ev[0], nev[0], ev[1], nev[1], ev[2], nev[2], ev[3], nev[3], &a, &na,
				 &b, &nb);
			cls[k] = own_class(a, na);
			cc_deltas(a, na, b, nb, &ds[k]);
		}
		free(a);
		free(b);
		for (int q = 0; q < 4; q++)
			free(ev[q]);
	}
	/* then, left out, the change of the own calls that every trace of a class made alike (a
	 * changed input: more strcmp and strtol as the arguments are parsed; common.h) */
	if (!rc)
		cc_common(ds, cls, n, cs);
	for (size_t k = 0; !rc && k < n; k++) {
		if (!v->it[k].own || !cs[k].n)
			continue;
		uint32_t *ev[4], *a = NULL, *b = NULL;
		size_t nev[4], na = 0, nb = 0;
		rc = own_events(s, t, id, r, keys[v->it[k].i], ev, nev, e);
		if (!rc) {
			own_pair(ev[0], nev[0], ev[1], nev[1], ev[2], nev[2], ev[3], nev[3], &a, &na,
				 &b, &nb);
			vd_own_common(a, na, b, nb, &cs[k], cut, &v->it[k]);
		}
		free(a);
		free(b);
		for (int q = 0; q < 4; q++)
			free(ev[q]);
	}
	if (!rc)
		own_header(v, cs, cut);
	for (size_t k = 0; k < n; k++) {
		cc_free(&ds[k]);
		cc_free(&cs[k]);
	}
	free(ds);
	free(cs);
	free(cls);
	if (began >= 0)
		store_read_end(s, began);
	nlr_table_free(t);
	for (size_t q = 0; q < got; q++)
		analysis_result_free(&r[q]);
	if (!rc)
		vd_order(v->it, v->n);
	for (size_t k = 0; rc && k < v->n; k++)
		v->it[k].own = v->it[k].own_input = 0; /* the verdict as it was */
	return rc;
}
