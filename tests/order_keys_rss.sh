#!/bin/sh
# The causality filter's table of keys does not grow with the record (issue 25, item 2): a
# record whose messages each have a tag of their own (tests/mk_sync_rec ring: the tag is the
# iteration) makes a key per message, and an entry idle for 16,384 deliveries is put aside
# with its numbers in a few bytes (src/order/retired.c) and taken back exactly when its key
# comes again. On 2.4 M events (800,000 keys), the peak resident memory of `order`, `hang` and
# `watch --once` stays within 64 MB of theirs on a record as long with one tag (mk_sync_rec
# steady), where the filter that kept every entry took 150 MB more and fails; and the output
# is that of the filter keeping every entry (tests/test_order_ref compares the two on random
# runs with entries put aside after 1 to 40 deliveries): here every event is released and
# none is held at the end. Nothing is timed.
. "${abs_top_srcdir:-.}/tests/lib.sh"

MK="$abs_top_builddir/tests/mk_sync_rec"
[ -x "$MK" ] || fail "tests/mk_sync_rec is not built"

"$MK" "$T/ring" ring 4 100000 || fail "mk_sync_rec ring 4 100000"
"$MK" "$T/steady" steady 4 100000 || fail "mk_sync_rec steady 4 100000"
expect_status 0 "$DT" import -q --run ring "$T/ring"
expect_status 0 "$DT" import -q --run steady "$T/steady"

for cmd in order hang watch; do
	case $cmd in
	watch) a=$(peak_kib "$DT" watch --once "$T/ring"); b=$(peak_kib "$DT" watch --once "$T/steady") ;;
	*) a=$(peak_kib "$DT" "$cmd" ring); b=$(peak_kib "$DT" "$cmd" steady) ;;
	esac
	echo "$cmd: peak RSS ${a} KiB on a key per message, ${b} KiB on one tag"
	[ "$a" -lt $((b + 65536)) ] ||
		fail "$cmd kept ${a} KiB on a key per message against ${b} KiB on one tag: the filter keeps every key"
done

# every event released, none held: a message put aside and taken back is matched again
"$DT" order ring >"$T/stream.txt" || fail "order ring"
n=$(wc -l <"$T/stream.txt")
[ "$n" = 2400009 ] || fail "order ring wrote $n lines, not the 2,400,000 events and the header"
"$DT" hang ring >"$T/hang.txt" || fail "hang ring"
grep -q '^  P 0-3 T 0  *not in a recorded call (after MPI_Allreduce, 100000th)$' "$T/hang.txt" ||
	{ cat "$T/hang.txt" >&2; fail "hang ring: not the 4 processes after their last MPI_Allreduce"; }
sed -n '/^calls that can never complete/,/^$/p' "$T/hang.txt" | grep -q '^  (none)$' ||
	{ cat "$T/hang.txt" >&2; fail "hang ring: events held by the causality filter"; }
pass
