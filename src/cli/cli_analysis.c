/* cli_analysis.c: the shared analysis options and getting a run's analysis. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_analysis.h"
#include "util/progress.h"

enum { O_FILTER = 1000, O_FSTRING, O_FFILE, O_ATTRS, O_K, O_LINKAGE, O_CLUSTERS, O_THREADS,
       O_FORCE };

const struct option cli_an_longopts[] = {
	{ "filter", required_argument, 0, O_FILTER },
	{ "filter-string", required_argument, 0, O_FSTRING },
	{ "filter-file", required_argument, 0, O_FFILE },
	{ "attrs", required_argument, 0, O_ATTRS },
	{ "K", required_argument, 0, O_K },
	{ "linkage", required_argument, 0, O_LINKAGE },
	{ "clusters", required_argument, 0, O_CLUSTERS },
	{ "threads", required_argument, 0, O_THREADS },
	{ "force", no_argument, 0, O_FORCE },
};

const char cli_an_help[] =
	"Analysis options (an analysis is cached per run, filter, attributes and K):\n"
	"  --filter SPEC         filter families, e.g. mpi,ompcrit (see 'difftrace filters'), the\n"
	"                        paper's 16-character string, or an alias like 11.mpi.cust.0\n"
	"                        (default: ompall,mpi, the OpenMP and MPI calls; everything,\n"
	"                        every call, when the store has neither)\n"
	"  --filter-string BITS  the same as --filter\n"
	"  --filter-file FILE    read more filter families from FILE (repeatable)\n"
	"  --attrs MODE          sing|doub . orig|log2|log10|actual [. w|wo] [.args]\n"
	"                        (default sing.log10.args); .args: MPI calls with recorded\n"
	"                        arguments count as MPI_Allreduce[count=2,op=MAX]...\n"
	"  -K N                  longest loop body NLR folds (default 10)\n"
	"  --linkage L           ward (default), single, complete, average, weighted,\n"
	"                        centroid, median\n"
	"  --clusters K          cut the hierarchical clustering into K clusters (default: at the\n"
	"                        largest gap between merge heights)\n"
	"  --threads N           worker threads (default: one per core)\n"
	"  --force               recompute even when the analysis is cached\n";

void cli_an_init(cli_an *a)
{
	memset(a, 0, sizeof *a);
	a->p.filter = NULL; /* analysis_default_filter */
	dt_err e;
	dt_err_clear(&e);
	if (attrs_mode_parse_args(AN_DEFAULT_ATTRS, &a->p.mode, &a->p.args, &e))
		abort(); /* the constant is a valid mode */
	a->p.k = AN_DEFAULT_K;
	a->p.linkage = CLU_WARD;
	a->p.filter_files = a->files;
}

void cli_an_join(const struct option *own, struct option *out)
{
	size_t n = 0;
	while (own[n].name)
		n++;
	memcpy(out, own, n * sizeof *own);
	memcpy(out + n, cli_an_longopts, CLI_AN_NOPTS * sizeof *out);
	memset(out + n + CLI_AN_NOPTS, 0, sizeof *out);
}

int cli_an_option(cli_an *a, const char *cmd, int opt, const char *arg)
{
	dt_err e;
	dt_err_clear(&e);
	uint64_t v;
	switch (opt) {
	case O_FILTER:
	case O_FSTRING:
		a->p.filter = arg;
		return 1;
	case O_FFILE:
		if (a->p.nfilter_files >= sizeof a->files / sizeof *a->files)
			return cli_usage(cmd, "too many --filter-file options");
		a->files[a->p.nfilter_files++] = arg;
		return 1;
	case O_ATTRS:
		if (attrs_mode_parse_args(arg, &a->p.mode, &a->p.args, &e))
			return cli_usage(cmd, "%s", e.msg);
		return 1;
	case 'K':
	case O_K:
		if (cli_parse_u64(arg, &v) || v < 1 || v > 32)
			return cli_usage(cmd, "-K takes a loop body length from 1 to 32, not '%s'", arg);
		a->p.k = (unsigned)v;
		return 1;
	case O_LINKAGE:
		if (clu_linkage_parse(arg, &a->p.linkage, &e))
			return cli_usage(cmd, "%s", e.msg);
		return 1;
	case O_CLUSTERS:
		if (cli_parse_u64(arg, &v) || v < 1 || v > 1u << 20)
			return cli_usage(cmd, "--clusters takes a positive number, not '%s'", arg);
		a->p.kcut = (size_t)v;
		return 1;
	case O_THREADS:
		if (cli_parse_u64(arg, &v) || v < 1 || v > 256)
			return cli_usage(cmd, "--threads takes 1 to 256, not '%s'", arg);
		a->p.threads = (int)v;
		return 1;
	case O_FORCE:
		a->p.force = 1;
		return 1;
	}
	return 0;
}

static void show(void *arg, uint64_t done, uint64_t total)
{
	char a[32], b[32];
	progress_show(arg, "analyzing: %s of %s events (%.0f%%)", cli_count(done, a, sizeof a),
		      cli_count(total, b, sizeof b), total ? 100.0 * (double)done / (double)total : 0.0);
}

int cli_an_get(const cli_an *a, store *s, const char *run, an_result *r, dt_err *e)
{
	int reused;
	return cli_an_get2(a, s, run, r, &reused, e);
}

/* Found or computed with a progress line on a terminal (an_lookup.h). */
static int compute(store *s, const char *run, const an_params *ap, int64_t *id, int *reused,
		   dt_err *e)
{
	progress pg;
	progress_init(&pg);
	an_params p = *ap;
	p.progress = show;
	p.progress_arg = &pg;
	int rc = al_compute(s, run, &p, id, reused, e);
	progress_end(&pg);
	return rc;
}

int cli_an_id(const cli_an *a, store *s, const char *run, int64_t *id, int *reused, dt_err *e)
{
	return compute(s, run, &a->p, id, reused, e);
}

int cli_an_get2(const cli_an *a, store *s, const char *run, an_result *r, int *reused, dt_err *e)
{
	int64_t id;
	if (cli_an_id(a, s, run, &id, reused, e))
		return -1;
	return al_load(s, id, &a->p, r, e);
}

static int cache_compute(void *ctx, const char *run, const an_params *p, int64_t *id, dt_err *e)
{
	int reused;
	return compute(ctx, run, p, id, &reused, e) ? -1 : 1;
}

void cli_an_cache(store *s, al_cache *c)
{
	al_cache_init(c, s);
	c->compute = cache_compute;
	c->ctx = s;
}
