/* watch_screen.h: the screen of `difftrace watch` (a curses loop that polls a recording in
 * progress and redraws every interval), and what it shares with src/cli/cli_watch.c. */
#ifndef DT_WATCH_SCREEN_H
#define DT_WATCH_SCREEN_H

#include <stddef.h>
#include <stdio.h>

#include "order/live.h"
#include "util/err.h"

enum { GROUP_AUTO, GROUP_ALWAYS, GROUP_NEVER };

/* Runs the screen on the terminal of out until q; group is the grouping to start with. */
int watch_screen(live *l, const char *dir, double interval, int group, FILE *out, dt_err *e);

/* In cli_watch.c: one snapshot as text (grouped by call when group says so, or for
 * GROUP_AUTO when there are more threads than rows), and a poll with this host's clocks. */
void watch_text(FILE *f, const live *l, const char *dir, int group, size_t rows);
int watch_poll(live *l, dt_err *e);

#endif
