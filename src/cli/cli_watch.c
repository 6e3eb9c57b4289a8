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

static int64_t clock_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* "12.3s", "4m05s", "2h03m" */
static const char *dur(int64_t ns, char *b, size_t n)
{
	int64_t ds = ns / 100000000; /* tenths */
	if (ds < 600)
		snprintf(b, n, "%" PRId64 ".%" PRId64 "s", ds / 10, ds % 10);
	else if (ds < 36000)
		snprintf(b, n, "%" PRId64 "m%02" PRId64 "s", ds / 600, ds / 10 % 60);
	else
		snprintf(b, n, "%" PRId64 "h%02" PRId64 "m", ds / 36000, ds / 600 % 60);
	return b;
}

static const char *pt_str(const live_thread *t, char *b, size_t n)
{
	if (t->proc >= 0)
		snprintf(b, n, "%d.%d", t->proc, t->thread);
	else
		snprintf(b, n, "pid%" PRId64 ".%d", t->pid, t->thread);
	return b;
}

/* What a thread is doing, in words: "in MPI_Recv (1st) src=1 tag=0". */
static void what(FILE *f, const live_thread *t)
{
	char b[32], a[256];
	switch (t->state) {
	case LIVE_STARTING:
		fprintf(f, "starting (no call recorded yet)");
		return;
	case LIVE_FINISHED:
		fprintf(f, "finished (returned from MPI_Finalize)");
		return;
	case LIVE_OUTSIDE:
		fprintf(f, "%s", live_activity_name(t->activity));
		if (t->cur.func)
			fprintf(f, " (after %s, %s)", live_call_name(t->cur.func),
				live_nth(t->occurrence, b, sizeof b));
		return;
	default:
		live_args(&t->cur, a, sizeof a);
		fprintf(f, "in %s (%s)%s%s", live_call_name(t->cur.func),
			live_nth(t->occurrence, b, sizeof b), a[0] ? " " : "", a);
	}
}

/* What follows it: the locks held, a process that ended. */
static void notes(FILE *f, const live_thread *t)
{
	if (t->nholds)
		fprintf(f, ", holding obj=%#" PRIx64 "%s", t->holds, t->nholds > 1 ? " and more" : "");
	if (t->gone)
		fprintf(f, " [process gone]");
}

/* The P.T set of a group: the ranked threads in ptrange form, then the others by pid. */
static char *group_pts(const live_thread *th, const live_group *g)
{
	ptr_pt *v = xmalloc((g->n ? g->n : 1) * sizeof *v);
	size_t k = 0;
	for (size_t i = 0; i < g->n; i++) {
		const live_thread *t = &th[g->threads[i]];
		if (t->proc >= 0)
			v[k++] = (ptr_pt){ (uint32_t)t->proc, (uint32_t)t->thread };
	}
	char *s = k == 1 ? NULL : ptr_format(v, k);
	if (k == 1) {
		char b[48];
		s = xstrdup(pt_str(&th[g->threads[0]], b, sizeof b));
	}
	free(v);
	for (size_t i = 0; i < g->n; i++) {
		const live_thread *t = &th[g->threads[i]];
		if (t->proc >= 0)
			continue;
		char b[48], *x;
		if (asprintf(&x, "%s%s%s", s, s[0] ? ", " : "", pt_str(t, b, sizeof b)) < 0)
			abort();
		free(s);
		s = x;
	}
	return s;
}

/* The wait-for cycles among the calls the threads are in now (hang.h on one entry per thread:
 * the open call, or the last call's entry and exit): a deadlock of receives, sends,
 * collectives or MPI_Finalize shows while it happens. Locks, barriers and requests need the
 * events before (difftrace hang DIR). *nc the cycles, each a -1-ended list of thread indices
 * into th, malloc'ed. */
static size_t **live_cycles(const live_thread *th, size_t n, size_t *nc)
{
	*nc = 0;
	dt_sync_event *ev = xmalloc((2 * n + 1) * sizeof *ev);
	size_t *of = xmalloc((2 * n + 1) * sizeof *of), m = 0;
	for (size_t i = 0; i < n; i++) {
		const live_thread *t = &th[i];
		if (t->proc < 0 || t->state == LIVE_STARTING || !t->cur.func ||
		    (m && ev[m - 1].proc == t->proc && ev[m - 1].thread == t->thread))
			continue;
		dt_sync_event e = t->cur;
		e.proc = t->proc;
		e.thread = t->thread;
		e.seq = 1;
		e.phase = DT_SYNC_ENTER;
		of[m] = i;
		ev[m++] = e;
		if (t->state != LIVE_IN_CALL) { /* returned from it */
			e.seq = 2;
			e.phase = DT_SYNC_EXIT;
			of[m] = i;
			ev[m++] = e;
		}
	}
	const char *names[DTS_NCALLS];
	for (unsigned c = 0; c < DTS_NCALLS; c++)
		names[c] = c ? live_call_name(c) : NULL;
	hang_report r;
	dt_err e;
	dt_err_clear(&e);
	size_t **out = NULL;
	if (m && hang_analyze(ev, m, names, DTS_NCALLS, &r, &e) == 0) {
		out = xmalloc((r.ncycles ? r.ncycles : 1) * sizeof *out);
		for (size_t c = 0; c < r.ncycles; c++) {
			out[c] = xmalloc((r.cycles[c].n + 1) * sizeof **out);
			for (size_t k = 0; k < r.cycles[c].n; k++)
				out[c][k] = of[r.threads[r.cycles[c].threads[k]].entry];
			out[c][r.cycles[c].n] = SIZE_MAX;
		}
		*nc = r.ncycles;
		hang_report_free(&r);
	}
	free(ev);
	free(of);
	return out;
}

static void cycles_free(size_t **c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(c[i]);
	free(c);
}

/* One line per cycle: "deadlock: 0.0 -> 1.0 -> 0.0". */
static void cycles_text(FILE *f, const live_thread *th, size_t n)
{
	size_t nc;
	size_t **c = live_cycles(th, n, &nc);
	char b[48];
	for (size_t i = 0; i < nc; i++) {
		fprintf(f, "%sdeadlock: ", i ? "" : "\n");
		for (size_t k = 0; c[i][k] != SIZE_MAX; k++)
			fprintf(f, "%s -> ", pt_str(&th[c[i][k]], b, sizeof b));
		fprintf(f, "%s\n", pt_str(&th[c[i][0]], b, sizeof b));
	}
	if (nc)
		fprintf(f, "(from the calls they are in; the whole graph: difftrace hang DIR)\n");
	cycles_free(c, nc);
}

/* One snapshot in text: a header, then a line per thread or per group, then the cycles. */
void watch_text(FILE *f, const live *l, const char *dir, int group, size_t rows)
{
	size_t n, ng;
	const live_thread *th = live_threads(l, &n);
	const live_group *gr = live_groups(l, &ng);
	uint64_t rec, del, held;
	const char *stopped;
	live_counts(l, &rec, &del, &held, &stopped);
	size_t procs = 0;
	for (size_t i = 0; i < n; i++)
		procs += !i || th[i].proc != th[i - 1].proc || th[i].pid != th[i - 1].pid;
	time_t now = time(NULL);
	struct tm tm;
	char clock[16] = "";
	if (localtime_r(&now, &tm))
		strftime(clock, sizeof clock, "%H:%M:%S", &tm);
	fprintf(f, "difftrace watch ");
	esc_fputs(dir, f);
	fprintf(f, "  %s\n%zu process%s, %zu thread%s, %" PRIu64 " events; in causal order %" PRIu64
		   ", held %" PRIu64 "\n",
		clock, procs, procs == 1 ? "" : "es", n, n == 1 ? "" : "s", rec, del, held);
	if (stopped) {
		fprintf(f, "the causality filter stopped: ");
		esc_fputs(stopped, f);
		fputc('\n', f);
	}
	if (!n) {
		fprintf(f, "\nno sync file yet (the program has made no MPI or OpenMP call, or "
			   "DIR is not where difftrace-record writes)\n");
		return;
	}
	int grouped = group == GROUP_ALWAYS || (group == GROUP_AUTO && n > rows);
	char b[48], d[32];
	if (!grouped) {
		fprintf(f, "\n%-10s %8s  %s\n", "P.T", "FOR", "WHERE");
		for (size_t i = 0; i < n; i++) {
			const live_thread *t = &th[i];
			fprintf(f, "%-10s %8s  ", pt_str(t, b, sizeof b),
				t->state == LIVE_STARTING || t->state == LIVE_FINISHED
					? ""
					: dur(t->elapsed_ns, d, sizeof d));
			what(f, t);
			notes(f, t);
			fputc('\n', f);
		}
		cycles_text(f, th, n);
		return;
	}
	fprintf(f, "\n%-20s %8s  %s\n", "P.T", "LONGEST", "WHERE");
	for (size_t i = 0; i < ng; i++) {
		const live_group *g = &gr[i];
		char *pts = group_pts(th, g);
		fprintf(f, "%-20s %8s  ", pts,
			g->state == LIVE_STARTING || g->state == LIVE_FINISHED ? ""
										: dur(g->max_ns, d, sizeof d));
		free(pts);
		const live_thread *t = &th[g->threads[0]];
		switch (g->state) {
		case LIVE_IN_CALL:
			fprintf(f, "in %s", live_call_name(g->func));
			int same = 1;
			for (size_t k = 1; k < g->n; k++)
				same &= th[g->threads[k]].occurrence == t->occurrence;
			if (g->n > 1 && same)
				fprintf(f, " (%s)", live_nth(t->occurrence, b, sizeof b));
			if (g->n == 1) {
				char a[256];
				live_args(&t->cur, a, sizeof a);
				fprintf(f, " (%s)%s%s", live_nth(t->occurrence, b, sizeof b),
					a[0] ? " " : "", a);
			}
			break;
		case LIVE_OUTSIDE:
			fprintf(f, "%s", live_activity_name(g->activity));
			break;
		default:
			what(f, t);
		}
		fputc('\n', f);
	}
	cycles_text(f, th, n);
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
		       i ? ", " : "", pt_str(t, pt, sizeof pt), t->proc, t->thread, t->pid, t->tid);
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
		char *pts = group_pts(th, &gr[i]);
		printf("%s{\"pts\": ", i ? ", " : "");
		cli_json_str(pts);
		free(pts);
		printf(", \"state\": \"%s\", \"call\": ", st[gr[i].state]);
		cli_json_str(gr[i].func ? live_call_name(gr[i].func) : "");
		printf(", \"threads\": %zu, \"longest_ns\": %" PRId64 "}", gr[i].n, gr[i].max_ns);
	}
	printf("], \"cycles\": [");
	size_t nc;
	size_t **c = live_cycles(th, n, &nc);
	for (size_t i = 0; i < nc; i++) {
		printf("%s[", i ? ", " : "");
		for (size_t k = 0; c[i][k] != SIZE_MAX; k++) {
			char pt[48];
			printf("%s\"%s\"", k ? ", " : "", pt_str(&th[c[i][k]], pt, sizeof pt));
		}
		printf("]");
	}
	cycles_free(c, nc);
	printf("]}\n");
}

int watch_poll(live *l, dt_err *e)
{
	return live_poll(l, clock_ns(CLOCK_MONOTONIC), clock_ns(CLOCK_REALTIME), e);
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
		if (watch_poll(l, &e)) {
			rc = 1;
			break;
		}
		if (fmt == OUT_JSON) {
			watch_json(l, dir);
		} else {
			if (k)
				putchar('\n');
			watch_text(stdout, l, dir, group, 24);
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
