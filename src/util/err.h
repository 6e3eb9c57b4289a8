/* err.h: the one error type of difftrace.
 *
 * Every function that can fail returns a status (0 on success, -1 on error) and fills a dt_err
 * with a message and, when the error is about input, where in the input it happened. Only the
 * command-line layer prints errors and picks exit codes; library code never exits. */
#ifndef DT_ERR_H
#define DT_ERR_H

#include <stdint.h>

enum dt_status {
	DT_OK = 0,
	DT_EDATA = 1,  /* the data was bad or the work failed: exit status 1 */
	DT_EUSAGE = 2, /* the command line was wrong: exit status 2 */
};

typedef struct dt_err {
	int status;        /* DT_EDATA or DT_EUSAGE once set */
	char file[512];    /* input file the error is about, or "" */
	int64_t offset;    /* byte offset in file, or -1 */
	int line, col;     /* 1-based line:column in file, or 0 */
	char msg[512];
} dt_err;

void dt_err_clear(dt_err *e);
/* Sets the error (if not already set) and returns -1, so callers can `return dt_errf(...)`. */
int dt_errf(dt_err *e, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The same, naming a file and a byte offset (-1 for none). */
int dt_err_at(dt_err *e, const char *file, int64_t offset, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* The same, naming a file, line and column. */
int dt_err_lc(dt_err *e, const char *file, int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* One line: "FILE: offset N: MSG", "FILE:L:C: MSG" or "MSG". */
void dt_err_format(const dt_err *e, char *buf, size_t n);

#endif
