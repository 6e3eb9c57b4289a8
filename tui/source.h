/* source.h: from a call in a view back to its source: where its function is defined (the run's
 * source lines, store_srcline.h) and the editor on that line, as uftrace tui and tig open one.
 * Shared by the trace, diff and ranking views. */
#ifndef DT_TUI_SOURCE_H
#define DT_TUI_SOURCE_H

#include "store/store_srcline.h"
#include "store/store_sync.h"
#include "tui.h"

/* The source lines of run (NULL when it has none or they cannot be read: views go on). */
store_srclines *tui_src_load(tui *t, const char *run);
/* Appends "  FILE:LINE" (the file's last component, dimmed) when name has a line. */
void tui_src_suffix(tui_out *o, const store_srclines *l, const char *name);
/* Opens $VISUAL, else $EDITOR, else vi, as EDITOR +LINE FILE on name's definition, the
 * interface suspended until it returns; when name has no line, says why (the program had no
 * -g, the run has no lines at all, or the function is not in the debug information). */
void tui_src_edit(tui *t, const store_srclines *l, const char *name);

/* The same for a sync call: the editor on its site (id in sites), or why not (call 0: the line
 * names no call; no site; a program without -g). Shared by every view that names a call. */
void tui_site_edit(tui *t, const store_sites *sites, uint32_t id, int call);
/* Appends "  at FILE:LINE (FUNCTION)" (dimmed) when id is a site of sites. */
void tui_site_suffix(tui_out *o, const store_sites *sites, uint32_t id);
/* The call sites of run into *out (none when it has none or they cannot be read), and its
 * format into format (nformat bytes) when not NULL. */
void tui_sites_load(tui *t, const char *run, store_sites *out, char *format, size_t nformat);

#endif
