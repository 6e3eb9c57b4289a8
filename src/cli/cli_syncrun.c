/* cli_syncrun.c: pieces shared by the sync-record verbs (cli_syncrun.h). */
#include <stdlib.h>

#include "cli/cli.h"
#include "cli/cli_syncrun.h"
#include "util/esc.h"

void cli_put_ctl_esc(FILE *f, const char *s)
{
	if (s)
		esc_fputs(s, f); /* C0, DEL, C1 and bytes that are not UTF-8 (util/esc.h) */
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
