/* transfer.h: transfer functions by prototype (difftrace-transfer(5)): for a library
 * function, which argument receives the blame of the time spent in it, which arguments feed
 * that one, how many bytes it moves, and how a request carries blame to its wait. The shipped
 * files blame/mpi.transfer, libc.transfer and blas.transfer cover MPI, the C library's memory
 * and string routines and BLAS levels 1 to 3; user files add or replace functions.
 *
 * The sampler (difftrace-sample(5)) records, for a sample inside an MPI call that moves data,
 * the call's send and receive buffers; transfer_blame picks among them the container of the
 * argument this table blames. */
#ifndef DT_TRANSFER_H
#define DT_TRANSFER_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

#define TRANSFER_MAX_FROM 4
#define TRANSFER_RETURN (-1) /* blame=return: the call's value */


typedef struct transfer_fn {
	char *name;
	int blame;                     /* argument position from 1; TRANSFER_RETURN the value the
					* call returns; 0 none */
	int from[TRANSFER_MAX_FROM];   /* feeding arguments, 0-terminated */
	int count, type;               /* bytes = count x size of type (x size); 0 none */
	int type2;                     /* a third factor of bytes (an argument), 0 none */
	int size;                      /* size=: bytes per element, a constant; 0 none */
	int request;                   /* the request argument of a nonblocking call; 0 none */
	int wait;                      /* the request argument of a wait; 0 none */
	char *file;                    /* where it was defined */
	int line;
} transfer_fn;

typedef struct transfer_set {
	transfer_fn *fn;
	size_t n, cap;
} transfer_set;

/* Adds the functions of FILE to set (a later definition of a name replaces the earlier one).
 * A bad line is an error naming file:line:col. */
int transfer_load(transfer_set *set, const char *file, dt_err *e);
/* The same from text (name is the file name for errors). */
int transfer_parse(transfer_set *set, const char *name, const char *text, size_t len,
		   dt_err *e);
const transfer_fn *transfer_find(const transfer_set *set, const char *name);
void transfer_free(transfer_set *set);
/* The shipped files, in the order they are read. */
extern const char *const transfer_shipped[];
/* The shipped file `file` (one of transfer_shipped): $DIFFTRACE_BLAME_PATH/file, else the
 * source tree's, else $(pkgdatadir)/blame/file. A new string. */
char *transfer_shipped_path(const char *file);
/* The path of mpi.transfer (transfer_shipped_path). A new string. */
char *transfer_default_path(void);
/* Loads every shipped file into set (transfer_load's errors). */
int transfer_load_shipped(transfer_set *set, dt_err *e);

/* The argument positions of the buffers the sampler records for an MPI call (its send and
 * receive buffer; for a wait, the request argument for both), by the call's name; 0 when the
 * sampler does not record that buffer. Returns 0 when the call is not one the sampler
 * wraps. */
int transfer_recorded_args(const char *call, int *send_arg, int *recv_arg);

/* The container a sample inside `call` is blamed on: c0 and c1 are the containers of its
 * recorded send and receive buffers (-1 none). Returns -1 when the table does not blame any
 * recorded buffer (the sample then goes where the blame stage sends unblamed samples). */
int32_t transfer_blame(const transfer_set *set, const char *call, int32_t c0, int32_t c1);

#endif
