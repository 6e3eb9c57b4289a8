// Read a coefficient table from rank 0 with MPI_Get inside a fence epoch.
// Kind: global concurrency / epoch misuse, the result of a get used before the epoch that
// completes it is closed (MPI Bugs Initiative "Global Concurrency" / "Local Concurrency"
// for RMA).
// ./gc_get_early 1: rank 1 uses the fetched value before the closing MPI_Win_fence.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int early = argc > 1 && atoi(argv[1]) == 1 && rank == 1;

    double table[4] = {0};
    if (rank == 0)
        for (int i = 0; i < 4; i++)
            table[i] = 1.5 + i;
    MPI_Win w;
    MPI_Win_create(table, sizeof table, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &w);

    double coef = 0, scaled = 0, acc = 0;
    for (int k = 0; k < 3; k++) {
        coef = -1;
        MPI_Win_fence(0, w);
        MPI_Get(&coef, 1, MPI_DOUBLE, 0, (rank + k) % 4, 1, MPI_DOUBLE, w);
        if (early)
            scaled = coef * 10;
        MPI_Win_fence(0, w);
        if (!early)
            scaled = coef * 10;
        acc += scaled;
    }
    MPI_Win_free(&w);
    double all;
    MPI_Allreduce(&acc, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%.2f\n", all);
    MPI_Finalize();
    return 0;
}
