#!/bin/sh
# The sampler on the user's path when the program lives in a directory whose name holds a
# newline, started without a launcher (Open MPI's singleton start, which execs its daemon
# with the same LD_PRELOAD): the maps file names the binary with the newline written \012
# by the kernel, and the importer finds it (the samples were left unsymbolized: no line, no
# allocation site); the MPI library's daemon is not recorded as a process of the program.
. "${abs_top_srcdir:-..}/tests/lib.sh"
need built mpi
[ -f "$abs_top_builddir/libdifftrace-sample.so" ] ||
	skip "libdifftrace-sample.so not built (configure found no libunwind: apt-get install libunwind-dev)"
export DIFFTRACE_BLAME_PATH="$abs_top_srcdir/blame"
E="$abs_top_srcdir/tests/blame/early.c"
nl='
'
D="$T/my${nl}dir"
mkdir -p "$D" || skip "this filesystem takes no newline in a name"
"$MPICC" -g -O1 -o "$D/prog" "$E" >"$T/cc.log" 2>&1 || { cat "$T/cc.log" >&2; fail "mpicc failed"; }
cd "$T" || fail "cd $T"
timeout -k 5 120 "$RECORD" --sample --sync-only -o "$T/rec" -- "$D/prog" </dev/null >"$T/run.log" 2>&1 ||
	{ cat "$T/run.log" >&2; fail "the recorded run failed"; }
grep -q 'my\\012dir/prog' "$T"/rec/rank-0/sample/*.maps || fail "the maps file does not name the binary as the kernel writes it"
expect_status 0 "$DT" import -r nl "$T/rec"
grep -q '^samples of 1 processes: ' "$T/out" || fail "not one process (the MPI daemon recorded?): $(cat "$T/out")"
expect_status 0 "$DT" blame nl
vline=$(grep -n 'calloc(' "$E" | cut -d: -f1)
grep -q "^early.c:$vline (main) *heap " "$T/out" || fail "the block is not named by its site: $(cat "$T/out")"
pass
