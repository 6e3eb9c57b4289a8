// Global counters updated with MPI_Accumulate under a fence: every rank adds its counts
// into rank 0's window.
// Kind: global concurrency, conflicting accumulate operations on one location (MPI Bugs
// Initiative "Global Concurrency": accumulates with different ops are not atomic together).
// Argument 1: rank 3 passes MPI_REPLACE where the others pass MPI_SUM.
#include <mpi.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

static std::vector<long> count_events(int rank, int round)
{
    std::vector<long> c(4, 0);
    unsigned x = 7u + rank * 13u + round;
    for (int i = 0; i < 5000; ++i) {
        x = x * 1664525u + 1013904223u;
        ++c[x >> 30];
    }
    return c;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const int mode = argc > 1 ? std::atoi(argv[1]) : 0;
    std::vector<long> total(4, 0);
    MPI_Win win;
    MPI_Win_create(total.data(), 4 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    for (int round = 0; round < 3; ++round) {
        std::vector<long> mine = count_events(rank, round);
        MPI_Win_fence(0, win);
        MPI_Op op = (mode == 1 && rank == 3) ? MPI_REPLACE : MPI_SUM;
        MPI_Accumulate(mine.data(), 4, MPI_LONG, 0, 0, 4, MPI_LONG, op, win);
        MPI_Win_fence(0, win);
    }
    MPI_Win_free(&win);
    if (rank == 0)
        std::printf("%ld %ld %ld %ld\n", total[0], total[1], total[2], total[3]);
    MPI_Finalize();
    return 0;
}
