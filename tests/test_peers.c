/* test_peers.c: MPI peers written relative to the caller where that makes a regular pattern
 * one call (a ring, a pairwise exchange), absolute where it does not (a master's workers),
 * ANY for MPI_ANY_SOURCE, relative on a tie (a run that kept one rank). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "analysis/peers.h"
#include "util/util.h"

static char out[256];

static const char *rw(const peers *p, const char *name, int proc)
{
	dt_buf b = { 0 };
	peers_rewrite(p, name, proc, &b);
	snprintf(out, sizeof out, "%s", (const char *)b.p);
	buf_free(&b);
	return out;
}

int main(void)
{
	peers *p = peers_new(4);
	char n[128];
	for (int r = 0; r < 4; r++) {
		/* a ring: right and left */
		snprintf(n, sizeof n, "MPI_Isend[count=1,datatype=DOUBLE,dest=%d,tag=7,comm=WORLD]", (r + 1) % 4);
		peers_see(p, n, r);
		snprintf(n, sizeof n, "MPI_Irecv[count=1,datatype=DOUBLE,source=%d,tag=7,comm=WORLD]", (r + 3) % 4);
		peers_see(p, n, r);
		/* workers send their results to rank 0 */
		if (r)
			peers_see(p, "MPI_Send[count=1,datatype=DOUBLE,dest=0,tag=4,comm=WORLD]", r);
	}
	peers_see(p, "MPI_Recv[count=1,datatype=DOUBLE,source=-1,tag=4,comm=WORLD]", 0);
	peers_decide(p);
	CHECK_EQ_STR(rw(p, "MPI_Isend[count=1,datatype=DOUBLE,dest=0,tag=7,comm=WORLD]", 3),
		     "MPI_Isend[count=1,datatype=DOUBLE,dest=rank+1,tag=7,comm=WORLD]");
	CHECK_EQ_STR(rw(p, "MPI_Isend[count=1,datatype=DOUBLE,dest=2,tag=7,comm=WORLD]", 1),
		     "MPI_Isend[count=1,datatype=DOUBLE,dest=rank+1,tag=7,comm=WORLD]");
	CHECK_EQ_STR(rw(p, "MPI_Irecv[count=1,datatype=DOUBLE,source=0,tag=7,comm=WORLD]", 1),
		     "MPI_Irecv[count=1,datatype=DOUBLE,source=rank-1,tag=7,comm=WORLD]");
	CHECK_EQ_STR(rw(p, "MPI_Send[count=1,datatype=DOUBLE,dest=0,tag=4,comm=WORLD]", 3),
		     "MPI_Send[count=1,datatype=DOUBLE,dest=0,tag=4,comm=WORLD]");
	CHECK_EQ_STR(rw(p, "MPI_Recv[count=1,datatype=DOUBLE,source=-1,tag=4,comm=WORLD]", 0),
		     "MPI_Recv[count=1,datatype=DOUBLE,source=ANY,tag=4,comm=WORLD]");
	/* a relative peer cannot be read as MPI_ANY_SOURCE (Open MPI's -1), nor a rank */
	CHECK(!strstr(rw(p, "MPI_Irecv[count=1,datatype=DOUBLE,source=3,tag=7,comm=WORLD]", 0),
		      "=-"));
	/* another tag is another kind of call, never seen: absolute */
	CHECK_EQ_STR(rw(p, "MPI_Isend[count=1,datatype=DOUBLE,dest=3,tag=99,comm=WORLD]", 2),
		     "MPI_Isend[count=1,datatype=DOUBLE,dest=3,tag=99,comm=WORLD]");
	peers_free(p);

	/* a run cut short that kept one rank of the ring: relative, as the whole run */
	p = peers_new(4);
	peers_see(p, "MPI_Isend[count=1,datatype=DOUBLE,dest=2,tag=7,comm=WORLD]", 1);
	peers_decide(p);
	CHECK_EQ_STR(rw(p, "MPI_Isend[count=1,datatype=DOUBLE,dest=2,tag=7,comm=WORLD]", 1),
		     "MPI_Isend[count=1,datatype=DOUBLE,dest=rank+1,tag=7,comm=WORLD]");
	/* no peer: unchanged */
	CHECK_EQ_STR(rw(p, "MPI_Allreduce[count=1,datatype=INT,op=MIN,comm=WORLD]", 1),
		     "MPI_Allreduce[count=1,datatype=INT,op=MIN,comm=WORLD]");
	peers_free(p);
	CHECK_DONE();
}
