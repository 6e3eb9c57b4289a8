/* cli_syncrun.h: small pieces shared by the verbs that read a run's sync record
 * (`difftrace sync`, `hang`, `order`, `watch`). */
#ifndef DT_CLI_SYNCRUN_H
#define DT_CLI_SYNCRUN_H

#include <stddef.h>
#include <stdio.h>

#include "store/store.h"
#include "util/err.h"

/* Parses the value of --max-held for verb cmd: a positive number into *out and 0, or the
 * usage error's exit status. */
int cli_max_held(const char *cmd, const char *arg, size_t *out);

/* A recording in progress (difftrace-record's output directory, one rank's directory or a sync
 * directory), for `hang DIR`: its sync record, as far as it is written, imported into a
 * private store made in a fresh temporary directory (*tmp, malloc'ed), as run "live". Close
 * *s, then remove the directory with cli_live_close. Fails with the importer's error. */
int cli_live_open(const char *dir, char **tmp, store **s, store_run *run, dt_err *e);
void cli_live_close(char *tmp);

#endif
