#!/bin/sh
# A diff without a setting is shown under the one the diagnosis chooses (dg_diff_setting), from
# the command line and from the interface alike: two traces the default filter sees as
# identical are shown under every call when that sees a difference, and the filter is named
# (`diff` and `:diff`).
. "${abs_top_srcdir:-.}/tests/lib.sh"
. "$abs_top_srcdir/tests/rank_runs.sh"

MK="$abs_top_builddir/tests/mk_sync_rec"
[ -x "$MK" ] || fail "tests/mk_sync_rec is not built"
# view KEYS...: the interface headless on those keys, the screen in $T/screen
view() {
	printf '%s\n' "$*" > "$T/keys"
	expect_status 0 "$DT" tui --script "$T/keys" --dump "$T/screen" --size 40x220
}
has() { grep -q -- "$1" "$T/screen" || fail "$2: $(cat "$T/screen")"; }
hasnt() { grep -q -- "$1" "$T/screen" && fail "$2: $(cat "$T/screen")"; return 0; }

# --- the default filter blind: shown under every call, said, in the interface as in diff ----
for k in normal own; do
	mk "$T/$k" $k
	expect_status 0 "$DT" import -q --run $k "$T/$k"
done
expect_status 0 "$DT" diff normal:2.1 own:2.1
grep -q '^# filter 11\.mpi\.ompall\.0K10 sees no difference between these traces; every call does' "$T/out" ||
	fail "diff, blind filter: $(cat "$T/out")"
view : '"diff normal:2.1 own:2.1"' Enter wait
has '^difftrace: diff normal 2\.1 | own 2\.1' ":diff opened no diff"
has ':  1 changed, 0 only left, 9 only right  (filter 11\.mpi\.ompall\.0K10 sees no difference; every call does: under filter everything)' \
	":diff, blind filter: not said"
has 'work_b' ":diff, blind filter: not under every call"
hasnt ':  identical' ":diff, blind filter: identical"
# traces identical under every call too stay identical, with no remark
view : '"diff normal:1.1 own:1.1"' Enter wait
has 'right \[own 1\.1\]:  identical$' ":diff of identical traces"

pass
