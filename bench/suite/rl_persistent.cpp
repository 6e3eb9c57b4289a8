// Persistent-request ring: each rank set up its send to the right and its receive from the
// left once, then starts both every step.
// Kind: request lifecycle (MPI Bugs Initiative "Request Lifecycle"): with argument 1, rank 1
// forgets to start its send in step 2 (but still waits on it); rank 2 is a message short and
// waits in its last step.
#include <mpi.h>
#include <array>
#include <cstdio>
#include <cstdlib>

namespace {
constexpr int kLen = 48;

struct Ring {
    std::array<double, kLen> send{}, recv{};
    MPI_Request req[2];
    int rank = 0, size = 1;

    void setup()
    {
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        MPI_Send_init(send.data(), kLen, MPI_DOUBLE, (rank + 1) % size, 5, MPI_COMM_WORLD, &req[0]);
        MPI_Recv_init(recv.data(), kLen, MPI_DOUBLE, (rank + size - 1) % size, 5, MPI_COMM_WORLD, &req[1]);
    }
    void step(int s, bool faulty)
    {
        for (auto &x : send)
            x = rank + s * 0.5;
        if (faulty && rank == 1 && s == 2)
            MPI_Start(&req[1]);
        else
            MPI_Startall(2, req);
        MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    }
    double sum() const
    {
        double t = 0;
        for (double x : recv)
            t += x;
        return t;
    }
    void teardown()
    {
        MPI_Request_free(&req[0]);
        MPI_Request_free(&req[1]);
    }
};
} // namespace

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const bool faulty = argc > 1 && std::atoi(argv[1]) == 1;
    Ring ring;
    ring.setup();
    double total = 0;
    for (int s = 0; s < 5; ++s) {
        ring.step(s, faulty);
        total += ring.sum();
    }
    ring.teardown();
    double all = 0;
    MPI_Reduce(&total, &all, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (ring.rank == 0)
        std::printf("ring total %.2f\n", all);
    MPI_Finalize();
    return 0;
}
