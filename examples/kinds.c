/* kinds.c: a small MPI + OpenMP program with one switchable bug of each kind that the
 * ranking must find (ACCURACY.md, "kinds"), for difftrace.
 *
 * Each iteration of the time loop: an OpenMP team where every thread runs three tasks through
 * a kernel, relaxes its block, takes the interior or the boundary branch and adds its sum to a
 * shared one inside `omp critical`; then, on the master thread, a pairwise exchange with the
 * partner rank (even ranks send first, odd ranks receive first), a ring exchange with
 * non-blocking calls, an MPI_Allreduce of the sums, an MPI_Bcast from rank 0 and a
 * master-worker farm (rank 0 hands a task to every other rank and collects the results with
 * MPI_ANY_SOURCE), and a one-sided gather: between two fences every rank puts its value into
 * its own slot of rank 0's window (MPI_Put, displacement = its rank), which rank 0 then sums.
 * The calls do not depend on the data, so a normal run makes the same calls in
 * the same order in every run, on every thread; and sends the same data (sums that do not
 * depend on the order in which threads or messages come).
 *
 * The bugs (--bug NAME; P is --proc, T is --thread, I is --iter):
 *   order       rank P posts its ring receives before its sends, from iteration I on
 *   kernel      thread T of rank P runs another kernel for one task of iteration I
 *   extra-call  thread T of rank P relaxes its block twice from iteration I on
 *   branch      thread T of rank P takes the boundary branch in iteration I
 *   early-exit  rank P leaves the time loop at iteration I; the others hang
 *   bcast-root  rank P broadcasts from root 1 instead of 0 in iteration I
 *   farm-drop   worker P drops its farm result in iteration I; the master hangs
 *   crit-once   thread T of rank P skips its critical section in iteration I
 *   tag         rank P sends its ring messages with a tag nobody receives, in iteration I
 *   recv-first  rank P receives first in the pairwise exchange of iteration I, as its partner
 *               does: both wait
 *   spin        thread T of rank P never ends its relaxation in iteration I (an endless loop
 *               that makes no call): its team, then every rank, waits for it
 *   data        rank P sends a wrong value in its ring exchange of iteration I: the same
 *               calls, other data (found with difftrace-record --payload)
 *   rma         rank P puts its value into rank P-1's slot of rank 0's window in iteration I:
 *               two puts to one location in one fence epoch, the "global concurrency" error
 *               of the MPI Bugs Initiative's classification (a conflicting one-sided access
 *               from two processes); the same calls, another displacement, and rank 0 sums
 *               whichever value won
 * The options are parsed without calling anything, so that a faulty run's main thread makes the
 * same calls as a normal one's until the bug.
 *
 * Build: mpicc -pg -fopenmp -O1 -o kinds examples/kinds.c. Run with 4 ranks (2 at least) and
 * OMP_NUM_THREADS=3 (64 ranks at most). */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>

enum {
	B_NONE,
	B_ORDER,
	B_KERNEL,
	B_EXTRA,
	B_BRANCH,
	B_EARLY,
	B_ROOT,
	B_DROP,
	B_CRIT,
	B_TAG,
	B_RECV,
	B_SPIN,
	B_DATA,
	B_RMA,
	B_COUNT
};

static const char *const bug_names[B_COUNT] = {
	"",     "order",      "kernel",    "extra-call", "branch", "early-exit",
	"bcast-root", "farm-drop", "crit-once", "tag",    "recv-first", "spin",
	"data", "rma",
};

static int bug = B_NONE, bproc = 2, bthread = 1, biter = 3, iters = 12;

#define N 48
#define MAX_RANKS 64 /* the slots of the one-sided gather */

double kernel_a(double *v, int n, int seed)
{
	double s = 0;
	for (int i = 0; i < n; i++) {
		v[i] = v[i] * 0.5 + (double)((i + seed) % 5);
		s += v[i];
	}
	return s;
}

double kernel_b(double *v, int n, int seed)
{
	double s = 0;
	for (int i = 0; i < n; i++) {
		v[i] = v[i] * 0.25 + (double)((i * seed) % 3);
		s += v[i];
	}
	return s;
}

double relax(double *v, int n)
{
	double s = 0;
	for (int i = 1; i < n - 1; i++) {
		v[i] = (v[i - 1] + v[i] + v[i + 1]) / 3.0;
		s += v[i];
	}
	return s;
}

double interior(const double *v, int n)
{
	double s = 0;
	for (int i = 1; i < n - 1; i++)
		s += v[i];
	return s;
}

double boundary(const double *v, int n)
{
	return v[0] + v[n - 1];
}

static double shared_sum;

/* Whether the bug of kind k fires in rank r, thread t (t < 0: any), iteration it. */
static int here(int k, int r, int t, int it)
{
	return bug == k && r == bproc && (t < 0 || t == bthread) && it == biter;
}

double compute(int rank, int it)
{
	shared_sum = 0;
#pragma omp parallel
	{
		int tid = omp_get_thread_num();
		double v[N];
		for (int i = 0; i < N; i++)
			v[i] = (double)((rank * 7 + tid * 3 + i + it) % 11);
		double s = 0;
		for (int task = 0; task < 3; task++)
			s += here(B_KERNEL, rank, tid, it) && task == 1 ? kernel_b(v, N, task)
								       : kernel_a(v, N, task);
		s += relax(v, N);
		if (here(B_SPIN, rank, tid, it)) {
			volatile int endless = 1;
			while (endless)
				s += v[1] * 1e-12;
		}
		if (bug == B_EXTRA && rank == bproc && tid == bthread && it >= biter)
			s += relax(v, N);
		s += here(B_BRANCH, rank, tid, it) ? boundary(v, N) : interior(v, N);
		/* a multiple of 1/1024: the team's sum is exact, the same whatever order the threads
		 * add in */
		s = (double)(long long)(s * 1024) / 1024;
		if (here(B_CRIT, rank, tid, it)) {
			shared_sum += s; /* the race */
		} else {
#pragma omp critical
			shared_sum += s;
		}
	}
	return shared_sum;
}

void pair_exchange(int rank, int size, int it, double *x)
{
	int partner = rank ^ 1;
	if (partner >= size)
		return;
	double y = 0;
	int send_first = rank % 2 == 0 && !here(B_RECV, rank, -1, it);
	if (send_first) {
		MPI_Send(x, 1, MPI_DOUBLE, partner, 1, MPI_COMM_WORLD);
		MPI_Recv(&y, 1, MPI_DOUBLE, partner, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	} else {
		MPI_Recv(&y, 1, MPI_DOUBLE, partner, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Send(x, 1, MPI_DOUBLE, partner, 1, MPI_COMM_WORLD);
	}
	*x = (*x + y) / 2;
}

void ring_exchange(int rank, int size, int it, double *x)
{
	int right = (rank + 1) % size, left = (rank + size - 1) % size;
	int tag = here(B_TAG, rank, -1, it) ? 99 : 7;
	double in[2] = { 0, 0 }, out = here(B_DATA, rank, -1, it) ? *x + 1 : *x;
	MPI_Request rq[4];
	if (bug == B_ORDER && rank == bproc && it >= biter) {
		MPI_Irecv(&in[0], 1, MPI_DOUBLE, left, 7, MPI_COMM_WORLD, &rq[0]);
		MPI_Irecv(&in[1], 1, MPI_DOUBLE, right, 7, MPI_COMM_WORLD, &rq[1]);
		MPI_Isend(&out, 1, MPI_DOUBLE, right, tag, MPI_COMM_WORLD, &rq[2]);
		MPI_Isend(&out, 1, MPI_DOUBLE, left, tag, MPI_COMM_WORLD, &rq[3]);
	} else {
		MPI_Isend(&out, 1, MPI_DOUBLE, right, tag, MPI_COMM_WORLD, &rq[2]);
		MPI_Isend(&out, 1, MPI_DOUBLE, left, tag, MPI_COMM_WORLD, &rq[3]);
		MPI_Irecv(&in[0], 1, MPI_DOUBLE, left, 7, MPI_COMM_WORLD, &rq[0]);
		MPI_Irecv(&in[1], 1, MPI_DOUBLE, right, 7, MPI_COMM_WORLD, &rq[1]);
	}
	MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
	*x = (*x + in[0] + in[1]) / 3;
}

double work_item(int task)
{
	double s = 0;
	for (int i = 0; i < 100; i++)
		s += (double)((task + i) % 13);
	return s;
}

void farm(int rank, int size, int it, double *x)
{
	if (rank == 0) {
		for (int w = 1; w < size; w++) {
			int task = it * 100 + w;
			MPI_Send(&task, 1, MPI_INT, w, 3, MPI_COMM_WORLD);
		}
		/* summed in rank order, not in the order they arrive: the same value in every run */
		double res[MAX_RANKS] = { 0 };
		for (int w = 1; w < size; w++) {
			double r;
			MPI_Status st;
			MPI_Recv(&r, 1, MPI_DOUBLE, MPI_ANY_SOURCE, 4, MPI_COMM_WORLD, &st);
			if (st.MPI_SOURCE > 0 && st.MPI_SOURCE < MAX_RANKS)
				res[st.MPI_SOURCE] = r;
		}
		for (int w = 1; w < size; w++)
			*x += res[w] / 1000;
	} else {
		int task;
		MPI_Recv(&task, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		double r = work_item(task);
		if (!here(B_DROP, rank, -1, it))
			MPI_Send(&r, 1, MPI_DOUBLE, 0, 4, MPI_COMM_WORLD);
	}
}

/* The one-sided gather: rank r's value goes into slot r of rank 0's window (slot r-1 for the
 * rma bug, where rank r-1 puts too); rank 0 sums the slots after the closing fence. */
void rma_gather(int rank, int size, int it, MPI_Win win, double *slots, double *x)
{
	int disp = here(B_RMA, rank, -1, it) && rank > 0 ? rank - 1 : rank;
	double v = *x;
	MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
	MPI_Put(&v, 1, MPI_DOUBLE, 0, disp, 1, MPI_DOUBLE, win);
	MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
	if (rank == 0) {
		double s = 0;
		for (int r = 0; r < size; r++) {
			s += slots[r];
			slots[r] = 0;
		}
		*x += s / 1000;
	}
}

/* The options, read without a call: the same calls with and without them. */
static inline __attribute__((always_inline)) int same(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

static inline __attribute__((always_inline)) int num(const char *s)
{
	int v = 0;
	while (*s >= '0' && *s <= '9')
		v = v * 10 + (*s++ - '0');
	return v;
}

int main(int argc, char **argv)
{
	for (int a = 1; a + 1 < argc; a += 2) {
		const char *o = argv[a], *v = argv[a + 1];
		if (same(o, "--bug")) {
			for (int b = 1; b < B_COUNT; b++)
				if (same(v, bug_names[b]))
					bug = b;
		} else if (same(o, "--proc")) {
			bproc = num(v);
		} else if (same(o, "--thread")) {
			bthread = num(v);
		} else if (same(o, "--iter")) {
			biter = num(v);
		} else if (same(o, "--iters")) {
			iters = num(v);
		}
	}
	int provided, rank, size;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	static double slots[MAX_RANKS];
	MPI_Win win;
	MPI_Win_create(slots, (MPI_Aint)sizeof slots, sizeof(double), MPI_INFO_NULL,
		       MPI_COMM_WORLD, &win);
	double x = rank, total = 0;
	for (int it = 0; it < iters; it++) {
		if (here(B_EARLY, rank, -1, it))
			break;
		x += compute(rank, it) / 1000;
		pair_exchange(rank, size, it, &x);
		ring_exchange(rank, size, it, &x);
		double g;
		MPI_Allreduce(&x, &g, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		double p = g / size;
		MPI_Bcast(&p, 1, MPI_DOUBLE, here(B_ROOT, rank, -1, it) ? 1 : 0, MPI_COMM_WORLD);
		x = (x + p) / 2;
		farm(rank, size, it, &x);
		rma_gather(rank, size, it, win, slots, &x);
		total += x;
	}
	MPI_Win_free(&win);
	double all = 0;
	MPI_Reduce(&total, &all, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank == 0)
		printf("kinds: %d ranks, %d iterations, checksum %.6f\n", size, iters, all);
	MPI_Finalize();
	return 0;
}
