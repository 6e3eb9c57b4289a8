/* chrome_calls.c: a run's calls as Chrome trace events (chrome_calls.h). */
#include "export/chrome_calls.h"

#include <inttypes.h>
#include <stdlib.h>

#include "import/sink.h"
#include "util/esc.h"
#include "util/util.h"

#define BLOCK 65536

/* Starts an event: the separator after the events before it, if any. */
static void sep(FILE *out, chrome_calls *cc)
{
	fputs(cc->first ? "\n" : ",\n", out);
	cc->first = 0;
}

static void put_ts(FILE *out, int64_t ns)
{
	int64_t us = ns / 1000, rem = ns % 1000;
	if (rem < 0)
		us -= 1, rem += 1000;
	fprintf(out, "%" PRId64 ".%03" PRId64, us, rem);
}

/* The sync events' host of trace p.t's process (its own events first), or -1. */
static int32_t host_of(const chrome_calls *cc, int proc, int thread, int *own)
{
	size_t lo = 0, hi = cc->nev;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cc->ev[mid].proc < proc)
			lo = mid + 1;
		else
			hi = mid;
	}
	*own = 0;
	int32_t h = -1;
	for (size_t i = lo; i < cc->nev && cc->ev[i].proc == proc; i++) {
		if (h < 0)
			h = cc->ev[i].host;
		if (cc->ev[i].thread == thread) {
			*own = 1;
			return cc->ev[i].host;
		}
	}
	return h;
}

struct open_call {
	uint32_t sym;
	int64_t ts;
	int shown;
};

static void put_call(FILE *out, chrome_calls *cc, const store_trace *t, uint32_t sym,
		     int64_t a, int64_t b)
{
	const char *name = store_func_name(cc->s, sym);
	sep(out, cc);
	fputs("{\"ph\":\"X\",\"name\":", out);
	esc_json(name ? name : "?", out);
	fprintf(out, ",\"cat\":\"call\",\"pid\":%d,\"tid\":%d,\"ts\":", t->proc, t->thread);
	put_ts(out, a);
	fputs(",\"dur\":", out);
	put_ts(out, b >= a ? b - a : 0);
	fputs("}", out);
}

/* One trace: its first `share` calls (and their returns). */
static int one_trace(FILE *out, chrome_calls *cc, const store_trace *t, uint64_t share,
		     dt_err *e)
{
	int own;
	int32_t h = host_of(cc, t->proc, t->thread, &own);
	int64_t off = h >= 0 && (size_t)h < cc->nhost ? cc->off[h] : 0;
	if (!own) {
		/* a row the sync events did not name */
		sep(out, cc);
		fprintf(out, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%d,"
			"\"args\":{\"name\":\"%d.%d\"}}", t->proc, t->thread, t->proc, t->thread);
	}
	store_cursor *c = NULL;
	if (store_cursor_open(cc->s, t, 0, &c, e))
		return -1;
	uint32_t *ev = xmalloc(BLOCK * sizeof *ev);
	uint64_t *ts = xmalloc(BLOCK * sizeof *ts);
	struct open_call *st = NULL;
	size_t nst = 0, cap = 0, nopen_shown = 0;
	uint64_t shown = 0, calls = 0;
	int64_t last = 0, k;
	int cut = 0, rc = 0;
	while ((k = store_cursor_next(c, ev, ts, BLOCK, e)) > 0) {
		for (int64_t i = 0; i < k; i++) {
			int64_t at = (int64_t)ts[i] + off;
			last = at;
			if (ev[i] != DT_RET) {
				calls++;
				int show = shown < share;
				if (show) {
					shown++;
					nopen_shown++;
				} else if (!cut) {
					cut = 1;
					sep(out, cc);
					fprintf(out, "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"calls cut "
						"here\",\"cat\":\"call\",\"pid\":%d,\"tid\":%d,\"ts\":",
						t->proc, t->thread);
					put_ts(out, at);
					fprintf(out, ",\"args\":{\"shown\":%" PRIu64 "}}", shown);
				}
				GROW(st, cap, nst + 1);
				st[nst++] = (struct open_call){ ev[i], at, show };
			} else if (nst) {
				struct open_call o = st[--nst];
				if (o.shown) {
					put_call(out, cc, t, o.sym, o.ts, at);
					nopen_shown--;
				}
			}
		}
		/* cut, and every call shown has returned: the rest is not needed */
		if (cut && !nopen_shown)
			break;
	}
	if (k < 0)
		rc = -1;
	/* calls that never returned end at the trace's last event */
	while (rc == 0 && nst--)
		if (st[nst].shown)
			put_call(out, cc, t, st[nst].sym, st[nst].ts, last);
	if (cut) {
		cc->ncut++;
		calls = t->ncalls > calls ? t->ncalls : calls;
	}
	cc->nshown += shown;
	cc->nall += calls;
	free(st);
	free(ev);
	free(ts);
	store_cursor_close(c);
	return rc;
}

int chrome_calls_write(FILE *out, int first, chrome_calls *cc, dt_err *e)
{
	cc->first = first;
	store_trace *t = NULL;
	size_t n = 0, ntimed = 0;
	if (store_trace_list(cc->s, cc->run_id, &t, &n, e))
		return -1;
	for (size_t i = 0; i < n; i++)
		ntimed += t[i].has_time != 0;
	cc->nnotime = n - ntimed;
	int rc = 0;
	uint64_t share = ntimed ? cc->max_calls / ntimed : 0;
	if (cc->max_calls && !share)
		share = 1;
	for (size_t i = 0; i < n && rc == 0 && share; i++)
		if (t[i].has_time)
			rc = one_trace(out, cc, &t[i], share, e);
	store_traces_free(t, n);
	return rc;
}
