/* wrapper.h: the compile flags of MPI compiler wrappers, asked of them (blame/wrapper.c), for
 * blame-index on the compile commands users have. */
#ifndef DT_BLAME_WRAPPER_H
#define DT_BLAME_WRAPPER_H

typedef struct bx_wrapper {
	char *path;   /* the wrapper run */
	char *asked;  /* the command that answered ("mpicc --showme:compile"), NULL none did */
	char **flags; /* the compile flags it adds */
	int nflags;
} bx_wrapper;

/* 1 when a command's compiler (argv0) is an MPI compiler wrapper: mpi* (mpicc, mpicxx,
 * mpif90, mpiicc, mpicc.openmpi...), and Cray's cc, CC and ftn in a Cray environment. */
int bx_is_wrapper(const char *argv0);

/* Asks the wrapper argv0 (found in PATH, or relative to dir) for its compile flags: Open MPI's
 * --showme:compile, MPICH's -show (its preprocessor flags), Cray's --cray-print-opts=cflags.
 * -1 when none answered (w->path is set when the wrapper was found). */
int bx_wrapper_query(const char *argv0, const char *dir, bx_wrapper *w);
void bx_wrapper_free(bx_wrapper *w);

/* 0 for a Fortran source (by its suffix), which libclang cannot parse; 1 otherwise. */
int bx_is_c_source(const char *path);

#endif
