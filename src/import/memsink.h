/* memsink.h: a dt_sink that keeps imported traces in memory, for tests, fuzzers and benchmarks
 * that exercise an importer without a store. */
#ifndef DT_MEMSINK_H
#define DT_MEMSINK_H

#include "import/sink.h"
#include "util/util.h"

typedef struct memtrace {
	dt_trace_meta meta; /* host and source are owned copies */
	uint32_t *ev;
	uint64_t *ts;       /* NULL when the trace has no timestamps */
	size_t n, cap;
	unsigned flags;
	char *note;
	char **args;        /* "idx kind text" lines */
	size_t nargs;
	uint64_t nlost, ngaps;
	dt_sync_event *sync; /* the sync events, kept with keep_events */
	size_t nsync, capsync;
	dt_sync_clock clock;
} memtrace;

typedef struct memsink {
	dt_sink sink;
	strmap names;
	char **funcs;       /* funcs[id] is the name of id; funcs[0] is "[ret]" */
	size_t nfuncs, capfuncs;
	memtrace *traces;
	size_t ntraces, captraces;
	int keep_events;    /* 0: count events but do not keep them (fuzzers, benchmarks) */
	uint64_t total_events;
} memsink;

void memsink_init(memsink *m, int keep_events);
void memsink_free(memsink *m);
/* The trace whose source path ends with suffix, or NULL. */
memtrace *memsink_find(memsink *m, const char *suffix);

#endif
