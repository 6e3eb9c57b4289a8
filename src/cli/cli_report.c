/* cli_report.c: `difftrace report`: per function, the calls and the total and self time of a
 * normal and a faulty run side by side with their difference, as `uftrace report --diff`. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/fstats.h"
#include "analysis/timing.h"
#include "cli/cli.h"
#include "util/util.h"

static const char report_help[] =
	"usage: difftrace report --normal RUN --faulty RUN [--trace P.T] [--sort total|self|calls]\n"
	"                        [--top N] [--format text|csv]\n"
	"\n"
	"Per function, over every trace of each run (or trace P.T only): the calls, the total\n"
	"time (entry to return) and the self time (total minus the calls made inside it) in the\n"
	"normal and the faulty run, and their difference (faulty - normal), largest change\n"
	"first, as 'uftrace report --diff'. Every function is counted, before any filter. Times\n"
	"need a recording with timestamps (uftrace, ParLOT with time); without them only the\n"
	"calls are compared and times print as '-'. Calls still open at the end of a trace (a\n"
	"hang, a crash) end at its last timestamp.\n"
	"\n"
	"  --normal RUN          the run that behaved\n"
	"  --faulty RUN          the run that did not\n"
	"  --trace P.T           one trace of each run instead of all\n"
	"  --sort KEY            total (default), self or calls: the change to sort by\n"
	"  --top N               only the N largest changes (default: all)\n"
	"  --format FMT          text (default) or csv (times in nanoseconds)\n"
	"  --by-trace            one row per trace instead: the function of its own (not MPI,\n"
	"                        OpenMP, threads or sleep, which wait for others) whose self\n"
	"                        time grew most beyond its peers' (the other traces with it),\n"
	"                        its factor against the normal run and the peers' median\n"
	"                        factor; the significant ones first (at least 1.5x the peers',\n"
	"                        beyond three times their spread, and 5%% of the trace's\n"
	"                        work), then by the time gained; what rank ranks when no\n"
	"                        calls differ\n"
	"  -h, --help            this help\n"
	"\n";

/* A duration for people: 812 ns, 12.345 us, 1.234 ms, 2.500 s; signed when diff. */
static const char *dur(uint64_t ns, int sign, int neg, char *buf, size_t n)
{
	const char *s = sign ? (neg ? "-" : ns ? "+" : " ") : "";
	if (ns < 1000)
		snprintf(buf, n, "%s%llu ns", s, (unsigned long long)ns);
	else if (ns < 1000000)
		snprintf(buf, n, "%s%.3f us", s, (double)ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, n, "%s%.3f ms", s, (double)ns / 1e6);
	else
		snprintf(buf, n, "%s%.3f s", s, (double)ns / 1e9);
	return buf;
}

static void text_times(uint64_t a, uint64_t b, int has_time)
{
	char x[32], y[32], z[32];
	if (!has_time) {
		printf(" %11s %11s %12s", "-", "-", "-");
		return;
	}
	printf(" %11s %11s %12s", dur(a, 0, 0, x, sizeof x), dur(b, 0, 0, y, sizeof y),
	       dur(b > a ? b - a : a - b, 1, b < a, z, sizeof z));
}

/* report --by-trace: timing.h's comparison, a row per trace. */
static int by_trace_out(store *s, const char *normal, const char *faulty, int fmt, uint64_t top,
			dt_err *e)
{
	tm_find *t;
	size_t n;
	if (tm_compare(s, normal, faulty, &t, &n, e))
		return -1;
	if (n > top)
		n = (size_t)top;
	if (fmt == OUT_CSV)
		printf("trace,function,self_normal_ns,self_faulty_ns,factor,peers_factor,gained_ns,"
		       "significant\n");
	else
		printf("# %s against %s: per trace, the function of its own whose self time grew "
		       "most beyond its peers'; significant ones first\n%-9s %11s %11s %7s %7s %12s "
		       " %-4s %s\n",
		       faulty, normal, "TRACE", "N SELF", "F SELF", "FACTOR", "PEERS", "GAINED", "SIG",
		       "FUNCTION");
	for (size_t i = 0; i < n; i++) {
		const tm_find *x = &t[i];
		const char *name = x->func ? store_func_name(s, x->func) : "";
		if (fmt == OUT_CSV) {
			printf("%d.%d,", x->proc, x->thread);
			cli_csv_str(name ? name : "?");
			printf(",%llu,%llu,%.6f,%.6f,%llu,%d\n", (unsigned long long)x->self_n,
			       (unsigned long long)x->self_f, x->factor, x->peers,
			       (unsigned long long)x->gained, x->significant);
			continue;
		}
		char pt[32], a[32], b[32], g[32];
		snprintf(pt, sizeof pt, "%d.%d", x->proc, x->thread);
		if (!x->func) {
			printf("%-9s %11s %11s %7s %7s %12s  %-4s %s\n", pt, "-", "-", "-", "-", "-",
			       "no", "(no function of its own with peers)");
			continue;
		}
		printf("%-9s %11s %11s %6.1fx %6.1fx %12s  %-4s %s\n", pt,
		       dur(x->self_n, 0, 0, a, sizeof a), dur(x->self_f, 0, 0, b, sizeof b), x->factor,
		       x->peers, dur(x->gained, 1, 0, g, sizeof g), x->significant ? "yes" : "no",
		       name ? name : "?");
	}
	free(t);
	if (!n && fmt != OUT_CSV)
		printf("(no trace has timestamps in both runs)\n");
	return ferror(stdout) ? dt_errf(e, DT_EDATA, "cannot write the report: output error") : 0;
}

int cmd_report(cli *c, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "normal", required_argument, 0, 'N' }, { "faulty", required_argument, 0, 'F' },
		{ "trace", required_argument, 0, 'T' },  { "sort", required_argument, 0, 'S' },
		{ "top", required_argument, 0, 'n' },    { "format", required_argument, 0, 'f' },
		{ "by-trace", no_argument, 0, 'B' },     { "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	const char *normal = NULL, *faulty = NULL, *fmts = "text";
	int p = -1, t = -1, sort = FD_TOTAL, by_trace = 0;
	uint64_t top = UINT64_MAX;
	optind = 1;
	for (;;) {
		int o, r = cli_getopt(argc, argv, ":h", lo, &o, "report", report_help);
		if (r == CLI_HELP_DONE)
			return 0;
		if (r)
			return r;
		if (o == -1)
			break;
		switch (o) {
		case 'N':
			normal = optarg;
			break;
		case 'F':
			faulty = optarg;
			break;
		case 'T':
			if (cli_parse_pt(optarg, &p, &t))
				return cli_usage("report", "'%s' is not a trace: write P.T, e.g. 0.0",
						 optarg);
			break;
		case 'S':
			if (!strcmp(optarg, "total"))
				sort = FD_TOTAL;
			else if (!strcmp(optarg, "self"))
				sort = FD_SELF;
			else if (!strcmp(optarg, "calls"))
				sort = FD_CALLS;
			else
				return cli_usage("report", "--sort takes total, self or calls, not '%s'",
						 optarg);
			break;
		case 'n':
			if (cli_parse_u64(optarg, &top))
				return cli_usage("report", "--top needs a number, not '%s'", optarg);
			break;
		case 'f':
			fmts = optarg;
			break;
		case 'B':
			by_trace = 1;
			break;
		}
	}
	int fmt = cli_out_format(fmts);
	if (fmt != OUT_TEXT && fmt != OUT_CSV)
		return cli_usage("report", "unknown format '%s' (text, csv)", fmts);
	if (!normal || !faulty)
		return cli_usage("report", "needs --normal RUN and --faulty RUN");
	if (optind != argc)
		return cli_usage("report", "unexpected argument '%s'", argv[optind]);
	if (by_trace && p >= 0)
		return cli_usage("report", "--by-trace takes every trace; --trace takes one");
	dt_err e;
	dt_err_clear(&e);
	store *s = NULL;
	if (by_trace) {
		int r = cli_open_store(c, STORE_OPEN_EXISTING, &s, &e) ||
			by_trace_out(s, normal, faulty, fmt, top, &e);
		store_close(s);
		return r ? cli_fail(&e) : 0;
	}
	fstats a, b;
	fstats_init(&a);
	fstats_init(&b);
	fdelta *d = NULL;
	size_t n = 0;
	int rc = 1;
	if (cli_open_store(c, STORE_OPEN_EXISTING, &s, &e) || fstats_load(s, normal, p, t, &a, &e) ||
	    fstats_load(s, faulty, p, t, &b, &e))
		goto out;
	int has_time = a.has_time && b.has_time;
	fstats_delta(&a, &b, has_time ? sort : FD_CALLS, &d, &n);
	if (n > top)
		n = (size_t)top;
	if (fmt == OUT_CSV) {
		printf("function,calls_normal,calls_faulty,total_normal_ns,total_faulty_ns,"
		       "self_normal_ns,self_faulty_ns\n");
		for (size_t i = 0; i < n; i++) {
			const char *name = store_func_name(s, d[i].fid);
			cli_csv_str(name ? name : "?");
			if (has_time)
				printf(",%llu,%llu,%llu,%llu,%llu,%llu\n",
				       (unsigned long long)d[i].a.calls, (unsigned long long)d[i].b.calls,
				       (unsigned long long)d[i].a.total, (unsigned long long)d[i].b.total,
				       (unsigned long long)d[i].a.self, (unsigned long long)d[i].b.self);
			else
				printf(",%llu,%llu,,,,\n", (unsigned long long)d[i].a.calls,
				       (unsigned long long)d[i].b.calls);
		}
	} else {
		char tr[48] = "all traces";
		if (p >= 0)
			snprintf(tr, sizeof tr, "trace %d.%d", p, t);
		printf("# %s against %s (%s): per function, N normal, F faulty, DIFF F - N; "
		       "largest change of %s first%s\n",
		       faulty, normal, tr,
		       !has_time ? "calls" : sort == FD_SELF ? "self time" : sort == FD_CALLS ? "calls"
											    : "total time",
		       has_time ? "" : " (no timestamps in the recording)");
		printf("%9s %9s %9s %11s %11s %12s %11s %11s %12s  %s\n", "N CALLS", "F CALLS",
		       "DIFF", "N TOTAL", "F TOTAL", "DIFF", "N SELF", "F SELF", "DIFF", "FUNCTION");
		for (size_t i = 0; i < n; i++) {
			const fdelta *x = &d[i];
			long long dc = (long long)x->b.calls - (long long)x->a.calls;
			printf("%9llu %9llu %+9lld", (unsigned long long)x->a.calls,
			       (unsigned long long)x->b.calls, dc);
			text_times(x->a.total, x->b.total, has_time);
			text_times(x->a.self, x->b.self, has_time);
			const char *name = store_func_name(s, x->fid);
			printf("  %s\n", name ? name : "?");
		}
	}
	rc = ferror(stdout) ? dt_errf(&e, DT_EDATA, "cannot write the report: output error") : 0;
out:
	free(d);
	fstats_free(&a);
	fstats_free(&b);
	store_close(s);
	return rc ? cli_fail(&e) : 0;
}
