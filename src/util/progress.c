/* progress.c: the throttled progress line on stderr. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/esc.h"
#include "util/progress.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void progress_init(progress *p)
{
	/* DIFFTRACE_PROGRESS=1: standard error is a pipe to a terminal, as a launcher's (mpirun
	 * forwards its processes' standard error through one) */
	const char *off = getenv("DIFFTRACE_NO_PROGRESS"), *on = getenv("DIFFTRACE_PROGRESS");
	p->tty = (isatty(2) || (on && !strcmp(on, "1"))) && !(off && *off);
	p->last = 0;
	p->shown = 0;
}

void progress_show(progress *p, const char *fmt, ...)
{
	if (!p->tty)
		return;
	double t = now();
	if (p->shown && t - p->last < 0.1)
		return;
	p->last = t;
	char line[256], safe[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\r\033[K%s", esc_str(line, safe, sizeof safe)); /* paths from the user */
	fflush(stderr);
	p->shown = 1;
}

void progress_end(progress *p)
{
	if (p->shown)
		fprintf(stderr, "\r\033[K");
	p->shown = 0;
}
