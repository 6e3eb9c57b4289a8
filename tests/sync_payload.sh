#!/bin/sh
# The payload digests of difftrace-record --payload on the calls that had none: scatters
# (the root's whole send buffer), all-to-all, reduce-scatter, the v forms of the gathers, the
# nonblocking collectives (MPI_Ibcast at its root, MPI_Ireduce, MPI_Iallreduce) and the
# persistent sends (each MPI_Start: the data it sends). tests/sync/payload.c makes each call
# once on 4 ranks and prints, on rank 0, the digest each should have (dts_digest over the
# bytes difftrace-sync(5) says are digested); recorded twice with the same data and once with
# other data: each digest is the one printed, the same in both normal runs, and another with
# other data.
. "${abs_top_srcdir:-.}/tests/lib.sh"

need mpi built timeout
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
[ -f "$abs_top_builddir/libdifftrace-sync.so" ] ||
	skip "libdifftrace-sync.so not built (no mpicc at configure time)"

APP="$T/payload.bin"
"$MPICC" -O1 -I"$abs_top_srcdir/src/record" -o "$APP" "$abs_top_srcdir/tests/sync/payload.c" \
	>"$T/cc.log" 2>&1 || { cat "$T/cc.log" >&2; fail "mpicc failed"; }
cd "$T" || fail "cd $T"
flags="-np 4"
"$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags="$flags --oversubscribe"

# run NAME MODE: the program under difftrace-record --sync-only --payload, imported; what
# rank 0 printed in $T/NAME.want
run() {
	# shellcheck disable=SC2086
	timeout -k 5 120 "$MPIRUN" $flags "$RECORD" -o "$T/$1" --sync-only --payload -- "$APP" "$2" \
		</dev/null >"$T/$1.want" 2>"$T/$1.log"
	st=$?
	if [ $st != 0 ]; then
		cat "$T/$1.log" >&2
		grep -qiE 'not enough slots|orte_init|PMIx|ess_init' "$T/$1.log" &&
			skip "mpirun cannot start processes here"
		fail "run $1: status $st"
	fi
	expect_status 0 "$DT" import -q -r "$1" "$T/$1"
}
run ok ok
run ok2 ok
run data data

calls="MPI_Scatter MPI_Scatterv MPI_Alltoall MPI_Alltoallv MPI_Reduce_scatter_block
	MPI_Reduce_scatter MPI_Gatherv MPI_Allgatherv MPI_Ibcast MPI_Ireduce MPI_Iallreduce MPI_Start"
# digest RUN CALL: the digest of rank 0's CALL in RUN's record
digest() {
	"$DT" sync "$1" 0.0 >"$T/sync.out" 2>&1 || fail "sync $1: $(cat "$T/sync.out")"
	grep "> .* $2  " "$T/sync.out" | sed -n 's/.* data=\([0-9a-f]*\).*/\1/p'
}
for c in $calls; do
	for run in ok ok2 data; do
		want=$(awk -v c="$c" '$1 == c { print $2 }' "$T/$run.want")
		[ -n "$want" ] || fail "$run: the program printed no digest for $c: $(cat "$T/$run.want")"
		got=$(digest $run "$c")
		[ "$got" = "$want" ] || fail "$run: $c has digest '$got', expected $want: $(grep " $c " "$T/sync.out")"
		eval "d_$run=\$got"
	done
	# shellcheck disable=SC2154 # set by the eval above
	[ "$d_ok" = "$d_ok2" ] || fail "$c: two runs with the same data differ: $d_ok $d_ok2"
	# shellcheck disable=SC2154
	[ "$d_ok" != "$d_data" ] || fail "$c: the same digest with other data: $d_ok"
done

# a scatter's or a broadcast's receivers pass no data; a persistent send's init neither
expect_status 0 "$DT" sync ok 1.0
for c in MPI_Scatter MPI_Scatterv MPI_Ibcast MPI_Recv_init MPI_Start; do
	grep "> .* $c  " "$T/out" | grep -q 'data=' && fail "1.0: a digest on $c: $(grep " $c " "$T/out")"
done
expect_status 0 "$DT" sync ok 0.0
grep '> .* MPI_Send_init  ' "$T/out" | grep -q 'data=' && fail "a digest on MPI_Send_init: $(grep MPI_Send_init "$T/out")"
grep -q '> .* MPI_Send_init  ' "$T/out" || fail "no MPI_Send_init: $(cat "$T/out")"
# and the other ranks' contributions to an all-to-all have theirs
expect_status 0 "$DT" sync ok 1.0
grep -Eq '> .* MPI_Alltoall  .* data=[0-9a-f]{16}' "$T/out" || fail "1.0: no digest on MPI_Alltoall: $(cat "$T/out")"
pass
