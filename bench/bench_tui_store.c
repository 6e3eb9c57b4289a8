/* bench_tui_store.c: writes a large store for bench_tui.sh: runs "normal" and "faulty" of
 * NTRACES traces (NPROC processes x the rest as threads) of NEVENTS events each, shaped like
 * MPI + OpenMP traces (bench/workload.h) and named like them (an OpenMP outlined region, a
 * critical section, MPI collectives), so that the default filter (ompall,mpi) keeps calls and
 * the views show what they would on a real run. The faulty run differs in a few traces: they
 * take another path now and then (as every trace does, in other program functions) and call
 * MPI_Barrier where the others call MPI_Bcast.
 * Usage: bench_tui_store STORE [NTRACES [NEVENTS]] */
#include <stdio.h>
#include <stdlib.h>

#include "store/store.h"
#include "workload.h"

static int write_run(store *s, const char *name, size_t ntraces, size_t nev, int faulty)
{
	dt_err e;
	dt_err_clear(&e);
	int64_t run;
	if (store_begin(s, &e) || store_run_create(s, name, "bench", "synthetic", "", &run, &e))
		goto fail;
	store_writer *w = store_writer_new(s, run, NULL);
	dt_sink *k = store_writer_sink(w);
	/* workload.h's ids: 10 time step, 20 compute, 30 kernel, 40 a leaf, 50-52 MPI */
	static const struct { uint32_t id; const char *name; } named[] = {
		{10, "timestep"}, {20, "compute._omp_fn.0"}, {30, "kernel"},
		{40, "GOMP_critical_start"}, {50, "MPI_Allreduce"}, {51, "PMPI_Allreduce"},
		{52, "MPI_Bcast"},
	};
	uint32_t map[4096];
	char fn[32];
	for (uint32_t i = 1; i < 4096; i++) {
		const char *known = NULL;
		for (size_t j = 0; j < sizeof named / sizeof *named; j++)
			if (named[j].id == i)
				known = named[j].name;
		int l = known ? snprintf(fn, sizeof fn, "%s", known) : snprintf(fn, sizeof fn, "fn%u", i);
		map[i] = k->func(k->ctx, fn, (size_t)l, &e);
	}
	map[0] = 0;
	uint32_t barrier = faulty ? k->func(k->ctx, "MPI_Barrier", 11, &e) : 0;
	uint32_t *ev = malloc(nev * sizeof *ev);
	size_t nproc = ntraces >= 64 ? 64 : ntraces;
	for (size_t t = 0; t < ntraces; t++) {
		dt_trace_meta m = { (int64_t)(1000 + t % nproc), (int64_t)(t / nproc), -1,
				    t / nproc == 0, "node", "synthetic" };
		/* threads of a process share a seed (they behave alike); a faulty trace gets another */
		uint32_t seed = (uint32_t)(t / nproc % 4 + 1);
		int changed = faulty && (t == 37 || t == 700);
		if (changed)
			seed = 99;
		workload_fill(ev, nev, seed);
		for (size_t i = 0; i < nev; i++)
			ev[i] = changed && ev[i] == 52 ? barrier : map[ev[i]];
		if (k->begin(k->ctx, &m, &e) || k->events(k->ctx, ev, NULL, nev, &e) ||
		    k->end(k->ctx, 0, "", &e))
			goto fail;
	}
	free(ev);
	if (store_writer_finish(w, &e))
		goto fail;
	store_writer_free(w);
	return store_commit(s, &e);
fail:
	fprintf(stderr, "bench_tui_store: %s\n", e.msg);
	return -1;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: bench_tui_store STORE [NTRACES [NEVENTS]]\n");
		return 2;
	}
	size_t ntraces = argc > 2 ? strtoul(argv[2], NULL, 10) : 1024;
	size_t nev = argc > 3 ? strtoul(argv[3], NULL, 10) : 1000000;
	store *s;
	dt_err e;
	dt_err_clear(&e);
	if (store_open(argv[1], STORE_OPEN_CREATE, &s, &e)) {
		fprintf(stderr, "bench_tui_store: %s\n", e.msg);
		return 1;
	}
	int r = write_run(s, "normal", ntraces, nev, 0) || write_run(s, "faulty", ntraces, nev, 1);
	store_close(s);
	return r ? 1 : 0;
}
