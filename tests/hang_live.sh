#!/bin/sh
# difftrace hang DIR reads a recording in progress (issue 24, item 4): `hang` took only a run
# of the store, so a hang was diagnosed after killing it and importing. tests/sync/hangs.c
# deadlocks (ranks 0 and 1 each receive from the other, rank 2 in a barrier) under
# difftrace-record; while it runs, `hang DIR` names each rank's call and the cycle, in text and
# JSON, with no store (none is made), and leaves no temporary file behind.
. "${abs_top_srcdir:-.}/tests/lib.sh"

need mpi built timeout
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=2
[ -f "$abs_top_builddir/libdifftrace-sync.so" ] ||
	skip "libdifftrace-sync.so not built (no mpicc at configure time)"
APP="$T/hangs"
"$MPICC" -fopenmp -O2 -g -o "$APP" "$abs_top_srcdir/tests/sync/hangs.c" >"$T/cc.log" 2>&1 ||
	{ cat "$T/cc.log" >&2; fail "mpicc failed"; }
cd "$T" || fail "cd $T"
flags="-np 3"
"$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags="$flags --oversubscribe"
# shellcheck disable=SC2086
timeout -k 5 170 "$MPIRUN" $flags "$RECORD" --sync-only --timeout 150 -o "$T/live" -- \
	"$APP" cycle </dev/null >"$T/run.log" 2>&1 &
run=$!
trap 'kill "$run" 2>/dev/null; wait "$run" 2>/dev/null; rm -rf "$T"' EXIT
mkdir "$T/tmp"
export TMPDIR="$T/tmp" DIFFTRACE_DB="$T/no-store.db"

n=0
while :; do
	"$DT" hang "$T/live" >"$T/out" 2>"$T/err" && grep -q '^  0\.0 -> 1\.0 -> 0\.0$' "$T/out" && break
	n=$((n + 1))
	[ $n -gt 120 ] && { cat "$T/out" "$T/err" "$T/run.log" >&2; fail "no cycle in the recording in progress"; }
	kill -0 "$run" 2>/dev/null || { cat "$T/run.log" >&2; fail "the run ended"; }
	sleep 0.5
done
kill -0 "$run" 2>/dev/null || fail "the run ended before the report"
grep -q "^recording $T/live (in progress, or ended without an import): 3 threads" "$T/out" ||
	{ cat "$T/out" >&2; fail "the header does not name the recording"; }
grep -Eq '^  P 0-1 T 0 +in MPI_Recv \(1st\) at .+$' "$T/out" || { cat "$T/out" >&2; fail "0-1 not in MPI_Recv"; }
grep -Eq '^  2\.0 +in MPI_Barrier \(1st\) at .+$' "$T/out" || { cat "$T/out" >&2; fail "2.0 not in MPI_Barrier"; }
expect_status 0 "$DT" hang --format json "$T/live"
grep -q "\"recording\": \"$T/live\"" "$T/out" && grep -q '\["0.0", "1.0"\]' "$T/out" ||
	{ cat "$T/out" >&2; fail "json: no recording or cycle"; }
[ -e "$DIFFTRACE_DB" ] && fail "a store was made"
[ -z "$(ls -A "$T/tmp")" ] || { ls -la "$T/tmp" >&2; fail "temporary files left"; }
# a name that is neither a run nor a directory: the store's error, as before
expect_status 1 "$DT" hang "$T/nosuch"
pass
