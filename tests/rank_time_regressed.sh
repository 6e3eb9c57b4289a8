#!/bin/sh
# A trace whose clock went back (flag time-regressed) is kept out of the ordering of a hung
# run's traces by when they ended ("running at the stop"): its last timestamp says nothing of
# when it stopped. Made-up sync records (tests/mk_sync_rec): a normal run and a hung one
# stopped by difftrace-record --timeout (its marker files), where trace 2.0's last event is
# put far after the others' (it is then the one running at the stop); in a second copy, 2.0's
# second event is also put before its first, so the trace is time-regressed.
. "${abs_top_srcdir:-.}/tests/lib.sh"

MK="$abs_top_builddir/tests/mk_sync_rec"
[ -x "$MK" ] || fail "tests/mk_sync_rec is not built"
"$MK" "$T/n" ok || fail "mk_sync_rec ok"
"$MK" "$T/late" hung || fail "mk_sync_rec hung"
for r in 0 1 2; do : > "$T/late/rank-$r/difftrace-timeout"; done
f=$(echo "$T"/late/rank-2/sync/*.dts)
[ -f "$f" ] || fail "no sync file of rank 2"

# put FILE K NS: the time of record K of FILE (offset 8 of the 96-byte records after the
# 4096-byte header), in the file's byte order (its header's 0x01020304 at offset 24 says which)
put() {
	v=$3 i=0 le="" be=""
	while [ $i -lt 8 ]; do
		o=$(printf '\\%03o' $((v & 255)))
		le="$le$o" be="$o$be" v=$((v >> 8)) i=$((i + 1))
	done
	case $(od -An -tx1 -j24 -N1 "$1" | tr -d ' ') in
	04) b=$le ;;
	01) b=$be ;;
	*) fail "$1: no byte order mark" ;;
	esac
	# the record size from the header (offset 16), whatever the format version's
	rs=$(od -An -tu4 -j16 -N4 "$1" | tr -d ' ')
	# shellcheck disable=SC2059
	printf "$b" | dd of="$1" bs=1 seek=$((4096 + rs * $2 + 8)) conv=notrunc 2>/dev/null ||
		fail "cannot write $1"
}
# 2.0: MPI_Init's entry and exit, then MPI_Barrier's entry, at about 1 ms; the barrier's entry
# moved to 1 s
put "$f" 2 1000000000
cp -r "$T/late" "$T/back"
put "$(echo "$T"/back/rank-2/sync/*.dts)" 1 1000

expect_status 0 "$DT" import -q --run n "$T/n"
expect_status 0 "$DT" import -q --run late "$T/late"
expect_status 0 "$DT" import -q --run back "$T/back"
expect_status 0 "$DT" traces --format csv back
grep -q '^2\.0,.*time-regressed' "$T/out" || fail "2.0 is not time-regressed: $(cat "$T/out")"
grep '^[01]\.0,' "$T/out" | grep -q 'time-regressed' && fail "a clean trace flagged: $(cat "$T/out")"
expect_status 0 "$DT" traces --format csv late
grep -q 'time-regressed' "$T/out" && fail "late flagged time-regressed: $(cat "$T/out")"

# the clock kept going: 2.0 ended last, long after the others, and is running at the stop
expect_status 0 "$DT" rank --normal n --faulty late --format csv
[ "$(awk -F, '$2 == "2.0" { print $9 }' "$T/out")" = 1 ] ||
	fail "late: 2.0 is not running at the stop: $(cat "$T/out")"
expect_status 0 "$DT" rank --normal n --faulty late
grep -q 'the faulty run was stopped: 1 trace still running' "$T/out" ||
	fail "late: no trace still running: $(cat "$T/out")"

# the clock went back: the same last time orders nothing, and no trace is running at the stop
expect_status 0 "$DT" rank --normal n --faulty back --format csv
[ "$(awk -F, '$2 == "2.0" { print $9 }' "$T/out")" = 0 ] ||
	fail "back: the time-regressed 2.0 is running at the stop: $(cat "$T/out")"
awk -F, 'NR > 1 && $9 != 0' "$T/out" | grep -q . && fail "back: a trace running: $(cat "$T/out")"
expect_status 0 "$DT" rank --normal n --faulty back --format json
grep -q '"running": true' "$T/out" && fail "back: running in JSON: $(cat "$T/out")"
expect_status 0 "$DT" rank --normal n --faulty back
grep -q 'still running\|running at the stop' "$T/out" && fail "back: running: $(cat "$T/out")"
pass
