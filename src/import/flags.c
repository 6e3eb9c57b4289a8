/* flags.c: names of the trace flags of sink.h, as the CLI and the interface show them. */
#include <stdio.h>
#include <string.h>

#include "import/sink.h"

static const char *const names[] = {
	"truncated", "unterminated", "open-frames", "lost-records",
	"info-truncated", "empty", "unmatched", "timed-out",
	"time-regressed", "corrupt", "unresolved",
};

const char *dt_flag_name(unsigned bit)
{
	return bit < sizeof names / sizeof *names ? names[bit] : "?";
}

void dt_flags_str(unsigned flags, char *buf, size_t n)
{
	size_t len = 0;
	buf[0] = 0;
	for (unsigned b = 0; b < 32 && len + 1 < n; b++) {
		if (!(flags & (1u << b)))
			continue;
		int w = snprintf(buf + len, n - len, "%s%s", len ? "," : "", dt_flag_name(b));
		if (w < 0)
			break;
		len += (size_t)w;
	}
	if (!len)
		snprintf(buf, n, "-");
}
