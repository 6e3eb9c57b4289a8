/* cli.c: the difftrace program: global options and the verb table. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "cli/cli.h"
#include "cli/cli_par.h"
#include "util/esc.h"
#include "util/util.h"

static const char usage[] =
	"usage: difftrace [-d STORE] COMMAND [ARGS...]\n"
	"\n"
	"Find bugs in MPI + OpenMP programs by comparing how their processes and threads behaved.\n"
	"\n"
	"Commands:\n"
	"  import   import traces (uftrace, ParLOT, text, OTF2) as a run\n"
	"  runs     list the runs in the store\n"
	"  traces   list the traces of a run\n"
	"  show     print the events of one trace\n"
	"  rm       remove runs from the store\n"
	"  filters  list the filter families, show them, test which functions they keep\n"
	"  analyze  filter, compress (NLR) and compare the traces of runs; cache the results\n"
	"  classes  the equivalence classes of a run's traces\n"
	"  jsm      the Jaccard similarity matrix of a run's traces\n"
	"  lattice  the concept lattice of a run's traces and attributes\n"
	"  nlr      one trace compressed into nested loops\n"
	"  rank     the traces whose similarity changed most between a normal and a faulty run\n"
	"  diff     two traces side by side (diffNLR)\n"
	"  sync     the MPI and OpenMP calls recorded by libdifftrace-sync.so\n"
	"  hang     where each thread of a stopped run is, and who waits for whom\n"
	"  order    the sync events of a run in one order consistent across processes\n"
	"  watch    where each rank and thread of a running program is, live\n"
	"  report   calls, total and self time per function of two runs, and their change\n"
	"  blame-index  the data flow of a program's C functions, from its sources, for blame\n"
	"  blame    variable blame: which program variables a run's samples were spent on\n"
	"  export   write a run as an OTF2 archive (Vampir, otf2-print)\n"
	"  tui      browse all of it in a terminal interface (also plain 'difftrace')\n"
	"\n"
	"Options:\n"
	"  -d, --db STORE  the store file (default: $DIFFTRACE_DB, else ./difftrace.db)\n"
	"  -h, --help      this help; 'difftrace COMMAND --help' for a command\n"
	"  -V, --version   print the version\n"
	"\n"
	"See difftrace(1). Record MPI runs with difftrace-record(1).\n";

static const struct verb {
	const char *name;
	int (*fn)(cli *, int, char **);
} verbs[] = {
	{ "import", cmd_import }, { "runs", cmd_runs }, { "traces", cmd_traces },
	{ "show", cmd_show },     { "rm", cmd_rm },           { "analyze", cmd_analyze },
	{ "classes", cmd_classes }, { "jsm", cmd_jsm },       { "lattice", cmd_lattice },
	{ "filters", cmd_filters }, { "nlr", cmd_nlr },   { "tui", cmd_tui },       { "rank", cmd_rank },       { "diff", cmd_diff },
	{ "sync", cmd_sync },     { "hang", cmd_hang },   { "order", cmd_order }, { "watch", cmd_watch },
	{ "report", cmd_report }, { "blame-index", cmd_bindex }, { "blame", cmd_blame },
	{ "export", cmd_export },
};

/* head, msg escaped (it quotes names and excerpts from the input, or the command line), then
 * tail, to standard error in one write: an MPI launcher that ends the job when a process
 * fails may forward the first write of a process and drop the rest */
static void err_line(const char *head, const char *msg, const char *tail)
{
	dt_buf b = { 0 };
	buf_put(&b, head, strlen(head));
	esc_append(&b, msg, strlen(msg), 0);
	buf_put(&b, tail, strlen(tail));
	fflush(stderr);
	for (size_t off = 0; off < b.len;) {
		ssize_t w = write(STDERR_FILENO, b.p + off, b.len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	buf_free(&b);
}

int cli_fail(const dt_err *e)
{
	char msg[1400];
	dt_err_format(e, msg, sizeof msg);
	err_line("difftrace: ", msg, "\n");
	return e->status == DT_EUSAGE ? 2 : 1;
}

int cli_usage(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char msg[1024], head[64], tail[96];
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	snprintf(head, sizeof head, "difftrace %s: ", cmd);
	snprintf(tail, sizeof tail, "\n(see 'difftrace %s --help')\n", cmd);
	err_line(head, msg, tail);
	return 2;
}

int cli_open_store(const cli *c, int mode, store **s, dt_err *e)
{
	return store_open(c->db, mode, s, e);
}

int cli_open_run(const cli *c, const char *name, store **s, store_run *run, dt_err *e)
{
	if (cli_open_store(c, STORE_OPEN_EXISTING, s, e))
		return -1;
	if (store_run_get(*s, name, run, e)) {
		store_close(*s);
		*s = NULL;
		return -1;
	}
	return 0;
}

int cli_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts,
	       int *opt, const char *cmd, const char *help)
{
	opterr = 0;
	int o = getopt_long(argc, argv, shortopts, longopts, NULL);
	*opt = o;
	if (o == 'h') {
		fputs(help, stdout);
		return CLI_HELP_DONE;
	}
	if (o == '?') {
		if (optopt)
			return cli_usage(cmd, "unknown option or missing value: -%c", optopt);
		return cli_usage(cmd, "unknown option or missing value: %s", argv[optind - 1]);
	}
	if (o == ':')
		return cli_usage(cmd, "option %s needs a value", argv[optind - 1]);
	return 0;
}

const char *cli_count(uint64_t v, char *buf, size_t n)
{
	char tmp[32];
	int len = snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)v);
	size_t o = 0;
	for (int i = 0; i < len && o + 2 < n; i++) {
		if (i && (len - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	buf[o] = 0;
	return buf;
}

const char *cli_bytes(int64_t v, char *buf, size_t n)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double d = (double)v;
	int u = 0;
	while (d >= 1024 && u < 4) {
		d /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, n, "%lld B", (long long)v);
	else
		snprintf(buf, n, "%.1f %s", d, unit[u]);
	return buf;
}

int cli_parse_u64(const char *s, uint64_t *v)
{
	char *end;
	if (!*s || *s == '-')
		return -1;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 10);
	if (*end || errno)
		return -1;
	*v = x;
	return 0;
}

int cli_parse_pt(const char *s, int *p, int *t)
{
	char *end;
	errno = 0;
	long a = strtol(s, &end, 10);
	if (end == s || *end != '.' || a < 0 || a > 1 << 30)
		return -1;
	const char *q = end + 1;
	long b = strtol(q, &end, 10);
	if (end == q || *end || b < 0 || b > 1 << 30 || errno)
		return -1;
	*p = (int)a;
	*t = (int)b;
	return 0;
}

void cli_json_str(const char *s)
{
	esc_json(s, stdout);
}

void cli_csv_str(const char *s)
{
	dt_buf b = { 0 };
	esc_append(&b, s, strlen(s), 0);
	buf_byte(&b, 0);
	const char *t = (const char *)b.p;
	if (!strpbrk(t, ",\"")) {
		fputs(t, stdout);
	} else {
		putchar('"');
		for (; *t; t++) {
			if (*t == '"')
				putchar('"');
			putchar(*t);
		}
		putchar('"');
	}
	buf_free(&b);
}

void cli_pad(const char *s, int width)
{
	dt_buf b = { 0 };
	esc_append(&b, s, strlen(s), 0);
	buf_byte(&b, 0);
	fputs((const char *)b.p, stdout);
	for (int w = (int)esc_width((const char *)b.p); w < width; w++)
		putchar(' ');
	buf_free(&b);
}

void cli_raw_stdout(cli *c)
{
	if (c->raw_out && stdout != c->raw_out) {
		fflush(stdout);
		stdout = c->raw_out;
	}
}

int cli_out_format(const char *s)
{
	if (!strcmp(s, "text"))
		return OUT_TEXT;
	if (!strcmp(s, "csv"))
		return OUT_CSV;
	if (!strcmp(s, "json"))
		return OUT_JSON;
	return -1;
}

int cli_main(int argc, char **argv)
{
	cli c = { getenv("DIFFTRACE_DB"), NULL };
	if (!c.db || !*c.db)
		c.db = STORE_DEFAULT_PATH;
	int i = 1;
	for (; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(usage, stdout);
			return 0;
		} else if (!strcmp(a, "-V") || !strcmp(a, "--version")) {
			printf("difftrace %s\n", PACKAGE_VERSION);
			return 0;
		} else if (!strcmp(a, "-d") || !strcmp(a, "--db")) {
			if (++i >= argc) {
				fprintf(stderr, "difftrace: %s needs a file name\n", a);
				return 2;
			}
			c.db = argv[i];
		} else if (!strncmp(a, "--db=", 5)) {
			c.db = a + 5;
		} else {
			fputs("difftrace: unknown option ", stderr);
			esc_fputs(a, stderr);
			fputs(" (see 'difftrace --help')\n", stderr);
			return 2;
		}
	}
	if (i >= argc) {
		/* plain `difftrace` at a terminal, with a store here: the interface */
		if (isatty(0) && isatty(1) && access(c.db, F_OK) == 0) {
			char *args[] = { "tui", NULL };
			optind = 1;
			return cmd_tui(&c, 1, args);
		}
		fputs(usage, stderr);
		return 2;
	}
	/* in an MPI job (difftrace-mpi), the commands other than import and analyze run in
	 * process 0 */
	if (cli_par_job && cli_par_job->rank > 0 && strcmp(argv[i], "import") &&
	    strcmp(argv[i], "analyze"))
		return 0;
	for (size_t v = 0; v < sizeof verbs / sizeof *verbs; v++) {
		if (!strcmp(argv[i], verbs[v].name)) {
			optind = 1;
			if (verbs[v].fn == cmd_tui)
				return cmd_tui(&c, argc - i, argv + i);
			/* nothing a verb prints reaches the terminal with a control character of
			 * the input in it (util/esc.h); tables escape their fields besides */
			c.raw_out = stdout;
			FILE *safe = esc_stream(stdout);
			if (safe) {
				setvbuf(safe, NULL, isatty(1) ? _IOLBF : _IOFBF, 1 << 16);
				stdout = safe;
			}
			int rc = verbs[v].fn(&c, argc - i, argv + i);
			if (safe) {
				fflush(stdout);
				stdout = c.raw_out;
				fclose(safe);
			}
			return rc;
		}
	}
	fputs("difftrace: '", stderr);
	esc_fputs(argv[i], stderr);
	fputs("' is not a command (see 'difftrace --help')\n", stderr);
	return 2;
}

int cli_parse_color(const char *s, int *when)
{
	if (!s || !strcmp(s, "auto"))
		*when = -1;
	else if (!strcmp(s, "always"))
		*when = 1;
	else if (!strcmp(s, "never"))
		*when = 0;
	else
		return -1;
	return 0;
}

int cli_use_color(int when)
{
	if (when >= 0)
		return when;
	const char *nc = getenv("NO_COLOR"), *term = getenv("TERM");
	return isatty(STDOUT_FILENO) && !(nc && *nc) && !(term && !strcmp(term, "dumb"));
}
