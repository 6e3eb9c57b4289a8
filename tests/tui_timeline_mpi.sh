#!/bin/sh
# The timeline and hang views on real recordings: tests/sync/hangs.c run under the sync
# recorder by mpirun (a run that ends, and a deadlock stopped by the recorder's timeout),
# headless. Skipped without mpicc and mpirun.
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
# shellcheck disable=SC2086
timeout -k 5 150 "$MPIRUN" $flags "$RECORD" --sync-only -o "$T/ok" -- "$APP" ok </dev/null \
	>"$T/ok.log" 2>&1 || { cat "$T/ok.log" >&2; fail "the ok run failed"; }
# shellcheck disable=SC2086
timeout -k 5 150 "$MPIRUN" $flags "$RECORD" --sync-only --timeout 3 -o "$T/cycle" -- \
	"$APP" cycle </dev/null >"$T/cycle.log" 2>&1
[ -d "$T/cycle/rank-2/sync" ] || { cat "$T/cycle.log" >&2; fail "cycle: no sync record"; }
expect_status 0 "$DT" import -q -r ok "$T/ok"
expect_status 0 "$DT" import -q -r cycle "$T/cycle"
ui() { # keys... : runs the interface on them; the screen is in $T/screen
	printf '%s\n' "$@" > "$T/keys"
	"$DT" tui --script "$T/keys" --dump "$T/screen" --size "${SIZE:-24x80}" > "$T/out" 2> "$T/err" ||
		fail "tui exited $?: $(cat "$T/err")"
}
has() { grep -q -- "$1" "$T/screen" || { cat "$T/screen" >&2; fail "screen lacks '$1'"; }; }

# the run that ended: a lane per thread (three processes, two threads each), steps, the
# messages of the exchange marked on both ends
ui : '"timeline ok"' Enter
[ "$(wc -l < "$T/screen")" -eq 24 ] || fail "not 24 rows"
awk 'length > 80 { exit 1 }' "$T/screen" || fail "a row wider than 80"
has '^difftrace: timeline of ok: 6 traces, [0-9]* steps (maximal concurrency)'
has '^    STEP >0\.0        0\.1        1\.0        1\.1        2\.0        2\.1'
has '^>      1 \[Init(     ]'
has '|Isend(>[0-2]  |'
has '|Waitall\*<[0-2]|'
# the first receive completion of 0.0 waited for a send of another process
ui : '"timeline ok"' Enter / '"Recv\\)<"' Enter
has '^0\.0 #[0-9]* MPI_Recv exit (step [0-9]*) comm=0 src=[12] '
has '^waited for: SEND(0, [12], 0, [0-9]*, 1) = [12]\.0 #[0-9]* MPI_Send enter'
# the deadlock: its hang view, then Enter on the group in MPI_Recv, at 0.0's last event
ui : '"hang cycle"' Enter
has '^> P 0-1 T 0  *in MPI_Recv (1st)  2 threads'
has '^  2\.0  *in MPI_Barrier (1st)'
has '^  0\.0 -> 1\.0 -> 0\.0'
ui : '"hang cycle"' Enter Enter
has '^difftrace: timeline of cycle: 3 traces'
has '^0\.0 #[0-9]* MPI_Recv enter (step [0-9]*) comm=0 src=1 '
# from the ranking of the deadlock against the run that ended: T at the first divergence
ui : '"rank ok cycle"' Enter wait T
has '^difftrace: timeline of cycle'
has 'first diverging call of [0-2]\.0\|stopped early: at its last call'
pass
