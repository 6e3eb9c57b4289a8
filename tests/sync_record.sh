#!/bin/sh
# The sync record end to end (issue 10, part 1): difftrace-record preloads libdifftrace-sync.so
# next to uftrace (or alone with --sync-only, or not with --no-sync); difftrace import attaches
# the entries and exits of the MPI and OpenMP calls to the same P.T traces; difftrace sync lists
# them with run-wide identities (MPI_ANY_SOURCE resolved on the exit, a split communicator
# numbered alike in its members, requests linked from Irecv to Waitall, lock acquisitions
# numbered); and a recording can be read while the program runs and after kill -9.
. "${abs_top_srcdir:-.}/tests/lib.sh"

need mpi built timeout
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=2
[ -f "$abs_top_builddir/libdifftrace-sync.so" ] ||
	skip "libdifftrace-sync.so not built (no mpicc at configure time)"

# the options
expect_status 0 "$RECORD" --help
grep -q -- '--sync-only' "$T/out" || fail "--help lacks --sync-only"
grep -q -- '--no-sync' "$T/out" || fail "--help lacks --no-sync"
expect_status 0 "$RECORD" -n --sync-only -- ./app
grep -q 'libdifftrace-sync.so' "$T/out" || fail "--sync-only does not preload: $(cat "$T/out")"
grep -q 'uftrace' "$T/out" && fail "--sync-only still runs uftrace: $(cat "$T/out")"
expect_status 0 "$RECORD" -n --no-sync -- ./app
grep -q 'libdifftrace-sync' "$T/out" && fail "--no-sync still preloads: $(cat "$T/out")"
expect_status 2 "$RECORD" --no-sync --sync-only -- ./app
expect_err 'record nothing'

APP="$T/hangs"
"$MPICC" -fopenmp -O1 -o "$APP" "$abs_top_srcdir/tests/sync/hangs.c" >"$T/cc.log" 2>&1 ||
	{ cat "$T/cc.log" >&2; fail "mpicc failed"; }
cd "$T" || fail "cd $T"
flags="-np 3"
"$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags="$flags --oversubscribe"

# run NAME RECORD-OPTIONS... -- MODE: the program under difftrace-record into $T/NAME
run() {
	name=$1; shift
	# shellcheck disable=SC2086
	timeout -k 5 150 "$MPIRUN" $flags "$RECORD" -o "$T/$name" "$@" </dev/null \
		>"$T/$name.log" 2>&1
}

# --sync-only: no uftrace; a run of its own kind that imports and shows every call
run only --sync-only -- "$APP" ok || { cat "$T/only.log" >&2; fail "the ok run failed"; }
[ -d "$T/only/rank-2/sync" ] || fail "no rank-2/sync directory"
ls "$T/only/rank-0" | grep -q '\.dat$' && fail "--sync-only ran uftrace"
expect_status 0 "$DT" import -r only "$T/only"
grep -q '(sync)' "$T/out" || fail "not imported as a sync recording: $(cat "$T/out")"
expect_status 0 "$DT" traces only
grep -q '^2\.1 ' "$T/out" || fail "no trace 2.1 (the OpenMP worker): $(cat "$T/out")"
expect_status 0 "$DT" sync only 0.0
s="$T/out"
grep -q '> *[0-9.]*  MPI_Recv .*src=any tag=any' "$s" || fail "no MPI_ANY_SOURCE entry: $(cat "$s")"
grep -Eq '< *[0-9.]*  MPI_Recv .*src=[12] tag=1[12] ' "$s" ||
	fail "the exit of the MPI_ANY_SOURCE receive lacks the actual source and tag"
grep -q 'MPI_Irecv .*src=2 tag=7 .*req=1' "$s" || fail "the Irecv's request is not numbered"
grep -q '= *[0-9.]*  MPI_Waitall .*src=2 tag=7 req=1' "$s" ||
	fail "Waitall's completion of request 1 is missing"
grep -q 'MPI_Comm_split .*obj=0x2' "$s" || fail "rank 0's split communicator is not number 2"
grep -q 'MPI_Bcast .*comm=2 root=0' "$s" || fail "the Bcast is not on communicator 2"
grep -q 'GOMP_parallel_body .*team=2 tnum=0' "$s" || fail "no region body of thread 0"
grep -q '< .*GOMP_critical_start .*seq=[12] ' "$s" || fail "the critical acquisition is unnumbered"
grep -q '< .*omp_set_lock .*seq=[12] ' "$s" || fail "the lock acquisition is unnumbered"
grep -q 'MPI_Finalize' "$s" || fail "no MPI_Finalize"
# rank 2 is in the same split communicator as rank 0: same number, root 0 as a world rank
expect_status 0 "$DT" sync only 2.0
grep -q 'MPI_Bcast .*comm=2 root=0' "$T/out" || fail "rank 2's Bcast is not on communicator 2"
expect_status 0 "$DT" sync --format csv only 1.1
head -1 "$T/out" | grep -q '^proc,thread,seq,phase,ts,call,' || fail "bad csv header"
grep -q ',GOMP_parallel_body,' "$T/out" || fail "csv lacks the worker's region"
expect_status 0 "$DT" sync --format json only 1.1
grep -q '"call": "GOMP_barrier"' "$T/out" || fail "json lacks GOMP_barrier"
# the calls are the events of a sync-only trace, so the run can be analysed like any other
expect_status 0 "$DT" show only 1.0
grep -q 'MPI_Allreduce' "$T/out" || fail "show lacks the calls: $(cat "$T/out")"
expect_status 0 "$DT" hang only
grep -q 'finished (returned from MPI_Finalize)' "$T/out" || fail "hang on a normal run: $(cat "$T/out")"
grep -q 'no wait-for cycle' "$T/out" || fail "a cycle in a normal run"
expect_status 1 "$DT" sync only 7.0
expect_status 2 "$DT" sync only x.y

# with the injector: the record shows the call as the injector changed it
if [ -f "$abs_top_builddir/libdifftrace-inject.so" ]; then
	run inj --sync-only --inject 'allreduce:ranks=1:op=MPI_MAX' -- "$APP" ok ||
		{ cat "$T/inj.log" >&2; fail "the run with --inject failed"; }
	expect_status 0 "$DT" import -r inj "$T/inj"
	expect_status 0 "$DT" sync inj 1.0
	grep -q 'MPI_Allreduce .*op=MPI_MAX' "$T/out" || fail "the injected op is not in the record"
	expect_status 0 "$DT" sync inj 0.0
	grep -q 'MPI_Allreduce .*op=MPI_SUM' "$T/out" || fail "rank 0's op changed too"
fi

# next to uftrace (the default): the same P.T traces carry both
if [ -n "${UFTRACE:-$(command -v uftrace || true)}" ]; then
	run both -- "$APP" ok || { cat "$T/both.log" >&2; fail "the ok run under uftrace failed"; }
	[ -f "$T/both/rank-1/info" ] || fail "no uftrace data"
	[ -d "$T/both/rank-1/sync" ] || fail "no sync record next to uftrace's"
	expect_status 0 "$DT" import -r both "$T/both"
	grep -q '(uftrace)' "$T/out" || fail "not imported as uftrace: $(cat "$T/out")"
	expect_status 0 "$DT" sync both 1.0
	grep -q 'MPI_Send .*dest=0 tag=11' "$T/out" || fail "uftrace trace 1.0 lacks its sync events"
	expect_status 0 "$DT" traces both
	grep -q 'sync events only' "$T/out" && fail "a thread of uftrace was not matched: $(cat "$T/out")"
	# --no-sync
	run nosync --no-sync -- "$APP" ok || { cat "$T/nosync.log" >&2; fail "--no-sync run failed"; }
	[ -d "$T/nosync/rank-0/sync" ] && fail "--no-sync still wrote a sync record"
fi

# Read while the program runs, then kill -9: the cycle is there both times.
timeout -k 5 150 "$MPIRUN" $flags "$RECORD" --sync-only -o "$T/live" -- "$APP" cycle \
	</dev/null >"$T/live.log" 2>&1 &
job=$!
n=0
found=0
while [ $n -lt 120 ] && [ $found = 0 ]; do
	sleep 1
	n=$((n + 1))
	rm -f "$T/live.db"
	if "$DT" -d "$T/live.db" import -r live "$T/live" >/dev/null 2>&1 &&
		"$DT" -d "$T/live.db" hang live >"$T/live.hang" 2>&1 &&
		grep -Eq '0\.0 -> 1\.0 -> 0\.0|1\.0 -> 0\.0 -> 1\.0' "$T/live.hang"; then
		found=1
	fi
done
pids=$(ls "$T"/live/rank-*/sync/ 2>/dev/null | sed -n 's/^\([0-9]*\)\.[0-9]*\.dts$/\1/p' | sort -u)
for p in $pids; do kill -9 "$p" 2>/dev/null; done
wait $job
[ $found = 1 ] || { cat "$T/live.hang" "$T/live.log" >&2; fail "the cycle never showed while the program ran"; }
expect_status 0 "$DT" import -r killed "$T/live"
expect_status 0 "$DT" hang killed
grep -Eq '0\.0 -> 1\.0 -> 0\.0|1\.0 -> 0\.0 -> 1\.0' "$T/out" || fail "no cycle after kill -9: $(cat "$T/out")"
grep -q 'P 0-1 T 0 *in MPI_Recv (1st)' "$T/out" || fail "ranks 0 and 1 not in MPI_Recv after kill -9"
pass
