/* cli_analyze.c: `difftrace analyze`, `classes`, `jsm` and `lattice`: computing a run's
 * analysis and reading its similarity matrix, equivalence classes and concept lattice. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/an_split.h"
#include "cli/cli_analysis.h"
#include "cli/cli_par.h"
#include "util/ptrange.h"
#include "util/util.h"

static const char analyze_help[] =
	"usage: difftrace analyze [OPTIONS] RUN...\n"
	"\n"
	"Filter every trace of each RUN, compress it into nested loops (NLR), extract its\n"
	"attributes, and compute the Jaccard similarity matrix, the equivalence classes and the\n"
	"concept lattice; cache it all in the store (one transaction per run). The other analysis\n"
	"commands read the cache, computing it first when it is missing. Under mpirun or srun\n"
	"with more than one process the per-trace work is split among the processes and process\n"
	"0 writes the store (see the manual).\n"
	"\n"
	"  -h, --help            this help\n"
	"\n";

static const char classes_help[] =
	"usage: difftrace classes [OPTIONS] [--by identical|cluster] [--format text|csv|json] RUN\n"
	"\n"
	"The equivalence classes of RUN's traces: traces with identical attribute sets, and the\n"
	"clusters of the hierarchical clustering on 1 - Jaccard, with compact P.T ranges.\n"
	"\n"
	"  --by WHAT             identical or cluster (default: both, in two sections)\n"
	"  --format FMT          text (default), csv or json\n"
	"  -h, --help            this help\n"
	"\n";

/* The most traces whose matrix `jsm` prints without --all: a million numbers, 7 MB of text. */
#define JSM_PRINT_MAX 1000

static const char jsm_help[] =
	"usage: difftrace jsm [OPTIONS] [--format text|csv|json] RUN\n"
	"\n"
	"The Jaccard similarity matrix of RUN's traces, rows and columns labelled P.T. A run of\n"
	"more than 1,000 traces is refused without --all: its matrix grows as the square of\n"
	"the traces (100,000 traces: 70 GB of text); 'difftrace classes RUN' lists its classes\n"
	"of identical traces, and the interface's matrix view pages through it.\n"
	"\n"
	"  --all                 print the matrix however many traces the run has\n"
	"  --format FMT          text (default), csv, or json (an object: run, filter,\n"
	"                        attrs, traces as P.T labels, matrix as rows of numbers)\n"
	"  -h, --help            this help\n"
	"\n";

static const char lattice_help[] =
	"usage: difftrace lattice [OPTIONS] [--format text|dot] RUN\n"
	"\n"
	"The concept lattice of RUN's traces and attributes: one concept per line (id, the traces\n"
	"of its extent as P.T ranges, its intent), or a Graphviz graph with --format dot.\n"
	"\n"
	"  --format FMT          text (default) or dot\n"
	"  -h, --help            this help\n"
	"\n";

struct verb {
	const char *name, *help;
	const struct option *own;
};

/* Parses a verb's options; *fmt gets --format, *by --by, *all --all. Returns 0,
 * CLI_HELP_DONE or 2. */
static int parse(int argc, char **argv, const struct verb *v, cli_an *a, const char **fmt,
		 const char **by, int *all)
{
	struct option lo[24];
	cli_an_join(v->own, lo);
	char *help = xmalloc(strlen(v->help) + strlen(cli_an_help) + 1);
	strcpy(help, v->help);
	strcat(help, cli_an_help);
	int o, r;
	while ((r = cli_getopt(argc, argv, ":hK:", lo, &o, v->name, help)) == 0 && o != -1) {
		int x = cli_an_option(a, v->name, o, optarg);
		if (x == 1)
			continue;
		if (x) {
			r = x;
			break;
		}
		if (o == 'F' && fmt)
			*fmt = optarg;
		else if (o == 'B' && by)
			*by = optarg;
		else if (o == 'A' && all)
			*all = 1;
	}
	free(help);
	return r;
}

static const struct option no_opts[] = { { "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 } };
static const struct option fmt_opts[] = {
	{ "help", no_argument, 0, 'h' },
	{ "format", required_argument, 0, 'F' },
	{ 0, 0, 0, 0 },
};
static const struct option jsm_opts[] = {
	{ "help", no_argument, 0, 'h' },
	{ "format", required_argument, 0, 'F' },
	{ "all", no_argument, 0, 'A' },
	{ 0, 0, 0, 0 },
};
static const struct option classes_opts[] = {
	{ "help", no_argument, 0, 'h' },
	{ "format", required_argument, 0, 'F' },
	{ "by", required_argument, 0, 'B' },
	{ 0, 0, 0, 0 },
};

/* Opens the store and gets RUN's analysis (computing it when it is not cached). On failure it
 * prints the error and returns the exit status; *s is then closed. */
/* Opens the store and the analysis of the verb's one RUN, argv[optind]. */
static int open_analysis(cli *c, const cli_an *a, const char *verb, int argc, char **argv,
			 store **s, an_result *r)
{
	if (optind != argc - 1)
		return cli_usage(verb, optind >= argc ? "which RUN?" : "one RUN at a time");
	const char *run = argv[optind];
	dt_err e;
	dt_err_clear(&e);
	if (cli_open_store(c, STORE_OPEN_EXISTING, s, &e))
		return cli_fail(&e);
	if (cli_an_get(a, *s, run, r, &e)) {
		store_close(*s);
		return cli_fail(&e);
	}
	return 0;
}

static char *pt_label(const store_trace *t)
{
	char b[32];
	snprintf(b, sizeof b, "%d.%d", t->proc, t->thread);
	return xstrdup(b);
}

static int analyze_runs(cli *c, const cli_an *ap, int argc, char **argv);

int cmd_analyze(cli *c, int argc, char **argv)
{
	static const struct verb v = { "analyze", analyze_help, no_opts };
	cli_an a;
	cli_an_init(&a);
	int r = parse(argc, argv, &v, &a, NULL, NULL, NULL);
	if (r == CLI_HELP_DONE)
		return 0;
	if (r)
		return r;
	if (optind >= argc)
		return cli_usage("analyze", "which RUN?");
	dt_err e;
	dt_err_clear(&e);
	store *s;
	/* in an MPI job the other processes answer process 0's passes over the traces
	 * (analysis/an_split.h), reading the store, which process 0 alone writes */
	dt_par *job = cli_par_job;
	if (job && job->rank) {
		if (cli_open_store(c, STORE_OPEN_READ, &s, &e))
			s = NULL;
		r = an_split_serve(job, s, &e);
		store_close(s);
		return r;
	}
	a.p.job = job;
	r = analyze_runs(c, &a, argc, argv);
	if (job && an_split_end(job, r, &e)) {
		cli_fail(&e);
		return 1;
	}
	return r;
}

/* Process 0's part (or the whole, outside a job) of `difftrace analyze RUN...`. */
static int analyze_runs(cli *c, const cli_an *ap, int argc, char **argv)
{
	const cli_an a = *ap;
	dt_err e;
	dt_err_clear(&e);
	store *s;
	if (cli_open_store(c, STORE_OPEN_EXISTING, &s, &e))
		return cli_fail(&e);
	for (int i = optind; i < argc; i++) {
		an_result res;
		int reused;
		if (cli_an_get2(&a, s, argv[i], &res, &reused, &e)) {
			store_close(s);
			return cli_fail(&e);
		}
		uint64_t ev = 0, kept = 0;
		for (size_t k = 0; k < res.n; k++) {
			ev += res.traces[k].nevents;
			kept += res.nfiltered[k];
		}
		char x[32], y[32];
		printf("run %s: %zu traces, %s of %s events kept by filter %s (%.*s), attributes %s: "
		       "%zu; %zu classes of identical traces, %zu clusters (%s); analysis %lld (%s)\n",
		       argv[i], res.n, cli_count(kept, x, sizeof x), cli_count(ev, y, sizeof y),
		       res.filter_alias, (int)strcspn(res.meta.filter, "#"), res.meta.filter,
		       res.meta.attrs, res.nattrs, res.nidentical,
		       res.kcut, res.linkage, (long long)res.meta.id, reused ? "cached" : "computed");
		analysis_result_free(&res);
	}
	store_close(s);
	return 0;
}

static void print_classes(const an_result *r, const uint32_t *label, size_t nclasses,
			  const char *kind, int fmt, int *first)
{
	ptr_pt *pts = xmalloc((r->n ? r->n : 1) * sizeof *pts);
	for (uint32_t k = 0; k < nclasses; k++) {
		size_t m = 0;
		for (size_t i = 0; i < r->n; i++)
			if (label[i] == k)
				pts[m++] = (ptr_pt){ (uint32_t)r->traces[i].proc,
						     (uint32_t)r->traces[i].thread };
		char *ranges = ptr_format(pts, m);
		if (fmt == OUT_TEXT) {
			printf("%5u %6zu  %s\n", k, m, ranges);
		} else if (fmt == OUT_CSV) {
			printf("%s,%u,%zu,", kind, k, m);
			cli_csv_str(ranges);
			putchar('\n');
		} else {
			printf("%s\n  {\"by\": \"%s\", \"class\": %u, \"size\": %zu, \"traces\": ",
			       *first ? "" : ",", kind, k, m);
			cli_json_str(ranges);
			printf("}");
			*first = 0;
		}
		free(ranges);
	}
	free(pts);
}

int cmd_classes(cli *c, int argc, char **argv)
{
	static const struct verb v = { "classes", classes_help, classes_opts };
	cli_an a;
	cli_an_init(&a);
	const char *fmts = "text", *by = NULL;
	int r = parse(argc, argv, &v, &a, &fmts, &by, NULL);
	if (r == CLI_HELP_DONE)
		return 0;
	if (r)
		return r;
	int fmt = cli_out_format(fmts);
	if (fmt < 0)
		return cli_usage("classes", "unknown format '%s' (text, csv, json)", fmts);
	if (by && strcmp(by, "identical") && strcmp(by, "cluster"))
		return cli_usage("classes", "--by takes identical or cluster, not '%s'", by);
	store *s;
	an_result res;
	if ((r = open_analysis(c, &a, "classes", argc, argv, &s, &res)))
		return r;
	int first = 1;
	if (fmt == OUT_CSV)
		printf("by,class,size,traces\n");
	else if (fmt == OUT_JSON)
		printf("[");
	if (!by || !strcmp(by, "identical")) {
		if (fmt == OUT_TEXT)
			printf("# run %s, filter %s, attributes %s: %zu classes of traces with identical "
			       "attribute sets\n# CLASS   SIZE  TRACES\n",
			       argv[optind], res.filter_alias, res.meta.attrs, res.nidentical);
		print_classes(&res, res.identical, res.nidentical, "identical", fmt, &first);
	}
	if (!by || !strcmp(by, "cluster")) {
		if (fmt == OUT_TEXT)
			printf("%s# %zu clusters (%s linkage on 1 - Jaccard)\n# CLASS   SIZE  TRACES\n",
			       by ? "" : "\n", res.kcut, res.linkage);
		print_classes(&res, res.cluster, res.kcut, "cluster", fmt, &first);
	}
	if (fmt == OUT_JSON)
		printf("\n]\n");
	analysis_result_free(&res);
	store_close(s);
	return 0;
}

int cmd_jsm(cli *c, int argc, char **argv)
{
	static const struct verb v = { "jsm", jsm_help, jsm_opts };
	cli_an a;
	cli_an_init(&a);
	const char *fmts = "text";
	int all = 0;
	int r = parse(argc, argv, &v, &a, &fmts, NULL, &all);
	if (r == CLI_HELP_DONE)
		return 0;
	if (r)
		return r;
	int fmt = cli_out_format(fmts);
	if (fmt < 0)
		return cli_usage("jsm", "unknown format '%s' (text, csv, json)", fmts);
	store *s;
	an_result res;
	if ((r = open_analysis(c, &a, "jsm", argc, argv, &s, &res)))
		return r;
	if (res.n > JSM_PRINT_MAX && !all) {
		/* each number takes 7 (text), 9 (CSV) or 10 (JSON) bytes */
		uint64_t cells = (uint64_t)res.n * res.n;
		char x[32], y[32];
		cli_usage("jsm",
			  "run '%s' has %zu traces: its matrix is %s numbers, about %s of text; "
			  "add --all to print it, or see 'difftrace classes %s'",
			  argv[optind], res.n, cli_count(cells, x, sizeof x),
			  cli_bytes((int64_t)(cells * (fmt == OUT_TEXT ? 7 : fmt == OUT_CSV ? 9 : 10)),
				    y, sizeof y),
			  argv[optind]);
		analysis_result_free(&res);
		store_close(s);
		return 2;
	}
	if (fmt == OUT_JSON) {
		printf("{\"run\": ");
		cli_json_str(argv[optind]);
		printf(", \"filter\": ");
		cli_json_str(res.filter_alias);
		printf(", \"attrs\": ");
		cli_json_str(res.meta.attrs);
		printf(",\n \"traces\": [");
		for (size_t j = 0; j < res.n; j++) {
			char *l = pt_label(&res.traces[j]);
			printf("%s", j ? ", " : "");
			cli_json_str(l);
			free(l);
		}
		printf("],\n \"matrix\": [");
		for (size_t i = 0; i < res.n; i++) {
			printf("%s\n  [", i ? "," : "");
			for (size_t j = 0; j < res.n; j++)
				printf("%s%.6f", j ? ", " : "", (double)analysis_sim(&res, i, j));
			printf("]");
		}
		printf("\n ]\n}\n");
		analysis_result_free(&res);
		store_close(s);
		return 0;
	}
	if (fmt == OUT_TEXT)
		printf("# Jaccard similarity, run %s, filter %s, attributes %s\n%-7s", argv[optind],
		       res.filter_alias, res.meta.attrs, "");
	else
		printf("pt");
	for (size_t j = 0; j < res.n; j++) {
		char *l = pt_label(&res.traces[j]);
		printf(fmt == OUT_TEXT ? " %6s" : ",%s", l);
		free(l);
	}
	putchar('\n');
	for (size_t i = 0; i < res.n; i++) {
		char *l = pt_label(&res.traces[i]);
		printf(fmt == OUT_TEXT ? "%-7s" : "%s", l);
		free(l);
		for (size_t j = 0; j < res.n; j++)
			printf(fmt == OUT_TEXT ? " %6.3f" : ",%.6f", (double)analysis_sim(&res, i, j));
		putchar('\n');
	}
	analysis_result_free(&res);
	store_close(s);
	return 0;
}

struct lat_names {
	const an_result *r;
};

static const char *lat_obj(void *ud, size_t i, char *scratch, size_t size)
{
	struct lat_names *ln = ud;
	snprintf(scratch, size, "%d.%d", ln->r->traces[i].proc, ln->r->traces[i].thread);
	return scratch;
}

static const char *lat_attr(void *ud, size_t i, char *scratch, size_t size)
{
	struct lat_names *ln = ud;
	(void)scratch;
	(void)size;
	return i < ln->r->nattrs ? ln->r->attr_names[i] : "?";
}

int cmd_lattice(cli *c, int argc, char **argv)
{
	static const struct verb v = { "lattice", lattice_help, fmt_opts };
	cli_an a;
	cli_an_init(&a);
	const char *fmts = "text";
	int r = parse(argc, argv, &v, &a, &fmts, NULL, NULL);
	if (r == CLI_HELP_DONE)
		return 0;
	if (r)
		return r;
	if (strcmp(fmts, "text") && strcmp(fmts, "dot"))
		return cli_usage("lattice", "unknown format '%s' (text, dot)", fmts);
	store *s;
	an_result res;
	if ((r = open_analysis(c, &a, "lattice", argc, argv, &s, &res)))
		return r;
	fca_lattice L;
	char *why = NULL;
	dt_err e;
	dt_err_clear(&e);
	int g = analysis_lattice(s, res.meta.id, &L, &why, &e);
	int rc = 0;
	if (g < 0) {
		rc = cli_fail(&e);
	} else if (g == 0) {
		dt_errf(&e, DT_EDATA, "run %s has no lattice under these parameters: %s", argv[optind],
			why);
		rc = cli_fail(&e);
	} else {
		ptr_pt *pts = xmalloc((res.n ? res.n : 1) * sizeof *pts);
		for (size_t i = 0; i < res.n; i++)
			pts[i] = (ptr_pt){ (uint32_t)res.traces[i].proc, (uint32_t)res.traces[i].thread };
		struct lat_names ln = { &res };
		fca_names nm = { lat_obj, lat_attr, pts, &ln };
		if (!strcmp(fmts, "text"))
			printf("# concept lattice, run %s, filter %s, attributes %s: %zu concepts, %zu "
			       "edges\n",
			       argv[optind], res.filter_alias, res.meta.attrs, L.nconcepts, L.nedges);
		if ((!strcmp(fmts, "dot") ? fca_render_dot(&L, &nm, stdout, &e)
					  : fca_render_text(&L, &nm, stdout, &e)))
			rc = cli_fail(&e);
		free(pts);
		fca_free(&L);
	}
	free(why);
	analysis_result_free(&res);
	store_close(s);
	return rc;
}
