/* memsink.c: the in-memory dt_sink. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/memsink.h"

static int ms_begin(void *ctx, const dt_trace_meta *meta, dt_err *e)
{
	(void)e;
	memsink *m = ctx;
	GROW(m->traces, m->captraces, m->ntraces + 1);
	memtrace *t = &m->traces[m->ntraces++];
	memset(t, 0, sizeof *t);
	t->meta = *meta;
	t->meta.host = meta->host ? xstrdup(meta->host) : NULL;
	t->meta.source = meta->source ? xstrdup(meta->source) : NULL;
	return 0;
}

static uint32_t ms_func(void *ctx, const char *name, size_t len, dt_err *e)
{
	(void)e;
	memsink *m = ctx;
	uint32_t id;
	if (strmap_get(&m->names, name, len, &id))
		return id;
	GROW(m->funcs, m->capfuncs, m->nfuncs + 1);
	id = (uint32_t)m->nfuncs;
	m->funcs[m->nfuncs++] = xstrndup(name, len);
	strmap_put(&m->names, name, len, id);
	return id;
}

static int ms_events(void *ctx, const uint32_t *ev, const uint64_t *ts, size_t n, dt_err *e)
{
	memsink *m = ctx;
	if (!m->ntraces)
		return dt_errf(e, DT_EDATA, "memsink: events outside a trace");
	memtrace *t = &m->traces[m->ntraces - 1];
	for (size_t i = 0; i < n; i++)
		if (ev[i] != DT_RET && ev[i] >= m->nfuncs)
			return dt_errf(e, DT_EDATA, "memsink: event %u is not an interned function", ev[i]);
	m->total_events += n;
	if (!m->keep_events) {
		t->n += n;
		return 0;
	}
	if (t->n && !t->ts != !ts)
		return dt_errf(e, DT_EDATA, "memsink: timestamps present for part of a trace only");
	size_t cap = t->cap;
	GROW(t->ev, t->cap, t->n + n);
	memcpy(t->ev + t->n, ev, n * sizeof *ev);
	if (ts) {
		if (cap != t->cap || !t->ts)
			t->ts = xrealloc(t->ts, t->cap * sizeof *t->ts);
		memcpy(t->ts + t->n, ts, n * sizeof *ts);
	}
	t->n += n;
	return 0;
}

static int ms_arg(void *ctx, uint64_t idx, int kind, const char *text, dt_err *e)
{
	(void)e;
	memsink *m = ctx;
	memtrace *t = &m->traces[m->ntraces - 1];
	char line[4096];
	snprintf(line, sizeof line, "%llu %d %s", (unsigned long long)idx, kind, text);
	t->args = xrealloc(t->args, (t->nargs + 1) * sizeof *t->args);
	t->args[t->nargs++] = xstrdup(line);
	return 0;
}

static int ms_gap(void *ctx, uint64_t idx, uint64_t lost, dt_err *e)
{
	(void)e;
	(void)idx;
	memsink *m = ctx;
	memtrace *t = &m->traces[m->ntraces - 1];
	t->ngaps++;
	t->nlost += lost;
	return 0;
}

static int ms_end(void *ctx, unsigned flags, const char *note, dt_err *e)
{
	(void)e;
	memsink *m = ctx;
	memtrace *t = &m->traces[m->ntraces - 1];
	t->flags = flags;
	t->note = note ? xstrdup(note) : NULL;
	return 0;
}

static int ms_sync(void *ctx, const dt_sync_clock *clk, const dt_sync_event *ev, size_t n,
		   dt_err *e)
{
	memsink *m = ctx;
	if (!m->ntraces)
		return dt_errf(e, DT_EDATA, "memsink: sync events outside a trace");
	memtrace *t = &m->traces[m->ntraces - 1];
	if (clk)
		t->clock = *clk;
	if (m->keep_events && n) { /* n 0: a clock alone (import/wire.c) */
		GROW(t->sync, t->capsync, t->nsync + n);
		memcpy(t->sync + t->nsync, ev, n * sizeof *ev);
	}
	t->nsync += n;
	return 0;
}

void memsink_init(memsink *m, int keep_events)
{
	memset(m, 0, sizeof *m);
	strmap_init(&m->names);
	m->keep_events = keep_events;
	m->sink = (dt_sink){ m, ms_begin, ms_func, ms_events, ms_arg, ms_gap, ms_end, ms_sync, NULL,
			     NULL, NULL };
	GROW(m->funcs, m->capfuncs, 1);
	m->funcs[m->nfuncs++] = xstrdup("[ret]");
}

void memsink_free(memsink *m)
{
	for (size_t i = 0; i < m->nfuncs; i++)
		free(m->funcs[i]);
	free(m->funcs);
	for (size_t i = 0; i < m->ntraces; i++) {
		memtrace *t = &m->traces[i];
		free((char *)t->meta.host);
		free((char *)t->meta.source);
		free(t->ev);
		free(t->ts);
		free(t->note);
		for (size_t j = 0; j < t->nargs; j++)
			free(t->args[j]);
		free(t->args);
		free(t->sync);
	}
	free(m->traces);
	strmap_free(&m->names);
}

memtrace *memsink_find(memsink *m, const char *suffix)
{
	size_t sl = strlen(suffix);
	for (size_t i = 0; i < m->ntraces; i++) {
		const char *s = m->traces[i].meta.source;
		size_t l = s ? strlen(s) : 0;
		if (l >= sl && !strcmp(s + l - sl, suffix))
			return &m->traces[i];
	}
	return NULL;
}
