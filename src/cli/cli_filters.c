/* cli_filters.c: `difftrace filters`: list the filter families, print a filter's patterns, and
 * show which functions a filter keeps and which pattern decided. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "analysis/filter.h"
#include "util/util.h"

#ifndef PKGDATADIR
#define PKGDATADIR "/usr/local/share/difftrace"
#endif

static const char help[] =
	"usage: difftrace filters [--filter-file FILE]... [--format text|csv|json]\n"
	"       difftrace filters show [--filter-file FILE]... FILTER\n"
	"       difftrace filters test [--filter-file FILE]... FILTER FUNCTION...\n"
	"\n"
	"List the filter families (named sets of PCRE2 patterns, see difftrace-filters(5));\n"
	"'show' prints the families of FILTER in the file format, 'test' tells for each FUNCTION\n"
	"whether FILTER keeps it and which pattern decided.\n"
	"\n"
	"FILTER is a combination of families: names separated by commas (mpi,ompcrit,custom),\n"
	"the DiffTrace paper's 16-character string (1100000100000010) or its folder name\n"
	"(11.mpi.cust.0).\n"
	"\n"
	"Families are read from " PKGDATADIR "/filters, the directories in\n"
	"$DIFFTRACE_FILTER_PATH (colon-separated), $XDG_CONFIG_HOME/difftrace/filters\n"
	"(default ~/.config/difftrace/filters), then each --filter-file; a family replaces an\n"
	"earlier one of the same name.\n"
	"\n"
	"  --filter-file FILE  read one more family file (may be repeated)\n"
	"  --format FMT        text (default), csv or json (for the list)\n"
	"  -h, --help          this help\n";

/* The standard directories, then the --filter-file files. */
static int load(char **files, size_t nfiles, filt_lib **out, dt_err *e)
{
	filt_lib *l = filt_lib_new();
	if (filt_lib_load_default(l, e)) {
		filt_lib_free(l);
		return -1;
	}
	for (size_t i = 0; i < nfiles; i++) {
		if (filt_lib_load_file(l, files[i], e)) {
			filt_lib_free(l);
			return -1;
		}
	}
	if (!filt_lib_count(l)) {
		filt_lib_free(l);
		return dt_errf(e, DT_EDATA,
			       "no filter families found: install difftrace, or point "
			       "DIFFTRACE_FILTER_PATH at the source tree's filters/ directory");
	}
	*out = l;
	return 0;
}

static const char *kind_name(const filt_family *f)
{
	return f->returns ? "returns" : f->kind == FILT_REMOVE ? "remove" : "keep";
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

static void json_patterns(const filt_pattern *p, size_t n)
{
	printf("[");
	for (size_t i = 0; i < n; i++) {
		printf("%s", i ? ", " : "");
		cli_json_str(p[i].text);
	}
	printf("]");
}

static void list(const filt_lib *l, int fmt)
{
	size_t n = filt_lib_count(l);
	int dw = 11;
	for (size_t i = 0; i < n; i++) {
		int w = (int)strlen(filt_lib_family(l, i)->desc);
		dw = w > dw ? w : dw;
	}
	if (fmt == OUT_TEXT)
		printf("%-11s %-8s %3s %-7s %3s %3s  %-*s  %s\n", "NAME", "TOKEN", "BIT", "KIND",
		       "INC", "EXC", dw, "DESCRIPTION", "FILE");
	else if (fmt == OUT_CSV)
		printf("name,token,bit,kind,includes,excludes,description,file\n");
	else
		printf("[");
	for (size_t i = 0; i < n; i++) {
		const filt_family *f = filt_lib_family(l, i);
		char bit[8];
		snprintf(bit, sizeof bit, "%d", f->bit);
		const char *tok = f->token ? f->token : "";
		if (fmt == OUT_TEXT) {
			printf("%-11s %-8s %3s %-7s %3zu %3zu  %-*s  %s\n", f->name,
			       *tok ? tok : "-", f->bit >= 0 ? bit : "-", kind_name(f), f->ninc,
			       f->nexc, dw, f->desc, f->file);
		} else if (fmt == OUT_CSV) {
			cli_csv_str(f->name);
			putchar(',');
			cli_csv_str(tok);
			printf(",%s,%s,%zu,%zu,", f->bit >= 0 ? bit : "", kind_name(f), f->ninc,
			       f->nexc);
			cli_csv_str(f->desc);
			putchar(',');
			cli_csv_str(f->file);
			putchar('\n');
		} else {
			printf("%s\n  {\"name\": ", i ? "," : "");
			cli_json_str(f->name);
			printf(", \"token\": ");
			if (f->token)
				cli_json_str(f->token);
			else
				printf("null");
			printf(", \"bit\": %s, \"kind\": \"%s\", \"include\": ",
			       f->bit >= 0 ? bit : "null", kind_name(f));
			json_patterns(f->inc, f->ninc);
			printf(", \"exclude\": ");
			json_patterns(f->exc, f->nexc);
			printf(", \"description\": ");
			cli_json_str(f->desc);
			printf(", \"file\": ");
			cli_json_str(f->file);
			printf("}");
		}
	}
	if (fmt == OUT_JSON)
		printf("%s]\n", n ? "\n" : "");
}

/* A family in its own file format, so that it can be copied and edited. */
static void print_family(const filt_family *f)
{
	printf("# from %s\nname: %s\ndescription: %s\n", f->file, f->name, f->desc);
	if (f->token)
		printf("token: %s\n", f->token);
	if (f->bit >= 0)
		printf("bit: %d\n", f->bit);
	if (f->kind == FILT_REMOVE)
		printf("kind: remove\n");
	if (f->returns)
		printf("returns: yes\n");
	for (size_t i = 0; i < f->ninc; i++)
		printf("include: %s\n", f->inc[i].text);
	for (size_t i = 0; i < f->nexc; i++)
		printf("exclude: %s\n", f->exc[i].text);
}

/* One line about the filter: its three names, and what happens to returns. */
static void print_header(const filt *f)
{
	char bits[FILT_NBITS + 1];
	dt_err e;
	dt_err_clear(&e);
	if (filt_bits(f, bits, &e))
		snprintf(bits, sizeof bits, "(none)");
	printf("# filter %s = %s = %s; returns %s\n", filt_canonical(f), filt_alias(f), bits,
	       filt_keeps_returns(f) ? "kept when they close a kept call" : "dropped");
}

/* Splits a list of names; returns how many there are, or -1 when one is unknown. */
static int names_of(const filt_lib *l, const char *text, int *idx, int max)
{
	int n = 0;
	for (const char *s = text; *s;) {
		size_t len = strcspn(s, ",");
		char name[80];
		snprintf(name, sizeof name, "%.*s", (int)(len < 79 ? len : 79), s);
		int i = filt_lib_find(l, name);
		if (i < 0 || n >= max)
			return -1;
		idx[n++] = i;
		s += len + (s[len] == ',');
	}
	return n;
}

static int show(const filt_lib *l, const char *text)
{
	dt_err e;
	dt_err_clear(&e);
	filt *f;
	int one = filt_lib_find(l, text);
	if (one >= 0) { /* just the file, so that it can be redirected into a new one */
		print_family(filt_lib_family(l, (size_t)one));
		return 0;
	}
	if (filt_parse(l, text, &f, &e) == 0) {
		print_header(f);
		for (size_t i = 0; i < filt_lib_count(l); i++) {
			const filt_family *x = filt_lib_family(l, i);
			if (filt_chosen(f, i) || (x->kind == FILT_REMOVE && x->ninc)) {
				printf("\n");
				if (!filt_chosen(f, i))
					printf("# not chosen: what it matches is removed\n");
				print_family(x);
			}
		}
		filt_free(f);
		return 0;
	}
	/* families that keep nothing on their own (returns, exclusions) are still shown */
	int idx[64], n = names_of(l, text, idx, 64);
	if (n <= 0)
		return cli_fail(&e);
	for (int i = 0; i < n; i++) {
		printf("%s", i ? "\n" : "");
		print_family(filt_lib_family(l, (size_t)idx[i]));
	}
	return 0;
}

static int test(const filt_lib *l, const char *text, char **funcs, int nfuncs)
{
	dt_err e;
	dt_err_clear(&e);
	filt *f;
	if (filt_parse(l, text, &f, &e))
		return cli_fail(&e);
	print_header(f);
	int w = 8;
	for (int i = 0; i < nfuncs; i++) {
		int len = (int)strlen(funcs[i]);
		w = len > w ? len : w;
	}
	w = w > 40 ? 40 : w;
	for (int i = 0; i < nfuncs; i++) {
		filt_why why;
		if (filt_explain(f, funcs[i], &why, &e)) {
			filt_free(f);
			return cli_fail(&e);
		}
		printf("%s  %-*s  ", why.copies ? "keep" : "drop", w, funcs[i]);
		if (!why.pat)
			printf("no pattern matched\n");
		else
			printf("%s %s%s: %s  (%s:%d)\n", why.removed ? "removed by" : "kept by",
			       why.fam->name,
			       why.fam->kind == FILT_REMOVE && why.removed ? " (not chosen)" : "",
			       why.pat->text, base_name(why.fam->file), why.pat->line);
	}
	filt_free(f);
	return 0;
}

int cmd_filters(cli *c, int argc, char **argv)
{
	(void)c;
	static const struct option lo[] = {
		{ "filter-file", required_argument, 0, 'f' },
		{ "format", required_argument, 0, 'F' },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	char **files = xmalloc((size_t)argc * sizeof *files);
	size_t nfiles = 0;
	int o, r, fmt = OUT_TEXT;
	while ((r = cli_getopt(argc, argv, ":h", lo, &o, "filters", help)) == 0 && o != -1) {
		if (o == 'f')
			files[nfiles++] = optarg;
		else if (o == 'F' && (fmt = cli_out_format(optarg)) < 0)
			r = cli_usage("filters", "unknown format '%s' (text, csv, json)", optarg);
		if (r)
			break;
	}
	if (r == CLI_HELP_DONE)
		r = 0;
	else if (r)
		;
	else if (optind < argc && strcmp(argv[optind], "show") && strcmp(argv[optind], "test"))
		r = cli_usage("filters", "unknown subcommand '%s' (show, test)", argv[optind]);
	else if (optind < argc && !strcmp(argv[optind], "show") && argc - optind != 2)
		r = cli_usage("filters", argc - optind < 2 ? "show which FILTER?"
							   : "show takes one FILTER");
	else if (optind < argc && !strcmp(argv[optind], "test") && argc - optind < 3)
		r = cli_usage("filters", "test needs a FILTER and at least one FUNCTION");
	else if (optind < argc && fmt != OUT_TEXT)
		r = cli_usage("filters", "--format is for the list only");
	else {
		dt_err e;
		dt_err_clear(&e);
		filt_lib *l = NULL;
		if (load(files, nfiles, &l, &e)) {
			r = cli_fail(&e);
		} else {
			if (optind >= argc)
				list(l, fmt);
			else if (!strcmp(argv[optind], "show"))
				r = show(l, argv[optind + 1]);
			else
				r = test(l, argv[optind + 1], argv + optind + 2, argc - optind - 2);
			filt_lib_free(l);
		}
	}
	free(files);
	return r;
}
