#!/bin/sh
# difftrace hang on real hung runs (issue 10, part 4): tests/sync/hangs.c hangs in five ways
# under difftrace-record --timeout, and the report names the threads, the calls they are in
# (with which occurrence), who waits for whom, and the cycles. A run killed with kill -9 is in
# tests/sync_record.sh.
. "${abs_top_srcdir:-.}/tests/lib.sh"

need mpi built timeout
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=2
[ -f "$abs_top_builddir/libdifftrace-sync.so" ] ||
	skip "libdifftrace-sync.so not built (no mpicc at configure time)"
APP="$T/hangs"
"$MPICC" -fopenmp -O1 -o "$APP" "$abs_top_srcdir/tests/sync/hangs.c" >"$T/cc.log" 2>&1 ||
	{ cat "$T/cc.log" >&2; fail "mpicc failed"; }
cd "$T" || fail "cd $T"
flags="-np 3"
"$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags="$flags --oversubscribe"

# hang MODE [RECORD-OPTIONS...]: record MODE until the timeout, import it, report into $T/out
hang() {
	mode=$1; shift
	# shellcheck disable=SC2086
	timeout -k 5 150 "$MPIRUN" $flags "$RECORD" --timeout 3 "$@" -o "$T/$mode" -- \
		"$APP" "$mode" </dev/null >"$T/$mode.log" 2>&1
	[ -d "$T/$mode/rank-2/sync" ] || { cat "$T/$mode.log" >&2; fail "$mode: no sync record"; }
	expect_status 0 "$DT" import -r "$mode" "$T/$mode"
	expect_status 0 "$DT" hang "$mode"
	cp "$T/out" "$T/$mode.hang"
	grep -q 'stopped by difftrace-record --timeout' "$T/out" ||
		fail "$mode: the run is not flagged as stopped: $(cat "$T/out")"
}
has() { # MODE REGEX WHAT
	grep -Eq -- "$2" "$T/$1.hang" || { cat "$T/$1.hang" >&2; fail "$1: $3"; }
}
hasnt() {
	grep -Eq -- "$2" "$T/$1.hang" && { cat "$T/$1.hang" >&2; fail "$1: $3"; }
	return 0
}

# a cycle of two receives; rank 2 waits in the barrier for both
hang cycle --sync-only
has cycle 'P 0-1 T 0 +in MPI_Recv \(1st\)' "ranks 0 and 1 not in MPI_Recv"
has cycle '^  2\.0 +in MPI_Barrier \(1st\)' "rank 2 not in MPI_Barrier"
has cycle '0\.0 +waits for 1\.0 \(receive: MPI_Recv comm=0 src=1 ' "0.0 does not wait for 1.0"
has cycle '2\.0 +waits for P 0-1 T 0 \(collective: MPI_Barrier' "2.0 does not wait for 0 and 1"
has cycle '^  0\.0 -> 1\.0 -> 0\.0$' "no cycle 0.0 -> 1.0 -> 0.0"
# the calls that can never complete, with the rule that holds them (the filter's hold queues)
has cycle '^  0\.0 in MPI_Recv \(1st\) at [^:]+(:[0-9]+ \([^)]*\))?: rule mpi-p2p\.rules:[0-9]+: RECV\(0, 1, 0, 0, 1\): needs SEND\(0, 1, 0, 0, 1\): none of that key delivered' \
	"0.0's receive not listed as never completing"
has cycle '^  1\.0 in MPI_Recv \(1st\) at [^:]+(:[0-9]+ \([^)]*\))?: rule mpi-p2p' "1.0's receive not listed as never completing"
has cycle '^  2\.0 in MPI_Barrier \(1st\) at [^:]+(:[0-9]+ \([^)]*\))?: rule mpi-coll\.rules:[0-9]+: .*needs #COLL_IN\(\.\.\.\) >= 3: it is 1' \
	"2.0's barrier not listed as never completing"

# a missing send: rank 1 waits for rank 0, which computes forever; no cycle
hang nosend --sync-only
has nosend '^  1\.0 +in MPI_Recv \(1st\)' "rank 1 not in MPI_Recv"
has nosend '^  0\.0 +not in a recorded call \(after MPI_Init, 1st\)' "rank 0 not outside calls"
has nosend '1\.0 +waits for 0\.0 \(receive: MPI_Recv comm=0 src=0 tag=5 ' "1.0 does not wait for 0.0"
has nosend 'no wait-for cycle' "a cycle where there is none"
has nosend '^most likely cause: 0\.0: 2 threads wait for it and it waits for nobody: in no recorded call' \
	"the cause is not rank 0, which never sends"
has nosend '^  1\.0 in MPI_Recv \(1st\) at [^:]+(:[0-9]+ \([^)]*\))?: rule .*needs SEND\(0, 0, 1, 5, 1\)' "the missing send not named"
hasnt nosend '^  0\.0 in ' "0.0, which is in no call, listed as never completing"

# a collective rank 2 skips: the others' barrier and its allreduce wait for each other
hang skipcoll --sync-only
has skipcoll 'P 0-1 T 0 +in MPI_Barrier \(1st\)' "ranks 0 and 1 not in MPI_Barrier"
has skipcoll '^  2\.0 +in MPI_Allreduce \(2nd\)' "rank 2 not in its 2nd MPI_Allreduce"
has skipcoll '0\.0 +waits for 2\.0 \(collective' "0.0 does not wait for 2.0"
has skipcoll '2\.0 +waits for P 0-1 T 0 \(collective: MPI_Allreduce' "2.0 does not wait for 0, 1"
has skipcoll '^  (0\.0 -> 2\.0 -> 0\.0|1\.0 -> 2\.0 -> 1\.0|2\.0 -> [01]\.0 -> 2\.0) \(of 3 threads that wait for each other: P 0-2 T 0\)$' "no cycle"
# the cause: rank 2, in the collective the others are not in
# (rank 2's allreduce named with where the program made it)
has skipcoll '^most likely cause: 2\.0: in a collective of 3 members, MPI_Allreduce\[datatype=MPI_INT,op=MPI_SUM\] at [^ ]+( \([^)]*\))? where 2 others have MPI_Barrier$' \
	"the cause is not rank 2, in another collective than the others"

# a rank that leaves its loop early: the others wait in the 4th allreduce, for it alone
hang early --sync-only
has early 'P 0,2 T 0 +in MPI_Allreduce \(4th\)' "ranks 0 and 2 not in the 4th MPI_Allreduce"
has early '^  1\.0 +not in a recorded call \(after MPI_Allreduce, 3rd\)' "rank 1 not after its 3rd"
has early '0\.0 +waits for 1\.0 \(collective' "0.0 does not wait for 1.0"
hasnt early '0\.0 +waits for .*2\.0' "0.0 waits for 2.0, which is in the same allreduce"
has early 'no wait-for cycle' "a cycle where there is none"
has early '^most likely cause: 1\.0: 2 threads wait for it and it waits for nobody' \
	"the cause is not rank 1, which left the loop"
has early '^  0\.0 in MPI_Allreduce \(4th\) at [^:]+(:[0-9]+ \([^)]*\))?: rule mpi-coll.*it is 2' "0.0's allreduce can complete?"
has early '^  2\.0 in MPI_Allreduce \(4th\) at [^:]+(:[0-9]+ \([^)]*\))?: rule mpi-coll' "2.0's allreduce can complete?"

# a rule file that never releases an event is reported at the filter's bound, not buffered
# without bound: the hang report says so in its section, order fails with the same message
cat >"$T/never.rules" <<'EOF'
event INIT(proc) on exit /^MPI_Init(_thread)?$/;
event NEVER(proc) on exit /^MPI_Allreduce$/;
rule NEVER(p, n) <- INIT(p + 100, n);
EOF
expect_status 0 "$DT" hang --rules "$T/never.rules" --max-held 3 early
grep -q '^  the causality filter stopped: the rules release nothing: 3 events held (limit 3); first: .*MPI_Allreduce exit .*rule .*never\.rules:3: .*needs INIT(10[0-9], 1)' "$T/out" ||
	fail "the never-releasing rules not reported: $(cat "$T/out")"
expect_status 0 "$DT" hang --format json --rules "$T/never.rules" --max-held 3 early
grep -q '"filter_stopped": "the rules release nothing: 3 events held' "$T/out" ||
	fail "json lacks filter_stopped: $(cat "$T/out")"
expect_status 1 "$DT" order --rules "$T/never.rules" --max-held 3 early
grep -q 'the rules release nothing: 3 events held (limit 3)' "$T/err" ||
	fail "order: the never-releasing rules not reported: $(cat "$T/err")"
# without the bound the held events are listed at the end of the input
expect_status 0 "$DT" hang --rules "$T/never.rules" early
grep -Eq '^  [0-2]\.0 #[0-9]+ MPI_Allreduce exit \([0-9]+ held\) at [^:]+(:[0-9]+ \([^)]*\))?: rule never\.rules:3: ' "$T/out" ||
	fail "the held exits not listed: $(cat "$T/out")"
expect_status 2 "$DT" hang --max-held 0 early
grep -q "hang: --max-held needs a positive number, not '0'" "$T/err" || fail "hang --max-held 0: $(cat "$T/err")"
expect_status 2 "$DT" order --max-held -3 early
grep -q "order: --max-held needs a positive number, not '-3'" "$T/err" ||
	fail "order --max-held -3: $(cat "$T/err")"

# receives posted and waited for together (Waitall), one of them never sent: the completion
# the filter holds is the receive from rank 0, not the one rank 2 sent
hang irecv --sync-only
has irecv '^  1\.0 +in MPI_Waitall \(1st\)' "rank 1 not in MPI_Waitall"
has irecv '^  1\.0 in MPI_Waitall \(1st\) at [^:]+(:[0-9]+ \([^)]*\))?: rule mpi-p2p\.rules:[0-9]+: RECV\(0, 0, 1, 3, 1\): needs SEND\(0, 0, 1, 3, 1\): none of that key delivered' \
	"the receive from 0 that was never sent not named"
hasnt irecv 'RECV\(0, 2, 1, 4' "the receive rank 2 sent named as never completing"

# a thread that never leaves its critical section, recorded next to uftrace when it is here
opt=--sync-only
[ -n "${UFTRACE:-$(command -v uftrace || true)}" ] && opt=
# (not under MPICH: Hydra ends the job when the first rank's timeout ends it, and can kill
# another rank's uftrace before it has written its data; the sync record is whole)
[ -n "${DIFFTRACE_TEST_MPI:-}" ] && opt=--sync-only
hang critical $opt
has critical '^  0\.0 +in GOMP_critical_start \(1st\)' "0.0 not waiting to enter"
has critical '0\.0 +waits for 0\.1 \(lock: GOMP_critical_start' "0.0 does not wait for 0.1"
has critical '0\.1 holds GOMP_critical_start obj=0x1 \(1st acquisition\)' "0.1 holds nothing"
has critical '^  0\.0 in GOMP_critical_start \(1st\) at [^:]+(:[0-9]+ \([^)]*\))?: rule omp\.rules:[0-9]+: ACQUIRE\(0, 1, 2\): .*needs RELEASE\(0, 1, 1\)' \
	"the lock never released not named"
has critical 'P 1-2 T 0 +in MPI_Barrier \(1st\)' "ranks 1 and 2 not in the barrier"
# the calls' sites are the program's, not uftrace's return trampoline (libmcount)
hasnt critical 'libmcount' "a call site in uftrace's trampoline"
has critical '1\.0 +waits for 0\.0 \(collective' "1.0 does not wait for 0.0"
expect_status 0 "$DT" hang --format json critical
grep -q '"from": "0.0", "to": "0.1", "why": "lock"' "$T/out" || fail "json lacks the lock edge"
grep -q '{"pt": "0.0", "call": "GOMP_critical_start", "pending": true, "occurrence": 1, "held": 1, "rule": "[^"]*omp.rules:[0-9]*", "why": "ACQUIRE(0, 1, 2): .*needs RELEASE(0, 1, 1)' "$T/out" ||
	fail "json lacks the critical section that can never be entered: $(cat "$T/out")"
expect_status 2 "$DT" hang --format csv critical
expect_status 1 "$DT" hang nosuchrun
pass
