/* live_text.h: the state of a recording in progress (live.h) for people: the text of `difftrace
 * watch`'s snapshots, which its screen (tui/watch_screen.c) shows too, and the pieces its JSON
 * form shares. */
#ifndef DT_LIVE_TEXT_H
#define DT_LIVE_TEXT_H

#include <stddef.h>
#include <stdio.h>

#include "order/live.h"
#include "util/err.h"

/* How the threads are shown: grouped by call when there are more than the rows (auto), always,
 * or one line each. */
enum { GROUP_AUTO, GROUP_ALWAYS, GROUP_NEVER };

/* One snapshot of l (recording dir) as text: a header, then each thread's or group's line. */
void live_text(FILE *f, const live *l, const char *dir, int group, size_t rows);
/* Reads what was appended to the recording since, with this host's clocks. */
int live_poll_now(live *l, dt_err *e);
/* A thread's P.T; a group's P.T ranges (malloc'ed); the wait-for cycles among the threads'
 * calls (*nc of them, each a list of thread indexes ending in SIZE_MAX), freed with
 * live_cycles_free. */
const char *live_pt_str(const live_thread *t, char *b, size_t n);
char *live_group_pts(const live_thread *th, const live_group *g);
size_t **live_cycles_of(const live_thread *th, size_t n, size_t *nc);
void live_cycles_free(size_t **c, size_t n);

#endif
