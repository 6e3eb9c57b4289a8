/* par_mpi.c: difftrace-mpi, the difftrace program in an MPI job (par.h): MPI_COMM_WORLD as
 * the transport of a parallel import or analysis. Built with mpicc when configure finds it. */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cli/cli_par.h"
#include "util/util.h"

int cli_main(int argc, char **argv);

enum { TAG_LEN = 7101, TAG_DATA = 7102 };
#define PIECE ((size_t)1 << 30) /* MPI counts are ints: big messages go in pieces */

static int mpi_fail(dt_err *e, int rc, const char *what)
{
	char msg[MPI_MAX_ERROR_STRING];
	int len = 0;
	MPI_Error_string(rc, msg, &len);
	return dt_errf(e, DT_EDATA, "MPI %s failed: %.*s", what, len, msg);
}

/* Waits for r without spinning: an MPI library waits by polling, at full speed, which on a
 * machine shared by the job's processes takes a core from the process doing the work (process
 * 0 waiting for a share, another waiting for process 0's next pass). Polls with a sleep that
 * grows from 20 us to 2 ms: a wait costs at most that much more. Only the length that comes
 * before a message is waited for so (the idle wait); the message itself is moved with the
 * library's own calls, at its speed (a large one goes in many fragments, each of which would
 * wait for a poll). */
static int wait_for(MPI_Request *r)
{
	long us = 20;
	for (;;) {
		int done = 0;
		int rc = MPI_Test(r, &done, MPI_STATUS_IGNORE);
		if (rc != MPI_SUCCESS || done)
			return rc;
		struct timespec ts = { 0, us * 1000 };
		nanosleep(&ts, NULL);
		if (us < 2000)
			us *= 2;
	}
}

static int p_recv(dt_par *p, int from, uint8_t **buf, size_t *n, dt_err *e)
{
	(void)p;
	uint64_t len = 0;
	MPI_Request rq;
	int rc = MPI_Irecv(&len, 1, MPI_UINT64_T, from, TAG_LEN, MPI_COMM_WORLD, &rq);
	if (rc == MPI_SUCCESS)
		rc = wait_for(&rq);
	if (rc != MPI_SUCCESS)
		return mpi_fail(e, rc, "receive");
	*buf = xmalloc((size_t)len + 1);
	*n = (size_t)len;
	for (size_t off = 0; off < len; off += PIECE) {
		size_t m = len - off < PIECE ? len - off : PIECE;
		rc = MPI_Recv(*buf + off, (int)m, MPI_BYTE, from, TAG_DATA, MPI_COMM_WORLD,
			      MPI_STATUS_IGNORE);
		if (rc != MPI_SUCCESS) {
			free(*buf);
			*buf = NULL;
			return mpi_fail(e, rc, "receive");
		}
	}
	return 0;
}

static int p_send(dt_par *p, const uint8_t *buf, size_t n, dt_err *e)
{
	(void)p;
	uint64_t len = n;
	MPI_Request rq;
	int rc = MPI_Isend(&len, 1, MPI_UINT64_T, 0, TAG_LEN, MPI_COMM_WORLD, &rq);
	if (rc == MPI_SUCCESS)
		rc = wait_for(&rq);
	for (size_t off = 0; rc == MPI_SUCCESS && off < n; off += PIECE) {
		size_t m = n - off < PIECE ? n - off : PIECE;
		rc = MPI_Send(buf + off, (int)m, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD);
	}
	return rc == MPI_SUCCESS ? 0 : mpi_fail(e, rc, "send");
}

static int p_bcast(dt_par *p, uint8_t **buf, size_t *n, dt_err *e)
{
	uint64_t len = p->rank ? 0 : *n;
	MPI_Request rq;
	int rc = MPI_Ibcast(&len, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD, &rq);
	if (rc == MPI_SUCCESS)
		rc = wait_for(&rq);
	if (rc != MPI_SUCCESS)
		return mpi_fail(e, rc, "broadcast");
	if (p->rank) {
		*buf = xmalloc((size_t)len + 1);
		*n = (size_t)len;
	}
	for (size_t off = 0; rc == MPI_SUCCESS && off < len; off += PIECE) {
		size_t m = len - off < PIECE ? len - off : PIECE;
		rc = MPI_Bcast(*buf + off, (int)m, MPI_BYTE, 0, MPI_COMM_WORLD);
	}
	if (rc == MPI_SUCCESS)
		return 0;
	if (p->rank) {
		free(*buf);
		*buf = NULL;
	}
	return mpi_fail(e, rc, "broadcast");
}

static void p_abort(dt_par *p, int status)
{
	(void)p;
	fflush(stdout);
	fflush(stderr);
	MPI_Abort(MPI_COMM_WORLD, status);
	exit(status);
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	static dt_par job = { .rank = 0, .size = 1, .recv = p_recv, .send = p_send,
			      .bcast = p_bcast, .abort = p_abort };
	MPI_Comm_rank(MPI_COMM_WORLD, &job.rank);
	MPI_Comm_size(MPI_COMM_WORLD, &job.size);
	cli_par_job = job.size > 1 ? &job : NULL;
	int rc = cli_main(argc, argv);
	MPI_Finalize();
	return rc;
}
