#!/bin/sh
# A one-sided (RMA) bug with the same calls (issue 23, item 3), on a real program recorded as
# the README says for data bugs (difftrace-record --payload, the default recording otherwise:
# uftrace and the sync record). examples/kinds.c --bug rma: in one iteration rank 2 puts its
# value into rank 1's slot of rank 0's window instead of its own, so that two ranks put to one
# location in one fence epoch (the MPI Bugs Initiative's "global concurrency" kind). Every
# call is the same; the MPI_Put's target displacement differs, and rank 0's data after it.
# `rank` puts 2.0 first, naming the MPI_Put and its displacement. Without the sync record
# (difftrace-record --no-sync: what the tool saw before one-sided calls were recorded) the
# same bug leaves no footprint.
. "${abs_top_srcdir:-.}/tests/lib.sh"

need mpi uftrace timeout built
export UFTRACE OMP_NUM_THREADS=3 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
[ -f "$abs_top_builddir/libdifftrace-sync.so" ] ||
	skip "libdifftrace-sync.so not built (no mpicc at configure time)"

APP="$T/kinds"
"$MPICC" -pg -fopenmp -O1 -o "$APP" "$abs_top_srcdir/examples/kinds.c" >"$T/cc.log" 2>&1 ||
	{ cat "$T/cc.log" >&2; fail "mpicc failed"; }
# a -pg program writes gmon.out where it runs: not in the build tree
cd "$T" || fail "cd $T"
flags="-np 4"
"$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags="$flags --oversubscribe"

# run NAME RECORD-OPTIONS... [-- PROGRAM-OPTIONS...]: five iterations, the bug in the 3rd
run() {
	name=$1
	shift
	opts=
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		opts="$opts $1"
		shift
	done
	[ $# -gt 0 ] && shift
	# shellcheck disable=SC2086
	timeout -k 5 120 "$MPIRUN" $flags "$RECORD" -o "$T/$name" $opts -- "$APP" --iters 5 "$@" \
		</dev/null >"$T/$name.log" 2>&1
	st=$?
	if [ $st != 0 ]; then
		cat "$T/$name.log" >&2
		grep -qiE 'not enough slots|orte_init|PMIx|ess_init' "$T/$name.log" &&
			skip "mpirun cannot start processes here"
		fail "run $name: status $st"
	fi
	expect_status 0 "$DT" import -q -r "$name" "$T/$name"
}
run ok --payload
run rma --payload -- --bug rma --proc 2 --iter 3

# the window and the puts in the record, with their displacements
expect_status 0 "$DT" sync rma 2.0
grep -q '< .*MPI_Win_create  *comm=0 count=512 obj=0x1$' "$T/out" || fail "no window: $(cat "$T/out")"
[ "$(grep -c '> .*MPI_Put  *comm=0 target=0 disp=2 count=1 type=MPI_DOUBLE obj=0x1 data=' "$T/out")" = 4 ] ||
	fail "not 4 puts to slot 2: $(grep MPI_Put "$T/out")"
grep -q '> .*MPI_Put  *comm=0 target=0 disp=1 count=1 type=MPI_DOUBLE obj=0x1 data=' "$T/out" ||
	fail "no put to slot 1: $(grep MPI_Put "$T/out")"

# the faulty rank first, by the one-sided call's argument, its data's receivers after it
expect_status 0 "$DT" rank --normal ok --faulty rma
grep -q '^   1  2\.0 .*arguments differ: MPI_Put to 0, the 4th (MPI_Put\[disp=1\], normally MPI_Put\[disp=2\]), first in causal order$' "$T/out" ||
	fail "rma: 2.0 not first: $(cat "$T/out")"
grep -q '^ *[2-9]  2\.0 ' "$T/out" && fail "rma: 2.0 twice: $(cat "$T/out")"
# rank 0 summed another value into its data: it sent other data after the puts
grep -Eq '^   2  0\.0 .*sent data differs: .*2nd in causal order$' "$T/out" ||
	fail "rma: 0.0 not second: $(cat "$T/out")"

# without the sync record the bug leaves no footprint: the same calls on every thread
run plain-ok --no-sync
run plain-rma --no-sync -- --bug rma --proc 2 --iter 3
expect_status 0 "$DT" rank --normal plain-ok --faulty plain-rma
no_footprint plain
pass
