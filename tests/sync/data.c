/* data.c: bugs that change only data, for tests/rank_data.sh. Four ranks pass values around a
 * ring (MPI_Send and MPI_Recv, tag 5, three rounds: each rank sends on what it received, plus
 * one), sum a value of each (MPI_Allreduce), then each puts its value into the next rank's
 * window between fences, accumulates
 * into rank 0's, reads the next rank's under a shared lock, and sends its window on (tag 6).
 *   ok     as described
 *   data   rank 1 sends a wrong value in its 3rd MPI_Send (the same calls): ranks 2, 3 and 0
 *          pass it on
 *   disp   rank 2 puts to the wrong displacement of rank 3's window (the same calls)
 *   fence  rank 3 leaves out its second fence: the others wait in theirs (a hang)
 *   reduce rank 2 contributes a wrong value to the MPI_Allreduce after the ring (the same
 *          calls): every rank's put carries the sum on */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "ok";
	int r, n;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	int next = (r + 1) % n, prev = (r + n - 1) % n;
	double v[4] = { r, r, r, r }, out[4];
	for (int it = 0; it < 3; it++) {
		if (r != 0)
			MPI_Recv(v, 4, MPI_DOUBLE, prev, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		for (int k = 0; k < 4; k++)
			out[k] = v[k] + 1;
		if (!strcmp(mode, "data") && r == 1 && it == 2)
			out[1] += 0.5;
		MPI_Send(out, 4, MPI_DOUBLE, next, 5, MPI_COMM_WORLD);
		if (r == 0)
			MPI_Recv(v, 4, MPI_DOUBLE, prev, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
	double c = v[0], sum = 0;
	if (!strcmp(mode, "reduce") && r == 2)
		c += 0.25;
	MPI_Allreduce(&c, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	v[0] += sum;
	double w[8] = { 0 }, got = 0;
	MPI_Win win;
	MPI_Win_create(w, sizeof w, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
	MPI_Win_fence(0, win);
	int disp = !strcmp(mode, "disp") && r == 2 ? r + 1 : r;
	MPI_Put(&v[0], 1, MPI_DOUBLE, next, disp, 1, MPI_DOUBLE, win);
	MPI_Accumulate(&v[1], 1, MPI_DOUBLE, 0, 7, 1, MPI_DOUBLE, MPI_SUM, win);
	if (strcmp(mode, "fence") || r != 3) {
		MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
		MPI_Win_lock(MPI_LOCK_SHARED, next, 0, win);
		MPI_Get(&got, 1, MPI_DOUBLE, next, prev, 1, MPI_DOUBLE, win);
		MPI_Win_unlock(next, win);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	double mine[8];
	memcpy(mine, w, sizeof mine);
	MPI_Sendrecv(mine, 8, MPI_DOUBLE, next, 6, w, 8, MPI_DOUBLE, prev, 6, MPI_COMM_WORLD,
		     MPI_STATUS_IGNORE);
	MPI_Win_free(&win);
	if (r == 0)
		printf("%g %g\n", v[1], got);
	MPI_Finalize();
	return 0;
}
