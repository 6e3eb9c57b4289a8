/* source.h: from a call in a view back to its source: where its function is defined (the run's
 * source lines, store_srcline.h) and the editor on that line, as uftrace tui and tig open one.
 * Shared by the trace, diff and ranking views. */
#ifndef DT_TUI_SOURCE_H
#define DT_TUI_SOURCE_H

#include "store/store_srcline.h"
#include "tui.h"

/* The source lines of run (NULL when it has none or they cannot be read: views go on). */
store_srclines *tui_src_load(tui *t, const char *run);
/* Appends "  FILE:LINE" (the file's last component, dimmed) when name has a line. */
void tui_src_suffix(tui_out *o, const store_srclines *l, const char *name);
/* Opens $VISUAL, else $EDITOR, else vi, as EDITOR +LINE FILE on name's definition, the
 * interface suspended until it returns; when name has no line, says why (the program had no
 * -g, the run has no lines at all, or the function is not in the debug information). */
void tui_src_edit(tui *t, const store_srclines *l, const char *name);

#endif
