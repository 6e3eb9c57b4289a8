#!/bin/sh
# A mismatch is named (issue 24, item 2): for a blocked receive with a near-match, 'hang'
# says what differs, in text and JSON: a tag mismatch (rank 2 waits for tag 11 from 3, which
# sends it tag 10), a peer mismatch (rank 2 waits for tag 10 from 3, rank 1 sends it tag 10)
# and a count mismatch (4 INT received, 8 sent). Made-up sync records (tests/mk_sync_rec);
# a run without a mismatch, or killed in a matching exchange, names none.
. "${abs_top_srcdir:-.}/tests/lib.sh"

need built
MK="$abs_top_builddir/tests/mk_sync_rec"
[ -x "$MK" ] || fail "tests/mk_sync_rec is not built"

check() { # KIND TEXT
	"$MK" "$T/$1" "$1" || fail "mk_sync_rec $1"
	expect_status 0 "$DT" import --run "$1" "$T/$1"
	expect_status 0 "$DT" hang "$1"
	grep -qxF "  $1 mismatch: $2" "$T/out" || { cat "$T/out" >&2; fail "$1: not named"; }
	[ "$(grep -c 'mismatch:' "$T/out")" = 1 ] || { cat "$T/out" >&2; fail "$1: more than one"; }
	expect_status 0 "$DT" hang --format json "$1"
	grep -qF "{\"pt\": \"2.0\", \"kind\": \"$1\", \"sender\": \"$3\", \"send_seq\": $4, \"text\": \"$2\"}" \
		"$T/out" || { cat "$T/out" >&2; fail "$1: not in the JSON report"; }
}
check tag "2.0 waits for tag 11 from 3; 3.0 sent tag 10 to 2 (unreceived)" 3.0 4
check peer "2.0 waits for tag 10 from 3; 1.0 sent tag 10 to 2 (unreceived)" 1.0 2
check count "2.0 waits for 4 MPI_INT, tag 10 from 3; 3.0 sent 8 MPI_INT, tag 10 to 2 (another size)" \
	3.0 4

# no mismatch: a deadlock of two receives, and a halo exchange killed in its Waitall (its
# last messages sent, not yet received: they match)
"$MK" "$T/hung" hung || fail "mk_sync_rec hung"
"$MK" "$T/killed" killed 4 50 || fail "mk_sync_rec killed"
for r in hung killed; do
	expect_status 0 "$DT" import --run "$r" "$T/$r"
	expect_status 0 "$DT" hang "$r"
	grep -q 'mismatch' "$T/out" && { cat "$T/out" >&2; fail "$r: a mismatch named"; }
	expect_status 0 "$DT" hang --format json "$r"
	grep -q '"mismatches": \[\],' "$T/out" || { cat "$T/out" >&2; fail "$r: JSON mismatches"; }
done
pass
