#!/bin/sh
# A performance bug with the same calls (issue 23, item 2): one rank's relax takes three times
# as long, every call the same. rank ranks it first by the time of its own functions against
# its peers' and the normal run's, naming the function and the factors; the start-up noise
# (every rank 1.5 s longer in MPI_Init_thread) and the others' waiting in MPI_Allreduce do not
# rank, nor does a machine that made every rank twice as slow. report --by-trace gives the
# per-trace view in that order. Text traces with timestamps (@NS NAME), whose errors are said.
. "${abs_top_srcdir:-.}/tests/lib.sh"

# mk DIR KIND: 4 processes x 1 thread with timestamps (ns). Each: MPI_Init_thread, 5
# iterations of relax (1 ms, +-4% from rank to rank) and MPI_Allreduce (all wait for the
# slowest relax), MPI_Finalize.
#   slow    every rank starts 1.5 s later and rank 1's relax takes three times as long
#   loaded  every rank's relax takes twice as long (a busy machine)
#   args    started with other arguments (every rank parses them: two strtol and a strcmp
#           more) and rank 1's relax takes three times as long: a performance bug behind a
#           changed input
mk() {
	mkdir "$1"
	for p in 0 1 2 3; do
		awk -v p=$p -v kind="$2" 'BEGIN {
			t = 1000; init = kind == "slow" ? 1501000000 : 1000000
			printf "@%d main\n@%d MPI_Init_thread\n", t, t + 10; t += 10 + init
			printf "@%d [ret]\n", t
			if (kind == "args")
				for (a = 0; a < 3; a++) {
					printf "@%d %s\n", t + 1, a < 2 ? "strtol" : "strcmp"; t += 100
					printf "@%d [ret]\n", t
				}
			for (i = 0; i < 5; i++) {
				w = 1000000 * (1 + 0.04 * ((p + i) % 3 - 1))
				if ((kind == "slow" || kind == "args") && p == 1) w = 3 * w
				if (kind == "loaded") w = 2 * w
				printf "@%d relax\n", t; t += w; printf "@%d [ret]\n", t
				slowest = kind == "slow" || kind == "args" ? 3000000 : kind == "loaded" ? 2080000 : 1040000
				printf "@%d MPI_Allreduce\n", t; t += slowest - w + 20000; printf "@%d [ret]\n", t
			}
			printf "@%d MPI_Finalize\n", t; t += 5000; printf "@%d [ret]\n@%d [ret]\n", t, t + 10
		}' > "$1/$p.0.txt" || fail "awk"
	done
}
for k in normal slow loaded args; do
	mk "$T/$k" "$k"
	expect_status 0 "$DT" import -q --run "$k" "$T/$k"
done

expect_status 0 "$DT" rank --normal normal --faulty slow
grep -q '^# no calls differ; 1 trace took longer than its peers in a function of its own' "$T/out" ||
	fail "slow: not said: $(cat "$T/out")"
grep -q '^   1  1\.0  .*calls identical; relax: 3\.0x its normal time, peers 1\.0x (0\.010 s more than theirs)$' "$T/out" ||
	fail "slow: 1.0 not first with relax: $(cat "$T/out")"
[ "$(grep -c ' identical$' "$T/out")" = 3 ] || fail "slow: the others: $(cat "$T/out")"
grep -q 'MPI_Init_thread\|MPI_Allreduce' "$T/out" && fail "slow: a waiting call blamed: $(cat "$T/out")"
expect_status 0 "$DT" rank --normal normal --faulty slow --format json
grep -q '"time_changed": 1,' "$T/out" || fail "slow json: $(cat "$T/out")"
grep -q '"difference_found": true' "$T/out" || fail "slow json: no difference: $(cat "$T/out")"
printf ': "rank normal slow" Enter wait\n' > "$T/keys"
expect_status 0 "$DT" tui --script "$T/keys" --dump "$T/screen" --size 30x200
grep -q 'no calls differ; 1 trace took longer than its peers' "$T/screen" ||
	fail "the view: not said: $(cat "$T/screen")"
grep -q '^>  *1 1\.0 .*relax: 3\.0x' "$T/screen" || fail "the view: 1.0 not first: $(cat "$T/screen")"

# the same slow rank behind a changed input: every trace's calls differ alike (the arguments),
# no trace goes beyond that, and the time tells the slow one apart
expect_status 0 "$DT" rank --normal normal --faulty args
grep -q '^# no calls differ but as the input changed them; 1 trace took longer than its peers' "$T/out" ||
	fail "args: not said: $(cat "$T/out")"
grep -q '^# 4 traces changed only as their peers did (.*+2 strtol.*): a changed input' "$T/out" ||
	fail "args: the input not named: $(cat "$T/out")"
grep -q '^   1  1\.0  .*changed only as its peers did (a changed input); relax: 3\.0x its normal time, peers 1\.0x' "$T/out" ||
	fail "args: 1.0 not first with relax: $(cat "$T/out")"

# every rank twice as slow: the peers' factor is the machine's, no trace stands out
expect_status 0 "$DT" rank --normal normal --faulty loaded
grep -q '^no difference found under' "$T/out" || fail "loaded: a trace ranked: $(cat "$T/out")"

# the per-trace view: the significant one first, the others at their peers' factor
expect_status 0 "$DT" report --normal normal --faulty slow --by-trace --format csv
[ "$(sed -n 2p "$T/out")" = "1.0,relax,5040000,15120000,3.000000,1.000000,10080000,1" ] ||
	fail "report --by-trace: $(cat "$T/out")"
[ "$(awk -F, 'NR > 2 && $8 == 0 && $5 == "1.000000"' "$T/out" | wc -l)" = 3 ] ||
	fail "report --by-trace, the peers: $(cat "$T/out")"
expect_status 0 "$DT" report --normal normal --faulty slow --by-trace
grep -q '^1\.0  .* 3\.0x *1\.0x .* yes  relax$' "$T/out" || fail "report --by-trace text: $(cat "$T/out")"
expect_status 2 "$DT" report --normal normal --faulty slow --by-trace --trace 1.0

# timestamps on some lines only, or not a number: one line with the file and line
mkdir "$T/bad"
printf '@100 main\ncompute\n' > "$T/bad/0.0.txt"
expect_status 1 "$DT" import --run bad "$T/bad"
grep -q 'bad/0\.0\.txt:2:1: no timestamp: the lines of a trace have a timestamp (@NS NAME) all or none' "$T/err" ||
	fail "mixed timestamps: $(cat "$T/err")"
printf '@12x main\n' > "$T/bad/0.0.txt"
expect_status 1 "$DT" import --run bad "$T/bad"
grep -q 'bad/0\.0\.txt:1:1: a timestamp is @NANOSECONDS, a space and the name' "$T/err" ||
	fail "bad timestamp: $(cat "$T/err")"
pass
