#!/bin/sh
# difftrace watch on a real run while it hangs (issue 10, part 3, live): tests/sync/hangs.c
# deadlocks (ranks 0 and 1 each receive from the other, rank 2 waits in a barrier) under
# difftrace-record with the sync recorder; `difftrace watch --once` on the recording in
# progress names each rank's current call with its arguments, in text and json, grouped
# with --group; the time in the call grows between two snapshots. Then the run is killed.
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

# the run hangs until it is killed below (the recorder's own timeout is a safety net)
# shellcheck disable=SC2086
timeout -k 5 170 "$MPIRUN" $flags "$RECORD" --sync-only --timeout 150 -o "$T/live" -- \
	"$APP" cycle </dev/null >"$T/run.log" 2>&1 &
run=$!
trap 'kill "$run" 2>/dev/null; wait "$run" 2>/dev/null; rm -rf "$T"' EXIT

# until every rank is inside its call (up to 60 s)
n=0
while :; do
	"$DT" watch --once "$T/live" >"$T/out" 2>"$T/err"
	[ "$(grep -Ec '^[0-2]\.0 .* in MPI_(Recv|Barrier) ' "$T/out")" -eq 3 ] && break
	n=$((n + 1))
	[ $n -gt 300 ] && { cat "$T/out" "$T/err" "$T/run.log" >&2; fail "the ranks never all showed a call"; }
	kill -0 "$run" 2>/dev/null || { cat "$T/run.log" >&2; fail "the run ended"; }
	sleep 0.2
done
expect_status 0 "$DT" watch --once "$T/live"
cp "$T/out" "$T/snap1"
grep -Eq '^0\.0 +[0-9.]+s +in MPI_Recv \(1st\) src=1 tag=0$' "$T/out" || { cat "$T/out" >&2; fail "0.0 not in MPI_Recv from 1"; }
grep -Eq '^1\.0 +[0-9.]+s +in MPI_Recv \(1st\) src=0 tag=0$' "$T/out" || { cat "$T/out" >&2; fail "1.0 not in MPI_Recv from 0"; }
grep -Eq '^2\.0 +[0-9.]+s +in MPI_Barrier \(1st\)$' "$T/out" || { cat "$T/out" >&2; fail "2.0 not in MPI_Barrier"; }
grep -q '^3 processes, 3 threads, ' "$T/out" || { cat "$T/out" >&2; fail "the header does not count 3 processes"; }
# the cycle of the two receives, while it happens (issue 24, item 4)
grep -qx 'deadlock: 0\.0 -> 1\.0 -> 0\.0' "$T/out" || { cat "$T/out" >&2; fail "no live cycle"; }

# grouped STAT-like
expect_status 0 "$DT" watch --once --group "$T/live"
grep -Eq '^P 0-1 T 0 +[0-9.]+s +in MPI_Recv \(1st\)$' "$T/out" || { cat "$T/out" >&2; fail "no group of 0-1 in MPI_Recv"; }

# json, and the elapsed time of 0.0 grows from one snapshot to the next
expect_status 0 "$DT" watch --format json --once "$T/live"
grep -q '"pt": "0.0", "rank": 0, "thread": 0, .*"state": "in-call", "call": "MPI_Recv", "occurrence": 1, "args": "src=1 tag=0"' "$T/out" ||
	{ cat "$T/out" >&2; fail "json: 0.0 not in MPI_Recv"; }
grep -q '"cycles": \[\["0.0", "1.0"\]\]}$' "$T/out" || { cat "$T/out" >&2; fail "json: no live cycle"; }
el() { sed 's/.*"pt": "0.0"[^}]*"elapsed_ns": \([0-9]*\).*/\1/' "$T/out"; }
e1=$(el)
expect_status 0 "$DT" watch --format json --count 2 --interval 0.3 "$T/live"
[ "$(wc -l <"$T/out")" -eq 2 ] || fail "--count 2 did not print 2 snapshots"
tail -n 1 "$T/out" >"$T/last"
e2=$(sed 's/.*"pt": "0.0"[^}]*"elapsed_ns": \([0-9]*\).*/\1/' "$T/last")
[ "$e2" -gt "$e1" ] || fail "the time in the call did not grow: $e1 then $e2"

# the run is killed; the record stays readable, and watch says where each rank ended
kill "$run"
wait "$run" 2>/dev/null
# the ranks go down with mpirun; wait for them (up to 20 s) so that none is left behind
n=0
while command -v pgrep >/dev/null && pgrep -f "^$T/hangs" >/dev/null && [ $n -lt 100 ]; do
	n=$((n + 1))
	sleep 0.2
done
# a rank that outlived mpirun (a loaded machine, a sanitizer build) is killed outright: the
# test is of a killed run, whoever killed it
if command -v pkill >/dev/null && pkill -9 -f "^$T/hangs" 2>/dev/null; then
	n=0
	while pgrep -f "^$T/hangs" >/dev/null && [ $n -lt 50 ]; do
		n=$((n + 1))
		sleep 0.1
	done
fi
# a killed rank may stay a zombie for a while (its parent gone, a slow reaper): watch counts it
# gone; the kernel may still be tearing it down, so look again for up to 10 s
n=0
while :; do
	expect_status 0 "$DT" watch --once "$T/live"
	grep -Eq '^0\.0 +[0-9.]+s +in MPI_Recv \(1st\) src=1 tag=0 \[process gone\]$' "$T/out" && break
	n=$((n + 1))
	[ $n -gt 50 ] && { cat "$T/out" >&2; ps -eo pid,ppid,stat,cmd >&2; fail "0.0 lost after the kill, or its process not said gone"; }
	sleep 0.2
done

# bad use
expect_status 1 "$DT" watch --once "$T/nosuchdir"
grep -q 'nosuchdir' "$T/err" || fail "the missing directory not named: $(cat "$T/err")"
expect_status 2 "$DT" watch --interval 0 "$T/live"
expect_status 2 "$DT" watch --format csv "$T/live"
pass
