/* timing.c: a performance change among traces whose calls agree (timing.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/fstats.h"
#include "analysis/timing.h"
#include "util/util.h"

#define LOAD_BLOCK 65536

int tm_waits(const char *name)
{
	static const char *const prefix[] = {
		"MPI_", "PMPI_", "mpi_", "GOMP_", "omp_", "__kmpc_", "pthread_", "sem_", "__sched_",
		"sched_yield", "nanosleep", "clock_nanosleep", "usleep", "sleep", "poll", "epoll_",
		"select", "pselect", "futex", "ompi_", "opal_", "MPID", "MPIR_",
	};
	for (size_t i = 0; i < sizeof prefix / sizeof *prefix; i++)
		if (!strncmp(name, prefix[i], strlen(prefix[i])))
			return 1;
	return 0;
}

/* One trace: its own functions' self times (sorted by function), and their sum. */
typedef struct tm_trace {
	int32_t proc, thread;
	uint32_t *f;
	uint64_t *self;
	size_t n;
	uint64_t own; /* the self time of those functions: the time it worked */
} tm_trace;

static int cmp_pt(const void *x, const void *y)
{
	const tm_trace *a = x, *b = y;
	if (a->proc != b->proc)
		return a->proc < b->proc ? -1 : 1;
	return a->thread < b->thread ? -1 : a->thread > b->thread;
}

/* The traces of run with timestamps, each with its own functions' self times. */
static int load_run(store *s, const char *run, tm_trace **out, size_t *nout, dt_err *e)
{
	*out = NULL;
	*nout = 0;
	store_trace *tr = NULL;
	size_t n = 0;
	int rc = store_run_trace_list(s, run, &tr, &n, e);
	if (rc)
		return -1;
	tm_trace *v = xcalloc(n ? n : 1, sizeof *v);
	size_t m = 0;
	uint32_t *ev = xmalloc(LOAD_BLOCK * sizeof *ev);
	uint64_t *ts = xmalloc(LOAD_BLOCK * sizeof *ts);
	size_t nnames;
	const char *const *names = store_func_names(s, &nnames);
	for (size_t i = 0; i < n && !rc; i++) {
		if (!tr[i].has_time)
			continue;
		fstats fs;
		fstats_init(&fs);
		store_cursor *c;
		if (store_cursor_open(s, &tr[i], 0, &c, e)) {
			rc = -1;
			fstats_free(&fs);
			break;
		}
		fstats_begin(&fs, 1);
		int64_t k;
		while ((k = store_cursor_next(c, ev, ts, LOAD_BLOCK, e)) > 0)
			fstats_push(&fs, ev, ts, (size_t)k);
		fstats_end(&fs);
		store_cursor_close(c);
		if (k < 0) {
			rc = -1;
			fstats_free(&fs);
			break;
		}
		names = store_func_names(s, &nnames);
		tm_trace *t = &v[m++];
		t->proc = tr[i].proc;
		t->thread = tr[i].thread;

		t->f = xmalloc((fs.nf ? fs.nf : 1) * sizeof *t->f);
		t->self = xmalloc((fs.nf ? fs.nf : 1) * sizeof *t->self);
		for (size_t f = 1; f < fs.nf; f++) {
			if (!fs.f[f].calls || !fs.f[f].self)
				continue;
			if (f < nnames && names[f] && tm_waits(names[f]))
				continue;
			t->f[t->n] = (uint32_t)f;
			t->self[t->n++] = fs.f[f].self;
			t->own += fs.f[f].self;
		}
		fstats_free(&fs);
	}
	free(ev);
	free(ts);
	store_traces_free(tr, n);
	if (rc) {
		for (size_t i = 0; i < m; i++) {
			free(v[i].f);
			free(v[i].self);
		}
		free(v);
		return -1;
	}
	qsort(v, m, sizeof *v, cmp_pt);
	*out = v;
	*nout = m;
	return 0;
}

static uint64_t self_of(const tm_trace *t, uint32_t f)
{
	size_t lo = 0, hi = t->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->f[mid] == f)
			return t->self[mid];
		if (t->f[mid] < f)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return a < b ? -1 : a > b;
}

static int cmp_find(const void *x, const void *y)
{
	const tm_find *a = x, *b = y;
	if (a->significant != b->significant)
		return a->significant ? -1 : 1;
	if (a->gained != b->gained)
		return a->gained > b->gained ? -1 : 1;
	if (a->proc != b->proc)
		return a->proc < b->proc ? -1 : 1;
	return a->thread < b->thread ? -1 : a->thread > b->thread;
}

int tm_compare(store *s, const char *normal, const char *faulty, tm_find **out, size_t *nout,
	       dt_err *e)
{
	*out = NULL;
	*nout = 0;
	tm_trace *a, *b;
	size_t na, nb;
	if (load_run(s, normal, &a, &na, e))
		return -1;
	if (load_run(s, faulty, &b, &nb, e)) {
		for (size_t i = 0; i < na; i++) {
			free(a[i].f);
			free(a[i].self);
		}
		free(a);
		return -1;
	}
	/* the matched traces, by P.T */
	size_t m = 0, i = 0, j = 0;
	size_t *ia = xmalloc((na ? na : 1) * sizeof *ia), *ib = xmalloc((na ? na : 1) * sizeof *ib);
	while (i < na && j < nb) {
		int c = cmp_pt(&a[i], &b[j]);
		if (!c) {
			ia[m] = i++;
			ib[m++] = j++;
		} else if (c < 0) {
			i++;
		} else {
			j++;
		}
	}
	tm_find *r = xcalloc(m ? m : 1, sizeof *r);
	double *fac = xmalloc((m ? m : 1) * sizeof *fac), *peer = xmalloc((m ? m : 1) * sizeof *peer);
	for (size_t t = 0; t < m; t++) {
		const tm_trace *tn = &a[ia[t]], *tf = &b[ib[t]];
		tm_find best = { tn->proc, tn->thread, 0, 0, 0, 0, 0, 0, 0 };
		for (size_t q = 0; q < tn->n; q++) {
			uint32_t f = tn->f[q];
			uint64_t sn = tn->self[q], sf = self_of(tf, f);
			if (!sn || !sf)
				continue;
			/* the factors of its peers: the other matched traces with that function */
			size_t np = 0;
			for (size_t u = 0; u < m; u++) {
				if (u == t)
					continue;
				uint64_t pn = self_of(&a[ia[u]], f), pf = self_of(&b[ib[u]], f);
				if (pn && pf)
					fac[np++] = (double)pf / (double)pn;
			}
			if (np < 2)
				continue;
			qsort(fac, np, sizeof *fac, cmp_double);
			double med = np % 2 ? fac[np / 2] : (fac[np / 2 - 1] + fac[np / 2]) / 2;
			for (size_t u = 0; u < np; u++)
				peer[u] = fabs(log(fac[u] / med));
			qsort(peer, np, sizeof *peer, cmp_double);
			double spread = peer[np - 1]; /* the farthest peer from the median */
			double x = (double)sf / (double)sn;
			double beyond = (double)sf - med * (double)sn;
			uint64_t gained = beyond > 0 ? (uint64_t)beyond : 0;
			int sig = x >= TM_MIN_FACTOR * med && log(x / med) > 3 * spread &&
				  gained >= TM_MIN_GAIN_NS && (double)gained >= TM_MIN_SHARE * (double)tf->own;
			if (!best.func || (sig && !best.significant) ||
			    (sig == best.significant &&
			     (gained > best.gained || (gained == best.gained && sf > best.self_f)))) {
				best.func = f;
				best.self_n = sn;
				best.self_f = sf;
				best.factor = x;
				best.peers = med;
				best.gained = gained;
				best.significant = sig;
			}
		}
		r[t] = best;
	}
	qsort(r, m, sizeof *r, cmp_find);
	free(fac);
	free(peer);
	free(ia);
	free(ib);
	for (size_t k = 0; k < na; k++) {
		free(a[k].f);
		free(a[k].self);
	}
	for (size_t k = 0; k < nb; k++) {
		free(b[k].f);
		free(b[k].self);
	}
	free(a);
	free(b);
	*out = r;
	*nout = m;
	return 0;
}
