#!/bin/sh
# A hang behind a changed input (issue 23, items 1 and 4): the same program started with a
# larger size (tests/mk_sync_rec size N: pairs (0,1) and (2,3) swap N INT, rank 3 wrongly
# sends first too, which deadlocks 2 and 3 once MPI_Send no longer buffers). Every rank's
# MPI_Send and MPI_Recv count went from 64 to 200000 alike: the input, not the bug. With it
# left out, the threads of the cycle (2.0, 3.0, symmetric in the record) come before the
# two that only wait for them, in the hang report's cause line and in the ranking, and the
# common change is named.
. "${abs_top_srcdir:-.}/tests/lib.sh"

need built
MK="$abs_top_builddir/tests/mk_sync_rec"
[ -x "$MK" ] || fail "tests/mk_sync_rec is not built"
"$MK" "$T/normal" size 64 || fail "mk_sync_rec size 64"
"$MK" "$T/faulty" size 200000 || fail "mk_sync_rec size 200000"
expect_status 0 "$DT" import -q --run normal "$T/normal"
expect_status 0 "$DT" import -q --run faulty "$T/faulty"

expect_status 0 "$DT" hang --normal normal faulty
head -n 1 "$T/out" | grep -qx 'most likely cause: 2\.0, 3\.0 (tied): 2 threads that wait for each other, all in MPI_Send (1st) (the normal run does not tell them apart)' ||
	{ cat "$T/out" >&2; fail "the cause is not the cycle"; }
sed -n 2p "$T/out" | grep -q '^  every thread that makes these calls changed them alike against the normal run: count 64 -> 200000 in MPI_\(Send, MPI_Recv\|Recv, MPI_Send\): a changed input, left out of the comparison$' ||
	{ cat "$T/out" >&2; fail "the common change not named"; }
expect_status 0 "$DT" hang --format json --normal normal faulty
grep -q '"cause": {"why": "cycle", "pts": \["2\.0", "3\.0"\], .*"common_args": "count 64 -> 200000 in ' "$T/out" ||
	{ cat "$T/out" >&2; fail "json: the cause"; }
# without a normal run nothing is left out, and the report says a normal run would help
expect_status 0 "$DT" hang faulty
grep -q 'changed input' "$T/out" && fail "a changed input without a normal run: $(cat "$T/out")"
head -n 1 "$T/out" | grep -q '(a normal run, --normal RUN, tells them apart)$' ||
	fail "without a normal run: $(head -n 1 "$T/out")"

# the ranking from the same record: the cycle first, tied, then the two that wait for it,
# no thread said to depart from its pattern by the count
expect_status 0 "$DT" rank --normal normal --faulty faulty
for row in '1= *2\.0' '1= *3\.0' '3= *0\.0' '3= *1\.0'; do
	grep -q "^  $row " "$T/out" || fail "rank: not the cycle first: $(cat "$T/out")"
done
# and no row blames the count: it is the input's
grep -q 'count=200000\] where the normal run has' "$T/out" &&
	fail "rank: the count named as what changed: $(cat "$T/out")"

pass
