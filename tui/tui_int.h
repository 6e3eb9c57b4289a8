/* tui_int.h: what the framework files share with each other, not with the views. */
#ifndef DT_TUI_INT_H
#define DT_TUI_INT_H

#include "tui.h"

/* Opens the help screen for the view on top. */
void tui_help(tui *t);
/* Display columns of the UTF-8 string s[0..n). */
int tui_cols_of(const char *s, size_t n);
/* Writes every line of v as text to path. */
int tui_write_view(tui *t, view *v, const char *path);
/* Headless scripts: a typed string delivered key by key. */
void tui_script_push(tui *t, const char *s);
int tui_script_pop(tui *t);

#endif
