/* cli_analysis.h: the options every analysis verb shares (--filter, --attrs, -K ...), and
 * getting the analysis of a run computed or from the cache (an_lookup.h) with a progress line. */
#ifndef DT_CLI_ANALYSIS_H
#define DT_CLI_ANALYSIS_H

#include "analysis/an_lookup.h"
#include "analysis/analysis.h"
#include "cli/cli.h"

/* The long options, to append to a verb's own; their codes are >= 1000. */
extern const struct option cli_an_longopts[];
#define CLI_AN_NOPTS 9

/* The help text lines for the shared options. */
extern const char cli_an_help[];

typedef struct cli_an {
	an_params p;
	const char *files[32];
	int quiet;
} cli_an;

void cli_an_init(cli_an *a);
/* Writes own (terminated by a zero entry) followed by the shared options into out, which must
 * hold the count of own + CLI_AN_NOPTS + 1 entries. */
void cli_an_join(const struct option *own, struct option *out);
/* Handles a shared option: 1 when it was one, 0 when not, 2 (exit status) on a bad value. */
int cli_an_option(cli_an *a, const char *cmd, int opt, const char *arg);
/* The analysis of run under a's parameters: found in the cache or computed (with a progress
 * line on a terminal); loads it into r. */
int cli_an_get(const cli_an *a, store *s, const char *run, an_result *r, dt_err *e);
/* The id of that analysis, found or computed, without loading it. */
int cli_an_id(const cli_an *a, store *s, const char *run, int64_t *id, int *reused, dt_err *e);
/* The same, saying whether the analysis came from the cache. */
int cli_an_get2(const cli_an *a, store *s, const char *run, an_result *r, int *reused, dt_err *e);
/* A cache of analyses (an_lookup.h) that computes them here, with the progress line; for the
 * diagnosis (diagnosis.h). al_cache_free it. */
void cli_an_cache(store *s, al_cache *c);

#endif
