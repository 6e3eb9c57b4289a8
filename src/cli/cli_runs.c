/* cli_runs.c: `difftrace runs`, `traces` and `rm`: listing and removing what the store holds. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "import/sink.h"
#include "util/esc.h"
#include "util/util.h"

static const char runs_help[] =
	"usage: difftrace runs [--format text|csv|json]\n"
	"\n"
	"List the runs in the store: traces, events, stored size, format, flags, label.\n"
	"\n"
	"  --format FMT  text (default), csv or json\n"
	"  -h, --help    this help\n";

static const char traces_help[] =
	"usage: difftrace traces [--format text|csv|json] RUN\n"
	"\n"
	"List the traces of RUN by process and thread (P.T), with pid, tid, MPI rank, events,\n"
	"calls, maximum depth, stored size, flags and where each came from.\n"
	"\n"
	"  --format FMT  text (default), csv or json\n"
	"  -h, --help    this help\n";

static const char rm_help[] =
	"usage: difftrace rm RUN...\n"
	"\n"
	"Remove runs and everything computed from them from the store (one transaction).\n"
	"\n"
	"  -h, --help    this help\n";

static int parse_format_only(int argc, char **argv, const char *cmd, const char *help, int *fmt)
{
	static const struct option lo[] = {
		{ "format", required_argument, 0, 'F' },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	int o, r;
	*fmt = OUT_TEXT;
	while ((r = cli_getopt(argc, argv, ":h", lo, &o, cmd, help)) == 0 && o != -1) {
		if (o == 'F' && (*fmt = cli_out_format(optarg)) < 0)
			return cli_usage(cmd, "unknown format '%s' (text, csv, json)", optarg);
	}
	return r;
}

/* The columns s takes once escaped, as cli_pad prints it. */
static int shown_width(const char *s)
{
	dt_buf b = { 0 };
	esc_append(&b, s, strlen(s), 0);
	buf_byte(&b, 0);
	int w = (int)esc_width((const char *)b.p);
	buf_free(&b);
	return w;
}

int cmd_runs(cli *c, int argc, char **argv)
{
	int fmt, r = parse_format_only(argc, argv, "runs", runs_help, &fmt);
	if (r == CLI_HELP_DONE)
		return 0;
	if (r)
		return r;
	if (optind < argc)
		return cli_usage("runs", "unexpected argument '%s'", argv[optind]);
	dt_err e;
	dt_err_clear(&e);
	store *s;
	store_run *runs;
	size_t n;
	if (cli_open_store(c, STORE_OPEN_EXISTING, &s, &e))
		return cli_fail(&e);
	if (store_run_list(s, &runs, &n, &e)) {
		store_close(s);
		return cli_fail(&e);
	}
	/* the run and flags columns as wide as their widest entry: a run name has up to 64
	 * characters (an escaped one more columns), and a longer one pushed its row's columns
	 * out of line */
	int wname = 16, wflags = 20;
	for (size_t i = 0; fmt == OUT_TEXT && i < n; i++) {
		char f[200];
		dt_flags_str(runs[i].flags, f, sizeof f);
		int w = shown_width(runs[i].name);
		wname = w > wname ? w : wname;
		wflags = (int)strlen(f) > wflags ? (int)strlen(f) : wflags;
	}
	if (fmt == OUT_TEXT && !n)
		printf("no runs in %s (import some with 'difftrace import')\n", store_path(s));
	else if (fmt == OUT_TEXT)
		printf("%-*s %7s %14s %10s  %-10s %-*s %-19s %s\n", wname, "RUN", "TRACES", "EVENTS",
		       "STORED", "FORMAT", wflags, "FLAGS", "CREATED", "LABEL");
	else if (fmt == OUT_CSV)
		printf("run,traces,events,stored_bytes,format,flags,created,label\n");
	else
		printf("[");
	for (size_t i = 0; i < n; i++) {
		store_run *x = &runs[i];
		char a[32], b[32], f[200];
		dt_flags_str(x->flags, f, sizeof f);
		if (fmt == OUT_TEXT) {
			cli_pad(x->name, wname);
			printf(" %7lld %14s %10s  %-10s %-*s %-19s ", (long long)x->ntraces,
			       cli_count((uint64_t)x->nevents, a, sizeof a),
			       cli_bytes(x->bytes, b, sizeof b), x->format, wflags, f, x->created);
			cli_pad(x->label, 0);
			putchar('\n');
		} else if (fmt == OUT_CSV) {
			cli_csv_str(x->name);
			printf(",%lld,%lld,%lld,%s,", (long long)x->ntraces, (long long)x->nevents,
			       (long long)x->bytes, x->format);
			cli_csv_str(f);
			printf(",%s,", x->created);
			cli_csv_str(x->label);
			putchar('\n');
		} else {
			printf("%s\n  {\"run\": ", i ? "," : "");
			cli_json_str(x->name);
			printf(", \"traces\": %lld, \"events\": %lld, \"stored_bytes\": %lld, "
			       "\"format\": \"%s\", \"flags\": ",
			       (long long)x->ntraces, (long long)x->nevents, (long long)x->bytes,
			       x->format);
			cli_json_str(f);
			printf(", \"created\": \"%s\", \"label\": ", x->created);
			cli_json_str(x->label);
			printf("}");
		}
	}
	if (fmt == OUT_JSON)
		printf("%s]\n", n ? "\n" : "");
	store_runs_free(runs, n);
	store_close(s);
	return 0;
}

int cmd_traces(cli *c, int argc, char **argv)
{
	int fmt, r = parse_format_only(argc, argv, "traces", traces_help, &fmt);
	if (r == CLI_HELP_DONE)
		return 0;
	if (r)
		return r;
	if (optind != argc - 1)
		return cli_usage("traces", optind >= argc ? "which RUN?" : "one RUN at a time");
	dt_err e;
	dt_err_clear(&e);
	store *s;
	store_run run;
	store_trace *t;
	size_t n;
	if (cli_open_store(c, STORE_OPEN_EXISTING, &s, &e))
		return cli_fail(&e);
	if (store_run_get(s, argv[optind], &run, &e) || store_trace_list(s, run.id, &t, &n, &e)) {
		store_close(s);
		return cli_fail(&e);
	}
	if (fmt == OUT_TEXT)
		printf("%-7s %8s %8s %5s %12s %11s %5s %10s  %-24s %s\n", "P.T", "PID", "TID", "RANK",
		       "EVENTS", "CALLS", "DEPTH", "STORED", "FLAGS", "SOURCE");
	else if (fmt == OUT_CSV)
		printf("pt,proc,thread,pid,tid,rank,events,calls,maxdepth,stored_bytes,flags,"
		       "has_time,args,gaps,host,source,note\n");
	else
		printf("[");
	for (size_t i = 0; i < n; i++) {
		store_trace *x = &t[i];
		char pt[32], a[32], b[32], d[32], f[200], rk[24];
		snprintf(pt, sizeof pt, "%d.%d", x->proc, x->thread);
		dt_flags_str(x->flags, f, sizeof f);
		if (fmt == OUT_TEXT) {
			if (x->rank >= 0)
				snprintf(rk, sizeof rk, "%lld", (long long)x->rank);
			else
				snprintf(rk, sizeof rk, "-");
			printf("%-7s %8lld %8lld %5s %12s %11s %5d %10s  %-24s ", pt,
			       (long long)x->pid, (long long)x->tid, rk,
			       cli_count(x->nevents, a, sizeof a), cli_count(x->ncalls, d, sizeof d),
			       x->maxdepth, cli_bytes(x->bytes, b, sizeof b), f);
			cli_pad(x->source, 0);
			putchar('\n');
			if (x->note[0]) {
				fputs("        note: ", stdout);
				cli_pad(x->note, 0);
				putchar('\n');
			}
		} else if (fmt == OUT_CSV) {
			printf("%s,%d,%d,%lld,%lld,%lld,%llu,%llu,%d,%lld,", pt, x->proc, x->thread,
			       (long long)x->pid, (long long)x->tid, (long long)x->rank,
			       (unsigned long long)x->nevents, (unsigned long long)x->ncalls,
			       x->maxdepth, (long long)x->bytes);
			cli_csv_str(f);
			printf(",%d,%lld,%lld,", x->has_time, (long long)x->nargs,
			       (long long)x->ngaps);
			cli_csv_str(x->host);
			putchar(',');
			cli_csv_str(x->source);
			putchar(',');
			cli_csv_str(x->note);
			putchar('\n');
		} else {
			printf("%s\n  {\"pt\": \"%s\", \"proc\": %d, \"thread\": %d, \"pid\": %lld, "
			       "\"tid\": %lld, \"rank\": %lld, \"events\": %llu, \"calls\": %llu, "
			       "\"maxdepth\": %d, \"stored_bytes\": %lld, \"flags\": ",
			       i ? "," : "", pt, x->proc, x->thread, (long long)x->pid,
			       (long long)x->tid, (long long)x->rank, (unsigned long long)x->nevents,
			       (unsigned long long)x->ncalls, x->maxdepth, (long long)x->bytes);
			cli_json_str(f);
			printf(", \"has_time\": %s, \"args\": %lld, \"gaps\": %lld, \"host\": ",
			       x->has_time ? "true" : "false", (long long)x->nargs,
			       (long long)x->ngaps);
			cli_json_str(x->host);
			printf(", \"source\": ");
			cli_json_str(x->source);
			printf(", \"note\": ");
			cli_json_str(x->note);
			printf("}");
		}
	}
	if (fmt == OUT_JSON)
		printf("%s]\n", n ? "\n" : "");
	store_traces_free(t, n);
	store_run_free(&run);
	store_close(s);
	return 0;
}

int cmd_rm(cli *c, int argc, char **argv)
{
	static const struct option lo[] = { { "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 } };
	int o, r;
	while ((r = cli_getopt(argc, argv, ":h", lo, &o, "rm", rm_help)) == 0 && o != -1)
		;
	if (r == CLI_HELP_DONE)
		return 0;
	if (r)
		return r;
	if (optind >= argc)
		return cli_usage("rm", "which RUN?");
	dt_err e;
	dt_err_clear(&e);
	store *s;
	if (cli_open_store(c, STORE_OPEN_EXISTING, &s, &e))
		return cli_fail(&e);
	if (store_readonly(s)) {
		dt_err_at(&e, store_path(s), -1, "the store is read-only: cannot remove runs");
		goto fail;
	}
	if (store_begin(s, &e))
		goto fail;
	for (int i = optind; i < argc; i++)
		if (store_run_delete(s, argv[i], &e))
			goto fail;
	if (store_commit(s, &e))
		goto fail;
	for (int i = optind; i < argc; i++)
		printf("removed run '%s'\n", argv[i]);
	store_close(s);
	return 0;
fail:
	store_rollback(s);
	store_close(s);
	return cli_fail(&e);
}
