#!/bin/sh
# A faulty run started with other arguments (issue 23, item 1): every rank parses them, so
# every trace changes the same way (two more strtol calls); the ranking separates that common
# change from what one trace changed beyond it, says so in its header, and puts that trace
# first with where it departs from its peers. When the common change is all there is (one in
# every worker, which may be the bug itself), nothing is said and the order is the verdict's.
# The program's own calls, consulted when the filter singles out no trace, set the input's
# change apart in the same way.
. "${abs_top_srcdir:-.}/tests/lib.sh"

# mk DIR FAULTY: 4 processes x 1 thread. Rank 0 only parses its arguments (strcmp) and waits in
# MPI_Finalize; ranks 1-3 parse them, then 30 iterations of compute and MPI_Allreduce.
#   args  other arguments: every rank calls strtol twice more before its strcmp, and rank 2
#         calls compute once more in its last iteration (the bug)
#   all   the same other arguments, nothing else
mk() {
	mkdir "$1"
	for p in 0 1 2 3; do
		{ printf 'main\nMPI_Init\n[ret]\n'
		  [ "$2" != normal ] && printf 'strtol\n[ret]\nstrtol\n[ret]\n'
		  printf 'strcmp\n[ret]\n'
		  if [ $p != 0 ]; then
			i=0; while [ $i -lt 30 ]; do
				printf 'compute\n[ret]\n'
				[ "$2" = args ] && [ $p = 2 ] && [ $i = 29 ] && printf 'compute\n[ret]\n'
				printf 'MPI_Allreduce\n[ret]\n'
				i=$((i + 1)); done
		  fi
		  printf 'MPI_Finalize\n[ret]\n[ret]\n'; } > "$1/$p.0.txt"
	done
}
for k in normal args all; do
	mk "$T/$k" "$k"
	expect_status 0 "$DT" import -q --run "$k" "$T/$k"
done

expect_status 0 "$DT" rank --normal normal --faulty args
grep -q '^# 3 traces changed only as their peers did (+2 strtol): a changed input, ranked after the traces that changed more$' "$T/out" ||
	fail "args: the common change not said: $(cat "$T/out")"
grep -q '^   1  2\.0  .*beyond the change its peers share: diverged at call 63: compute where the normal run has MPI_Allreduce$' "$T/out" ||
	fail "args: 2.0 not first, or not where it departs: $(cat "$T/out")"
[ "$(grep -c 'changed only as its peers did (a changed input)$' "$T/out")" = 3 ] ||
	fail "args: the peers: $(cat "$T/out")"
grep -q 'strtol where the normal run has strcmp' "$T/out" && fail "args: the arguments named: $(cat "$T/out")"
expect_status 0 "$DT" rank --normal normal --faulty args --format json
grep -q '"common_change": {"calls": "+2 strtol", "traces": 3}' "$T/out" ||
	fail "args json: $(cat "$T/out")"
# the ranking view says the same
printf ': "rank normal args" Enter wait\n' > "$T/keys"
expect_status 0 "$DT" tui --script "$T/keys" --dump "$T/screen" --size 30x220
grep -q '3 traces changed only as their peers did (+2 strtol): a changed input' "$T/screen" ||
	fail "the view: the common change not said: $(cat "$T/screen")"
grep -q '^>  *1 2\.0 .*beyond the change its peers share' "$T/screen" ||
	fail "the view: 2.0 not first: $(cat "$T/screen")"

# the change every trace made alike, and nothing more: no trace goes beyond it, none is said
# to be an input, and --score jsmd never looks
expect_status 0 "$DT" rank --normal normal --faulty all
grep -q 'changed input\|peers' "$T/out" && fail "all: a common change said: $(cat "$T/out")"
grep -q 'diverged at kept event 3 of .*: strtol where the normal run has strcmp' "$T/out" ||
	fail "all: the verdict's reasons: $(cat "$T/out")"
expect_status 0 "$DT" rank --normal normal --faulty args --score jsmd
grep -q 'changed input\|peers' "$T/out" && fail "jsmd: a common change said: $(cat "$T/out")"

# The same in the calls the filter drops. Started with other arguments, the faulty run parses
# them (two more strtol in every rank) and iterates longer: every worker's MPI calls differ
# alike, the first place is tied, and the program's own calls are consulted; their change
# common to the peers is the input, left out, so the one worker that also called fixup is
# first alone, with fixup named, and the header names the input's change.
mk2() {
	mkdir "$1"
	for p in 0 1 2 3; do
		{ printf 'main\nMPI_Init\n[ret]\n'
		  [ "$2" != normal ] && printf 'strtol\n[ret]\nstrtol\n[ret]\n'
		  printf 'strcmp\n[ret]\n'
		  n=20; [ "$2" != normal ] && n=30
		  if [ $p != 0 ]; then
			i=0; while [ $i -lt $n ]; do
				printf 'compute\n[ret]\n'
				[ "$2" = longer ] && [ $p = 2 ] && [ $i = 25 ] && printf 'fixup\n[ret]\n'
				printf 'MPI_Allreduce\n[ret]\n'
				i=$((i + 1)); done
		  fi
		  printf 'MPI_Finalize\n[ret]\n[ret]\n'; } > "$1/$p.0.txt"
	done
}
for k in normal longer; do
	mk2 "$T/own-$k" "$k"
	expect_status 0 "$DT" import -q --run "own-$k" "$T/own-$k"
done
expect_status 0 "$DT" rank --normal own-normal --faulty own-longer
grep -q "^# the other calls of [0-9] traces changed only as their peers' did (.*+2 strtol.*): a changed input, left out of their comparison$" "$T/out" ||
	fail "own: the common change of the other calls not said: $(cat "$T/out")"
grep -q '^   1  2\.0  .*its own calls differ at .*: fixup where the normal run has' "$T/out" ||
	fail "own: 2.0 not first alone with fixup: $(cat "$T/out")"
grep -q '^  *[0-9]=* *[13]\.0 .*its own calls differ' "$T/out" &&
	fail "own: a peer's own calls said to differ: $(cat "$T/out")"
grep -q 'strtol where the normal run has' "$T/out" && fail "own: the arguments named: $(cat "$T/out")"
expect_status 0 "$DT" rank --normal own-normal --faulty own-longer --format json
grep -q '"common_own_change": {"calls": "[^"]*+2 strtol' "$T/out" || fail "own json: $(cat "$T/out")"
printf ': "rank own-normal own-longer" Enter wait\n' > "$T/keys"
expect_status 0 "$DT" tui --script "$T/keys" --dump "$T/screen" --size 30x220
grep -q "the other calls of [0-9] traces changed only as their peers' did (.*+2 strtol" "$T/screen" ||
	fail "own, the view: the common change not said: $(cat "$T/screen")"
pass
