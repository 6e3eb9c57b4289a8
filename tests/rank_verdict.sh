#!/bin/sh
# The default ranking on text runs (issue 9): an all-identical pair of runs says "no difference
# found" and lists nothing, under --score jsmd and in every row of --sweep too; a change of order or of a count that JSM_D's row sums do not see
# still ranks first, alone, and a differing trace never scores 0; a change only in the
# program's own functions, which the default filter drops, is said and ranked by those
# functions; ties share their position; --format csv and json; --sweep shows its scores with
# tied traces grouped (a group cut by --top says how many more tie); in hung runs culprits come
# before victims, and a bystander waiting in a final barrier is not taken for busy.
. "${abs_top_srcdir:-.}/tests/lib.sh"

. "${abs_top_srcdir:-.}/tests/rank_runs.sh"

for k in normal again order count own; do
	mk "$T/$k" $k
	expect_status 0 "$DT" import -q --run $k "$T/$k"
done

# --- an all-identical pair: no difference found, no table ------------------------------------
expect_status 0 "$DT" rank --normal normal --faulty again
grep -q '^no difference found under 11\.mpi\.ompall\.0K10/sing\.log10\.args: every trace' "$T/out" ||
	fail "identical runs: $(cat "$T/out")"
grep -q 'clusterings agree\|most changed' "$T/out" && fail "a table for identical runs: $(cat "$T/out")"
expect_status 0 "$DT" rank --normal normal --faulty again --format json
grep -q '"difference_found": false' "$T/out" || fail "json, identical: $(cat "$T/out")"
grep -q '"traces": \[\]' "$T/out" || fail "json lists traces: $(cat "$T/out")"
expect_status 0 "$DT" rank --normal normal --faulty again --format csv
[ "$(wc -l < "$T/out")" = 1 ] || fail "csv, identical: a row: $(cat "$T/out")"

# --score jsmd (the paper's row sums) says the same: no table, no "the clusterings agree"
expect_status 0 "$DT" rank --normal normal --faulty again --score jsmd
grep -q '^no difference found under 11\.mpi\.ompall\.0K10/sing\.log10\.args: every trace' "$T/out" ||
	fail "jsmd, identical runs: $(cat "$T/out")"
grep -q 'clusterings agree\|most changed' "$T/out" && fail "jsmd, a table for identical runs: $(cat "$T/out")"
expect_status 0 "$DT" rank --normal normal --faulty again --score jsmd --format json
grep -q '"difference_found": false' "$T/out" || fail "jsmd json, identical: $(cat "$T/out")"
grep -q '"traces": \[\]' "$T/out" || fail "jsmd json lists traces: $(cat "$T/out")"
expect_status 0 "$DT" rank --normal normal --faulty again --score jsmd --format csv
[ "$(wc -l < "$T/out")" = 1 ] || fail "jsmd csv, identical: a row: $(cat "$T/out")"
# only the program's own functions differ: --score jsmd stays under its filter and says so
expect_status 0 "$DT" rank --normal normal --faulty own --score jsmd
grep -q "^no difference found under 11\.mpi\.ompall\.0K10/sing\.log10\.args: .*; the program's own functions differ" "$T/out" ||
	fail "jsmd, own functions: $(cat "$T/out")"
# a difference: found, in JSON too
expect_status 0 "$DT" rank --normal normal --faulty order --score jsmd --format json
grep -q '"difference_found": true' "$T/out" || fail "jsmd json, order: $(cat "$T/out")"
# the sweep says it too: every row, and a line after the table
expect_status 0 "$DT" rank --normal normal --faulty again --sweep --sweep-filters 'ompall;mpi' --sweep-attrs sing.actual,doub.log10
[ "$(grep -c ' - (no difference)$' "$T/out")" = 4 ] || fail "sweep, identical: rows: $(cat "$T/out")"
grep -q '^no difference found under any of the 4 settings' "$T/out" || fail "sweep, identical: $(cat "$T/out")"
# a setting blind to a difference is told from one that sees none
expect_status 0 "$DT" rank --normal normal --faulty count --sweep --sweep-filters 'ompall;mpi' --sweep-attrs doub.log10
grep -q '^11\.ompall\.0K10  .* - (kept events differ)$' "$T/out" || fail "sweep, blind: $(cat "$T/out")"
grep -q '^11\.mpi\.0K10  .* - (no difference)$' "$T/out" || fail "sweep, mpi: $(cat "$T/out")"
grep -q 'no difference found under any' "$T/out" && fail "sweep, count: $(cat "$T/out")"

# and in the interface's ranking view
printf 'wait\n' > "$T/keys"
expect_status 0 "$DT" tui --normal normal --faulty again --script "$T/keys" --dump "$T/screen" --size 30x160
grep -q 'no difference found under 11\.mpi\.ompall\.0K10/sing\.log10\.args' "$T/screen" ||
	fail "the ranking view: $(cat "$T/screen")"
grep -q '# TRACE' "$T/screen" && fail "the ranking view lists traces: $(cat "$T/screen")"
# ties in the ranking view: the identical traces share a position
expect_status 0 "$DT" tui --normal normal --faulty order --script "$T/keys" --dump "$T/screen" --size 30x160
grep -q '^>  *1 2\.0 ' "$T/screen" || fail "the ranking view, order: $(cat "$T/screen")"
grep -q '^  *2= 0\.0 .*identical' "$T/screen" || fail "the ranking view, ties: $(cat "$T/screen")"

# a thread present in one run only is a difference: no "no difference found"
mkdir "$T/lost"
cp "$T/normal"/*.txt "$T/lost/"
rm "$T/lost/3.1.txt"
expect_status 0 "$DT" import -q --run lost "$T/lost"
expect_status 0 "$DT" rank --normal normal --faulty lost
grep -q '^only in the normal run: 3\.1$' "$T/out" || fail "lost: $(cat "$T/out")"
grep -q 'no difference found' "$T/out" && fail "lost: no difference found: $(cat "$T/out")"

# --- a change of order ------------------------------------------------------------------------
expect_status 0 "$DT" rank --normal normal --faulty order --format csv
[ "$(sed -n 2p "$T/out" | cut -d, -f1-2,5)" = "1,2.0,diverged" ] || fail "order: 2.0 not first: $(cat "$T/out")"
[ "$(awk -F, 'NR > 1 && $1 == 1' "$T/out" | wc -l)" = 1 ] || fail "order: 2.0 not alone first: $(cat "$T/out")"
# a differing trace never scores 0, an identical one always does
awk -F, 'NR > 1 && (($5 == "identical") != ($3 == 0)) { exit 1 }' "$T/out" ||
	fail "order: score 0 is not identical: $(cat "$T/out")"
# the others are identical and tied: they share one position
[ "$(awk -F, 'NR > 1 && $5 == "identical" { print $1 }' "$T/out" | sort -u)" = 2 ] ||
	fail "order: ties do not share a position: $(cat "$T/out")"
expect_status 0 "$DT" rank --normal normal --faulty order
grep -q '^  2=  0\.0  ' "$T/out" || fail "order: ties not marked: $(cat "$T/out")"
grep -q '^   1  2\.0  .*14->14  *diverged at kept event 8 of 14: MPI_Bcast where the normal run has MPI_Allreduce$' "$T/out" ||
	fail "order: what changed: $(cat "$T/out")"

# --- a count that stays in its log10 bucket ---------------------------------------------------
expect_status 0 "$DT" rank --normal normal --faulty count --format csv
[ "$(sed -n 2p "$T/out" | cut -d, -f1-2)" = "1,2.1" ] || fail "count: 2.1 not first: $(cat "$T/out")"
[ "$(awk -F, 'NR > 1 && $1 == 1' "$T/out" | wc -l)" = 1 ] || fail "count: 2.1 not alone first: $(cat "$T/out")"

# the JSON rows' fields, against values counted by hand: 2.1 keeps 12 events (6 critical
# sections) in the normal run and 10 in count, all 10 in common at the start; its score is the
# share of kept events outside the common beginning: (12 + 10 - 2 x 10) / (12 + 10), row sum 0
expect_status 0 "$DT" rank --normal normal --faulty count --format json
grep -q '{"position": 1, "tied": false, "trace": "2\.1", "score": 0\.090909, "jsmd_row_sum": 0\.000000, "change": "diverged", "kept_normal": 12, "kept_faulty": 10, "diverges_at": 10,' "$T/out" ||
	fail "count json: 2.1's fields: $(cat "$T/out")"
grep -q '{"position": 2, "tied": true, "trace": "0\.0", "score": 0\.000000, "jsmd_row_sum": 0\.000000, "change": "identical", "kept_normal": 14, "kept_faulty": 14, "diverges_at": 14,' "$T/out" ||
	fail "count json: 0.0's fields: $(cat "$T/out")"
# order: 2.0's 14 kept events part after 7 in common (MPI_Init and 3 iterations)
expect_status 0 "$DT" rank --normal normal --faulty order --format json
grep -q '"trace": "2\.0", .*"kept_normal": 14, "kept_faulty": 14, "diverges_at": 7,' "$T/out" ||
	fail "order json: 2.0's fields: $(cat "$T/out")"

# --- only the program's own functions changed: said, and ranked by them ----------------------
expect_status 0 "$DT" rank --normal normal --faulty own
grep -q '^# filter 11\.mpi\.ompall\.0K10 sees no difference; the program.s own functions do: ranked under filter everything$' "$T/out" ||
	fail "own functions: not said: $(cat "$T/out")"
grep -q '^   1  2\.1  .*work_b where the normal run has work$' "$T/out" || fail "own functions: 2.1 not first: $(cat "$T/out")"
expect_status 0 "$DT" rank --normal normal --faulty own --format json
grep -q '"filter_blind": "11\.mpi\.ompall\.0K10"' "$T/out" || fail "json, own: $(cat "$T/out")"
# the ranking view does the same: every call analysed in the background, ranked under it, and
# Enter on the top trace switches the interface to every call and shows what changed
printf 'wait\n' > "$T/keys"
expect_status 0 "$DT" tui --normal normal --faulty own --script "$T/keys" --dump "$T/screen" --size 30x160
grep -q 'filter 11\.mpi\.ompall\.0K10 sees no difference; the program.s own functions do: ranked under filter everything' "$T/screen" ||
	fail "the ranking view, own functions: not said: $(cat "$T/screen")"
grep -q '^>  *1 2\.1 ' "$T/screen" || fail "the ranking view, own functions: 2.1 not first: $(cat "$T/screen")"
printf 'wait Enter wait\n' > "$T/keys"
expect_status 0 "$DT" tui --normal normal --faulty own --script "$T/keys" --dump "$T/screen" --size 30x160
grep -q 'work_b' "$T/screen" || fail "the ranking view, own functions: Enter shows no work_b: $(cat "$T/screen")"
grep -q 'filter everything' "$T/screen" || fail "the diff is not under every call: $(cat "$T/screen")"
# diff of the trace rank put first is never "(identical)": without --filter it is shown under
# every call, as rank ranked it, and says so (issue 22)
expect_status 0 "$DT" diff normal:2.1 own:2.1
grep -q '^# filter 11\.mpi\.ompall\.0K10 sees no difference between these traces; every call does: shown under filter everything' "$T/out" ||
	fail "diff of rank's first: not said: $(cat "$T/out")"
grep -q '(identical)' "$T/out" && fail "diff of rank's first: identical: $(cat "$T/out")"
grep -q '> work_b$' "$T/out" || fail "diff of rank's first: no work_b: $(cat "$T/out")"
expect_status 0 "$DT" diff --format json normal:2.1 own:2.1
grep -q '"filter": "11\.1K10", "filter_blind": "11\.mpi\.ompall\.0K10"' "$T/out" ||
	fail "diff json: the filters: $(cat "$T/out")"
grep -q '"identical": false' "$T/out" || fail "diff json: identical: $(cat "$T/out")"
# a filter asked for is kept; a pair identical under every call too stays identical, unannounced
expect_status 0 "$DT" diff --filter mpi,ompall normal:2.1 own:2.1
grep -q '(identical)$' "$T/out" || fail "diff --filter: not identical: $(cat "$T/out")"
grep -q '^#' "$T/out" && fail "diff --filter: a remark: $(cat "$T/out")"
expect_status 0 "$DT" diff normal:1.1 own:1.1
grep -q '(identical)$' "$T/out" || fail "diff of identical traces: $(cat "$T/out")"
grep -q '^#' "$T/out" && fail "diff of identical traces: a remark: $(cat "$T/out")"
expect_status 0 "$DT" diff --format json normal:1.1 own:1.1
grep -q '"filter_blind": null' "$T/out" || fail "diff json, identical: $(cat "$T/out")"
# which side has the entries the other lacks: own's 2.1 has 9 more under every call
expect_status 0 "$DT" diff --filter everything --format json normal:2.1 own:2.1
grep -q '"changed": 1, "only_a": 0, "only_b": 9, "identical": false' "$T/out" ||
	fail "diff json: only_b: $(cat "$T/out")"
expect_status 0 "$DT" diff --filter everything --format json own:2.1 normal:2.1
grep -q '"changed": 1, "only_a": 9, "only_b": 0, "identical": false' "$T/out" ||
	fail "diff json: only_a: $(cat "$T/out")"

# --- hung runs: culprits before victims ------------------------------------------------------
# hmk DIR KIND: 4 processes, a main thread (6 iterations of compute and MPI_Allreduce, then
# MPI_Finalize) and a worker (6 iterations of work, a critical section, a barrier). Hung runs end with
# a call left open (no [ret]): the run was cut.
#   normal  as above
#   early   rank 2 leaves its loop after 2 iterations and finalizes; the others wait in the
#           Allreduce of iteration 3 (their workers at a barrier)
#   stuck   rank 2 stops in iteration 3 before its Allreduce (its blocked call not recorded);
#           the others wait in the Allreduce of iteration 4
#   spin    worker 2.1 spins in calls the filter drops after 2 iterations; everyone else waits
# a worker blocked in the barrier of its last iteration
wait='work\n[ret]\nGOMP_critical_start\n[ret]\nGOMP_critical_end\n[ret]\nGOMP_barrier\n'
hmk() {
	mkdir "$1"
	for p in 0 1 2 3; do
		n=6 tail='MPI_Finalize\n[ret]\n[ret]\n' wn=6 wtail=''
		case $2 in
		early) if [ $p = 2 ]; then n=2; else n=2 tail='compute\n[ret]\nMPI_Allreduce\n'; fi
			wn=1 wtail=$wait ;;
		stuck) if [ $p = 2 ]; then n=2 tail='compute\n[ret]\n'; else n=3 tail='MPI_Allreduce\n'; fi
			wn=2 wtail=$wait ;;
		spin) n=2 tail='compute\n[ret]\nMPI_Allreduce\n' wn=1 wtail=$wait
			[ $p = 2 ] && wn=2 && wtail=$(i=0; while [ $i -lt 60 ]; do printf 'spin\\n[ret]\\n'; i=$((i + 1)); done; printf 'spin\\n') ;;
		esac
		{ printf 'main\nMPI_Init\n[ret]\n'
		  i=0; while [ $i -lt $n ]; do printf 'compute\n[ret]\nMPI_Allreduce\n[ret]\n'; i=$((i + 1)); done
		  printf "$tail"; } > "$1/$p.0.txt"
		{ i=0; while [ $i -lt $wn ]; do
			printf 'work\n[ret]\nGOMP_critical_start\n[ret]\nGOMP_critical_end\n[ret]\n'
			printf 'GOMP_barrier\n[ret]\n'
			i=$((i + 1)); done
		  printf "$wtail"; } > "$1/$p.1.txt"
	done
}
for k in normal early stuck spin; do
	hmk "$T/h$k" $k
	expect_status 0 "$DT" -d "$T/h.db" import -q --run h$k "$T/h$k"
done
expect_status 0 "$DT" -d "$T/h.db" rank --normal hnormal --faulty hearly --format csv
[ "$(sed -n 2p "$T/out" | cut -d, -f1-2,5)" = "1,2.0,diverged" ] || fail "early exit: 2.0 not first: $(cat "$T/out")"
[ "$(awk -F, 'NR > 1 && $1 == 1' "$T/out" | wc -l)" = 1 ] || fail "early exit: not alone: $(cat "$T/out")"
awk -F, 'NR > 2 && $5 != "stopped-early" { exit 1 }' "$T/out" || fail "early exit: victims: $(cat "$T/out")"
expect_status 0 "$DT" -d "$T/h.db" rank --normal hnormal --faulty hearly
grep -q '^   1  2\.0  .*diverged at kept event [0-9]* of [0-9]*: MPI_Finalize where the normal run has MPI_Allreduce$' "$T/out" ||
	fail "early exit: the reason: $(cat "$T/out")"
grep -q 'stopped early in MPI_Allreduce (trace), after' "$T/out" || fail "early exit: victims' reason: $(cat "$T/out")"
# the one that stopped earliest in its own pattern is the one the others wait for
expect_status 0 "$DT" -d "$T/h.db" rank --normal hnormal --faulty hstuck --format csv
[ "$(sed -n 2p "$T/out" | cut -d, -f1-2,5)" = "1,2.0,stopped-early" ] || fail "stuck: 2.0 not first: $(cat "$T/out")"
[ "$(awk -F, 'NR > 1 && $1 == 1' "$T/out" | wc -l)" = 1 ] || fail "stuck: not alone: $(cat "$T/out")"
# busy out of the filter's sight: more calls in all than its whole counterpart
expect_status 0 "$DT" -d "$T/h.db" rank --normal hnormal --faulty hspin
grep -q "^   1  2\.1  .*busy out of the filter's sight after its last kept call (GOMP_barrier" "$T/out" ||
	fail "spin: 2.1 not first: $(cat "$T/out")"
grep -q '^  *2=* ' "$T/out" || fail "spin: $(cat "$T/out")"

# a bystander: in bnormal every worker ends with a critical section after its last barrier; in
# hfin rank 2 leaves its loop and waits in MPI_Recv, the other main threads wait in an
# Allreduce, and worker 3.1 made more calls in all than its counterpart (out of the filter's
# sight) and waits in its last barrier. Its kept events only stopped early, in a final barrier:
# no sign of its own, so it is not "busy out of the filter's sight" and does not come first.
mkdir "$T/bnormal" "$T/hfin"
for p in 0 1 2 3; do
	cp "$T/hnormal/$p.0.txt" "$T/bnormal/"
	{ cat "$T/hnormal/$p.1.txt"; printf 'GOMP_critical_start\n[ret]\nGOMP_critical_end\n[ret]\n'; } > "$T/bnormal/$p.1.txt"
	{ printf 'main\nMPI_Init\n[ret]\ncompute\n[ret]\nMPI_Allreduce\n[ret]\ncompute\n[ret]\nMPI_Allreduce\n[ret]\n'
	  if [ $p = 2 ]; then printf 'MPI_Recv\n'; else printf 'compute\n[ret]\nMPI_Allreduce\n'; fi; } > "$T/hfin/$p.0.txt"
	if [ $p = 3 ]; then
		{ i=0; while [ $i -lt 6 ]; do
			printf 'work\n[ret]\nwork\n[ret]\nGOMP_critical_start\n[ret]\nGOMP_critical_end\n[ret]\nGOMP_barrier\n'
			[ $i = 5 ] || printf '[ret]\n'
			i=$((i + 1)); done; } > "$T/hfin/$p.1.txt"
	else
		cp "$T/hnormal/$p.1.txt" "$T/hfin/"
	fi
done
for k in bnormal hfin; do expect_status 0 "$DT" -d "$T/h.db" import -q --run $k "$T/$k"; done
expect_status 0 "$DT" -d "$T/h.db" rank --normal bnormal --faulty hfin --format csv
[ "$(sed -n 2p "$T/out" | cut -d, -f1-2,5)" = "1,2.0,diverged" ] || fail "bystander: 2.0 not first: $(cat "$T/out")"
[ "$(awk -F, 'NR > 1 && $1 == 1' "$T/out" | wc -l)" = 1 ] || fail "bystander: not alone: $(cat "$T/out")"
grep -q '^[0-9]*,3\.1,[0-9.]*,[0-9.]*,stopped-early,.*stopped early in GOMP_barrier' "$T/out" ||
	fail "bystander: 3.1 counted as busy: $(cat "$T/out")"

# --- the sweep: scores, ties grouped -----------------------------------------------------------
expect_status 0 "$DT" rank --normal normal --faulty count --sweep --sweep-filters ompall --sweep-attrs sing.actual
grep -q '  2 [0-9.]*, \[0 1 3\] [0-9.]*  2\.1 [0-9.]*, \[0\.1 1\.1 3\.1\] [0-9.]*$' "$T/out" ||
	fail "sweep: scores and ties: $(cat "$T/out")"
# a tied group cut by --top says how many more tie
expect_status 0 "$DT" rank --normal normal --faulty count --sweep --sweep-filters ompall --sweep-attrs sing.actual --top 2
grep -q '  2 [0-9.]*, \[0 +2\] [0-9.]*  2\.1 [0-9.]*, \[0\.1 +2\] [0-9.]*$' "$T/out" ||
	fail "sweep: a cut group: $(cat "$T/out")"
# the interface's sweep table lists 3 processes: a tied group it cuts says how many more tie
# ([0 1 +1]: 0, 1 and 3 tie); an empty row says whether the setting sees no difference
printf 'wait\n' > "$T/keys"
expect_status 0 "$DT" tui --normal normal --faulty count --script "$T/keys" --dump "$T/screen" --size 30x160
grep -q ' 11\.ompall\.0K10  *sing\.actual\.args  *10  2 [0-9.]* \[0 1 +1\] [0-9.]*  2\.1 ' "$T/screen" ||
	fail "the interface's sweep: a cut group: $(cat "$T/screen")"
grep -q ' 11\.ompall\.0K10  *doub\.log10\.w\.args  *10  -  *- (kept events differ)$' "$T/screen" ||
	fail "the interface's sweep: a blind setting: $(cat "$T/screen")"
grep -q ' 11\.mpi\.0K10  *doub\.log10\.w\.args  *10  -  *- (no difference)$' "$T/screen" ||
	fail "the interface's sweep: a setting that sees no difference: $(cat "$T/screen")"

# --- bad --format / --score ---------------------------------------------------------------------
expect_status 2 "$DT" rank --normal normal --faulty order --format xml
expect_status 2 "$DT" rank --normal normal --faulty order --score best
expect_status 2 "$DT" rank --normal normal --faulty order --sweep --format csv
pass
