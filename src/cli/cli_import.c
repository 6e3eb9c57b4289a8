/* cli_import.c: `difftrace import`, one transaction per import.
 *
 * The import is staged in TEMP tables and published in one short transaction at the end
 * (store_import_begin), so other difftrace commands can write to the store while it decodes.
 * SIGINT and SIGTERM set a flag that the store's writer polls; the import then fails as
 * "interrupted" and drops what it staged, so the store is exactly as it was. A SIGKILL loses
 * the staged rows with the process (TEMP files are deleted by the system): the same result. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_par.h"
#include "import/import.h"
#include "import/import_sample.h"
#include "store/store_blame.h"
#include "util/progress.h"
#include "import/sink.h"
#include "par/par_threads.h"
#include "store/store_srcline.h"
#include "util/esc.h"
#include "util/util.h"

static const char help[] =
	"usage: difftrace import [--format FMT] [--run NAME] [--label TEXT] [--manifest FILE]\n"
	"                        [--jobs N] PATH...\n"
	"\n"
	"Import the traces under PATH... as one run of the store (one transaction: on any error\n"
	"or interrupt the store is left as it was). The traces are decoded outside the store,\n"
	"which is locked only to publish the run: other difftrace commands keep working.\n"
	"\n"
	"  -f, --format FMT     uftrace, parlot, parlot-raw, text, sync or otf2 (default:\n"
	"                       detected per PATH)\n"
	"  -r, --run NAME       the run's name (default: from the first PATH, made unique)\n"
	"  -l, --label TEXT     a free label, e.g. the build or the input\n"
	"  -m, --manifest FILE  uftrace: lines 'RANK PID' or 'RANK DIR' giving MPI ranks\n"
	"  --parlot-token-names ParLOT: number .info names by whitespace-separated tokens, as\n"
	"                       the DiffTrace prototype does, to reproduce its decoded text\n"
	"                       (default: by lines, as the tracer wrote them)\n"
	"  --no-srclines        uftrace: keep no source lines (by default each function's\n"
	"                       file and line, from the recorded binaries' debug information\n"
	"                       or the recording's own, uftrace record --srcline)\n"
	"  --no-demangle        uftrace, text: keep the functions' names as written (by default C++\n"
	"                       names are demangled, std::vector<int>::push_back(int const&),\n"
	"                       and Fortran MPI bindings named as the C calls: mpi_send_,\n"
	"                       mpi_send_f08ts_ are MPI_Send)\n"
	"  -j, --jobs N         decode on N threads while this one writes the store (default:\n"
	"                       the cores this process may use, at most 16; 1: decode and\n"
	"                       write in this thread only); the store is the same for any N\n"
	"  -q, --quiet          print nothing on success\n"
	"  -h, --help           this help\n"
	"\n"
	"PATH is a uftrace.data directory, a directory of rank-N recordings (difftrace-record),\n"
	"a ParLOT directory or per-thread file (with its .info), text traces (*.txt), or an\n"
	"OTF2 archive (Score-P's traces.otf2, or its directory; difftrace-otf2(5)).\n"
	"The sample record of difftrace-record --sample (rank-N/sample) is imported with it\n"
	"for 'difftrace blame'.\n"
	"Under mpirun or srun with more than one process, the processes share the traces and\n"
	"process 0 writes the store (difftrace-mpi; the same store as a serial import); each\n"
	"process then decodes on one thread.\n";

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

struct prog {
	progress p;
	const char *path;
};

static void show_progress(void *arg, const store_writer *w)
{
	struct prog *pr = arg;
	char a[32];
	progress_show(&pr->p, "importing %s: %zu traces, %s events", pr->path,
		      store_writer_traces(w), cli_count(store_writer_events(w), a, sizeof a));
}

/* The work of an import thread: its share of the units, sent to the caller (cli_par.h). */
struct twork {
	char **paths;
	const dt_format *fmts;
	int n;
	dt_import_opts io;
};

static int thread_import(dt_par *p, void *arg)
{
	struct twork *tw = arg;
	return par_worker_import(p, tw->paths, tw->fmts, tw->n, &tw->io);
}

/* A run name is used in `RUN:P.T` arguments and as a word in tables. */
static int valid_run_name(const char *s)
{
	if (!*s || strlen(s) > 64)
		return 0;
	for (; *s; s++)
		if (*s == ':' || *s == '/' || (unsigned char)*s <= ' ' || *s == 0x7f)
			return 0;
	return 1;
}

static char *default_run_name(const char *path)
{
	char buf[256];
	snprintf(buf, sizeof buf, "%s", path);
	size_t l = strlen(buf);
	while (l > 1 && buf[l - 1] == '/')
		buf[--l] = 0;
	/* an OTF2 anchor file is traces.otf2 in each Score-P experiment: name the experiment */
	if (l > 5 && !strcmp(buf + l - 5, ".otf2") && strchr(buf, '/')) {
		*strrchr(buf, '/') = 0;
		l = strlen(buf);
		while (l > 1 && buf[l - 1] == '/')
			buf[--l] = 0;
	}
	const char *b = strrchr(buf, '/');
	b = b ? b + 1 : buf;
	char out[65];
	size_t o = 0;
	for (; *b && o < 64; b++)
		out[o++] = (*b == ':' || (unsigned char)*b <= ' ' || *b == 0x7f) ? '_' : *b;
	out[o] = 0;
	if (!o || !strcmp(out, ".") || !strcmp(out, "..") || !strcmp(out, "uftrace.data"))
		return xstrdup("run");
	return xstrdup(out);
}

/* The source lines the import found, and the programs without debug information, once. */
static void say_srclines(store *s, int64_t run_id)
{
	dt_err e;
	dt_err_clear(&e);
	store_srclines *l;
	if (store_srclines_load(s, run_id, &l, &e))
		return;
	size_t n, nd;
	const char *const *nodebug = store_srclines_nodebug(l, &nd);
	if ((n = store_srclines_count(l)))
		printf("source lines of %zu function%s (from the debug information)\n", n,
		       n == 1 ? "" : "s");
	for (size_t i = 0; i < nd; i++) {
		char safe[1024];
		if (store_srclines_unreadable(l, i) == 2)
			printf("no source lines for %s: the file there is another build than the "
			       "one recorded\n",
			       esc_str(nodebug[i], safe, sizeof safe));
		else if (store_srclines_unreadable(l, i))
			printf("no source lines for %s: it could not be read here (moved, or "
			       "recorded on another machine?)\n",
			       esc_str(nodebug[i], safe, sizeof safe));
		else
			printf("no source lines for %s: it has no debug information (build it "
			       "with -g)\n",
			       esc_str(nodebug[i], safe, sizeof safe));
	}
	store_srclines_free(l);
}

/* What the command line of import asks for. */
struct import_cmd {
	int jobs;
	dt_format fmt;
	const char *run, *label;
	dt_import_opts io;
};

/* Parses import's options into ic: 0, CLI_HELP_DONE, or an exit status. */
static int import_args(int argc, char **argv, struct import_cmd *ic)
{
	static const struct option lo[] = {
		{ "format", required_argument, 0, 'f' }, { "run", required_argument, 0, 'r' },
		{ "label", required_argument, 0, 'l' },  { "manifest", required_argument, 0, 'm' },
		{ "quiet", no_argument, 0, 'q' },        { "help", no_argument, 0, 'h' },
		{ "parlot-token-names", no_argument, 0, 'T' },
		{ "no-srclines", no_argument, 0, 'S' },
		{ "no-demangle", no_argument, 0, 'D' },
		{ "jobs", required_argument, 0, 'j' },
		{ 0, 0, 0, 0 },
	};
	ic->jobs = par_threads_cores();
	if (ic->jobs > 16)
		ic->jobs = 16;
	ic->fmt = DT_FMT_AUTO;
	ic->run = NULL;
	ic->label = "";
	memset(&ic->io, 0, sizeof ic->io);
	int o, r;
	while ((r = cli_getopt(argc, argv, ":f:r:l:m:j:qh", lo, &o, "import", help)) == 0 && o != -1) {
		switch (o) {
		case 'f': {
			int f = dt_format_parse(optarg);
			if (f < 0)
				return cli_usage("import", "unknown format '%s' (uftrace, parlot, "
							   "parlot-raw, text, sync, otf2)", optarg);
			ic->fmt = (dt_format)f;
			break;
		}
		case 'r':
			ic->run = optarg;
			break;
		case 'l':
			ic->label = optarg;
			break;
		case 'm':
			ic->io.manifest = optarg;
			break;
		case 'q':
			ic->io.quiet = 1;
			break;
		case 'T':
			ic->io.parlot_token_names = 1;
			break;
		case 'S':
			ic->io.no_srclines = 1;
			break;
		case 'D':
			ic->io.no_demangle = 1;
			break;
		case 'j': {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (*end || end == optarg || v < 1 || v > 256)
				return cli_usage("import", "bad --jobs '%s' (1 to 256)", optarg);
			ic->jobs = (int)v;
			break;
		}
		}
	}
	if (r)
		return r;
	if (optind >= argc)
		return cli_usage("import", "no PATH to import");
	if (ic->run && !valid_run_name(ic->run))
		return cli_usage("import", "bad run name '%s' (1-64 characters, no spaces, ':' or '/')",
				 ic->run);
	return 0;
}

/* What the sample records of an import held, for its summary. */
struct import_samples {
	int nproc;
	uint64_t nticks;
	unsigned flags;
	size_t ncont;
	char **notes;
	size_t nnotes;
};

/* The sample record beside the traces of paths[0..n) (difftrace-sample(5)), written into the
 * run in the import's transaction. */
static int import_samples(store *s, int64_t run_id, char *const *paths, int n,
			  struct import_samples *out, dt_err *e)
{
	dt_blame_data bd = { 0 };
	memset(out, 0, sizeof *out);
	for (int i = 0; i < n; i++) {
		int f = 0;
		if (sample_import(paths[i], &bd, &f, e)) {
			dt_blame_data_free(&bd);
			return -1;
		}
		out->nproc += f;
	}
	if (out->nproc && store_blame_write(s, run_id, &bd, e)) {
		dt_blame_data_free(&bd);
		return -1;
	}
	for (size_t i = 0; i < bd.nsamp; i++)
		out->nticks += bd.samp[i].weight;
	for (size_t i = 0; i < bd.nproc; i++)
		out->flags |= bd.proc[i].flags;
	out->ncont = bd.ncont;
	/* the notes outlive the data: said with the summary */
	out->notes = bd.notes;
	out->nnotes = bd.nnotes;
	bd.notes = NULL;
	bd.nnotes = 0;
	dt_blame_data_free(&bd);
	return 0;
}

/* The records an OTF2 import left out for their kind, which flag no trace: each trace's note
 * says how many ("3 records of kinds difftrace does not map (metrics ...) left out"); [0]
 * those difftrace does not map, [1] those the OTF2 library does not know. */
static void left_out_kinds(store *s, int64_t run_id, uint64_t n[2])
{
	static const char *const what[2] = { " of kinds difftrace does not map",
					     " of kinds this OTF2 library does not know" };
	store_trace *t = NULL;
	size_t nt = 0;
	dt_err e;
	dt_err_clear(&e);
	n[0] = n[1] = 0;
	if (store_trace_list(s, run_id, &t, &nt, &e))
		return;
	for (size_t i = 0; i < nt; i++)
		for (const char *p = t[i].note; p && *p;) { /* "N record(s) of kinds ...; ..." */
			char *end;
			unsigned long long k = strtoull(p, &end, 10);
			const char *x = strstr(end, " of kinds "), *next = strstr(p, "; ");
			for (int w = 0; w < 2 && end != p && x && (!next || x < next); w++)
				if (!strncmp(x, what[w], strlen(what[w])))
					n[w] += k;
			p = next ? next + 2 : NULL;
		}
	store_traces_free(t, nt);
}

/* The summary of the run imported as name, on standard output (warnings on standard error). */
static void import_summary(store *s, const char *name, int quiet, int samples_only,
			   const struct import_samples *sm)
{
	dt_err e;
	dt_err_clear(&e);
	int nbp = sm->nproc;
	uint64_t nticks = sm->nticks;
	unsigned bflags = sm->flags;
	size_t ncont = sm->ncont, nnotes = sm->nnotes;
	char **notes = sm->notes;
	store_run sr;
	if (store_run_get(s, name, &sr, &e) == 0) {
		char safe[300];
		if (sr.flags & (DT_TF_UNRESOLVED | DT_TF_CORRUPT))
			fprintf(stderr,
				"difftrace: warning: %s: see the notes of 'difftrace traces %s'\n",
				sr.flags & DT_TF_CORRUPT
					? "a trace file is damaged (it decodes to a state its format "
					  "never produces)"
					: "most calls of a module match no symbol (a wrong base in the "
					  "map?): filters by name will not keep them",
				esc_str(sr.name, safe, sizeof safe));
		if (!quiet) {
			char a[32], b[32], f[160];
			dt_flags_str(sr.flags, f, sizeof f);
			printf("imported run '%s' (%s): %lld traces, %s events, %s stored", sr.name,
			       sr.format, (long long)sr.ntraces,
			       cli_count((uint64_t)sr.nevents, a, sizeof a),
			       cli_bytes(sr.bytes, b, sizeof b));
			uint64_t lo[2] = { 0, 0 };
			if (!strcmp(sr.format, "otf2"))
				left_out_kinds(s, sr.id, lo);
			if (sr.flags)
				printf("; flagged: %s", f);
			for (int w = 0; w < 2; w++)
				if (lo[w])
					printf("; %s record%s of kinds %s left out", cli_count(lo[w], a, sizeof a),
					       lo[w] == 1 ? "" : "s",
					       w ? "the OTF2 library does not know" : "difftrace does not map");
			if (sr.flags || lo[0] || lo[1])
				printf(" (see 'difftrace traces %s')", sr.name);
			putchar('\n');
			if (samples_only)
				printf("no traces: the program ended or was stopped before its first MPI "
				       "or OpenMP call; its samples are imported\n");
			/* what the import cannot check, said once per run: most single damaged bytes
			 * of a ParLOT file decode to another valid trace */
			if (!strcmp(sr.format, "parlot"))
				printf("ParLOT files carry no checksum: a damaged byte is found where it "
				       "breaks the codec's framing or rules, else it reads as another "
				       "call\n");
			else if (!strcmp(sr.format, "parlot-raw"))
				printf("ParLOT files carry no checksum: in the uncompressed variant a "
				       "damaged byte reads as another call\n");
			say_srclines(s, sr.id);
			if (nbp) {
				printf("samples of %d processes: %llu ticks, %zu containers", nbp,
				       (unsigned long long)nticks, ncont);
				if (bflags & DT_BF_NO_SAMPLES)
					printf("; some processes have no samples");
				if (bflags & DT_BF_NO_DEBUG)
					printf("; the program has no -g (no types, no stack variables, "
					       "sites without lines)");
				if (bflags & DT_BF_TORN)
					printf("; a process was killed (its samples up to then are kept)");
				if (bflags & DT_BF_NO_MAPS)
					printf("; no maps file (program counters unsymbolized)");
				if (bflags & DT_BF_FULL)
					printf("; the disk was full: a thread's samples stop there");
				if (bflags & DT_BF_STOPPED)
					printf("; a thread's sample file could not grow: its samples "
					       "stop there");
				putchar('\n');
				for (size_t i = 0; i < nnotes; i++) {
					fputs("note: ", stdout);
					esc_fputs(notes[i], stdout);
					putchar('\n');
				}
			}
		}
		store_run_free(&sr);
	}
}

/* The format of each of the n paths (fmt unless it is DT_FMT_AUTO), in a new array; NULL, with
 * e set, at the first that is none. */
static dt_format *detect_formats(char **paths, int n, dt_format fmt, dt_err *e)
{
	dt_format *fmts = xcalloc((size_t)n, sizeof *fmts);
	for (int i = 0; i < n; i++) {
		fmts[i] = fmt != DT_FMT_AUTO ? fmt : import_detect(paths[i], e);
		if (!fmts[i]) {
			free(fmts);
			return NULL;
		}
	}
	return fmts;
}

/* Decodes tw's paths into w: on the threads of this process (jobs > 1, not in a job: they
 * share the units as the processes of a job do, and this one writes them into the store), or
 * with the other processes of job, whose units are replayed in their places (cli_par.h), or
 * alone. The threads are ended on success; on failure *ptp is left for the caller to end. */
static int decode_all(struct twork *tw, int jobs, dt_par *job, store_writer *w, struct prog *pr,
		      par_threads **ptp, dt_err *e)
{
	dt_import_opts io = tw->io;
	if (!job && jobs > 1) {
		if (!(*ptp = par_threads_start(jobs + 1, thread_import, tw, e)))
			return -1;
		job = par_threads_root(*ptp);
	}
	par_root root = { job, store_writer_sink(w), 0 };
	if (job) {
		io.unit = par_root_unit;
		io.unit_ctx = &root;
	}
	for (int i = 0; i < tw->n; i++) {
		pr->path = tw->paths[i];
		if (import_path(tw->paths[i], tw->fmts[i], &io, store_writer_sink(w), e))
			return -1;
	}
	if (job && par_root_finish(&root, e))
		return -1;
	if (*ptp) {
		par_threads_end(*ptp);
		*ptp = NULL;
	}
	return 0;
}

int cmd_import(cli *c, int argc, char **argv)
{
	struct import_cmd ic;
	int r = import_args(argc, argv, &ic);
	if (r == CLI_HELP_DONE)
		return 0;
	if (r)
		return r;
	int jobs = ic.jobs;
	dt_format fmt = ic.fmt;
	const char *run = ic.run, *label = ic.label;
	dt_import_opts io = ic.io;

	dt_err e;
	dt_err_clear(&e);
	dt_par *job = cli_par_job;
	/* Detect every format first, so a wrong PATH fails before the store is touched. */
	dt_format *fmts = detect_formats(argv + optind, argc - optind, fmt, &e);
	if (!fmts) /* every process of a job finds the same: process 0 says it */
		return job && job->rank ? e.status : cli_fail(&e);
	if (job && job->rank) {
		r = par_worker_import(job, argv + optind, fmts, argc - optind, &io);
		free(fmts);
		return r;
	}
	store *s = NULL;
	if (cli_open_store(c, STORE_OPEN_CREATE, &s, &e)) {
		free(fmts);
		r = cli_fail(&e);
		if (job)
			job->abort(job, r);
		return r;
	}
	struct sigaction sa = { 0 }, old_int, old_term;
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);

	char *name = NULL;
	store_writer *w = NULL;
	par_threads *pt = NULL;
	struct twork tw = { argv + optind, fmts, argc - optind, io };
	int64_t run_id = 0;
	struct prog pr;
	progress_init(&pr.p);
	int rc = 1;
	struct import_samples sm = { 0 }; /* the sample import's */
	store_set_cancel(s, &interrupted);
	if (store_import_begin(s, &e))
		goto fail;
	if (run) {
		name = xstrdup(run);
	} else {
		char *base = default_run_name(argv[optind]);
		name = store_run_fresh_name(s, base, &e);
		free(base);
	}
	if (!name)
		goto fail;
	if (store_run_create(s, name, label, dt_format_name(fmts[0]), argv[optind], &run_id, &e))
		goto fail;
	if (!(w = store_writer_new(s, run_id, &interrupted))) {
		dt_errf(&e, DT_EDATA, "cannot prepare the import");
		goto fail;
	}
	store_writer_on_progress(w, show_progress, &pr);
	if (decode_all(&tw, jobs, job, w, &pr, &pt, &e))
		goto fail;
	/* a run stopped before its first MPI or OpenMP call under --sync-only has samples and
	 * no traces: what is there is imported */
	int samples_only = 0;
	if (!store_writer_traces(w)) {
		for (int i = optind; i < argc && !samples_only; i++)
			samples_only = sample_present(argv[i]);
		if (!samples_only) {
			dt_err_at(&e, argv[optind], -1, "no traces found");
			goto fail;
		}
	}
	if (store_writer_finish(w, &e) || interrupted)
		goto fail;
	/* the sample record beside the traces, in the same transaction */
	if (import_samples(s, run_id, argv + optind, argc - optind, &sm, &e))
		goto fail;
	if (interrupted)
		goto fail;
	store_writer_free(w);
	w = NULL;
	char *got = NULL;
	if (store_import_publish(s, !run, &got, &e))
		goto fail;
	free(name);
	name = got;
	progress_end(&pr.p);
	import_summary(s, name, io.quiet, samples_only, &sm);
	rc = 0;
	goto out;
fail:
	progress_end(&pr.p);
	store_writer_free(w);
	w = NULL;
	store_import_abort(s);
	if (interrupted) {
		fprintf(stderr, "difftrace: import interrupted; the store is unchanged\n");
		rc = 130;
	} else {
		rc = cli_fail(&e);
		fprintf(stderr, "difftrace: nothing was imported; the store is unchanged\n");
	}
	if (pt) {
		/* the threads may wait to send: stop them */
		par_threads_end(pt);
		pt = NULL;
	} else if (job) {
		/* the other processes may wait to send: end the job */
		store_close(s);
		s = NULL;
		job->abort(job, rc);
	}
out:
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	store_writer_free(w);
	store_close(s);
	free(name);
	free(fmts);
	for (size_t i = 0; i < sm.nnotes; i++)
		free(sm.notes[i]);
	free(sm.notes);
	return rc;
}
