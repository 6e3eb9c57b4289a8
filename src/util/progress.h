/* progress.h: a one-line progress display for long work, on a terminal only.
 *
 * On a pipe or a file it prints nothing, so scripts see only results; DIFFTRACE_PROGRESS=1 draws
 * it there too (under mpirun, whose processes' standard error is a pipe to the launcher). */
#ifndef DT_PROGRESS_H
#define DT_PROGRESS_H

typedef struct progress {
	int tty;
	double last;   /* when the line was last drawn, seconds */
	int shown;     /* a line is on screen and must be cleared */
} progress;

void progress_init(progress *p);
/* Redraws the line at most ten times a second. */
void progress_show(progress *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void progress_end(progress *p);

#endif
