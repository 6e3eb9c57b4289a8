/* cli_syncrun.c: pieces shared by the sync-record verbs (cli_syncrun.h). */
#include <stdlib.h>

#include "cli/cli.h"
#include "cli/cli_syncrun.h"

void cli_put_ctl_esc(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch < 0x20 || ch == 0x7f)
			fprintf(f, "\\x%02x", ch);
		else
			fputc(ch, f);
	}
}

int cli_max_held(const char *cmd, const char *arg, size_t *out)
{
	char *end;
	unsigned long long v = strtoull(arg, &end, 10);
	if (*end || !v || arg[0] == '-')
		return cli_usage(cmd, "--max-held needs a positive number, not '%s'", arg);
	*out = (size_t)v;
	return 0;
}
