/* evsites.c: the call sites of a trace's events (evsites.h). */
#include <stdlib.h>
#include <string.h>

#include "analysis/evsites.h"
#include "analysis/evtimes.h"
#include "import/sink.h"
#include "store/store_sync.h"
#include "store/store_sync_stream.h"
#include "util/util.h"

#define BLOCK 4096

struct pairs {
	uint64_t *idx;
	uint32_t *sid;
	size_t n, cap;
};

static void pair_add(struct pairs *p, uint64_t idx, uint32_t id)
{
	if (!id)
		return;
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 64;
		p->idx = xrealloc(p->idx, p->cap * sizeof *p->idx);
		p->sid = xrealloc(p->sid, p->cap * sizeof *p->sid);
	}
	p->idx[p->n] = idx;
	p->sid[p->n++] = id;
}

struct fsite {
	uint32_t f, site;
	uint64_t k; /* the entry's position in the record, or the call's in the trace */
};

static int by_func(const void *a, const void *b)
{
	const struct fsite *x = a, *y = b;
	if (x->f != y->f)
		return x->f < y->f ? -1 : 1;
	return x->k < y->k ? -1 : x->k > y->k;
}

static int by_func_only(const void *a, const void *b)
{
	const struct fsite *x = a, *y = b;
	return x->f < y->f ? -1 : x->f > y->f;
}

/* The calls of uftrace trace trc matched to the record's entries ent[0..ne) of its thread,
 * function by function in order (evsites.h). */
static int match_sites(store *s, const store_trace *trc, struct fsite *ent, size_t ne,
		       struct pairs *out, dt_err *e)
{
	if (!ne || (trc->flags & DT_TF_LOST))
		return 0;
	qsort(ent, ne, sizeof *ent, by_func);
	store_cursor *cur;
	if (store_cursor_open(s, trc, 0, &cur, e))
		return -1;
	struct fsite *calls = NULL;
	size_t nc = 0, cap = 0;
	uint32_t *ev = xmalloc(BLOCK * sizeof *ev);
	uint64_t *ts = xmalloc(BLOCK * sizeof *ts), idx = 0;
	int64_t k;
	while ((k = store_cursor_next(cur, ev, ts, BLOCK, e)) > 0)
		for (int64_t i = 0; i < k; i++, idx++) {
			struct fsite key = { ev[i], 0, 0 };
			if (ev[i] == DT_RET || !bsearch(&key, ent, ne, sizeof *ent, by_func_only))
				continue;
			GROW(calls, cap, nc + 1);
			calls[nc++] = (struct fsite){ ev[i], 0, idx };
		}
	store_cursor_close(cur);
	free(ev);
	free(ts);
	if (k < 0) {
		free(calls);
		return -1;
	}
	qsort(calls, nc, sizeof *calls, by_func); /* by function, each in the trace's order */
	for (size_t i = 0, j = 0; i < nc;) {
		size_t i2 = i, j2;
		while (i2 < nc && calls[i2].f == calls[i].f)
			i2++;
		while (j < ne && ent[j].f < calls[i].f)
			j++;
		for (j2 = j; j2 < ne && ent[j2].f == calls[i].f;)
			j2++;
		if (i2 - i <= j2 - j)
			for (size_t q = 0; q < i2 - i; q++)
				calls[i + q].site = ent[j + q].site;
		i = i2;
		j = j2;
	}
	for (size_t i = 0; i < nc; i++) /* back in the trace's order */
		calls[i].f = 0;
	qsort(calls, nc, sizeof *calls, by_func);
	for (size_t i = 0; i < nc; i++)
		pair_add(out, calls[i].k, calls[i].site);
	free(calls);
	return 0;
}

int evsites_raw(store *s, int64_t run_id, const char *format, const store_trace *trc,
		uint64_t **idx, uint32_t **sid, size_t *n, dt_err *e)
{
	*idx = NULL;
	*sid = NULL;
	*n = 0;
	int sync = !strcmp(format, "sync");
	if (!sync && strcmp(format, "uftrace"))
		return 0;
	store_sites sites = { 0 };
	store_sync_stream *ss = NULL;
	struct fsite *ent = NULL;
	struct pairs p = { 0 };
	size_t ne = 0, ncap = 0;
	int rc = 0;
	if (store_sync_sites(s, run_id, &sites, e) ||
	    (sites.n && store_sync_stream_open(s, run_id, &ss, e))) {
		rc = -1;
		goto out;
	}
	/* this trace's events alone, a chunk at a time */
	size_t k = 0, nt = ss ? store_sync_stream_ntraces(ss) : 0;
	for (; k < nt; k++) {
		int32_t pr, t, h;
		store_sync_stream_trace(ss, k, &pr, &t, &h);
		if (pr == trc->proc && t == trc->thread)
			break;
	}
	for (const dt_sync_event *ev; k < nt;) {
		size_t m;
		if (store_sync_stream_next(ss, k, &ev, &m, e)) {
			rc = -1;
			goto out;
		}
		if (!m)
			break;
		for (size_t i = 0; i < m; i++) {
			const dt_sync_event *x = &ev[i];
			if (x->phase == DT_SYNC_DONE)
				continue;
			if (sync) {
				pair_add(&p, ne++, x->site);
			} else if (x->phase == DT_SYNC_ENTER) {
				GROW(ent, ncap, ne + 1);
				ent[ne] = (struct fsite){ x->func, x->site, ne }, ne++;
			}
		}
	}
	if (sites.n && !sync)
		rc = match_sites(s, trc, ent, ne, &p, e);
out:
	store_sync_stream_close(ss);
	free(ent);
	store_sites_free(&sites);
	if (rc) {
		free(p.idx);
		free(p.sid);
		return rc;
	}
	*idx = p.idx;
	*sid = p.sid;
	*n = p.n;
	return 0;
}

int evsites_kept_trace(store *s, const char *filter, const char *alias, int64_t run_id,
		       const char *format, const store_trace *t, uint64_t want, const uint64_t *only,
		       size_t nonly, uint32_t **site, char *why, size_t nwhy, dt_err *e)
{
	*site = NULL;
	uint64_t *idx, *raw = NULL;
	uint32_t *sid;
	size_t n;
	if (evsites_raw(s, run_id, format, t, &idx, &sid, &n, e))
		return -1;
	int rc = 1;
	if (n) {
		rc = evtimes_raw_trace(s, filter, alias, t, want, only, nonly, &raw, why, nwhy, e);
		if (rc == 1) {
			size_t nk = only ? nonly : (size_t)want;
			*site = xcalloc(nk ? nk : 1, sizeof **site);
			/* both ascending: one pass */
			for (size_t i = 0, q = 0; i < nk; i++) {
				while (q < n && idx[q] < raw[i])
					q++;
				if (q < n && idx[q] == raw[i])
					(*site)[i] = sid[q];
			}
		}
	}
	free(idx);
	free(sid);
	free(raw);
	return rc;
}

int evsites_kept(store *s, const an_result *r, const char *format, int obj,
		 const uint64_t *only, size_t nonly, uint32_t **site, char *why, size_t nwhy,
		 dt_err *e)
{
	*site = NULL;
	if (obj < 0 || (size_t)obj >= r->n)
		return dt_errf(e, DT_EUSAGE, "no such trace in the analysis");
	return evsites_kept_trace(s, r->meta.filter, r->filter_alias, r->meta.run_id, format,
				  &r->traces[obj], r->nfiltered[obj], only, nonly, site, why, nwhy,
				  e);
}

int evsites_kept_run(store *s, const an_result *r, const char *run, int obj,
		     const uint64_t *only, size_t nonly, uint32_t **site, char *why, size_t nwhy,
		     dt_err *e)
{
	store_run rr;
	*site = NULL;
	if (store_run_get_lite(s, run, &rr, e))
		return -1;
	int rc = evsites_kept(s, r, rr.format ? rr.format : "", obj, only, nonly, site, why, nwhy,
			      e);
	store_run_free(&rr);
	return rc;
}
