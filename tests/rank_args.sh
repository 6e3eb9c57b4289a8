#!/bin/sh
# A changed input on the user's path (issue 23, item 1): a C program recorded as the README
# says (difftrace-record, uftrace on), the faulty run started with other arguments (every rank
# parses more of them: more strcmp and strtol) and a wrong branch in rank 2 (mirror instead of
# relax, the same MPI calls). rank puts 2.0 first alone, says the arguments' change was set
# apart as a changed input, and names no argument parsing as what changed. (A performance bug
# behind a changed input, judged by time, is in tests/rank_time.sh on text traces with
# timestamps: the times of a real run on a loaded machine are not a test's to count on.)
. "${abs_top_srcdir:-.}/tests/lib.sh"

need mpi uftrace built timeout
[ -f "$abs_top_builddir/libdifftrace-sync.so" ] ||
	skip "libdifftrace-sync.so not built (no mpicc at configure time)"
cd "$T" || fail "cd $T"
flags="-np 4"
"$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags="$flags --oversubscribe"
[ "$(id -u)" = 0 ] && "$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags="$flags --allow-run-as-root"
"$MPICC" -pg -O2 -g -o args "$abs_top_srcdir/tests/sync/args.c" >cc.log 2>&1 ||
	{ cat cc.log >&2; fail "mpicc failed"; }
rec() { # NAME ARGS...
	n=$1
	shift
	# shellcheck disable=SC2086
	timeout -k 5 150 "$MPIRUN" $flags "$RECORD" -o "$T/$n" -- ./args "$@" </dev/null >"$n.log" 2>&1 ||
		{ cat "$n.log" >&2; fail "the run $n failed"; }
	expect_status 0 "$DT" import -q -r "$n" "$T/$n"
}
rec normal -n 1000
rec faulty -n 2000 -i 6 -v --bug 2

expect_status 0 "$DT" rank --normal normal --faulty faulty
grep -q '^   1  2\.0 ' "$T/out" || fail "2.0 not first alone: $(cat "$T/out")"
grep -q 'a changed input' "$T/out" || fail "the changed input not said: $(cat "$T/out")"
grep -q '^#.*(.*+[0-9]* str\(cmp\|tol\).*): a changed input' "$T/out" ||
	fail "the arguments' calls not named as the change: $(cat "$T/out")"
grep -q '^   1  2\.0 .*mirror' "$T/out" || fail "2.0's reason does not name mirror: $(cat "$T/out")"
grep -q 'str\(cmp\|tol\) where the normal run has' "$T/out" &&
	fail "the argument parsing named as what changed: $(cat "$T/out")"

pass
