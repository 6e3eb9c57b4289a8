/* mpi_family.c: an MPI's family from its libraries' names, and its constants as words
 * (mpi_family.h). */
#include <string.h>

#include "import/mpi_family.h"

static int starts(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

int mpi_family_of_lib(const char *base)
{
	static const char *const ompi[] = { "libopen-pal.so", "libopen-rte.so", "libmpi.so.40",
					    "libmpi.so.20", "libmpi_mpifh.so", "libmpi_usempi",
					    "libompitrace.so" };
	static const char *const mpich[] = { "libmpich", "libmpi.so.12", "libmpifort.so.12",
					     "libmpi_cray" };
	if (!base)
		return MPI_FAM_UNKNOWN;
	for (size_t i = 0; i < sizeof ompi / sizeof *ompi; i++)
		if (starts(base, ompi[i]))
			return MPI_FAM_OPENMPI;
	for (size_t i = 0; i < sizeof mpich / sizeof *mpich; i++)
		if (starts(base, mpich[i]) && strstr(base, ".so"))
			return MPI_FAM_MPICH;
	return MPI_FAM_UNKNOWN;
}

const char *mpi_const_word(int fam, const char *key, int recv, long v)
{
	if (fam != MPI_FAM_OPENMPI && fam != MPI_FAM_MPICH)
		return NULL;
	long any_source = fam == MPI_FAM_OPENMPI ? -1 : -2;
	long proc_null = fam == MPI_FAM_OPENMPI ? -2 : -1;
	if (!strcmp(key, "source"))
		return v == any_source ? "ANY" : v == proc_null ? "PROC_NULL" : NULL;
	if (!strcmp(key, "dest"))
		return v == proc_null ? "PROC_NULL" : NULL;
	if (!strcmp(key, "recvtag") || (recv && !strcmp(key, "tag")))
		return v == -1 ? "ANY" : NULL; /* MPI_ANY_TAG is -1 in both */
	return NULL;
}
