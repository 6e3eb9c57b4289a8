/* cli_bindex.c: `difftrace blame-index`: indexes the static data flow of a program's C
 * functions (blame/index.h) into the store, lists the index and shows a function's relations. */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blame/index.h"
#include "blame/index_child.h"
#include "blame/wrapper.h"
#include "cli/cli.h"
#include "store/store_bindex.h"
#include "util/esc.h"
#include "util/util.h"

#ifdef HAVE_LIBCLANG
#include "blame/libclang.h"
#endif

static const char bindex_help[] =
	"usage: difftrace blame-index [-p BUILD_DIR | --compile-commands FILE] [--run RUN]\n"
	"                             [--time-limit SEC] [--memory-limit MIB]\n"
	"                             [FILE.c...] [-- CFLAGS...]\n"
	"       difftrace blame-index --show FUNC [--run RUN] [--format text|json]\n"
	"       difftrace blame-index --list [--run RUN]\n"
	"\n"
	"Parse a program's C and C++ sources with libclang and store, per function (C++: named\n"
	"grid::Field::smooth, methods and templates too), the data flow that\n"
	"variable blame follows: its variables (parameters, locals, globals used) with types\n"
	"and lines; explicit relations (c <- a, b for c = a + b; x[i], *p, p->f and s.f written\n"
	"as x, through p, through p, s); implicit ones (the variables of the loop, if and switch\n"
	"conditions around a write); its exit variables (parameters, globals, the return value);\n"
	"its call sites with the variables of each argument; and which variables each line\n"
	"writes. The compile commands come from BUILD_DIR/compile_commands.json (-p) or FILE\n"
	"(every file in it, or the FILE.c named), else FILE.c is parsed with the CFLAGS after\n"
	"'--'. Re-indexing a file replaces its functions. Errors of the sources are printed as\n"
	"FILE:LINE:COL; the functions that parsed are stored all the same, and the exit status\n"
	"is 1. A compile command that names an MPI compiler wrapper (mpicc, mpif90, ...) gets\n"
	"the flags the wrapper adds, asked of it (--showme:compile, -show); Fortran files are\n"
	"passed over. Each file is parsed in a process of its own, under the limits below: a file\n"
	"libclang crashes on or is stopped on is said (FILE: libclang crashed ... / was\n"
	"stopped ...), the other files are indexed, and the exit status is 1.\n"
	"\n"
	"  -p BUILD_DIR              the folder holding compile_commands.json\n"
	"  --compile-commands FILE   a compile_commands.json of any name\n"
	"  --run RUN                 the index belongs to RUN (default: to every run)\n"
	"  --show FUNC               print the relations of the indexed functions called FUNC\n"
	"  --list                    list the indexed files\n"
	"  --format FMT              text (default) or json, for --show\n"
	"  --time-limit SEC          CPU seconds libclang may spend on one file (default 120)\n"
	"  --memory-limit MIB        memory libclang may use on one file (default 4096)\n"
	"  -h, --help                this help\n"
	"\n"
	"See difftrace(1), BLAME INDEX.\n";

typedef struct job {
	bx_limits lim;
	bx_wrapper *wr; /* the MPI compiler wrappers asked, by the name the commands give */
	char **wrname;
	size_t nwr, capwr, capname;
	size_t nskip;   /* Fortran sources passed over */
	store *s;
	int64_t run_id;
	char *version;
	size_t nfiles, nfuncs, nlines, nbad;
} job;

/* Prints the errors of f as FILE:LINE:COL and returns how many there were. An error without a
 * place is about the compile command (a flag of gcc's that clang lacks): the parse goes on
 * without the flag, so it is said and not counted. */
static size_t print_diags(const bx_file *f)
{
	size_t n = 0;
	for (size_t i = 0; i < f->ndiags; i++) {
		const bx_diag *d = &f->diags[i];
		if (d->line <= 0) {
			fprintf(stderr, "%s: the compile command, ignored: ", f->path);
		} else {
			fprintf(stderr, "%s:%d:%d: %s: ", d->file ? d->file : f->path, d->line, d->col,
				d->fatal ? "fatal error" : "error");
			n++;
		}
		esc_fputs(d->msg, stderr);
		fputc('\n', stderr);
	}
	return n;
}

/* Parses one file and stores what it gave, in a transaction of its own. -1 only when the
 * store failed (e set); a file that does not parse is counted in j->nbad. */
/* The wrapper named argv0, asked once (and said once: which command answered, or that none
 * did). */
static const bx_wrapper *wrapper_of(job *j, const char *argv0, const char *dir)
{
	for (size_t i = 0; i < j->nwr; i++)
		if (!strcmp(j->wrname[i], argv0))
			return &j->wr[i];
	grow((void **)&j->wr, &j->capwr, j->nwr + 1, sizeof *j->wr);
	grow((void **)&j->wrname, &j->capname, j->nwr + 1, sizeof *j->wrname);
	bx_wrapper *w = &j->wr[j->nwr];
	j->wrname[j->nwr++] = xstrdup(argv0);
	if (bx_wrapper_query(argv0, dir, w) == 0) {
		printf("the MPI compiler wrapper %s, asked with '", argv0);
		esc_fputs(w->asked, stdout);
		printf("', adds:");
		for (int i = 0; i < w->nflags; i++) {
			putchar(' ');
			esc_fputs(w->flags[i], stdout);
		}
		putchar('\n');
	} else {
		fputs("difftrace: warning: the MPI compiler wrapper ", stderr);
		esc_fputs(argv0, stderr);
		fputs(w->path ? " did not tell its flags (--showme:compile, -show, "
				"--cray-print-opts=cflags)"
			      : " is not in PATH",
		      stderr);
		fputs(": its files are parsed without them (mpi.h may not be found)\n", stderr);
	}
	return w;
}

static int index_one(job *j, const char *path, const char *dir, const char *const *argv, int argc,
		     int full, dt_err *e)
{
	bx_file f;
	if (!bx_is_c_source(path)) {
		/* a Fortran file of a mixed program's compile commands */
		fputs("difftrace: ", stderr);
		esc_fputs(path, stderr);
		fputs(": Fortran, not indexed (blame-index reads C and C++ sources)\n", stderr);
		j->nskip++;
		return 0;
	}
	/* a compile command that names an MPI compiler wrapper: the flags it adds, after it */
	const char **wargv = NULL;
	if (full && argc > 0 && bx_is_wrapper(argv[0])) {
		const bx_wrapper *w = wrapper_of(j, argv[0], dir);
		if (w->nflags) {
			wargv = xcalloc((size_t)(argc + w->nflags + 1), sizeof *wargv);
			int k = 0;
			wargv[k++] = argv[0];
			for (int i = 0; i < w->nflags; i++)
				wargv[k++] = w->flags[i];
			for (int i = 1; i < argc; i++)
				wargv[k++] = argv[i];
			argv = wargv;
			argc = k;
		}
	}
	dt_err fe;
	dt_err_clear(&fe);
	int got = bx_index_file_isolated(path, dir, argv, argc, full, &j->lim, &f, &fe);
	free(wargv);
	if (got) {
		bx_file_free(&f);
		if (!bx_available()) {
			*e = fe;
			return -1;
		}
		cli_fail(&fe);
		j->nbad++;
		return 0;
	}
	if (print_diags(&f))
		j->nbad++;
	int rc = store_begin(j->s, e);
	if (!rc && store_bindex_write(j->s, j->run_id, &f, j->version, e)) {
		store_rollback(j->s);
		rc = -1;
	} else if (!rc) {
		rc = store_commit(j->s, e);
	}
	if (!rc) {
		j->nfiles++;
		j->nfuncs += f.nfuncs;
		j->nlines += (size_t)f.lines;
	}
	bx_file_free(&f);
	return rc;
}

#ifdef HAVE_LIBCLANG
static int index_command(job *j, CXCompileCommand cmd, dt_err *e)
{
	CXString file = clang_CompileCommand_getFilename(cmd);
	CXString dir = clang_CompileCommand_getDirectory(cmd);
	unsigned n = clang_CompileCommand_getNumArgs(cmd);
	CXString *cs = xcalloc(n + 1, sizeof *cs);
	const char **argv = xcalloc(n + 1, sizeof *argv);
	for (unsigned i = 0; i < n; i++) {
		cs[i] = clang_CompileCommand_getArg(cmd, i);
		argv[i] = clang_getCString(cs[i]);
	}
	const char *fname = clang_getCString(file), *dname = clang_getCString(dir);
	/* a relative file name is relative to the command's directory */
	char *path = fname[0] == '/' || !dname[0] ? xstrdup(fname) : path_join(dname, fname);
	int rc = index_one(j, path, dname, argv, (int)n, 1, e);
	free(path);
	for (unsigned i = 0; i < n; i++)
		clang_disposeString(cs[i]);
	free(cs);
	free(argv);
	clang_disposeString(file);
	clang_disposeString(dir);
	return rc;
}

/* Indexes the files of the compile commands in dir (all of them, or files[0..nfiles)). */
static int index_db(job *j, const char *dir, char **files, int nfiles, dt_err *e)
{
	if (bx_libclang_load(e))
		return -1;
	CXCompilationDatabase_Error err;
	CXCompilationDatabase db = clang_CompilationDatabase_fromDirectory(dir, &err);
	if (err != CXCompilationDatabase_NoError || !db) {
		if (db)
			clang_CompilationDatabase_dispose(db);
		return dt_err_at(e, dir, -1, "no readable compile_commands.json in this folder");
	}
	int rc = 0;
	if (nfiles == 0) {
		CXCompileCommands all = clang_CompilationDatabase_getAllCompileCommands(db);
		unsigned n = all ? clang_CompileCommands_getSize(all) : 0;
		if (n == 0)
			rc = dt_err_at(e, dir, -1, "compile_commands.json names no file");
		for (unsigned i = 0; i < n && !rc; i++)
			rc = index_command(j, clang_CompileCommands_getCommand(all, i), e);
		if (all)
			clang_CompileCommands_dispose(all);
	}
	for (int f = 0; f < nfiles && !rc; f++) {
		char *real = realpath(files[f], NULL);
		CXCompileCommands cmds =
			clang_CompilationDatabase_getCompileCommands(db, real ? real : files[f]);
		free(real);
		unsigned n = cmds ? clang_CompileCommands_getSize(cmds) : 0;
		if (n == 0) {
			fprintf(stderr, "difftrace: ");
			esc_fputs(files[f], stderr);
			fprintf(stderr, ": not in the compile commands\n");
			j->nbad++;
		}
		/* a file compiled twice (two targets) is indexed once, with its first command */
		if (n)
			rc = index_command(j, clang_CompileCommands_getCommand(cmds, 0), e);
		if (cmds)
			clang_CompileCommands_dispose(cmds);
	}
	clang_CompilationDatabase_dispose(db);
	return rc;
}
#else
static int index_db(job *j, const char *dir, char **files, int nfiles, dt_err *e)
{
	(void)j;
	(void)files;
	(void)nfiles;
	return dt_err_at(e, dir, -1, "difftrace was built without libclang: no compile commands");
}
#endif

/* --compile-commands FILE: libclang reads a folder's compile_commands.json, so a file of
 * another name is linked into a temporary folder under that name. */
static char *db_folder(const char *file, char *tmpdir, size_t n, dt_err *e)
{
	const char *base = strrchr(file, '/');
	base = base ? base + 1 : file;
	if (access(file, R_OK))
		return dt_err_at(e, file, -1, "cannot read the compile commands"), NULL;
	if (!strcmp(base, "compile_commands.json")) {
		char *real = realpath(file, NULL);
		if (!real)
			return dt_err_at(e, file, -1, "cannot read the compile commands"), NULL;
		char *slash = strrchr(real, '/');
		*slash = 0;
		if (!*real)
			strcpy(real, "/");
		return real;
	}
	const char *t = getenv("TMPDIR");
	snprintf(tmpdir, n, "%s/difftrace-cc.XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(tmpdir))
		return dt_errf(e, DT_EDATA, "cannot make a temporary folder in %s", t ? t : "/tmp"), NULL;
	char *real = realpath(file, NULL);
	char *link = path_join(tmpdir, "compile_commands.json");
	int bad = !real || symlink(real, link);
	free(real);
	if (bad) {
		free(link);
		rmdir(tmpdir);
		tmpdir[0] = 0;
		return dt_err_at(e, file, -1, "cannot read the compile commands"), NULL;
	}
	free(link);
	return xstrdup(tmpdir);
}

/* ---- --show ----------------------------------------------------------------------------- */

static const char *vname(const bx_func *fn, int v)
{
	return v >= 0 && (size_t)v < fn->nvars ? fn->vars[v].name : "?";
}

static void show_text(const bx_func *fn)
{
	printf("function %s %s:%d-%d%s%s\n", fn->name, fn->file, fn->line, fn->end_line,
	       fn->flags & BX_F_STATIC ? " static" : "",
	       fn->flags & BX_F_ERRORS ? " (has parse errors: relations may be missing)" : "");
	for (size_t i = 0; i < fn->nvars; i++) {
		const bx_var *v = &fn->vars[i];
		printf("  var %s: %s (%s, line %d%s)\n", v->name, v->type, bx_kind_name(v->kind),
		       v->line, v->exit ? ", exit" : "");
	}
	for (int imp = 0; imp < 2; imp++)
		for (size_t i = 0; i < fn->nrels; i++) {
			const bx_rel *r = &fn->rels[i];
			if (r->implicit != imp)
				continue;
			printf("  %s %s <- %s (line %d", imp ? "implicit" : "explicit",
			       vname(fn, r->dst), vname(fn, r->src), r->line);
			if (r->through)
				printf(", through");
			if (r->field)
				printf(", field %s", r->field);
			if (r->role == BX_INDEX || r->role == BX_ARG)
				printf(", %s", bx_role_name(r->role));
			printf(")\n");
		}
	printf("  exit");
	for (size_t i = 0; i < fn->nvars; i++)
		if (fn->vars[i].exit)
			printf(" %s", fn->vars[i].name);
	printf("\n");
	for (size_t i = 0; i < fn->ncalls; i++) {
		const bx_call *c = &fn->calls[i];
		if (c->callee)
			printf("  call %d:%d %s(", c->line, c->col, c->callee);
		else
			printf("  call %d:%d unknown via %s(", c->line, c->col, c->via ? c->via : "?");
		for (size_t j = 0; j < c->nargs; j++) {
			const bx_arg *a = &c->args[j];
			printf("%s%s {", j ? "; " : "", a->text ? a->text : "");
			for (size_t k = 0; k < a->nvars; k++)
				printf("%s%s", k ? " " : "", vname(fn, a->vars[k]));
			printf("}");
			if (a->out && a->out_var >= 0)
				printf(" out %s%s", a->out_through ? "*" : "", vname(fn, a->out_var));
		}
		printf(")");
		if (c->result >= 0)
			printf(" -> %s", vname(fn, c->result));
		printf("\n");
	}
	for (size_t i = 0; i < fn->nlines; i++)
		printf("  line %d %s %s\n", fn->lines[i].line, bx_how_name(fn->lines[i].how),
		       vname(fn, fn->lines[i].var));
}

static void json_var_list(const bx_func *fn, const int *v, size_t n)
{
	putchar('[');
	for (size_t k = 0; k < n; k++) {
		if (k)
			putchar(',');
		cli_json_str(vname(fn, v[k]));
	}
	putchar(']');
}

static void show_json(const bx_func *fn)
{
	printf("{\"function\":");
	cli_json_str(fn->name);
	printf(",\"file\":");
	cli_json_str(fn->file);
	printf(",\"line\":%d,\"end_line\":%d,\"static\":%s,\"parse_errors\":%s,\"vars\":[",
	       fn->line, fn->end_line, fn->flags & BX_F_STATIC ? "true" : "false",
	       fn->flags & BX_F_ERRORS ? "true" : "false");
	for (size_t i = 0; i < fn->nvars; i++) {
		const bx_var *v = &fn->vars[i];
		printf("%s{\"name\":", i ? "," : "");
		cli_json_str(v->name);
		printf(",\"type\":");
		cli_json_str(v->type);
		printf(",\"kind\":\"%s\",\"line\":%d,\"exit\":%s}", bx_kind_name(v->kind), v->line,
		       v->exit ? "true" : "false");
	}
	printf("],\"relations\":[");
	for (size_t i = 0; i < fn->nrels; i++) {
		const bx_rel *r = &fn->rels[i];
		printf("%s{\"kind\":\"%s\",\"dst\":", i ? "," : "", r->implicit ? "implicit" : "explicit");
		cli_json_str(vname(fn, r->dst));
		printf(",\"src\":");
		cli_json_str(vname(fn, r->src));
		printf(",\"line\":%d,\"through\":%s,\"role\":\"%s\",\"field\":", r->line,
		       r->through ? "true" : "false", bx_role_name(r->role));
		if (r->field)
			cli_json_str(r->field);
		else
			printf("null");
		printf("}");
	}
	printf("],\"exit\":[");
	int first = 1;
	for (size_t i = 0; i < fn->nvars; i++)
		if (fn->vars[i].exit) {
			if (!first)
				putchar(',');
			first = 0;
			cli_json_str(fn->vars[i].name);
		}
	printf("],\"calls\":[");
	for (size_t i = 0; i < fn->ncalls; i++) {
		const bx_call *c = &fn->calls[i];
		printf("%s{\"callee\":", i ? "," : "");
		if (c->callee)
			cli_json_str(c->callee);
		else
			printf("null");
		printf(",\"via\":");
		if (c->via)
			cli_json_str(c->via);
		else
			printf("null");
		printf(",\"line\":%d,\"col\":%d,\"result\":", c->line, c->col);
		if (c->result >= 0)
			cli_json_str(vname(fn, c->result));
		else
			printf("null");
		printf(",\"args\":[");
		for (size_t j = 0; j < c->nargs; j++) {
			const bx_arg *a = &c->args[j];
			printf("%s{\"text\":", j ? "," : "");
			cli_json_str(a->text ? a->text : "");
			printf(",\"vars\":");
			json_var_list(fn, a->vars, a->nvars);
			printf(",\"out\":");
			if (a->out && a->out_var >= 0) {
				cli_json_str(vname(fn, a->out_var));
				printf(",\"out_through\":%s", a->out_through ? "true" : "false");
			} else {
				printf("null");
			}
			printf("}");
		}
		printf("]}");
	}
	printf("],\"lines\":[");
	for (size_t i = 0; i < fn->nlines; i++) {
		printf("%s{\"line\":%d,\"how\":\"%s\",\"var\":", i ? "," : "", fn->lines[i].line,
		       bx_how_name(fn->lines[i].how));
		cli_json_str(vname(fn, fn->lines[i].var));
		printf("}");
	}
	printf("]}");
}

static int show(store *s, int64_t run_id, const char *name, int fmt, dt_err *e)
{
	bx_func *fns = NULL;
	size_t n = 0;
	int have = store_bindex_exists(s, e);
	if (have < 0)
		return -1;
	if (have && store_bindex_find(s, run_id, name, &fns, &n, e))
		return -1;
	if (n == 0)
		return dt_errf(e, DT_EDATA, "no indexed function '%s'%s", name,
			       have ? " (see 'difftrace blame-index --list')"
				    : ": nothing is indexed (difftrace blame-index FILE.c)");
	if (fmt == OUT_JSON)
		putchar('[');
	for (size_t i = 0; i < n; i++) {
		if (fmt == OUT_JSON) {
			if (i)
				putchar(',');
			show_json(&fns[i]);
		} else {
			show_text(&fns[i]);
		}
		bx_func_free(&fns[i]);
	}
	if (fmt == OUT_JSON)
		printf("]\n");
	free(fns);
	return 0;
}

static int list(store *s, int64_t run_id, dt_err *e)
{
	int have = store_bindex_exists(s, e);
	if (have < 0)
		return -1;
	store_bfile *f = NULL;
	size_t n = 0;
	if (have && store_bindex_files(s, run_id, &f, &n, e))
		return -1;
	printf("%-12s %7s %9s %6s  %s\n", "RUN", "LINES", "FUNCTIONS", "ERRORS", "FILE");
	for (size_t i = 0; i < n; i++) {
		cli_pad(f[i].run ? f[i].run : "(all runs)", 12);
		printf(" %7d %9d %6d  %s\n", f[i].lines, f[i].nfuncs, f[i].nerrors, f[i].path);
	}
	store_bfiles_free(f, n);
	return 0;
}

int cmd_bindex(cli *c, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "compile-commands", required_argument, 0, 'C' },
		{ "run", required_argument, 0, 'r' },
		{ "show", required_argument, 0, 's' },
		{ "list", no_argument, 0, 'l' },
		{ "format", required_argument, 0, 'f' },
		{ "time-limit", required_argument, 0, 'T' },
		{ "memory-limit", required_argument, 0, 'M' },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	bx_limits lim = { BX_DEFAULT_CPU_SECONDS, BX_DEFAULT_MEMORY_MIB, BX_DEFAULT_STACK_MIB };
	/* the compiler flags after "--" are not options of ours */
	int nopt = argc;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			nopt = i;
			break;
		}
	const char *build = NULL, *ccfile = NULL, *run = NULL, *showf = NULL, *fmts = "text";
	int do_list = 0;
	optind = 1;
	for (;;) {
		int o, r = cli_getopt(nopt, argv, ":hp:", lo, &o, "blame-index", bindex_help);
		if (r == CLI_HELP_DONE)
			return 0;
		if (r)
			return r;
		if (o == -1)
			break;
		switch (o) {
		case 'p':
			build = optarg;
			break;
		case 'C':
			ccfile = optarg;
			break;
		case 'r':
			run = optarg;
			break;
		case 's':
			showf = optarg;
			break;
		case 'l':
			do_list = 1;
			break;
		case 'f':
			fmts = optarg;
			break;
		case 'T':
		case 'M': {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (*end || end == optarg || v < 1 || v > (o == 'T' ? 86400 : 1048576))
				return cli_usage("blame-index", "bad %s '%s' (%s)",
						 o == 'T' ? "--time-limit" : "--memory-limit", optarg,
						 o == 'T' ? "1 to 86400 seconds" : "1 to 1048576 MiB");
			if (o == 'T')
				lim.cpu_seconds = (int)v;
			else
				lim.memory_mib = (int)v;
			break;
		}
		}
	}
	int fmt = cli_out_format(fmts);
	if (fmt != OUT_TEXT && fmt != OUT_JSON)
		return cli_usage("blame-index", "unknown format '%s' (text, json)", fmts);
	char **files = argv + optind;
	int nfiles = nopt - optind;
	char **flags = nopt < argc ? argv + nopt + 1 : NULL;
	int nflags = nopt < argc ? argc - nopt - 1 : 0;
	if (build && ccfile)
		return cli_usage("blame-index", "-p and --compile-commands are one or the other");
	if (showf || do_list) {
		if (showf && do_list)
			return cli_usage("blame-index", "--show and --list are one or the other");
		if (nfiles || build || ccfile || nopt < argc)
			return cli_usage("blame-index", "--show and --list take no files to index");
	} else {
		if (!build && !ccfile && nfiles == 0)
			return cli_usage("blame-index", "needs FILE.c, -p BUILD_DIR or "
							"--compile-commands FILE");
		if ((build || ccfile) && nflags)
			return cli_usage("blame-index", "the flags after '--' are for files without "
							"compile commands");
	}
	dt_err e;
	dt_err_clear(&e);
	store *s = NULL;
	store_run r = { 0 };
	int64_t run_id = -1;
	int indexing = !showf && !do_list, rc = 1, partial = 0;
	char tmpdir[512] = "";
	char *dbdir = NULL;
	job j = { 0 };
	if (indexing && !bx_available()) {
		bx_file none;
		bx_index_file("", NULL, NULL, 0, 0, &none, &e);
		return cli_fail(&e);
	}
	if (cli_open_store(c, indexing ? STORE_OPEN_CREATE : STORE_OPEN_EXISTING, &s, &e))
		goto out;
	if (run) {
		if (store_run_get(s, run, &r, &e))
			goto out;
		run_id = r.id;
	}
	if (showf) {
		rc = show(s, run_id, showf, fmt, &e);
		goto out;
	}
	if (do_list) {
		rc = list(s, run_id, &e);
		goto out;
	}
	j.s = s;
	j.lim = lim;
	j.run_id = run_id;
	j.version = bx_clang_version();
	if (ccfile && !(dbdir = db_folder(ccfile, tmpdir, sizeof tmpdir, &e)))
		goto out;
	if (build || dbdir) {
		if (index_db(&j, dbdir ? dbdir : build, files, nfiles, &e))
			goto out;
	} else {
		for (int i = 0; i < nfiles; i++)
			if (index_one(&j, files[i], NULL, (const char *const *)flags, nflags, 0, &e))
				goto out;
	}
	printf("indexed %zu file%s, %zu function%s, %zu lines", j.nfiles, j.nfiles == 1 ? "" : "s",
	       j.nfuncs, j.nfuncs == 1 ? "" : "s", j.nlines);
	if (j.nbad)
		printf("; %zu file%s with errors (what parsed is stored)", j.nbad,
		       j.nbad == 1 ? "" : "s");
	if (j.nskip)
		printf("; %zu Fortran file%s passed over", j.nskip, j.nskip == 1 ? "" : "s");
	printf("\n");
	rc = 0;
	partial = j.nbad > 0;
out:
	if (tmpdir[0]) {
		char *link = path_join(tmpdir, "compile_commands.json");
		unlink(link);
		free(link);
		rmdir(tmpdir);
	}
	free(dbdir);
	free(j.version);
	for (size_t i = 0; i < j.nwr; i++) {
		bx_wrapper_free(&j.wr[i]);
		free(j.wrname[i]);
	}
	free(j.wr);
	free(j.wrname);
	store_run_free(&r);
	store_close(s);
	return rc ? cli_fail(&e) : partial ? 1 : 0;
}
