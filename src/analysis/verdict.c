/* verdict.c: the default ranking: each trace's kept events compared exactly with its
 * counterpart's, combined with JSM_D's row sums (see verdict.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/hangrank.h"
#include "analysis/evsites.h"
#include "analysis/nlr.h"
#include "analysis/verdict.h"
#include "analysis/verdict_data.h"
#include "import/sink.h"
#include "order/hang.h"
#include "util/esc.h"
#include "util/util.h"

void vd_compare(const uint32_t *a, size_t na, const uint32_t *b, size_t nb, vd_item *it)
{
	size_t pre = 0, lim = na < nb ? na : nb;
	while (pre < lim && a[pre] == b[pre])
		pre++;
	size_t suf = 0;
	while (suf < lim - pre && a[na - 1 - suf] == b[nb - 1 - suf])
		suf++;
	it->kept_n = na;
	it->kept_f = nb;
	it->at = pre;
	it->ev_n = pre < na ? a[pre] : 0;
	it->ev_f = pre < nb ? b[pre] : 0;
	it->last_f = 0;
	for (size_t k = nb; k > 0; k--)
		if (b[k - 1]) {
			it->last_f = b[k - 1];
			break;
		}
	if (pre == na && pre == nb) {
		it->change = VD_SAME;
		it->share = 0;
		return;
	}
	/* only the faulty trace ended early, and nothing else changed (the returns of the calls
	 * it was blocked in aside) */
	int stopped = pre == nb;
	it->change = stopped ? VD_STOPPED : VD_DIVERGED;
	it->share = (double)(na + nb - 2 * (pre + suf)) / (double)(na + nb);
}

static double key9(double x)
{
	return nearbyint(x * 1e9);
}

static double rel_at(const vd_item *x)
{
	return x->kept_n ? key9((double)x->at / (double)x->kept_n) : 0;
}

static double sync_at(const vd_item *x)
{
	return x->s_nn ? key9((double)x->s_at / (double)x->s_nn) : 0;
}

static int vd_cmp(const void *p, const void *q)
{
	const vd_item *a = p, *b = q;
	if (a->tier != b->tier)
		return a->tier > b->tier ? -1 : 1;
	/* who broke the pattern first, relative to the length of its own pattern */
	if (a->tier == 2 && sync_at(a) != sync_at(b))
		return sync_at(a) < sync_at(b) ? -1 : 1;
	if (a->change != b->change)
		return a->change > b->change ? -1 : 1;
	/* calls alike, their data not: the first to change, in causal order, first */
	if (!a->data != !b->data)
		return a->data ? -1 : 1;
	if (a->data && a->data_ord != b->data_ord)
		return a->data_ord < b->data_ord ? -1 : 1;
	/* calls alike, the time of its own functions not: the most time gained first */
	if (a->slow != b->slow)
		return a->slow > b->slow ? -1 : 1;
	if (a->slow && a->slow_gain != b->slow_gain)
		return a->slow_gain > b->slow_gain ? -1 : 1;
	/* a trace that changed only as its class did after one that changed more */
	if (a->common != b->common)
		return a->common < b->common ? -1 : 1;
	/* the program's own calls, when consulted (verdict_own.h) */
	if (a->own != b->own)
		return a->own > b->own ? -1 : 1;
	double sa = key9(a->score), sb = key9(b->score);
	double ra = rel_at(a), rb = rel_at(b);
	/* of the traces that only stopped, the one that stopped earliest in its own pattern is
	 * the one the others wait for */
	if (a->change == VD_STOPPED && ra != rb)
		return ra < rb ? -1 : 1;
	if (sa != sb)
		return sa > sb ? -1 : 1;
	if (a->change == VD_DIVERGED && ra != rb)
		return ra < rb ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

static int vd_tied(const vd_item *a, const vd_item *b)
{
	return a->tier == b->tier && (a->tier != 2 || sync_at(a) == sync_at(b)) &&
	       a->change == b->change && a->common == b->common && a->own == b->own &&
	       a->slow == b->slow && a->slow_gain == b->slow_gain &&
	       !a->data == !b->data && a->data_ord == b->data_ord &&
	       key9(a->score) == key9(b->score) &&
	       (a->change == VD_SAME || rel_at(a) == rel_at(b));
}

void vd_order(vd_item *it, size_t n)
{
	for (size_t k = 0; k < n; k++)
		it[k].score = it[k].change == VD_SAME ? 0.0 : it[k].rowsum + it[k].share;
	if (n)
		qsort(it, n, sizeof *it, vd_cmp);
	for (size_t k = 0; k < n; k++)
		it[k].pos = k && vd_tied(&it[k - 1], &it[k]) ? it[k - 1].pos : k + 1;
}

int vd_bystander(store *s, const vd_item *it)
{
	const char *nm = it->last_f ? store_func_name(s, it->last_f) : NULL;
	if (!nm)
		return 0;
	if (!strncmp(nm, "MPI_Finalize", 12))
		return 1;
	/* a final barrier: one of the counterpart's last kept calls */
	int barrier = !strncmp(nm, "MPI_Barrier", 11) || !strncmp(nm, "GOMP_barrier", 12) ||
		      !strncmp(nm, "__kmpc_barrier", 14) || !strncmp(nm, "MPI_Ibarrier", 12);
	return barrier && it->kept_f + 2 >= it->kept_n;
}

static int load_loop(void *ctx, uint32_t id, const nlr_entry *body, size_t n)
{
	dt_err e;
	dt_err_clear(&e);
	return nlr_table_load(ctx, id, body, n, &e);
}

int vd_load_loops(store *s, nlr_table *t, dt_err *e)
{
	return store_loops_each(s, load_loop, t, e);
}

int vd_kept_events(store *s, const nlr_table *t, int64_t id, int obj, uint32_t **ev, size_t *n,
		   dt_err *e)
{
	*ev = NULL;
	*n = 0;
	if (obj < 0)
		return 0;
	nlr_entry *v = NULL;
	size_t nv = 0;
	int rc = store_analysis_get_trace(s, id, obj, NULL, NULL, &v, &nv, NULL, NULL, e);
	if (!rc)
		rc = nlr_expand(t, v, nv, ev, n, e);
	free(v);
	return rc;
}

static int same_entries(const nlr_entry *a, size_t na, const nlr_entry *b, size_t nb)
{
	if (na != nb)
		return 0;
	for (size_t k = 0; k < na; k++)
		if (!nlr_entry_eq(a[k], b[k]))
			return 0;
	return 1;
}

/* The tiers of a hung run from the hang-safe record of both runs (hangrank.h). */
static int vd_hang_tiers(store *s, const an_result *rn, const an_result *rf, const rank_jsmd *j,
			 vd_rank *out, dt_err *e)
{
	hr_info h;
	if (hr_build(s, rn->meta.run_id, rf->meta.run_id, &h, e))
		return -1;
	for (size_t k = 0; k < out->n && h.n; k++) {
		vd_item *x = &out->it[k];
		const store_trace *tf = &rf->traces[j->row_faulty[x->i]];
		const hr_thread *t = hr_find(&h, tf->proc, tf->thread);
		if (!t)
			continue;
		x->s_at = t->at;
		x->s_nn = t->nn;
		x->waiters = t->waiters;
		x->s_state = t->state;
		x->s_func = t->func;
		memcpy(x->s_where, t->where, sizeof x->s_where);
		x->s_site = t->site;
		x->s_en = t->en;
		x->s_ef = t->ef;
		if (t->cmp == HR_DIVERGED)
			x->tier = 2;
		else if (t->cmp == HR_PREFIX && t->waiters && !t->waits)
			x->tier = 1;
		if (x->tier && x->change == VD_SAME) {
			/* the trace recording lost what the hang-safe record has: still a change */
			x->change = VD_DIVERGED;
			x->share = t->nn + t->nf ? (double)(t->nn + t->nf - 2 * t->at) /
							   (double)(t->nn + t->nf)
						 : 1.0;
			x->at = x->kept_n;
			x->s_only = 1;
		}
	}
	hr_free(&h);
	return 0;
}

int vd_run_cut(const an_result *rf)
{
	unsigned cut = DT_TF_OPEN_FRAMES | DT_TF_TIMEOUT | DT_TF_UNTERMINATED | DT_TF_TRUNCATED;
	int run_cut = 0;
	for (size_t k = 0; k < rf->n; k++)
		run_cut |= (rf->traces[k].flags & cut) != 0;
	return run_cut;
}

void vd_settle(store *s, vd_item *x, int run_cut, const store_trace *tn, const store_trace *tf)
{
	if (x->change == VD_STOPPED && !run_cut) {
		x->change = VD_DIVERGED;
		x->ended = 1;
		return;
	}
	int busy = x->running || tf->nevents > tn->nevents;
	if (busy && x->change == VD_STOPPED && !vd_bystander(s, x)) {
		x->change = VD_DIVERGED;
		x->spun = 1;
	}
}

int vd_build(store *s, const an_result *rn, const an_result *rf, const rank_jsmd *j,
	     vd_rank *out, dt_err *e)
{
	memset(out, 0, sizeof *out);
	size_t n = j->n;
	out->it = xcalloc(n ? n : 1, sizeof *out->it);
	out->n = n;
	nlr_table *t = nlr_table_new();
	double *sums = xmalloc((j->nc ? j->nc : 1) * sizeof *sums);
	rank_jsmd_rowsums(j, sums);
	/* two reads a trace: under one read transaction, not a lock of the file each */
	int began = store_read_begin(s, e);
	int rc = began < 0 ? -1 : store_loops_each(s, load_loop, t, e);
	for (size_t k = 0; !rc && k < n; k++) {
		vd_item *x = &out->it[k];
		x->i = k;
		x->rowsum = sums[j->cls[k]];
		x->running = j->running && j->running[k];
		nlr_entry *va = NULL, *vb = NULL;
		size_t na = 0, nb = 0;
		rc = store_analysis_get_trace(s, rn->meta.id, (int)j->row_normal[k], NULL, NULL, &va,
					      &na, NULL, NULL, e);
		if (!rc)
			rc = store_analysis_get_trace(s, rf->meta.id, (int)j->row_faulty[k], NULL, NULL,
						      &vb, &nb, NULL, NULL, e);
		if (!rc && same_entries(va, na, vb, nb)) {
			x->kept_n = x->kept_f = rn->nfiltered[j->row_normal[k]];
			x->at = x->kept_n;
		} else if (!rc) {
			uint32_t *ea = NULL, *eb = NULL;
			size_t ma = 0, mb = 0;
			rc = nlr_expand(t, va, na, &ea, &ma, e);
			if (!rc)
				rc = nlr_expand(t, vb, nb, &eb, &mb, e);
			if (!rc)
				vd_compare(ea, ma, eb, mb, x);
			free(ea);
			free(eb);
		}
		free(va);
		free(vb);
	}
	store_read_end(s, began);
	nlr_table_free(t);
	free(sums);
	if (rc) {
		vd_free(out);
		return -1;
	}
	/* A trace whose kept events only stopped early, but which was still running at the stop
	 * of a hung run or made more calls in all than its counterpart in the whole normal run,
	 * was busy out of the filter's sight (a loop of other calls), unless it waits where
	 * everyone ends (MPI_Finalize, a final barrier). */
	/* in a run that ended normally (no trace cut: no call left open, no stop), a trace with
	 * part of its counterpart's events waited for nothing: it ended early, a change of its
	 * own */
	int run_cut = vd_run_cut(rf);
	for (size_t k = 0; k < n; k++) {
		vd_item *x = &out->it[k];
		vd_settle(s, x, run_cut, &rn->traces[j->row_normal[x->i]],
			  &rf->traces[j->row_faulty[x->i]]);
	}
	if (run_cut && n && vd_hang_tiers(s, rn, rf, j, out, e)) {
		vd_free(out);
		return -1;
	}
	vd_order(out->it, n);
	for (size_t k = 0; k < n; k++)
		out->ndiff += out->it[k].change != VD_SAME;
	return 0;
}

void vd_free(vd_rank *v)
{
	free(v->it);
	cc_free(&v->common);
	cc_free(&v->own_common);
	ac_free(&v->args);
	cc_free(&v->input_common);
	memset(v, 0, sizeof *v);
}

/* A function's name for people: control characters as \xNN, cut at 80 bytes. */
static void name_of(store *s, uint32_t f, char *buf, size_t cap)
{
	const char *nm = f ? store_func_name(s, f) : NULL;
	if (!nm) {
		snprintf(buf, cap, f ? "?%u" : "(return)", f);
		return;
	}
	size_t k = 0;
	for (; *nm && k + 5 < cap && k < 80; nm++) {
		unsigned char c = (unsigned char)*nm;
		if (c < 0x20 || c == 0x7f)
			k += (size_t)snprintf(buf + k, cap - k, "\\x%02x", c);
		else
			buf[k++] = (char)c;
	}
	if (*nm && k + 4 < cap)
		k += (size_t)snprintf(buf + k, cap - k, "...");
	buf[k < cap ? k : cap - 1] = 0;
}

/* The hang-safe record's reason, then "; " (the trace comparison's follows); 0 when none. */
static size_t tier_reason(store *s, const vd_item *it, const store_sites *sites, char *buf,
			  size_t cap)
{
	char a[160], b[160], w[220];
	if (it->tier == 2) {
		hr_event_text(s, &it->s_ef, &it->s_en, b, sizeof b);
		hr_event_text(s, &it->s_en, &it->s_ef, a, sizeof a);
		return (size_t)snprintf(buf, cap,
					"hang-safe record, call %llu of %llu: %s%s where the normal run "
					"has %s; ",
					(unsigned long long)it->s_at + 1,
					(unsigned long long)it->s_nn, b,
					store_site_at(sites, it->s_ef.site, w, sizeof w), a);
	}
	if (it->tier == 1) {
		if (it->s_state == HANG_IN_CALL)
			name_of(s, it->s_func, b, sizeof b);
		int in = it->s_state == HANG_IN_CALL;
		return (size_t)snprintf(buf, cap,
					"%zu thread%s wait%s for it and it waits for nobody: %s%s%s%s; ",
					it->waiters, it->waiters == 1 ? "" : "s",
					it->waiters == 1 ? "s" : "",
					in ? "in " : "in no recorded call (computing or spinning)",
					in ? b : "", in && it->s_where[0] ? " at " : "",
					in ? it->s_where : "");
	}
	return 0;
}

void vd_cc_text(store *s, const cc_set *c, char *buf, size_t cap)
{
	size_t k = 0;
	char nm[128];
	if (cap)
		buf[0] = 0;
	for (size_t i = 0; i < c->n && i < 6 && k < cap; i++) {
		name_of(s, c->d[i].f, nm, sizeof nm);
		k += (size_t)snprintf(buf + k, cap - k, "%s%+lld %s", i ? ", " : "",
				      (long long)c->d[i].d, nm);
	}
	if (c->n > 6 && k < cap)
		snprintf(buf + k, cap - k, " and %zu more", c->n - 6);
}

void vd_common_text(store *s, const vd_rank *v, char *buf, size_t cap)
{
	vd_cc_text(s, &v->common, buf, cap);
}

uint32_t vd_stop_call(const vd_item *it, int *from_sync, int *outside)
{
	/* s_func is set only from the record of a hung run (vd_hang_tiers): 0 there means the
	 * thread made no recorded call, or the run has no record */
	*from_sync = it->s_func != 0 && it->s_state != HANG_FINISHED;
	*outside = *from_sync && it->s_state == HANG_OUTSIDE;
	return *from_sync ? it->s_func : it->last_f;
}

int vd_same_reason(store *s, const vd_item *it, char *buf, size_t cap)
{
	if (it->change != VD_SAME || (!it->data && !it->slow))
		return 0;
	if (it->data) {
		vd_data_reason(s, it, buf, cap);
	} else {
		char b[128];
		name_of(s, it->slow_f, b, sizeof b);
		snprintf(buf, cap, "%s: %.1fx its normal time, peers %.1fx (%.3f s more than theirs)",
			 b, it->slow_x, it->slow_peers, (double)it->slow_gain / 1e9);
	}
	return 1;
}

void vd_reason(store *s, const vd_item *it, char *buf, size_t cap)
{
	vd_reason_sites(s, it, NULL, buf, cap);
}

uint32_t vd_change_site(const vd_item *it)
{
	int sync, outside;
	if (it->tier == 2 && it->s_ef.site) /* the call that broke the pattern */
		return it->s_ef.site;
	if (it->change == VD_STOPPED || it->tier == 1) /* where it stopped */
		return vd_stop_call(it, &sync, &outside) && sync ? it->s_site : 0;
	if (it->change != VD_DIVERGED)
		return 0;
	return it->beyond ? it->c_site : it->at_site;
}

int vd_fill_sites(store *s, const an_result *rf, const char *format, const rank_key *keys,
		  vd_item *it, size_t m, dt_err *e)
{
	for (size_t k = 0; k < m; k++) {
		vd_item *x = &it[k];
		x->at_site = x->c_site = 0;
		int at = !(x->change != VD_DIVERGED || x->s_only || x->ended || x->spun ||
			   x->common || x->beyond || x->at >= x->kept_f);
		int beyond = x->change == VD_DIVERGED && x->beyond && x->c_ev_f &&
			     x->c_pos < x->kept_f;
		if (!at && !beyond)
			continue;
		store_trace t;
		if (store_trace_get(s, rf->meta.run_id, keys[x->i].proc, keys[x->i].thread, &t, e))
			return -1;
		/* the one or two kept events named, ascending */
		uint64_t pos[2];
		size_t np = 0;
		if (at)
			pos[np++] = x->at;
		if (beyond && (!np || pos[0] != x->c_pos))
			pos[np++] = x->c_pos;
		if (np == 2 && pos[0] > pos[1]) {
			uint64_t tmp = pos[0];
			pos[0] = pos[1];
			pos[1] = tmp;
		}
		uint32_t *site = NULL;
		char why[300];
		int rc = evsites_kept_trace(s, rf->meta.filter, rf->filter_alias, rf->meta.run_id,
					    format, &t, x->kept_f, pos, np, &site, why, sizeof why,
					    e);
		store_trace_free(&t);
		if (rc < 0)
			return -1;
		for (size_t q = 0; rc == 1 && site && q < np; q++) {
			if (at && pos[q] == x->at)
				x->at_site = site[q];
			if (beyond && pos[q] == x->c_pos)
				x->c_site = site[q];
		}
		free(site);
	}
	return 0;
}

void vd_reason_sites(store *s, const vd_item *it, const store_sites *sites, char *buf,
		     size_t cap)
{
	char a[128], b[128], w[220];
	size_t k = cap ? tier_reason(s, it, sites, buf, cap) : 0;
	if (k >= cap)
		return;
	if (it->s_only) {
		buf[k >= 2 ? k - 2 : k] = 0; /* no "; ": the trace comparison saw nothing */
		return;
	}
	buf += k;
	cap -= k;
	k = 0;
	switch (it->change) {
	case VD_SAME:
		if (it->data || it->slow) {
			k = (size_t)snprintf(buf, cap, "calls identical; ");
			if (k < cap)
				vd_same_reason(s, it, buf + k, cap - k);
			k = strlen(buf);
		} else {
			k = (size_t)snprintf(buf, cap, "identical");
		}
		break;
	case VD_STOPPED: {
		int sync, outside;
		uint32_t f = vd_stop_call(it, &sync, &outside);
		name_of(s, f, b, sizeof b);
		k = (size_t)snprintf(buf, cap,
				     "stopped early%s%s%s%s%s, after %llu of %llu kept events (%.0f%%)",
				     !f ? "" : outside ? " out of a recorded call, after " : " in ",
				     f ? b : "",
				     !f ? "" : sync ? " (sync record)" : " (trace)",
				     f && sync && it->s_where[0] ? " at " : "",
				     f && sync ? it->s_where : "",
				     (unsigned long long)it->kept_f, (unsigned long long)it->kept_n,
				     it->kept_n ? 100.0 * (double)it->kept_f / (double)it->kept_n : 0.0);
		break;
	}
	default:
		if (it->common && it->slow) {
			name_of(s, it->slow_f, b, sizeof b);
			k = (size_t)snprintf(buf, cap,
					     "changed only as its peers did (a changed input); %s: "
					     "%.1fx its normal time, peers %.1fx (%.3f s more than "
					     "theirs)",
					     b, it->slow_x, it->slow_peers, (double)it->slow_gain / 1e9);
		} else if (it->common) {
			k = (size_t)snprintf(buf, cap, "changed only as its peers did (a changed "
					     "input)");
		} else if (it->beyond) {
			name_of(s, it->c_ev_n, a, sizeof a);
			name_of(s, it->c_ev_f, b, sizeof b);
			k = (size_t)snprintf(buf, cap,
					     "beyond the change its peers share: diverged at "
					     "call %llu: %s%s where the normal run has %s",
					     (unsigned long long)it->c_at + 1,
					     it->c_ev_f ? b : "(end)",
					     store_site_at(sites, it->c_site, w, sizeof w),
					     it->c_ev_n ? a : "(end)");
		} else if (it->ended) {
			k = (size_t)snprintf(buf, cap, "ended after %llu of %llu kept events, nothing else "
					     "changed",
					     (unsigned long long)it->kept_f,
					     (unsigned long long)it->kept_n);
		} else if (it->spun) {
			name_of(s, it->last_f, b, sizeof b);
			k = (size_t)snprintf(buf, cap,
					     "busy out of the filter's sight after its last kept call "
					     "(%s, %llu of %llu kept events)%s",
					     b, (unsigned long long)it->kept_f,
					     (unsigned long long)it->kept_n,
					     it->running ? "; running at the stop" : "");
		} else if (it->at >= it->kept_n) {
			name_of(s, it->ev_f, b, sizeof b);
			k = (size_t)snprintf(buf, cap, "went on after all %llu kept events: %s%s",
					     (unsigned long long)it->kept_n, b,
					     store_site_at(sites, it->at_site, w, sizeof w));
		} else {
			name_of(s, it->ev_n, a, sizeof a);
			if (it->at >= it->kept_f) /* cannot happen: that is stopped early */
				snprintf(b, sizeof b, "(end)");
			else
				name_of(s, it->ev_f, b, sizeof b);
			k = (size_t)snprintf(buf, cap,
					     "diverged at kept event %llu of %llu: %s%s where the normal "
					     "run has %s",
					     (unsigned long long)it->at + 1,
					     (unsigned long long)it->kept_n, b,
					     store_site_at(sites, it->at_site, w, sizeof w), a);
		}
		break;
	}
	if (it->running && !it->spun && k < cap)
		k += (size_t)snprintf(buf + k, cap - k, "; running at the stop");
	int sync, outside;
	uint32_t f = vd_stop_call(it, &sync, &outside);
	if (it->change == VD_DIVERGED && sync && k < cap) { /* where `hang` has it */
		name_of(s, f, b, sizeof b);
		k += (size_t)snprintf(buf + k, cap - k, "; at the stop %s%s (sync record)%s%s",
				      outside ? "out of a recorded call, after " : "in ", b,
				      it->s_where[0] ? " at " : "", it->s_where);
	}
	if (it->own && k < cap) {
		name_of(s, it->own_ev_n, a, sizeof a);
		name_of(s, it->own_ev_f, b, sizeof b);
		snprintf(buf + k, cap - k, "; its own calls differ at %llu of %llu: %s where the normal "
			 "run has %s",
			 (unsigned long long)it->own_at + 1, (unsigned long long)it->own_n,
			 it->own_ev_f ? b : "(end)", it->own_ev_n ? a : "(end)");
	}
}
