#!/bin/sh
# End to end on the ILCS example (examples/ilcs.c): build it with -pg -fopenmp, check that a
# normal run is deterministic (and that the free-running mode runs, its counters consistent), that every bug of --list-bugs terminates (or hangs, where it
# must or where Open MPI desynchronizes) and changes what it should, then record a normal and
# a faulty run with difftrace-record and check that rank puts the faulty thread on top.
. "${abs_top_srcdir:-.}/tests/lib.sh"

need mpi uftrace timeout built
export UFTRACE OMP_NUM_THREADS=3 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

ILCS="$T/ilcs"
"$MPICC" -pg -fopenmp -O1 -o "$ILCS" "$abs_top_srcdir/examples/ilcs.c" -lm \
	>"$T/cc.log" 2>&1 || { cat "$T/cc.log" >&2; fail "mpicc failed"; }
# a -pg program writes gmon.out where it runs: not in the build tree
cd "$T" || fail "cd $T"

# the command line, without MPI
expect_status 0 "$ILCS" --help
grep -q -- '--list-bugs' "$T/out" || fail "--help lacks --list-bugs"
expect_status 0 "$ILCS" --list-bugs
awk '{ print $1 }' "$T/out" >"$T/bugs"
[ "$(wc -l <"$T/bugs")" = 23 ] || fail "expected 23 bugs: $(cat "$T/bugs")"
expect_status 2 "$ILCS" --bug no-such-bug
expect_err "unknown bug"
expect_status 2 "$ILCS" --iters 0

flags="-np 4"
ompi=0
if "$MPIRUN" --version 2>&1 | grep -q 'Open MPI'; then
	ompi=1
	flags="$flags --oversubscribe"
	[ "$(id -u)" = 0 ] && flags="$flags --allow-run-as-root"
fi
# run NAME SECONDS ARGS...: mpirun the example under timeout; output in $T/NAME.out/.err,
# the exit status in $rc (124 or 137 when it had to be killed)
run() {
	name=$1 secs=$2; shift 2
	# shellcheck disable=SC2086
	timeout -k 3 "$secs" "$MPIRUN" $flags "$@" </dev/null >"$T/$name.out" 2>"$T/$name.err"
	rc=$?
}

run normal1 30 "$ILCS"
if [ $rc != 0 ]; then
	cat "$T/normal1.err" >&2
	grep -qiE 'not enough slots|orte_init|PMIx|ess_init|btl' "$T/normal1.err" &&
		skip "mpirun cannot start processes here"
	fail "the normal run failed ($rc)"
fi
run normal2 30 "$ILCS"
[ $rc = 0 ] || fail "the second normal run failed ($rc)"
cmp -s "$T/normal1.out" "$T/normal2.out" ||
	fail "two normal runs differ: $(diff "$T/normal1.out" "$T/normal2.out")"
grep -q '^ilcs: 4 processes x 3 threads' "$T/normal1.out" || fail "$(cat "$T/normal1.out")"
grep -qx 'critical sections entered: 160 160 160' "$T/normal1.out" ||
	fail "normal counters: $(cat "$T/normal1.out")"
champion=$(grep '^champion:' "$T/normal1.out")

# Every bug once, faulty process 2, thread 1. The counts of critical sections entered show
# the crit bugs (4 processes x 2 workers x 20 iterations = 160 each); the MPI bugs show in the
# champion or in a --verbose line. Open MPI 4.1 desynchronizes on the one-process size bugs
# (MPI_ERR_TRUNCATE, then a partner waits forever) and on allreduce2-op-one (the processes
# disagree on the MPI_Bcast root): those may hang and are killed, like infinite-loop.
while read -r bug; do
	secs=15
	case $bug in
	*-size-one | allreduce2-op-one | infinite-loop) secs=10 ;; # a loaded machine is slow to start them
	esac
	run "$bug" $secs "$ILCS" --verbose --bug "$bug" --proc 2 --thread 1 --iter 3
	echo "$bug: exit status $rc"
	out=$(cat "$T/$bug.out")
	case $bug in
	infinite-loop)
		[ $rc = 124 ] || [ $rc = 137 ] || fail "$bug did not hang ($rc): $out"
		grep -q 'ilcs\[2\]: thread 1 spins forever after iteration 3' "$T/$bug.err" ||
			fail "$bug: no spin line: $(cat "$T/$bug.err")"
		continue ;;
	*-size-one | allreduce2-op-one)
		# MPICH aborts the job where Open MPI goes on desynchronized
		[ $rc = 0 ] || [ $rc = 124 ] || [ $rc = 137 ] || [ "$ompi" = 0 ] ||
			fail "$bug: exit status $rc"
		case $bug in
		# (MPICH does not check the sizes of an allreduce: no error there)
		*-size-one) [ "$ompi" = 0 ] || grep -q 'MPI_ERR_TRUNCATE' "$T/$bug.err" ||
			fail "$bug: no MPI error: $(cat "$T/$bug.err")" ;;
		esac
		continue ;;
	esac
	[ $rc = 0 ] || fail "$bug: exit status $rc: $(cat "$T/$bug.err")"
	case $bug in
	crit1-one-thread) want='140 160 160' ;; crit1-thread-all-procs) want='80 160 160' ;;
	crit1-all-threads-one-proc) want='120 160 160' ;; crit1-everywhere) want='0 160 160' ;;
	crit2-one-thread) want='160 140 160' ;; crit2-thread-all-procs) want='160 80 160' ;;
	crit2-all-threads-one-proc) want='160 120 160' ;; crit2-everywhere) want='160 0 160' ;;
	crit3-one-thread) want='160 160 140' ;; crit3-thread-all-procs) want='160 160 80' ;;
	crit3-all-threads-one-proc) want='160 160 120' ;; crit3-everywhere) want='160 160 0' ;;
	*) want='160 160 160' ;;
	esac
	grep -qx "critical sections entered: $want" "$T/$bug.out" || fail "$bug: $out"
	case $bug in
	allreduce1-op-all | allreduce2-op-all | bcast-size-all)
		[ "$(grep '^champion:' "$T/$bug.out")" != "$champion" ] ||
			fail "$bug: the champion did not change: $out" ;;
	allreduce1-size-all)
		grep -q 'allreduce 1 wrote a second element' "$T/$bug.err" || fail "$bug: no debug line" ;;
	allreduce2-size-all)
		grep -q 'allreduce 2 wrote a second element' "$T/$bug.err" || fail "$bug: no debug line" ;;
	esac
done <"$T/bugs"

# --free: the paper's structure. The workers search until the global champion has not changed
# for 3 rounds: each search enters critical sections 1 and 3 once; each round (and the final
# exchange) reads the 2 workers' champions of 4 processes (critical section 2), and there are
# at least 3 + 1 of them. How many searches a worker makes depends on the scheduling.
run free 60 "$ILCS" --free
[ $rc = 0 ] || fail "--free: exit status $rc: $(cat "$T/free.err")"
# shellcheck disable=SC2046
set -- $(sed -n 's/^critical sections entered: //p' "$T/free.out")
[ $# = 3 ] && [ "$1" = "$3" ] && [ "$1" -gt 8 ] && [ $(($2 % 8)) = 0 ] && [ "$2" -ge 32 ] ||
	fail "--free counters: $(cat "$T/free.out")"
run free-crit1 60 "$ILCS" --free --bug crit1-one-thread --proc 2 --thread 1
[ $rc = 0 ] || fail "--free crit1: exit status $rc: $(cat "$T/free-crit1.err")"
# shellcheck disable=SC2046
set -- $(sed -n 's/^critical sections entered: //p' "$T/free-crit1.out")
[ $# = 3 ] && [ "$1" -lt "$3" ] || fail "--free crit1-one-thread: $(cat "$T/free-crit1.out")"
expect_status 2 "$ILCS" --free --patience 0

# record a normal run and one where worker 1 of process 2 skips critical section 1
cd "$T" || fail "cd $T"
run rec-normal 60 "$RECORD" -o "$T/normal" -- "$ILCS"
[ $rc = 0 ] || fail "recording the normal run: $(cat "$T/rec-normal.err")"
run rec-faulty 60 "$RECORD" -o "$T/faulty" -- "$ILCS" --bug crit1-one-thread --proc 2 --thread 1
[ $rc = 0 ] || fail "recording the faulty run: $(cat "$T/rec-faulty.err")"
expect_status 0 "$DT" import --run normal "$T/normal"
expect_status 0 "$DT" import --run faulty "$T/faulty"
expect_status 0 "$DT" traces faulty
for pt in 0.0 0.1 0.2 3.0 3.2; do
	grep -q "^ *$pt " "$T/out" || fail "faulty lacks $pt: $(cat "$T/out")"
done
expect_status 0 "$DT" rank --normal normal --faulty faulty --top 3
pos=$(awk '/most changed traces/ { on = 1; next } on && $2 == "2.1" { print $1; exit }' "$T/out")
[ -n "$pos" ] || fail "2.1 is not in the top 3: $(cat "$T/out")"
echo "2.1 ranks #$pos under the defaults"

# a hung run recorded with --timeout: every rank stays importable and is flagged. Rank 2's
# worker 1 spins; the others wait for it in a collective. The ranks that hit the timeout and
# those the launcher stops because of them are both flushed before they are killed, and the
# first to end waits until every rank's uftrace has written all its files (MPICH's Hydra
# kills every rank's process group as soon as one rank ends)
run rec-hang 60 "$RECORD" --timeout 10 -o "$T/hang" -- "$ILCS" --bug infinite-loop --proc 2 \
	--thread 1 --iter 3
[ $rc != 0 ] || fail "the hung run ended by itself"
grep -q 'still running after 10 s; flushing the trace' "$T/rec-hang.err" ||
	fail "no timeout message: $(cat "$T/rec-hang.err")"
for r in 0 1 2 3; do
	[ -f "$T/hang/rank-$r/difftrace-done" ] && [ -f "$T/hang/rank-$r/ilcs.sym" ] ||
		fail "rank $r's uftrace did not end: $(ls "$T/hang/rank-$r")"
done
expect_status 0 "$DT" import --run hang "$T/hang"
grep -q 'timed-out' "$T/out" || fail "the hung run is not flagged: $(cat "$T/out")"
expect_status 0 "$DT" traces --format csv hang
[ "$(grep -c '^[0-3]\.[0-2],' "$T/out")" -eq 12 ] || fail "not 12 traces: $(cat "$T/out")"
grep '^2\.1,' "$T/out" | grep -q 'timed-out' || fail "2.1 not flagged timed-out"
expect_status 0 "$DT" show --format text hang 2.1
# the spinning worker sleeps 1 ms per turn: its flushed trace holds the spin up to the timeout
# (a loaded machine sleeps longer per turn, so ask for far fewer turns than the 10 s allow)
[ "$(grep -c '^nanosleep$' "$T/out")" -gt 50 ] && [ "$(tail -2 "$T/out" | head -1)" = nanosleep ] ||
	fail "2.1 does not end in the spinning worker: $(tail -5 "$T/out")"
# the ranking under the defaults: 2.1 kept running out of the filter's sight while the others
# waited; it comes first, alone. When the others went quiet long enough before the stop (not
# on a loaded machine), it is also marked running at the stop, and only it.
expect_status 0 "$DT" rank --normal normal --faulty hang --top 3
awk '/most changed traces/ { getline; getline; print $1, $2; exit }' "$T/out" > "$T/first"
[ "$(cat "$T/first")" = "1 2.1" ] || fail "2.1 not first alone: $(cat "$T/out")"
grep -q "^   1  2\.1 .*busy out of the filter's sight" "$T/out" || fail "2.1 not busy: $(cat "$T/out")"
if grep -q '^# the faulty run was stopped: ' "$T/out"; then
	grep -q '^# the faulty run was stopped: 1 trace still running then, [0-9.]* s after the others' "$T/out" ||
		fail "stopped-run note: $(cat "$T/out")"
	grep -q '^   1  2\.1 .*running at the stop' "$T/out" || fail "2.1 not marked running: $(cat "$T/out")"
fi
[ "$(grep -c 'running at the stop' "$T/out")" -le 1 ] || fail "more than 2.1 running: $(cat "$T/out")"
# and in the interface's ranking view
printf 'wait\n' > "$T/keys"
expect_status 0 "$DT" tui --normal normal --faulty hang --script "$T/keys" --dump "$T/screen" --size 30x200
grep -q "^>  *1 2\.1 .*busy out of the filter's sight" "$T/screen" || fail "2.1 not first: $(cat "$T/screen")"
pass
