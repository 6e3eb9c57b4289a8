/* test_names.c: the names functions are imported by (util/names.h): Fortran's MPI bindings
 * as the C calls, C++ names demangled, every other name kept. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "util/names.h"

/* dt_name_display of s, or s itself when it is kept; the result is freed at the next call */
static const char *shown(const char *s)
{
	static char *last;
	free(last);
	last = dt_name_display(s, strlen(s));
	return last ? last : s;
}

static const char *plain(const char *s)
{
	static char buf[256];
	const char *r = dt_name_plain(s, buf, sizeof buf);
	return r;
}

int main(void)
{
	/* a demangled C++ function as its source names it: no template arguments, parameters or
	 * return type (blame matches samples with the index by it) */
	CHECK_EQ_STR(plain("grid::Field<double>::smooth(int)"), "grid::Field::smooth");
	CHECK_EQ_STR(plain("double comm::reduce_sum<double>(double)"), "comm::reduce_sum");
	CHECK_EQ_STR(plain("grid::Field<std::vector<int, std::allocator<int> > >::sum() const"),
		     "grid::Field::sum");
	CHECK_EQ_STR(plain("grid::Field<double>::smooth(int) [clone ._omp_fn.0]"),
		     "grid::Field::smooth");
	CHECK_EQ_STR(plain("relax"), "relax");
	CHECK_EQ_STR(plain("relax._omp_fn.0"), "relax._omp_fn.0");
	/* Fortran: gfortran's one underscore, g77's two, mpi_f08's suffixes */
	CHECK_EQ_STR(shown("mpi_send_"), "MPI_Send");
	CHECK_EQ_STR(shown("mpi_comm_rank_"), "MPI_Comm_rank");
	CHECK_EQ_STR(shown("mpi_init_thread__"), "MPI_Init_thread");
	CHECK_EQ_STR(shown("mpi_barrier_f08_"), "MPI_Barrier");
	CHECK_EQ_STR(shown("mpi_isend_f08ts_"), "MPI_Isend");
	CHECK_EQ_STR(shown("mpi_type_create_f90_integer_"), "MPI_Type_create_f90_integer");
	/* not Fortran bindings of MPI: kept */
	CHECK_EQ_STR(shown("mpi_"), "mpi_");
	CHECK_EQ_STR(shown("mpi_send"), "mpi_send");
	CHECK_EQ_STR(shown("MPI_Send"), "MPI_Send");
	CHECK_EQ_STR(shown("mpi_Send_"), "mpi_Send_");
	CHECK_EQ_STR(shown("mpi__"), "mpi__");
	CHECK_EQ_STR(shown("mpi_9_"), "mpi_9_");
	CHECK_EQ_STR(shown("compute_"), "compute_");
	/* only n bytes are read */
	char f[32];
	CHECK_EQ_INT(dt_name_fortran_mpi("mpi_recv_XYZ", 9, f, sizeof f), 8);
	CHECK_EQ_STR(f, "MPI_Recv");
	CHECK_EQ_INT(dt_name_fortran_mpi("mpi_allreduce_", 14, f, 8), 0); /* does not fit */

	/* C++ */
	CHECK_EQ_STR(shown("_ZNSt8ios_base4InitC1Ev"), "std::ios_base::Init::Init()");
	CHECK_EQ_STR(shown("_Znwm"), "operator new(unsigned long)");
	CHECK_EQ_STR(shown("_ZN4grid5FieldIdE6smoothEi"), "grid::Field<double>::smooth(int)");
	CHECK_EQ_STR(shown("_ZN4grid5FieldIdE6smoothEi._omp_fn.0"),
		     "grid::Field<double>::smooth(int) [clone ._omp_fn.0]");
	CHECK_EQ_STR(shown("_GLOBAL__sub_I__ZN4comm10reduce_sumIdEET_S1_"),
		     "_GLOBAL__sub_I_double comm::reduce_sum<double>(double)");
	/* not mangled, or not validly: kept */
	CHECK_EQ_STR(shown("main"), "main");
	CHECK_EQ_STR(shown("_Z"), "_Z");
	CHECK_EQ_STR(shown("_Zqqq"), "_Zqqq");
	CHECK_EQ_STR(shown("_GLOBAL__sub_I_main.c"), "_GLOBAL__sub_I_main.c");
	CHECK(dt_name_demangle("_ZNSt8ios_base4InitC1Ev", 5) == NULL); /* "_ZNSt" alone */
	shown("main");
	CHECK_DONE();
}
