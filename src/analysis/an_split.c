/* an_split.c: an analysis's per-trace work over the processes of an MPI job (an_split.h). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/an_split.h"
#include "util/util.h"

/* message kinds: process 0's passes and end, the others' results and errors */
enum { M_COLLECT = 'C', M_NLR = 'N', M_END = 'E', M_RESULTS = 'R', M_ERROR = 'X' };

/* ---- reading the bytes ---- */

typedef struct rd {
	const uint8_t *p;
	size_t n, pos;
	int bad;
} rd;

static uint64_t rd_u(rd *r)
{
	uint64_t v = 0;
	if (!r->bad && uvar_get(r->p, r->n, &r->pos, &v))
		r->bad = 1;
	return r->bad ? 0 : v;
}

/* n bytes in place (NULL when short). */
static const uint8_t *rd_bytes(rd *r, uint64_t n)
{
	if (r->bad || n > r->n - r->pos) {
		r->bad = 1;
		return NULL;
	}
	const uint8_t *q = r->p + r->pos;
	r->pos += (size_t)n;
	return q;
}

/* A string (length, bytes), malloc'd and NUL-terminated; "" when short. */
static char *rd_str(rd *r)
{
	uint64_t l = rd_u(r);
	const uint8_t *q = rd_bytes(r, l);
	return q ? xstrndup((const char *)q, (size_t)l) : xstrdup("");
}

static void put_str(dt_buf *b, const char *s, size_t l)
{
	buf_uvar(b, l);
	buf_put(b, s, l);
}

/* ---- errors as bytes ---- */

static void put_error(dt_buf *b, size_t trace, const dt_err *e)
{
	buf_byte(b, M_ERROR);
	buf_uvar(b, trace);
	buf_uvar(b, (uint64_t)(e->status ? e->status : DT_EDATA));
	put_str(b, e->file, strlen(e->file));
	buf_uvar(b, (uint64_t)(e->offset + 1));
	buf_uvar(b, (uint64_t)(e->line > 0 ? e->line : 0));
	buf_uvar(b, (uint64_t)(e->col > 0 ? e->col : 0));
	put_str(b, e->msg, strlen(e->msg));
}

static void get_error(rd *r, dt_err *e)
{
	dt_err_clear(e);
	e->status = (int)rd_u(r);
	char *f = rd_str(r);
	snprintf(e->file, sizeof e->file, "%s", f);
	free(f);
	e->offset = (int64_t)rd_u(r) - 1;
	e->line = (int)rd_u(r);
	e->col = (int)rd_u(r);
	char *m = rd_str(r);
	snprintf(e->msg, sizeof e->msg, "%s", m);
	free(m);
	if (e->status != DT_EDATA && e->status != DT_EUSAGE)
		e->status = DT_EDATA;
}

/* ---- the results of a share ---- */

static void put_job(dt_buf *b, const struct an_job *j, int collect)
{
	if (collect) {
		buf_uvar(b, j->nsnames);
		for (size_t q = 0; q < j->nsnames; q++) {
			buf_uvar(b, j->snames[q].base);
			put_str(b, j->snames[q].name, strlen(j->snames[q].name));
		}
		return;
	}
	buf_uvar(b, j->nfiltered);
	uint32_t nl = nlr_table_count(j->loops);
	buf_uvar(b, nl);
	for (uint32_t i = 0; i < nl; i++) {
		size_t len;
		const nlr_entry *body = nlr_table_body(j->loops, i, &len);
		buf_uvar(b, len);
		buf_put(b, body, len * sizeof *body);
	}
	buf_uvar(b, j->nent);
	buf_put(b, j->ent, j->nent * sizeof *j->ent);
}

static int get_job(rd *r, struct an_job *j, int collect, dt_err *e)
{
	if (collect) {
		uint64_t m = rd_u(r);
		if (m > r->n)
			return r->bad = 1, -1;
		j->snames = xcalloc(m ? (size_t)m : 1, sizeof *j->snames);
		j->capsnames = m ? (size_t)m : 1;
		for (uint64_t q = 0; q < m && !r->bad; q++) {
			uint64_t base = rd_u(r);
			j->snames[q].base = (uint32_t)base;
			j->snames[q].name = rd_str(r);
			j->nsnames++;
		}
		return r->bad ? -1 : 0;
	}
	j->nfiltered = rd_u(r);
	uint64_t nl = rd_u(r);
	j->loops = nlr_table_new();
	for (uint64_t i = 0; i < nl && !r->bad; i++) {
		uint64_t len = rd_u(r);
		const uint8_t *q = len <= r->n ? rd_bytes(r, len * sizeof(nlr_entry)) : NULL;
		if (!q)
			return r->bad = 1, -1;
		nlr_entry *body = xmalloc((len ? (size_t)len : 1) * sizeof *body);
		memcpy(body, q, (size_t)len * sizeof *body);
		int rc = nlr_table_load(j->loops, (uint32_t)i, body, (size_t)len, e);
		free(body);
		if (rc)
			return -1;
	}
	uint64_t ne = rd_u(r);
	const uint8_t *q = ne <= r->n ? rd_bytes(r, ne * sizeof(nlr_entry)) : NULL;
	if (!q)
		return r->bad = 1, -1;
	j->ent = xmalloc((ne ? (size_t)ne : 1) * sizeof *j->ent);
	memcpy(j->ent, q, (size_t)ne * sizeof *j->ent);
	j->nent = (size_t)ne;
	return 0;
}

/* ---- process 0 ---- */

static void put_pass(dt_buf *b, const struct an_pool *pool, const an_params *p, int64_t run_id,
		     const dt_buf *args)
{
	buf_byte(b, pool->collect ? M_COLLECT : M_NLR);
	buf_uvar(b, (uint64_t)run_id);
	buf_uvar(b, pool->nopts.k);
	buf_uvar(b, (uint64_t)(p->threads > 0 ? p->threads : 0));
	/* the candidates are functions of the import, which every process's store has read:
	 * ids past the last candidate (this command's NAME[args] among them) are none */
	size_t ncand = pool->ncand;
	while (ncand && !pool->cand[ncand - 1])
		ncand--;
	buf_uvar(b, ncand);
	size_t nc = 0;
	for (size_t i = 0; i < pool->ncand; i++)
		nc += pool->cand[i] != 0;
	buf_uvar(b, nc);
	for (size_t i = 0; i < pool->ncand; i++)
		if (pool->cand[i])
			buf_uvar(b, i);
	if (pool->collect)
		return;
	const filt_table *k = pool->keep;
	buf_uvar(b, k->n);
	buf_put(b, k->keep, k->n);
	buf_uvar(b, (uint64_t)k->keep_returns);
	buf_uvar(b, (uint64_t)k->compat);
	buf_uvar(b, k->ret_copies);
	buf_uvar(b, k->max_copies);
	buf_uvar(b, k->nkept);
	buf_uvar(b, args ? 1 : 0);
	if (args)
		buf_put(b, args->p, args->len);
}

void an_split_snames(dt_buf *b, const struct an_job *jobs, size_t n)
{
	buf_uvar(b, n);
	for (size_t i = 0; i < n; i++) {
		buf_uvar(b, jobs[i].nsnames);
		for (size_t q = 0; q < jobs[i].nsnames; q++)
			put_str(b, jobs[i].snames[q].name, strlen(jobs[i].snames[q].name));
	}
}

void an_split_smap(dt_buf *b, const struct an_job *jobs, size_t n, const strmap *smap)
{
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		m += jobs[i].nsnames;
	buf_uvar(b, m);
	for (size_t i = 0; i < n; i++)
		for (size_t q = 0; q < jobs[i].nsnames; q++) {
			const char *nm = jobs[i].snames[q].name;
			uint32_t id = 0;
			strmap_get(smap, nm, strlen(nm), &id);
			put_str(b, nm, strlen(nm));
			buf_uvar(b, id);
		}
}

/* The events a trace's pass reads, as the pool counts them for progress. */
static uint64_t pass_events(const struct an_pool *pool, const struct an_job *j)
{
	if (pool->collect)
		return pool->ncand && j->t->nargs > 0 ? j->t->nevents : 0;
	return j->t->nevents;
}

int an_split_pass(dt_par *job, struct an_pool *pool, const an_params *p, int64_t run_id,
		  const dt_buf *args, dt_err *e)
{
	dt_buf m = { 0 };
	put_pass(&m, pool, p, run_id, args);
	int rc = job->bcast(job, &m.p, &m.len, e);
	buf_free(&m);
	if (rc)
		return -1;
	size_t P = (size_t)job->size;
	pool->first = 0;
	pool->step = P;
	dt_err own;
	dt_err_clear(&own);
	an_pool_run(pool, p, &own); /* its failures stay in pool->jobs */
	/* every other process's answer, even after a failure: none is left waiting to send */
	dt_err first;
	dt_err_clear(&first);
	int failed = 0;
	for (size_t q = 1; q < P; q++) {
		uint8_t *buf = NULL;
		size_t n = 0;
		dt_err re;
		dt_err_clear(&re);
		if (job->recv(job, (int)q, &buf, &n, &re)) {
			if (!failed++)
				first = re;
			continue;
		}
		rd r = { buf, n, 0, 0 };
		const uint8_t *kind = rd_bytes(&r, 1);
		if (kind && *kind == M_ERROR) {
			size_t i = (size_t)rd_u(&r);
			dt_err we;
			get_error(&r, &we);
			if (i < pool->njobs && i % P == q) {
				pool->jobs[i].failed = 1;
				pool->jobs[i].err = we;
			} else if (!r.bad && !failed++) { /* not about a trace */
				first = we;
			}
		} else if (kind && *kind == M_RESULTS) {
			for (size_t i = q; i < pool->njobs && !r.bad; i += P) {
				dt_err je;
				dt_err_clear(&je);
				if (get_job(&r, &pool->jobs[i], pool->collect, &je) && !r.bad) {
					pool->jobs[i].failed = 1;
					pool->jobs[i].err = je;
				}
				pthread_mutex_lock(&pool->mu);
				pool->done_events += pass_events(pool, &pool->jobs[i]);
				pthread_mutex_unlock(&pool->mu);
			}
		} else {
			r.bad = 1;
		}
		if ((r.bad || r.pos != r.n) && !failed++)
			dt_errf(&first, DT_EDATA, "process %zu of the analysis sent bytes that are not its "
				"results (%zu bytes)", q, n);
		free(buf);
		if (p->progress)
			p->progress(p->progress_arg, pool->done_events, pool->total_events);
	}
	pool->first = 0;
	pool->step = 0;
	if (an_pool_error(pool, e))
		return -1;
	if (failed) {
		*e = first;
		return -1;
	}
	return 0;
}

int an_split_end(dt_par *job, int status, dt_err *e)
{
	dt_buf m = { 0 };
	buf_byte(&m, M_END);
	buf_uvar(&m, (uint64_t)status);
	int rc = job->bcast(job, &m.p, &m.len, e);
	buf_free(&m);
	return rc;
}

/* ---- the other processes ---- */

static void free_jobs(struct an_job *jobs, size_t n)
{
	for (size_t i = 0; jobs && i < n; i++) {
		for (size_t q = 0; q < jobs[i].nsnames; q++)
			free(jobs[i].snames[q].name);
		free(jobs[i].snames);
		free(jobs[i].ent);
		nlr_table_free(jobs[i].loops);
	}
	free(jobs);
}

/* One pass of process 0's message r (its kind read): this process's share's answer into out. */
static void serve_pass(dt_par *job, store *s, int kind, rd *r, dt_buf *out)
{
	dt_err e;
	dt_err_clear(&e);
	store_trace *traces = NULL;
	size_t n = 0;
	struct an_job *jobs = NULL;
	uint8_t *cand = NULL;
	filt_table keep = { 0 };
	peers *pr = NULL;
	strmap smap;
	strmap_init(&smap);
	struct an_pool pool;
	memset(&pool, 0, sizeof pool);
	pthread_mutex_init(&pool.mu, NULL);
	pthread_cond_init(&pool.done, NULL);
	an_params wp;
	memset(&wp, 0, sizeof wp);

	int64_t run_id = (int64_t)rd_u(r);
	pool.nopts.k = (unsigned)rd_u(r);
	wp.threads = (int)rd_u(r);
	pool.ncand = (size_t)rd_u(r);
	uint64_t nc = rd_u(r);
	size_t nnames = 0;
	const char *const *names = store_func_names(s, &nnames);
	if (r->bad || pool.ncand > nnames || nc > pool.ncand) {
		dt_errf(&e, DT_EDATA, "process %d: the store's functions are not those process 0 "
			"reads (%zu of %zu)", job->rank, nnames, pool.ncand);
		goto fail;
	}
	pool.cand = cand = xcalloc(pool.ncand ? pool.ncand : 1, 1);
	for (uint64_t i = 0; i < nc; i++) {
		uint64_t f = rd_u(r);
		if (f < pool.ncand)
			cand[f] = 1;
	}
	pool.names = names;
	pool.collect = kind == M_COLLECT;
	if (store_trace_list(s, run_id, &traces, &n, &e))
		goto fail;
	jobs = xcalloc(n ? n : 1, sizeof *jobs);
	for (size_t i = 0; i < n; i++) {
		jobs[i].t = &traces[i];
		dt_err_clear(&jobs[i].err);
	}
	if (!pool.collect) {
		keep.n = (size_t)rd_u(r);
		const uint8_t *k = rd_bytes(r, keep.n);
		keep.keep = xmalloc(keep.n ? keep.n : 1);
		if (k)
			memcpy(keep.keep, k, keep.n);
		keep.keep_returns = (int)rd_u(r);
		keep.compat = (int)rd_u(r);
		keep.ret_copies = (uint8_t)rd_u(r);
		keep.max_copies = (uint8_t)rd_u(r);
		keep.nkept = (size_t)rd_u(r);
		if (rd_u(r)) {
			/* args mode: the first pass's names of every trace, the peers, the ids */
			if (rd_u(r) != n) {
				dt_errf(&e, DT_EDATA, "process %d: the run's traces are not those process 0 "
					"reads", job->rank);
				goto fail;
			}
			for (size_t i = 0; i < n && !r->bad; i++) {
				uint64_t m = rd_u(r);
				if (m > r->n) {
					r->bad = 1;
					break;
				}
				jobs[i].snames = xcalloc(m ? (size_t)m : 1, sizeof *jobs[i].snames);
				for (uint64_t q = 0; q < m && !r->bad; q++)
					jobs[i].snames[jobs[i].nsnames++].name = rd_str(r);
			}
			pr = an_peers(jobs, traces, n);
			uint64_t m = rd_u(r);
			for (uint64_t q = 0; q < m && !r->bad; q++) {
				char *nm = rd_str(r);
				uint32_t id = (uint32_t)rd_u(r);
				strmap_put(&smap, nm, strlen(nm), id);
				free(nm);
			}
			pool.peers = pr;
			pool.smap = &smap;
		}
	}
	if (r->bad || r->pos != r->n) {
		dt_errf(&e, DT_EDATA, "process %d: a message of process 0 that is not a pass (%zu "
			"bytes)", job->rank, r->n);
		goto fail;
	}
	pool.keep = &keep;
	pool.path = store_path(s);
	pool.p = &wp;
	pool.jobs = jobs;
	pool.njobs = n;
	pool.first = (size_t)job->rank;
	pool.step = (size_t)job->size;
	if (an_pool_run(&pool, &wp, &e)) {
		size_t i = 0;
		while (i < n && !(jobs[i].failed && !jobs[i].stopped))
			i++;
		for (size_t q = 0; i == n && q < n; q++)
			if (jobs[q].failed)
				i = q;
		out->len = 0;
		put_error(out, i, &e);
		goto done;
	}
	out->len = 0;
	buf_byte(out, M_RESULTS);
	for (size_t i = pool.first; i < n; i += pool.step)
		put_job(out, &jobs[i], pool.collect);
	goto done;
fail:
	out->len = 0;
	put_error(out, (size_t)job->rank, &e);
done:
	pthread_mutex_destroy(&pool.mu);
	pthread_cond_destroy(&pool.done);
	free_jobs(jobs, n);
	free(cand);
	filt_table_free(&keep);
	peers_free(pr);
	strmap_free(&smap);
	store_traces_free(traces, n);
}

int an_split_serve(dt_par *job, store *s, const dt_err *open_err)
{
	dt_buf out = { 0 };
	for (;;) {
		uint8_t *buf = NULL;
		size_t n = 0;
		dt_err e;
		dt_err_clear(&e);
		if (job->bcast(job, &buf, &n, &e)) {
			buf_free(&out);
			return 1;
		}
		rd r = { buf, n, 0, 0 };
		const uint8_t *kind = rd_bytes(&r, 1);
		if (kind && *kind == M_END) {
			int status = (int)rd_u(&r);
			free(buf);
			buf_free(&out);
			return status;
		}
		out.len = 0;
		if (!s) {
			put_error(&out, (size_t)job->rank, open_err);
		} else if (kind && (*kind == M_COLLECT || *kind == M_NLR)) {
			serve_pass(job, s, *kind, &r, &out);
		} else {
			dt_errf(&e, DT_EDATA, "process %d: a message of process 0 that is not a pass",
				job->rank);
			put_error(&out, (size_t)job->rank, &e);
		}
		free(buf);
		if (job->send(job, out.p, out.len, &e)) {
			buf_free(&out);
			return 1;
		}
	}
}
