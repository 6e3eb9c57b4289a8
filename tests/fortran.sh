#!/bin/sh
# Fortran MPI + OpenMP (issue 21, item 1): tests/fortran/halo.f90 (use mpi), a halo exchange,
# hangs on a tag mismatch when the last rank sends its left edge with tag 8. Open MPI's Fortran
# bindings call its C PMPI_ functions directly, so the sync record had no events at all; now
# they are recorded as the C calls: `hang` names rank 1 in MPI_Recv waiting for rank 2 and the
# others, and `rank` puts rank 2, which sent the wrong tag, first. Runs under MPICH too
# (DIFFTRACE_TEST_MPI=mpich), whose Fortran bindings call the C MPI_ functions. With uftrace,
# show names the bindings' calls as the C ones, and the injector changes them as the C ones.
# The one-sided calls of tests/fortran/rma.f90 are recorded with their arguments too, and
# difftrace-record --payload digests what the Fortran calls send, as it does the C calls'.
. "${abs_top_srcdir:-.}/tests/lib.sh"

need mpi built timeout
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=2
MPIFC=$(dirname "$MPICC")/$(basename "$MPICC" | sed 's/^mpicc/mpif90/')
[ -x "$MPIFC" ] || skip "$MPIFC not found (apt-get install gfortran)"
APP="$T/halo"
cd "$T" || fail "cd $T"
"$MPIFC" -fopenmp -O2 -g -o "$APP" "$abs_top_srcdir/tests/fortran/halo.f90" >"$T/fc.log" 2>&1 ||
	{ cat "$T/fc.log" >&2; fail "$MPIFC failed"; }
flags="-np 3"
"$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags="$flags --oversubscribe"
rec() { # NAME TIMEOUT [ARGS...]
	name=$1 t=$2
	shift 2
	# shellcheck disable=SC2086
	timeout -k 5 150 "$MPIRUN" $flags "$RECORD" --sync-only --timeout "$t" -o "$T/$name" -- \
		"$APP" "$@" </dev/null >"$T/$name.log" 2>&1
	[ -d "$T/$name/rank-2/sync" ] || { cat "$T/$name.log" >&2; fail "$name: no sync record"; }
	expect_status 0 "$DT" import -r "$name" "$T/$name"
}
rec normal 60
grep -q 'residual' "$T/normal.log" || { cat "$T/normal.log" >&2; fail "the normal run did not end"; }
# the Fortran calls, as the C ones, with their arguments from the Fortran handles
expect_status 0 "$DT" sync normal
for re in '^1\.0 .*MPI_Init_thread' \
	'^1\.0 .*MPI_Isend +comm=0 dest=0 tag=7 count=1 type=MPI_DOUBLE_PRECISION' \
	'^1\.0 .*< .*MPI_Recv +comm=0 src=2 tag=7 count=1 ' \
	'^1\.0 .*MPI_Wait +req=[1-9]' \
	'^0\.0 .*MPI_Allreduce +comm=0 count=1 .*op=MPI_SUM' \
	'^2\.0 .*MPI_Barrier +comm=0' '^2\.0 .*MPI_Finalize'; do
	grep -Eq -- "$re" "$T/out" || { head -60 "$T/out" >&2; fail "no event like '$re'"; }
done
rec tag 4 tag
expect_status 0 "$DT" hang tag
cp "$T/out" "$T/hang"
grep -Eq '^  1\.0 +in MPI_Recv \(1st\)' "$T/hang" || { cat "$T/hang" >&2; fail "rank 1 not in its MPI_Recv"; }
grep -Eq '1\.0 +waits for 2\.0 \(receive: MPI_Recv comm=0 src=2 tag=7 ' "$T/hang" ||
	{ cat "$T/hang" >&2; fail "1.0 does not wait for 2.0"; }
grep -Eq '^  0\.0 +in MPI_Allreduce \(1st\)' "$T/hang" || { cat "$T/hang" >&2; fail "rank 0 not in MPI_Allreduce"; }
grep -Eq '^  2\.0 +in MPI_Recv' "$T/hang" || { cat "$T/hang" >&2; fail "rank 2 not in MPI_Recv"; }
# where: the lines of the Fortran calls (through the bindings: MPICH's call the C functions,
# whose caller is not the program; the recorder walks to it)
SRC="$abs_top_srcdir/tests/fortran/halo.f90"
l7=$(grep -n 'call MPI_Recv(u(n+1), .*right, 7,' "$SRC" | cut -d: -f1)
l9=$(grep -n 'call MPI_Recv(u(0), .*left, 9,' "$SRC" | cut -d: -f1)
grep -Eq "^  1\.0 +in MPI_Recv \(1st\) at halo\.f90:$l7 \(halo\)\$" "$T/hang" ||
	{ cat "$T/hang" >&2; fail "rank 1's MPI_Recv not at halo.f90:$l7 (halo)"; }
grep -Eq "^  2\.0 +in MPI_Recv \(2nd\) at halo\.f90:$l9 \(halo\)\$" "$T/hang" ||
	{ cat "$T/hang" >&2; fail "rank 2's MPI_Recv not at halo.f90:$l9 (halo)"; }
expect_status 0 "$DT" rank --normal normal --faulty tag --format csv
row=$(sed -n 2p "$T/out")
case $row in
1,2.0,*MPI_Isend?tag=8?*) ;;
*) cat "$T/out" >&2; fail "rank 2 is not first for its MPI_Isend of tag 8: $row" ;;
esac

# the injector changes Fortran calls as C ones: rank 2's first MPI_Isend dropped, rank 1 waits
# for it in MPI_Recv; the record has no such Isend
# shellcheck disable=SC2086
timeout -k 5 150 "$MPIRUN" $flags "$RECORD" --sync-only --timeout 4 \
	--inject 'isend:call=1:ranks=2:drop' -o "$T/inj" -- "$APP" </dev/null >"$T/inj.log" 2>&1
[ -d "$T/inj/rank-2/sync" ] || { cat "$T/inj.log" >&2; fail "inj: no sync record"; }
expect_status 0 "$DT" import -r inj "$T/inj"
expect_status 0 "$DT" sync inj
[ "$(grep '^2\.0 ' "$T/out" | sed -n 3p | awk '{ print $5 }')" = MPI_Recv ] ||
	{ cat "$T/out" >&2; fail "rank 2's first MPI_Isend was not dropped"; }
expect_status 0 "$DT" hang inj
grep -Eq '1\.0 +waits for 2\.0 \(receive: MPI_Recv comm=0 src=2 tag=7 ' "$T/out" ||
	{ cat "$T/out" >&2; fail "inj: 1.0 does not wait for 2.0"; }

# use mpi_f08 (tests/fortran/ring08.f90): Open MPI's reaches the wrappers through ompi_*_f,
# MPICH's calls PMPI_ without a buffer (mpi_barrier_f08_, mpi_wait_f08_): every call recorded,
# with Fortran's datatypes named
"$MPIFC" -O1 -o "$T/ring08" "$abs_top_srcdir/tests/fortran/ring08.f90" >"$T/fc.log" 2>&1 ||
	{ cat "$T/fc.log" >&2; fail "$MPIFC failed on ring08.f90"; }
# shellcheck disable=SC2086
timeout -k 5 150 "$MPIRUN" $flags "$RECORD" --sync-only -o "$T/ring" -- "$T/ring08" </dev/null \
	>"$T/ring.log" 2>&1 || { cat "$T/ring.log" >&2; fail "recording ring08 failed"; }
grep -q 'ring 1' "$T/ring.log" || { cat "$T/ring.log" >&2; fail "ring08 did not end"; }
expect_status 0 "$DT" import -r ring "$T/ring"
expect_status 0 "$DT" sync ring
grep '^1\.0 ' "$T/out" | awk '{ print $3, $5 }' | tr '\n' ' ' >"$T/calls"
want='> MPI_Init < MPI_Init > MPI_Irecv < MPI_Irecv > MPI_Isend < MPI_Isend > MPI_Waitall < MPI_Waitall = MPI_Waitall = MPI_Waitall > MPI_Irecv < MPI_Irecv > MPI_Send < MPI_Send > MPI_Wait < MPI_Wait > MPI_Barrier < MPI_Barrier > MPI_Finalize < MPI_Finalize '
[ "$(cat "$T/calls")" = "$want" ] || { cat "$T/out" >&2; fail "ring08's calls: $(cat "$T/calls")"; }
for re in '^1\.0 .*= .*MPI_Waitall +src=0 tag=3 req=1' '^1\.0 .*< .*MPI_Wait +src=0 tag=4 req=3' \
	'^1\.0 .*MPI_Isend +comm=0 dest=2 tag=3 count=1 type=MPI_INTEGER'; do
	grep -Eq -- "$re" "$T/out" || { cat "$T/out" >&2; fail "ring08: no event like '$re'"; }
done

# more calls (tests/fortran/calls.f90): Ssend, Sendrecv, Test, Comm_split, Comm_dup, Gather,
# Scatter, Allgather, Alltoall, Comm_free, with the communicators numbered as from C; and
# the causality filter orders the run
"$MPIFC" -O1 -o "$T/callsf" "$abs_top_srcdir/tests/fortran/calls.f90" >"$T/fc.log" 2>&1 ||
	{ cat "$T/fc.log" >&2; fail "$MPIFC failed on calls.f90"; }
# shellcheck disable=SC2086
timeout -k 5 150 "$MPIRUN" $flags "$RECORD" --sync-only --payload -o "$T/callsrec" -- "$T/callsf" </dev/null \
	>"$T/calls.log" 2>&1 || { cat "$T/calls.log" >&2; fail "recording calls.f90 failed"; }
expect_status 0 "$DT" import -r calls "$T/callsrec"
expect_status 0 "$DT" sync calls
grep '^0\.0 .* < ' "$T/out" | awk '{ print $5 }' | uniq | tr '\n' ' ' >"$T/calls.names"
want='MPI_Init MPI_Ssend MPI_Sendrecv MPI_Irecv MPI_Send MPI_Test MPI_Comm_split MPI_Bcast MPI_Comm_dup MPI_Gather MPI_Scatter MPI_Allgather MPI_Alltoall MPI_Comm_free MPI_Finalize '
[ "$(cat "$T/calls.names")" = "$want" ] || { cat "$T/out" >&2; fail "calls.f90: $(cat "$T/calls.names")"; }
for re in '^0\.0 .*< .*MPI_Sendrecv +comm=0 dest=1 tag=22 src=2 tag=22 count=1 type=MPI_INTEGER' \
	'^0\.0 .*< .*MPI_Test +src=2 tag=23 req=1' '^0\.0 .*< .*MPI_Comm_split +comm=0 obj=0x2' \
	'^1\.0 .*MPI_Bcast +comm=3 root=1 count=1' '^0\.0 .*MPI_Gather +comm=5 root=2 count=1 ' \
	'^2\.0 .*MPI_Scatter +comm=5 root=1 count=1 ' '^1\.0 .*MPI_Comm_free +comm=5'; do
	grep -Eq -- "$re" "$T/out" || { cat "$T/out" >&2; fail "calls.f90: no event like '$re'"; }
done
expect_status 0 "$DT" order calls
# the payload digests (--payload) of the Fortran calls, as the C calls have them: on each send
# and contribution (a scatter's and a broadcast's at their root), where x and a are the rank:
# another digest on another rank
dg() { # P.T CALL: the digest of the first entry of CALL
	grep -E "^$1 .*> .*$2 " "$T/out" | head -1 | sed -n 's/.* data=\([0-9a-f]*\).*/\1/p'
}
expect_status 0 "$DT" sync calls
[ -n "$(dg 0.0 MPI_Ssend)" ] || fail "calls.f90: no digest on MPI_Ssend: $(grep MPI_Ssend "$T/out")"
for c in MPI_Sendrecv MPI_Send MPI_Bcast MPI_Gather MPI_Allgather MPI_Alltoall; do
	d0=$(dg 0.0 $c) d1=$(dg 1.0 $c)
	if [ -z "$d0" ] || [ -z "$d1" ] || [ "$d0" = "$d1" ]; then
		fail "calls.f90: $c's digests on 0.0 and 1.0: '$d0' '$d1': $(grep " $c " "$T/out")"
	fi
done
[ -n "$(dg 1.0 MPI_Scatter)" ] || fail "calls.f90: no digest on the root's MPI_Scatter"
[ -z "$(dg 0.0 MPI_Scatter)$(dg 2.0 MPI_Bcast)$(dg 0.0 MPI_Recv)" ] ||
	fail "calls.f90: a digest on a receiver: $(grep -E 'MPI_Scatter|MPI_Bcast|MPI_Recv' "$T/out")"

# one-sided calls (tests/fortran/rma.f90): Open MPI's bindings are wrapped as the C calls;
# MPICH's call the C functions
"$MPIFC" -O1 -o "$T/rmaf" "$abs_top_srcdir/tests/fortran/rma.f90" >"$T/fc.log" 2>&1 ||
	{ cat "$T/fc.log" >&2; fail "$MPIFC failed on rma.f90"; }
# shellcheck disable=SC2086
timeout -k 5 150 "$MPIRUN" $flags "$RECORD" --sync-only --payload -o "$T/rma" -- "$T/rmaf" </dev/null \
	>"$T/rma.log" 2>&1 || { cat "$T/rma.log" >&2; fail "recording rma.f90 failed"; }
expect_status 0 "$DT" import -r rma "$T/rma"
expect_status 0 "$DT" sync rma 1.0
for re in '< .*MPI_Win_create +comm=0 count=64 obj=0x1$' '> .*MPI_Win_fence +comm=0 obj=0x1 ' \
	'> .*MPI_Put +comm=0 target=2 disp=1 count=1 type=MPI_DOUBLE_PRECISION obj=0x1 ' \
	'> .*MPI_Accumulate +comm=0 target=0 disp=7 count=1 type=MPI_DOUBLE_PRECISION op=MPI_SUM obj=0x1 ' \
	'> .*MPI_Win_fence +comm=0 obj=0x1 assert=0x10 ' \
	'> .*MPI_Win_lock +comm=0 target=2 obj=0x1 lock=exclusive ' \
	'> .*MPI_Get +comm=0 target=2 disp=0 ' '> .*MPI_Win_unlock +comm=0 target=2 obj=0x1 ' \
	'> .*MPI_Win_free +comm=0 obj=0x1 '; do
	grep -Eq -- "$re" "$T/out" || { cat "$T/out" >&2; fail "rma.f90: no event like '$re'"; }
done
# the origin's data digested: v is the rank
expect_status 0 "$DT" sync rma
for c in MPI_Put MPI_Accumulate; do
	d1=$(dg 1.0 $c) d2=$(dg 2.0 $c)
	if [ -z "$d1" ] || [ -z "$d2" ] || [ "$d1" = "$d2" ]; then
		fail "rma.f90: $c's digests on 1.0 and 2.0: '$d1' '$d2': $(grep " $c " "$T/out")"
	fi
done
[ -z "$(dg 1.0 MPI_Get)" ] || fail "rma.f90: a digest on MPI_Get"

# with uftrace (gfortran -pg): the bindings' calls are named as the C calls, which the filters
# (^MPI_) match; import --no-demangle keeps mpi_isend_
if [ -n "${UFTRACE:-$(command -v uftrace || true)}" ]; then
	"$MPIFC" -pg -fopenmp -O2 -g -o "$APP" "$abs_top_srcdir/tests/fortran/halo.f90" \
		>"$T/fc.log" 2>&1 || { cat "$T/fc.log" >&2; fail "$MPIFC -pg failed"; }
	# shellcheck disable=SC2086
	timeout -k 5 150 "$MPIRUN" $flags "$RECORD" -o "$T/uf" -- "$APP" </dev/null \
		>"$T/uf.log" 2>&1 || { cat "$T/uf.log" >&2; fail "recording with uftrace failed"; }
	expect_status 0 "$DT" import -r uf "$T/uf"
	expect_status 0 "$DT" show uf 1.0
	for f in MPI_Init_thread MPI_Comm_rank MPI_Isend MPI_Recv MPI_Wait MPI_Allreduce \
		MPI_Finalize; do
		grep -q " $f();" "$T/out" || { cat "$T/out" >&2; fail "show lacks $f"; }
	done
	grep -q 'mpi_[a-z_]*_()' "$T/out" && { cat "$T/out" >&2; fail "a Fortran binding's name"; }
	expect_status 0 "$DT" analyze uf
	expect_status 0 "$DT" import --no-demangle -r ufraw "$T/uf"
	expect_status 0 "$DT" show ufraw 1.0
	grep -q ' mpi_isend_();' "$T/out" || { cat "$T/out" >&2; fail "--no-demangle renamed"; }
fi
pass
