/* cli_show.c: `difftrace show`, one trace's events as a call tree or as texTrace text. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "import/sink.h"
#include "util/esc.h"
#include "util/util.h"
#include <unistd.h>

static const char help[] =
	"usage: difftrace show [--from N] [--count M] [--format tree|text] RUN P.T\n"
	"\n"
	"Print the events of trace P.T (process P, thread T) of RUN.\n"
	"\n"
	"  --from N       start at event N (0-based; default 0)\n"
	"  --count M      print at most M events (default: all)\n"
	"  --format FMT   tree (default): calls indented by depth, a call that returns at once\n"
	"                 folded to 'f();', timestamps (seconds from the trace's first event)\n"
	"                 and recorded arguments when the trace has them;\n"
	"                 text: one function name per line and [ret] for a return, the texTrace\n"
	"                 format that 'difftrace import --format text' reads back (names\n"
	"                 byte for byte to a file or a pipe; everywhere else control\n"
	"                 characters are escaped, e.g. \\e for ESC)\n"
	"  -h, --help     this help\n";

#define SHOW_BLOCK 4096
#define MAX_INDENT 64

struct tree {
	store *s;
	const store_trace *t;
	uint32_t *stack; /* ids of the open calls we saw, so returns can name their function */
	size_t nstack, capstack;
	int base_depth;  /* depth before the first event shown: those frames have no name here */
	/* a call not printed yet, because a return right after it folds it into one line */
	int pending;
	uint64_t p_idx, p_ts;
	uint32_t p_id;
	int p_depth;
	char *p_args;
};

static void print_prefix(const struct tree *tr, uint64_t idx, uint64_t ts, int depth)
{
	printf("%10llu  ", (unsigned long long)idx);
	if (tr->t->has_time) {
		/* an event before the first one is a clock that went back (time-regressed):
		 * shown as a negative offset, never as an unsigned wrap */
		int neg = ts < tr->t->first_ts;
		uint64_t rel = neg ? tr->t->first_ts - ts : ts - tr->t->first_ts;
		char num[48];
		snprintf(num, sizeof num, "%s%llu.%09llu", neg ? "-" : "",
			 (unsigned long long)(rel / 1000000000u),
			 (unsigned long long)(rel % 1000000000u));
		printf("%14s  ", num);
	}
	int ind = depth < MAX_INDENT ? depth : MAX_INDENT;
	printf("%*s", ind * 2, "");
}

/* "name(args)", escaped: both come from the recording */
static void put_call(const struct tree *tr)
{
	esc_fputs(store_func_name(tr->s, tr->p_id), stdout);
	putchar('(');
	if (tr->p_args)
		esc_fputs(tr->p_args, stdout);
	putchar(')');
}

static void flush_pending(struct tree *tr)
{
	if (!tr->pending)
		return;
	print_prefix(tr, tr->p_idx, tr->p_ts, tr->p_depth);
	put_call(tr);
	fputs(" {\n", stdout);
	GROW(tr->stack, tr->capstack, tr->nstack + 1);
	tr->stack[tr->nstack++] = tr->p_id;
	tr->pending = 0;
	free(tr->p_args);
	tr->p_args = NULL;
}

static void tree_event(struct tree *tr, store_cursor *c, uint64_t idx, uint32_t v, uint64_t ts,
		       int depth_before)
{
	const char *a;
	if (v != DT_RET) {
		flush_pending(tr);
		tr->pending = 1;
		tr->p_idx = idx;
		tr->p_ts = ts;
		tr->p_id = v;
		tr->p_depth = depth_before;
		a = store_cursor_arg(c, idx, DT_ARG);
		tr->p_args = a ? xstrdup(a) : NULL;
		return;
	}
	const char *ret = store_cursor_arg(c, idx, DT_RETVAL);
	if (tr->pending) {
		print_prefix(tr, tr->p_idx, tr->p_ts, tr->p_depth);
		put_call(tr);
		putchar(';');
		if (ret) {
			fputs(" = ", stdout);
			esc_fputs(ret, stdout);
			putchar(';');
		}
		putchar('\n');
		tr->pending = 0;
		free(tr->p_args);
		tr->p_args = NULL;
		return;
	}
	int d = depth_before > 0 ? depth_before - 1 : 0;
	print_prefix(tr, idx, ts, d);
	putchar('}');
	if (ret) {
		fputs(" = ", stdout);
		esc_fputs(ret, stdout);
	}
	if (tr->nstack) {
		fputs(" /* ", stdout);
		esc_fputs(store_func_name(tr->s, tr->stack[--tr->nstack]), stdout);
		fputs(" */", stdout);
	}
	putchar('\n');
}

int cmd_show(cli *c, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "from", required_argument, 0, 'F' }, { "count", required_argument, 0, 'C' },
		{ "format", required_argument, 0, 'f' }, { "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	uint64_t from = 0, count = UINT64_MAX;
	int text = 0, o, r;
	while ((r = cli_getopt(argc, argv, ":h", lo, &o, "show", help)) == 0 && o != -1) {
		switch (o) {
		case 'F':
			if (cli_parse_u64(optarg, &from))
				return cli_usage("show", "--from needs an event number, not '%s'", optarg);
			break;
		case 'C':
			if (cli_parse_u64(optarg, &count))
				return cli_usage("show", "--count needs a number, not '%s'", optarg);
			break;
		case 'f':
			if (!strcmp(optarg, "text"))
				text = 1;
			else if (!strcmp(optarg, "tree"))
				text = 0;
			else
				return cli_usage("show", "unknown format '%s' (tree, text)", optarg);
			break;
		}
	}
	if (r == CLI_HELP_DONE)
		return 0;
	if (r)
		return r;
	if (argc - optind != 2)
		return cli_usage("show", "needs RUN and P.T");
	int p, t;
	if (cli_parse_pt(argv[optind + 1], &p, &t))
		return cli_usage("show", "'%s' is not a trace: write P.T, e.g. 0.0 or 3.1",
				 argv[optind + 1]);
	dt_err e;
	dt_err_clear(&e);
	store *s;
	store_run run = { 0 };
	store_trace tr = { 0 };
	store_cursor *cur = NULL;
	if (cli_open_store(c, STORE_OPEN_EXISTING, &s, &e))
		return cli_fail(&e);
	int rc = 1;
	if (store_run_get(s, argv[optind], &run, &e) || store_trace_get(s, run.id, p, t, &tr, &e))
		goto out;
	if (from > tr.nevents) {
		dt_errf(&e, DT_EUSAGE, "--from %llu is past the end of trace %d.%d (%llu events)",
			(unsigned long long)from, p, t, (unsigned long long)tr.nevents);
		goto out;
	}
	if (store_cursor_open(s, &tr, from, &cur, &e))
		goto out;
	if (text && !isatty(1))
		cli_raw_stdout(c); /* the round trip to import --format text: the names as they are */
	uint32_t *ev = xmalloc(SHOW_BLOCK * sizeof *ev);
	uint64_t *ts = xmalloc(SHOW_BLOCK * sizeof *ts);
	struct tree tt = { .s = s, .t = &tr };
	if (!text) {
		char fl[200];
		dt_flags_str(tr.flags, fl, sizeof fl);
		char nm[300];
		printf("# run %s, trace %d.%d (pid %lld, tid %lld), %llu events, flags %s\n",
		       esc_str(run.name, nm, sizeof nm), p, t, (long long)tr.pid, (long long)tr.tid,
		       (unsigned long long)tr.nevents, fl);
		printf("# %8s  %s%s\n", "EVENT", tr.has_time ? "    TIME(s)    " : "", "FUNCTION");
	}
	uint64_t idx = from, left = count;
	int64_t k = 0;
	while (left && (k = store_cursor_next(cur, ev, ts, SHOW_BLOCK, &e)) > 0) {
		int depth = store_cursor_depth(cur);
		for (int64_t i = 0; i < k && left; i++, idx++, left--) {
			if (text) {
				puts(ev[i] == DT_RET ? "[ret]" : store_func_name(s, ev[i]));
				continue;
			}
			tree_event(&tt, cur, idx, ev[i], ts[i], depth);
			if (ev[i] != DT_RET)
				depth++;
			else if (depth > 0)
				depth--;
		}
	}
	if (!text)
		flush_pending(&tt);
	free(tt.stack);
	free(ev);
	free(ts);
	if (k < 0)
		goto out;
	if (fflush(stdout) != 0) {
		dt_errf(&e, DT_EDATA, "cannot write output");
		goto out;
	}
	rc = 0;
out:
	store_cursor_close(cur);
	store_trace_free(&tr);
	store_run_free(&run);
	store_close(s);
	return rc ? cli_fail(&e) : 0;
}
