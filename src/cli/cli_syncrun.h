/* cli_syncrun.h: small pieces shared by the verbs that read a run's sync record
 * (`difftrace sync`, `hang`, `order`, `watch`). */
#ifndef DT_CLI_SYNCRUN_H
#define DT_CLI_SYNCRUN_H

#include <stddef.h>
#include <stdio.h>

/* Parses the value of --max-held for verb cmd: a positive number into *out and 0, or the
 * usage error's exit status. */
int cli_max_held(const char *cmd, const char *arg, size_t *out);

#endif
