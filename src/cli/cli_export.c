/* cli_export.c: `difftrace export`, a run of the store in a format other tools read (OTF2,
 * for Vampir and otf2-print: src/export/otf2_write.h). */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "export/otf2_write.h"
#include "util/esc.h"

static const char help[] =
	"usage: difftrace export [--format otf2] [--name NAME] [-q] RUN DIR\n"
	"\n"
	"Write RUN as an OTF2 archive in DIR (made if missing): DIR/NAME.otf2, the file that\n"
	"Vampir and otf2-print open, beside DIR/NAME.def and DIR/NAME/. Each trace is a\n"
	"location, its calls regions entered and left, its sync events MPI and OpenMP records\n"
	"(sends and receives that match as messages, collectives, requests, one-sided calls\n"
	"on their windows) and attributes that 'difftrace import' reads back into the same\n"
	"run (difftrace-otf2(5)).\n"
	"\n"
	"  -f, --format FMT  otf2 (the only one, and the default)\n"
	"  -n, --name NAME   the archive's name (default: traces)\n"
	"  -q, --quiet       print nothing on success\n"
	"  -h, --help        this help\n";

int cmd_export(cli *c, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "format", required_argument, 0, 'f' }, { "name", required_argument, 0, 'n' },
		{ "quiet", no_argument, 0, 'q' },        { "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	const char *name = "traces";
	int quiet = 0, o, r;
	while ((r = cli_getopt(argc, argv, ":f:n:qh", lo, &o, "export", help)) == 0 && o != -1) {
		switch (o) {
		case 'f':
			if (strcmp(optarg, "otf2"))
				return cli_usage("export", "unknown format '%s' (otf2)", optarg);
			break;
		case 'n':
			if (!*optarg || strchr(optarg, '/'))
				return cli_usage("export", "bad archive name '%s' (no '/')", optarg);
			name = optarg;
			break;
		case 'q':
			quiet = 1;
			break;
		}
	}
	if (r == CLI_HELP_DONE)
		return 0;
	if (r)
		return r;
	if (argc - optind != 2)
		return cli_usage("export", "needs RUN and DIR");
	const char *dir = argv[optind + 1];
	dt_err e;
	dt_err_clear(&e);
	store *s = NULL;
	store_run run = { 0 };
	if (cli_open_run(c, argv[optind], &s, &run, &e))
		return cli_fail(&e);
	size_t nloc = 0;
	uint64_t nev = 0;
	int began = store_read_begin(s, &e);
	if (began < 0) {
		store_run_free(&run);
		store_close(s);
		return cli_fail(&e);
	}
	int rc = otf2_write_run(s, &run, dir, name, &nloc, &nev, &e);
	store_read_end(s, began);
	if (rc) {
		rc = cli_fail(&e);
	} else if (!quiet) {
		char a[32], safe[300], sd[1100];
		printf("exported run '%s': %zu traces, %s events as %s/%s.otf2\n",
		       esc_str(run.name, safe, sizeof safe), nloc, cli_count(nev, a, sizeof a),
		       esc_str(dir, sd, sizeof sd), name);
	}
	store_run_free(&run);
	store_close(s);
	return rc;
}
