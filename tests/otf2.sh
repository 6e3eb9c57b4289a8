#!/bin/sh
# OTF2 archives in and out (issue 26, difftrace-otf2(5)): archives written with the OTF2 writer
# API as Score-P writes them (tests/mk_otf2.c: 2 MPI ranks x 2 OpenMP threads, and the same run
# with a tag mismatch that hangs) are imported with the default flags; rank puts the culprit
# first, hang says where each thread stopped; the import is the same on any number of threads;
# a location without events and records difftrace does not map are flagged; export and import
# give back the same run; a truncated and a bit-flipped archive fail in one line, store
# untouched. One-sided calls: Score-P's RMA records give the fields of their calls' sync events;
# an export writes them as RMA records, and its attributes give back the displacement, the
# assert, the lock type, the payload digest and the call site (tests/mk_sync_rec rma).
. "${abs_top_srcdir:-.}/tests/lib.sh"
need built
MK="$abs_top_builddir/tests/mk_otf2"
if [ ! -x "$MK" ]; then
	# built without OTF2: the import says so rather than not knowing the format
	: > "$T/x.otf2"
	expect_status 1 "$DT" import "$T/x.otf2"
	expect_err "built without OTF2"
	skip "difftrace was built without OTF2 (apt-get install libotf2-trace-dev)"
fi

"$MK" "$T/normal" normal || fail "mk_otf2 normal"
"$MK" "$T/faulty" tagmismatch || fail "mk_otf2 tagmismatch"

# ---- the user's path: import the archives' directories, rank, hang ----
expect_status 0 "$DT" import "$T/normal"
grep -q "^imported run 'normal' (otf2): 4 traces" "$T/out" || fail "normal: $(cat "$T/out")"
grep -q 'flagged\|left out' "$T/out" && fail "a whole archive flagged: $(cat "$T/out")"
expect_status 0 "$DT" import "$T/faulty/traces.otf2"
grep -q "^imported run 'faulty' (otf2): 4 traces.*flagged: open-frames" "$T/out" ||
	fail "faulty: $(cat "$T/out")"

expect_status 0 "$DT" sync faulty
grep -q '^1\.0 .*MPI_Send .*comm=0 dest=0 tag=8 count=64' "$T/out" ||
	fail "rank 1's send: $(cat "$T/out")"
grep -q '^0\.1 .*GOMP_parallel_body .*team=2 tnum=1' "$T/out" ||
	fail "the worker's part of the region: $(cat "$T/out")"
grep -q '^0\.0 .*GOMP_critical_start .*seq=1' "$T/out" || fail "critical: $(cat "$T/out")"
expect_status 0 "$DT" sync normal
grep -q '^1\.0 .*< .*MPI_Wait .*comm=0 src=0 tag=3 count=8 req=' "$T/out" ||
	fail "the Irecv's completion: $(cat "$T/out")"
grep -q '^0\.0 .*< .*MPI_Barrier .*comm=0' "$T/out" || fail "the barrier: $(cat "$T/out")"
grep -q '^0\.0 .*< .*MPI_Bcast .*comm=2 root=1' "$T/out" || fail "the broadcast: $(cat "$T/out")"
expect_status 0 "$DT" traces normal
grep -q 'note:' "$T/out" && fail "notes on a whole archive: $(cat "$T/out")"
# the records of OpenMP before OTF2 2.0 (OmpFork, OmpAcquireLock ...) read as their successors
"$MK" "$T/omp1" normal --omp1 || fail "mk_otf2 --omp1"
expect_status 0 "$DT" import -q --run omp1 "$T/omp1"
"$DT" sync normal > "$T/s1" && "$DT" sync omp1 > "$T/s2" || fail "sync"
cmp -s "$T/s1" "$T/s2" || fail "OTF2 1.x's OpenMP records differ: $(diff "$T/s1" "$T/s2")"
expect_status 0 "$DT" traces omp1
grep -q 'note:' "$T/out" && fail "notes on OTF2 1.x's OpenMP records: $(cat "$T/out")"
# OMPT's thread teams: their records read, their communicators not numbered among MPI's
"$MK" "$T/ompt" normal --ompt || fail "mk_otf2 --ompt"
expect_status 0 "$DT" import -q --run ompt "$T/ompt"
# (the team's records take time of their own: the times are not compared)
"$DT" sync normal | awk '{ $4 = ""; print }' > "$T/s1" &&
	"$DT" sync ompt | awk '{ $4 = ""; print }' > "$T/s2" || fail "sync ompt"
grep -q 'MPI_Bcast .*comm=2 root=1' "$T/s2" || fail "the broadcast: $(cat "$T/s2")"
cmp -s "$T/s1" "$T/s2" || fail "thread teams change the sync events: $(diff "$T/s1" "$T/s2")"
expect_status 0 "$DT" traces ompt
grep -q 'note:' "$T/out" && fail "notes on thread teams: $(cat "$T/out")"
expect_status 0 "$DT" show normal 0.1
grep -q '!\$omp critical sblock @ring.c:22();' "$T/out" || fail "OpenMP regions: $(cat "$T/out")"

# ---- one-sided calls: the RMA records inside their regions ----
"$MK" "$T/rma" normal --rma || fail "mk_otf2 --rma"
expect_status 0 "$DT" import -q --run rma "$T/rma"
expect_status 0 "$DT" sync rma
# the window is over the reversed communicator (2), where world rank 1 is rank 0
grep -q '^0\.0 .* > .*MPI_Win_create  *comm=2$' "$T/out" || fail "win create's entry: $(cat "$T/out")"
grep -q '^0\.0 .* < .*MPI_Win_create  *comm=2 obj=0x1$' "$T/out" || fail "win create: $(cat "$T/out")"
grep -q '^0\.0 .* > .*MPI_Put  *comm=2 target=1 count=32 obj=0x1$' "$T/out" ||
	fail "the put: $(cat "$T/out")"
[ "$(grep -c '^[01]\.0 .*MPI_Win_fence  *comm=2 obj=0x1$' "$T/out")" = 8 ] ||
	fail "the fences: $(cat "$T/out")"
grep -q '^1\.0 .* < .*MPI_Win_lock  *comm=2 target=0 obj=0x1 lock=shared$' "$T/out" ||
	fail "the lock: $(cat "$T/out")"
grep -q '^1\.0 .* > .*MPI_Get  *comm=2 target=0 count=16 obj=0x1$' "$T/out" ||
	fail "the get: $(cat "$T/out")"
grep -q '^1\.0 .* < .*MPI_Win_unlock  *comm=2 target=0 obj=0x1$' "$T/out" ||
	fail "the unlock: $(cat "$T/out")"
grep -q '^1\.0 .* > .*MPI_Win_free  *comm=2 obj=0x1$' "$T/out" || fail "win free: $(cat "$T/out")"
# the RMA records are read (not counted as unmapped); the one outside a one-sided call is noted
expect_status 0 "$DT" traces rma
grep -q 'does not map' "$T/out" && fail "RMA records not mapped: $(cat "$T/out")"
[ "$(grep -c 'note: 1 MPI or OpenMP record outside the region' "$T/out")" = 1 ] ||
	fail "the record outside: $(cat "$T/out")"
# the rest of the run as without them
"$DT" sync rma | grep -v 'MPI_Win\|MPI_Put\|MPI_Get' | awk '{ $2 = $4 = ""; print }' > "$T/s2" &&
	"$DT" sync normal | awk '{ $2 = $4 = ""; print }' > "$T/s1" || fail "sync rma"
cmp -s "$T/s1" "$T/s2" || fail "RMA records change the other events: $(diff "$T/s1" "$T/s2")"

expect_status 0 "$DT" rank --normal normal --faulty faulty
awk '$1 == "1" { print $2; exit }' "$T/out" | grep -qx '1\.0' ||
	fail "the culprit is not first: $(cat "$T/out")"
grep -q 'MPI_Send\[tag=8\] where the normal run has MPI_Send\[tag=7\]' "$T/out" ||
	fail "the change is not said: $(cat "$T/out")"
# the sync events make one order that the checker passes (messages, locks, parallel regions
# matched across threads and processes), over three iterations
"$MK" "$T/n3" normal --iters 3 || fail "mk_otf2 --iters 3"
expect_status 0 "$DT" import -q --run n3 "$T/n3"
expect_status 0 "$DT" order --check n3
expect_err "the order of 188 events passes the checker"
expect_status 0 "$DT" hang faulty
grep -q '^ *0\.0 *in MPI_Recv' "$T/out" || fail "hang: 0.0: $(cat "$T/out")"
grep -q '^ *1\.0 *in MPI_Barrier' "$T/out" || fail "hang: 1.0: $(cat "$T/out")"
# the receive and the barrier that never returned have no source, tag or communicator (OTF2
# writes them at the end of the call): the receive waits for any process, the barrier for
# those not in it, and the send to rank 0 that nobody received is the receive's near-match
head -n 1 "$T/out" | grep -q '^most likely cause: 0\.0, 1\.0 (tied): .*1\.0 sent tag 8 to 0 (unreceived)' ||
	fail "hang: the cause: $(cat "$T/out")"
grep -q '^ *0\.0 *waits for 1\.0 (receive: MPI_Recv)' "$T/out" || fail "hang: the receive: $(cat "$T/out")"
grep -q '^ *1\.0 *waits for 0\.0 (collective: MPI_Barrier)' "$T/out" ||
	fail "hang: the barrier: $(cat "$T/out")"
grep -q '^  envelope mismatch: 0\.0 waits for a message whose source and tag the record does not have; 1\.0 sent tag 8 to 0 (unreceived)$' "$T/out" ||
	fail "hang: the mismatch: $(cat "$T/out")"
"$DT" hang --whole faulty > "$T/whole" || fail "hang --whole"
cmp -s "$T/out" "$T/whole" || fail "hang --whole differs: $(diff "$T/out" "$T/whole")"
# against the normal run, the receive without arguments is the normal run's receive: the
# send with tag 8 departs
expect_status 0 "$DT" hang --normal normal faulty
head -n 1 "$T/out" | grep -q '^most likely cause: 1\.0: .*MPI_Send\[tag=8\] where the normal run has MPI_Send\[tag=7\]$' ||
	fail "hang --normal: the cause: $(cat "$T/out")"

# ---- the same store on one thread, three, and under mpirun ----
dump() { # RUN: what the store holds of a run, as the commands print it, and its clocks
	sqlite3 "$DIFFTRACE_DB" "SELECT t.proc, t.thread, t.host, k.clock, k.mono, k.real
		FROM traces t JOIN runs r ON r.id = t.run_id LEFT JOIN sync_clocks k
		ON k.trace_id = t.id WHERE r.name = '$1' ORDER BY t.proc, t.thread" &&
	{ "$DT" sync "$1" 2>/dev/null || echo "no sync events"; } && "$DT" traces "$1" | awk '{ print $1, $2, $3, $4, $5, $6, $9 }' &&
		for t in $("$DT" traces "$1" | awk 'NR > 1 && $1 ~ /^[0-9]/ { print $1 }'); do
			"$DT" show "$1" "$t" | tail -n +2
		done
}
dump faulty > "$T/d.default" || fail "dump"
for j in 1 3; do
	expect_status 0 "$DT" import -q --jobs $j --run j$j "$T/faulty"
	dump j$j > "$T/d.$j" || fail "dump j$j"
	cmp -s "$T/d.default" "$T/d.$j" || fail "--jobs $j differs: $(diff "$T/d.default" "$T/d.$j")"
done
if [ -n "${MPIRUN:-}" ] && [ -x "$abs_top_builddir/difftrace-mpi" ] && command -v timeout >/dev/null
then
	flags=
	"$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags="--oversubscribe --allow-run-as-root"
	# shellcheck disable=SC2086 # flags are words; Open MPI's own leaks are not ours
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	timeout -k 5 120 "$MPIRUN" -np 2 $flags "$DT" import -q --run mpi "$T/faulty" \
		>"$T/out" 2>"$T/err" || fail "under mpirun: $(cat "$T/err")"
	dump mpi > "$T/d.mpi" || fail "dump mpi"
	cmp -s "$T/d.default" "$T/d.mpi" || fail "under mpirun: $(diff "$T/d.default" "$T/d.mpi")"
fi

# ---- what the archive lacks is flagged ----
"$MK" "$T/odd" normal --empty --metric || fail "mk_otf2 --empty --metric"
expect_status 0 "$DT" import --run odd "$T/odd"
grep -q "5 traces.*flagged: empty" "$T/out" || fail "odd: $(cat "$T/out")"
# the summary says what the notes say of records left out for their kind (a metric record
# of each rank), flagged or not
grep -q "flagged: empty; 2 records of kinds difftrace does not map left out (see 'difftrace traces odd')$" \
	"$T/out" || fail "odd: the metric record: $(cat "$T/out")"
"$MK" "$T/metric" normal --metric || fail "mk_otf2 --metric"
expect_status 0 "$DT" import --run metric "$T/metric"
grep -q "^imported run 'metric' (otf2): 4 traces, .* stored; 2 records of kinds difftrace does not map left out (see 'difftrace traces metric')$" \
	"$T/out" || fail "metric: $(cat "$T/out")"
expect_status 0 "$DT" traces odd
grep -q 'note: the archive has no events for location 8589934593 (OMP thread 2)' "$T/out" ||
	fail "the empty location: $(cat "$T/out")"
grep -q 'note: 1 record of kinds difftrace does not map' "$T/out" ||
	fail "the metric record: $(cat "$T/out")"
# a location without events may have no files at all: still an empty trace; a location with
# events whose file is missing is an error
rm "$T/odd/traces/8589934593.evt" "$T/odd/traces/8589934593.def"
expect_status 0 "$DT" import --run odd2 "$T/odd"
expect_status 0 "$DT" traces odd2
grep -q 'note: the archive has no events for location 8589934593 (OMP thread 2), not even its file' \
	"$T/out" || fail "the location without files: $(cat "$T/out")"
# the definition counts more records than the file holds: flagged truncated
"$MK" "$T/miscount" normal --miscount || fail "mk_otf2 --miscount"
expect_status 0 "$DT" import --run miscount "$T/miscount"
grep -q "flagged: truncated" "$T/out" || fail "miscount: $(cat "$T/out")"
expect_status 0 "$DT" traces miscount
grep -q "note: the location's definition counts 47 records, its file holds 42" "$T/out" ||
	fail "miscount: $(cat "$T/out")"
rm "$T/odd/traces/4294967297.evt"
expect_status 1 "$DT" import --run odd3 "$T/odd"
expect_err "odd/traces/4294967297.evt: cannot open the location's events"

# ---- export, and back: the same run ----
for r in faulty normal; do
	expect_status 0 "$DT" export "$r" "$T/x-$r"
	grep -q "^exported run '$r': 4 traces" "$T/out" || fail "export $r: $(cat "$T/out")"
	[ -f "$T/x-$r/traces.otf2" ] || fail "no anchor file"
	expect_status 0 "$DT" import -q --run "back-$r" "$T/x-$r"
	dump "$r" > "$T/a" && dump "back-$r" > "$T/b" || fail "dump back-$r"
	cmp -s "$T/a" "$T/b" || fail "the round trip of $r differs: $(diff "$T/a" "$T/b")"
	if command -v otf2-print >/dev/null; then
		otf2-print "$T/x-$r/traces.otf2" >"$T/p" 2>"$T/err" || fail "otf2-print: $(cat "$T/err")"
		[ -s "$T/err" ] && fail "otf2-print warns: $(cat "$T/err")"
	fi
done
if command -v otf2-print >/dev/null; then
	# what Vampir matches: the send and the receive of one message, by communicator and tag
	grep -q '^MPI_SEND .*Receiver: 1 .*MPI_COMM_WORLD.*Tag: 7, Length: 64' "$T/p" ||
		fail "no send in the export: $(cat "$T/p")"
	grep -q '^MPI_RECV .*Sender: 0 .*MPI_COMM_WORLD.*Tag: 7, Length: 64' "$T/p" ||
		fail "no receive in the export"
	grep -q '^MPI_ISEND .*Tag: 3, Length: 8, Request: ' "$T/p" || fail "no isend in the export"
	grep -q '^MPI_IRECV .*Tag: 3, Length: 8, Request: ' "$T/p" || fail "no irecv in the export"
	grep -q '^MPI_COLLECTIVE_END .*Operation: BARRIER' "$T/p" || fail "no barrier in the export"
	otf2-print -G "$T/x-normal/traces.otf2" > "$T/p" 2>&1 || fail "otf2-print -G: $(cat "$T/p")"
	[ "$(grep -c '^LOCATION .*Type: CPU_THREAD, # Events: [1-9]' "$T/p")" = 4 ] ||
		fail "locations without their counts of records: $(grep '^LOCATION' "$T/p")"
fi
# a run of uftrace recordings (without source lines, which are not written) and a hung run of
# the sync record alone (the sync events are not calls of the same times there)
expect_status 0 "$DT" import -q --no-srclines --run uf "$DATA/uftrace/mpi"
"$abs_top_builddir/tests/mk_sync_rec" "$T/hung" hung || fail "mk_sync_rec"
expect_status 0 "$DT" import -q --run hung "$T/hung"
"$abs_top_builddir/tests/mk_sync_rec" "$T/ring" ring 3 2 || fail "mk_sync_rec ring"
expect_status 0 "$DT" import -q --run ring "$T/ring"
for r in uf hung ring; do
	expect_status 0 "$DT" export -q "$r" "$T/x-$r"
	expect_status 0 "$DT" import -q --run "back-$r" "$T/x-$r"
	dump "$r" > "$T/a" && dump "back-$r" > "$T/b" || fail "dump back-$r"
	cmp -s "$T/a" "$T/b" || fail "the round trip of $r differs: $(diff "$T/a" "$T/b")"
done
if command -v otf2-print >/dev/null; then
	# lengths in bytes, as OTF2 has them: one MPI_INT is 4
	otf2-print "$T/x-ring/traces.otf2" > "$T/p" 2>&1 || fail "otf2-print ring"
	grep -q '^MPI_SEND .*Tag: 0, Length: 4$' "$T/p" || fail "a send's length: $(grep MPI_SEND "$T/p")"
fi
# one-sided calls: Score-P's, and a sync record's with displacements, asserts, lock types, payload
# digests and call sites (resolved in mk_sync_rec itself): the same sync events back
"$abs_top_builddir/tests/mk_sync_rec" "$T/srma" rma || fail "mk_sync_rec rma"
expect_status 0 "$DT" import -q --run srma "$T/srma"
expect_status 0 "$DT" sync --format csv srma
grep -q '^0,0,[0-9]*,0,[0-9]*,MPI_Put,0,1,.*,3,0,0,1234abcd5678ef01,[^,]' "$T/out" ||
	fail "srma: the put without its digest or site: $(cat "$T/out")"
grep -q '^1,0,[0-9]*,0,[0-9]*,MPI_Win_lock,.*,1,1,,[^,]' "$T/out" ||
	fail "srma: the lock: $(cat "$T/out")"
for r in rma srma; do
	expect_status 0 "$DT" export -q "$r" "$T/x-$r"
	expect_status 0 "$DT" import -q --run "back-$r" "$T/x-$r"
	"$DT" sync --format csv "$r" > "$T/a" && "$DT" sync --format csv "back-$r" > "$T/b" ||
		fail "sync back-$r"
	cmp -s "$T/a" "$T/b" || fail "the round trip of $r differs: $(diff "$T/a" "$T/b")"
	if command -v otf2-print >/dev/null; then
		otf2-print "$T/x-$r/traces.otf2" >"$T/p" 2>"$T/err" || fail "otf2-print: $(cat "$T/err")"
		[ -s "$T/err" ] && fail "otf2-print warns: $(cat "$T/err")"
	fi
done
if command -v otf2-print >/dev/null; then
	# what other readers see: the transfers, the lock, the epochs, the window
	grep -q '^RMA_PUT  *0 .*Window: "window 1" <0>, Remote: 1 .*Bytes: 16, Matching: 1' "$T/p" ||
		fail "no put in the export: $(cat "$T/p")"
	grep -q '^RMA_ATOMIC  *1 .*Remote: 0 .*Type: ACCUMULATE, Sent: 4' "$T/p" ||
		fail "no accumulate in the export"
	grep -q '^RMA_ACQUIRE_LOCK  *1 .*Remote: 0 .*Type: EXCLUSIVE' "$T/p" || fail "no lock in the export"
	grep -q '^RMA_RELEASE_LOCK  *1 ' "$T/p" || fail "no unlock in the export"
	grep -q '^RMA_COLLECTIVE_END .*Operation: BARRIER, Window: "window 1"' "$T/p" ||
		fail "no fence in the export"
	grep -q '^RMA_WIN_DESTROY  *0 ' "$T/p" || fail "no window freed in the export"
	otf2-print -G "$T/x-srma/traces.otf2" > "$T/p" 2>&1 || fail "otf2-print -G: $(cat "$T/p")"
	grep -q '^RMA_WIN .*Name: "window 1".*Communicator: "MPI_COMM_WORLD"' "$T/p" ||
		fail "no window defined: $(grep RMA_WIN "$T/p")"
fi
# not over an archive already there
expect_status 1 "$DT" export normal "$T/x-normal"
expect_err "traces.otf2: exists already"
expect_status 2 "$DT" export --format json normal "$T/y"

# ---- damage: one line naming the file, exit 1, the store untouched ----
before=$(store_digest)
cp -r "$T/normal" "$T/cut"
size=$(wc -c < "$T/cut/traces/0.evt")
truncate -s $((size / 2)) "$T/cut/traces/0.evt" 2>/dev/null ||
	head -c $((size / 2)) "$T/normal/traces/0.evt" > "$T/cut/traces/0.evt"
expect_status 1 "$DT" import --run cut "$T/cut"
head -1 "$T/err" | grep -q "^difftrace: $T/cut/traces/0.evt: the events are damaged after event [0-9]*: " ||
	fail "truncated: $(cat "$T/err")"
cp -r "$T/normal" "$T/flip"
# byte 40 of rank 0's events is the region of its second record: 255 is no region
printf '\377' | dd of="$T/flip/traces/0.evt" bs=1 seek=40 conv=notrunc 2>/dev/null
expect_status 1 "$DT" import --run flip "$T/flip"
head -1 "$T/err" | grep -q "^difftrace: $T/flip/traces/0.evt: event 2: a region 255 that the definitions do not have" ||
	fail "bit flip: $(cat "$T/err")"
# an RMA record naming a window the definitions lack
"$MK" "$T/nowin" normal --rma --nowin || fail "mk_otf2 --nowin"
expect_status 1 "$DT" import --run nowin "$T/nowin"
head -1 "$T/err" | grep -q "^difftrace: $T/nowin/traces/0.evt: event [0-9]*: an RMA window 0 that the definitions do not have" ||
	fail "no window: $(cat "$T/err")"
# not an archive at all
printf 'OTF2?' > "$T/junk.otf2"
expect_status 1 "$DT" import --run junk "$T/junk.otf2"
expect_err "junk.otf2: not an OTF2 archive"
[ "$(store_digest)" = "$before" ] || fail "a failed import changed the store"
pass
