// Overlapped halo receive: post MPI_Irecv for the left neighbour's boundary, compute the
// interior, wait, then compute the boundary cell from the halo.
// Kind: local concurrency, a receive buffer read before the receive completes (MPI Bugs
// Initiative "Local Concurrency").
// HALO_EARLY=1 (environment): rank 3 uses the halo value before its MPI_Wait.
// Normal run: HALO_EARLY=0.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N 1024

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    const char *s = getenv("HALO_EARLY");
    int early = s && *s == '1' && me == 3;

    double u[N + 1], halo = 0;
    for (int i = 0; i <= N; i++)
        u[i] = me + i * 0.001;
    for (int it = 0; it < 4; it++) {
        MPI_Request r;
        double edge = u[N - 1];
        halo = -7.0; // stale marker
        MPI_Irecv(&halo, 1, MPI_DOUBLE, (me + np - 1) % np, it, MPI_COMM_WORLD, &r);
        MPI_Send(&edge, 1, MPI_DOUBLE, (me + 1) % np, it, MPI_COMM_WORLD);
        for (int i = N - 1; i > 0; i--)
            u[i] = 0.5 * (u[i] + u[i - 1]);
        if (early)
            u[0] = 0.5 * (u[0] + halo);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        if (!early)
            u[0] = 0.5 * (u[0] + halo);
    }
    double loc = u[0] + u[N / 2], tot;
    MPI_Allreduce(&loc, &tot, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0)
        printf("%.9f\n", tot);
    MPI_Finalize();
    return 0;
}
