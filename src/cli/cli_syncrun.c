/* cli_syncrun.c: pieces shared by the sync-record verbs (cli_syncrun.h). */
#include <stdlib.h>

#include "cli/cli.h"
#include "cli/cli_syncrun.h"

int cli_max_held(const char *cmd, const char *arg, size_t *out)
{
	char *end;
	unsigned long long v = strtoull(arg, &end, 10);
	if (*end || !v || arg[0] == '-')
		return cli_usage(cmd, "--max-held needs a positive number, not '%s'", arg);
	*out = (size_t)v;
	return 0;
}
