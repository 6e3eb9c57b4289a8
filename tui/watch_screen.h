/* watch_screen.h: the screen of `difftrace watch` (a curses loop that polls a recording in
 * progress and redraws every interval); the snapshot it shows is order/live_text.h's. */
#ifndef DT_WATCH_SCREEN_H
#define DT_WATCH_SCREEN_H

#include <stddef.h>
#include <stdio.h>

#include "order/live.h"
#include "order/live_text.h"
#include "util/err.h"

/* Runs the screen on the terminal of out until q; group is the grouping to start with. */
int watch_screen(live *l, const char *dir, double interval, int group, FILE *out, dt_err *e);

#endif
