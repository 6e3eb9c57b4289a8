/* analysis.c: running the pipeline on a run (filter, NLR, attributes, JSM, classes, lattice)
 * and caching the results. Reading them back is analysis_load.c; comparing two runs'
 * analyses, analysis_compare.c. */
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
/* One analysis being made: what its stages hand each other. */
struct an_work {
	const store_run *run;
	const an_params *p;
	unsigned K;
	filt *f;
	filt_lib *lib;
	char mode[ATTRS_MODE_NAME_MAX], canon[512];
	store_trace *traces;
	size_t n;
	struct an_job *jobs;
	nlr_table *loops;
	uint32_t nloops0;      /* loops in the store when it began */
	filt_table keep;
	uint8_t *cand;
	peers *pr;
	strmap smap;
	struct an_pool pool;
	dt_buf seen;
	uint32_t *map;
	/* the results */
	attrs_set *as;
	ctx_bits ctx, cctx;
	double *jsm;
	uint32_t *labels, *rows, *mult;
	clu_merge *merges;
	size_t nident, nr, kcut;
	fca_lattice L;
	int have_lattice;
	dt_err lerr;
};

/* 1. filter and NLR, trace by trace, on worker threads; with .args, a first pass collects the
 * MPI calls' arguments, which are interned (with the peers relative) before the second. */
static int an_passes(store *s, struct an_work *w, dt_err *e)
{
	const an_params *p = w->p;
	size_t n = w->n, nnames;
	const char *const *names = store_func_names(s, &nnames);
	struct an_pool *pool = &w->pool;
	w->jobs = xcalloc(n, sizeof *w->jobs);
	pool->jobs = w->jobs;
	pool->njobs = n;
	pool->nopts.k = w->K;
	for (size_t i = 0; i < n; i++) {
		w->jobs[i].t = &w->traces[i];
		dt_err_clear(&w->jobs[i].err);
		pool->total_events += w->traces[i].nevents;
	}
	if (p->args) {
		/* The NAME[args] functions are interned here, on this thread, in trace order, before
		 * the pass that uses them: their ids do not depend on the number of threads. */
		pool->cand = w->cand = xcalloc(nnames ? nnames : 1, 1);
		pool->ncand = nnames;
		for (size_t i = 1; i < nnames; i++)
			w->cand[i] = names[i] &&
				     (!strncmp(names[i], "MPI_", 4) || !strncmp(names[i], "PMPI_", 5)) &&
				     !strchr(names[i], '[');
		pool->names = names;
		pool->collect = 1;
		for (size_t i = 0; i < n; i++)
			if (w->traces[i].nargs > 0)
				pool->total_events += w->traces[i].nevents;
		if (p->job ? an_split_pass(p->job, pool, p, w->run->id, NULL, e)
			   : an_pool_run(pool, p, e))
			return -1;
		/* what the other processes need for the second pass: the first pass's names, before
		 * they are rewritten (each process decides the peers from them as this one does) */
		if (p->job)
			an_split_snames(&w->seen, w->jobs, n);
		w->pr = an_peers(w->jobs, w->traces, n);
		dt_buf pbuf = { 0 };
		for (size_t i = 0; i < n; i++)
			for (size_t q = 0; q < w->jobs[i].nsnames; q++) {
				peers_rewrite(w->pr, w->jobs[i].snames[q].name, w->traces[i].proc, &pbuf);
				free(w->jobs[i].snames[q].name);
				w->jobs[i].snames[q].name = xstrndup((const char *)pbuf.p, pbuf.len);
			}
		buf_free(&pbuf);
		pool->peers = w->pr;
		if (an_intern(s, w->run, w->jobs, n, &w->smap, &w->keep, e))
			return -1;
		names = store_func_names(s, &nnames);
		pool->names = names;
		pool->smap = &w->smap;
		pool->collect = 0;
		pool->next = 0;
		pool->ended = 0;
	}
	if (p->job) {
		if (p->args)
			an_split_smap(&w->seen, w->jobs, n, &w->smap);
		return an_split_pass(p->job, pool, p, w->run->id, &w->seen, e);
	}
	return an_pool_run(pool, p, e);
}

/* 2. merge the loop tables in trace order: ids independent of the threads */
static int an_merge_loops(struct an_work *w, dt_err *e)
{
	for (size_t i = 0; i < w->n; i++) {
		uint32_t cnt = nlr_table_count(w->jobs[i].loops);
		w->map = xrealloc(w->map, (cnt ? cnt : 1) * sizeof *w->map);
		if (nlr_table_merge(w->loops, w->jobs[i].loops, w->map, e))
			return -1;
		nlr_remap(w->jobs[i].ent, w->jobs[i].nent, w->map);
		nlr_table_free(w->jobs[i].loops);
		w->jobs[i].loops = NULL;
	}
	return 0;
}

/* 3. attributes, context, similarity, classes, lattice */
static int an_results(struct an_work *w, dt_err *e)
{
	const an_params *p = w->p;
	size_t n = w->n;
	w->as = attrs_new(p->mode);
	for (size_t i = 0; i < n; i++)
		attrs_add(w->as, w->jobs[i].ent, w->jobs[i].nent);
	attrs_context(w->as, &w->ctx);
	w->labels = xmalloc(n * sizeof *w->labels);
	w->nident = clu_identical(&w->ctx, w->labels);
	/* The rows of the matrix, the clustering and the lattice: one per class of identical
	 * attribute sets, with its multiplicity (cluster.h says why the results are those of the
	 * full n x n matrix); p->uncollapsed, for the tests, keeps one row per trace. */
	size_t nr = w->nr = p->uncollapsed ? n : w->nident;
	w->rows = xmalloc(n * sizeof *w->rows);
	w->mult = xcalloc(nr, sizeof *w->mult);
	for (size_t i = 0; i < n; i++) {
		w->rows[i] = p->uncollapsed ? (uint32_t)i : w->labels[i];
		w->mult[w->rows[i]]++;
	}
	ctx_init(&w->cctx, nr, w->ctx.m);
	for (size_t i = 0; i < n; i++) /* identical rows: any copy will do */
		memcpy(ctx_row(&w->cctx, w->rows[i]), ctx_row(&w->ctx, i),
		       w->ctx.words * sizeof *w->ctx.bits);
	ctx_free(&w->ctx);
	w->jsm = xmalloc(nr * nr * sizeof *w->jsm);
	jac_matrix(&w->cctx, w->jsm);
	w->merges = xmalloc((nr > 1 ? nr - 1 : 1) * sizeof *w->merges);
	if (nr > 1 && clu_linkage_classes(w->jsm, nr, w->mult, p->linkage, w->merges, e))
		return -1;
	/* the full clustering's largest gap is never past the D classes (the merges there are
	 * all at height 0) */
	size_t kmax = n < 16 ? n : 16;
	w->kcut = p->kcut ? p->kcut
			  : (nr > 1 ? clu_auto_k(w->merges, nr, kmax < nr ? kmax : nr) : 1);
	if (w->kcut > n)
		w->kcut = n;
	dt_err_clear(&w->lerr);
	/* too many concepts: the analysis stands without its lattice, and says why. Its objects
	 * are the rows: duplicate objects change no concept (fca.h numbers them by intent). */
	w->have_lattice = fca_build(&w->cctx, ANALYSIS_MAX_CONCEPTS, &w->L, &w->lerr) == 0;
	return 0;
}

/* 4a. the analysis's row, its new loops and its objects */
static int an_write_objects(store *s, struct an_work *w, int64_t *id, dt_err *e)
{
	if (store_analysis_create(s, w->run->id, w->canon, w->mode, (int)w->K, ANALYSIS_VERSION,
				  id, e))
		return -1;
	for (uint32_t i = w->nloops0; i < nlr_table_count(w->loops); i++) {
		size_t len;
		const nlr_entry *body = nlr_table_body(w->loops, i, &len);
		if (store_loop_put(s, i, body, len, e))
			return -1;
	}
	an_objects_w ow;
	an_objects_begin(&ow, w->n);
	for (size_t i = 0; i < w->n; i++) {
		size_t na;
		const uint32_t *a = attrs_object(w->as, i, &na);
		an_objects_put(&ow, &w->traces[i], w->jobs[i].nfiltered, a, na);
		if (store_analysis_put_trace(s, *id, (int)i, w->traces[i].id, w->jobs[i].nfiltered,
					     w->jobs[i].ent, w->jobs[i].nent, a, na, e)) {
			buf_free(&ow.b);
			return -1;
		}
	}
	int ow_bad = store_analysis_put_blob(s, *id, "objects", ow.b.p, ow.b.len, e);
	buf_free(&ow.b);
	return ow_bad ? -1 : 0;
}

/* 4b. the attributes' names and the results' blobs */
static int an_write_results(store *s, struct an_work *w, int64_t id, dt_err *e)
{
	const an_params *p = w->p;
	size_t n = w->n, nr = w->nr;
	struct names_ctx nc = { s };
	char scratch[4096];
	for (uint32_t a = 0; a < attrs_nattrs(w->as); a++) {
		attrs_render(p->mode, attrs_key_of(w->as, a), fname, &nc, scratch, sizeof scratch);
		if (store_analysis_put_attr(s, id, a, scratch, e))
			return -1;
	}
	float *fj = xmalloc(nr * nr * sizeof *fj);
	for (size_t i = 0; i < nr * nr; i++)
		fj[i] = (float)w->jsm[i];
	int wr = store_analysis_put_blob(s, id, "jsm", fj, nr * nr * sizeof *fj, e);
	free(fj);
	if (wr)
		return -1;
	dt_buf b = { 0 };
	int rc = -1;
	put_u32s(&b, w->labels, n);
	if (store_analysis_put_blob(s, id, "identical", b.p, b.len, e))
		goto out;
	if (p->uncollapsed) {
		b.len = 0;
		put_u32s(&b, w->rows, n);
		if (store_analysis_put_blob(s, id, "rows", b.p, b.len, e))
			goto out;
	}
	b.len = 0;
	put_merges(&b, w->merges, nr > 1 ? nr - 1 : 0);
	char key[64];
	snprintf(key, sizeof key, "merges.%s", clu_linkage_name(p->linkage));
	if (store_analysis_put_blob(s, id, key, b.p, b.len, e))
		goto out;
	b.len = 0;
	buf_uvar(&b, w->kcut);
	buf_put(&b, clu_linkage_name(p->linkage), strlen(clu_linkage_name(p->linkage)));
	if (store_analysis_put_blob(s, id, "cut", b.p, b.len, e))
		goto out;
	if (w->have_lattice) {
		b.len = 0;
		put_lattice(&b, &w->L);
		if (store_analysis_put_blob(s, id, "lattice", b.p, b.len, e))
			goto out;
	} else if (store_analysis_put_blob(s, id, "lattice.error", w->lerr.msg,
					   strlen(w->lerr.msg), e)) {
		goto out;
	}
	snprintf(scratch, sizeof scratch, "%sK%u", filt_alias(w->f), w->K);
	if (store_analysis_put_blob(s, id, "alias", scratch, strlen(scratch), e))
		goto out;
	if (store_analysis_set_counts(s, id, (int)n, (int)attrs_nattrs(w->as), (int)w->nident, e))
		goto out;
	rc = 0;
out:
	buf_free(&b);
	return rc;
}

/* 4. write it all, one transaction: -2 when another difftrace added loops meanwhile (the ids
 * this one gave its loops are then taken; the caller starts again) */
static int an_write(store *s, struct an_work *w, int64_t *id, dt_err *e)
{
	if (store_cache_writable(s, e) || store_begin(s, e))
		return -1;
	uint32_t nloops1;
	int rc = -1;
	if (store_loops_count(s, &nloops1, e))
		goto fail;
	if (nloops1 != w->nloops0) {
		rc = -2;
		goto fail;
	}
	if (an_write_objects(s, w, id, e) || an_write_results(s, w, *id, e) || store_commit(s, e))
		goto fail;
	return 0;
fail:
	store_rollback(s);
	return rc;
}

static void an_work_free(struct an_work *w)
{
	if (w->have_lattice)
		fca_free(&w->L);
	pthread_mutex_destroy(&w->pool.mu);
	pthread_cond_destroy(&w->pool.done);
	for (size_t i = 0; w->jobs && i < w->n; i++) {
		for (size_t j = 0; j < w->jobs[i].nsnames; j++)
			free(w->jobs[i].snames[j].name);
		free(w->jobs[i].snames);
		free(w->jobs[i].ent);
		nlr_table_free(w->jobs[i].loops);
	}
	free(w->jobs);
	free(w->cand);
	peers_free(w->pr);
	strmap_free(&w->smap);
	free(w->map);
	buf_free(&w->seen);
	free(w->labels);
	free(w->merges);
	free(w->rows);
	free(w->mult);
	free(w->jsm);
	ctx_free(&w->ctx);
	ctx_free(&w->cctx);
	attrs_free(w->as);
	nlr_table_free(w->loops);
	filt_table_free(&w->keep);
	store_traces_free(w->traces, w->n);
	filt_free(w->f);
	filt_lib_free(w->lib);
}

static int an_run_once(store *s, const store_run *run, const an_params *p, int64_t *id,
		       int *reused, dt_err *e)
{
	struct an_work *w = xcalloc(1, sizeof *w);
	w->run = run;
	w->p = p;
	w->K = p->k ? p->k : NLR_K_DEFAULT;
	w->loops = nlr_table_new();
	strmap_init(&w->smap);
	w->pool = (struct an_pool){ .path = store_path(s), .keep = &w->keep, .p = p };
	pthread_mutex_init(&w->pool.mu, NULL);
	pthread_cond_init(&w->pool.done, NULL);
	int rc = -1;
	*reused = 0;
	if (build_filter(s, p, &w->lib, &w->f, e))
		goto out;
	cache_key(p, w->f, w->mode, sizeof w->mode, w->canon, sizeof w->canon);
	store_analysis old;
	int found = store_analysis_find(s, run->id, w->canon, w->mode, (int)w->K, &old, e);
	if (found < 0)
		goto out;
	if (found) {
		int fresh = !strcmp(old.version, ANALYSIS_VERSION);
		*id = old.id;
		store_analysis_free(&old);
		if (fresh && !p->force) {
			*reused = 1;
			rc = 0;
			goto out;
		}
	}
	size_t nnames;
	const char *const *names = store_func_names(s, &nnames);
	if (filt_table_build(w->f, names, nnames, &w->keep, e) ||
	    store_trace_list(s, run->id, &w->traces, &w->n, e))
		goto out;
	if (!w->n) {
		dt_errf(e, DT_EDATA, "run '%s' has no traces", run->name);
		goto out;
	}
	if (store_loops_count(s, &w->nloops0, e) || store_loops_each(s, load_loop, w->loops, e))
		goto out;
	if (an_passes(s, w, e) || an_merge_loops(w, e) || an_results(w, e))
		goto out;
	rc = an_write(s, w, id, e);
out:
	an_work_free(w);
	free(w);
	return rc;
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
