/* test_sync_wire.c: sync events across the wire of a parallel import (import/wire.h), which
 * carries them as the columns of chunks written by the worker with its own function and site
 * ids and mapped by the thread that writes the store. The same traces go into a store directly
 * and through the wire, in parts, in batches of every size, with the unit's ids not the
 * store's: the events read back are the same, in the same order, the chunks the same bytes;
 * replayed into a sink that takes events only (a memsink), the events are the same too; a
 * damaged column is an error, not other events. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "import/memsink.h"
#include "import/wire.h"
#include "store/store.h"
#include "store/store_sync.h"

static const char *const names[] = { "MPI_Send", "MPI_Recv", "MPI_Allreduce", "omp_set_lock" };
static const char *const files[] = { "/src/a.c", "/src/b.c", "/src/c.c" };

/* Event i of trace t: every field set, calls and sites varying. */
static void make(dt_sync_event *x, int t, size_t i)
{
	memset(x, 0, sizeof *x);
	x->seq = (uint32_t)i;
	x->phase = (uint8_t)(i % 3);
	x->ts = 1000 + (int64_t)(i * 37 + (i % 7) * 1000);
	x->comm = (int32_t)(i % 5);
	x->dest = (int32_t)((t + 1) % 4);
	x->stag = (int32_t)(i & 0xff);
	x->src = (int32_t)((t + 3) % 4) - (i % 11 == 0 ? 5 : 0);
	x->rtag = (int32_t)(i % 13);
	x->root = -1;
	x->count = (int64_t)(i % 9) << 40;
	x->datatype = 3;
	x->op = (int32_t)(i % 2);
	x->req = i % 4 ? 0x7f0000000000ull + i : 0;
	x->obj = (uint64_t)t << 33 | (i % 3);
	x->objseq = i / 2;
	x->team = 4;
	x->tnum = t;
	x->csize = 4;
	x->disp = (int64_t)i * -8;
	x->rassert = (int32_t)(i % 2);
	x->lock = (int32_t)(i % 3);
	x->digest = i % 5 ? 0x9e3779b97f4a7c15ull * i : 0;
}

/* The sync events of each trace, pushed in batches of the sizes in sizes[], funcs and sites
 * interned through k as met; a clock on the first batch. */
static const size_t counts[] = { 2 * 4096 + 1000, 10, 0, 4096, 4097 };
#define NTRACES (sizeof counts / sizeof *counts)

static void push(dt_sink *k, int pad)
{
	dt_err e;
	dt_err_clear(&e);
	if (pad) /* the unit's ids are not the store's */
		CHECK(k->func(k->ctx, "unit_first", 10, &e) == 1);
	static const size_t sizes[] = { 1, 4095, 3000, 5000, 4096, 17, 8192 };
	for (int t = 0; t < (int)NTRACES; t++) {
		dt_trace_meta m = { 100 + t, 100 + t, t, 1, "node1", "made up" };
		CHECK(k->begin(k->ctx, &m, &e) == 0);
		size_t n = counts[t], at = 0, b = (size_t)t;
		dt_sync_event *v = malloc((n ? n : 1) * sizeof *v);
		for (size_t i = 0; i < n; i++) {
			make(&v[i], t, i);
			const char *nm = names[(i / 3 + (size_t)t) % 4];
			v[i].func = k->func(k->ctx, nm, strlen(nm), &e);
			CHECK(v[i].func != 0);
			if (i % 4 && k->site) {
				v[i].site = k->site(k->ctx, files[i % 3], (unsigned)(i % 50 + 1), nm, &e);
				CHECK(v[i].site != 0);
			}
		}
		dt_sync_clock clk = { 1, 5000 + t, 1700000000000000000 };
		while (at < n) {
			size_t c = sizes[b++ % (sizeof sizes / sizeof *sizes)];
			if (c > n - at)
				c = n - at;
			CHECK(k->sync(k->ctx, at ? NULL : &clk, v + at, c, &e) == 0);
			at += c;
		}
		uint32_t call = k->func(k->ctx, "main", 4, &e), ev[2] = { call, 0 };
		CHECK(k->events(k->ctx, ev, NULL, 2, &e) == 0);
		CHECK(k->end(k->ctx, 0, "", &e) == 0);
		free(v);
	}
}

/* The wire's parts of a unit: the full callback keeps each one. */
typedef struct parts {
	dt_buf out;
	uint8_t **p;
	size_t *n, np;
} parts;

static int part_full(void *ctx, dt_err *e)
{
	(void)e;
	parts *ps = ctx;
	wire_part_end(&ps->out);
	ps->p = realloc(ps->p, (ps->np + 1) * sizeof *ps->p);
	ps->n = realloc(ps->n, (ps->np + 1) * sizeof *ps->n);
	ps->p[ps->np] = malloc(ps->out.len);
	memcpy(ps->p[ps->np], ps->out.p, ps->out.len);
	ps->n[ps->np++] = ps->out.len;
	ps->out.len = 0;
	return 0;
}

/* Pushes the traces through a wire sink into parts of about `limit` bytes. */
static void to_wire(parts *ps, size_t limit)
{
	memset(ps, 0, sizeof *ps);
	wire_sink w;
	wire_sink_init(&w, &ps->out);
	w.limit = limit;
	w.full = part_full;
	w.full_ctx = ps;
	push(&w.sink, 1);
	/* the last part: the rest, without 'C' */
	ps->p = realloc(ps->p, (ps->np + 1) * sizeof *ps->p);
	ps->n = realloc(ps->n, (ps->np + 1) * sizeof *ps->n);
	ps->p[ps->np] = malloc(ps->out.len + 1);
	memcpy(ps->p[ps->np], ps->out.p, ps->out.len);
	ps->n[ps->np++] = ps->out.len;
	wire_sink_free(&w);
	buf_free(&ps->out);
}

static int replay(parts *ps, dt_sink *k, dt_err *e)
{
	wire_replayer rp;
	wire_replayer_init(&rp);
	int rc = 0;
	for (size_t i = 0; i < ps->np && rc >= 0; i++)
		rc = wire_replay_part(&rp, ps->p[i], ps->n[i], k, "test", e);
	wire_replayer_free(&rp);
	return rc;
}

static void parts_free(parts *ps)
{
	for (size_t i = 0; i < ps->np; i++)
		free(ps->p[i]);
	free(ps->p);
	free(ps->n);
}

static int same(const dt_sync_event *a, const dt_sync_event *b)
{
	return a->proc == b->proc && a->thread == b->thread && a->host == b->host &&
	       a->seq == b->seq && a->phase == b->phase && a->func == b->func && a->ts == b->ts &&
	       a->comm == b->comm && a->dest == b->dest && a->stag == b->stag &&
	       a->src == b->src && a->rtag == b->rtag && a->root == b->root &&
	       a->count == b->count && a->datatype == b->datatype && a->op == b->op &&
	       a->req == b->req && a->obj == b->obj && a->objseq == b->objseq &&
	       a->team == b->team && a->tnum == b->tnum && a->csize == b->csize &&
	       a->site == b->site && a->disp == b->disp && a->rassert == b->rassert &&
	       a->lock == b->lock && a->digest == b->digest;
}

/* The events of a run as read back, sites as "file:line". */
static void sites_of(store *s, int64_t run, const dt_sync_event *v, size_t n, char **out)
{
	store_sites st;
	dt_err e;
	CHECK(store_sync_sites(s, run, &st, &e) == 0);
	for (size_t i = 0; i < n; i++) {
		const store_site *x = store_site_get(&st, v[i].site);
		char b[256];
		snprintf(b, sizeof b, "%s:%u:%s", x ? x->file : "-", x ? x->line : 0,
			 x ? x->func : "-");
		out[i] = xstrdup(b);
	}
	store_sites_free(&st);
}

int main(void)
{
	char dir[64], db[96];
	snprintf(dir, sizeof dir, "/tmp/dt-swire-XXXXXX");
	if (!mkdtemp(dir))
		SKIP("no temporary directory");
	snprintf(db, sizeof db, "%s/s.db", dir);
	dt_err e;
	dt_err_clear(&e);
	store *s;
	CHECK(store_open(db, STORE_OPEN_CREATE, &s, &e) == 0);
	/* run 1: straight into the store; runs 2 and 3: through the wire, in parts of 4 MB and of
	 * a few kB (a part ends between a trace's chunks, its clock, its end) */
	int64_t run[3];
	size_t limits[3] = { 0, WIRE_PART_BYTES, 5000 };
	for (int r = 0; r < 3; r++) {
		char name[16];
		snprintf(name, sizeof name, "r%d", r);
		CHECK(store_begin(s, &e) == 0);
		CHECK(store_run_create(s, name, "", "sync", "made up", &run[r], &e) == 0);
		store_writer *w = store_writer_new(s, run[r], NULL);
		if (!r) {
			push(store_writer_sink(w), 0);
		} else {
			parts ps;
			to_wire(&ps, limits[r]);
			CHECK(r == 1 || ps.np >= 6);
			CHECK(replay(&ps, store_writer_sink(w), &e) == 0);
			parts_free(&ps);
		}
		CHECK(store_writer_finish(w, &e) == 0);
		store_writer_free(w);
		CHECK(store_commit(s, &e) == 0);
	}
	dt_sync_event *v[3];
	size_t n[3];
	char **st[3];
	size_t total = 0;
	for (size_t t = 0; t < NTRACES; t++)
		total += counts[t];
	for (int r = 0; r < 3; r++) {
		CHECK(store_sync_list(s, run[r], &v[r], &n[r], &e) == 0);
		CHECK_EQ_INT(n[r], total);
		st[r] = calloc(n[r] + 1, sizeof *st[r]);
		sites_of(s, run[r], v[r], n[r], st[r]);
	}
	for (int r = 1; r < 3; r++) {
		size_t diff = 0, sdiff = 0;
		for (size_t i = 0; i < n[0] && i < n[r]; i++) {
			dt_sync_event a = v[0][i], b = v[r][i];
			a.site = b.site = 0; /* compared by what they name */
			diff += !same(&a, &b);
			sdiff += strcmp(st[0][i], st[r][i]) != 0;
		}
		CHECK_EQ_INT(diff, 0);
		CHECK_EQ_INT(sdiff, 0);
	}
	/* the events are the ones pushed: the fields, the names of the calls, the sites */
	size_t bad = 0, at = 0;
	for (size_t t = 0; t < NTRACES; t++)
		for (size_t i = 0; i < counts[t] && at < n[0]; i++, at++) {
			dt_sync_event x = v[0][at];
			dt_sync_event y;
			make(&y, (int)t, i);
			y.proc = x.proc;
			y.thread = x.thread;
			y.host = x.host;
			y.func = x.func;
			y.site = x.site;
			const char *nm = store_func_name(s, x.func);
			bad += !same(&x, &y) || !nm || strcmp(nm, names[(i / 3 + t) % 4]);
			char want[256];
			snprintf(want, sizeof want, "%s:%u:%s", i % 4 ? files[i % 3] : "-",
				 i % 4 ? (unsigned)(i % 50 + 1) : 0, i % 4 ? nm : "-");
			bad += strcmp(st[0][at], want) != 0;
		}
	CHECK_EQ_INT(bad, 0);
	for (int r = 0; r < 3; r++) {
		for (size_t i = 0; i < n[r]; i++)
			free(st[r][i]);
		free(st[r]);
		free(v[r]);
	}
	/* the chunks are the same bytes */
	{
		char cmd[512];
		snprintf(cmd, sizeof cmd,
			 "test \"$(sqlite3 '%s' \"SELECT count(DISTINCT hex(data) || ':' || n || ':' ||"
			 " seq) FROM sync_chunks GROUP BY (trace_id - 1) %% %zu, seq\" | sort -u)\" = 1",
			 db, NTRACES);
		if (system("command -v sqlite3 >/dev/null 2>&1") == 0)
			CHECK(system(cmd) == 0);
	}
	store_close(s);

	/* into a sink that takes sync events only as events */
	{
		parts ps;
		to_wire(&ps, 5000);
		memsink m;
		memsink_init(&m, 1);
		CHECK(replay(&ps, &m.sink, &e) == 0);
		CHECK_EQ_INT(m.ntraces, NTRACES);
		size_t wrong = 0;
		for (size_t t = 0; t < NTRACES && t < m.ntraces; t++) {
			memtrace *mt = &m.traces[t];
			CHECK_EQ_INT(mt->nsync, counts[t]);
			CHECK_EQ_INT(mt->clock.mono_ns, counts[t] ? 5000 + (int64_t)t : 0);
			for (size_t i = 0; i < mt->nsync && i < counts[t]; i++) {
				dt_sync_event y;
				make(&y, (int)t, i);
				y.func = mt->sync[i].func;
				const char *nm = m.funcs[mt->sync[i].func];
				wrong += !same(&mt->sync[i], &y) || strcmp(nm, names[(i / 3 + t) % 4]);
			}
		}
		CHECK_EQ_INT(wrong, 0);
		memsink_free(&m);
		parts_free(&ps);
	}
	/* a function id in a column that the unit never named: a damaged unit, nothing replayed */
	{
		dt_buf out = { 0 };
		wire_sink w;
		wire_sink_init(&w, &out);
		dt_trace_meta mt = { 1, 1, 0, 1, NULL, "made up" };
		CHECK(w.sink.begin(w.sink.ctx, &mt, &e) == 0);
		dt_sync_event x[5];
		for (size_t i = 0; i < 5; i++) {
			make(&x[i], 0, i);
			x[i].func = w.sink.func(w.sink.ctx, "MPI_Send", 8, &e);
		}
		x[3].func = 2;
		CHECK(w.sink.sync(w.sink.ctx, NULL, x, 5, &e) == 0);
		CHECK(w.sink.end(w.sink.ctx, 0, "", &e) == 0);
		memsink m;
		memsink_init(&m, 1);
		dt_err_clear(&e);
		CHECK(wire_replay(out.p, out.len, &m.sink, "unit 7", &e) == -1);
		CHECK(strstr(e.msg, "unit 7: a damaged unit of a parallel import") != NULL);
		CHECK(m.ntraces == 1 && m.traces[0].nsync == 0);
		memsink_free(&m);
		wire_sink_free(&w);
		buf_free(&out);
	}
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	CHECK_DONE();
}
