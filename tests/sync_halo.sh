#!/bin/sh
# difftrace hang on a real halo exchange, recorded and killed, in the memory of `order`
# (issue 19, item 4). 4 processes pass small messages to both neighbours with one tag
# (tests/sync/halo_killed.c: MPI_Irecv x2, MPI_Isend x2, MPI_Waitall, then a token sent with
# MPI_Isend and MPI_Request_free and received with MPI_Recv; 8,000 iterations, 450,000
# events) and then hang. The MPI library gives both sends of an iteration the same
# request handle (it completed them at once); the recorder kept one request per handle, so
# each Waitall recorded 3 completions of 4, and `hang`, which keeps every request not
# completed yet, grew with the run (a run 19 times as long took 290 MB where `order` took
# 12 MB); a freed request was not recorded as ended either. Here each Waitall has its 4
# completions, each freed request its MPI_Request_free, and the peak resident memory of
# `hang` (tests/peak_rss) stays within 8 MB of that of `order` on the same run (without the
# MPI_Request_free records: 12 MB more).
# Under the sanitizers, freed memory is given back at once (a quarantine of 1 MB) so that
# the peaks are those of the memory in use. Nothing is timed.
. "${abs_top_srcdir:-.}/tests/lib.sh"

need mpi built timeout
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=1:detect_leaks=0"
[ -f "$abs_top_builddir/libdifftrace-sync.so" ] ||
	skip "libdifftrace-sync.so not built (no mpicc at configure time)"
PR="$abs_top_builddir/tests/peak_rss"
[ -x "$PR" ] || fail "tests/peak_rss is not built"

APP="$T/halo"
"$MPICC" -O2 -g -o "$APP" "$abs_top_srcdir/tests/sync/halo_killed.c" >"$T/cc.log" 2>&1 ||
	{ cat "$T/cc.log" >&2; fail "mpicc failed"; }
cd "$T" || fail "cd $T"
flags="-np 4"
"$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags="$flags --oversubscribe"
iters=8000
# shellcheck disable=SC2086
timeout -k 5 300 "$MPIRUN" $flags "$RECORD" --sync-only -o "$T/rec" -- "$APP" $iters \
	</dev/null >"$T/run.log" 2>&1 &
job=$!
# every process prints "R stuck" when it has made its iterations, then blocks
n=0
while [ $n -lt 280 ] && [ "$(grep -c ' stuck$' "$T/run.log")" != 4 ]; do
	sleep 1
	n=$((n + 1))
done
pids=$(ls "$T"/rec/rank-*/sync/ 2>/dev/null | sed -n 's/^\([0-9]*\)\.[0-9]*\.dts$/\1/p' | sort -u)
for p in $pids; do kill -9 "$p" 2>/dev/null; done
wait $job
[ "$(grep -c ' stuck$' "$T/run.log")" = 4 ] ||
	{ cat "$T/run.log" >&2; fail "the processes did not all reach the end of the exchange"; }
expect_status 0 "$DT" import -r halo "$T/rec"
rm -rf "$T/rec"

# each of rank 0's Waitalls has its 4 completions
expect_status 0 "$DT" sync halo 0.0
waits=$(grep -c '< .* MPI_Waitall ' "$T/out")
dones=$(grep -c '= .* MPI_Waitall ' "$T/out")
[ "$waits" = $iters ] || fail "$waits Waitalls returned, not $iters"
[ "$dones" = $((4 * iters)) ] || fail "$dones completions in the Waitalls, not $((4 * iters))"
frees=$(grep -c '< .* MPI_Request_free  *req=[1-9]' "$T/out")
[ "$frees" = $iters ] || fail "$frees requests freed, not $iters"

peak() {
	"$PR" "$@" >"$T/out" 2>"$T/err"
	st=$?
	[ "$st" = 0 ] || { cat "$T/err" >&2; fail "$*: exit status $st"; }
	sed -n 's/^peak_rss \([0-9]*\)$/\1/p' "$T/err" | tail -n 1
}
order=$(peak "$DT" order halo)
hang=$(peak "$DT" hang halo)
grep -q '0\.0 -> 1\.0 -> 0\.0' "$T/out" || { cat "$T/out" >&2; fail "no cycle of ranks 0 and 1"; }
grep -q 'P 1-3 T 0 *in MPI_Barrier' "$T/out" || { cat "$T/out" >&2; fail "ranks 1-3 not in the barrier"; }
echo "peak RSS: order ${order} KiB, hang ${hang} KiB"
[ "$hang" -le $((order + 8192)) ] ||
	fail "hang kept ${hang} KiB resident, order ${order} KiB: requests never completed pile up"
pass
