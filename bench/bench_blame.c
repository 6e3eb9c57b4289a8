/* bench_blame.c: the cost of `difftrace blame` on a large run: RANKS ranks x SAMPLES sample
 * records each, generated into a store as the import would group them (GROUPS sample groups
 * per rank: thread, call path, MPI call, buffers and scan), with 1000 heap containers per rank
 * allocated at 100 sites, 500 call paths of depth 12 and, for one sample in ten, an MPI call.
 * Prints the time to read the run's blame data from the store and to compute the table at
 * main and at one more point, in this process.
 * Usage: bench_blame STORE [RANKS [SAMPLES [GROUPS]]] (default 64 100000 10000) */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "blame/blame.h"
#include "record/syncfmt.h"
#include "store/store.h"
#include "store/store_blame.h"
#include "util/util.h"

#define NFUNCS 200
#define NPATHS 500
#define DEPTH 12
#define NSITES 100
#define NCONT 1000

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint32_t rng = 12345;
static uint32_t rnd(uint32_t n)
{
	rng = rng * 1103515245u + 12345u;
	return (rng >> 8) % n;
}

static void add_seq(int32_t **v, size_t *nv, size_t *capv, uint32_t **off, size_t *n,
		    size_t *capo, const int32_t *x, size_t k)
{
	if (!*n) {
		grow((void **)off, capo, 1, sizeof **off);
		(*off)[0] = 0;
	}
	grow((void **)v, capv, *nv + k, sizeof **v);
	memcpy(*v + *nv, x, k * sizeof *x);
	*nv += k;
	grow((void **)off, capo, *n + 2, sizeof **off);
	(*off)[++*n] = (uint32_t)*nv;
}

static void make(dt_blame_data *d, int ranks, uint64_t samples, uint64_t groups)
{
	memset(d, 0, sizeof *d);
	char name[32];
	for (int i = 0; i < NFUNCS; i++) {
		grow((void **)&d->locs, &d->caplocs, d->nlocs + 1, sizeof *d->locs);
		snprintf(name, sizeof name, i == 0 ? "main" : "fn%d", i);
		d->locs[d->nlocs++] = (dt_bloc){ xstrdup(name), xstrdup(i < 150 ? "/src/app.c" : ""),
						 i, xstrdup(i < 150 ? "app" : "libx.so"), i < 150, 0 };
	}
	int32_t p[DEPTH];
	/* sample paths: innermost first, main outermost */
	for (int i = 0; i < NPATHS; i++) {
		for (int k = 0; k < DEPTH - 1; k++)
			p[k] = 1 + (int32_t)rnd(NFUNCS - 1);
		p[DEPTH - 1] = 0;
		add_seq(&d->pathv, &d->npathv, &d->cappathv, &d->path_off, &d->npaths, &d->cappaths,
			p, DEPTH);
	}
	/* allocation sites */
	for (int i = 0; i < NSITES; i++) {
		for (int k = 0; k < 4; k++)
			p[k] = 1 + (int32_t)rnd(149);
		p[4] = 0;
		add_seq(&d->pathv, &d->npathv, &d->cappathv, &d->path_off, &d->npaths, &d->cappaths,
			p, 5);
	}
	for (int r = 0; r < ranks; r++) {
		grow((void **)&d->proc, &d->capproc, d->nproc + 1, sizeof *d->proc);
		d->proc[d->nproc++] = (dt_bproc){ r, 1000 + r, 0, 1, 1000000, xstrdup("cpu-time"),
						  xstrdup("/bin/app") };
		size_t c0 = d->ncont;
		for (int c = 0; c < NCONT; c++) {
			grow((void **)&d->cont, &d->capcont, d->ncont + 1, sizeof *d->cont);
			d->cont[d->ncont++] = (dt_bcontainer){
				.rank = r, .pid = 1000 + r, .kind = DT_BC_HEAP,
				.addr = 0x100000 + 0x1000 * (uint64_t)c, .size = 4096,
				.t_alloc = 0, .t_free = INT64_MAX,
				.site = NPATHS + (int32_t)rnd(NSITES), .prev = -1, .alloc_call = 1 };
		}
		uint64_t left = samples;
		for (uint64_t g = 0; g < groups; g++) {
			int32_t sc[16];
			int np = 2 + (int)rnd(7);
			for (int k = 0; k < np; k++) {
				sc[2 * k] = k; /* one pair per level */
				sc[2 * k + 1] = (int32_t)(c0 + rnd(NCONT));
			}
			add_seq(&d->scanv, &d->nscanv, &d->capscanv, &d->scan_off, &d->nscans,
				&d->capscans, sc, 2 * (size_t)np);
			uint64_t n = g + 1 == groups ? left : samples / groups;
			left -= n;
			int mpi = rnd(10) == 0;
			grow((void **)&d->samp, &d->capsamp, d->nsamp + 1, sizeof *d->samp);
			d->samp[d->nsamp++] = (dt_bsample){
				.rank = r, .pid = 1000 + r, .tid = 1000 + r, .path = (int32_t)rnd(NPATHS),
				.call = mpi ? DTS_MPI_Allreduce : 0,
				.c0 = mpi ? (int32_t)(c0 + rnd(NCONT)) : -1,
				.c1 = mpi ? (int32_t)(c0 + rnd(NCONT)) : -1,
				.scan = (int32_t)d->nscans - 1, .nrec = n, .weight = n, .cost = n * 1000000,
				.bytes = mpi ? 8192 : 0 };
		}
	}
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: bench_blame STORE [RANKS [SAMPLES [GROUPS]]]\n");
		return 2;
	}
	int ranks = argc > 2 ? atoi(argv[2]) : 64;
	uint64_t samples = argc > 3 ? strtoull(argv[3], NULL, 10) : 100000;
	uint64_t groups = argc > 4 ? strtoull(argv[4], NULL, 10) : 10000;
	if (ranks < 1 || samples < 1 || groups < 1 || groups > samples) {
		fprintf(stderr, "bench_blame: RANKS, SAMPLES >= 1 and 1 <= GROUPS <= SAMPLES\n");
		return 2;
	}
	dt_err e;
	dt_err_clear(&e);
	store *s;
	dt_blame_data d;
	make(&d, ranks, samples, groups);
	double t0 = now();
	int64_t run;
	if (store_open(argv[1], STORE_OPEN_CREATE, &s, &e) || store_begin(s, &e) ||
	    store_run_create(s, "blame", "bench", "synthetic", "", &run, &e) ||
	    store_blame_write(s, run, &d, &e) || store_commit(s, &e)) {
		fprintf(stderr, "bench_blame: %s\n", e.msg);
		return 1;
	}
	double t1 = now();
	dt_blame_data_free(&d);
	double t2 = now();
	if (store_blame_read(s, run, &d, &e)) {
		fprintf(stderr, "bench_blame: %s\n", e.msg);
		return 1;
	}
	double t3 = now();
	transfer_set tf = { 0 };
	const char *mt = "MPI_Allreduce blame=2 from=1 bytes=3*4\n";
	transfer_parse(&tf, "bench", mt, strlen(mt), &e);
	blame_result r;
	const char *pts[] = { "main", "fn7" };
	if (blame_compute(&d, &tf, pts, 2, BLAME_SAMPLES, &r, &e)) {
		fprintf(stderr, "bench_blame: %s\n", e.msg);
		return 1;
	}
	double t4 = now();
	printf("bench_blame: %d ranks x %llu samples in %llu groups per rank (%zu groups, %zu "
	       "containers)\n",
	       ranks, (unsigned long long)samples, (unsigned long long)groups, d.nsamp, d.ncont);
	printf("  write to the store   %8.3f s\n", t1 - t0);
	printf("  read from the store  %8.3f s\n", t3 - t2);
	printf("  blame at 2 points    %8.3f s  (main: %zu variables, %.0f ticks)\n", t4 - t3,
	       r.tables[0].nvars, r.tables[0].total);
	printf("  read + blame         %8.3f s\n", t4 - t2);
	blame_result_free(&r);
	transfer_free(&tf);
	dt_blame_data_free(&d);
	store_close(s);
	return 0;
}
