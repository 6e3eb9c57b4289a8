/* cli_par.c: difftrace import and analyze over the processes of an MPI job (see cli_par.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli_par.h"
#include "util/esc.h"

dt_par *cli_par_job;

/* The size of the job this process belongs to, from the launchers' environment; 1 when none. */
static long job_size(void)
{
	static const char *const vars[] = { "OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE",
					     "MPI_LOCALNRANKS", "SLURM_NTASKS" };
	for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
		const char *v = getenv(vars[i]);
		if (!v || !*v)
			continue;
		/* Slurm sets SLURM_NTASKS in the batch script too: only a task of srun counts */
		if (!strcmp(vars[i], "SLURM_NTASKS") && !getenv("SLURM_PROCID"))
			continue;
		char *end;
		long n = strtol(v, &end, 10);
		if (!*end && n > 0)
			return n;
	}
	return 1;
}

void cli_par_exec(int argc, char **argv)
{
	if (cli_par_job || getenv("DIFFTRACE_NO_MPI"))
		return;
	/* the verb: the first argument that is not a global option */
	const char *verb = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-d") || !strcmp(argv[i], "--db")) {
			i++;
			continue;
		}
		if (argv[i][0] == '-')
			continue;
		verb = argv[i];
		break;
	}
	if (!verb || (strcmp(verb, "import") && strcmp(verb, "analyze")))
		return;
	long size = job_size();
	if (size < 2)
		return;
	char path[PATH_MAX];
	const char *env = getenv("DIFFTRACE_MPI");
	if (env && *env) {
		snprintf(path, sizeof path, "%s", env);
	} else {
		ssize_t l = readlink("/proc/self/exe", path, sizeof path - 32);
		if (l <= 0) {
			path[0] = 0;
		} else {
			path[l] = 0;
			char *slash = strrchr(path, '/');
			char *base = slash ? slash + 1 : path;
			/* difftrace-mpi is built for mpicc's MPI, difftrace-mpi-mpich (or -openmpi)
			 * for the other family when configure found it: a process of the other
			 * family's launcher cannot join the job with mpicc's (Open MPI's launcher
			 * sets OMPI_COMM_WORLD_SIZE, MPICH's Hydra PMI_SIZE) */
			const char *fam = getenv("OMPI_COMM_WORLD_SIZE") ? "openmpi"
					  : getenv("PMI_SIZE") ? "mpich" : NULL;
			snprintf(base, 32, "difftrace-mpi-%s", fam ? fam : "");
			if (!fam || access(path, X_OK) != 0)
				snprintf(base, 32, "difftrace-mpi");
		}
	}
	if (path[0] && access(path, X_OK) == 0) {
		argv[0] = path;
		execv(path, argv);
	}
	fprintf(stderr,
		"difftrace: this process is one of a job of %ld, but difftrace-mpi is not "
		"here (%s: %s): build difftrace where mpicc is found, or %s without the "
		"launcher (DIFFTRACE_NO_MPI=1 makes every process %s on its own)\n",
		size, path[0] ? path : "difftrace-mpi", path[0] ? strerror(errno) : "not found",
		verb, verb);
	exit(2);
}

/* ---- process 0 --------------------------------------------------------------------------- */

/* Receives unit `u` from its process and replays it into the store. */
static int replay_from(par_root *r, int from, uint64_t u, dt_err *e)
{
	char what[64];
	snprintf(what, sizeof what, "process %d, unit %llu", from, (unsigned long long)u);
	wire_replayer rp;
	wire_replayer_init(&rp);
	int rc;
	do { /* its parts, in order */
		uint8_t *buf = NULL;
		size_t n = 0;
		if (r->job->recv(r->job, from, &buf, &n, e)) {
			rc = -1;
			break;
		}
		rc = wire_replay_part(&rp, buf, n, r->store, what, e);
		free(buf);
	} while (rc == 1);
	wire_replayer_free(&rp);
	if (rc && !e->msg[0])
		dt_errf(e, DT_EDATA, "%s: failed", what);
	return rc;
}

int par_root_unit(void *ctx, dt_err *e)
{
	par_root *r = ctx;
	uint64_t u = r->next++;
	int from = par_unit_owner(r->job, u);
	if (from == 0)
		return 1;
	return replay_from(r, from, u, e) ? -1 : 0;
}

int par_root_finish(par_root *r, dt_err *e)
{
	for (int p = 1; p < r->job->size; p++) {
		uint8_t *buf = NULL;
		size_t n = 0;
		if (r->job->recv(r->job, p, &buf, &n, e))
			return -1;
		int rc = n ? wire_replay(buf, n, r->store, "a process's end", e) : 0;
		free(buf);
		if (rc)
			return -1;
	}
	return 0;
}

/* ---- the other processes ----------------------------------------------------------------- */

typedef struct worker {
	dt_par *job;
	dt_buf out;
	wire_sink w;
	uint64_t next;
	int open; /* a unit of ours is being decoded */
	int failed;
} worker;

static int worker_flush(worker *k, dt_err *e)
{
	if (!k->open)
		return 0;
	k->open = 0;
	if (k->job->give && k->out.len >= WIRE_PART_BYTES / 16) {
		/* a large unit's last part: handed on, not copied, as a part is (worker_part);
		 * a small one is copied, its buffer kept for the next unit */
		size_t cap = k->out.cap;
		int rc = k->job->give(k->job, k->out.p, k->out.len, e);
		k->out = (dt_buf){ 0 };
		GROW(k->out.p, k->out.cap, cap);
		return rc;
	}
	int rc = k->job->send(k->job, k->out.p, k->out.len, e);
	k->out.len = 0;
	return rc;
}

/* The unit outgrew a part: send what it holds, the rest follows. */
static int worker_part(void *ctx, dt_err *e)
{
	worker *k = ctx;
	wire_part_end(&k->out);
	if (!k->job->give) {
		int rc = k->job->send(k->job, k->out.p, k->out.len, e);
		k->out.len = 0;
		return rc;
	}
	/* handed on, not copied: a new buffer of the part's size for the next part */
	size_t cap = k->out.cap;
	int rc = k->job->give(k->job, k->out.p, k->out.len, e);
	k->out = (dt_buf){ 0 };
	GROW(k->out.p, k->out.cap, cap);
	return rc;
}

static int worker_unit(void *ctx, dt_err *e)
{
	worker *k = ctx;
	if (worker_flush(k, e))
		return -1;
	uint64_t u = k->next++;
	if (par_unit_owner(k->job, u) != k->job->rank)
		return 0;
	k->open = 1;
	k->out.len = 0;
	wire_sink_reset(&k->w);
	return 1;
}

int par_worker_import(dt_par *job, char **paths, const dt_format *fmts, int n,
		      const dt_import_opts *io)
{
	worker k;
	memset(&k, 0, sizeof k);
	k.job = job;
	wire_sink_init(&k.w, &k.out);
	k.w.limit = WIRE_PART_BYTES;
	k.w.full = worker_part;
	k.w.full_ctx = &k;
	dt_import_opts o = *io;
	o.quiet = 1;
	o.unit = worker_unit;
	o.unit_ctx = &k;
	dt_err e;
	dt_err_clear(&e);
	int rc = 0;
	for (int i = 0; i < n && !rc; i++)
		rc = import_path(paths[i], fmts[i], &o, &k.w.sink, &e);
	if (!rc)
		rc = worker_flush(&k, &e);
	/* the last message: empty, or the error (in place of the unit it stopped, if any) */
	k.out.len = 0;
	if (rc) {
		if (!e.status)
			dt_errf(&e, DT_EDATA, "process %d failed", job->rank);
		wire_error(&k.out, &e);
	}
	dt_err se;
	dt_err_clear(&se);
	int src = job->send(job, k.out.p, k.out.len, &se);
	buf_free(&k.out);
	wire_sink_free(&k.w);
	return rc || src ? 1 : 0;
}
