// A small Jacobi-like solver class. Convergence must be decided globally (MPI_Allreduce of
// the residual); the faulty variant lets rank 1 leave the loop on its own local residual.
// Kind: call ordering / missing collective (MPI Bugs Initiative, "Call Ordering").
// Run: ./co_early_return 0 (normal), ./co_early_return 1 (faulty): rank 1 returns from
// solve() early and the others wait in the residual's MPI_Allreduce.
#include <mpi.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

class Solver {
public:
    Solver(MPI_Comm c, bool localStop) : comm_(c), localStop_(localStop), u_(256, 1.0)
    {
        MPI_Comm_rank(comm_, &rank_);
    }
    int solve(int maxIter)
    {
        int it = 0;
        for (; it < maxIter; ++it) {
            double r = sweep();
            if (localStop_ && rank_ == 1 && r < 60.0)
                break; // BUG: a local decision where the others decide together
            double g = 0;
            MPI_Allreduce(&r, &g, 1, MPI_DOUBLE, MPI_MAX, comm_);
            if (g < 1e-3)
                break;
        }
        return it;
    }

private:
    double sweep()
    {
        double r = 0;
        for (std::size_t i = 1; i + 1 < u_.size(); ++i) {
            double nu = 0.5 * (u_[i - 1] + u_[i + 1]) * 0.99;
            r += std::fabs(nu - u_[i]);
            u_[i] = nu;
        }
        return r + rank_;
    }
    MPI_Comm comm_;
    bool localStop_;
    std::vector<double> u_;
    int rank_ = 0;
};

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    bool bad = argc > 1 && std::atoi(argv[1]) != 0;
    Solver s(MPI_COMM_WORLD, bad);
    int n = s.solve(40);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int total = 0;
    MPI_Reduce(&n, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        std::printf("iterations (sum over ranks): %d\n", total);
    MPI_Finalize();
    return 0;
}
