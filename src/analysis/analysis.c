/* analysis.c: running the pipeline on a run (filter, NLR, attributes, JSM, classes, lattice)
 * and caching the results; reading them back. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "analysis/an_pool.h"
#include "analysis/an_split.h"
#include "analysis/fca.h"
#include "analysis/filter.h"
#include "analysis/jaccard.h"
#include "analysis/nlr.h"
#include "analysis/objects.h"
#include "analysis/peers.h"
#include "util/ptrange.h"
#include "util/util.h"

#define AN_BLOCK 65536

/* ---- the per-trace work, on worker threads ---- */

/* NAME[args] with the ", " between arguments shortened to "," (the text is the importer's). */
static void synth_name(dt_buf *b, const char *name, const char *args)
{
	b->len = 0;
	buf_put(b, name, strlen(name));
	buf_byte(b, '[');
	for (const char *q = args; *q; q++) {
		buf_byte(b, (uint8_t)*q);
		if (*q == ',' && q[1] == ' ')
			q++;
	}
	buf_byte(b, ']');
	buf_byte(b, 0);
	b->len--;
}

/* Args mode: replaces, in ev[0..k) (events number first.. of the cursor's trace), each call of a
 * candidate function that carries argument text by its NAME[args] function; in the first pass
 * collects the distinct NAME[args] of the trace into j instead. Arguments are looked up only for
 * calls of candidates: the cursor finds an argument by a scan of its chunk's argument list. */
static void an_args(struct an_pool *pool, store_cursor *c, struct an_job *j, uint32_t *ev,
		    size_t k, uint64_t first, strmap *seen, dt_buf *nb, dt_buf *pb)
{
	for (size_t i = 0; i < k; i++) {
		uint32_t f = ev[i];
		if (f == DT_RET || f >= pool->ncand || !pool->cand[f])
			continue;
		const char *a = store_cursor_arg(c, first + i, DT_ARG);
		if (!a || !*a)
			continue;
		synth_name(nb, pool->names[f], a);
		if (!pool->collect && pool->peers) {
			peers_rewrite(pool->peers, (const char *)nb->p, j->t->proc, pb);
			dt_buf t = *nb;
			*nb = *pb;
			*pb = t;
		}
		uint32_t id;
		if (pool->collect) {
			if (strmap_get(seen, (const char *)nb->p, nb->len, &id))
				continue;
			strmap_put(seen, (const char *)nb->p, nb->len, 1);
			GROW(j->snames, j->capsnames, j->nsnames + 1);
			j->snames[j->nsnames++] = (struct an_sname){ xstrndup((const char *)nb->p, nb->len), f };
		} else if (strmap_get(pool->smap, (const char *)nb->p, nb->len, &id)) {
			ev[i] = id;
		}
	}
}

/* *compp: the worker's compressor, made at its first trace and reset for the next ones. */
static int an_trace(struct an_pool *pool, store *s, struct an_job *j, uint32_t *in, uint32_t *out,
		    nlr_comp **compp)
{
	store_cursor *c = NULL;
	nlr_comp *comp = NULL;
	filt_stream fs;
	filt_stream_init(&fs, pool->keep);
	dt_buf ent = { 0 }, nb = { 0 }, pb = { 0 };
	strmap seen;
	strmap_init(&seen);
	int rc = -1;
	/* only traces with arguments have NAME[args] functions */
	int args = pool->ncand && j->t->nargs > 0;
	if (pool->collect && !args)
		goto done;
	if (!pool->collect)
		j->loops = nlr_table_new();
	if (store_cursor_open(s, j->t, 0, &c, &j->err))
		goto out;
	if (!pool->collect) {
		if (*compp)
			nlr_comp_reset(*compp, j->loops);
		else if (!(*compp = nlr_comp_new(j->loops, &pool->nopts, &j->err)))
			goto out;
		comp = *compp;
	}
	int64_t k;
	uint64_t first = 0;
	while ((k = store_cursor_next(c, in, NULL, AN_BLOCK, &j->err)) > 0) {
		if (args)
			an_args(pool, c, j, in, (size_t)k, first, &seen, &nb, &pb);
		first += (uint64_t)k;
		if (!pool->collect) {
			size_t m = filt_stream_apply(&fs, in, (size_t)k, out);
			j->nfiltered += m;
			if (nlr_comp_push(comp, out, m, &j->err))
				goto out;
			size_t nt;
			const nlr_entry *v = nlr_comp_take(comp, &nt);
			buf_put(&ent, v, nt * sizeof *v);
		}
		pthread_mutex_lock(&pool->mu);
		pool->done_events += (uint64_t)k;
		int stop = pool->stop;
		pthread_mutex_unlock(&pool->mu);
		if (stop) {
			j->stopped = 1;
			dt_errf(&j->err, DT_EDATA, "stopped");
			goto out;
		}
	}
	if (k < 0)
		goto out;
	if (pool->collect)
		goto done;
	nlr_comp_finish(comp);
	size_t nt;
	const nlr_entry *v = nlr_comp_take(comp, &nt);
	buf_put(&ent, v, nt * sizeof *v);
	j->ent = (nlr_entry *)ent.p;
	j->nent = ent.len / sizeof(nlr_entry);
	ent.p = NULL;
done:
	rc = 0;
out:
	buf_free(&ent);
	buf_free(&nb);
	buf_free(&pb);
	strmap_free(&seen);
	store_cursor_close(c);
	filt_stream_free(&fs);
	return rc;
}

static void *an_worker(void *arg)
{
	struct an_pool *pool = arg;
	store *s = NULL;
	dt_err e;
	dt_err_clear(&e);
	int open_failed = store_open(pool->path, STORE_OPEN_READ, &s, &e);
	nlr_comp *comp = NULL;
	uint32_t *in = xmalloc(AN_BLOCK * sizeof *in);
	uint32_t *out = xmalloc(AN_BLOCK * (size_t)(pool->keep->max_copies ? pool->keep->max_copies : 1) *
				sizeof *out);
	for (;;) {
		pthread_mutex_lock(&pool->mu);
		size_t i = pool->next++;
		int stop = pool->stop;
		pthread_mutex_unlock(&pool->mu);
		/* this process's share: jobs first, first + step, ... (all of them outside a job) */
		i = pool->first + i * (pool->step ? pool->step : 1);
		if (i >= pool->njobs || stop)
			break;
		struct an_job *j = &pool->jobs[i];
		if (open_failed) {
			j->err = e;
			j->failed = 1;
		} else if (an_trace(pool, s, j, in, out, &comp)) {
			j->failed = 1;
		}
		if (j->failed) {
			pthread_mutex_lock(&pool->mu);
			pool->stop = 1;
			pthread_mutex_unlock(&pool->mu);
		}
	}
	free(in);
	free(out);
	nlr_comp_free(comp);
	store_close(s);
	pthread_mutex_lock(&pool->mu);
	pool->ended++;
	pthread_cond_signal(&pool->done);
	pthread_mutex_unlock(&pool->mu);
	return NULL;
}

/* ---- encodings of the cached results ---- */

static void put_u32s(dt_buf *b, const uint32_t *v, size_t n)
{
	buf_uvar(b, n);
	for (size_t i = 0; i < n; i++)
		buf_uvar(b, v[i]);
}

static int get_u32s(const uint8_t *p, size_t len, size_t *pos, uint32_t **out, size_t *n)
{
	uint64_t cnt, x;
	if (uvar_get(p, len, pos, &cnt) || cnt > len)
		return -1;
	uint32_t *v = xmalloc((cnt ? cnt : 1) * sizeof *v);
	for (uint64_t i = 0; i < cnt; i++) {
		if (uvar_get(p, len, pos, &x) || x > UINT32_MAX) {
			free(v);
			return -1;
		}
		v[i] = (uint32_t)x;
	}
	*out = v;
	*n = (size_t)cnt;
	return 0;
}

static void put_merges(dt_buf *b, const clu_merge *m, size_t n)
{
	buf_uvar(b, n);
	for (size_t i = 0; i < n; i++) {
		buf_uvar(b, m[i].a);
		buf_uvar(b, m[i].b);
		buf_uvar(b, m[i].size);
		uint64_t h;
		memcpy(&h, &m[i].height, sizeof h);
		buf_uvar(b, h);
	}
}

static int get_merges(const uint8_t *p, size_t len, clu_merge **out, size_t *n)
{
	size_t pos = 0;
	uint64_t cnt, a, b, sz, h;
	if (uvar_get(p, len, &pos, &cnt) || cnt > len)
		return -1;
	clu_merge *m = xmalloc((cnt ? cnt : 1) * sizeof *m);
	for (uint64_t i = 0; i < cnt; i++) {
		if (uvar_get(p, len, &pos, &a) || uvar_get(p, len, &pos, &b) ||
		    uvar_get(p, len, &pos, &sz) || uvar_get(p, len, &pos, &h)) {
			free(m);
			return -1;
		}
		m[i].a = (uint32_t)a;
		m[i].b = (uint32_t)b;
		m[i].size = (uint32_t)sz;
		memcpy(&m[i].height, &h, sizeof h);
	}
	*out = m;
	*n = (size_t)cnt;
	return 0;
}

/* The lattice: concept count, then per concept its extent ids, intent ids and children. */
static void put_lattice(dt_buf *b, const fca_lattice *L)
{
	buf_uvar(b, L->nconcepts);
	uint32_t *ids = xmalloc(((L->n > L->m ? L->n : L->m) + 1) * sizeof *ids);
	for (size_t i = 0; i < L->nconcepts; i++) {
		const fca_concept *c = &L->c[i];
		size_t k = 0;
		for (size_t o = ctx_bnext(c->extent, L->n, 0); o < L->n; o = ctx_bnext(c->extent, L->n, o + 1))
			ids[k++] = (uint32_t)o;
		put_u32s(b, ids, k);
		k = 0;
		for (size_t a = ctx_bnext(c->intent, L->m, 0); a < L->m; a = ctx_bnext(c->intent, L->m, a + 1))
			ids[k++] = (uint32_t)a;
		put_u32s(b, ids, k);
		put_u32s(b, c->down, c->ndown);
	}
	free(ids);
}

/* ---- running ---- */

static int an_cores(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > 64 ? 64 : (int)n;
}

struct names_ctx {
	store *s;
};

static const char *fname(void *ud, uint32_t fid)
{
	struct names_ctx *c = ud;
	return store_func_name(c->s, fid);
}

static int load_loop(void *ctx, uint32_t id, const nlr_entry *body, size_t n)
{
	dt_err e;
	dt_err_clear(&e);
	return nlr_table_load(ctx, id, body, n, &e);
}

/* analysis_default_filter's choice over a loaded library: stops at the first function the
 * default keeps (an MPI program names MPI_Init among its first), so the keep table the analysis
 * then builds is the only pass over every name. */
static const char *default_filter(store *s, const filt_lib *lib, dt_err *e)
{
	filt *f;
	if (filt_parse(lib, AN_DEFAULT_FILTER, &f, e))
		return NULL;
	size_t nnames;
	const char *const *names = store_func_names(s, &nnames);
	int kept = 0, rc = 0;
	for (size_t i = 1; i < nnames && !kept && !rc; i++) {
		filt_why w;
		if (names[i] && !(rc = filt_explain(f, names[i], &w, e)))
			kept = w.copies > 0;
	}
	filt_free(f);
	return rc ? NULL : kept ? AN_DEFAULT_FILTER : AN_FALLBACK_FILTER;
}

const char *analysis_default_filter(store *s, dt_err *e)
{
	filt_lib *lib = filt_lib_new();
	const char *r = filt_lib_load_default(lib, e) ? NULL : default_filter(s, lib, e);
	filt_lib_free(lib);
	return r;
}

/* The filter refers to its families: *lib must outlive *f. */
static int build_filter(store *s, const an_params *p, filt_lib **lib, filt **f, dt_err *e)
{
	*lib = filt_lib_new();
	*f = NULL;
	int rc = filt_lib_load_default(*lib, e);
	for (size_t i = 0; !rc && i < p->nfilter_files; i++)
		rc = filt_lib_load_file(*lib, p->filter_files[i], e);
	const char *spec = p->filter;
	if (!rc && !spec && !(spec = default_filter(s, *lib, e)))
		rc = -1;
	if (!rc)
		rc = filt_parse(*lib, spec, f, e);
	return rc;
}

/* The cache key of p: the attribute mode's name and the filter's canonical form with a digest
 * of its families' patterns, so that editing a family file makes cached analyses stale. */
static void cache_key(const an_params *p, const filt *f, char *mode, size_t nmode, char *canon,
		      size_t ncanon)
{
	attrs_mode_name_args(p->mode, p->args, mode, nmode);
	snprintf(canon, ncanon, "%s#%016llx", filt_canonical(f), (unsigned long long)filt_digest(f));
}

int analysis_lookup(store *s, const store_run *run, const an_params *p, int64_t *id, dt_err *e)
{
	filt *f = NULL;
	filt_lib *lib = NULL;
	int r = -1;
	if (build_filter(s, p, &lib, &f, e) == 0) {
		char mode[ATTRS_MODE_NAME_MAX], canon[512];
		cache_key(p, f, mode, sizeof mode, canon, sizeof canon);
		store_analysis a;
		unsigned K = p->k ? p->k : NLR_K_DEFAULT;
		r = store_analysis_find(s, run->id, canon, mode, (int)K, &a, e);
		if (r == 1) {
			r = !strcmp(a.version, ANALYSIS_VERSION);
			*id = a.id;
			store_analysis_free(&a);
		}
	}
	filt_free(f);
	filt_lib_free(lib);
	return r;
}

/* Runs the pool's jobs on worker threads, reporting progress from this one; the first failed
 * job's error (in trace order) into e. */
int an_pool_run(struct an_pool *pool, const an_params *p, dt_err *e)
{
	size_t step = pool->step ? pool->step : 1;
	size_t n = pool->first < pool->njobs ? (pool->njobs - pool->first + step - 1) / step : 0;
	int nth = p->threads > 0 ? p->threads : an_cores();
	if ((size_t)nth > n)
		nth = n ? (int)n : 1;
	pthread_t *th = xmalloc((size_t)nth * sizeof *th);
	int started = 0;
	for (int i = 0; i < nth; i++)
		if (pthread_create(&th[i], NULL, an_worker, pool) == 0)
			started++;
	if (!started)
		an_worker(pool);
	/* progress every 100 ms while the workers run; the last one to end wakes this thread at
	 * once, so a short analysis waits for nothing */
	pthread_mutex_lock(&pool->mu);
	for (;;) {
		uint64_t d = pool->done_events;
		int finished = pool->ended >= started;
		pthread_mutex_unlock(&pool->mu);
		if (p->progress)
			p->progress(p->progress_arg, d, pool->total_events);
		pthread_mutex_lock(&pool->mu);
		if (finished)
			break;
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 100 * 1000 * 1000;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		while (pool->ended < started &&
		       pthread_cond_timedwait(&pool->done, &pool->mu, &ts) == 0)
			;
	}
	pthread_mutex_unlock(&pool->mu);
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	free(th);
	return an_pool_error(pool, e);
}

int an_pool_error(const struct an_pool *pool, dt_err *e)
{
	/* the failure that stopped the others, not theirs (whichever trace each was on) */
	for (size_t i = 0; i < pool->njobs; i++)
		if (pool->jobs[i].failed && !pool->jobs[i].stopped) {
			*e = pool->jobs[i].err;
			if (!e->status)
				dt_errf(e, DT_EDATA, "trace %d.%d failed", pool->jobs[i].t->proc,
					pool->jobs[i].t->thread);
			return -1;
		}
	for (size_t i = 0; i < pool->njobs; i++)
		if (pool->jobs[i].failed) {
			*e = pool->jobs[i].err;
			if (!e->status)
				dt_errf(e, DT_EDATA, "trace %d.%d failed", pool->jobs[i].t->proc,
					pool->jobs[i].t->thread);
			return -1;
		}
	return 0;
}

peers *an_peers(const struct an_job *jobs, const store_trace *traces, size_t n)
{
	/* peers relative or absolute, per kind of call over the run (peers.h) */
	int np = 0;
	for (size_t i = 0; i < n; i++)
		np = traces[i].proc + 1 > np ? traces[i].proc + 1 : np;
	peers *pr = peers_new(np);
	for (size_t i = 0; i < n; i++)
		for (size_t q = 0; q < jobs[i].nsnames; q++)
			peers_see(pr, jobs[i].snames[q].name, traces[i].proc);
	peers_decide(pr);
	return pr;
}

/* Args mode: interns the NAME[args] functions the first pass found, in trace order, into *smap
 * (name -> id), in a transaction of their own (function names are shared by every run: an
 * analysis that fails later leaves only unused names). A NAME[args] function is kept by the
 * filter when NAME is. */
static int an_intern(store *s, const store_run *run, struct an_job *jobs, size_t n, strmap *smap,
		     filt_table *keep, dt_err *e)
{
	size_t total = 0;
	for (size_t i = 0; i < n; i++)
		total += jobs[i].nsnames;
	if (!total)
		return 0;
	if (store_cache_writable(s, e) || store_begin(s, e))
		return -1;
	store_writer *w = store_writer_new(s, run->id, NULL);
	if (!w) {
		store_rollback(s);
		return dt_errf(e, DT_EDATA, "cannot add the functions of recorded arguments");
	}
	dt_sink *k = store_writer_sink(w);
	uint32_t *ids = xmalloc(total * sizeof *ids), *base = xmalloc(total * sizeof *base);
	size_t m = 0;
	int rc = 0;
	for (size_t i = 0; !rc && i < n; i++)
		for (size_t j = 0; !rc && j < jobs[i].nsnames; j++) {
			const char *nm = jobs[i].snames[j].name;
			uint32_t id;
			if (strmap_get(smap, nm, strlen(nm), &id))
				continue;
			if (!(id = k->func(k->ctx, nm, strlen(nm), e))) {
				rc = -1;
				break;
			}
			strmap_put(smap, nm, strlen(nm), id);
			ids[m] = id;
			base[m++] = jobs[i].snames[j].base;
		}
	store_writer_free(w);
	if (rc || store_commit(s, e)) {
		store_rollback(s);
		free(ids);
		free(base);
		return -1;
	}
	uint32_t top = 0;
	for (size_t i = 0; i < m; i++)
		if (ids[i] >= top)
			top = ids[i] + 1;
	if (top > keep->n) {
		keep->keep = xrealloc(keep->keep, top);
		memset(keep->keep + keep->n, 0, top - keep->n);
		keep->n = top;
	}
	for (size_t i = 0; i < m; i++)
		keep->keep[ids[i]] = base[i] < keep->n ? keep->keep[base[i]] : 0;
	free(ids);
	free(base);
	return 0;
}

/* One attempt; -2 when another difftrace added loops to the store while this one computed
 * (the loop ids it picked are taken): the caller tries again. */
static int an_run_once(store *s, const store_run *run, const an_params *p, int64_t *id,
		       int *reused, dt_err *e)
{
	char mode[ATTRS_MODE_NAME_MAX], canon[512];
	unsigned K = p->k ? p->k : NLR_K_DEFAULT;
	filt *f = NULL;
	filt_lib *lib = NULL;
	if (build_filter(s, p, &lib, &f, e)) {
		filt_lib_free(lib);
		return -1;
	}
	cache_key(p, f, mode, sizeof mode, canon, sizeof canon);
	*reused = 0;
	store_analysis old;
	int found = store_analysis_find(s, run->id, canon, mode, (int)K, &old, e);
	if (found < 0) {
		filt_free(f);
		filt_lib_free(lib);
		return -1;
	}
	if (found) {
		int fresh = !strcmp(old.version, ANALYSIS_VERSION);
		*id = old.id;
		store_analysis_free(&old);
		if (fresh && !p->force) {
			*reused = 1;
			filt_free(f);
			filt_lib_free(lib);
			return 0;
		}
	}

	int rc = -1;
	store_trace *traces = NULL;
	size_t n = 0, nnames = 0;
	struct an_job *jobs = NULL;
	nlr_table *loops = nlr_table_new();
	attrs_set *as = NULL;
	ctx_bits ctx = { 0 }, cctx = { 0 };
	double *jsm = NULL;
	uint32_t *labels = NULL, *map = NULL, *rows = NULL, *mult = NULL;
	clu_merge *merges = NULL;
	fca_lattice L;
	int have_lattice = 0;
	filt_table keep = { 0 };
	const char *const *names = store_func_names(s, &nnames);
	struct names_ctx nc = { s };
	uint8_t *cand = NULL;
	peers *pr = NULL;
	strmap smap;
	strmap_init(&smap);
	struct an_pool pool = { .path = store_path(s), .keep = &keep, .p = p };
	pthread_mutex_init(&pool.mu, NULL);
	pthread_cond_init(&pool.done, NULL);
	dt_buf b = { 0 }, seen = { 0 };
	int in_tx = 0;

	if (filt_table_build(f, names, nnames, &keep, e))
		goto out;
	if (store_trace_list(s, run->id, &traces, &n, e))
		goto out;
	if (!n) {
		dt_errf(e, DT_EDATA, "run '%s' has no traces", run->name);
		goto out;
	}
	uint32_t nloops0;
	if (store_loops_count(s, &nloops0, e) || store_loops_each(s, load_loop, loops, e))
		goto out;

	/* 1. filter and NLR, trace by trace, on worker threads */
	jobs = xcalloc(n, sizeof *jobs);
	pool.jobs = jobs;
	pool.njobs = n;
	pool.nopts.k = K;
	for (size_t i = 0; i < n; i++) {
		jobs[i].t = &traces[i];
		dt_err_clear(&jobs[i].err);
		pool.total_events += traces[i].nevents;
	}
	if (p->args) {
		/* The NAME[args] functions are interned here, on this thread, in trace order, before
		 * the pass that uses them: their ids do not depend on the number of threads. */
		pool.cand = cand = xcalloc(nnames ? nnames : 1, 1);
		pool.ncand = nnames;
		for (size_t i = 1; i < nnames; i++)
			cand[i] = names[i] && (!strncmp(names[i], "MPI_", 4) ||
					       !strncmp(names[i], "PMPI_", 5)) &&
				  !strchr(names[i], '[');
		pool.names = names;
		pool.collect = 1;
		for (size_t i = 0; i < n; i++)
			if (traces[i].nargs > 0)
				pool.total_events += traces[i].nevents;
		if (p->job ? an_split_pass(p->job, &pool, p, run->id, NULL, e)
			   : an_pool_run(&pool, p, e))
			goto out;
		/* what the other processes need for the second pass: the first pass's names, before
		 * they are rewritten (each process decides the peers from them as this one does) */
		if (p->job)
			an_split_snames(&seen, jobs, n);
		pr = an_peers(jobs, traces, n);
		dt_buf pbuf = { 0 };
		for (size_t i = 0; i < n; i++)
			for (size_t q = 0; q < jobs[i].nsnames; q++) {
				peers_rewrite(pr, jobs[i].snames[q].name, traces[i].proc, &pbuf);
				free(jobs[i].snames[q].name);
				jobs[i].snames[q].name = xstrndup((const char *)pbuf.p, pbuf.len);
			}
		buf_free(&pbuf);
		pool.peers = pr;
		if (an_intern(s, run, jobs, n, &smap, &keep, e))
			goto out;
		names = store_func_names(s, &nnames);
		pool.names = names;
		pool.smap = &smap;
		pool.collect = 0;
		pool.next = 0;
		pool.ended = 0;
	}
	if (p->job) {
		if (p->args)
			an_split_smap(&seen, jobs, n, &smap);
		if (an_split_pass(p->job, &pool, p, run->id, &seen, e))
			goto out;
	} else if (an_pool_run(&pool, p, e)) {
		goto out;
	}

	/* 2. merge the loop tables in trace order: ids independent of the threads */
	for (size_t i = 0; i < n; i++) {
		uint32_t cnt = nlr_table_count(jobs[i].loops);
		map = xrealloc(map, (cnt ? cnt : 1) * sizeof *map);
		if (nlr_table_merge(loops, jobs[i].loops, map, e))
			goto out;
		nlr_remap(jobs[i].ent, jobs[i].nent, map);
		nlr_table_free(jobs[i].loops);
		jobs[i].loops = NULL;
	}

	/* 3. attributes, context, similarity, classes, lattice */
	as = attrs_new(p->mode);
	for (size_t i = 0; i < n; i++)
		attrs_add(as, jobs[i].ent, jobs[i].nent);
	attrs_context(as, &ctx);
	labels = xmalloc(n * sizeof *labels);
	size_t nident = clu_identical(&ctx, labels);
	/* The rows of the matrix, the clustering and the lattice: one per class of identical
	 * attribute sets, with its multiplicity (cluster.h says why the results are those of the
	 * full n x n matrix); p->uncollapsed, for the tests, keeps one row per trace. */
	size_t nr = p->uncollapsed ? n : nident;
	rows = xmalloc(n * sizeof *rows);
	mult = xcalloc(nr, sizeof *mult);
	for (size_t i = 0; i < n; i++) {
		rows[i] = p->uncollapsed ? (uint32_t)i : labels[i];
		mult[rows[i]]++;
	}
	ctx_init(&cctx, nr, ctx.m);
	for (size_t i = 0; i < n; i++) /* identical rows: any copy will do */
		memcpy(ctx_row(&cctx, rows[i]), ctx_row(&ctx, i), ctx.words * sizeof *ctx.bits);
	ctx_free(&ctx);
	jsm = xmalloc(nr * nr * sizeof *jsm);
	jac_matrix(&cctx, jsm);
	merges = xmalloc((nr > 1 ? nr - 1 : 1) * sizeof *merges);
	if (nr > 1 && clu_linkage_classes(jsm, nr, mult, p->linkage, merges, e))
		goto out;
	/* the full clustering's largest gap is never past the D classes (the merges there are
	 * all at height 0) */
	size_t kmax = n < 16 ? n : 16;
	size_t kcut = p->kcut ? p->kcut : (nr > 1 ? clu_auto_k(merges, nr, kmax < nr ? kmax : nr) : 1);
	if (kcut > n)
		kcut = n;
	dt_err lerr;
	dt_err_clear(&lerr);
	/* too many concepts: the analysis stands without its lattice, and says why. Its objects
	 * are the rows: duplicate objects change no concept (fca.h numbers them by intent). */
	have_lattice = fca_build(&cctx, ANALYSIS_MAX_CONCEPTS, &L, &lerr) == 0;

	/* 4. write it all, one transaction */
	if (store_cache_writable(s, e) || store_begin(s, e))
		goto out;
	in_tx = 1;
	uint32_t nloops1;
	if (store_loops_count(s, &nloops1, e))
		goto out;
	if (nloops1 != nloops0) {
		rc = -2;
		goto out;
	}
	if (store_analysis_create(s, run->id, canon, mode, (int)K, ANALYSIS_VERSION, id, e))
		goto out;
	for (uint32_t i = nloops0; i < nlr_table_count(loops); i++) {
		size_t len;
		const nlr_entry *body = nlr_table_body(loops, i, &len);
		if (store_loop_put(s, i, body, len, e))
			goto out;
	}
	an_objects_w ow;
	an_objects_begin(&ow, n);
	for (size_t i = 0; i < n; i++) {
		size_t na;
		const uint32_t *a = attrs_object(as, i, &na);
		an_objects_put(&ow, &traces[i], jobs[i].nfiltered, a, na);
		if (store_analysis_put_trace(s, *id, (int)i, traces[i].id, jobs[i].nfiltered,
					     jobs[i].ent, jobs[i].nent, a, na, e)) {
			buf_free(&ow.b);
			goto out;
		}
	}
	int ow_bad = store_analysis_put_blob(s, *id, "objects", ow.b.p, ow.b.len, e);
	buf_free(&ow.b);
	if (ow_bad)
		goto out;
	char scratch[4096];
	for (uint32_t a = 0; a < attrs_nattrs(as); a++) {
		attrs_render(p->mode, attrs_key_of(as, a), fname, &nc, scratch, sizeof scratch);
		if (store_analysis_put_attr(s, *id, a, scratch, e))
			goto out;
	}
	float *fj = xmalloc(nr * nr * sizeof *fj);
	for (size_t i = 0; i < nr * nr; i++)
		fj[i] = (float)jsm[i];
	int wr = store_analysis_put_blob(s, *id, "jsm", fj, nr * nr * sizeof *fj, e);
	free(fj);
	if (wr)
		goto out;
	b.len = 0;
	put_u32s(&b, labels, n);
	if (store_analysis_put_blob(s, *id, "identical", b.p, b.len, e))
		goto out;
	if (p->uncollapsed) {
		b.len = 0;
		put_u32s(&b, rows, n);
		if (store_analysis_put_blob(s, *id, "rows", b.p, b.len, e))
			goto out;
	}
	b.len = 0;
	put_merges(&b, merges, nr > 1 ? nr - 1 : 0);
	char key[64];
	snprintf(key, sizeof key, "merges.%s", clu_linkage_name(p->linkage));
	if (store_analysis_put_blob(s, *id, key, b.p, b.len, e))
		goto out;
	b.len = 0;
	buf_uvar(&b, kcut);
	buf_put(&b, clu_linkage_name(p->linkage), strlen(clu_linkage_name(p->linkage)));
	if (store_analysis_put_blob(s, *id, "cut", b.p, b.len, e))
		goto out;
	if (have_lattice) {
		b.len = 0;
		put_lattice(&b, &L);
		if (store_analysis_put_blob(s, *id, "lattice", b.p, b.len, e))
			goto out;
	} else if (store_analysis_put_blob(s, *id, "lattice.error", lerr.msg, strlen(lerr.msg), e)) {
		goto out;
	}
	const char *alias = filt_alias(f);
	snprintf(scratch, sizeof scratch, "%sK%u", alias, K);
	if (store_analysis_put_blob(s, *id, "alias", scratch, strlen(scratch), e))
		goto out;
	if (store_analysis_set_counts(s, *id, (int)n, (int)attrs_nattrs(as), (int)nident, e))
		goto out;
	if (store_commit(s, e))
		goto out;
	in_tx = 0;
	rc = 0;
out:
	if (in_tx)
		store_rollback(s);
	if (have_lattice)
		fca_free(&L);
	pthread_mutex_destroy(&pool.mu);
	pthread_cond_destroy(&pool.done);
	for (size_t i = 0; jobs && i < n; i++) {
		for (size_t j = 0; j < jobs[i].nsnames; j++)
			free(jobs[i].snames[j].name);
		free(jobs[i].snames);
		free(jobs[i].ent);
		nlr_table_free(jobs[i].loops);
	}
	free(jobs);
	free(cand);
	peers_free(pr);
	strmap_free(&smap);
	free(map);
	buf_free(&b);
	buf_free(&seen);
	free(labels);
	free(merges);
	free(rows);
	free(mult);
	free(jsm);
	ctx_free(&ctx);
	ctx_free(&cctx);
	attrs_free(as);
	nlr_table_free(loops);
	filt_table_free(&keep);
	store_traces_free(traces, n);
	filt_free(f);
	filt_lib_free(lib);
	return rc;
}

/* ---- reading back ---- */

void analysis_result_free(an_result *r)
{
	store_analysis_free(&r->meta);
	if (r->arena) { /* the strings and ids are the arena's */
		free(r->traces);
		free(r->oattrs);
		r->oattrs = NULL;
		an_arena_free(r->arena);
	} else {
		store_traces_free(r->traces, r->n);
	}
	free(r->nfiltered);
	free(r->jsm);
	free(r->row);
	free(r->rowmult);
	free(r->identical);
	free(r->merges);
	free(r->cluster);
	for (size_t i = 0; i < r->nattrs; i++)
		free(r->attr_names[i]);
	free(r->attr_names);
	free(r->filter_alias);
	for (size_t i = 0; r->oattrs && i < r->n; i++)
		free(r->oattrs[i]);
	free(r->oattrs);
	free(r->noattrs);
	memset(r, 0, sizeof *r);
}

int analysis_object(const an_result *r, int p, int t)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->traces[i].proc == p && r->traces[i].thread == t)
			return (int)i;
	return -1;
}

/* Each object's trace, kept events and attributes into r (meta read): packed with the analysis
 * (objects.h), else in one pass over the analysis's rows. */
static int load_objects(store *s, int64_t id, an_result *r, dt_err *e)
{
	uint8_t *p = NULL;
	size_t len = 0;
	r->n = (size_t)r->meta.ntraces;
	r->traces = xcalloc(r->n ? r->n : 1, sizeof *r->traces);
	r->nfiltered = xcalloc(r->n ? r->n : 1, sizeof *r->nfiltered);
	r->oattrs = xcalloc(r->n ? r->n : 1, sizeof *r->oattrs);
	r->noattrs = xcalloc(r->n ? r->n : 1, sizeof *r->noattrs);
	int go = store_analysis_get_blob(s, id, "objects", &p, &len, e);
	if (go < 0)
		return -1;
	int bad = go && an_objects_decode(p, len, r->n, r->traces, r->nfiltered, r->oattrs,
					  r->noattrs, &r->arena);
	free(p);
	if (bad)
		return dt_err_at(e, store_path(s), -1, "analysis %lld: damaged objects",
				 (long long)id);
	if (!go && store_analysis_object_rows(s, id, r->n, r->traces, r->nfiltered, r->oattrs,
					      r->noattrs, e))
		return -1;
	return 0;
}

int analysis_load_objects(store *s, int64_t id, an_result *r, dt_err *e)
{
	if (analysis_load_head(s, id, r, e))
		return -1;
	if (load_objects(s, id, r, e)) {
		analysis_result_free(r);
		return -1;
	}
	return 0;
}

int analysis_load_head(store *s, int64_t id, an_result *r, dt_err *e)
{
	memset(r, 0, sizeof *r);
	if (store_analysis_get(s, id, &r->meta, e))
		return -1;
	if (attrs_mode_parse_args(r->meta.attrs, &r->mode, &r->args, e)) {
		analysis_result_free(r);
		return -1;
	}
	uint8_t *p = NULL;
	size_t len = 0;
	int g = store_analysis_get_blob(s, id, "alias", &p, &len, e);
	if (g < 0) {
		analysis_result_free(r);
		return -1;
	}
	r->filter_alias = g ? xstrndup((const char *)p, len) : xstrdup(r->meta.filter);
	free(p);
	return 0;
}

int analysis_load(store *s, int64_t id, an_result *r, dt_err *e)
{
	memset(r, 0, sizeof *r);
	uint8_t *p = NULL, *rb = NULL;
	size_t len = 0, rlen = 0;
	if (store_analysis_get(s, id, &r->meta, e))
		return -1;
	if (attrs_mode_parse_args(r->meta.attrs, &r->mode, &r->args, e))
		goto fail;
	if (load_objects(s, id, r, e))
		goto fail;
	size_t pos = 0, cnt;
	if (store_analysis_get_blob(s, id, "identical", &p, &len, e) != 1 ||
	    get_u32s(p, len, &pos, &r->identical, &cnt) || cnt != r->n) {
		dt_err_at(e, store_path(s), -1, "analysis %lld: damaged classes", (long long)id);
		goto fail;
	}
	free(p);
	p = NULL;
	r->nidentical = 0;
	for (size_t i = 0; i < r->n; i++)
		if (r->identical[i] + 1 > r->nidentical)
			r->nidentical = r->identical[i] + 1;
	int g = store_analysis_get_blob(s, id, "jsm", &p, &len, e);
	if (g < 0)
		goto fail;
	/* the rows: the classes; an explicit map (uncollapsed); or, in an analysis cached before
	 * the collapse, the objects (a dense n x n matrix) */
	int gr = g ? store_analysis_get_blob(s, id, "rows", &rb, &rlen, e) : 0;
	if (gr < 0)
		goto fail;
	pos = 0;
	if (gr) {
		if (get_u32s(rb, rlen, &pos, &r->row, &cnt) || cnt != r->n) {
			dt_err_at(e, store_path(s), -1, "analysis %lld: damaged rows", (long long)id);
			goto fail;
		}
	} else {
		r->row = xmalloc((r->n ? r->n : 1) * sizeof *r->row);
		int dense = r->nidentical < r->n && len == r->n * r->n * sizeof(float);
		for (size_t i = 0; i < r->n; i++)
			r->row[i] = dense ? (uint32_t)i : r->identical[i];
	}
	r->nrows = 0;
	for (size_t i = 0; i < r->n; i++)
		if (r->row[i] + 1 > r->nrows)
			r->nrows = r->row[i] + 1;
	r->rowmult = xcalloc(r->nrows ? r->nrows : 1, sizeof *r->rowmult);
	for (size_t i = 0; i < r->n; i++)
		r->rowmult[r->row[i]]++;
	if (!g || len != r->nrows * r->nrows * sizeof(float)) {
		dt_err_at(e, store_path(s), -1, "analysis %lld: damaged similarity matrix",
			  (long long)id);
		goto fail;
	}
	r->jsm = (float *)p;
	p = NULL;
	if (store_analysis_get_blob(s, id, "cut", &p, &len, e) != 1) {
		dt_err_at(e, store_path(s), -1, "analysis %lld: no clustering", (long long)id);
		goto fail;
	}
	uint64_t k;
	pos = 0;
	if (uvar_get(p, len, &pos, &k) || len - pos >= sizeof r->linkage) {
		dt_err_at(e, store_path(s), -1, "analysis %lld: damaged clustering", (long long)id);
		goto fail;
	}
	r->kcut = (size_t)k;
	memcpy(r->linkage, p + pos, len - pos);
	r->linkage[len - pos] = 0;
	free(p);
	p = NULL;
	char key[64];
	snprintf(key, sizeof key, "merges.%s", r->linkage);
	size_t nm;
	if (store_analysis_get_blob(s, id, key, &p, &len, e) != 1 ||
	    get_merges(p, len, &r->merges, &nm) || nm != (r->nrows ? r->nrows - 1 : 0)) {
		dt_err_at(e, store_path(s), -1, "analysis %lld: damaged clustering", (long long)id);
		goto fail;
	}
	free(p);
	p = NULL;
	r->cluster = xmalloc((r->n ? r->n : 1) * sizeof *r->cluster);
	if (r->n)
		clu_cut_classes(r->merges, r->nrows, r->row, r->n, r->kcut ? r->kcut : 1, r->cluster);
	if (store_analysis_attr_names(s, id, &r->attr_names, &r->nattrs, e))
		goto fail;
	if (store_analysis_get_blob(s, id, "alias", &p, &len, e) == 1) {
		r->filter_alias = xstrndup((const char *)p, len);
	} else {
		r->filter_alias = xstrdup(r->meta.filter);
	}
	free(p);
	free(rb);
	return 0;
fail:
	free(p);
	free(rb);
	analysis_result_free(r);
	return -1;
}

/* The row of each of the n objects of analysis id (analysis.h): the "rows" map when there is
 * one, else the classes, except in an analysis cached before the collapse (one row per object);
 * *nrows their number. */
static int an_rows(store *s, int64_t id, int current, size_t n, uint32_t **row, size_t *nrows,
		   dt_err *e)
{
	uint8_t *p = NULL;
	size_t len = 0, pos = 0, cnt = 0;
	*row = NULL;
	int g = store_analysis_get_blob(s, id, "rows", &p, &len, e);
	if (g < 0)
		return -1;
	if (!g && current) {
		free(p);
		p = NULL;
		g = store_analysis_get_blob(s, id, "identical", &p, &len, e);
		if (g < 0)
			return -1;
	}
	if (g) {
		int bad = get_u32s(p, len, &pos, row, &cnt) || cnt != n;
		free(p);
		if (bad) {
			free(*row);
			*row = NULL;
			return dt_err_at(e, store_path(s), -1, "analysis %lld: damaged classes",
					 (long long)id);
		}
	} else {
		*row = xmalloc((n ? n : 1) * sizeof **row);
		for (size_t i = 0; i < n; i++)
			(*row)[i] = (uint32_t)i;
	}
	*nrows = 0;
	for (size_t i = 0; i < n; i++)
		if ((*row)[i] + 1 > *nrows)
			*nrows = (*row)[i] + 1;
	return 0;
}

int analysis_lattice(store *s, int64_t id, fca_lattice *L, char **why, dt_err *e)
{
	memset(L, 0, sizeof *L);
	*why = NULL;
	store_analysis a;
	if (store_analysis_get(s, id, &a, e))
		return -1;
	size_t n = (size_t)a.ntraces, m = (size_t)a.nattrs, nr = 0;
	int current = !strcmp(a.version, ANALYSIS_VERSION);
	store_analysis_free(&a);
	uint32_t *row;
	if (an_rows(s, id, current, n, &row, &nr, e))
		return -1;
	/* the objects of each row, in order */
	size_t *off = xcalloc(nr + 2, sizeof *off);
	uint32_t *obj = xmalloc((n ? n : 1) * sizeof *obj);
	for (size_t i = 0; i < n; i++)
		off[row[i] + 2]++;
	for (size_t r = 0; r < nr; r++)
		off[r + 2] += off[r + 1];
	for (size_t i = 0; i < n; i++)
		obj[off[row[i] + 1]++] = (uint32_t)i;
	free(row);
	uint8_t *p;
	size_t len;
	int g = store_analysis_get_blob(s, id, "lattice", &p, &len, e);
	if (g < 0)
		goto fail;
	if (!g) {
		free(off);
		free(obj);
		if (store_analysis_get_blob(s, id, "lattice.error", &p, &len, e) == 1) {
			*why = xstrndup((const char *)p, len);
			free(p);
		} else {
			*why = xstrdup("no lattice was computed");
		}
		return 0;
	}
	size_t pos = 0, wn = ctx_words(n), wm = ctx_words(m);
	uint64_t nc;
	if (uvar_get(p, len, &pos, &nc) || nc == 0 || nc > len)
		goto bad;
	L->n = n;
	L->m = m;
	L->nconcepts = (size_t)nc;
	L->c = xcalloc(L->nconcepts, sizeof *L->c);
	for (size_t i = 0; i < L->nconcepts; i++) {
		fca_concept *c = &L->c[i];
		uint32_t *v;
		size_t k;
		c->extent = xcalloc(wn, sizeof *c->extent);
		c->intent = xcalloc(wm, sizeof *c->intent);
		if (get_u32s(p, len, &pos, &v, &k))
			goto bad;
		c->next = 0;
		for (size_t j = 0; j < k; j++)
			if (v[j] < nr)
				for (size_t q = off[v[j]]; q < off[v[j] + 1]; q++) {
					ctx_bset(c->extent, obj[q]);
					c->next++;
				}
		free(v);
		if (get_u32s(p, len, &pos, &v, &k))
			goto bad;
		for (size_t j = 0; j < k; j++)
			if (v[j] < m)
				ctx_bset(c->intent, v[j]);
		c->nint = k;
		free(v);
		if (get_u32s(p, len, &pos, &c->down, &c->ndown))
			goto bad;
		for (size_t j = 0; j < c->ndown; j++)
			if (c->down[j] >= nc)
				goto bad;
		L->nedges += c->ndown;
	}
	/* parents: the children lists inverted, in ascending order */
	for (size_t i = 0; i < L->nconcepts; i++)
		for (size_t j = 0; j < L->c[i].ndown; j++)
			L->c[L->c[i].down[j]].nup++;
	for (size_t i = 0; i < L->nconcepts; i++) {
		L->c[i].up = xmalloc((L->c[i].nup ? L->c[i].nup : 1) * sizeof *L->c[i].up);
		L->c[i].nup = 0;
	}
	for (size_t i = 0; i < L->nconcepts; i++)
		for (size_t j = 0; j < L->c[i].ndown; j++) {
			fca_concept *ch = &L->c[L->c[i].down[j]];
			ch->up[ch->nup++] = (uint32_t)i;
		}
	L->top = 0;
	L->bottom = L->nconcepts - 1;
	/* an object's concept has the largest intent among those holding it; an attribute's the
	 * smallest intent holding it */
	L->obj_concept = xcalloc(n ? n : 1, sizeof *L->obj_concept);
	L->attr_concept = xcalloc(m ? m : 1, sizeof *L->attr_concept);
	for (size_t r = 0; r < nr; r++) { /* the objects of a row share their concept */
		if (off[r] == off[r + 1])
			continue;
		size_t best = 0, bi = 0;
		for (size_t i = 0; i < L->nconcepts; i++)
			if (ctx_btest(L->c[i].extent, obj[off[r]]) && L->c[i].nint >= best) {
				best = L->c[i].nint;
				bi = i;
			}
		for (size_t q = off[r]; q < off[r + 1]; q++)
			L->obj_concept[obj[q]] = (uint32_t)bi;
	}
	for (size_t at = 0; at < m; at++) {
		size_t best = SIZE_MAX, bi = L->bottom;
		for (size_t i = 0; i < L->nconcepts; i++)
			if (ctx_btest(L->c[i].intent, at) && L->c[i].nint < best) {
				best = L->c[i].nint;
				bi = i;
			}
		L->attr_concept[at] = (uint32_t)bi;
	}
	free(p);
	free(off);
	free(obj);
	return 1;
bad:
	free(p);
	fca_free(L);
	dt_err_at(e, store_path(s), -1, "analysis %lld: damaged lattice", (long long)id);
fail:
	free(off);
	free(obj);
	return -1;
}

/* ---- comparing two runs ---- */

rank_key *analysis_keys(const an_result *r)
{
	rank_key *k = xmalloc((r->n ? r->n : 1) * sizeof *k);
	for (size_t i = 0; i < r->n; i++)
		k[i] = (rank_key){ r->traces[i].proc, r->traces[i].thread };
	return k;
}

double *analysis_jsm(const an_result *r)
{
	size_t nr = r->nrows;
	double *d = xmalloc((nr ? nr * nr : 1) * sizeof *d);
	for (size_t i = 0; i < nr * nr; i++)
		d[i] = r->jsm[i];
	return d;
}

/* The dendrogram of r restricted to the objects obj[0..m) (ascending), over their rows: *cls
 * gets each one's class there (renumbered in order of first object), *nc their number, and
 * *out the nc - 1 merges: the cached ones when the objects are all of r and the linkage is the
 * cached one; else computed on the rows they use, with the multiplicities they have. */
static int merges_on(const an_result *r, const double *jsm, const size_t *obj, size_t m,
		     enum clu_linkage l, uint32_t **cls, size_t *nc, clu_merge **out, dt_err *e)
{
	size_t nr = r->nrows;
	uint32_t *renum = xmalloc((nr ? nr : 1) * sizeof *renum);
	for (size_t i = 0; i < nr; i++)
		renum[i] = UINT32_MAX;
	uint32_t *c = xmalloc((m ? m : 1) * sizeof *c), *orig = xmalloc((nr ? nr : 1) * sizeof *orig);
	size_t k = 0;
	for (size_t i = 0; i < m; i++) {
		uint32_t x = r->row[obj[i]];
		if (renum[x] == UINT32_MAX) {
			orig[k] = x;
			renum[x] = (uint32_t)k++;
		}
		c[i] = renum[x];
	}
	int all = m == r->n && !strcmp(r->linkage, clu_linkage_name(l));
	for (size_t i = 0; all && i < k; i++)
		all = orig[i] == i;
	*cls = c;
	*nc = k;
	*out = xmalloc((k > 1 ? k - 1 : 1) * sizeof **out);
	int rc = 0;
	if (all) {
		if (k > 1)
			memcpy(*out, r->merges, (k - 1) * sizeof **out);
	} else {
		uint32_t *mult = xcalloc(k ? k : 1, sizeof *mult);
		for (size_t i = 0; i < m; i++)
			mult[c[i]]++;
		double *sub = xmalloc((k ? k * k : 1) * sizeof *sub);
		for (size_t i = 0; i < k; i++)
			for (size_t j = 0; j < k; j++)
				sub[i * k + j] = jsm[(size_t)orig[i] * nr + orig[j]];
		rc = clu_linkage_classes(sub, k, mult, l, *out, e);
		free(sub);
		free(mult);
	}
	free(renum);
	free(orig);
	return rc;
}

/* For each attribute id of rb, the id of the attribute of the same name in ra, or UINT32_MAX:
 * attribute ids are per analysis, their names (functions, structural loop ids, frequencies)
 * are not. Built once per comparison, so that each trace's comparison is on integers. */
static uint32_t *attr_map(const an_result *ra, const an_result *rb)
{
	strmap m;
	strmap_init(&m);
	for (size_t i = 0; i < ra->nattrs; i++)
		strmap_put(&m, ra->attr_names[i], strlen(ra->attr_names[i]), (uint32_t)i);
	uint32_t *map = xmalloc((rb->nattrs ? rb->nattrs : 1) * sizeof *map);
	for (size_t i = 0; i < rb->nattrs; i++)
		if (!strmap_get(&m, rb->attr_names[i], strlen(rb->attr_names[i]), &map[i]))
			map[i] = UINT32_MAX;
	strmap_free(&m);
	return map;
}

static int cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	return (a > b) - (a < b);
}

/* 1 - Jaccard of object a's attributes in ra and object b's in rb (map: rb ids to ra ids). */
static double self_change(const an_result *ra, size_t a, const an_result *rb, size_t b,
			  const uint32_t *map, uint32_t *scratch)
{
	size_t na = ra->noattrs[a], nb = rb->noattrs[b], k = 0;
	for (size_t i = 0; i < nb; i++) {
		uint32_t id = rb->oattrs[b][i];
		if (id < rb->nattrs && map[id] != UINT32_MAX)
			scratch[k++] = map[id];
	}
	qsort(scratch, k, sizeof *scratch, cmp_u32);
	size_t inter = 0;
	for (size_t i = 0, q = 0; i < na && q < k;) { /* both ascending */
		if (ra->oattrs[a][i] < scratch[q])
			i++;
		else if (ra->oattrs[a][i] > scratch[q])
			q++;
		else {
			inter++;
			i++;
			q++;
		}
	}
	size_t uni = na + nb - inter;
	return uni ? 1.0 - (double)inter / (double)uni : 0.0;
}

/* The length of an attribute's name without its frequency: `:<f>` ends it unless the mode is
 * orig (attrs_render). */
static size_t base_len(const an_result *r, const char *name)
{
	const char *c = r->mode.freq == ATTRS_ORIG ? NULL : strrchr(name, ':');
	return c ? (size_t)(c - name) : strlen(name);
}

/* For each attribute of rb, whether no trace of ra has an attribute of that name, frequency
 * aside: behaviour the normal run never showed (a call with a new argument, a loop with a new
 * body), as opposed to behaviour that only stopped early or repeated more or less often. */
static uint8_t *attr_novel(const an_result *ra, const an_result *rb)
{
	strmap m;
	strmap_init(&m);
	for (size_t i = 0; i < ra->nattrs; i++)
		strmap_put(&m, ra->attr_names[i], base_len(ra, ra->attr_names[i]), 1);
	uint8_t *novel = xmalloc(rb->nattrs ? rb->nattrs : 1);
	for (size_t i = 0; i < rb->nattrs; i++) {
		uint32_t v;
		novel[i] = !strmap_get(&m, rb->attr_names[i], base_len(rb, rb->attr_names[i]), &v);
	}
	strmap_free(&m);
	return novel;
}

/* The share of trace b's attributes that are novel. */
static double novelty(const an_result *rb, size_t b, const uint8_t *novel)
{
	size_t nb = rb->noattrs[b], k = 0;
	for (size_t i = 0; i < nb; i++)
		k += rb->oattrs[b][i] < rb->nattrs && novel[rb->oattrs[b][i]];
	return nb ? (double)k / (double)nb : 0.0;
}

/* When the faulty run was stopped (a trace flagged timed-out), which of j's traces were still
 * running then (rank_running). */
static void find_running(const an_result *rf, rank_jsmd *j)
{
	int stopped = 0;
	for (size_t i = 0; i < rf->n; i++)
		stopped |= (rf->traces[i].flags & DT_TF_TIMEOUT) != 0;
	if (!stopped || !j->n)
		return;
	uint64_t *first = xmalloc(j->n * sizeof *first), *last = xmalloc(j->n * sizeof *last);
	uint8_t *valid = xmalloc(j->n);
	for (size_t i = 0; i < j->n; i++) {
		const store_trace *t = &rf->traces[j->row_faulty[i]];
		first[i] = t->first_ts;
		last[i] = t->last_ts;
		/* a clock that went back orders nothing */
		valid[i] = t->has_time && t->nevents > 0 && !(t->flags & DT_TF_TIME_REGRESSED);
	}
	j->running = xmalloc(j->n);
	j->n_running = rank_running(first, last, valid, j->n, j->running, &j->quiet);
	free(first);
	free(last);
	free(valid);
}

int analysis_compare(const an_result *rn, const an_result *rf, enum clu_linkage l, rank_jsmd *j,
		     double *bscore, dt_err *e)
{
	memset(j, 0, sizeof *j);
	rank_key *kn = analysis_keys(rn), *kf = analysis_keys(rf);
	double *jn = analysis_jsm(rn), *jf = analysis_jsm(rf);
	int r = rank_jsmd_build_rows(kn, rn->row, jn, rn->nrows, rn->n, kf, rf->row, jf, rf->nrows,
				     rf->n, j, e);
	if (!r && rn->oattrs && rf->oattrs && j->n) {
		uint32_t *map = attr_map(rn, rf);
		uint8_t *novel = attr_novel(rn, rf);
		size_t most = 1;
		for (size_t i = 0; i < rf->n; i++)
			most = rf->noattrs[i] > most ? rf->noattrs[i] : most;
		uint32_t *scratch = xmalloc(most * sizeof *scratch);
		/* a class's traces have the same attributes in both runs: its first one says */
		uint8_t *done = xcalloc(j->nc ? j->nc : 1, 1);
		for (size_t i = 0; i < j->n; i++) {
			/* a flag, not a count: a byte wraps at a class's 257th trace */
			if (done[j->cls[i]])
				continue;
			done[j->cls[i]] = 1;
			j->diag[j->cls[i]] = self_change(rn, j->row_normal[i], rf, j->row_faulty[i],
							 map, scratch) +
					     novelty(rf, j->row_faulty[i], novel);
		}
		free(done);
		free(scratch);
		free(map);
		free(novel);
	}
	if (!r)
		find_running(rf, j);
	*bscore = NAN;
	if (!r && j->n >= 3) {
		size_t m = j->n, dn = 0, df = 0;
		clu_merge *mn = NULL, *mf = NULL;
		uint32_t *cn = NULL, *cf = NULL;
		r = merges_on(rn, jn, j->row_normal, m, l, &cn, &dn, &mn, e);
		if (!r)
			r = merges_on(rf, jf, j->row_faulty, m, l, &cf, &df, &mf, e);
		if (!r)
			r = rank_bscore_mean_classes(m, cn, mn, dn, cf, mf, df, bscore, NULL);
		free(mn);
		free(mf);
		free(cn);
		free(cf);
	}
	if (r) {
		rank_jsmd_free(j);
		memset(j, 0, sizeof *j);
	}
	free(kn);
	free(kf);
	free(jn);
	free(jf);
	return r;
}

int analysis_run(store *s, const store_run *run, const an_params *p, int64_t *id, int *reused,
		 dt_err *e)
{
	for (int attempt = 0;; attempt++) {
		int r = an_run_once(s, run, p, id, reused, e);
		if (r != -2)
			return r;
		if (attempt == 20)
			return dt_errf(e, DT_EDATA, "the store kept changing during the analysis of %s",
				       run->name);
	}
}
