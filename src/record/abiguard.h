/* abiguard.h: a preloaded recorder library refuses to run beside another MPI's library.
 *
 * The recorder libraries are built against one MPI (mpicc's, or mpicc.mpich's for
 * libdifftrace-sync-mpich.so) and pass that MPI's handles (MPI_COMM_WORLD, MPI_INT) to the
 * PMPI functions. In a program of the other family, those functions are the program's MPI's
 * (the program's libmpi comes first in the global scope), which do not know the handles: under
 * MPICH every rank aborted at its first call ("Invalid communicator"), under Open MPI it would
 * crash. difftrace-record chooses the matching library from the program's libmpi; this check,
 * from the library's constructor, catches what it cannot see (a script that runs the program,
 * a library named by DIFFTRACE_SYNC_LIB, DIFFTRACE_INJECT_LIB or DIFFTRACE_SAMPLE_LIB):
 * before main(), the program has not started.
 *
 * Included by one file of each library; needs _GNU_SOURCE (dladdr) and <mpi.h>. */
#ifndef DT_RECORD_ABIGUARD_H
#define DT_RECORD_ABIGUARD_H

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The function looked up: one every MPI of the MPI-3 standard has, that no program calls
 * through a pointer (a program built without -fPIE that takes a function's address defines
 * the symbol itself, which would look like another MPI). */
#define ABI_PROBE "PMPI_Get_library_version"

/* Exits 2 with a message naming both libraries when the ABI_PROBE the program's global scope
 * gives is not the one of this library's own libmpi. `who` ("difftrace-sync") prefixes the
 * message and names the libraries of its kind (libdifftrace-sync.so, ...-mpich.so). */
static void abi_guard(const char *who)
{
	Dl_info me, ours, theirs;
	if (!dladdr((void *)abi_guard, &me) || !me.dli_fname || !me.dli_fname[0])
		return;
	/* this library's own scope: itself (no PMPI_ function) and the libmpi it was linked with */
	void *h = dlopen(me.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
	if (!h)
		return;
	void *own = dlsym(h, ABI_PROBE);
	dlclose(h);
	void *prog = dlsym(RTLD_DEFAULT, ABI_PROBE);
	if (!own || !prog || own == prog || !dladdr(own, &ours) || !dladdr(prog, &theirs) ||
	    ours.dli_fbase == theirs.dli_fbase || !ours.dli_fname || !theirs.dli_fname)
		return;
	char buf[3072];
	int n = snprintf(buf, sizeof buf,
			 "%s: the program loads the MPI library %s, but %s was built for %s, "
			 "whose handles the program's MPI does not know: not started. "
			 "difftrace-record chooses the library of the program's MPI family "
			 "(lib%s.so, lib%s-mpich.so; --mpi names the family)\n",
			 who, theirs.dli_fname, me.dli_fname, ours.dli_fname, who, who);
	if (n > 0) {
		ssize_t w = write(STDERR_FILENO, buf,
				  (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
		(void)w;
	}
	_exit(2);
}

#endif
