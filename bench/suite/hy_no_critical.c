// Every OpenMP thread exchanges its own slice with the partner rank; MPI_THREAD_SERIALIZED
// requires the calls to be serialised (here in thread order: omp ordered, so that the two
// ranks of a pair match their exchanges one thread after the other).
// Kind: hybrid MPI+OpenMP, concurrent MPI calls without MPI_THREAD_MULTIPLE (MPI-CorrBench
// concurrency; the hybrid thread-level class).
// NOCRIT=1 in the environment: rank 2's threads call MPI_Sendrecv without the ordered
// section, at the same time. Normal: NOCRIT=0. OMP_NUM_THREADS=2.
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define SLICE 128

int main(int argc, char **argv)
{
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *e = getenv("NOCRIT");
    int nocrit = e && atoi(e) == 1 && rank == 2;
    int partner = rank ^ 1;
    double total = 0;
#pragma omp parallel reduction(+:total)
    {
        int nt = omp_get_num_threads();
        double mine[SLICE], theirs[SLICE];
        for (int round = 0; round < 3; round++) {
#pragma omp for ordered schedule(static, 1)
            for (int t = 0; t < nt; t++) {
                for (int i = 0; i < SLICE; i++)
                    mine[i] = rank * 100 + t * 10 + round + i * 1e-3;
                if (nocrit) {
                    MPI_Sendrecv(mine, SLICE, MPI_DOUBLE, partner, t, theirs, SLICE, MPI_DOUBLE,
                                 partner, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                } else {
#pragma omp ordered
                    MPI_Sendrecv(mine, SLICE, MPI_DOUBLE, partner, t, theirs, SLICE, MPI_DOUBLE,
                                 partner, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                }
                for (int i = 0; i < SLICE; i++)
                    total += theirs[i];
            }
        }
    }
    double all;
    MPI_Reduce(&total, &all, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%.3f\n", all);
    MPI_Finalize();
    return 0;
}
