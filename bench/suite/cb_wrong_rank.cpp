// Each rank sends a token to its right neighbour and receives from its left one.
// Kind: wrong rank argument (MPI-CorrBench "ArgError", rank; MPI Bugs Initiative "Parameter
// Matching").
// Argument 1: rank 2 computes its neighbour as rank + 2; rank 3 waits for a token from 2
// that went to rank 0.
#include <mpi.h>
#include <cstdio>
#include <cstdlib>
#include <string>

int right_of(int r, int n, bool broken)
{
    return broken && r == 2 ? (r + 2) % n : (r + 1) % n;
}

int main(int argc, char *argv[])
{
    MPI_Init(&argc, &argv);
    int r, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    bool broken = argc > 1 && std::string(argv[1]) == "1";
    long token = 1;
    for (int lap = 0; lap < 3; ++lap) {
        long in = 0;
        MPI_Request rq;
        MPI_Irecv(&in, 1, MPI_LONG, (r + n - 1) % n, lap, MPI_COMM_WORLD, &rq);
        MPI_Send(&token, 1, MPI_LONG, right_of(r, n, broken), lap, MPI_COMM_WORLD);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        token = in * 3 + r;
    }
    if (r == 0)
        std::printf("token %ld\n", token);
    MPI_Finalize();
    return 0;
}
