/* bench_order.c: the causality filter's speed and memory, next to its peers, measured the same
 * way (thread CPU time, in process, on the same events).
 *
 *   bench_order [EVENTS]   (default 100000000)
 *
 * 1. Streaming (also with a held-event limit of 2^17 instead of 2^20): a synthetic run of 1,024 traces (256 processes x 4 threads, 64 hosts with clock
 *    skew and drift; every point-to-point, collective and OpenMP pattern of tests/synth_sync.h)
 *    is generated in chunks, each chunk arrives shuffled (bounded delays), and is pushed through
 *    the filter under each policy. Only the pushes are timed. Peak held events and the filter's
 *    tables show the memory bound.
 * 2. In memory, on the first min(EVENTS, 4M) events of the same run: the filter (minimal
 *    intervention) against a plain timestamp sort and a post-mortem topological sort (the
 *    happens-before edges built directly, then Kahn's algorithm).
 * 3. The adjusted-timestamp policy against a forward correction (each late receive shifts its
 *    thread's later events by the same amount) and a Scalasca-style controlled logical clock
 *    (forward pass, local intervals kept with gamma = 0.99; no backward amortization): events
 *    moved, total and largest move. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "order/filter.h"
#include "order/rules.h"
#include "synth_sync.h"

#define NPROC 256
#define NTHR 4
#define PER_HOST 4
#define SKEW 20000   /* ns */
#define DRIFT 20     /* ppm */
#define DELAY 50000  /* ns of arrival delay */

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static long max_rss_mb(void)
{
	struct rusage u;
	getrusage(RUSAGE_SELF, &u);
	return u.ru_maxrss / 1024;
}

static void emit_none(void *ctx, const ord_out *o)
{
	uint64_t *sum = ctx;
	*sum += o->id ^ (uint64_t)o->ts;
}

static ord_rules *load(void)
{
	ord_rules *r = ord_rules_new();
	dt_err e;
	dt_err_clear(&e);
	if (ord_rules_load_default(r, &e) || ord_rules_bind(r, synth_names, SY_NFUNC, &e)) {
		char b[1024];
		dt_err_format(&e, b, sizeof b);
		fprintf(stderr, "bench_order: %s (set DIFFTRACE_RULES_PATH to the rules/ folder)\n", b);
		exit(1);
	}
	return r;
}

static void streaming(const ord_rules *r, uint64_t total, int policy, size_t max_held)
{
	synth s;
	synth_init(&s, NPROC, NTHR, PER_HOST, SKEW, DRIFT, 11);
	ord_filter_opts o = { policy, NULL, 0, max_held, 0 };
	uint64_t sum = 0;
	ord_filter *f = ord_filter_new(r, &o, emit_none, &sum);
	uint64_t done = 0;
	double t = 0;
	uint64_t *arr = NULL;
	dt_sync_event *buf = NULL;
	size_t capa = 0, peak_bytes = 0;
	dt_err e;
	dt_err_clear(&e);
	while (done < total) {
		s.n = 0;
		while (s.n < (1u << 20))
			synth_round(&s, -1);
		if (capa < s.n) {
			capa = s.n;
			arr = realloc(arr, capa * sizeof *arr);
			buf = realloc(buf, capa * sizeof *buf);
		}
		/* the chunk as it arrives: a buffer in arrival order */
		synth_arrival(&s, 0, s.n, DELAY, arr);
		for (size_t i = 0; i < s.n; i++)
			buf[i] = s.ev[arr[i]];
		double t0 = now();
		for (size_t i = 0; i < s.n; i++) {
			if (ord_filter_push(f, &buf[i], done + arr[i], &e)) {
				char b[1024];
				dt_err_format(&e, b, sizeof b);
				fprintf(stderr, "bench_order: %s\n", b);
				exit(1);
			}
			/* the concurrent policy releases in rounds: run them as events come */
			if (policy == ORD_CONCURRENT && (i & 4095) == 4095)
				ord_filter_drain(f);
		}
		t += now() - t0;
		done += s.n;
		size_t b = ord_filter_bytes(f);
		if (b > peak_bytes)
			peak_bytes = b;
	}
	size_t held = ord_filter_drain(f);
	char name[64];
	snprintf(name, sizeof name, "%s%s", ord_policy_name(policy), max_held ? ", held limit 2^17" : "");
	printf("  %-27s %11llu events  %7.2f s  %6.2f M events/s  peak held %zu (%.2f%%)  tables %.1f MB  held at end %zu\n",
	       name, (unsigned long long)done, t, (double)done / t / 1e6,
	       ord_filter_peak_held(f), 100.0 * (double)ord_filter_peak_held(f) / (double)done,
	       (double)peak_bytes / 1048576.0, held);
	ord_filter_free(f);
	free(arr);
	free(buf);
	synth_free(&s);
}

/* ---- the post-mortem topological sort ------------------------------------------------------ */

typedef struct mkey {
	int64_t k[5];
	uint64_t ord; /* program order within the key's producer */
	uint32_t ev;
} mkey;

static int mkey_cmp(const void *a, const void *b)
{
	const mkey *x = a, *y = b;
	for (int i = 0; i < 5; i++)
		if (x->k[i] != y->k[i])
			return x->k[i] < y->k[i] ? -1 : 1;
	return x->ord < y->ord ? -1 : x->ord > y->ord;
}

typedef struct graph {
	uint32_t n;          /* events + virtual nodes */
	uint32_t *efrom, *eto;
	size_t ne, cap;
} graph;

static void edge(graph *g, uint32_t a, uint32_t b)
{
	if (g->ne == g->cap) {
		g->cap = g->cap ? g->cap * 2 : 1 << 20;
		g->efrom = realloc(g->efrom, g->cap * sizeof *g->efrom);
		g->eto = realloc(g->eto, g->cap * sizeof *g->eto);
	}
	g->efrom[g->ne] = a;
	g->eto[g->ne++] = b;
}

/* Matches producers to consumers key by key, in order: the i-th consumer of a key after the
 * i-th producer (or after all producers of a `group` key, through one virtual node). */
static void match(graph *g, mkey *prod, size_t np, mkey *cons, size_t nc, int group)
{
	qsort(prod, np, sizeof *prod, mkey_cmp);
	qsort(cons, nc, sizeof *cons, mkey_cmp);
	size_t i = 0, j = 0;
	while (i < np && j < nc) {
		int c = 0;
		for (int q = 0; q < 5 && !c; q++)
			c = prod[i].k[q] < cons[j].k[q] ? -1 : prod[i].k[q] > cons[j].k[q];
		if (c < 0) {
			i++;
			continue;
		}
		if (c > 0) {
			j++;
			continue;
		}
		size_t i2 = i, j2 = j;
		while (i2 < np && !memcmp(prod[i2].k, prod[i].k, sizeof prod[i].k))
			i2++;
		while (j2 < nc && !memcmp(cons[j2].k, cons[j].k, sizeof cons[j].k))
			j2++;
		if (group) {
			uint32_t v = g->n++;
			for (size_t a = i; a < i2; a++)
				edge(g, prod[a].ev, v);
			for (size_t b = j; b < j2; b++)
				edge(g, v, cons[b].ev);
		} else {
			for (size_t a = i, b = j; a < i2 && b < j2; a++, b++)
				edge(g, prod[a].ev, cons[b].ev);
		}
		i = i2;
		j = j2;
	}
}

/* The happens-before edges of the synthetic run, built directly from the calls. */
static void build_edges(const dt_sync_event *ev, size_t n, graph *g)
{
	mkey *snd = malloc(n * sizeof *snd), *rcv = malloc(n * sizeof *rcv);
	mkey *cin = malloc(n * sizeof *cin), *cout = malloc(n * sizeof *cout);
	size_t ns = 0, nr = 0, ni = 0, no = 0;
	uint64_t *collcnt_in = calloc(NPROC * 2, sizeof *collcnt_in), *collcnt_out = collcnt_in + NPROC;
	/* request -> Irecv (per process, small: requests are sequential numbers) */
	int8_t *isrecv = calloc(1u << 26, 1);
	for (size_t i = 0; i < n; i++) {
		const dt_sync_event *e = &ev[i];
		uint64_t po = ((uint64_t)e->thread << 40) | e->seq;
		int f = (int)e->func;
		if (e->phase == DT_SYNC_EXIT && f == SY_IRECV && e->req < (1u << 18))
			isrecv[(size_t)e->proc << 18 | e->req] = 1;
		if (e->phase == DT_SYNC_ENTER && (f == SY_SEND || f == SY_ISEND))
			snd[ns++] = (mkey){ { e->comm, e->proc, e->dest, e->stag, 0 }, po, (uint32_t)i };
		int recv_done = (e->phase == DT_SYNC_EXIT && f == SY_RECV) ||
				((e->phase == DT_SYNC_DONE || (e->phase == DT_SYNC_EXIT && f == SY_WAIT)) &&
				 e->req < (1u << 18) && isrecv[(size_t)e->proc << 18 | e->req]);
		if (recv_done)
			rcv[nr++] = (mkey){ { e->comm == DT_SYNC_NONE ? 0 : e->comm, e->src, e->proc, e->rtag, 0 }, po, (uint32_t)i };
		if (f >= SY_BARRIER && f <= SY_GATHER) {
			if (e->phase == DT_SYNC_ENTER)
				cin[ni++] = (mkey){ { 0, (int64_t)++collcnt_in[e->proc], 0, 0, 0 }, po, (uint32_t)i };
			else
				cout[no++] = (mkey){ { 0, (int64_t)++collcnt_out[e->proc], 0, 0, 0 }, po, (uint32_t)i };
		}
	}
	match(g, snd, ns, rcv, nr, 0);
	match(g, cin, ni, cout, no, 1);
	/* locks: release n-1 -> acquire n; fork -> task begins; task ends -> join */
	ns = nr = ni = no = 0;
	for (size_t i = 0; i < n; i++) {
		const dt_sync_event *e = &ev[i];
		int f = (int)e->func;
		if (e->phase == DT_SYNC_ENTER && (f == SY_CRIT_END || f == SY_UNSET_LOCK))
			snd[ns++] = (mkey){ { e->proc, (int64_t)e->obj, (int64_t)e->objseq + 1, 0, 0 }, 0, (uint32_t)i };
		if (e->phase == DT_SYNC_EXIT && (f == SY_CRIT_START || f == SY_SET_LOCK))
			rcv[nr++] = (mkey){ { e->proc, (int64_t)e->obj, (int64_t)e->objseq, 0, 0 }, 0, (uint32_t)i };
		if (f == SY_PARALLEL && e->phase == DT_SYNC_ENTER)
			cin[ni++] = (mkey){ { e->proc, (int64_t)e->objseq, 0, 0, 0 }, 0, (uint32_t)i };
		if (f == SY_TASK && e->phase == DT_SYNC_ENTER)
			cout[no++] = (mkey){ { e->proc, (int64_t)e->objseq, 0, 0, 0 }, 0, (uint32_t)i };
	}
	match(g, snd, ns, rcv, nr, 0);
	match(g, cin, ni, cout, no, 1);
	ns = nr = 0;
	for (size_t i = 0; i < n; i++) {
		const dt_sync_event *e = &ev[i];
		if (e->func == SY_TASK && e->phase == DT_SYNC_EXIT)
			snd[ns++] = (mkey){ { e->proc, (int64_t)e->objseq, 0, 0, 0 }, 0, (uint32_t)i };
		if (e->func == SY_PARALLEL && e->phase == DT_SYNC_EXIT)
			rcv[nr++] = (mkey){ { e->proc, (int64_t)e->objseq, 0, 0, 0 }, 0, (uint32_t)i };
	}
	match(g, snd, ns, rcv, nr, 1);
	free(snd);
	free(rcv);
	free(cin);
	free(cout);
	free(collcnt_in);
	free(isrecv);
}

/* Kahn's algorithm over program order plus the edges; returns the number ordered. */
static size_t topo(const dt_sync_event *ev, size_t n, const uint64_t *arr, graph *g, uint32_t *out)
{
	uint32_t N = g->n;
	uint32_t *indeg = calloc(N, sizeof *indeg), *start = calloc((size_t)N + 1, sizeof *start);
	uint32_t *adj = malloc((g->ne ? g->ne : 1) * sizeof *adj);
	/* program order: the next event of each thread, from the arrival order */
	uint32_t *nextp = malloc(n * sizeof *nextp), *lastof = malloc(NPROC * NTHR * sizeof *lastof);
	for (size_t i = 0; i < NPROC * NTHR; i++)
		lastof[i] = UINT32_MAX;
	for (size_t i = 0; i < n; i++)
		nextp[i] = UINT32_MAX;
	for (size_t a = 0; a < n; a++) {
		uint32_t i = (uint32_t)arr[a];
		size_t t = (size_t)ev[i].proc * NTHR + (size_t)ev[i].thread;
		if (lastof[t] != UINT32_MAX) {
			nextp[lastof[t]] = i;
			indeg[i]++;
		}
		lastof[t] = i;
	}
	for (size_t e = 0; e < g->ne; e++)
		start[g->efrom[e] + 1]++, indeg[g->eto[e]]++;
	for (uint32_t v = 0; v < N; v++)
		start[v + 1] += start[v];
	uint32_t *fill = malloc((size_t)N * sizeof *fill);
	memcpy(fill, start, (size_t)N * sizeof *fill);
	for (size_t e = 0; e < g->ne; e++)
		adj[fill[g->efrom[e]]++] = g->eto[e];
	uint32_t *stack = malloc((size_t)N * sizeof *stack);
	size_t sp = 0, k = 0;
	for (uint32_t v = 0; v < N; v++)
		if (!indeg[v])
			stack[sp++] = v;
	while (sp) {
		uint32_t v = stack[--sp];
		if (v < n) {
			out[k++] = v;
			if (nextp[v] != UINT32_MAX && !--indeg[nextp[v]])
				stack[sp++] = nextp[v];
		}
		for (uint32_t j = start[v]; j < start[v + 1]; j++)
			if (!--indeg[adj[j]])
				stack[sp++] = adj[j];
	}
	free(indeg);
	free(start);
	free(adj);
	free(nextp);
	free(lastof);
	free(fill);
	free(stack);
	return k;
}

static int ts_cmp(const void *a, const void *b)
{
	const synth_key *x = a, *y = b;
	if (x->k != y->k)
		return x->k < y->k ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

typedef struct collect {
	ord_item *it;
	size_t n;
} collect;

static void collect_one(void *ctx, const ord_out *o)
{
	collect *c = ctx;
	c->it[c->n++] = (ord_item){ o->id, o->step, o->ts, o->adj };
}

/* The clocks of part 3 along a valid order: gamma 1 is the forward correction. */
static void clc(const dt_sync_event *ev, size_t n, const uint32_t *order, graph *g, double gamma,
		const char *name)
{
	int64_t *lc = malloc((size_t)g->n * sizeof *lc);
	for (size_t v = 0; v < g->n; v++)
		lc[v] = INT64_MIN;
	/* predecessors by CSR over reversed edges */
	uint32_t *start = calloc((size_t)g->n + 1, sizeof *start), *pred = malloc((g->ne ? g->ne : 1) * sizeof *pred);
	for (size_t e = 0; e < g->ne; e++)
		start[g->eto[e] + 1]++;
	for (uint32_t v = 0; v < g->n; v++)
		start[v + 1] += start[v];
	uint32_t *fill = malloc((size_t)g->n * sizeof *fill);
	memcpy(fill, start, (size_t)g->n * sizeof *fill);
	for (size_t e = 0; e < g->ne; e++)
		pred[fill[g->eto[e]]++] = g->efrom[e];
	int64_t *prev_ts = malloc(NPROC * NTHR * sizeof *prev_ts), *prev_lc = malloc(NPROC * NTHR * sizeof *prev_lc);
	for (size_t i = 0; i < NPROC * NTHR; i++)
		prev_ts[i] = prev_lc[i] = INT64_MIN;
	size_t moved = 0;
	int64_t total = 0, maxadj = 0;
	/* virtual nodes take the max of their predecessors when first needed */
	for (size_t a = 0; a < n; a++) {
		uint32_t v = order[a];
		const dt_sync_event *e = &ev[v];
		size_t t = (size_t)e->proc * NTHR + (size_t)e->thread;
		int64_t x = e->ts;
		if (prev_lc[t] != INT64_MIN) {
			int64_t local = prev_lc[t] + (int64_t)(gamma * (double)(e->ts - prev_ts[t]));
			if (local > x)
				x = local;
		}
		for (uint32_t j = start[v]; j < start[v + 1]; j++) {
			uint32_t p = pred[j];
			int64_t pl = lc[p];
			if (p >= n) { /* virtual: the max of its own predecessors */
				pl = INT64_MIN;
				for (uint32_t q = start[p]; q < start[p + 1]; q++)
					if (lc[pred[q]] > pl)
						pl = lc[pred[q]];
			}
			if (pl != INT64_MIN && pl + 1 > x)
				x = pl + 1;
		}
		lc[v] = x;
		prev_ts[t] = e->ts;
		prev_lc[t] = x;
		if (x != e->ts) {
			moved++;
			total += x - e->ts;
			if (x - e->ts > maxadj)
				maxadj = x - e->ts;
		}
	}
	printf("  %-34s moved %9zu (%5.2f%%)  total %14.0f us  largest %9.1f us\n", name, moved,
	       100.0 * (double)moved / (double)n, (double)total / 1e3, (double)maxadj / 1e3);
	free(lc);
	free(start);
	free(pred);
	free(fill);
	free(prev_ts);
	free(prev_lc);
}

int main(int argc, char **argv)
{
	uint64_t total = argc > 1 ? strtoull(argv[1], NULL, 10) : 100000000ull;
	if (total < 1000)
		total = 1000;
	ord_rules *r = load();
	printf("bench_order: %d traces (%d processes x %d threads, %d hosts, skew <= %d us, drift <= %d ppm, arrival delay <= %d us)\n",
	       NPROC * NTHR, NPROC, NTHR, NPROC / PER_HOST, SKEW / 1000, DRIFT, DELAY / 1000);
	printf("1. streaming, pushes timed (thread CPU time)\n");
	streaming(r, total, ORD_MINIMAL, 0);
	/* a lower held-event limit (still 20 times the peak held here) drops finished count entries
	 * sooner: smaller tables, fewer cache misses */
	streaming(r, total, ORD_MINIMAL, (size_t)1 << 17);
	streaming(r, total / 10 > 1000000 ? total / 10 : total, ORD_CONCURRENT, 0);
	streaming(r, total / 10 > 1000000 ? total / 10 : total, ORD_TIMESTAMP, 0);
	printf("   max RSS so far %ld MB\n", max_rss_mb());

	/* 2. in memory */
	size_t m = total < 4000000 ? (size_t)total : 4000000;
	synth s;
	synth_init(&s, NPROC, NTHR, PER_HOST, SKEW, DRIFT, 11);
	while (s.n < m)
		synth_round(&s, -1);
	m = s.n;
	uint64_t *arr = malloc(m * sizeof *arr);
	synth_arrival(&s, 0, m, DELAY, arr);
	dt_sync_event *in = malloc(m * sizeof *in);
	for (size_t i = 0; i < m; i++)
		in[i] = s.ev[arr[i]];
	printf("2. in memory, %zu events (thread CPU time)\n", m);
	/* the filter */
	collect c = { malloc(m * sizeof *c.it), 0 };
	ord_filter_opts o = { ORD_MINIMAL, NULL, 0, 0, 0 };
	double t0 = now();
	ord_filter *f = ord_filter_new(r, &o, collect_one, &c);
	dt_err e;
	dt_err_clear(&e);
	for (size_t i = 0; i < m; i++)
		ord_filter_push(f, &in[i], i, &e);
	double tf = now() - t0;
	printf("  %-34s %7.3f s  %6.2f M events/s  (%zu released)\n", "causality filter (minimal)", tf,
	       (double)m / tf / 1e6, c.n);
	ord_filter_free(f);
	/* plain timestamp sort */
	synth_key *k = malloc(m * sizeof *k);
	t0 = now();
	for (size_t i = 0; i < m; i++)
		k[i] = (synth_key){ in[i].ts, i };
	qsort(k, m, sizeof *k, ts_cmp);
	double ts_ = now() - t0;
	printf("  %-34s %7.3f s  %6.2f M events/s  (not a valid order)\n", "timestamp sort (qsort)", ts_,
	       (double)m / ts_ / 1e6);
	free(k);
	/* topological sort */
	uint64_t *ident = malloc(m * sizeof *ident);
	for (size_t i = 0; i < m; i++)
		ident[i] = i;
	graph g = { (uint32_t)m, NULL, NULL, 0, 0 };
	uint32_t *topo_out = malloc(m * sizeof *topo_out);
	t0 = now();
	build_edges(in, m, &g);
	size_t nt = topo(in, m, ident, &g, topo_out);
	double tt = now() - t0;
	printf("  %-34s %7.3f s  %6.2f M events/s  (%zu ordered, %zu edges)\n",
	       "post-mortem topological sort", tt, (double)m / tt / 1e6, nt, g.ne);

	/* 3. timestamps */
	printf("3. timestamp corrections on the same %zu events (ns moved, forward only)\n", m);
	c.n = 0;
	o.policy = ORD_TIMESTAMP;
	f = ord_filter_new(r, &o, collect_one, &c);
	for (size_t i = 0; i < m; i++)
		ord_filter_push(f, &in[i], i, &e);
	ord_filter_free(f);
	size_t moved = 0;
	int64_t tot = 0, mx = 0;
	for (size_t i = 0; i < c.n; i++)
		if (c.it[i].adj) {
			moved++;
			tot += c.it[i].adj;
			if (c.it[i].adj > mx)
				mx = c.it[i].adj;
		}
	printf("  %-34s moved %9zu (%5.2f%%)  total %14.0f us  largest %9.1f us\n",
	       "adjusted timestamp (filter)", moved, 100.0 * (double)moved / (double)c.n,
	       (double)tot / 1e3, (double)mx / 1e3);
	clc(in, m, topo_out, &g, 1.0, "forward correction (gamma 1)");
	clc(in, m, topo_out, &g, 0.99, "controlled logical clock (0.99)");
	printf("   max RSS %ld MB\n", max_rss_mb());
	free(topo_out);
	free(ident);
	free(g.efrom);
	free(g.eto);
	free(c.it);
	free(in);
	free(arr);
	synth_free(&s);
	ord_rules_free(r);
	return 0;
}
