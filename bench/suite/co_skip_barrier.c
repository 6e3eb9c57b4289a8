// Checkpointed time loop: every CKPT_EVERY steps all ranks synchronise with a barrier and
// rank 0 "writes" the state.
// Kind: call ordering, a collective not called by every rank (MPI Bugs Initiative, "Call
// Ordering").
// Fault switch: environment variable CKPT_FAULT=1 (normal run: CKPT_FAULT=0): rank 2's loop
// bound is one step short, so it misses the checkpoint barrier of the last step and goes on
// to the reduction and MPI_Finalize while the others wait in that barrier.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

#define CKPT_EVERY 4
#define NSTEPS 12

double state[128];

void advance(int me, int step)
{
    for (int i = 0; i < 128; i++)
        state[i] = sin(state[i] + 0.01 * (me + step));
}

void checkpoint(int me, int step)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0)
        printf("checkpoint at step %d: %.4f\n", step, state[0]);
}

int main(int argc, char *argv[])
{
    MPI_Init(&argc, &argv);
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    const char *f = getenv("CKPT_FAULT");
    int fault = f ? atoi(f) : 0;

    int last = (fault && me == 2) ? NSTEPS - 1 : NSTEPS;
    int done_steps = 0;
    for (int step = 1; step <= last; step++) {
        advance(me, step);
        done_steps++;
        if (step % CKPT_EVERY == 0)
            checkpoint(me, step);
    }
    double local = state[7], sum = 0;
    MPI_Reduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (me == 0)
        printf("%d steps, sum %.5f\n", done_steps, sum);
    MPI_Finalize();
    return 0;
}
