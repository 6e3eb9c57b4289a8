/* cli_compare.c: `difftrace nlr`, `diff` and `rank`: one trace's loops, two traces side by
 * side, and the traces whose similarity changed most between a normal and a faulty run. */
#define _GNU_SOURCE
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli_analysis.h"
#include "analysis/diff.h"
#include "analysis/nlr.h"
#include "analysis/rank.h"
#include "store/store_srcline.h"
#include "util/esc.h"
#include "analysis/rankcache.h"
#include "analysis/verdict.h"
#include "analysis/verdict_args.h"
#include "analysis/verdict_own.h"
#include "analysis/diagnosis.h"
#include "analysis/sweep.h"
#include "util/util.h"

static const char nlr_help[] =
	"usage: difftrace nlr [OPTIONS] RUN P.T\n"
	"\n"
	"Trace P.T of RUN after the filter, compressed into nested loops: one line per entry, a\n"
	"loop as (e1 - e2 - ...)^count with nested loops as L<id>^<count>, then the loop table.\n"
	"When K folds nothing but a larger K (up to 32) would, a comment line says which.\n"
	"\n"
	"  -h, --help            this help\n"
	"\n";

static const char diff_help[] =
	"usage: difftrace diff [OPTIONS] RUN:P.T RUN:P.T\n"
	"\n"
	"diffNLR: the compressed forms of two traces (of the same run or of two runs, e.g.\n"
	"normal:3.0 faulty:3.0) aligned by a linear-space Myers diff. A loop whose count changed\n"
	"is one changed line (L3^6 | L3^4).\n"
	"\n"
	"  -y, --side-by-side    two columns with diff -y markers: ' ' same, '|' changed,\n"
	"                        '<' only left, '>' only right (the default): the changed\n"
	"                        hunks, each under an @@ -a,b +c,d @@ line giving its entry\n"
	"                        positions in A and B (from 1), with --context common entries\n"
	"                        around each change\n"
	"  -a, --all             side by side: every entry, the common ones too\n"
	"  --context N           common entries shown around each change (default 3), side by\n"
	"                        side and unified\n"
	"  -u, --unified         unified diff hunks\n"
	"  --format dot          a Graphviz picture, as the DiffTrace prototype draws it\n"
	"  --format json         the entries of both traces, the hunks of the edit script and\n"
	"                        the bodies of the loops they use, for scripts\n"
	"  --expand              show each loop's body under it\n"
	"  --fold                every entry, long common runs folded into one line\n"
	"  -W, --width N         side-by-side line width (default: the terminal's, else 130)\n"
	"  --color[=WHEN]        auto (default: at a terminal, unless NO_COLOR is set or\n"
	"                        TERM=dumb), always or never: colours as git diff's, the\n"
	"                        differing words of a changed pair in reverse video\n"
	"  -h, --help            this help\n"
	"\n"
	"Without --filter, two traces the default filter sees as identical are compared under\n"
	"every call (filter everything) when that sees a difference, as rank ranks them: a first\n"
	"line (\"filter\" and \"filter_blind\" in JSON) says so. The same trace of two runs,\n"
	"identical under every call too, that rank puts first for its sent data or its time\n"
	"says what rank found instead of (identical) (\"verdict\" in JSON).\n"
	"A call whose function the binary's debug information (-g) places in the source shows\n"
	"where it is defined: NAME @FILE:LINE (the file's last component; in JSON \"file\" and\n"
	"\"line\" with the whole path).\n"
	"A side-by-side line too long for its column ends in ~ (an ellipsis in a UTF-8 locale);\n"
	"a changed pair that does not fit shows the part that differs, the common part elided.\n"
	"\n";

static const char rank_help[] =
	"usage: difftrace rank [OPTIONS] --normal RUN --faulty RUN [--top N] [--sweep]\n"
	"       difftrace rank [OPTIONS] NORMAL FAULTY (the same)\n"
	"       difftrace rank [OPTIONS] --run RUN [--top N]\n"
	"\n"
	"With two runs, the traces of the faulty run matched with the normal run's by P.T. By\n"
	"default each trace's kept events (the calls the filter keeps, with their MPI arguments:\n"
	"order, counts and arguments all count) are compared exactly with its counterpart's:\n"
	"identical (score 0), stopped early (only the beginning of them, in a run that was cut:\n"
	"a victim of a hang) or diverged (anything else, also a trace that ended early in a run\n"
	"that ended normally, or was busy out of the filter's sight). A changed trace scores its\n"
	"JSM_D row sum plus the share of its kept events outside the beginning and end it shares\n"
	"with its counterpart. Diverged traces first, then the stopped ones (the one that stopped\n"
	"earliest in its own pattern first), then the identical ones; ties share a position,\n"
	"marked =. When every trace differs or the first place is tied, the calls the filter\n"
	"drops (filter everything) are compared too, and in each class the traces whose other\n"
	"calls differ come first. When two traces or more changed, a change every trace of a\n"
	"class makes alike is a changed input (other arguments): the traces that changed more\n"
	"come first, and a header line names it; so is an MPI argument every trace making the\n"
	"call changed to the same value (another count everywhere), left out of each trace's\n"
	"comparison. Each row says what changed. When the filter\n"
	"sees no difference but the program's own functions do, that is said and they are\n"
	"ranked (filter everything); when nothing differs, 'no difference found under\n"
	"FILTER/ATTRS' (also with --score jsmd).\n"
	"JSM_D = |JSM_faulty - JSM_normal| over the traces both runs have, its diagonal 0 as in\n"
	"the paper; the self term of jsmd-self (and of the default score) adds each trace's\n"
	"change against its own counterpart and what it does that the normal run never did.\n"
	"Pairs are ranked by JSM_D; the B-score (Fowlkes-Mallows) of the two runs'\n"
	"clusterings is lower when they differ more. Traces present in one run only are listed.\n"
	"With --sweep: JSM_D for every combination of --sweep-filters, --sweep-attrs and\n"
	"--sweep-k, as the paper's ranking table (lowest B-score first), top processes and\n"
	"threads by the paper's row sums (--score jsmd-self: with the self term) with their\n"
	"scores, tied ones in [brackets] ('[0.1 +2]': 2 more tied, not listed); '- (no\n"
	"difference)' when a setting sees none, and a line when none does.\n"
	"With one run: the outliers, the traces least similar to their own class.\n"
	"\n"
	"  --normal RUN          the run that behaved\n"
	"  --faulty RUN          the run that did not\n"
	"  --run RUN             single-run mode\n"
	"  --top N               how many traces and pairs to list (default 10)\n"
	"  --score S             combined: the ranking above (default); jsmd: JSM_D row sums\n"
	"                        alone (the paper's; traces running at the stop of a hung run\n"
	"                        first); jsmd-self: those sums plus each trace's self term\n"
	"                        (its own change and novelty)\n"
	"  --format text|csv|json  the table (default), one CSV row per trace, or JSON\n"
	"  --sweep               the ranking table over a set of parameters\n"
	"  --sweep-filters LIST  filters separated by ';' (default: everything;mpi;mpicol;\n"
	"                        ompall;mpi,ompall)\n"
	"  --sweep-attrs LIST    attribute modes separated by ',' (default: sing.orig,sing.log10,\n"
	"                        sing.actual,doub.orig,doub.log10,doub.actual); each takes\n"
	"                        .args from --attrs (the default has it)\n"
	"  --sweep-k LIST        values of K separated by ',' (default: 10)\n"
	"  -h, --help            this help\n"
	"\n";

/* Parses the verb's own options through o_fn and the shared analysis ones. */
static int parse(int argc, char **argv, const char *name, const char *help,
		 const struct option *own, const char *shortopts, cli_an *a,
		 int (*o_fn)(void *, int, const char *), void *ud)
{
	struct option lo[32];
	cli_an_join(own, lo);
	char *h = xmalloc(strlen(help) + strlen(cli_an_help) + 1);
	strcpy(h, help);
	strcat(h, cli_an_help);
	int o, r;
	while ((r = cli_getopt(argc, argv, shortopts, lo, &o, name, h)) == 0 && o != -1) {
		int x = cli_an_option(a, name, o, optarg);
		if (x == 1)
			continue;
		if (x) {
			r = x;
			break;
		}
		if (o_fn && (r = o_fn(ud, o, optarg)) != 0)
			break;
	}
	free(h);
	return r;
}

static const char *fname(void *ctx, uint32_t fid)
{
	return store_func_name(ctx, fid);
}

static int load_loop(void *ctx, uint32_t id, const nlr_entry *body, size_t n)
{
	dt_err e;
	dt_err_clear(&e);
	return nlr_table_load(ctx, id, body, n, &e);
}

static nlr_table *store_loops(store *s, dt_err *e)
{
	nlr_table *t = nlr_table_new();
	if (store_loops_each(s, load_loop, t, e)) {
		nlr_table_free(t);
		return NULL;
	}
	return t;
}

/* The NLR entries of trace P.T under an analysis already loaded. */
static int trace_entries(store *s, const an_result *r, int p, int t, const char *run,
			 nlr_entry **v, size_t *n, dt_err *e)
{
	int obj = analysis_object(r, p, t);
	if (obj < 0)
		return dt_errf(e, DT_EDATA, "no trace %d.%d in run %s (see 'difftrace traces %s')", p,
			       t, run, run);
	return store_analysis_get_trace(s, r->meta.id, obj, NULL, NULL, v, n, NULL, NULL, e);
}

/* Traces longer than this (after the filter) are not searched for a better K: each K tried is
 * one more compression. */
#define SUGGEST_MAX_EVENTS ((size_t)1 << 20)

int cmd_nlr(cli *c, int argc, char **argv)
{
	static const struct option own[] = { { "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 } };
	cli_an a;
	cli_an_init(&a);
	int r = parse(argc, argv, "nlr", nlr_help, own, ":hK:", &a, NULL, NULL);
	if (r == CLI_HELP_DONE)
		return 0;
	if (r)
		return r;
	if (argc - optind != 2)
		return cli_usage("nlr", "needs RUN and P.T");
	int p, t;
	if (cli_parse_pt(argv[optind + 1], &p, &t))
		return cli_usage("nlr", "'%s' is not a trace: write P.T, e.g. 0.0", argv[optind + 1]);
	dt_err e;
	dt_err_clear(&e);
	store *s;
	if (cli_open_store(c, STORE_OPEN_EXISTING, &s, &e))
		return cli_fail(&e);
	an_result res;
	nlr_entry *v = NULL;
	size_t n = 0;
	nlr_table *loops = NULL;
	int rc = 1;
	if (cli_an_get(&a, s, argv[optind], &res, &e))
		goto out0;
	if (trace_entries(s, &res, p, t, argv[optind], &v, &n, &e) || !(loops = store_loops(s, &e)))
		goto out;
	int obj = analysis_object(&res, p, t);
	char x[32], y[32];
	printf("# run %s, trace %d.%d, filter %s, K %d: %s events, %s after the filter, %zu "
	       "NLR entr%s\n",
	       argv[optind], p, t, res.filter_alias, res.meta.k,
	       cli_count(res.traces[obj].nevents, x, sizeof x),
	       cli_count(res.nfiltered[obj], y, sizeof y), n, n == 1 ? "y" : "ies");
	size_t body;
	unsigned kk = nlr_suggest_k(loops, v, n, (unsigned)res.meta.k, NLR_KMAX, SUGGEST_MAX_EVENTS,
				    &body, &e);
	if (kk)
		printf("# K %d folds nothing here, but the trace repeats a body of %zu calls: try "
		       "difftrace nlr -K %u %s %d.%d\n",
		       res.meta.k, body, kk, argv[optind], p, t);
	if (nlr_render(stdout, loops, v, n, fname, s, &e))
		goto out;
	printf("\n# loops\n");
	if (nlr_render_loops(stdout, loops, v, n, fname, s, &e))
		goto out;
	rc = 0;
out:
	analysis_result_free(&res);
out0:
	free(v);
	nlr_table_free(loops);
	store_close(s);
	return rc ? cli_fail(&e) : 0;
}

/* ---- diff ---- */

struct diff_cli {
	int style; /* 'y', 'u', 'd' */
	int all;   /* side by side: every row */
	int color; /* -1 auto, 0 never, 1 always */
	diff_render_opts r;
};

static int diff_opt(void *ud, int o, const char *arg)
{
	struct diff_cli *d = ud;
	uint64_t w;
	switch (o) {
	case 'y':
	case 'u':
		d->style = o;
		break;
	case 'F':
		if (!strcmp(arg, "dot"))
			d->style = 'd';
		else if (!strcmp(arg, "side-by-side"))
			d->style = 'y';
		else if (!strcmp(arg, "unified"))
			d->style = 'u';
		else if (!strcmp(arg, "json"))
			d->style = 'j';
		else
			return cli_usage("diff",
					 "unknown format '%s' (side-by-side, unified, dot, json)", arg);
		break;
	case 'E':
		d->r.expand = 1;
		break;
	case 'L':
		d->r.fold = 1;
		break;
	case 'a':
		d->all = 1;
		break;
	case 'X':
		if (cli_parse_u64(arg, &w) || w > 1000000)
			return cli_usage("diff", "--context takes a number of entries, not '%s'", arg);
		d->r.context = (int)w;
		break;
	case 'W':
		if (cli_parse_u64(arg, &w) || w < 20 || w > 100000)
			return cli_usage("diff", "--width takes 20 or more, not '%s'", arg);
		d->r.width = (int)w;
		break;
	case 'C':
		if (cli_parse_color(arg, &d->color))
			return cli_usage("diff", "--color takes auto, always or never, not '%s'", arg);
		break;
	}
	return 0;
}

static int loop_body(void *ctx, uint32_t id, const nlr_entry **body, size_t *n)
{
	nlr_table *t = ctx;
	if (id >= nlr_table_count(t))
		return -1;
	*body = nlr_table_body(t, id, n);
	return 0;
}

struct two {
	store *s;
	nlr_table *t;
	store_srclines *lines[2]; /* of the two runs */
	char buf[1024];
};

/* Where the function is defined, by the first run's debug information, else the second's. */
static int two_line(const store_srclines *const lines[2], const char *name, const char **file,
		    int *line)
{
	return store_srclines_find(lines[0], name, file, line) ||
	       store_srclines_find(lines[1], name, file, line);
}

/* "name @file:line" (the file's last component: the columns are narrow) when it has a line */
static const char *two_name(void *ctx, uint32_t fid)
{
	struct two *w = ctx;
	const char *name = store_func_name(w->s, fid), *file;
	int line;
	if (!name || !two_line((const store_srclines *const *)w->lines, name, &file, &line))
		return name;
	const char *base = strrchr(file, '/');
	snprintf(w->buf, sizeof w->buf, "%s @%s:%d", name, base ? base + 1 : file, line);
	return w->buf;
}

static int two_body(void *ctx, uint32_t id, const nlr_entry **body, size_t *n)
{
	return loop_body(((struct two *)ctx)->t, id, body, n);
}

/* ---- diff as JSON ---- */

static void json_entry(store *s, const store_srclines *const lines[2], nlr_entry x)
{
	if (nlr_is_loop(x)) {
		printf("{\"loop\": %u, \"count\": %u}", nlr_loop_id(x), x.count);
		return;
	}
	const char *name = store_func_name(s, x.sym);
	char unknown[32];
	if (!name) {
		snprintf(unknown, sizeof unknown, "?%u", x.sym);
		name = unknown;
	}
	printf("{\"name\": ");
	cli_json_str(name);
	const char *file;
	int line;
	if (two_line(lines, name, &file, &line)) {
		printf(", \"file\": ");
		cli_json_str(file);
		printf(", \"line\": %d", line);
	}
	printf("}");
}

static void json_entries(store *s, const store_srclines *const lines[2], const nlr_entry *v,
			 size_t n)
{
	printf("[");
	for (size_t i = 0; i < n; i++) {
		printf("%s", i ? ", " : "");
		json_entry(s, lines, v[i]);
	}
	printf("]");
}

/* Marks the loops v uses, nested ones too. */
static void loops_used(const nlr_table *t, const nlr_entry *v, size_t n, unsigned char *seen,
		       int depth)
{
	size_t nt = nlr_table_count(t);
	for (size_t i = 0; i < n; i++) {
		if (!nlr_is_loop(v[i]))
			continue;
		uint32_t id = nlr_loop_id(v[i]);
		if (id >= nt || seen[id] || depth > 64)
			continue;
		seen[id] = 1;
		size_t bn;
		const nlr_entry *b = nlr_table_body(t, id, &bn);
		loops_used(t, b, bn, seen, depth + 1);
	}
}

static const char *const hunk_kind[] = { "same", "only_a", "only_b", "count" };

static void diff_json(store *s, const store_srclines *const lines[2], const nlr_table *t,
		      const char *const run[2], const int p[2], const int th[2],
		      nlr_entry *const v[2], const size_t n[2], const diff_script *ds,
		      const char *filter, const char *blind, const char *found)
{
	diff_row *rows;
	size_t nrows;
	diff_stats st;
	diff_rows(ds, &rows, &nrows, &st);
	free(rows);
	printf("{");
	for (int i = 0; i < 2; i++) {
		printf("%s\n \"%s\": {\"run\": ", i ? "," : "", i ? "b" : "a");
		cli_json_str(run[i]);
		printf(", \"trace\": \"%d.%d\", \"entries\": ", p[i], th[i]);
		json_entries(s, lines, v[i], n[i]);
		printf("}");
	}
	printf(",\n \"filter\": ");
	cli_json_str(filter);
	printf(", \"filter_blind\": ");
	if (blind)
		cli_json_str(blind);
	else
		printf("null");
	printf(", \"verdict\": ");
	if (found)
		cli_json_str(found);
	else
		printf("null");
	printf(",\n \"changed\": %zu, \"only_a\": %zu, \"only_b\": %zu, \"identical\": %s,",
	       st.count + st.replace, st.left, st.right,
	       st.count + st.replace + st.left + st.right ? "false" : "true");
	printf("\n \"hunks\": [");
	for (size_t i = 0; i < ds->n; i++) {
		const diff_hunk *h = &ds->h[i];
		printf("%s\n  {\"kind\": \"%s\", \"a\": %zu, \"b\": %zu, \"n\": %zu}",
		       i ? "," : "", hunk_kind[h->kind], h->a, h->b, h->n);
	}
	printf("\n ],\n \"loops\": {");
	size_t nt = nlr_table_count(t);
	unsigned char *seen = xcalloc(nt ? nt : 1, 1);
	for (int i = 0; i < 2; i++)
		loops_used(t, v[i], n[i], seen, 0);
	int first = 1;
	for (size_t id = 0; id < nt; id++) {
		if (!seen[id])
			continue;
		size_t bn;
		const nlr_entry *b = nlr_table_body(t, (uint32_t)id, &bn);
		printf("%s\n  \"%zu\": ", first ? "" : ",", id);
		json_entries(s, lines, b, bn);
		first = 0;
	}
	free(seen);
	printf("%s}\n}\n", first ? "" : "\n ");
}

/* The two traces' NLR entries under the analyses of their runs from src (every: under every
 * call), res[i] the analyses, and their edit script. */
static int diff_load(const dg_source *src, int every, char *const run[2], const int p[2],
		     const int t[2], const an_result *res[2], nlr_entry *v[2], size_t n[2],
		     diff_script *ds, dt_err *e)
{
	an_params sp = src->p;
	if (every)
		al_every(&src->p, &sp);
	for (int i = 0; i < 2; i++) {
		if (al_get(src->cache, run[i], &sp, &res[i], e) < 0)
			return -1;
		if (trace_entries(src->cache->s, res[i], p[i], t[i], run[i], &v[i], &n[i], e))
			return -1;
	}
	return diff_nlr(v[0], n[0], v[1], n[1], NULL, ds, e);
}

/* A trace K folds nothing in, though a larger K would: said on stderr (nlr_suggest_k). */
static void diff_k_hints(nlr_table *loops, char *const run[2], const int p[2], const int t[2],
			 const an_result *const res[2], nlr_entry *const v[2], const size_t n[2])
{
	for (int i = 0; i < 2; i++) {
		size_t body;
		dt_err ign;
		dt_err_clear(&ign);
		unsigned kk = nlr_suggest_k(loops, v[i], n[i], (unsigned)res[i]->meta.k, NLR_KMAX,
					    SUGGEST_MAX_EVENTS, &body, &ign);
		if (kk)
			fprintf(stderr,
				"difftrace diff: K %d folds nothing in %s %d.%d, but it repeats a body "
				"of %zu calls: -K %u folds it\n",
				res[i]->meta.k, run[i], p[i], t[i], body, kk);
	}
}

int cmd_diff(cli *c, int argc, char **argv)
{
	static const struct option own[] = {
		{ "help", no_argument, 0, 'h' },       { "side-by-side", no_argument, 0, 'y' },
		{ "unified", no_argument, 0, 'u' },    { "format", required_argument, 0, 'F' },
		{ "expand", no_argument, 0, 'E' },     { "fold", no_argument, 0, 'L' },
		{ "width", required_argument, 0, 'W' }, { "color", optional_argument, 0, 'C' },
		{ "colour", optional_argument, 0, 'C' }, { "all", no_argument, 0, 'a' },
		{ "context", required_argument, 0, 'X' }, { 0, 0, 0, 0 },
	};
	cli_an a;
	cli_an_init(&a);
	struct diff_cli d = { 'y', 0, -1, { 0 } };
	diff_render_opts_init(&d.r);
	const char *cols = getenv("COLUMNS");
	if (cols && atoi(cols) >= 40)
		d.r.width = atoi(cols);
	int r = parse(argc, argv, "diff", diff_help, own, ":hK:yuaW:", &a, diff_opt, &d);
	if (r == CLI_HELP_DONE)
		return 0;
	if (r)
		return r;
	if (argc - optind != 2)
		return cli_usage("diff", "needs two traces, RUN:P.T RUN:P.T");
	d.r.color = cli_use_color(d.color);
	d.r.changes = !d.all && !d.r.fold; /* --fold shows every entry, folded */
	setlocale(LC_CTYPE, "");
	const char *cs = nl_langinfo(CODESET);
	d.r.cut = cs && !strcmp(cs, "UTF-8") ? "\xe2\x80\xa6" : "~";
	char *run[2];
	int p[2], t[2];
	for (int i = 0; i < 2; i++) {
		const char *arg = argv[optind + i];
		const char *colon = strrchr(arg, ':');
		if (!colon || colon == arg || cli_parse_pt(colon + 1, &p[i], &t[i]))
			return cli_usage("diff", "'%s' is not RUN:P.T (e.g. normal:3.0)", arg);
		run[i] = xstrndup(arg, (size_t)(colon - arg));
	}
	dt_err e;
	dt_err_clear(&e);
	store *s = NULL;
	const an_result *res[2];
	nlr_entry *v[2] = { NULL, NULL };
	size_t n[2] = { 0, 0 };
	nlr_table *loops = NULL;
	diff_script ds = { 0 };
	store_srclines *lines[2] = { NULL, NULL };
	int rc = 1;
	al_cache cache;
	al_cache_init(&cache, NULL);
	const dg_source src = { &cache, a.p, 1, 0 };
	dg_diff dd = { 0 };
	if (cli_open_store(c, STORE_OPEN_EXISTING, &s, &e))
		goto out;
	cli_an_cache(s, &cache);
	/* No filter asked for: the setting the diagnosis chooses (diagnosis.h), as rank ranks the
	 * traces: every call when the filter sees no difference, and what the verdict found of
	 * traces whose calls are alike under every filter. */
	if (!a.p.filter && !a.p.nfilter_files) {
		const char *const rr[2] = { run[0], run[1] };
		if (dg_diff_setting(s, &src, rr, p, t, a.p.linkage, 1, &dd, &e) != 1)
			goto out;
	}
	if (diff_load(&src, dd.every, run, p, t, res, v, n, &ds, &e))
		goto out;
	const char *blind = dd.blind[0] ? dd.blind : NULL;
	const char *found = dd.found[0] ? dd.found : NULL;
	if (!(loops = store_loops(s, &e)))
		goto out;
	diff_k_hints(loops, run, p, t, res, v, n);
	char la[160], lb[160], en[2][128];
	snprintf(la, sizeof la, "%s %d.%d", esc_str(run[0], en[0], sizeof en[0]), p[0], t[0]);
	snprintf(lb, sizeof lb, "%s %d.%d", esc_str(run[1], en[1], sizeof en[1]), p[1], t[1]);
	/* colour codes must reach the terminal: the names in the diff are escaped already */
	if (d.r.color && d.style != 'j')
		cli_raw_stdout(c);
	for (int i = 0; i < 2; i++)
		if (store_srclines_load(s, res[i]->meta.run_id, &lines[i], &e))
			goto out;
	struct two ctx = { s, loops, { lines[0], lines[1] }, { 0 } };
	d.r.label_a = la;
	d.r.label_b = lb;
	d.r.name = two_name;
	d.r.loop_body = two_body;
	d.r.ctx = &ctx;
	if (blind && d.style != 'j')
		printf("# filter %s sees no difference between these traces; every call does: shown "
		       "under filter " AN_FALLBACK_FILTER " (as rank ranks them; --filter chooses)\n",
		       esc_str(blind, en[0], sizeof en[0]));
	if (found && d.style != 'j' && d.style != 'y')
		printf("# %s\n", found); /* side by side: in its header, for "identical" */
	d.r.same = found;
	if (d.style == 'j') {
		const char *const rn[2] = { run[0], run[1] };
		diff_json(s, (const store_srclines *const *)lines, loops, rn, p, t, v, n, &ds,
			  res[0]->filter_alias, blind, found);
		if (ferror(stdout)) {
			dt_errf(&e, DT_EDATA, "cannot write the diff: output error");
			goto out;
		}
		rc = 0;
		goto out;
	}
	int w = d.style == 'u'   ? diff_render_unified(stdout, v[0], v[1], &ds, &d.r, &e)
		: d.style == 'd' ? diff_render_dot(stdout, v[0], v[1], &ds, &d.r, &e)
				 : diff_render_side(stdout, v[0], v[1], &ds, &d.r, &e);
	if (w)
		goto out;
	rc = 0;
out:
	store_srclines_free(lines[0]);
	store_srclines_free(lines[1]);
	diff_script_free(&ds);
	for (int i = 0; i < 2; i++) {
		free(v[i]);
		free(run[i]);
	}
	al_cache_free(&cache);
	nlr_table_free(loops);
	store_close(s);
	return rc ? cli_fail(&e) : 0;
}

/* ---- rank ---- */

struct rank_opts {
	const char *normal, *faulty, *run;
	uint64_t top;
	int sweep;
	const char *sfilters, *sattrs, *sk;
	int fmt;  /* 't' text, 'c' csv, 'j' json */
	int jsmd; /* --score jsmd or jsmd-self: by JSM_D row sums */
	int self; /* --score jsmd-self: each row sum plus the trace's own change */
};

static int rank_opt(void *ud, int o, const char *arg)
{
	struct rank_opts *ro = ud;
	switch (o) {
	case 'N':
		ro->normal = arg;
		break;
	case 'Z':
		ro->faulty = arg;
		break;
	case 'R':
		ro->run = arg;
		break;
	case 'T':
		if (cli_parse_u64(arg, &ro->top) || ro->top < 1 || ro->top > 100000)
			return cli_usage("rank", "--top takes a positive number, not '%s'", arg);
		break;
	case 'S':
		ro->sweep = 1;
		break;
	case 'f':
		ro->sfilters = arg;
		break;
	case 'a':
		ro->sattrs = arg;
		break;
	case 'k':
		ro->sk = arg;
		break;
	case 'F':
		if (!strcmp(arg, "text") || !strcmp(arg, "csv") || !strcmp(arg, "json"))
			ro->fmt = arg[0] == 't' ? 't' : arg[0] == 'c' ? 'c' : 'j';
		else
			return cli_usage("rank", "unknown format '%s' (text, csv, json)", arg);
		break;
	case 'B':
		if (!strcmp(arg, "combined") || !strcmp(arg, "jsmd") || !strcmp(arg, "jsmd-self")) {
			ro->jsmd = arg[0] == 'j';
			ro->self = !strcmp(arg, "jsmd-self");
		} else {
			return cli_usage("rank", "unknown score '%s' (combined, jsmd, jsmd-self)", arg);
		}
		break;
	}
	return 0;
}

static void print_keys(const char *what, const rank_key *k, size_t n)
{
	if (!n)
		return;
	printf("%s:", what);
	for (size_t i = 0; i < n; i++)
		printf(" %d.%d", k[i].proc, k[i].thread);
	putchar('\n');
}

/* What the cache cannot answer: JSM_D's own order of every trace (--score jsmd), more pairs
 * than it keeps. Then JSM_D is kept whole in the ranking's k.j. */
static int needs_matrix(const struct rank_opts *ro)
{
	return ro->jsmd || ro->top > RANK_CACHE_PAIRS;
}

static const char *change_word(int c)
{
	return c == VD_DIVERGED ? "diverged" : c == VD_STOPPED ? "stopped-early" : "identical";
}

/* What the hang-safe record says of a trace (verdict.h's tier). */
static const char *tier_word(int t)
{
	return t == 2 ? "broke-pattern" : t == 1 ? "waited-for" : "";
}

static void rank_rows_out(store *s, const dg_ranked *r, const store_sites *sites, size_t top,
			  int fmt)
{
	const vd_rank *v = &r->k.v;
	size_t m = top < v->n ? top : v->n;
	char why[512];
	if (fmt == 't')
		printf("%4s  %-9s  %9s  %-10s  %s\n", "#", "trace", "score", "kept", "what changed");
	else if (fmt == 'c')
		printf("position,trace,score,jsmd_row_sum,change,kept_normal,kept_faulty,"
		       "diverges_at,running,hang_record,reason\n");
	else
		printf("  \"traces\": [");
	for (size_t q = 0; q < m; q++) {
		const vd_item *x = &v->it[q];
		rank_key k = r->k.j.keys[x->i];
		char t[32], pos[32], kept[64];
		snprintf(t, sizeof t, "%d.%d", k.proc, k.thread);
		int tied = (q && v->it[q - 1].pos == x->pos) ||
			   (q + 1 < v->n && v->it[q + 1].pos == x->pos);
		snprintf(pos, sizeof pos, "%zu%s", x->pos, tied ? "=" : "");
		snprintf(kept, sizeof kept, "%llu->%llu", (unsigned long long)x->kept_n,
			 (unsigned long long)x->kept_f);
		vd_reason_sites(s, x, sites, why, sizeof why);
		if (fmt == 't') {
			printf("%4s  %-9s  %9.3f  %-10s  %s\n", pos, t, x->score, kept, why);
		} else if (fmt == 'c') {
			printf("%zu,%s,%.6f,%.6f,%s,%llu,%llu,%llu,%d,%s,", x->pos, t, x->score,
			       x->rowsum, change_word(x->change), (unsigned long long)x->kept_n,
			       (unsigned long long)x->kept_f, (unsigned long long)x->at, x->running,
			       tier_word(x->tier));
			cli_csv_str(why);
			putchar('\n');
		} else {
			printf("%s\n    {\"position\": %zu, \"tied\": %s, \"trace\": \"%s\", "
			       "\"score\": %.6f, \"jsmd_row_sum\": %.6f, \"change\": \"%s\", "
			       "\"kept_normal\": %llu, \"kept_faulty\": %llu, \"diverges_at\": %llu, "
			       "\"running\": %s, \"hang_record\": %s%s%s, \"site\": ",
			       q ? "," : "", x->pos, tied ? "true" : "false", t, x->score, x->rowsum,
			       change_word(x->change), (unsigned long long)x->kept_n,
			       (unsigned long long)x->kept_f, (unsigned long long)x->at,
			       x->running ? "true" : "false", x->tier ? "\"" : "",
			       x->tier ? tier_word(x->tier) : "null", x->tier ? "\"" : "");
			cli_site_json_value(sites, vd_change_site(x));
			printf(", \"reason\": ");
			cli_json_str(why);
			putchar('}');
		}
	}
	if (fmt == 'j')
		printf("%s]", m ? "\n  " : "");
}

static void keys_json(const char *name, const rank_key *k, size_t n)
{
	printf(",\n  \"%s\": [", name);
	for (size_t i = 0; i < n; i++)
		printf("%s\"%d.%d\"", i ? ", " : "", k[i].proc, k[i].thread);
	putchar(']');
}

/* What the renderers of a ranking of two runs share (rank_two). */
struct rank_view {
	store *s;
	const cli_an *a;
	const struct rank_opts *ro;
	const dg_verdict *dv;
	const dg_ranked *use;       /* the ranking shown */
	const store_sites *sites;   /* the faulty run's call sites */
	const char *blind;          /* the filter that saw nothing, when ranked under every call */
	const char *own_calls;      /* the filter whose dropped calls ordered the classes */
	size_t n, top;
	int none;
	double b;
	char setting[256];
};

/* ,"key": {"what": text, "traces": n}, or null when there is none (have 0) */
static void json_common(const char *key, const char *what, const char *text, int have, size_t n)
{
	printf(",\n  \"%s\": ", key);
	if (!have) {
		printf("null");
		return;
	}
	printf("{\"%s\": ", what);
	cli_json_str(text);
	printf(", \"traces\": %zu}", n);
}

static void rank_json(const struct rank_view *r)
{
	const rk_rank *k = &r->use->k; /* the ranking shown */
	printf("{\n  \"normal\": ");
	cli_json_str(r->ro->normal);
	printf(",\n  \"faulty\": ");
	cli_json_str(r->ro->faulty);
	printf(",\n  \"filter\": ");
	cli_json_str(r->use->rn->filter_alias);
	printf(",\n  \"attributes\": ");
	cli_json_str(r->use->rn->meta.attrs);
	printf(",\n  \"k\": %d,\n  \"score\": \"%s\",\n  \"matched\": %zu,\n  "
	       "\"differing\": %zu,\n  \"difference_found\": %s,\n  \"filter_blind\": ",
	       r->use->rn->meta.k,
	       r->ro->self ? "jsmd-self" : r->ro->jsmd ? "jsmd" : "combined", r->n,
	       k->v.ndiff,
	       r->none ? "false" : "true");
	if (r->blind)
		cli_json_str(r->blind);
	else
		printf("null");
	printf(",\n  \"other_calls_compared\": %s", r->own_calls ? "true" : "false");
	printf(",\n  \"time_changed\": %zu", k->v.nslow);
	printf(",\n  \"data_changed\": %zu", k->v.ndata);
	char cc[1024] = "";
	if (k->v.ncommon)
		vd_common_text(r->s, &k->v, cc, sizeof cc);
	json_common("common_change", "calls", cc, k->v.ncommon != 0, k->v.ncommon);
	if (k->v.args.n)
		vd_args_text(r->s, &k->v.args, cc, sizeof cc);
	json_common("common_args", "change", cc, k->v.args.n != 0, k->v.nargs);
	if (k->v.nown_common)
		vd_cc_text(r->s, &k->v.own_common, cc, sizeof cc);
	json_common("common_own_change", "calls", cc, k->v.nown_common != 0, k->v.nown_common);
	if (isnan(r->b))
		printf(",\n  \"bscore\": null");
	else
		printf(",\n  \"bscore\": %.6f", r->b);
	keys_json("only_normal", k->j.only_normal, k->j.n_only_normal);
	keys_json("only_faulty", k->j.only_faulty, k->j.n_only_faulty);
	printf(",\n");
	rank_rows_out(r->s, r->use, r->sites, r->none ? 0 : r->top, 'j');
	printf("\n}\n");
}

static int rank_text(const struct rank_view *r, dt_err *e)
{
	const rk_rank *k = &r->use->k; /* the ranking shown */
	printf("# %s against %s: filter %s, attributes %s, K %d, %zu traces matched\n",
	       r->ro->faulty, r->ro->normal, r->use->rn->filter_alias, r->use->rn->meta.attrs,
	       r->use->rn->meta.k, r->n);
	print_keys("only in the normal run", k->j.only_normal, k->j.n_only_normal);
	print_keys("only in the faulty run", k->j.only_faulty, k->j.n_only_faulty);
	if (r->none && k->j.n_running)
		printf("# the faulty run was stopped: %zu trace%s still running then, %.1f s after "
		       "the others went quiet (blocked)\n",
		       k->j.n_running, k->j.n_running == 1 ? "" : "s", k->j.quiet);
	if (r->none) {
		printf("no difference found under %s: every trace's kept events are identical to its "
		       "counterpart's%s\n",
		       r->setting,
		       r->dv->own_only
			       ? "; the program's own functions differ (filter everything: the "
				 "default --score combined ranks by them)"
		       : r->dv->every_same ? ", and so are all their calls (filter everything)"
				   : "");
		return 0;
	}
	if (r->blind)
		printf("# filter %s sees no difference; the program's own functions do: ranked under "
		       "filter everything\n",
		       r->blind);
	if (k->v.ndata)
		printf("# no calls differ; %zu trace%s sent other data or passed other arguments "
		       "(sync record): the first to change, in causal order, first\n",
		       k->v.ndata, k->v.ndata == 1 ? "" : "s");
	if (k->v.nslow)
		printf("# %s; %zu trace%s took longer than %s peers in a function of %s "
		       "own (its time against the normal run, beyond the factor of the other traces "
		       "with that function)\n",
		       k->v.all_input ? "no calls differ but as the input changed them"
				      : "no calls differ",
		       k->v.nslow, k->v.nslow == 1 ? "" : "s",
		       k->v.nslow == 1 ? "its" : "their", k->v.nslow == 1 ? "its" : "their");
	if (k->v.ncommon) {
		char cc[512];
		vd_common_text(r->s, &k->v, cc, sizeof cc);
		printf("# %zu trace%s changed only as %s peers did (%s): a changed input, ranked "
		       "after the traces that changed more\n",
		       k->v.ncommon, k->v.ncommon == 1 ? "" : "s",
		       k->v.ncommon == 1 ? "its" : "their", cc);
	}
	if (k->v.args.n) {
		char cc[1024];
		vd_args_text(r->s, &k->v.args, cc, sizeof cc);
		printf("# every trace that makes these calls changed their arguments alike (%s): a "
		       "changed input, left out of each trace's comparison (%zu trace%s differed by "
		       "it)\n",
		       cc, k->v.nargs, k->v.nargs == 1 ? "" : "s");
	}
	if (r->own_calls)
		printf("# filter %s does not single out a trace (%s): the traces whose other calls "
		       "(filter everything) differ too come first in each class\n",
		       r->own_calls,
		       k->v.ndiff == r->n ? "every trace differs" : "the first place is tied");
	if (k->v.nown_common) {
		char cc[512];
		vd_cc_text(r->s, &k->v.own_common, cc, sizeof cc);
		printf("# the other calls of %zu trace%s changed only as %s peers' did (%s): a "
		       "changed input, left out of their comparison\n",
		       k->v.nown_common, k->v.nown_common == 1 ? "" : "s",
		       k->v.nown_common == 1 ? "its" : "their", cc);
	}
	if (isnan(r->b))
		printf("# B-score: - (fewer than 3 matched traces)\n");
	else
		printf("# B-score (Fowlkes-Mallows, mean over k = 2..%zu, %s linkage): %.3f%s\n",
		       r->n - 1,
		       r->a->p.linkage == CLU_WARD ? "ward" : clu_linkage_name(r->a->p.linkage), r->b,
		       r->b > 0.999 && k->v.ndiff
			       ? " (the clusterings agree, yet kept events differ)"
			       : "");
	if (k->j.n_running)
		printf("# the faulty run was stopped: %zu trace%s still running then, %.1f s after "
		       "the others went quiet (blocked)%s\n",
		       k->j.n_running, k->j.n_running == 1 ? "" : "s", k->j.quiet,
		       r->ro->jsmd ? (k->j.n_running == 1 ? ", comes first" : ", come first") : "");
	if (r->ro->jsmd) {
		printf("\nmost changed traces (%s; ties share a position, marked =):\n",
		       r->ro->self ? "row sum of JSM_D plus the trace's own change"
				   : "row sum of JSM_D");
	} else {
		printf("# %zu of %zu traces differ in their kept events%s\n", k->v.ndiff, r->n,
		       k->v.ndiff == r->n ? "" : "; the others score 0");
		int tiers = 0;
		for (size_t q = 0; q < k->v.n; q++)
			tiers |= k->v.it[q].tier != 0;
		printf("\nmost changed traces (%sdiverged, then stopped early, %sthen by score; ties "
		       "share a position, marked =):\n",
		       tiers ? "the hang-safe record's pattern broken, then waited for, then " : "",
		       r->own_calls ? "each with its other calls changed first, " : "");
	}
	rank_rows_out(r->s, r->use, r->sites, r->top, 't');
	size_t np = r->top < r->dv->npairs ? r->top : r->dv->npairs;
	printf("\nmost changed pairs (JSM_D):\n");
	return rank_pairs_render(stdout, r->dv->pairs, np, k->j.keys, e) ? -1 : 0;
}

/* The faulty run's call sites, and the sites of the kept events where the first top traces of
 * the ranking diverged (vd_fill_sites). */
static int rank_sites(store *s, const char *faulty, dg_ranked *use, size_t top, store_sites *out,
		      dt_err *e)
{
	store_run run;
	if (store_run_get_lite(s, faulty, &run, e))
		return -1;
	int rc = store_sync_sites(s, run.id, out, e);
	if (!rc && out->n && top)
		rc = vd_fill_sites(s, use->rf, run.format ? run.format : "", use->k.j.keys,
				   use->k.v.it, top < use->k.v.n ? top : use->k.v.n, e);
	store_run_free(&run);
	return rc;
}

static int rank_two(store *s, cli_an *a, const struct rank_opts *ro, dt_err *e)
{
	al_cache cache;
	cli_an_cache(s, &cache);
	const dg_source from = { &cache, a->p, 1, 0 };
	const dg_opts o = { .normal = ro->normal, .faulty = ro->faulty, .linkage = a->p.linkage,
			    .jsmd = ro->jsmd, .self = ro->self, .matrix = needs_matrix(ro), .keep = 1,
			    .pairs = (size_t)ro->top };
	dg_verdict dv;
	if (dg_rank(s, &from, &o, &dv, e) != 1) {
		al_cache_free(&cache);
		return -1;
	}
	dg_ranked *use = dv.use == &dv.every ? &dv.every : &dv.set;
	store_sites sites = { 0 };
	struct rank_view r = { s, a, ro, &dv, use, &sites, dv.blind[0] ? dv.blind : NULL,
			       dv.other[0] ? dv.other : NULL, use->k.j.n, 0, dv.none,
			       use->k.bscore, "" };
	r.top = ro->top < r.n ? (size_t)ro->top : r.n;
	if (rank_sites(s, ro->faulty, use, r.none ? 0 : r.top, &sites, e)) {
		dg_free(&dv);
		al_cache_free(&cache);
		return -1;
	}
	snprintf(r.setting, sizeof r.setting, "%s/%s", use->rn->filter_alias,
		 use->rn->meta.attrs);
	int rc = 0;
	if (ro->fmt == 'j')
		rank_json(&r);
	else if (ro->fmt == 'c')
		rank_rows_out(s, use, &sites, r.none ? 0 : r.top, 'c');
	else
		rc = rank_text(&r, e);
	store_sites_free(&sites);
	dg_free(&dv);
	al_cache_free(&cache);
	if (!rc && ferror(stdout))
		rc = dt_errf(e, DT_EDATA, "cannot write the ranking: output error");
	return rc;
}

static int rank_one(store *s, cli_an *a, const struct rank_opts *ro, dt_err *e)
{
	an_result r;
	if (cli_an_get(a, s, ro->run, &r, e))
		return -1;
	rank_outlier *o = xmalloc((r.n ? r.n : 1) * sizeof *o);
	rank_key *k = analysis_keys(&r);
	int rc = dg_outliers(&r, o, e);
	if (!rc) {
		printf("# outliers of run %s: filter %s, attributes %s, K %d, %zu clusters (%s)\n",
		       ro->run, r.filter_alias, r.meta.attrs, r.meta.k, r.kcut, r.linkage);
		size_t top = ro->top < r.n ? (size_t)ro->top : r.n;
		rc = rank_outliers_render(stdout, o, top, k, e);
	}
	free(k);
	free(o);
	analysis_result_free(&r);
	return rc;
}

static char **split(const char *s, char sep, size_t *n)
{
	char **v = NULL;
	*n = 0;
	const char *p = s;
	for (;;) {
		const char *q = strchr(p, sep);
		size_t len = q ? (size_t)(q - p) : strlen(p);
		if (len) {
			v = xrealloc(v, (*n + 1) * sizeof *v);
			v[(*n)++] = xstrndup(p, len);
		}
		if (!q)
			break;
		p = q + 1;
	}
	return v;
}

static void free_split(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static int rank_sweep(store *s, cli_an *a, const struct rank_opts *ro, dt_err *e)
{
	size_t nf, na, nk;
	char **fs = split(ro->sfilters ? ro->sfilters : "everything;mpi;mpicol;ompall;mpi,ompall",
			  ';', &nf);
	char **as = split(ro->sattrs ? ro->sattrs
				     : "sing.orig,sing.log10,sing.actual,doub.orig,doub.log10,"
				       "doub.actual",
			  ',', &na);
	char **ks = split(ro->sk ? ro->sk : "10", ',', &nk);
	size_t shown = ro->top < RANK_TOP_MAX ? (size_t)ro->top : RANK_TOP_MAX;
	sw_opts so = { a->p.linkage, ro->self, shown, shown };
	size_t cap = nf * na * nk, nrows = 0, nsame = 0;
	rank_row *rows = xcalloc(cap ? cap : 1, sizeof *rows);
	char **names = xcalloc(cap ? cap * 2 : 1, sizeof *names);
	int rc = -1;
	for (size_t i = 0; i < nk; i++) {
		uint64_t k;
		if (cli_parse_u64(ks[i], &k) || k < 1 || k > 32) {
			dt_errf(e, DT_EUSAGE, "--sweep-k: '%s' is not a K from 1 to 32", ks[i]);
			goto out;
		}
	}
	for (size_t i = 0; i < na; i++) {
		attrs_mode m;
		if (attrs_mode_parse(as[i], &m, e))
			goto out;
	}
	for (size_t fi = 0; fi < nf; fi++)
		for (size_t ai = 0; ai < na; ai++)
			for (size_t ki = 0; ki < nk; ki++) {
				cli_an b = *a;
				b.p.filter_files = b.files;
				b.p.filter = fs[fi];
				attrs_mode_parse(as[ai], &b.p.mode, e);
				b.p.k = (unsigned)atoi(ks[ki]);
				an_result rn, rf;
				if (cli_an_get(&b, s, ro->normal, &rn, e))
					goto out;
				if (cli_an_get(&b, s, ro->faulty, &rf, e)) {
					analysis_result_free(&rn);
					goto out;
				}
				rank_row *row = &rows[nrows];
				names[2 * nrows] = xstrdup(rn.filter_alias);
				names[2 * nrows + 1] = xstrdup(rn.meta.attrs);
				row->filter = names[2 * nrows];
				row->attrs = names[2 * nrows + 1];
				nrows++;
				int bad = sw_row(s, &rn, &rf, &so, row, NULL, e);
				nsame += !bad && row->empty == RANK_ROW_SAME;
				analysis_result_free(&rn);
				analysis_result_free(&rf);
				if (bad)
					goto out;
			}
	rank_rows_sort(rows, nrows);
	printf("# ranking table: %s against %s, %zu settings, lowest B-score first; each setting's "
	       "most changed processes and threads by JSM_D row sum%s, with their scores, tied ones "
	       "in [brackets] (+N: N more tied, not listed)\n",
	       ro->faulty, ro->normal, nrows, ro->self ? " plus the trace's own change" : "");
	rc = rank_rows_render(stdout, rows, nrows, e);
	if (!rc && nrows && nsame == nrows)
		printf("no difference found under any of the %zu settings: every trace's kept "
		       "events are identical to its counterpart's\n",
		       nrows);
out:
	for (size_t i = 0; i < 2 * nrows; i++)
		free(names[i]);
	free(names);
	free(rows);
	free_split(fs, nf);
	free_split(as, na);
	free_split(ks, nk);
	return rc;
}

int cmd_rank(cli *c, int argc, char **argv)
{
	static const struct option own[] = {
		{ "help", no_argument, 0, 'h' },
		{ "normal", required_argument, 0, 'N' },
		{ "faulty", required_argument, 0, 'Z' },
		{ "run", required_argument, 0, 'R' },
		{ "top", required_argument, 0, 'T' },
		{ "sweep", no_argument, 0, 'S' },
		{ "sweep-filters", required_argument, 0, 'f' },
		{ "sweep-attrs", required_argument, 0, 'a' },
		{ "sweep-k", required_argument, 0, 'k' },
		{ "format", required_argument, 0, 'F' },
		{ "score", required_argument, 0, 'B' },
		{ 0, 0, 0, 0 },
	};
	cli_an a;
	cli_an_init(&a);
	struct rank_opts ro = { .top = 10, .fmt = 't' };
	int r = parse(argc, argv, "rank", rank_help, own, ":hK:", &a, rank_opt, &ro);
	if (r == CLI_HELP_DONE)
		return 0;
	if (r)
		return r;
	/* NORMAL FAULTY as diff and the interface's :rank take them */
	if (argc - optind == 2 && !ro.normal && !ro.faulty && !ro.run) {
		ro.normal = argv[optind++];
		ro.faulty = argv[optind++];
	}
	if (optind < argc)
		return cli_usage("rank", "unexpected argument '%s'%s", argv[optind],
				 argc - optind == 1 && !ro.run
					 ? " (two runs: NORMAL FAULTY, or --normal and --faulty; "
					   "one: --run RUN)"
					 : "");
	if (ro.run && (ro.normal || ro.faulty || ro.sweep))
		return cli_usage("rank", "--run (one run) goes without --normal, --faulty, --sweep");
	if (ro.fmt != 't' && (ro.run || ro.sweep))
		return cli_usage("rank", "--format csv and json are for the ranking of two runs, "
					 "not --run or --sweep");
	if (!ro.run && (!ro.normal || !ro.faulty))
		return cli_usage("rank", "needs --normal RUN and --faulty RUN (or --run RUN)");
	dt_err e;
	dt_err_clear(&e);
	store *s;
	if (cli_open_store(c, STORE_OPEN_EXISTING, &s, &e))
		return cli_fail(&e);
	int rc = ro.run ? rank_one(s, &a, &ro, &e)
		 : ro.sweep ? rank_sweep(s, &a, &ro, &e)
			    : rank_two(s, &a, &ro, &e);
	store_close(s);
	return rc ? cli_fail(&e) : 0;
}
