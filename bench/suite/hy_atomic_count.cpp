// Each rank counts the particles that left its cell with an OpenMP loop, then sends that
// many particles to its neighbour; the neighbour learns the count from MPI_Probe.
// Kind: hybrid MPI+OpenMP, a lost update in an OpenMP region that sets an MPI call's count
// argument (the hybrid race class; MPI-CorrBench concurrency).
// Argument 1: rank 1 increments the shared counter without "omp atomic". OMP_NUM_THREADS=2.
#include <mpi.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

static int count_leaving(const std::vector<double> &x, bool racy)
{
    int count = 0;
    if (racy) {
#pragma omp parallel for
        for (long i = 0; i < (long)x.size(); ++i)
            if (x[i] > 0.5)
                count++;
    } else {
#pragma omp parallel for
        for (long i = 0; i < (long)x.size(); ++i)
            if (x[i] > 0.5) {
#pragma omp atomic
                count++;
            }
    }
    return count;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const bool racy = argc > 1 && std::atoi(argv[1]) == 1 && rank == 1;
    std::vector<double> x(3000000);
    for (std::size_t i = 0; i < x.size(); ++i)
        x[i] = ((i * 2654435761u) % 1000) / 1000.0;
    int n = count_leaving(x, racy);
    std::vector<double> out(n > 1000 ? 1000 : n, rank), in;
    MPI_Request sent;
    MPI_Isend(out.data(), (int)out.size() - (n % 7), MPI_DOUBLE, (rank + 1) % size, 0, MPI_COMM_WORLD, &sent);
    MPI_Status st;
    MPI_Probe((rank + size - 1) % size, 0, MPI_COMM_WORLD, &st);
    int got = 0;
    MPI_Get_count(&st, MPI_DOUBLE, &got);
    in.resize(got);
    MPI_Recv(in.data(), got, MPI_DOUBLE, st.MPI_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&sent, MPI_STATUS_IGNORE);
    long total = 0, mine = got;
    MPI_Reduce(&mine, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        std::printf("moved %ld particles\n", total);
    MPI_Finalize();
    return 0;
}
