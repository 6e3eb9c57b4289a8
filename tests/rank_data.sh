#!/bin/sh
# Bugs that change only data (issue 23, item 3). tests/sync/data.c passes values around a ring
# of 4 ranks and through a window (MPI_Put, MPI_Accumulate between fences, MPI_Get under a
# shared lock). The sync record keeps the one-sided calls with their arguments (target as a
# world rank, displacement, count, datatype, op, the window's run-wide number, the fence's
# assert, the lock type); difftrace-record --payload adds a digest of the bytes each send and
# put passed. A rank that sends a wrong value with the same calls is ranked first (its
# receivers change after it, in causal order); a Put to the wrong displacement ranks its rank
# first; a rank that leaves out a fence is the one the others wait for in theirs.
. "${abs_top_srcdir:-.}/tests/lib.sh"

# Causal order, not the clocks (tests/mk_sync_rec chain, no MPI needed): rank 0's wrong data
# reaches rank 1, which sends it on; rank 1's host's clock is 10 ms behind, so that on the
# common clock its send comes first. The causality filter puts rank 0's first.
MK="$abs_top_builddir/tests/mk_sync_rec"
[ -x "$MK" ] || fail "tests/mk_sync_rec is not built"
"$MK" "$T/chain0" chain 0 && "$MK" "$T/chain1" chain 1 || fail "mk_sync_rec chain"
expect_status 0 "$DT" import -q -r chain0 "$T/chain0"
expect_status 0 "$DT" import -q -r chain1 "$T/chain1"
expect_status 0 "$DT" rank --normal chain0 --faulty chain1
grep -q '^   1  0\.0 .*sent data differs: MPI_Send to 1 tag 5, the 1st, first in causal order$' "$T/out" ||
	fail "chain: 0.0 not first: $(cat "$T/out")"
grep -q '^   2  1\.0 .*sent data differs: MPI_Send to 2 tag 5, the 1st, 2nd in causal order$' "$T/out" ||
	fail "chain: 1.0 not second: $(cat "$T/out")"
grep -q '^   3  2\.0 .*identical$' "$T/out" || fail "chain: 2.0: $(cat "$T/out")"

need mpi built timeout
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
[ -f "$abs_top_builddir/libdifftrace-sync.so" ] ||
	skip "libdifftrace-sync.so not built (no mpicc at configure time)"

# the option
expect_status 0 "$RECORD" --help
grep -q -- '--payload\[=N\]' "$T/out" || fail "--help lacks --payload"
expect_status 0 "$RECORD" -n --sync-only --payload -- ./app
grep -q 'DIFFTRACE_SYNC_PAYLOAD=4096 ' "$T/out" || fail "--payload: $(cat "$T/out")"
expect_status 0 "$RECORD" -n --sync-only --payload=64 -- ./app
grep -q 'DIFFTRACE_SYNC_PAYLOAD=64 ' "$T/out" || fail "--payload=64: $(cat "$T/out")"
expect_status 2 "$RECORD" -n --sync-only --payload=0 -- ./app
expect_err 'takes a number of bytes'
expect_status 2 "$RECORD" -n --no-sync --payload -- ./app
expect_err 'which --no-sync leaves out'

APP="$T/data.bin"
"$MPICC" -O1 -o "$APP" "$abs_top_srcdir/tests/sync/data.c" >"$T/cc.log" 2>&1 ||
	{ cat "$T/cc.log" >&2; fail "mpicc failed"; }
cd "$T" || fail "cd $T"
flags="-np 4"
"$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags="$flags --oversubscribe"

# run NAME MODE RECORD-OPTIONS...: the program under difftrace-record --sync-only, imported
run() {
	name=$1 mode=$2
	shift 2
	# shellcheck disable=SC2086
	timeout -k 5 120 "$MPIRUN" $flags "$RECORD" -o "$T/$name" --sync-only "$@" -- "$APP" "$mode" \
		</dev/null >"$T/$name.log" 2>&1
	st=$?
	# the hung run ends by --timeout: 124 under Open MPI, the signal's under MPICH's hydra
	[ $st = 0 ] || [ "$mode" = fence ] || { cat "$T/$name.log" >&2; fail "run $name: status $st"; }
	expect_status 0 "$DT" import -q -r "$name" "$T/$name"
}
run ok ok --payload
run data data --payload
run disp disp --payload
run plain data
run reduce reduce --payload

# the one-sided calls in the record, with their arguments; the same window number everywhere
expect_status 0 "$DT" sync ok 1.0
s="$T/out"
grep -q '< .*MPI_Win_create  *comm=0 count=64 obj=0x1$' "$s" || fail "no window 1: $(cat "$s")"
grep -q '> .*MPI_Win_fence  *comm=0 obj=0x1 at ' "$s" || fail "no fence: $(cat "$s")"
grep -Eq '> .*MPI_Put  *comm=0 target=2 disp=1 count=1 type=MPI_DOUBLE obj=0x1 data=[0-9a-f]{16} ' "$s" ||
	fail "no Put with its target, displacement and digest: $(cat "$s")"
grep -q '> .*MPI_Accumulate  *comm=0 target=0 disp=7 count=1 type=MPI_DOUBLE op=MPI_SUM obj=0x1 data=' "$s" ||
	fail "no Accumulate: $(cat "$s")"
grep -q '> .*MPI_Win_fence  *comm=0 obj=0x1 assert=0x10 ' "$s" || fail "no fence assert: $(cat "$s")"
grep -q '> .*MPI_Win_lock  *comm=0 target=2 obj=0x1 lock=shared ' "$s" || fail "no lock: $(cat "$s")"
grep -q '> .*MPI_Get  *comm=0 target=2 disp=0 count=1 type=MPI_DOUBLE obj=0x1 at' "$s" ||
	fail "no Get (its data is not the sender's: no digest): $(cat "$s")"
grep -q '> .*MPI_Win_unlock  *comm=0 target=2 obj=0x1 ' "$s" || fail "no unlock: $(cat "$s")"
grep -q '> .*MPI_Win_free  *comm=0 obj=0x1 ' "$s" || fail "no free: $(cat "$s")"
grep -q '> .*MPI_Send  *comm=0 dest=2 tag=5 count=4 type=MPI_DOUBLE data=' "$s" ||
	fail "no digest of a send: $(cat "$s")"
expect_status 0 "$DT" sync ok 3.0
grep -q '> .*MPI_Put  *comm=0 target=0 disp=3 .*obj=0x1 ' "$T/out" || fail "rank 3's window: $(cat "$T/out")"
expect_status 0 "$DT" sync plain 1.0
grep -q 'data=' "$T/out" && fail "a digest without --payload: $(cat "$T/out")"
grep -q 'MPI_Put  *comm=0 target=2 disp=1 ' "$T/out" || fail "no Put without --payload"
expect_status 0 "$DT" sync --format csv ok 1.0
head -1 "$T/out" | grep -q ',tnum,disp,assert,lock,digest,site_file,' || fail "csv header: $(head -1 "$T/out")"
grep -Eq ',MPI_Put,0,2,-1,.*,1,0,0,[0-9a-f]{16},' "$T/out" || fail "csv Put: $(grep MPI_Put "$T/out")"
expect_status 0 "$DT" sync --format json ok 1.0
grep -Eq '"call": "MPI_Put", .*"disp": 1, "assert": 0, "lock": 0, "digest": "[0-9a-f]{16}"' "$T/out" ||
	fail "json Put: $(grep MPI_Put "$T/out")"
# order writes the one-sided arguments and the digest too
expect_status 0 "$DT" order ok
grep -Eq 'MPI_Put enter .*disp=1 .*digest=[0-9a-f]{16}' "$T/out" || fail "order: $(grep MPI_Put "$T/out")"
expect_status 0 "$DT" order --format csv ok
head -1 "$T/out" | grep -q ',recorded_ts,disp,assert,lock,digest,site$' || fail "order csv header: $(head -1 "$T/out")"
grep -Eq ',"MPI_Put",enter,.*,[0-9]+,0,0,[0-9a-f]{16},"main\+0x[0-9a-f]+"$' "$T/out" ||
	fail "order csv: the Put's disp, digest, site: $(grep MPI_Put "$T/out")"
# the run through an OTF2 archive (difftrace-otf2(5)), sites, digests and all: the same events
if [ -x "$abs_top_builddir/tests/mk_otf2" ]; then
	expect_status 0 "$DT" export -q ok "$T/x-ok"
	expect_status 0 "$DT" import -q -r back-ok "$T/x-ok"
	"$DT" sync --format csv ok > "$T/a" && "$DT" sync --format csv back-ok > "$T/b" ||
		fail "sync back-ok"
	cmp -s "$T/a" "$T/b" || fail "the OTF2 round trip differs: $(diff "$T/a" "$T/b" | head)"
fi

# wrong data, same calls: rank 1 first, then its receivers in causal order
expect_status 0 "$DT" rank --normal ok --faulty data
grep -q '^# no calls differ; 4 traces sent other data or passed other arguments (sync record)' "$T/out" ||
	fail "data: not said: $(cat "$T/out")"
grep -q '^   1  1\.0 .*calls identical; sent data differs: MPI_Send to 2 tag 5, the 3rd, first in causal order$' "$T/out" ||
	fail "data: 1.0 not first: $(cat "$T/out")"
grep -q '^   2  2\.0 .*sent data differs: MPI_Send to 3 tag 5, the 3rd, 2nd in causal order$' "$T/out" ||
	fail "data: 2.0 not second: $(cat "$T/out")"
expect_status 0 "$DT" rank --normal ok --faulty data --format json
grep -q '"data_changed": 4,' "$T/out" || fail "data json: $(cat "$T/out")"
grep -q '"difference_found": true' "$T/out" || fail "data json: no difference: $(cat "$T/out")"
# without --payload the same bug leaves no footprint
expect_status 0 "$DT" rank --normal ok --faulty plain
no_footprint plain

# a wrong contribution to a collective: rank 2's MPI_Allreduce, before every rank's put
expect_status 0 "$DT" rank --normal ok --faulty reduce
grep -q '^   1  2\.0 .*calls identical; sent data differs: MPI_Allreduce, the 1st, first in causal order$' "$T/out" ||
	fail "reduce: 2.0 not first: $(cat "$T/out")"
grep -q '^# no calls differ; 4 traces sent other data' "$T/out" || fail "reduce: the others: $(cat "$T/out")"
expect_status 0 "$DT" sync reduce 2.0
grep -Eq '> .*MPI_Allreduce  *comm=0 count=1 type=MPI_DOUBLE op=MPI_SUM data=[0-9a-f]{16} ' "$T/out" ||
	fail "reduce: no digest of the Allreduce: $(cat "$T/out")"

# a Put to the wrong displacement: rank 2, by the argument; rank 3 sends its window on after
expect_status 0 "$DT" rank --normal ok --faulty disp
grep -q '^   1  2\.0 .*calls identical; arguments differ: MPI_Put to 3, the 1st (MPI_Put\[disp=3\], normally MPI_Put\[disp=2\]), first in causal order$' "$T/out" ||
	fail "disp: 2.0 not first: $(cat "$T/out")"
grep -q '^   2  3\.0 .*sent data differs: MPI_Sendrecv to 0 tag 6, the 1st, 2nd in causal order$' "$T/out" ||
	fail "disp: 3.0 not second: $(cat "$T/out")"

# a fence left out: the others wait in theirs for rank 3, which is ranked first
run fence fence --timeout 4
expect_status 0 "$DT" hang fence
grep -q '^  P 0-2 T 0  *in MPI_Win_fence (2nd)' "$T/out" || fail "fence: $(cat "$T/out")"
grep -q '^  0\.0  *waits for 3\.0 (collective: MPI_Win_fence comm=0 obj=0x1 assert=0x10)' "$T/out" ||
	fail "fence: no wait-for edge: $(cat "$T/out")"
# twice: the second from the ranking kept in the store, the fence's assert with it
for k in computed cached; do
	expect_status 0 "$DT" rank --normal ok --faulty fence
	# the barrier named with where the program made it (a site, main+offset without -g)
	grep -Eq '^   1  3\.0 .*MPI_Barrier at [^ ]+( \([^)]*\))? where the normal run has MPI_Win_fence\[assert=16\]' "$T/out" ||
		fail "fence ($k): 3.0 not first: $(cat "$T/out")"
done
pass
