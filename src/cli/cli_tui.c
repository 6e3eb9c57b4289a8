/* cli_tui.c: `difftrace tui`, the curses interface, and its headless mode for tests. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_analysis.h"
#include "tui.h"

static const char help[] =
	"usage: difftrace tui [OPTIONS] [STORE]\n"
	"\n"
	"Browse the store in a terminal: runs, equivalence classes, traces and their nested loops,\n"
	"the concept lattice, the similarity matrix, the ranking of a faulty run against a normal\n"
	"one, and side-by-side diffs. Press ? in any view for its keys; see difftrace(1).\n"
	"Plain 'difftrace' opens it too when a store is there and the terminal is interactive.\n"
	"It needs a terminal that can move its cursor (not TERM=dumb), and ends at the end of\n"
	"its input.\n"
	"Where a uftrace recording has source lines (a program built with -g), calls show\n"
	"FILE:LINE and e opens the line in $VISUAL, else $EDITOR, else vi; D shows when each\n"
	"entry of a trace or diff began, then how long it took.\n"
	"\n"
	"  --normal RUN --faulty RUN  open the ranking of this pair\n"
	"  --filter SPEC, --attrs MODE, -K N   the analysis parameters to start with\n"
	"                        (default ompall,mpi or, with neither in the store,\n"
	"                        everything; sing.log10.args; 10)\n"
	"  --script FILE         headless: take keys from FILE instead of the terminal\n"
	"  --dump FILE           headless: write the final screen as text to FILE\n"
	"  --size ROWSxCOLS      headless screen size (default 24x80)\n"
	"  -h, --help            this help\n";

int cmd_tui(cli *c, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "help", no_argument, 0, 'h' },          { "script", required_argument, 0, 'S' },
		{ "dump", required_argument, 0, 'D' },    { "size", required_argument, 0, 'Z' },
		{ "normal", required_argument, 0, 'N' },  { "faulty", required_argument, 0, 'F' },
		{ "filter", required_argument, 0, 'f' },  { "attrs", required_argument, 0, 'a' },
		{ 0, 0, 0, 0 },
	};
	tui_opts o = { 0 };
	o.store_path = c->db;
	o.params.filter[0] = 0; /* tui_main resolves analysis_default_filter */
	snprintf(o.params.attrs, sizeof o.params.attrs, "%s", AN_DEFAULT_ATTRS);
	o.params.k = AN_DEFAULT_K;
	int opt, r;
	while ((r = cli_getopt(argc, argv, ":hK:", lo, &opt, "tui", help)) == 0 && opt != -1) {
		uint64_t v;
		attrs_mode m;
		int args;
		dt_err e;
		dt_err_clear(&e);
		switch (opt) {
		case 'S':
			o.script = optarg;
			break;
		case 'D':
			o.dump = optarg;
			break;
		case 'Z':
			if (sscanf(optarg, "%dx%d", &o.rows, &o.cols) != 2 || o.rows < 6 || o.cols < 30 ||
			    o.rows > 1000 || o.cols > 1000)
				return cli_usage("tui", "--size takes ROWSxCOLS, e.g. 24x80, not '%s'",
						 optarg);
			break;
		case 'N':
			o.normal = optarg;
			break;
		case 'F':
			o.faulty = optarg;
			break;
		case 'f':
			snprintf(o.params.filter, sizeof o.params.filter, "%s", optarg);
			break;
		case 'a':
			if (attrs_mode_parse_args(optarg, &m, &args, &e))
				return cli_usage("tui", "%s", e.msg);
			attrs_mode_name_args(m, args, o.params.attrs, sizeof o.params.attrs);
			break;
		case 'K':
			if (cli_parse_u64(optarg, &v) || v < 1 || v > 32)
				return cli_usage("tui", "-K takes 1 to 32, not '%s'", optarg);
			o.params.k = (unsigned)v;
			break;
		}
	}
	if (r == CLI_HELP_DONE)
		return 0;
	if (r)
		return r;
	if (optind < argc - 1)
		return cli_usage("tui", "one STORE at most");
	if (optind == argc - 1)
		o.store_path = argv[optind];
	if (!!o.normal != !!o.faulty)
		return cli_usage("tui", "--normal and --faulty go together");
	if (o.dump && !o.script)
		return cli_usage("tui", "--dump goes with --script");
	return tui_main(&o);
}
