/* mpi_family.h: which MPI a recorded process ran on, told by the libraries it loaded, and the
 * words its MPI constants are written as.
 *
 * The MPI standard fixes the names of MPI_ANY_SOURCE, MPI_PROC_NULL and MPI_ANY_TAG, not their
 * values: Open MPI's are -1, -2 and -1, MPICH's (and its descendants': Intel MPI, MVAPICH,
 * Cray MPICH) -2, -1 and -1. A recorded argument is the bare number, so the importer, which
 * knows the libraries of each recorded process, writes the constants as words that read the
 * same under both (source=ANY, dest=PROC_NULL, tag=ANY) before anything else reads them. */
#ifndef DT_MPI_FAMILY_H
#define DT_MPI_FAMILY_H

enum mpi_family {
	MPI_FAM_UNKNOWN = 0, /* no MPI library, or one whose name does not say */
	MPI_FAM_MPICH = 1,   /* MPICH and the MPIs that keep its ABI */
	MPI_FAM_OPENMPI = 2,
};

/* The family a library's file name (its base name, libmpich.so.12) says, or MPI_FAM_UNKNOWN.
 * Of several libraries, the highest family wins: Open MPI 1.10's libmpi.so.12 (the number
 * MPICH's ABI uses) comes with Open MPI's libopen-pal. */
int mpi_family_of_lib(const char *base);

/* The word for the value v of the argument key of an MPI call in family fam: "ANY" for
 * MPI_ANY_SOURCE (key source), "PROC_NULL" for MPI_PROC_NULL (key source or dest), "ANY" for
 * MPI_ANY_TAG (key recvtag, or tag when recv: the call receives); NULL when v is no such
 * constant, or the family is unknown (the number stays a number). */
const char *mpi_const_word(int fam, const char *key, int recv, long v);

#endif
