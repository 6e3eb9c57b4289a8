#!/bin/sh
# The timeline's time rows show durations as bars (issue 24, item 6): between a call's entry and
# its exit the lane is drawn as a bar, and a call that never returned (a blocked one) runs to
# the last row; the step rows stay as they were. Headless, on a made-up record of a tag
# mismatch (tests/mk_sync_rec tag), in the UTF-8 and the C locale.
. "${abs_top_srcdir:-.}/tests/lib.sh"

need built
MK="$abs_top_builddir/tests/mk_sync_rec"
[ -x "$MK" ] || fail "tests/mk_sync_rec is not built"
"$MK" "$T/tag" tag || fail "mk_sync_rec tag"
expect_status 0 "$DT" import -q --run tag "$T/tag"
ui() { # LOCALE KEYS...
	loc=$1
	shift
	printf '%s\n' : '"timeline tag"' Enter "$@" > "$T/keys"
	LC_ALL=$loc "$DT" tui --script "$T/keys" --dump "$T/screen" --size 24x80 >/dev/null \
		2>"$T/err" || fail "tui: $(cat "$T/err")"
}
has() { grep -q -- "$1" "$T/screen" || { cat "$T/screen" >&2; fail "screen lacks '$1'"; }; }
hasnt() { grep -q -- "$1" "$T/screen" && { cat "$T/screen" >&2; fail "screen has '$1'"; }; return 0; }
ui C t
# 3.0's first send, entered at 0.008 ms and returned at 0.010 ms: a bar at 0.009 ms
has '^      0\.008ms |          |          |          |Send(>2$'
has '^      0\.009ms |          |          |Recv(     | :$'
has '^      0\.010ms |          |          | :        |Send)$'
# the calls that never returned run to the last row: 0.0's barrier, 2.0's receive, 3.0's send
has '^      0\.015ms | :        |Barrier(  | :        | :$'
# a lane between its calls has none
has '^      0\.011ms |          |          |Recv)<3   |$'
ui C.UTF-8 t
has '^      0\.015ms │ ┃        │Barrier(  │ ┃        │ ┃$'
# the step rows have no bars
ui C
hasnt ' :  '
pass
