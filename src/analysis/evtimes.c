/* evtimes.c: the times of a trace's kept events (evtimes.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/evtimes.h"
#include "analysis/filter.h"
#include "import/sink.h"
#include "util/util.h"

#define BLOCK 65536

void evtimes_free(evtimes *t)
{
	free(t->start);
	free(t->end);
	memset(t, 0, sizeof *t);
}

void evtimes_fmt(uint64_t ns, char *buf, size_t n)
{
	if (ns < 1000)
		snprintf(buf, n, "%llu ns", (unsigned long long)ns);
	else if (ns < 1000000)
		snprintf(buf, n, "%.3f us", (double)ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, n, "%.3f ms", (double)ns / 1e6);
	else if (ns < 100000000000000ull)
		snprintf(buf, n, "%.3f s", (double)ns / 1e9);
	else
		snprintf(buf, n, "%.0f s", (double)ns / 1e9);
}

/* a call kept as positions [f, f + n) of the kept stream, or none (n 0) */
struct open_call {
	size_t f;
	unsigned n;
};

/* Which kept events walk_trace gives the position in the trace of: all (only NULL), or the
 * nonly ones listed in only (ascending). */
struct rawsel {
	const uint64_t *only;
	size_t nonly;
};

/* One pass over trace t's events under filter (an analysis's canonical form, named alias),
 * which keeps want of them: the times of the kept events into out (when not NULL), the call
 * depth of each into *depth (when not NULL), the position of its event in the trace into *raw
 * (when not NULL: of the kept events sel selects). */
static int walk_trace(store *s, const char *filter, const char *alias, const store_trace *t,
		      uint64_t want, evtimes *out, uint16_t **depth, uint64_t **raw,
		      struct rawsel sel, char *why, size_t nwhy, dt_err *e)
{
	evtimes scratch;
	int times = out != NULL; /* depths alone: no 16 bytes of times per event */
	if (!out)
		out = &scratch;
	memset(out, 0, sizeof *out);
	if (depth)
		*depth = NULL;
	if (raw)
		*raw = NULL;
	if (times && !t->has_time) {
		snprintf(why, nwhy, "trace %d.%d has no timestamps (its format records none)", t->proc,
			 t->thread);
		return 0;
	}
	if (want > EVTIMES_MAX && (times || depth || !sel.only)) {
		snprintf(why, nwhy, "trace %d.%d keeps too many events to %s (%llu, more than %u)",
			 t->proc, t->thread,
			 depth ? "follow its calls" : raw ? "map to their calls" : "time",
			 (unsigned long long)want, EVTIMES_MAX);
		return 0;
	}
	/* the analysis's filter, from its canonical form (the cache key ends in #digest) */
	char spec[512];
	snprintf(spec, sizeof spec, "%s", filter ? filter : "");
	char *hash = strrchr(spec, '#');
	if (hash)
		*hash = 0;
	filt_lib *lib = filt_lib_new();
	filt *f = NULL;
	filt_table tab = { 0 };
	size_t nnames;
	const char *const *names = store_func_names(s, &nnames);
	int rc = -1;
	store_cursor *c = NULL;
	uint32_t *ev = NULL, *o = NULL;
	uint64_t *ts = NULL;
	struct open_call *stack = NULL;
	size_t nstack = 0, capstack = 0;
	uint16_t *dep = NULL;
	uint64_t *rw = NULL, at = 0;
	unsigned kdepth = 0; /* kept calls open */
	filt_stream fs;
	int have_fs = 0;
	if (filt_lib_load_default(lib, e) || filt_parse(lib, spec, &f, e) ||
	    filt_table_build(f, names, nnames, &tab, e))
		goto out;
	filt_stream_init(&fs, &tab);
	have_fs = 1;
	if (times) {
		out->start = xmalloc((want ? want : 1) * sizeof *out->start);
		out->end = xmalloc((want ? want : 1) * sizeof *out->end);
	}
	out->t0 = t->first_ts;
	if (depth)
		dep = xmalloc((want ? want : 1) * sizeof *dep);
	size_t q = 0; /* the next of sel.only */
	if (raw)
		rw = xmalloc((sel.only ? (sel.nonly ? sel.nonly : 1) : want ? want : 1) *
			     sizeof *rw);
	for (size_t k = 0; rw && sel.only && k < sel.nonly; k++)
		rw[k] = UINT64_MAX; /* past the end */
	if (store_cursor_open(s, t, 0, &c, e))
		goto out;
	ev = xmalloc(BLOCK * sizeof *ev);
	ts = xmalloc(BLOCK * sizeof *ts);
	o = xmalloc((tab.max_copies ? tab.max_copies : 1) * sizeof *o);
	size_t pos = 0;
	int64_t k;
	while ((k = store_cursor_next(c, ev, ts, BLOCK, e)) > 0) {
		for (int64_t i = 0; i < k; i++, at++) {
			size_t m = filt_stream_apply(&fs, &ev[i], 1, o);
			if (pos + m > want) {
				snprintf(why, nwhy,
					 "the filter %s keeps other events now than when the analysis "
					 "was made: no times",
					 alias);
				rc = 0;
				goto out;
			}
			for (size_t j = 0; times && j < m; j++)
				out->start[pos + j] = out->end[pos + j] = ts[i];
			for (size_t j = 0; rw && !sel.only && j < m; j++)
				rw[pos + j] = at;
			for (; rw && sel.only && q < sel.nonly && sel.only[q] < pos + m; q++)
				rw[q] = at;
			if (ev[i] != DT_RET) {
				GROW(stack, capstack, nstack + 1);
				stack[nstack++] = (struct open_call){ pos, (unsigned)m };
				for (size_t j = 0; dep && j < m; j++)
					dep[pos + j] = kdepth > UINT16_MAX ? UINT16_MAX : (uint16_t)kdepth;
				kdepth += m > 0;
			} else if (nstack) {
				struct open_call oc = stack[--nstack];
				for (unsigned j = 0; times && j < oc.n; j++)
					out->end[oc.f + j] = ts[i];
				kdepth -= oc.n > 0 && kdepth > 0;
			}
			if (ev[i] == DT_RET)
				/* a kept return sits at the depth of its call */
				for (size_t j = 0; dep && j < m; j++)
					dep[pos + j] = kdepth > UINT16_MAX ? UINT16_MAX : (uint16_t)kdepth;
			pos += m;
		}
	}
	if (k < 0)
		goto out;
	if (pos != want) {
		snprintf(why, nwhy,
			 "the filter %s keeps other events now than when the analysis was made: no "
			 "times",
			 alias);
		rc = 0;
		goto out;
	}
	out->n = pos;
	rc = 1;
	if (depth) {
		*depth = dep;
		dep = NULL;
	}
	if (raw) {
		*raw = rw;
		rw = NULL;
	}
out:
	free(dep);
	free(rw);
	if (rc != 1 || out == &scratch)
		evtimes_free(out);
	if (have_fs)
		filt_stream_free(&fs);
	store_cursor_close(c);
	filt_table_free(&tab);
	filt_free(f);
	filt_lib_free(lib);
	free(ev);
	free(ts);
	free(o);
	free(stack);
	return rc;
}

static int walk(store *s, const an_result *r, int obj, evtimes *out, uint16_t **depth,
		uint64_t **raw, char *why, size_t nwhy, dt_err *e)
{
	if (out)
		memset(out, 0, sizeof *out);
	if (depth)
		*depth = NULL;
	if (raw)
		*raw = NULL;
	if (obj < 0 || (size_t)obj >= r->n)
		return dt_errf(e, DT_EUSAGE, "no such trace in the analysis");
	struct rawsel all = { NULL, 0 };
	return walk_trace(s, r->meta.filter, r->filter_alias, &r->traces[obj], r->nfiltered[obj],
			  out, depth, raw, all, why, nwhy, e);
}

int evtimes_load(store *s, const an_result *r, int obj, evtimes *out, char *why, size_t nwhy,
		 dt_err *e)
{
	return walk(s, r, obj, out, NULL, NULL, why, nwhy, e);
}

int evtimes_depth(store *s, const an_result *r, int obj, uint16_t **depth, size_t *n, char *why,
		  size_t nwhy, dt_err *e)
{
	*n = 0;
	int rc = walk(s, r, obj, NULL, depth, NULL, why, nwhy, e);
	if (rc == 1)
		*n = (size_t)r->nfiltered[obj];
	return rc;
}

int evtimes_raw(store *s, const an_result *r, int obj, uint64_t **raw, size_t *n, char *why,
		size_t nwhy, dt_err *e)
{
	*n = 0;
	int rc = walk(s, r, obj, NULL, NULL, raw, why, nwhy, e);
	if (rc == 1)
		*n = (size_t)r->nfiltered[obj];
	return rc;
}

int evtimes_raw_trace(store *s, const char *filter, const char *alias, const store_trace *t,
		      uint64_t want, const uint64_t *only, size_t nonly, uint64_t **raw,
		      char *why, size_t nwhy, dt_err *e)
{
	struct rawsel sel = { only, nonly };
	return walk_trace(s, filter, alias, t, want, NULL, NULL, raw, sel, why, nwhy, e);
}
