// Column transfer with a derived datatype built each time it is needed.
// Kind: resource leak, a datatype never freed (MPI Bugs Initiative "Resource Leak").
// Switch: COLTYPE_LEAK=1 in the environment makes rank 1 skip MPI_Type_free (normal:
// COLTYPE_LEAK=0).
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define ROWS 8
#define COLS 8

static double grid[ROWS][COLS];

static void send_column(int col, int dest, int leak)
{
    MPI_Datatype column;
    MPI_Type_vector(ROWS, 1, COLS, MPI_DOUBLE, &column);
    MPI_Type_commit(&column);
    MPI_Send(&grid[0][col], 1, column, dest, col, MPI_COMM_WORLD);
    if (!leak)
        MPI_Type_free(&column);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char *e = getenv("COLTYPE_LEAK");
    int leak = e != NULL && atoi(e) == 1 && rank == 1;
    for (int i = 0; i < ROWS; i++)
        for (int j = 0; j < COLS; j++)
            grid[i][j] = rank * 100 + i * COLS + j;
    double recvd[ROWS], sum = 0;
    for (int col = 0; col < COLS; col++) {
        int to = (rank + 1) % size, from = (rank + size - 1) % size;
        if (rank % 2 == 0) {
            send_column(col, to, leak);
            MPI_Recv(recvd, ROWS, MPI_DOUBLE, from, col, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(recvd, ROWS, MPI_DOUBLE, from, col, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            send_column(col, to, leak);
        }
        for (int i = 0; i < ROWS; i++)
            sum += recvd[i];
    }
    double g;
    MPI_Allreduce(&sum, &g, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("sum %.1f\n", g);
    MPI_Finalize();
    return 0;
}
