/* store_sync.h: reading the sync events of a run (import/sync_event.h), the input of the
 * order stage and of the hang report. */
#ifndef DT_STORE_SYNC_H
#define DT_STORE_SYNC_H

#include <stddef.h>
#include <stdint.h>

#include "import/sync_event.h"
#include "store/store.h"

/* All sync events of a run, ordered by proc, thread, seq, with proc, thread and host filled
 * (host: the index of the trace's host among the run's hosts, in order of their first
 * process). *ev is malloc'd (NULL when there are none); the caller frees it. */
int store_sync_list(store *s, int64_t run_id, dt_sync_event **ev, size_t *n, dt_err *e);

/* The clock of each trace that has sync events: a monotonic and a wall-clock reading taken
 * together on its host. */
typedef struct store_sync_clock {
	int32_t proc, thread;
	int32_t clock_id;
	int64_t mono_ns, real_ns;
} store_sync_clock;

int store_sync_clocks(store *s, int64_t run_id, store_sync_clock **c, size_t *n, dt_err *e);

/* The run's host names, by the index store_sync_list gives; *names is an array of malloc'd
 * strings (free each, then the array). */
int store_sync_hosts(store *s, int64_t run_id, char ***names, size_t *n, dt_err *e);

/* The call sites of a run's sync events (dt_sync_event.site), by id: the file (absolute when
 * the debug information says where the program was compiled) and line of the call and the
 * function it is in; line 0, a binary without debug information: file is the binary and func
 * "symbol+0xoffset". */
typedef struct store_site {
	char *file, *func;
	unsigned line;
} store_site;

typedef struct store_sites {
	store_site *v; /* v[id - 1] */
	size_t n;
	int nodebug;   /* a site of a binary without debug information (line 0) */
} store_sites;

/* The sites of a run: none for a run imported before sites were recorded, or a store of
 * schema 11 opened read-only. */
int store_sync_sites(store *s, int64_t run_id, store_sites *out, dt_err *e);
void store_sites_free(store_sites *t);
/* Site id of t, or NULL when it has none (0, or not in t). */
const store_site *store_site_get(const store_sites *t, uint32_t id);
/* "file:line (func)" with the file's last component, or "func" for a site without a line;
 * "" for none. Into b (n bytes), which is returned; names are the trace's data: the caller
 * escapes them for display. */
const char *store_site_str(const store_site *site, char *b, size_t n);
/* " at FILE:LINE (FUNCTION)" of site id of sites (NULL: none), escaped for people, into w (n
 * bytes); "" when it has none. Returns w. */
const char *store_site_at(const store_sites *sites, uint32_t id, char *w, size_t n);
/* The note to print once when sites lack lines: "", or why. */
const char *store_sites_note(const store_sites *t);

#endif
