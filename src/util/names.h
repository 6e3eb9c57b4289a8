/* names.h: the names of functions as people know them, from the names binaries give them.
 *
 * C++ names are mangled (_ZNSt8ios_base4InitC1Ev is std::ios_base::Init::Init()), and the
 * Fortran bindings of MPI are the C calls under another name (mpi_send_, mpi_send_f08_,
 * mpi_send_f08ts_ are MPI_Send). The importers name functions by these, so that show, diff,
 * rank and the filters (^MPI_ in mpi.filter) see one name per call; `difftrace import
 * --no-demangle` keeps the binaries' names. */
#ifndef DT_UTIL_NAMES_H
#define DT_UTIL_NAMES_H

#include <stddef.h>

/* The name to import for the function named s (n bytes, not necessarily terminated): a new
 * string (free() it), or NULL when it is the name itself (or on a lack of memory, where the
 * name itself is the right fallback). */
char *dt_name_display(const char *s, size_t n);

/* The MPI name of a Fortran binding of MPI (mpi_comm_rank_ -> MPI_Comm_rank; also
 * mpi_comm_rank__, and mpi_f08's mpi_comm_rank_f08_ and mpi_send_f08ts_), written into out
 * (cap bytes): its length, or 0 when s is no such name or it does not fit. */
size_t dt_name_fortran_mpi(const char *s, size_t n, char *out, size_t cap);

/* s demangled when it is a C++ (Itanium ABI) name: a new string, else NULL. */
char *dt_name_demangle(const char *s, size_t n);

/* A demangled C++ function's name without its template arguments, parameters and return
 * type, as the source names its definition ("double grid::sum<double>(double const*, int)":
 * grid::sum), written into buf (cap bytes); sym itself when it has none of those (a C name). */
const char *dt_name_plain(const char *sym, char *buf, size_t cap);

#endif
