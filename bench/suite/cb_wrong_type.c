// Rank 0 scatters parameter blocks of 4 doubles to every other rank with point-to-point
// messages.
// Kind: wrong type argument (MPI-CorrBench "ArgMismatch", type): with argument 1 rank 3
// receives 4 MPI_INT (16 bytes) for a 32-byte message; Open MPI reports MPI_ERR_TRUNCATE
// and the job aborts.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int variant = argc > 1 ? atoi(argv[1]) : 0;
    double p[4];
    for (int round = 0; round < 3; round++) {
        if (me == 0) {
            for (int dst = 1; dst < n; dst++) {
                for (int k = 0; k < 4; k++)
                    p[k] = dst * 10 + k + round;
                MPI_Send(p, 4, MPI_DOUBLE, dst, round, MPI_COMM_WORLD);
            }
        } else {
            MPI_Datatype t = (variant == 1 && me == 3 && round == 1) ? MPI_INT : MPI_DOUBLE;
            MPI_Recv(p, 4, t, 0, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (me == n - 1)
        printf("%g %g\n", p[0], p[3]);
    MPI_Finalize();
    return 0;
}
