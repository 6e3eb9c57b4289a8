/* write.h: the merged order of a run's sync events, written for people (text), for programs
 * (csv, json) and for trace viewers (the Chrome trace event JSON that Perfetto and
 * chrome://tracing open: one row per trace, each call a slice, MPI messages as flow arrows).
 * Functions over an ordered array (filter.h's ord_item), writing to a FILE the caller opened. */
#ifndef DT_ORDER_WRITE_H
#define DT_ORDER_WRITE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "import/sync_event.h"
#include "order/filter.h"
#include "util/err.h"

enum ord_format { ORD_FMT_TEXT, ORD_FMT_CSV, ORD_FMT_JSON, ORD_FMT_CHROME };
/* "text", "csv", "json", "chrome"; -1 when unknown. */
int ord_format_parse(const char *s);

/* Writes it[0..n) (ids index ev) in format fmt. names[f] is the name of function id f (NULL or
 * f >= nnames: "function#F"); names are escaped. Fails (DT_EDATA) only when writing fails. */
int ord_write(FILE *out, int fmt, const dt_sync_event *ev, const ord_item *it, size_t n,
	      const char *const *names, uint32_t nnames, dt_err *e);
/* The same; for chrome, more (when not NULL) then writes events of its own into the array
 * before it closes (the program's calls: export/chrome_calls.h); first: none was written. */
typedef int (*ord_more_fn)(FILE *out, int first, void *arg, dt_err *e);
int ord_write_more(FILE *out, int fmt, const dt_sync_event *ev, const ord_item *it, size_t n,
		   const char *const *names, uint32_t nnames, ord_more_fn more, void *arg,
		   dt_err *e);

/* The call sites (dt_sync_event.site) the text and JSON of the next ord_write calls name:
 * text[id] ("file:line (function)", NULL for none) for id < n; NULL, 0: none. Kept, not copied. */
void ord_write_sites(const char *const *text, uint32_t n);

#endif
