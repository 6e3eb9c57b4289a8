#!/bin/sh
# A run recorded with --sample --sync-only and killed before its first MPI call has samples
# and no sync record yet (the sync recorder makes its files at the first MPI or OpenMP call):
# import takes what is there, a run with no traces and its samples, and says so; blame
# works on it, and the commands that need traces say the run has none. (It was 'cannot tell
# the trace format', and with --format sync 'no sync record here'.)
. "${abs_top_srcdir:-..}/tests/lib.sh"
need built mpi
[ -f "$abs_top_builddir/libdifftrace-sample.so" ] ||
	skip "libdifftrace-sample.so not built (configure found no libunwind: apt-get install libunwind-dev)"
export DIFFTRACE_BLAME_PATH="$abs_top_srcdir/blame"
cd "$T" || fail "cd $T"
E="$abs_top_srcdir/tests/blame/early.c"
"$MPICC" -g -O1 -o "$T/early" "$E" >"$T/cc.log" 2>&1 || { cat "$T/cc.log" >&2; fail "mpicc failed"; }

# the recorder execs the program: its pid is the program's
"$RECORD" --sample --sync-only -o "$T/rec" -- "$T/early" wait >"$T/run.log" 2>&1 &
pid=$!
i=0
until grep -q '^waiting$' "$T/run.log" 2>/dev/null; do
	i=$((i + 1))
	[ $i -le 600 ] || { kill -9 $pid; fail "the program never got to its wait: $(cat "$T/run.log")"; }
	sleep 0.1
done
kill -9 $pid
wait $pid 2>/dev/null
[ ! -e "$T/rec/rank-0/sync" ] || fail "a sync record was made before MPI_Init: $(ls -R "$T/rec")"
ls "$T"/rec/rank-0/sample/*.dtp >/dev/null 2>&1 || fail "no sample files: $(ls -R "$T/rec")"

expect_status 0 "$DT" import -r early "$T/rec"
grep -q "^imported run 'early' (sync): 0 traces" "$T/out" || fail "import: $(cat "$T/out")"
grep -q '^no traces: the program ended or was stopped before its first MPI or OpenMP call' "$T/out" ||
	fail "import does not say why there are no traces: $(cat "$T/out")"
grep -q '^samples of 1 processes: ' "$T/out" || fail "no samples imported: $(cat "$T/out")"
# a rank directory and a sample directory are taken the same way
expect_status 0 "$DT" import -r early-rank "$T/rec/rank-0"
expect_status 0 "$DT" import -r early-fmt --format sync "$T/rec"

expect_status 0 "$DT" blame early
vline=$(grep -n 'calloc(' "$E" | cut -d: -f1)
grep -q "^early.c:$vline (main) *heap " "$T/out" || fail "blame: the block v has no row: $(cat "$T/out")"
expect_status 1 "$DT" analyze early
expect_err "run 'early' has no traces"
expect_status 1 "$DT" order early
expect_err "has no sync events"

# an empty recording directory is still not a recording
mkdir -p "$T/empty/rank-0/sample"
expect_status 1 "$DT" import -r nothing "$T/empty"
expect_err "cannot tell the trace format"
pass
