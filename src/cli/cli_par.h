/* cli_par.h: difftrace import over the processes of an MPI job (src/par/par.h).
 *
 * Units of work (rank directories, trace files) are numbered in the order a serial import
 * meets them and dealt round robin (par_unit_owner): unit i is process i mod P's, or, in a job
 * of threads whose thread 0 only writes, thread 1 + i mod (P - 1)'s. Process 0 decodes its own
 * units straight into the store and, at the place of every other unit, replays what its
 * process sent (import/wire.h), so the store is the one a serial import makes. */
#ifndef DT_CLI_PAR_H
#define DT_CLI_PAR_H

#include "import/import.h"
#include "import/wire.h"
#include "par/par.h"

/* The job, when difftrace runs as difftrace-mpi in a job of more than one process; else NULL. */
extern dt_par *cli_par_job;

/* Under a launcher of more than one process, runs difftrace-mpi in place of this program
 * for the commands that use the job (import, analyze: analysis/an_split.h). Returns only when it does not apply (or, with
 * an error printed, exits 2 when difftrace-mpi is missing). */
void cli_par_exec(int argc, char **argv);

/* Process 0's side of an import: the unit callback (dt_import_opts.unit) and the end. */
typedef struct par_root {
	dt_par *job;
	dt_sink *store;   /* the store writer's sink */
	uint64_t next;    /* the next unit's number */
} par_root;
int par_root_unit(void *ctx, dt_err *e);
/* After the last unit: every other process's last message (its error, if it failed). */
int par_root_finish(par_root *r, dt_err *e);

/* The other processes: decode the units dealt to them and send them to process 0. */
int par_worker_import(dt_par *job, char **paths, const dt_format *fmts, int n,
		      const dt_import_opts *io);

#endif
