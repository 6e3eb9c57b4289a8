#!/bin/sh
# An MPI argument every trace changed alike is a changed input (issue 23, item 1): the faulty
# run started with a larger size sends and receives another count in every rank. Text traces
# with the calls as .args names them (MPI_Send[count=64,dest=rank+1]), 4 processes x 1 thread,
# 6 iterations of compute, MPI_Send and MPI_Recv:
#   bug    count 200000 everywhere, and rank 2 also calls MPI_Barrier in its 5th iteration
#   input  count 200000 everywhere, nothing else
#   alone  rank 2 alone sends and receives count 200000
# bug: the count's change is named in the header and left out of each trace's comparison, so
# 2.0 comes first alone with where it really departs, the others changed only as their peers
# did. input: that change is all there is (it may be the bug itself): the verdict as it was.
# alone: one trace's change is not an input, nothing is left out.
. "${abs_top_srcdir:-.}/tests/lib.sh"

mk() { # DIR COUNT
	mkdir "$1"
	for p in 0 1 2 3; do
		c=$2
		[ "$1" = "$T/alone" ] && [ $p != 2 ] && c=64
		{ printf 'main\nMPI_Init\n[ret]\n'
		  i=0; while [ $i -lt 6 ]; do
			printf 'compute\n[ret]\nMPI_Send[count=%s,dest=rank+1]\n[ret]\n' "$c"
			printf 'MPI_Recv[count=%s,source=rank-1]\n[ret]\n' "$c"
			[ "$1" = "$T/bug" ] && [ $p = 2 ] && [ $i = 4 ] && printf 'MPI_Barrier\n[ret]\n'
			i=$((i + 1)); done
		  printf 'MPI_Finalize\n[ret]\n[ret]\n'; } > "$1/$p.0.txt"
	done
}
mk "$T/normal" 64
for k in bug input alone; do mk "$T/$k" 200000; done
for k in normal bug input alone; do expect_status 0 "$DT" import -q --run "$k" "$T/$k"; done

expect_status 0 "$DT" rank --normal normal --faulty bug
grep -q '^# every trace that makes these calls changed their arguments alike (count 64 -> 200000 in MPI_\(Recv, MPI_Send\|Send, MPI_Recv\)): a changed input, left out of each trace.s comparison' "$T/out" ||
	fail "bug: the common change not named: $(cat "$T/out")"
grep -q '^   1  2\.0 .*diverged at kept event 12 of 14: MPI_Barrier where the normal run has MPI_Send\[count=64,dest=rank+1\]$' "$T/out" ||
	fail "bug: 2.0 not first alone, or not where it departs: $(cat "$T/out")"
[ "$(grep -c '^  2= .*changed only as its peers did (a changed input)$' "$T/out")" = 3 ] ||
	fail "bug: the peers: $(cat "$T/out")"
expect_status 0 "$DT" rank --normal normal --faulty bug --format json
grep -q '"common_args": {"change": "count 64 -> 200000 in MPI_[A-Za-z]*, MPI_[A-Za-z]*", "traces": 4}' "$T/out" ||
	fail "bug json: $(cat "$T/out")"
# the ranking view says the same
printf ': "rank normal bug" Enter wait\n' > "$T/keys"
expect_status 0 "$DT" tui --script "$T/keys" --dump "$T/screen" --size 30x220
grep -q 'every trace that makes these calls changed their arguments alike (count 64 -> 200000 in ' "$T/screen" ||
	fail "the view: the common change not said: $(cat "$T/screen")"
grep -q '^>  *1 2\.0 ' "$T/screen" || fail "the view: 2.0 not first: $(cat "$T/screen")"

expect_status 0 "$DT" rank --normal normal --faulty input
grep -q 'changed input\|peers' "$T/out" && fail "input: a common change said: $(cat "$T/out")"
[ "$(grep -c '^  1= .*diverged at kept event 2 of 14: MPI_Send\[count=200000' "$T/out")" = 4 ] ||
	fail "input: the verdict's reasons: $(cat "$T/out")"
expect_status 0 "$DT" rank --normal normal --faulty input --format json
grep -q '"common_args": null' "$T/out" || fail "input json: $(cat "$T/out")"

expect_status 0 "$DT" rank --normal normal --faulty alone
grep -q 'changed input\|peers' "$T/out" && fail "alone: a common change said: $(cat "$T/out")"
grep -q '^   1  2\.0 .*MPI_Send\[count=200000,dest=rank+1\] where the normal run has MPI_Send\[count=64' "$T/out" ||
	fail "alone: 2.0 not first with its count: $(cat "$T/out")"

pass
