/* cli_order.c: `difftrace order`, the sync events of a run merged into one order that agrees
 * with the ordering rules (the causality filter of src/order/), and the independent check of a
 * given order against the same rules. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_syncrun.h"
#include "export/chrome_calls.h"
#include "order/arrival.h"
#include "order/check.h"
#include "order/filter.h"
#include "order/rules.h"
#include "order/stream.h"
#include "order/write.h"
#include "store/store_sync.h"
#include "util/util.h"

static const char order_help[] =
	"usage: difftrace order [OPTIONS] RUN\n"
	"\n"
	"Merge the sync events of RUN (the MPI and OpenMP calls libdifftrace-sync.so recorded,\n"
	"difftrace-sync(5)) into one order consistent across threads and processes: each event\n"
	"is held back until the events the ordering rules say must come first were delivered\n"
	"(a receive's completion after its matching send, a collective's exits after the\n"
	"entries it needs, a lock's acquisition after the release before it; difftrace-rules(5)).\n"
	"Events arrive by timestamp, each host's clock put on the wall clock from the readings\n"
	"its record holds. Events that can never be delivered (a receive whose send never\n"
	"happened, in a hung run) are left out and listed on stderr; events the rules ignore\n"
	"(outside their thread's start and end) are left out and counted there. Events are read\n"
	"a chunk of each thread at a time and written as they are released: memory follows\n"
	"the events held, not the record (--format chrome and --check read it whole).\n"
	"\n"
	"  --policy P        minimal (an event goes out as soon as it is valid), concurrent\n"
	"                    (events valid in one round form one step), or timestamp\n"
	"                    (timestamps moved just enough to agree with the order); default:\n"
	"                    the rule files' policy statement, else minimal\n"
	"  --rules FILE      read the ordering rules from FILE instead of the shipped ones\n"
	"  --max-held N      the bound on held events (default 1048576): rules that hold more\n"
	"                    are reported as never releasing (exit status 1)\n"
	"  --format FMT      text (default), csv, json, or chrome (the Chrome trace event JSON\n"
	"                    that Perfetto and chrome://tracing open: a row per trace, MPI\n"
	"                    messages as arrows, the program's calls as slices: --calls)\n"
	"  --calls N         chrome: at most N of the program's calls in all (default 1000000;\n"
	"                    0: the sync events alone), shared evenly among the traces; a trace\n"
	"                    cut short shows 'calls cut here' where the rest begin, and stderr\n"
	"                    says how many were left out; a run without sync events has its\n"
	"                    calls alone\n"
	"  --check[=FILE]    verify an order with the independent checker: without FILE the\n"
	"                    order just computed (printed as well), with FILE an order in the\n"
	"                    csv format of --format csv (its proc, thread, seq and, for the\n"
	"                    timestamp policy, ts columns); exit status 1 when it breaks a rule\n"
	"  -h, --help        this help\n";

dt_sync_event *cli_sync_arrival(const dt_sync_event *ev, size_t n, const store_sync_clock *ck,
			       size_t nck, int64_t **off, size_t *nhost)
{
	*off = ord_host_offsets(ev, n, ck, nck, nhost);
	size_t *idx = xmalloc((n ? n : 1) * sizeof *idx);
	ord_arrival(ev, n, *off, idx);
	dt_sync_event *arr = xmalloc((n ? n : 1) * sizeof *arr);
	for (size_t i = 0; i < n; i++)
		arr[i] = ev[idx[i]];
	free(idx);
	return arr;
}

static int cmp_key(int32_t p, int32_t t, uint32_t q, const dt_sync_event *v)
{
	if (p != v->proc)
		return p < v->proc ? -1 : 1;
	if (t != v->thread)
		return t < v->thread ? -1 : 1;
	return q < v->seq ? -1 : q > v->seq;
}

/* Reads an order in the csv format of --format csv: each row names an event by its proc,
 * thread and seq (ev is in store order: sorted by them). */
static int read_order(const char *path, const dt_sync_event *ev, size_t n, uint64_t **order,
		      int64_t **ts, size_t *norder, dt_err *e)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return dt_err_at(e, path, -1, "cannot open: %s", strerror(errno));
	char *line = NULL;
	size_t cap = 0, lineno = 0, ocap = 0;
	ssize_t len;
	*order = NULL;
	*ts = NULL;
	*norder = 0;
	while ((len = getline(&line, &cap, f)) >= 0) {
		lineno++;
		if (lineno == 1 && !strncmp(line, "index,", 6))
			continue;
		if (len <= 1)
			continue;
		uint64_t idx, step;
		int64_t t, adj;
		int32_t p, th;
		uint32_t q;
		if (sscanf(line, "%" SCNu64 ",%" SCNu64 ",%" SCNd64 ",%" SCNd64 ",%" SCNd32 ",%" SCNd32
			   ",%" SCNu32 ",", &idx, &step, &t, &adj, &p, &th, &q) != 7) {
			dt_err_at(e, path, -1, "line %zu: not a row of 'difftrace order --format csv'",
				  lineno);
			goto fail;
		}
		size_t lo = 0, hi = n;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (cmp_key(p, th, q, &ev[mid]) > 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == n || cmp_key(p, th, q, &ev[lo])) {
			dt_err_at(e, path, -1, "line %zu: the run has no sync event %" PRId32 ".%" PRId32
				  " #%" PRIu32, lineno, p, th, q);
			goto fail;
		}
		GROW(*order, ocap, *norder + 1);
		*ts = xrealloc(*ts, ocap * sizeof **ts);
		(*order)[*norder] = lo;
		(*ts)[(*norder)++] = t;
	}
	free(line);
	fclose(f);
	return 0;
fail:
	free(line);
	fclose(f);
	free(*order);
	free(*ts);
	*order = NULL;
	*ts = NULL;
	return -1;
}

static int write_calls(FILE *out, int first, void *arg, dt_err *e)
{
	return chrome_calls_write(out, first, arg, e);
}

static int no_sync_events(const store_run *run, dt_err *e)
{
	return dt_err_at(e, NULL, -1,
			 "run '%s' has no sync events: record it with difftrace-record (without "
			 "--no-sync)", run->name);
}

/* The order written as the filter releases it, to the raw output: each function's name made
 * and escaped once (ord_write_name), the rest numbers and words of ours, so the escaping
 * stream of every command (cli.c) has nothing to do but cost a copy of each row. */
typedef struct sink {
	FILE *out;
	int fmt;
	const char *const *names;
	uint32_t nnames;
	char **made; /* by function id, NULL until its first row */
	uint64_t n;
} sink;

static void emit_row(void *ctx, const ord_out *o)
{
	sink *k = ctx;
	ord_item it = { o->id, o->step, o->ts, o->adj };
	uint32_t f = o->ev->func;
	if (f < k->nnames && !k->made[f])
		k->made[f] = ord_write_name(k->fmt, k->names, k->nnames, f);
	if (f < k->nnames && k->made[f])
		ord_write_row_named(k->out, k->fmt, o->ev, &it, o->index, k->made[f]);
	else
		ord_write_row(k->out, k->fmt, o->ev, &it, o->index, k->names, k->nnames);
	k->n++;
}

/* `order` in the text, csv and json formats: the run's events read a chunk of a thread at a
 * time and merged by time (order/stream.h) into the filter, each written as it is released:
 * memory for the events the filter holds and a chunk per thread, not for the record. The
 * same output as ord_order over the arrival order of the whole record (ord_arrival). */
static int order_streamed(store *s, const store_run *run, ord_rules *rules, int policy,
			  size_t max_held, sink *k, dt_err *e)
{
	ord_stream *st;
	if (ord_stream_open(s, run->id, &st, e))
		return -1;
	if (!st)
		return no_sync_events(run, e);
	if (ord_rules_bind(rules, k->names, k->nnames, e)) {
		ord_stream_close(st);
		return -1;
	}
	if (policy < 0)
		policy = rules->policy;
	size_t nhost;
	const int64_t *off = ord_stream_offsets(st, &nhost);
	ord_filter_opts fo = { policy, off, nhost, max_held, 0 };
	ord_filter *f = ord_filter_new(rules, &fo, emit_row, k);
	/* the raw output, not written to yet, gets the escaping stream's buffer (a pipe's
	 * default of 4 KiB took a write system call every few rows) */
	if (k->out != stdout && !isatty(fileno(k->out)))
		setvbuf(k->out, NULL, _IOFBF, (size_t)1 << 16);
	ord_write_head(k->out, k->fmt);
	uint64_t n = 0;
	const dt_sync_event *v;
	int rc;
	while (!(rc = ord_stream_next(st, &v, e)) && v && !(rc = ord_filter_push(f, v, n, e)))
		n++;
	if (!rc) {
		ord_filter_drain(f);
		ord_write_tail(k->out, k->fmt);
		if (fflush(k->out) || ferror(k->out))
			rc = dt_errf(e, DT_EDATA, "cannot write the order: %s", "write error");
	}
	uint64_t nign = ord_filter_ignored(f);
	if (!rc && nign)
		fprintf(stderr, "difftrace: %llu of the %llu sync events of run '%s' ignored: their "
			"thread was off (outside its start and end; difftrace-rules(5))\n",
			(unsigned long long)nign, (unsigned long long)n, run->name);
	if (!rc && ord_filter_held(f)) {
		char *held = ord_filter_explain(f, 50);
		fprintf(stderr, "difftrace: %llu of the %llu sync events of run '%s' can never be "
			"delivered (the run stopped before what they wait for):\n%s",
			(unsigned long long)(n - k->n - nign), (unsigned long long)n, run->name, held);
		if (held[0] && held[strlen(held) - 1] != '\n')
			fputc('\n', stderr);
		free(held);
	}
	ord_filter_free(f);
	ord_stream_close(st);
	return rc;
}

int cmd_order(cli *c, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "policy", required_argument, NULL, 'p' }, { "rules", required_argument, NULL, 'r' },
		{ "format", required_argument, NULL, 'f' }, { "check", optional_argument, NULL, 'c' },
		{ "max-held", required_argument, NULL, 'm' }, { "calls", required_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },         { NULL, 0, NULL, 0 },
	};
	int o, r, fmt = ORD_FMT_TEXT, policy = -1, check = 0;
	const char *rules_file = NULL, *check_file = NULL;
	size_t max_held = 0;
	uint64_t max_calls = 1000000;
	while ((r = cli_getopt(argc, argv, ":h", lo, &o, "order", order_help)) == 0 && o != -1) {
		if (o == 'p' && (policy = ord_policy_parse(optarg)) < 0)
			return cli_usage("order", "unknown policy '%s' (minimal, concurrent, timestamp)",
					 optarg);
		if (o == 'f' && (fmt = ord_format_parse(optarg)) < 0)
			return cli_usage("order", "unknown format '%s' (text, csv, json, chrome)",
					 optarg);
		if (o == 'r')
			rules_file = optarg;
		if (o == 'C') {
			char *end;
			errno = 0;
			unsigned long long v = strtoull(optarg, &end, 10);
			if (errno || end == optarg || *end || optarg[0] == '-')
				return cli_usage("order", "--calls needs a count, not '%s'", optarg);
			max_calls = v;
		}
		if (o == 'm' && (r = cli_max_held("order", optarg, &max_held)) != 0)
			return r;
		if (o == 'c') {
			check = 1;
			check_file = optarg;
		}
	}
	if (r)
		return r == 1 ? 0 : r;
	if (argc - optind != 1)
		return cli_usage("order", "needs one RUN");

	dt_err e;
	dt_err_clear(&e);
	store *s = NULL;
	store_run run = { 0 };
	dt_sync_event *ev = NULL, *arr = NULL;
	store_sync_clock *ck = NULL;
	size_t n = 0, nck = 0, nitems = 0, norder = 0, nhost = 0;
	int64_t *off = NULL, *ots = NULL;
	ord_item *items = NULL;
	uint64_t *order = NULL;
	char *held = NULL;
	int status = 0;
	store_sites sites = { 0 };
	char **site_text = NULL;
	uint32_t nsite_text = 0;
	ord_rules *rules = ord_rules_new();
	if (rules_file ? ord_rules_load_file(rules, rules_file, &e) : ord_rules_load_default(rules, &e))
		goto fail;
	if (cli_open_run(c, argv[optind], &s, &run, &e))
		goto fail;
	size_t nnames;
	const char *const *names = store_func_names(s, &nnames);
	if (store_sync_sites(s, run.id, &sites, &e))
		goto fail;
	site_text = cli_site_texts(&sites, &nsite_text);
	ord_write_sites((const char *const *)site_text, nsite_text);
	if (!check && fmt != ORD_FMT_CHROME) {
		sink k = { c->raw_out ? c->raw_out : stdout, fmt, names, (uint32_t)nnames,
			   xcalloc(nnames ? nnames : 1, sizeof(char *)), 0 };
		int rs = order_streamed(s, &run, rules, policy, max_held, &k, &e);
		for (size_t i = 0; i < nnames; i++)
			free(k.made[i]);
		free(k.made);
		if (rs)
			goto fail;
		goto out;
	}
	if (store_sync_list(s, run.id, &ev, &n, &e) || store_sync_clocks(s, run.id, &ck, &nck, &e))
		goto fail;
	if (!n && fmt == ORD_FMT_CHROME && max_calls && !check) {
		fprintf(stderr, "difftrace: run '%s' has no sync events: the Chrome trace has its "
			"calls alone\n", run.name);
	} else if (!n) {
		no_sync_events(&run, &e);
		goto fail;
	}
	if (ord_rules_bind(rules, names, (uint32_t)nnames, &e))
		goto fail;
	if (policy < 0)
		policy = rules->policy;

	if (check_file) {
		if (read_order(check_file, ev, n, &order, &ots, &norder, &e))
			goto fail;
		if (ord_check(rules, ev, n, order, norder, policy == ORD_TIMESTAMP ? ots : NULL, &e))
			goto fail;
		printf("%s: a valid order of %zu of the %zu sync events of run '%s' (policy %s)\n",
		       check_file, norder, n, run.name, ord_policy_name(policy));
		goto out;
	}

	arr = cli_sync_arrival(ev, n, ck, nck, &off, &nhost);
	ord_filter_opts fo = { policy, off, nhost, max_held, 0 };
	uint64_t nign = 0;
	if (ord_order_ignoring(rules, &fo, arr, n, &items, &nitems, &held, &nign, &e))
		goto fail;
	chrome_calls cc = { s, run.id, ev, n, off, nhost, max_calls, 0, 0, 0, 0, 1 };
	int calls = fmt == ORD_FMT_CHROME && max_calls;
	if (ord_write_more(stdout, fmt, arr, items, nitems, names, (uint32_t)nnames,
			   calls ? write_calls : NULL, &cc, &e))
		goto fail;
	if (calls && cc.ncut)
		fprintf(stderr, "difftrace: %llu of the %llu calls of run '%s' written (--calls %llu): "
			"%zu trace%s cut short, marked 'calls cut here'\n",
			(unsigned long long)cc.nshown, (unsigned long long)cc.nall, run.name,
			(unsigned long long)max_calls, cc.ncut, cc.ncut == 1 ? "" : "s");
	if (calls && cc.nnotime)
		fprintf(stderr, "difftrace: %zu trace%s of run '%s' without timestamps: no calls "
			"written for them\n", cc.nnotime, cc.nnotime == 1 ? "" : "s", run.name);
	if (nign)
		fprintf(stderr, "difftrace: %llu of the %zu sync events of run '%s' ignored: their "
			"thread was off (outside its start and end; difftrace-rules(5))\n",
			(unsigned long long)nign, n, run.name);
	if (held) {
		fprintf(stderr, "difftrace: %zu of the %zu sync events of run '%s' can never be "
			"delivered (the run stopped before what they wait for):\n%s",
			n - nitems - (size_t)nign, n, run.name, held);
		if (held[0] && held[strlen(held) - 1] != '\n')
			fputc('\n', stderr);
	}
	if (check) {
		order = xmalloc((nitems ? nitems : 1) * sizeof *order);
		ots = xmalloc((nitems ? nitems : 1) * sizeof *ots);
		for (size_t i = 0; i < nitems; i++) {
			order[i] = items[i].id;
			ots[i] = items[i].ts;
		}
		if (ord_check(rules, arr, n, order, nitems, policy == ORD_TIMESTAMP ? ots : NULL,
			      &e))
			goto fail;
		fprintf(stderr, "difftrace: the order of %zu events passes the checker (policy %s)\n",
			nitems, ord_policy_name(policy));
	}
	goto out;
fail:
	status = cli_fail(&e);
out:
	ord_write_sites(NULL, 0);
	cli_site_texts_free(site_text, nsite_text);
	store_sites_free(&sites);
	free(held);
	free(items);
	free(order);
	free(ots);
	free(arr);
	free(off);
	free(ck);
	free(ev);
	ord_rules_free(rules);
	if (s) {
		store_run_free(&run);
		store_close(s);
	}
	return status;
}
