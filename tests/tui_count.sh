#!/bin/sh
# A count before a motion, as in less and vim (issue 24, item 6): 5j moves five lines, 10G goes
# to line 10, 3j 2k one down, a count larger than the view stops at its end; and H and L scroll
# by words. Headless, on the hang view of a made-up record (tests/mk_sync_rec tag).
. "${abs_top_srcdir:-.}/tests/lib.sh"

need built
MK="$abs_top_builddir/tests/mk_sync_rec"
[ -x "$MK" ] || fail "tests/mk_sync_rec is not built"
"$MK" "$T/tag" tag || fail "mk_sync_rec tag"
expect_status 0 "$DT" import -q --run tag "$T/tag"
cur() { # KEYS...: the line under the cursor of the hang view after them
	printf '%s\n' : '"hang tag"' Enter "$@" > "$T/keys"
	"$DT" tui --script "$T/keys" --dump "$T/screen" --size 30x100 >/dev/null 2>"$T/err" ||
		fail "tui: $(cat "$T/err")"
	grep '^>' "$T/screen"
}
# the view opens on its first group (line 6, after the cause): 0-1 in MPI_Barrier
cur | grep -q '^> P 0-1 T 0 ' || { cat "$T/screen" >&2; fail "not on the first group"; }
cur 5 j | grep -q '^> 0\.0      waits for' || { cat "$T/screen" >&2; fail "5j"; }
cur 1 2 G | grep -q '^> 1\.0      waits for' || { cat "$T/screen" >&2; fail "12G"; }
cur 3 j 2 k | grep -q '^> 2\.0  *in MPI_Recv' || { cat "$T/screen" >&2; fail "3j 2k"; }
cur 9 9 9 j | grep -q '^> 2\.0 -> 3\.0 -> 2\.0$' || { cat "$T/screen" >&2; fail "999j"; }
cur 6 g | grep -q '^> P 0-1 T 0 ' || { cat "$T/screen" >&2; fail "6g"; }
# a count is used once: 5 j j is six lines down
cur 5 j j | grep -q '^> 1\.0      waits for' || { cat "$T/screen" >&2; fail "5j j"; }

# H and L scroll by the words of the selected line (issue 24, item 6), not by 8 columns:
# "2.0      waits for 3.0 (receive: ..." reads from "waits", then "for", then "waits" again
cur 1 3 G L | grep -q '^> waits for 3\.0 (receive: MPI_Recv' || { cat "$T/screen" >&2; fail "L"; }
cur 1 3 G L L | grep -q '^> for 3\.0 (receive:' || { cat "$T/screen" >&2; fail "L L"; }
cur 1 3 G L L H | grep -q '^> waits for 3\.0' || { cat "$T/screen" >&2; fail "L L H"; }
cur 1 3 G L H | grep -q '^> 2\.0      waits for' || { cat "$T/screen" >&2; fail "L H"; }
pass
