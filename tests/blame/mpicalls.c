/* mpicalls.c: MPI calls whose call sites tests/blame_index.sh checks (blame-index). */
#include <mpi.h>

double reduce_sum(double local, int root)
{
	double global = 0;
	MPI_Reduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD);
	return global;
}

int share(int n, int root)
{
	int dim = n;
	MPI_Bcast(&dim, 1, MPI_INT, root, MPI_COMM_WORLD);
	return dim;
}
