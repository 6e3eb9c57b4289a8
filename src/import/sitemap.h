/* sitemap.h: the call sites of a sync record, resolved to the program's source.
 *
 * The recorder keeps each call's site as an address in its process, and the process's module
 * map beside its files (DIR/<pid>.maps, difftrace-sync(5)). A sitemap reads those maps and the
 * modules' debug information (elfutils libdwfl) to say where an address is: the file and line
 * of the call and the function it is in (the innermost one, an inlined function's own name),
 * or, for a module built without -g, its symbol and the offset into it. Each distinct
 * address of a process is resolved once and handed to the sink's site table. */
#ifndef DT_SITEMAP_H
#define DT_SITEMAP_H

#include <stdint.h>

#include "import/sink.h"

typedef struct sitemap sitemap;

/* The sites of the sync directory dir (which holds the <pid>.maps files). */
sitemap *sitemap_new(const char *dir);
void sitemap_free(sitemap *m);
/* The sink's id of the site at address a of process pid: 0 when a is 0, the process has no
 * map or the sink keeps no sites; (uint32_t)-1 on the sink's error (e says). */
uint32_t sitemap_get(sitemap *m, int64_t pid, uint64_t a, dt_sink *s, dt_err *e);

#endif
