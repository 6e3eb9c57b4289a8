#!/bin/sh
# difftrace watch says what each thread does (issue 24, item 4): between recorded calls, a
# rank that sleeps, a rank that computes and an idle OpenMP worker all showed as "computing".
# tests/sync/states.c under difftrace-record: rank 0 sleeps, rank 1 computes while its
# region's worker idles, rank 2 waits in MPI_Recv. From /proc (CPU time between two polls,
# the state, the system call) watch tells sleeping, computing and waiting apart, in text and
# JSON. Then the run is killed: the ranks are gone, and their clocks stop.
. "${abs_top_srcdir:-.}/tests/lib.sh"

need mpi built timeout
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=2
export OMP_WAIT_POLICY=passive
[ -f "$abs_top_builddir/libdifftrace-sync.so" ] ||
	skip "libdifftrace-sync.so not built (no mpicc at configure time)"
[ -r /proc/self/stat ] || skip "no /proc"
APP="$T/states"
"$MPICC" -fopenmp -O2 -g -o "$APP" "$abs_top_srcdir/tests/sync/states.c" >"$T/cc.log" 2>&1 ||
	{ cat "$T/cc.log" >&2; fail "mpicc failed"; }
cd "$T" || fail "cd $T"
flags="-np 3"
"$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags="$flags --oversubscribe"
# shellcheck disable=SC2086
timeout -k 5 170 "$MPIRUN" $flags "$RECORD" --sync-only --timeout 150 -o "$T/live" -- \
	"$APP" </dev/null >"$T/run.log" 2>&1 &
run=$!
trap 'kill "$run" 2>/dev/null; wait "$run" 2>/dev/null; rm -rf "$T"' EXIT

# the last of two snapshots half a second apart (the CPU time between them), until the four
# threads show their states (up to 60 s: a loaded node starts the ranks slowly)
n=0
while :; do
	"$DT" watch --count 2 --interval 0.5 --threads "$T/live" >"$T/all" 2>"$T/err"
	awk '/^difftrace watch /{n++} n == 2' "$T/all" >"$T/out"
	grep -Eq '^0\.0 +[0-9.]+s +sleeping \(after MPI_Init, 1st\)$' "$T/out" &&
		grep -Eq '^1\.0 +[0-9.]+s +computing \(after GOMP_parallel, 1st\)$' "$T/out" &&
		grep -Eq '^1\.1 +[0-9.]+s +waiting outside the recorded calls \(after ' "$T/out" &&
		grep -Eq '^2\.0 +[0-9.]+s +in MPI_Recv \(1st\) src=0 tag=7$' "$T/out" && break
	n=$((n + 1))
	[ $n -gt 60 ] && { cat "$T/out" "$T/err" "$T/run.log" >&2; fail "the states were not told apart"; }
	kill -0 "$run" 2>/dev/null || { cat "$T/run.log" >&2; fail "the run ended"; }
	sleep 0.5
done
grep -q 'computing' "$T/out" && [ "$(grep -c 'computing' "$T/out")" = 1 ] ||
	{ cat "$T/out" >&2; fail "more than rank 1's main thread computing"; }

# grouped: one group per state
expect_status 0 "$DT" watch --count 2 --interval 0.5 --group "$T/live"
awk '/^difftrace watch /{n++} n == 2' "$T/out" >"$T/g"
grep -Eq '^0\.0 +[0-9.]+s +sleeping' "$T/g" && grep -Eq '^1\.0 +[0-9.]+s +computing' "$T/g" ||
	{ cat "$T/g" >&2; fail "the groups do not keep the states apart"; }

# json: the activity and the share of a CPU
expect_status 0 "$DT" watch --format json --count 2 --interval 0.5 "$T/live"
tail -n 1 "$T/out" >"$T/j"
grep -q '"pt": "0.0", [^}]*"activity": "sleeping", "cpu_pct": [0-9]' "$T/j" &&
	grep -q '"pt": "1.0", [^}]*"activity": "computing", "cpu_pct": [1-9]' "$T/j" ||
	{ cat "$T/j" >&2; fail "json: no activities"; }

# killed: every rank gone, and its clock stopped (two snapshots a second apart agree)
kill "$run"
wait "$run" 2>/dev/null
n=0
while command -v pgrep >/dev/null && pgrep -f "^$APP" >/dev/null && [ $n -lt 100 ]; do
	n=$((n + 1))
	sleep 0.2
done
command -v pkill >/dev/null && pkill -9 -f "^$APP" 2>/dev/null
n=0
while :; do
	expect_status 0 "$DT" watch --format json --count 2 --interval 1 "$T/live"
	[ "$(grep -o '"gone": true' "$T/out" | wc -l)" -ge 8 ] && break
	n=$((n + 1))
	[ $n -gt 20 ] && { cat "$T/out" >&2; fail "the ranks not said gone after the kill"; }
done
for p in 0.0 1.0 2.0; do
	a=$(head -n 1 "$T/out" | sed "s/.*\"pt\": \"$p\"[^}]*\"elapsed_ns\": \\([0-9]*\\).*/\\1/")
	b=$(tail -n 1 "$T/out" | sed "s/.*\"pt\": \"$p\"[^}]*\"elapsed_ns\": \\([0-9]*\\).*/\\1/")
	[ "$a" = "$b" ] || fail "$p: the clock of a gone process goes on ($a, then $b)"
done
pass
