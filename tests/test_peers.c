/* test_peers.c: MPI peers written relative to the caller where that makes a regular pattern
 * one call (a ring, a pairwise exchange), absolute where it does not (a master's workers),
 * relative on a tie (a run that kept one rank); MPI_ANY_SOURCE, MPI_PROC_NULL and MPI_ANY_TAG
 * written as words by the family of the MPI (Open MPI's -1, -2, -1; MPICH's -2, -1, -1), which
 * no peer reads as, and a bare number left alone when the family is unknown. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "analysis/peers.h"
#include "import/mpi_family.h"
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
	peers_see(p, "MPI_Recv[count=1,datatype=DOUBLE,source=ANY,tag=4,comm=WORLD]", 0);
	peers_decide(p);
	CHECK_EQ_STR(rw(p, "MPI_Isend[count=1,datatype=DOUBLE,dest=0,tag=7,comm=WORLD]", 3),
		     "MPI_Isend[count=1,datatype=DOUBLE,dest=rank+1,tag=7,comm=WORLD]");
	CHECK_EQ_STR(rw(p, "MPI_Isend[count=1,datatype=DOUBLE,dest=2,tag=7,comm=WORLD]", 1),
		     "MPI_Isend[count=1,datatype=DOUBLE,dest=rank+1,tag=7,comm=WORLD]");
	CHECK_EQ_STR(rw(p, "MPI_Irecv[count=1,datatype=DOUBLE,source=0,tag=7,comm=WORLD]", 1),
		     "MPI_Irecv[count=1,datatype=DOUBLE,source=rank-1,tag=7,comm=WORLD]");
	CHECK_EQ_STR(rw(p, "MPI_Send[count=1,datatype=DOUBLE,dest=0,tag=4,comm=WORLD]", 3),
		     "MPI_Send[count=1,datatype=DOUBLE,dest=0,tag=4,comm=WORLD]");
	CHECK_EQ_STR(rw(p, "MPI_Recv[count=1,datatype=DOUBLE,source=ANY,tag=4,comm=WORLD]", 0),
		     "MPI_Recv[count=1,datatype=DOUBLE,source=ANY,tag=4,comm=WORLD]");
	/* the words of the importer stay; a bare negative number (an MPI the importer could not
	 * tell) is no peer, and not guessed to be ANY: it is MPI_PROC_NULL in MPICH */
	CHECK_EQ_STR(rw(p, "MPI_Recv[count=1,datatype=DOUBLE,source=-1,tag=4,comm=WORLD]", 0),
		     "MPI_Recv[count=1,datatype=DOUBLE,source=-1,tag=4,comm=WORLD]");
	CHECK_EQ_STR(rw(p, "MPI_Isend[count=1,datatype=DOUBLE,dest=PROC_NULL,tag=7,comm=WORLD]", 3),
		     "MPI_Isend[count=1,datatype=DOUBLE,dest=PROC_NULL,tag=7,comm=WORLD]");
	CHECK_EQ_STR(rw(p, "MPI_Irecv[count=1,datatype=DOUBLE,source=PROC_NULL,tag=ANY,comm=WORLD]", 0),
		     "MPI_Irecv[count=1,datatype=DOUBLE,source=PROC_NULL,tag=ANY,comm=WORLD]");
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

	/* a halo exchange under MPICH: the edges send to and receive from MPI_PROC_NULL (the
	 * importer's words), the others their neighbours, relative; PROC_NULL counts as no peer,
	 * so the inner ranks' pattern stays one call */
	p = peers_new(4);
	for (int r = 0; r < 4; r++) {
		if (r < 3)
			snprintf(n, sizeof n, "MPI_Send[count=8,datatype=DOUBLE,dest=%d,tag=1,comm=WORLD]", r + 1);
		else
			snprintf(n, sizeof n, "MPI_Send[count=8,datatype=DOUBLE,dest=PROC_NULL,tag=1,comm=WORLD]");
		peers_see(p, n, r);
	}
	peers_decide(p);
	CHECK_EQ_STR(rw(p, "MPI_Send[count=8,datatype=DOUBLE,dest=2,tag=1,comm=WORLD]", 1),
		     "MPI_Send[count=8,datatype=DOUBLE,dest=rank+1,tag=1,comm=WORLD]");
	CHECK_EQ_STR(rw(p, "MPI_Send[count=8,datatype=DOUBLE,dest=PROC_NULL,tag=1,comm=WORLD]", 3),
		     "MPI_Send[count=8,datatype=DOUBLE,dest=PROC_NULL,tag=1,comm=WORLD]");
	peers_free(p);

	/* the constants by family: MPICH's MPI_ANY_SOURCE is -2 and its MPI_PROC_NULL -1, Open
	 * MPI's the other way round; MPI_ANY_TAG is -1 in both, a receive's only */
	CHECK_EQ_STR(mpi_const_word(MPI_FAM_MPICH, "source", 1, -2), "ANY");
	CHECK_EQ_STR(mpi_const_word(MPI_FAM_MPICH, "source", 1, -1), "PROC_NULL");
	CHECK_EQ_STR(mpi_const_word(MPI_FAM_MPICH, "dest", 0, -1), "PROC_NULL");
	CHECK(!mpi_const_word(MPI_FAM_MPICH, "dest", 0, -2));
	CHECK_EQ_STR(mpi_const_word(MPI_FAM_MPICH, "tag", 1, -1), "ANY");
	CHECK_EQ_STR(mpi_const_word(MPI_FAM_MPICH, "recvtag", 0, -1), "ANY");
	CHECK(!mpi_const_word(MPI_FAM_MPICH, "tag", 0, -1));      /* a send's tag */
	CHECK(!mpi_const_word(MPI_FAM_MPICH, "sendtag", 0, -1));
	CHECK(!mpi_const_word(MPI_FAM_MPICH, "source", 1, 3));
	CHECK(!mpi_const_word(MPI_FAM_MPICH, "root", 0, -1));
	CHECK_EQ_STR(mpi_const_word(MPI_FAM_OPENMPI, "source", 1, -1), "ANY");
	CHECK_EQ_STR(mpi_const_word(MPI_FAM_OPENMPI, "source", 1, -2), "PROC_NULL");
	CHECK_EQ_STR(mpi_const_word(MPI_FAM_OPENMPI, "dest", 0, -2), "PROC_NULL");
	CHECK(!mpi_const_word(MPI_FAM_OPENMPI, "dest", 0, -1));
	CHECK_EQ_STR(mpi_const_word(MPI_FAM_OPENMPI, "tag", 1, -1), "ANY");
	CHECK(!mpi_const_word(MPI_FAM_UNKNOWN, "source", 1, -1));
	CHECK(!mpi_const_word(MPI_FAM_UNKNOWN, "dest", 0, -2));
	/* the family by the libraries' names */
	CHECK(mpi_family_of_lib("libmpich.so.12.1.10") == MPI_FAM_MPICH);
	CHECK(mpi_family_of_lib("libmpi.so.12") == MPI_FAM_MPICH);       /* Intel MPI, MVAPICH */
	CHECK(mpi_family_of_lib("libmpi_cray.so.12") == MPI_FAM_MPICH);
	CHECK(mpi_family_of_lib("libmpi.so.40.30.1") == MPI_FAM_OPENMPI);
	CHECK(mpi_family_of_lib("libopen-pal.so.13") == MPI_FAM_OPENMPI); /* Open MPI 1.10 */
	CHECK(mpi_family_of_lib("libm.so.6") == MPI_FAM_UNKNOWN);
	CHECK(mpi_family_of_lib("libmpi.so") == MPI_FAM_UNKNOWN);
	CHECK(mpi_family_of_lib("libmpichfoo.a") == MPI_FAM_UNKNOWN);
	CHECK(MPI_FAM_OPENMPI > MPI_FAM_MPICH); /* libopen-pal beside libmpi.so.12 wins */
	CHECK_DONE();
}
