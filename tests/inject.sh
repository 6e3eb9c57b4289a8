#!/bin/sh
# libdifftrace-inject.so end to end: build the library and a small MPI + OpenMP program,
# run it under mpirun with faults, and check each fault's effect on what the program prints.
. "${abs_top_srcdir:-.}/tests/lib.sh"

need mpi timeout
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset DIFFTRACE_INJECT DIFFTRACE_INJECT_FILE DIFFTRACE_INJECT_VERBOSE

S="$abs_top_srcdir/src/record"
LIB="$T/libdifftrace-inject.so"
"$MPICC" -std=c11 -Wall -Wextra -Werror -O2 -shared -fPIC -I"$S" -o "$LIB" \
	"$S/inject.c" "$S/spec.c" -ldl >"$T/cc.log" 2>&1 || { cat "$T/cc.log" >&2; fail "building the library"; }

# The program: three Allreduces, a critical section and a lock that thread 0 enters while
# thread 1 sleeps inside (so "overlap 1" means mutual exclusion was lost), one message from
# rank 0 to rank 1, three barriers.
cat >"$T/app.c" <<'EOF'
#include <mpi.h>
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

static void nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	int rank, size, x = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (int i = 1; i <= 3; i++) {
		int v[2] = { rank + i, 1 }, r[2] = { 0, 0 };
		MPI_Allreduce(v, r, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
		printf("rank %d allreduce %d: %d %d\n", rank, i, r[0], r[1]);
		fflush(stdout);
	}
	atomic_int inside = 0;
	int entries = 0, overlap = 0, lock_overlap = 0;
	omp_lock_t lock;
	omp_init_lock(&lock);
#pragma omp parallel num_threads(2)
	{
		if (omp_get_thread_num() == 1) {
#pragma omp critical
			{
				atomic_store(&inside, 1);
				entries++;
				nap(300);
				atomic_store(&inside, 0);
			}
		} else {
			for (int w = 0; w < 200 && !atomic_load(&inside); w++)
				nap(10);
#pragma omp critical
			{
				overlap |= atomic_load(&inside);
				entries++;
			}
		}
#pragma omp barrier
		if (omp_get_thread_num() == 1) {
			omp_set_lock(&lock);
			atomic_store(&inside, 1);
			nap(300);
			atomic_store(&inside, 0);
			omp_unset_lock(&lock);
		} else {
			for (int w = 0; w < 200 && !atomic_load(&inside); w++)
				nap(10);
			omp_set_lock(&lock);
			lock_overlap |= atomic_load(&inside);
			omp_unset_lock(&lock);
		}
	}
	printf("rank %d critical entries %d overlap %d lock overlap %d\n", rank, entries, overlap,
	       lock_overlap);
	fflush(stdout);
	if (size >= 2 && rank == 0) {
		x = 42;
		MPI_Send(&x, 1, MPI_INT, 1, 7, MPI_COMM_WORLD);
	} else if (size >= 2 && rank == 1) {
		MPI_Recv(&x, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		printf("rank 1 received %d\n", x);
		fflush(stdout);
	}
	for (int i = 0; i < 3; i++)
		MPI_Barrier(MPI_COMM_WORLD);
	printf("rank %d done\n", rank);
	MPI_Finalize();
	return 0;
}
EOF
"$MPICC" -std=c11 -fopenmp -O1 -o "$T/app" "$T/app.c" >"$T/cc.log" 2>&1 ||
	{ cat "$T/cc.log" >&2; fail "building the test program"; }

flags="-np 2"
if "$MPIRUN" --version 2>&1 | grep -q 'Open MPI'; then
	flags="$flags --oversubscribe"
	[ "$(id -u)" = 0 ] && flags="$flags --allow-run-as-root"
fi

# run SECONDS SPEC: the program on 2 ranks with SPEC; output in $T/out, status in $rc
run() {
	# shellcheck disable=SC2086
	timeout -k 3 "$1" "$MPIRUN" $flags env LD_PRELOAD="$LIB" DIFFTRACE_INJECT="$2" \
		DIFFTRACE_INJECT_VERBOSE=1 OMP_WAIT_POLICY=passive "$T/app" >"$T/out" 2>"$T/err"
	rc=$?
}
has() { grep -qx -- "$1" "$T/out" || { cat "$T/out" "$T/err" >&2; fail "$2: no line '$1'"; }; }
hasnt() { ! grep -qx -- "$1" "$T/out" || { cat "$T/out" >&2; fail "$2: line '$1'"; }; }

# 1. a bad specification: exit 2, the column, before the program prints anything; also
#    under mpirun, and from a file with line and column
expect_status 2 env LD_PRELOAD="$LIB" DIFFTRACE_INJECT='allreduce:call=2:op=MPI_MAXX' "$T/app"
expect_err 'difftrace-inject: bad specification at column 21: unknown operation'
[ ! -s "$T/out" ] || fail "the program printed before the bad specification was refused"
printf 'allreduce:call=2:op=MPI_MAX\nbcast:rot=1\n' >"$T/spec"
expect_status 2 env LD_PRELOAD="$LIB" DIFFTRACE_INJECT_FILE="$T/spec" "$T/app"
expect_err "bad specification in $T/spec at line 2, column 7: unknown key 'rot'"
run 30 'spin:call=1'
[ "$rc" != 0 ] || fail "mpirun succeeded with a bad specification"
grep -q 'spin needs func=NAME' "$T/err" || { cat "$T/err" >&2; fail "mpirun: no message"; }
! grep -q '^rank' "$T/out" || fail "the program ran with a bad specification"

# 2. no fault: the reference output
run 30 ''
[ "$rc" = 0 ] || { cat "$T/out" "$T/err" >&2; fail "the program failed without faults ($rc)"; }
for r in 0 1; do
	has "rank $r allreduce 2: 5 2" "no fault"
	has "rank $r critical entries 2 overlap 0 lock overlap 0" "no fault"
	has "rank $r done" "no fault"
done
has "rank 1 received 42" "no fault"
[ ! -s "$T/err" ] || { cat "$T/err" >&2; fail "messages without faults"; }
# an empty specification and a program without MPI or OpenMP are left alone
expect_status 0 env LD_PRELOAD="$LIB" DIFFTRACE_INJECT='' sh -c 'echo ok'

# 3. op=MPI_MAX on the second Allreduce of every rank: max(2,3) = 3, max(1,1) = 1
run 30 'allreduce:call=2:op=MPI_MAX'
[ "$rc" = 0 ] || { cat "$T/err" >&2; fail "op: status $rc"; }
has "rank 1 allreduce 1: 3 2" "op"
has "rank 1 allreduce 2: 3 1" "op"
has "rank 1 allreduce 3: 7 2" "op"
grep -q 'rank 1 thread 0: MPI_Allreduce call 2: op -> MPI_MAX' "$T/err" || fail "op: no log"

# ... and in rank 1 only (the ranks then disagree on the operation: rank 1 prints what its
# own reduction gave, which is no longer the sum)
run 30 'allreduce:call=2:ranks=1:op=MPI_MAX'
grep -q 'rank 1 thread 0: MPI_Allreduce call 2: op -> MPI_MAX' "$T/err" || fail "ranks=1: no log"
! grep -q 'rank 0 thread 0: MPI_Allreduce' "$T/err" || fail "ranks=1: rank 0 changed"

# 4. count=1: the second element is not reduced and stays 0
run 30 'allreduce:call=2:count=1'
[ "$rc" = 0 ] || { cat "$T/err" >&2; fail "count: status $rc"; }
has "rank 0 allreduce 2: 5 0" "count"
has "rank 0 allreduce 3: 7 2" "count"

# 5. the critical section of thread 0 in rank 0 is skipped: it enters while thread 1 is in
#    it; rank 1 keeps it. The same for the lock.
run 30 'critical:ranks=0:threads=0;lock:ranks=1:threads=0'
[ "$rc" = 0 ] || { cat "$T/err" >&2; fail "critical: status $rc"; }
has "rank 0 critical entries 2 overlap 1 lock overlap 0" "critical"
has "rank 1 critical entries 2 overlap 0 lock overlap 1" "critical"
grep -q 'rank 0 thread 0: GOMP_critical_start call 1: critical section skipped' "$T/err" ||
	{ cat "$T/err" >&2; fail "critical: no log"; }
grep -q 'rank 1 thread 0: omp_set_lock call 1: lock skipped' "$T/err" || fail "lock: no log"

# 6. send ... drop: rank 1 waits forever for the message (a deadlock, stopped by timeout)
run 6 'send:call=1:ranks=0:drop'
[ "$rc" = 124 ] || [ "$rc" = 137 ] || { cat "$T/out" "$T/err" >&2; fail "drop: status $rc, not a hang"; }
hasnt "rank 1 received 42" "drop"
has "rank 0 critical entries 2 overlap 0 lock overlap 0" "drop"
grep -q 'rank 0 thread 0: MPI_Send call 1: dropped' "$T/err" || fail "drop: no log"

# 7. dest=: the message goes to rank 0 itself (unmatched; the eager send completes), the
#    same deadlock in rank 1, seen from the log
run 6 'send:dest=0'
hasnt "rank 1 received 42" "dest"
grep -q 'MPI_Send call 1: dest 1 -> 0' "$T/err" || { cat "$T/err" >&2; fail "dest: no log"; }

# 8. spin after the second barrier of rank 1: rank 1 never finishes, nor does rank 0
run 6 'spin:func=MPI_Barrier:call=2:ranks=1'
[ "$rc" = 124 ] || [ "$rc" = 137 ] || { cat "$T/out" "$T/err" >&2; fail "spin: status $rc, not a hang"; }
hasnt "rank 1 done" "spin"
hasnt "rank 0 done" "spin"
grep -q 'rank 1 thread 0: MPI_Barrier call 2: spinning forever' "$T/err" ||
	{ cat "$T/err" >&2; fail "spin: no log"; }
pass
