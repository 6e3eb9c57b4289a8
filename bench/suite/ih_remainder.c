// Distribute N work items over the ranks; each item's result is combined at once with an
// MPI_Allreduce inside the per-item loop.
// Kind: input hazard (MPI Bugs Initiative "Input Hazard"): the number of collective calls
// depends on the input. With N a multiple of the number of ranks every rank makes the same
// number of calls; otherwise the ranks that get one item more (ranks 0 and 1 for N=10 on 4
// ranks) call MPI_Allreduce once more and wait there.
// Normal: ./ih_remainder 8   Faulty: ./ih_remainder 10
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double process_item(int item)
{
    double x = item;
    for (int k = 0; k < 3000; k++)
        x = x * 0.9999 + 1.0 / (k + 1);
    return x;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    int n = argc > 1 ? atoi(argv[1]) : 8;
    int mine = n / nranks + (rank < n % nranks ? 1 : 0);
    int first = rank * (n / nranks) + (rank < n % nranks ? rank : n % nranks);
    double best = 0;
    for (int i = 0; i < mine; i++) {
        double v = process_item(first + i), m;
        MPI_Allreduce(&v, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (m > best)
            best = m;
    }
    if (rank == 0)
        printf("best %.4f over %d items\n", best, n);
    MPI_Finalize();
    return 0;
}
