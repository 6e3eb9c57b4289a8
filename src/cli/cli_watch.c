/* cli_watch.c: `difftrace watch DIR`, where each rank and thread of a running program is, from
 * its sync record as it is being written (src/order/live.c); a screen at a terminal
 * (tui/watch_screen.c), snapshots in text or json otherwise. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_syncrun.h"
#include "util/esc.h"
#include "order/hang.h"
#include "order/live.h"
#include "record/syncfmt.h"
#include "util/ptrange.h"
#include "util/util.h"
#include "order/live_text.h"
#include "watch_screen.h"

static const char watch_help[] =
	"usage: difftrace watch [--once] [--interval S] [--count N] [--format text|json]\n"
	"                       [--group | --threads] DIR\n"
	"\n"
	"Watch a recording in progress: DIR is the output directory of difftrace-record (or\n"
	"one rank's directory, or a sync directory) while the program runs. The per-thread\n"
	"files libdifftrace-sync.so writes are read incrementally, and for every rank and\n"
	"thread it shows the call it is in (with its key arguments), which occurrence of that\n"
	"call it is, and how long it has been in it; or the call it last returned from and,\n"
	"for a process of this host, what it does since (from /proc: computing on a CPU,\n"
	"sleeping, or waiting outside the recorded calls). A process that ended is marked\n"
	"[process gone] and its clock stops. Many threads are grouped STAT-like: the threads\n"
	"in the same call on one line, with their P.T ranges. The events also go through the\n"
	"causality filter (the shipped ordering rules) as they arrive; the header says how\n"
	"many are in a causal order and how many wait for events not recorded yet. A cycle\n"
	"among the calls the threads are in (receives, sends, collectives: a deadlock) is\n"
	"named under them, 'deadlock: 0.0 -> 1.0 -> 0.0'; the whole wait-for graph of the\n"
	"same recording, as far as it is written: difftrace hang DIR.\n"
	"\n"
	"At a terminal it is a screen refreshed every interval (q quits, g toggles grouping,\n"
	"j/k and the arrows scroll, ^L redraws); otherwise, or with --once or --format json,\n"
	"it prints snapshots.\n"
	"\n"
	"  --once         print one snapshot and exit\n"
	"  --interval S   seconds between refreshes (default 1; fractions allowed)\n"
	"  --count N      print N snapshots and exit (not at the screen)\n"
	"  --format FMT   text (default) or json, one object per snapshot and line\n"
	"  --group        always group the threads by call\n"
	"  --threads      one line per thread, however many (default: grouped above 24)\n"
	"  -h, --help     this help\n";

static volatile sig_atomic_t g_stop;

static void on_signal(int sig)
{
	(void)sig;
	g_stop = 1;
}

static void watch_json(const live *l, const char *dir)
{
	size_t n, ng;
	const live_thread *th = live_threads(l, &n);
	const live_group *gr = live_groups(l, &ng);
	uint64_t rec, del, held;
	const char *stopped;
	live_counts(l, &rec, &del, &held, &stopped);
	static const char *const st[] = { "in-call", "outside", "finished", "starting" };
	static const char *const act[] = { "unknown", "computing", "sleeping", "waiting" };
	printf("{\"dir\": ");
	cli_json_str(dir);
	printf(", \"time\": %" PRId64 ", \"events\": %" PRIu64 ", \"in_order\": %" PRIu64
	       ", \"held\": %" PRIu64 ", \"filter_stopped\": ",
	       (int64_t)time(NULL), rec, del, held);
	if (stopped)
		cli_json_str(stopped);
	else
		printf("null");
	printf(", \"threads\": [");
	for (size_t i = 0; i < n; i++) {
		const live_thread *t = &th[i];
		char a[256];
		live_args(&t->cur, a, sizeof a);
		char pt[48];
		printf("%s{\"pt\": \"%s\", \"rank\": %d, \"thread\": %d, \"pid\": %" PRId64
		       ", \"tid\": %" PRId64 ", \"host\": ",
		       i ? ", " : "", live_pt_str(t, pt, sizeof pt), t->proc, t->thread, t->pid, t->tid);
		cli_json_str(t->host);
		printf(", \"state\": \"%s\", \"call\": ", st[t->state]);
		cli_json_str(t->cur.func ? live_call_name(t->cur.func) : "");
		printf(", \"occurrence\": %" PRIu64 ", \"args\": ", t->occurrence);
		cli_json_str(t->state == LIVE_IN_CALL ? a : "");
		printf(", \"depth\": %" PRIu32 ", \"elapsed_ns\": %" PRId64 ", \"events\": %" PRIu64
		       ", \"holds\": %" PRIu32 ", \"gone\": %s, \"activity\": \"%s\", \"cpu_pct\": %d}",
		       t->depth, t->elapsed_ns, t->nrec, t->nholds, t->gone ? "true" : "false",
		       act[t->activity], t->cpu_pct);
	}
	printf("], \"groups\": [");
	for (size_t i = 0; i < ng; i++) {
		char *pts = live_group_pts(th, &gr[i]);
		printf("%s{\"pts\": ", i ? ", " : "");
		cli_json_str(pts);
		free(pts);
		printf(", \"state\": \"%s\", \"call\": ", st[gr[i].state]);
		cli_json_str(gr[i].func ? live_call_name(gr[i].func) : "");
		printf(", \"threads\": %zu, \"longest_ns\": %" PRId64 "}", gr[i].n, gr[i].max_ns);
	}
	printf("], \"cycles\": [");
	size_t nc;
	size_t **c = live_cycles_of(th, n, &nc);
	for (size_t i = 0; i < nc; i++) {
		printf("%s[", i ? ", " : "");
		for (size_t k = 0; c[i][k] != SIZE_MAX; k++) {
			char pt[48];
			printf("%s\"%s\"", k ? ", " : "", live_pt_str(&th[c[i][k]], pt, sizeof pt));
		}
		printf("]");
	}
	live_cycles_free(c, nc);
	printf("]}\n");
}

int cmd_watch(cli *c, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "once", no_argument, 0, '1' },	 { "interval", required_argument, 0, 'i' },
		{ "count", required_argument, 0, 'n' },	 { "format", required_argument, 0, 'f' },
		{ "group", no_argument, 0, 'g' },	 { "threads", no_argument, 0, 't' },
		{ "help", no_argument, 0, 'h' },	 { 0, 0, 0, 0 },
	};
	int fmt = OUT_TEXT, o, r, group = GROUP_AUTO;
	double interval = 1;
	long count = -1;
	while ((r = cli_getopt(argc, argv, ":h", lo, &o, "watch", watch_help)) == 0 && o != -1) {
		char *end;
		switch (o) {
		case '1':
			count = 1;
			break;
		case 'i':
			interval = strtod(optarg, &end);
			if (*end || !(interval >= 0.01 && interval <= 3600))
				return cli_usage("watch", "--interval needs seconds from 0.01 to 3600, "
							  "not '%s'", optarg);
			break;
		case 'n':
			count = strtol(optarg, &end, 10);
			if (*end || count < 1)
				return cli_usage("watch", "--count needs a positive number, not '%s'",
						 optarg);
			break;
		case 'f':
			fmt = cli_out_format(optarg);
			if (fmt != OUT_TEXT && fmt != OUT_JSON)
				return cli_usage("watch", "unknown format '%s' (text, json)", optarg);
			break;
		case 'g':
			group = GROUP_ALWAYS;
			break;
		case 't':
			group = GROUP_NEVER;
			break;
		}
	}
	if (r == CLI_HELP_DONE)
		return 0;
	if (r)
		return r;
	if (argc - optind != 1)
		return cli_usage("watch", "needs one DIR (the output directory of difftrace-record)");
	const char *dir = argv[optind];
	struct stat st;
	dt_err e;
	dt_err_clear(&e);
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		dt_err_at(&e, dir, -1, "%s", stat(dir, &st) != 0 ? strerror(errno) : "not a directory");
		return cli_fail(&e);
	}
	live *l = live_open(dir);
	int rc = 0;
	if (count < 0 && fmt == OUT_TEXT && isatty(STDOUT_FILENO) && isatty(STDIN_FILENO)) {
		/* the screen writes to the terminal itself, not through the escaping stream */
		rc = watch_screen(l, dir, interval, group, c->raw_out ? c->raw_out : stdout, &e);
		live_free(l);
		return rc ? cli_fail(&e) : 0;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	for (long k = 0; !g_stop && (count < 0 || k < count); k++) {
		if (k) {
			struct timespec ts = { (time_t)interval,
					       (long)((interval - (double)(time_t)interval) * 1e9) };
			while (nanosleep(&ts, &ts) != 0 && errno == EINTR && !g_stop)
				;
			if (g_stop)
				break;
		}
		if (live_poll_now(l, &e)) {
			rc = 1;
			break;
		}
		if (fmt == OUT_JSON) {
			watch_json(l, dir);
		} else {
			if (k)
				putchar('\n');
			live_text(stdout, l, dir, group, 24);
		}
		if (fflush(stdout) != 0) {
			dt_errf(&e, DT_EDATA, "cannot write output");
			rc = 1;
			break;
		}
	}
	live_free(l);
	return rc ? cli_fail(&e) : 0;
}
