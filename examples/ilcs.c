/* ilcs.c: an MPI + OpenMP application in the ILCS style, with switchable bugs, for difftrace.
 *
 * Written from the description of ILCS (iterated local champion search) in the DiffTrace paper
 * (§V-A): each process runs one communication thread and several worker threads. The workers
 * search a travelling-salesman instance with 2-opt and keep a champion (best tour) per thread,
 * updated inside `omp critical`; the communication thread repeatedly finds the best of its
 * threads' champions, then the global champion with two MPI_Allreduce calls (its length, then
 * the rank that owns it) and broadcasts that tour with MPI_Bcast; the workers restart from it.
 * At the end rank 0 reduces the counters and prints the result.
 *
 * Every bug of the paper's Table II can be switched on (`--list-bugs`), in the process, thread
 * and iteration given on the command line, so that a normal and a faulty run can be recorded
 * and compared. By default a normal run is deterministic for a given seed: the same calls in
 * the same order, whatever the scheduling, because the threads meet at two barriers per
 * iteration. With --free it has the paper's structure instead (its ILCS pseudo-code): the
 * workers search freely (CPU_Exec) until the communication thread, which exchanges champions
 * as often as it can, sees no change of the global champion for --patience rounds in a row;
 * how many searches each worker makes then depends on the scheduling, so normal runs differ
 * from each other, as the paper's did.
 *
 * Build: mpicc -pg -fopenmp -O1 -o ilcs examples/ilcs.c (see examples/README). Functions are
 * small and named for what they do so that a -pg trace reads like the algorithm. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <mpi.h>
#include <omp.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <math.h>

/* ---- the bugs ---------------------------------------------------------------------------- */

enum bug_kind { BUG_NONE, BUG_OP, BUG_SIZE, BUG_CRIT, BUG_LOOP };
/* where a bug applies: ONE = process P (MPI bugs) or process P, thread T (critical sections) */
enum bug_scope { SCOPE_ONE, SCOPE_ALL, SCOPE_THREAD_ALL_PROCS, SCOPE_ALL_THREADS_ONE_PROC };

struct bug_def {
	const char *name;
	enum bug_kind kind;
	int site;             /* 1, 2: the Allreduce; 3: the Bcast; 1..3: the critical section */
	enum bug_scope scope;
	const char *what;
};

static const struct bug_def bug_defs[] = {
	{"allreduce1-op-one", BUG_OP, 1, SCOPE_ONE,
	 "process P finds the global champion length with MPI_MAX instead of MPI_MIN"},
	{"allreduce1-op-all", BUG_OP, 1, SCOPE_ALL,
	 "every process finds the global champion length with MPI_MAX instead of MPI_MIN"},
	{"allreduce1-size-one", BUG_SIZE, 1, SCOPE_ONE,
	 "process P passes count 2 instead of 1 to the first MPI_Allreduce"},
	{"allreduce1-size-all", BUG_SIZE, 1, SCOPE_ALL,
	 "every process passes count 2 instead of 1 to the first MPI_Allreduce"},
	{"allreduce2-op-one", BUG_OP, 2, SCOPE_ONE,
	 "process P finds the champion's owner with MPI_MAX instead of MPI_MIN"},
	{"allreduce2-op-all", BUG_OP, 2, SCOPE_ALL,
	 "every process finds the champion's owner with MPI_MAX instead of MPI_MIN"},
	{"allreduce2-size-one", BUG_SIZE, 2, SCOPE_ONE,
	 "process P passes count 2 instead of 1 to the second MPI_Allreduce"},
	{"allreduce2-size-all", BUG_SIZE, 2, SCOPE_ALL,
	 "every process passes count 2 instead of 1 to the second MPI_Allreduce"},
	{"bcast-size-one", BUG_SIZE, 3, SCOPE_ONE,
	 "process P broadcasts or receives only the first half of the champion tour"},
	{"bcast-size-all", BUG_SIZE, 3, SCOPE_ALL,
	 "every process broadcasts only the first half of the champion tour"},
	{"crit1-one-thread", BUG_CRIT, 1, SCOPE_ONE,
	 "worker T of process P updates its thread champion outside the critical section"},
	{"crit1-thread-all-procs", BUG_CRIT, 1, SCOPE_THREAD_ALL_PROCS,
	 "worker T of every process updates its thread champion outside the critical section"},
	{"crit1-all-threads-one-proc", BUG_CRIT, 1, SCOPE_ALL_THREADS_ONE_PROC,
	 "every worker of process P updates its thread champion outside the critical section"},
	{"crit1-everywhere", BUG_CRIT, 1, SCOPE_ALL,
	 "every worker updates its thread champion outside the critical section"},
	{"crit2-one-thread", BUG_CRIT, 2, SCOPE_ONE,
	 "process P's communication thread reads worker T's champion outside the critical section"},
	{"crit2-thread-all-procs", BUG_CRIT, 2, SCOPE_THREAD_ALL_PROCS,
	 "every communication thread reads worker T's champion outside the critical section"},
	{"crit2-all-threads-one-proc", BUG_CRIT, 2, SCOPE_ALL_THREADS_ONE_PROC,
	 "process P's communication thread reads every champion outside the critical section"},
	{"crit2-everywhere", BUG_CRIT, 2, SCOPE_ALL,
	 "every communication thread reads every champion outside the critical section"},
	{"crit3-one-thread", BUG_CRIT, 3, SCOPE_ONE,
	 "worker T of process P adds to the move counter outside the critical section"},
	{"crit3-thread-all-procs", BUG_CRIT, 3, SCOPE_THREAD_ALL_PROCS,
	 "worker T of every process adds to the move counter outside the critical section"},
	{"crit3-all-threads-one-proc", BUG_CRIT, 3, SCOPE_ALL_THREADS_ONE_PROC,
	 "every worker of process P adds to the move counter outside the critical section"},
	{"crit3-everywhere", BUG_CRIT, 3, SCOPE_ALL,
	 "every worker adds to the move counter outside the critical section"},
	{"infinite-loop", BUG_LOOP, 0, SCOPE_ONE,
	 "worker T of process P spins forever after its step of iteration I (the run hangs)"},
};
#define NBUGS ((int)(sizeof bug_defs / sizeof bug_defs[0]))

struct options {
	unsigned seed;
	int iters, cities, verbose;
	int free, patience; /* --free: the paper's free-running workers; rounds without change */
	const struct bug_def *bug;
	int proc, thread, iter;
};

/* Whether the bug, if it is of this kind and site, fires in process `rank`, thread `tid`. */
static int bug_here(const struct options *o, enum bug_kind kind, int site, int rank, int tid)
{
	const struct bug_def *b = o->bug;
	if (!b || b->kind != kind || b->site != site)
		return 0;
	switch (b->scope) {
	case SCOPE_ALL: return 1;
	case SCOPE_THREAD_ALL_PROCS: return tid == o->thread;
	case SCOPE_ALL_THREADS_ONE_PROC: return rank == o->proc;
	case SCOPE_ONE: return rank == o->proc && (kind != BUG_CRIT || tid == o->thread);
	}
	return 0;
}

/* ---- the travelling-salesman instance ------------------------------------------------------ */

struct tsp {
	int n;
	int *dist; /* n x n, rounded Euclidean (TSPLIB EUC_2D), so lengths are exact integers */
};

/* A small deterministic generator (xorshift32): the same stream on every machine. */
static unsigned rng_next(unsigned *s)
{
	unsigned x = *s ? *s : 0x9e3779b9u;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *s = x;
}

static unsigned rng_seed(unsigned seed, int a, int b)
{
	unsigned s = seed * 2654435761u ^ (unsigned)a * 40503u ^ (unsigned)b * 69069u ^ 0x5bd1e995u;
	for (int i = 0; i < 4; i++)
		rng_next(&s);
	return s;
}

/* Random cities in a 1000 x 1000 square, the same in every process for a given seed. */
static int tsp_load(struct tsp *t, int n, unsigned seed)
{
	int *x = malloc(2 * (size_t)n * sizeof *x);
	t->n = n;
	t->dist = malloc((size_t)n * (size_t)n * sizeof *t->dist);
	if (!x || !t->dist) {
		free(x);
		return -1;
	}
	unsigned s = rng_seed(seed, -1, -1);
	for (int i = 0; i < 2 * n; i++)
		x[i] = (int)(rng_next(&s) % 1000);
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			double dx = x[2 * i] - x[2 * j], dy = x[2 * i + 1] - x[2 * j + 1];
			t->dist[i * n + j] = (int)(sqrt(dx * dx + dy * dy) + 0.5);
		}
	free(x);
	return 0;
}

/* --free: the paper's name for the user's set-up of ILCS (see CPU_Exec) */
static int CPU_Init(struct tsp *t, int n, unsigned seed)
{
	return tsp_load(t, n, seed);
}

#define DIST(t, a, b) ((t)->dist[(a) * (t)->n + (b)])

static int tour_length(const struct tsp *t, const int *tour)
{
	int len = 0;
	for (int i = 0; i < t->n; i++)
		len += DIST(t, tour[i], tour[(i + 1) % t->n]);
	return len;
}

static void tour_random(int *tour, int n, unsigned *s)
{
	for (int i = 0; i < n; i++)
		tour[i] = i;
	for (int i = n - 1; i > 0; i--) {
		int j = (int)(rng_next(s) % (unsigned)(i + 1)), c = tour[i];
		tour[i] = tour[j];
		tour[j] = c;
	}
}

/* Makes a received tour a permutation again: a tour cut short by a wrong MPI_Bcast count is
 * half the owner's and half this process's. Keeps the first visit of each city, appends the
 * missing ones; returns whether anything had to change. */
static int tour_repair(int *tour, int n)
{
	char *seen = calloc((size_t)n, 1);
	int *out = malloc((size_t)n * sizeof *out), k = 0, changed = 0;
	if (!seen || !out) {
		free(seen);
		free(out);
		return 0;
	}
	for (int i = 0; i < n; i++) {
		int c = tour[i];
		if (c >= 0 && c < n && !seen[c]) {
			seen[c] = 1;
			out[k++] = c;
		} else {
			changed = 1;
		}
	}
	for (int c = 0; c < n; c++)
		if (!seen[c])
			out[k++] = c;
	memcpy(tour, out, (size_t)n * sizeof *out);
	free(seen);
	free(out);
	return changed;
}

/* A random double-bridge move: the usual kick that 2-opt cannot undo in one step. */
static void perturb(int *tour, int n, unsigned *s)
{
	if (n < 8)
		return;
	int a = 1 + (int)(rng_next(s) % (unsigned)(n / 4));
	int b = a + 1 + (int)(rng_next(s) % (unsigned)(n / 4));
	int c = b + 1 + (int)(rng_next(s) % (unsigned)(n / 4));
	int *tmp = malloc((size_t)n * sizeof *tmp), k = 0;
	if (!tmp)
		return;
	for (int i = 0; i < a; i++) tmp[k++] = tour[i];
	for (int i = c; i < n; i++) tmp[k++] = tour[i];
	for (int i = b; i < c; i++) tmp[k++] = tour[i];
	for (int i = a; i < b; i++) tmp[k++] = tour[i];
	memcpy(tour, tmp, (size_t)n * sizeof *tmp);
	free(tmp);
}

/* One first-improvement 2-opt pass: applies the first improving reversal it finds. Returns
 * the gain (0 when the tour is 2-optimal) and counts the moves it evaluated. */
static int two_opt_step(const struct tsp *t, int *tour, long *evaluated)
{
	int n = t->n;
	for (int i = 0; i < n - 1; i++)
		for (int j = i + 2; j < n; j++) {
			int a = tour[i], b = tour[i + 1], c = tour[j], d = tour[(j + 1) % n];
			if (d == a)
				continue;
			++*evaluated;
			int gain = DIST(t, a, b) + DIST(t, c, d) - DIST(t, a, c) - DIST(t, b, d);
			if (gain > 0) {
				for (int l = i + 1, r = j; l < r; l++, r--) {
					int x = tour[l];
					tour[l] = tour[r];
					tour[r] = x;
				}
				return gain;
			}
		}
	return 0;
}

/* ---- the shared state of one process --------------------------------------------------- */

struct champion {
	int len;
	int *tour;
};

struct process {
	const struct options *opt;
	struct tsp tsp;
	int rank, size, nthreads;
	struct champion *thread_champ; /* [nthreads]; 0 unused: thread 0 communicates */
	struct champion local, global; /* written by the communication thread between barriers */
	int *bcast_buf;                /* [n + 1]: the length, then the tour */
	long moves;                    /* moves evaluated by all workers (critical section 3) */
	long crit_entered[3];          /* how often each critical section was entered */
	int mpi_errors;
	int cont;                      /* --free: the workers go on (read and written atomically) */
};

static void debug(const struct process *p, const char *fmt, ...)
{
	if (!p->opt->verbose)
		return;
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "ilcs[%d]: ", p->rank);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static void mpi_check(struct process *p, int rc, const char *what)
{
	if (rc == MPI_SUCCESS)
		return;
	char msg[MPI_MAX_ERROR_STRING];
	int len = 0;
	MPI_Error_string(rc, msg, &len);
	p->mpi_errors++;
	fprintf(stderr, "ilcs[%d]: %s failed: %s\n", p->rank, what, msg);
}

/* ---- the workers ----------------------------------------------------------------------- */

/* Critical section 1: a worker publishes a better tour as its thread champion. */
static void update_thread_champion(struct process *p, int tid, const int *tour, int len)
{
	struct champion *c = &p->thread_champ[tid];
	if (bug_here(p->opt, BUG_CRIT, 1, p->rank, tid)) {
		if (len < c->len) {
			c->len = len;
			memcpy(c->tour, tour, (size_t)p->tsp.n * sizeof *tour);
		}
		return;
	}
#pragma omp critical
	{
		p->crit_entered[0]++;
		if (len < c->len) {
			c->len = len;
			memcpy(c->tour, tour, (size_t)p->tsp.n * sizeof *tour);
		}
	}
}

/* Critical section 3: a worker adds the moves it evaluated to the process's counter. */
static void count_moves(struct process *p, int tid, long evaluated)
{
	if (bug_here(p->opt, BUG_CRIT, 3, p->rank, tid)) {
		p->moves += evaluated;
		return;
	}
#pragma omp critical
	{
		p->crit_entered[2]++;
		p->moves += evaluated;
	}
}

/* The bug "infinite-loop": a thread that never comes back; every other thread then waits for
 * it at the barrier and every other process in the next MPI_Allreduce. */
static void stall_tick(void)
{
	struct timespec ms = {0, 1000000};
	nanosleep(&ms, NULL);
}

static void stall_forever(struct process *p, int tid, int it)
{
	debug(p, "thread %d spins forever after iteration %d", tid, it);
	for (;;)
		stall_tick();
}

/* One iteration of a worker: kick the global champion (or a random tour at first), descend to
 * a 2-opt local optimum, publish it. */
static void worker_iteration(struct process *p, int tid, int it, int *tour, unsigned *rng)
{
	int n = p->tsp.n;
	long evaluated = 0;
	if (p->global.len == INT_MAX)
		tour_random(tour, n, rng);
	else {
		memcpy(tour, p->global.tour, (size_t)n * sizeof *tour);
		perturb(tour, n, rng);
	}
	int len = tour_length(&p->tsp, tour);
	for (int gain; (gain = two_opt_step(&p->tsp, tour, &evaluated)) > 0;)
		len -= gain;
	update_thread_champion(p, tid, tour, len);
	count_moves(p, tid, evaluated);
	const struct options *o = p->opt;
	if (o->bug && o->bug->kind == BUG_LOOP && p->rank == o->proc && tid == o->thread &&
	    it == o->iter)
		stall_forever(p, tid, it);
}

/* ---- the communication thread ---------------------------------------------------------- */

/* Critical section 2: the communication thread reads one worker's champion. */
static void read_thread_champion(struct process *p, int tid, struct champion *best)
{
	struct champion *c = &p->thread_champ[tid];
	if (bug_here(p->opt, BUG_CRIT, 2, p->rank, tid)) {
		if (c->len < best->len) {
			best->len = c->len;
			memcpy(best->tour, c->tour, (size_t)p->tsp.n * sizeof *c->tour);
		}
		return;
	}
#pragma omp critical
	{
		p->crit_entered[1]++;
		if (c->len < best->len) {
			best->len = c->len;
			memcpy(best->tour, c->tour, (size_t)p->tsp.n * sizeof *c->tour);
		}
	}
}

static void find_local_champion(struct process *p)
{
	for (int tid = 1; tid < p->nthreads; tid++)
		read_thread_champion(p, tid, &p->local);
}

/* Allreduce 1: the length of the global champion. The buffers have a second element so that
 * the "wrong size" bugs (count 2) stay inside them; the program only uses the first. */
static int find_global_length(struct process *p)
{
	int send[2] = {p->local.len, p->rank}, recv[2] = {INT_MAX, -1};
	const struct options *o = p->opt;
	MPI_Op op = bug_here(o, BUG_OP, 1, p->rank, 0) ? MPI_MAX : MPI_MIN;
	int count = bug_here(o, BUG_SIZE, 1, p->rank, 0) ? 2 : 1;
	mpi_check(p, MPI_Allreduce(send, recv, count, MPI_INT, op, MPI_COMM_WORLD),
		  "MPI_Allreduce 1 (champion length)");
	if (recv[1] != -1)
		debug(p, "allreduce 1 wrote a second element (%d)", recv[1]);
	return recv[0];
}

/* Allreduce 2: the lowest rank whose local champion is the global one. */
static int find_champion_owner(struct process *p, int global_len)
{
	int send[2] = {p->local.len == global_len ? p->rank : p->size, p->rank};
	int recv[2] = {p->size, -1};
	const struct options *o = p->opt;
	MPI_Op op = bug_here(o, BUG_OP, 2, p->rank, 0) ? MPI_MAX : MPI_MIN;
	int count = bug_here(o, BUG_SIZE, 2, p->rank, 0) ? 2 : 1;
	mpi_check(p, MPI_Allreduce(send, recv, count, MPI_INT, op, MPI_COMM_WORLD),
		  "MPI_Allreduce 2 (champion owner)");
	if (recv[1] != -1)
		debug(p, "allreduce 2 wrote a second element (%d)", recv[1]);
	return recv[0];
}

/* The global champion's length (what the first MPI_Allreduce gave) and its owner. */
static int find_global_champion(struct process *p, int *owner)
{
	int len = find_global_length(p);
	*owner = find_champion_owner(p, len);
	/* A wrong operation can name no process (MPI_MAX over "not mine" = size): fall back to
	 * rank 0 so that every process still calls MPI_Bcast with a valid root. */
	if (*owner < 0 || *owner >= p->size)
		*owner = 0;
	return len;
}

/* The owner broadcasts its champion (length and tour) to every process. */
static void broadcast_champion(struct process *p, int owner)
{
	int n = p->tsp.n, *buf = p->bcast_buf;
	int count = bug_here(p->opt, BUG_SIZE, 3, p->rank, 0) ? n / 2 + 1 : n + 1;
	/* every process fills the buffer with its own champion, so a cut-short tour is half the
	 * owner's and half its own */
	buf[0] = p->local.len;
	memcpy(buf + 1, p->local.tour, (size_t)n * sizeof *buf);
	mpi_check(p, MPI_Bcast(buf, count, MPI_INT, owner, MPI_COMM_WORLD),
		  "MPI_Bcast (champion)");
	memcpy(p->global.tour, buf + 1, (size_t)n * sizeof *buf);
	p->global.len = buf[0];
	if (tour_repair(p->global.tour, n)) {
		p->global.len = tour_length(&p->tsp, p->global.tour);
		debug(p, "received a broken tour; repaired, length %d", p->global.len);
	}
}

static void communicate(struct process *p, int it)
{
	int owner;
	find_local_champion(p);
	find_global_champion(p, &owner);
	broadcast_champion(p, owner);
	if (p->rank == 0)
		debug(p, "iteration %d: champion %d from rank %d", it, p->global.len, owner);
}

/* ---- the program ----------------------------------------------------------------------- */

static int process_init(struct process *p, const struct options *o, int nthreads)
{
	memset(p, 0, sizeof *p);
	p->opt = o;
	p->nthreads = nthreads;
	MPI_Comm_rank(MPI_COMM_WORLD, &p->rank);
	MPI_Comm_size(MPI_COMM_WORLD, &p->size);
	if (o->free ? CPU_Init(&p->tsp, o->cities, o->seed) : tsp_load(&p->tsp, o->cities, o->seed))
		return -1;
	int n = o->cities;
	p->thread_champ = calloc((size_t)nthreads, sizeof *p->thread_champ);
	p->bcast_buf = malloc(((size_t)n + 1) * sizeof *p->bcast_buf);
	p->local.tour = malloc((size_t)n * sizeof(int));
	p->global.tour = malloc((size_t)n * sizeof(int));
	if (!p->thread_champ || !p->bcast_buf || !p->local.tour || !p->global.tour)
		return -1;
	p->local.len = p->global.len = INT_MAX;
	for (int i = 0; i < nthreads; i++) {
		p->thread_champ[i].len = INT_MAX;
		p->thread_champ[i].tour = malloc((size_t)n * sizeof(int));
		if (!p->thread_champ[i].tour)
			return -1;
	}
	return 0;
}

static void search(struct process *p)
{
	const struct options *o = p->opt;
#pragma omp parallel num_threads(p->nthreads)
	{
		int tid = omp_get_thread_num();
		unsigned rng = rng_seed(o->seed, p->rank, tid);
		int *tour = malloc((size_t)p->tsp.n * sizeof *tour);
		if (!tour)
			abort();
		for (int it = 0; it < o->iters; it++) {
			if (tid != 0)
				worker_iteration(p, tid, it, tour, &rng);
#pragma omp barrier
			if (tid == 0)
				communicate(p, it);
#pragma omp barrier
		}
		free(tour);
	}
}

/* ---- --free: the paper's ILCS structure ------------------------------------------------- */

/* The user's part of ILCS, named as the paper's framework names it (so that its filter `cust`,
 * CPU_Init, CPU_Exec and CPU_Output, sees it): one search of a worker, from the global
 * champion kicked (or a random tour at first) down to a 2-opt local optimum; its length. */
static int CPU_Exec(struct process *p, int *tour, unsigned *rng, long *evaluated)
{
	int n = p->tsp.n, have;
#pragma omp critical(global_champion)
	{
		have = p->global.len != INT_MAX;
		if (have)
			memcpy(tour, p->global.tour, (size_t)n * sizeof *tour);
	}
	if (have)
		perturb(tour, n, rng);
	else
		tour_random(tour, n, rng);
	int len = tour_length(&p->tsp, tour);
	for (int gain; (gain = two_opt_step(&p->tsp, tour, evaluated)) > 0;)
		len -= gain;
	return len;
}

/* A worker: searches until the communication thread says stop. */
static void free_worker(struct process *p, int tid, int *tour, unsigned *rng)
{
	const struct options *o = p->opt;
	for (int it = 0;; it++) {
		int go;
#pragma omp atomic read
		go = p->cont;
		if (!go)
			break;
		long evaluated = 0;
		int len = CPU_Exec(p, tour, rng, &evaluated);
		update_thread_champion(p, tid, tour, len);
		count_moves(p, tid, evaluated);
		if (o->bug && o->bug->kind == BUG_LOOP && p->rank == o->proc && tid == o->thread &&
		    it == o->iter)
			stall_forever(p, tid, it);
	}
}

/* The communication thread: champions exchanged round after round until the global one has
 * not changed for --patience rounds (or --iters rounds were made); then the workers stop. */
static void free_communicator(struct process *p)
{
	const struct options *o = p->opt;
	int last = INT_MAX, same = 0;
	for (int round = 0; round < o->iters && same < o->patience; round++) {
		struct timespec pause = {0, 2000000}; /* let the workers search */
		nanosleep(&pause, NULL);
		int owner;
		find_local_champion(p);
		/* the length every process got from the same MPI_Allreduce decides, so that they
		 * stop in the same round (the tour each receives may differ: a cut broadcast) */
		int len = find_global_champion(p, &owner);
#pragma omp critical(global_champion)
		broadcast_champion(p, owner);
		same = len == last ? same + 1 : 0;
		last = len;
		if (p->rank == 0)
			debug(p, "round %d: champion %d from rank %d", round, p->global.len, owner);
	}
#pragma omp atomic write
	p->cont = 0;
}

static void search_free(struct process *p)
{
	const struct options *o = p->opt;
	/* as the paper's main: the processes agree on the number of searching threads */
	long mine = p->nthreads - 1, all = 0;
	mpi_check(p, MPI_Reduce(&mine, &all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD),
		  "MPI_Reduce (threads)");
	mpi_check(p, MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
	p->cont = 1;
#pragma omp parallel num_threads(p->nthreads)
	{
		int tid = omp_get_thread_num();
		unsigned rng = rng_seed(o->seed, p->rank, tid);
		int *tour = malloc((size_t)p->tsp.n * sizeof *tour);
		if (!tour)
			abort();
		if (tid == 0)
			free_communicator(p);
		else
			free_worker(p, tid, tour, &rng);
		free(tour);
	}
	/* the final exchange, after the workers stopped */
	int owner;
	find_local_champion(p);
	find_global_champion(p, &owner);
	broadcast_champion(p, owner);
}

static unsigned tour_checksum(const int *tour, int n)
{
	/* independent of where the tour starts and of its direction */
	int start = 0;
	for (int i = 1; i < n; i++)
		if (tour[i] < tour[start])
			start = i;
	int dir = tour[(start + 1) % n] < tour[(start + n - 1) % n] ? 1 : n - 1;
	unsigned h = 2166136261u;
	for (int i = 0, k = start; i < n; i++, k = (k + dir) % n)
		h = (h ^ (unsigned)tour[k]) * 16777619u;
	return h;
}

static void report(struct process *p);

static void CPU_Output(struct process *p)
{
	report(p);
}

static void report(struct process *p)
{
	long mine[5] = {p->moves, p->crit_entered[0], p->crit_entered[1], p->crit_entered[2],
			p->mpi_errors}, all[5] = {0};
	mpi_check(p, MPI_Reduce(mine, all, 5, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD),
		  "MPI_Reduce (counters)");
	if (p->rank != 0)
		return;
	const struct options *o = p->opt;
	printf("ilcs: %d processes x %d threads, %d cities, %d iterations, seed %u\n", p->size,
	       p->nthreads, o->cities, o->iters, o->seed);
	printf("champion: length %d, tour %08x\n", p->global.len,
	       tour_checksum(p->global.tour, p->tsp.n));
	printf("moves evaluated: %ld\n", all[0]);
	printf("critical sections entered: %ld %ld %ld\n", all[1], all[2], all[3]);
	if (all[4])
		printf("MPI errors: %ld\n", all[4]);
	fflush(stdout);
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: mpirun -np N ilcs [OPTIONS]\n"
		"An MPI + OpenMP 2-opt search for a travelling-salesman tour in the ILCS style:\n"
		"thread 0 of each process communicates, the other threads (OMP_NUM_THREADS, at\n"
		"least 2 in all) search. Rank 0 prints the champion and the counters.\n\n"
		"  --seed N       the instance and the search (default 1)\n"
		"  --iters N      iterations (default 20; with --free, at most N rounds)\n"
		"  --free         the paper's structure: workers search freely until the\n"
		"                 champion has not changed for --patience rounds (normal runs\n"
		"                 then differ from each other)\n"
		"  --patience N   --free: rounds without change before stopping (default 3)\n"
		"  --cities N     cities (default 60, at least 8)\n"
		"  --bug NAME     switch a bug on (see --list-bugs)\n"
		"  --proc P       the faulty process (default 1)\n"
		"  --thread T     the faulty thread (default 1)\n"
		"  --iter I       the iteration of infinite-loop (default 0)\n"
		"  --verbose      debug lines on stderr\n"
		"  --list-bugs    the bug names, one per line, with what each does\n"
		"  -h, --help     this help\n");
}

static int parse_int(const char *opt, const char *s, int min, int *out)
{
	char *end;
	long v = s ? strtol(s, &end, 10) : 0;
	if (!s || !*s || *end || v < min || v > INT_MAX) {
		fprintf(stderr, "ilcs: %s needs an integer >= %d\n", opt, min);
		return -1;
	}
	*out = (int)v;
	return 0;
}

/* Returns 0 to run, 1 to exit successfully, 2 on a command-line error. */
static int parse_args(int argc, char **argv, struct options *o)
{
	*o = (struct options){.seed = 1, .iters = 20, .cities = 60, .proc = 1, .thread = 1,
			      .patience = 3};
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int seed;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 1;
		} else if (!strcmp(a, "--list-bugs")) {
			for (int b = 0; b < NBUGS; b++)
				printf("%-28s %s\n", bug_defs[b].name, bug_defs[b].what);
			return 1;
		} else if (!strcmp(a, "--verbose")) {
			o->verbose = 1;
			continue;
		} else if (!strcmp(a, "--free")) {
			o->free = 1;
			continue;
		} else if (!strcmp(a, "--patience")) {
			if (parse_int(a, v, 1, &o->patience))
				return 2;
		} else if (!strcmp(a, "--bug")) {
			o->bug = NULL;
			for (int b = 0; v && b < NBUGS; b++)
				if (!strcmp(v, bug_defs[b].name))
					o->bug = &bug_defs[b];
			if (!o->bug) {
				fprintf(stderr, "ilcs: unknown bug '%s' (see --list-bugs)\n", v ? v : "");
				return 2;
			}
		} else if (!strcmp(a, "--seed")) {
			if (parse_int(a, v, 0, &seed))
				return 2;
			o->seed = (unsigned)seed;
		} else if (!strcmp(a, "--iters")) {
			if (parse_int(a, v, 1, &o->iters))
				return 2;
		} else if (!strcmp(a, "--cities")) {
			if (parse_int(a, v, 8, &o->cities))
				return 2;
		} else if (!strcmp(a, "--proc")) {
			if (parse_int(a, v, 0, &o->proc))
				return 2;
		} else if (!strcmp(a, "--thread")) {
			if (parse_int(a, v, 0, &o->thread))
				return 2;
		} else if (!strcmp(a, "--iter")) {
			if (parse_int(a, v, 0, &o->iter))
				return 2;
		} else {
			fprintf(stderr, "ilcs: unknown option '%s' (see --help)\n", a);
			return 2;
		}
		i++; /* the option's value */
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct options o;
	int rc = parse_args(argc, argv, &o);
	if (rc)
		return rc == 1 ? 0 : 2;
	int provided;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
	/* the wrong-size bugs make Open MPI report errors (a truncated message): report them
	 * and carry on rather than abort, as a program that ignores return codes would */
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	int nthreads = omp_get_max_threads();
	if (nthreads < 2)
		nthreads = 2;
	struct process p;
	if (process_init(&p, &o, nthreads)) {
		fprintf(stderr, "ilcs: out of memory\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	if (o.bug && p.rank == 0)
		debug(&p, "bug %s in process %d, thread %d, iteration %d", o.bug->name, o.proc,
		      o.thread, o.iter);
	if (o.free) {
		search_free(&p);
		CPU_Output(&p);
	} else {
		search(&p);
		report(&p);
	}
	MPI_Finalize();
	return 0;
}
