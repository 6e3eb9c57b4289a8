/* err.c: building and formatting dt_err values. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/err.h"

void dt_err_clear(dt_err *e)
{
	memset(e, 0, sizeof *e);
	e->offset = -1;
}

static int vset(dt_err *e, int status, const char *file, int64_t off, int line, int col,
		const char *fmt, va_list ap)
{
	if (!e || e->status)
		return -1; /* the first error is the one that explains the failure */
	e->status = status;
	snprintf(e->file, sizeof e->file, "%s", file ? file : "");
	e->offset = off;
	e->line = line;
	e->col = col;
	vsnprintf(e->msg, sizeof e->msg, fmt, ap);
	return -1;
}

int dt_errf(dt_err *e, int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vset(e, status, NULL, -1, 0, 0, fmt, ap);
	va_end(ap);
	return -1;
}

int dt_err_at(dt_err *e, const char *file, int64_t offset, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vset(e, DT_EDATA, file, offset, 0, 0, fmt, ap);
	va_end(ap);
	return -1;
}

int dt_err_lc(dt_err *e, const char *file, int line, int col, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vset(e, DT_EDATA, file, -1, line, col, fmt, ap);
	va_end(ap);
	return -1;
}

void dt_err_format(const dt_err *e, char *buf, size_t n)
{
	if (e->file[0] && e->line > 0)
		snprintf(buf, n, "%s:%d:%d: %s", e->file, e->line, e->col, e->msg);
	else if (e->file[0] && e->offset >= 0)
		snprintf(buf, n, "%s: offset %lld: %s", e->file, (long long)e->offset, e->msg);
	else if (e->file[0])
		snprintf(buf, n, "%s: %s", e->file, e->msg);
	else
		snprintf(buf, n, "%s", e->msg);
}
