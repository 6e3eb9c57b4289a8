#!/bin/sh
# The interface's ranking and diff views, headless, on text runs with a planted divergence (as
# in cli_analysis.sh: thread 2.1 skips its critical section in the faulty run, process 3 does
# one more reduction): the planted trace ranked first, Enter opening its diff, the gutter
# markers, ] and [ on changes, loops opened and closed, folded common runs, the search in both
# panes (/ and ?), Left and Right scrolling, the pairs, and the sweep table once 'rank --sweep' cached other settings.
. "${abs_top_srcdir:-.}/tests/lib.sh"

# The P.0 traces start with a run of distinct calls, so that a diff has common entries to fold.
mk_planted "$T/normal" 0 setup
mk_planted "$T/faulty" 1 setup
expect_status 0 "$DT" import -q --run normal "$T/normal"
expect_status 0 "$DT" import -q --run faulty "$T/faulty"

# tui KEYS... [-- OPTIONS]: runs the keys headless at 24x80, the screen in $T/dump. The diffs
# below are about the worker's loop body (work, GOMP_critical_*), so the filter keeps every
# call and the attributes are the paper's sing.log10; DEFAULTS= runs with the defaults.
DEFAULTS='--filter everything --attrs sing.log10'
tui() {
	: > "$T/script"
	while [ $# -gt 0 ] && [ "$1" != -- ]; do printf '%s\n' "$1" >> "$T/script"; shift; done
	[ $# -gt 0 ] && shift
	# shellcheck disable=SC2086
	expect_status 0 "$DT" tui --script "$T/script" --dump "$T/dump" $DEFAULTS "$@"
}
show() { cat "$T/dump" >&2; }
# has REGEX WHAT: the screen has a line matching REGEX
has() { grep -q -- "$1" "$T/dump" || { show; fail "$2"; }; }
hasnt() { grep -q -- "$1" "$T/dump" && { show; fail "$2"; }; return 0; }
cursor() { grep '^> ' "$T/dump"; }

# --- the ranking: nothing cached yet, both analyses computed in the background -------------
tui wait -- --normal normal --faulty faulty
has '^difftrace: ranking faulty against normal' "no ranking view"
hasnt 'computing' "still computing after the background work ended"
has 'B-score 0\.[0-9][0-9][0-9]  8 traces matched  0 only in normal  0 only in faulty' "summary"
has 'filter 11\.1K10  attributes sing\.log10  K 10' "setting"
# the first ranked trace is the planted one, under the cursor, with a full bar (LC_ALL=C: '#')
first=$(grep -A1 '# TRACE' "$T/dump" | sed -n 2p)
echo "$first" | grep -q '^>  *1 2\.1 .*################' || { show; fail "2.1 not ranked first: $first"; }
has '^  *3 2\.1 *3\.1  *1\.000' "pairs"
has "no sweep table" "a sweep with one setting"

# --- Enter on the top trace: its diff, normal against faulty --------------------------------
tui Enter -- --normal normal --faulty faulty
has '^difftrace: diff normal 2\.1 | faulty 2\.1' "Enter does not open the diff of 2.1"
has 'left normal 2\.1  right \[faulty 2\.1\]:  1 changed, 0 only left, 0 only right' "header"
# a loop whose body changed: one changed row, marked, its body previewed
has '^> L[0-9]*^20 (work - GOMP_critical_start.* | L[0-9]*^20 (work)$' "changed loop row"

# Enter opens the loop: both bodies under it, aligned, the missing calls marked '<'
tui Enter Enter -- --normal normal --faulty faulty
has '^    work  *  work$' "common body line"
has '^    GOMP_critical_start  *<$' "Enter shows no body line only on the left"
has '^    GOMP_critical_end  *<$' "body end"
# o closes it again; * opens all, z closes all
tui Enter Enter o -- --normal normal --faulty faulty
hasnt 'GOMP_critical_start  *<' "o does not close the loop"
tui Enter '*' -- --normal normal --faulty faulty
has '^    GOMP_critical_start  *<$' "* does not open the loops"
tui Enter '*' z -- --normal normal --faulty faulty
hasnt 'GOMP_critical_start  *<' "z does not close the loops"

# the other way round, the calls are only on the right: '>'
tui : '"diff faulty:2.1 normal:2.1"' Enter Enter
has '^ *> *GOMP_critical_start$' "no '>' marker"

# --- ] and [ on a count change in 3.0, after ten common entries -------------------------------
tui : '"diff normal:3.0 faulty:3.0"' Enter ']'
[ "$(cursor)" = "$(grep '^> L[0-9]*^20 .* | L[0-9]*^21 ' "$T/dump")" ] && [ -n "$(cursor)" ] ||
	{ show; fail "] does not land on the changed row"; }
tui : '"diff normal:3.0 faulty:3.0"' Enter ']' ']'
has 'no change below' "] past the last change says nothing"
tui : '"diff normal:3.0 faulty:3.0"' Enter G '['
cursor | grep -q 'L[0-9]*^20 .* | L[0-9]*^21' || { show; fail "[ does not go back to the change"; }
tui : '"diff normal:3.0 faulty:3.0"' Enter ']' '['
has 'no change above' "[ before the first change says nothing"
tui : '"diff normal:0.0 faulty:0.0"' Enter ']'
has ':  identical$' "identical header"
has 'no change: the two traces are the same' "] on identical traces"
hasnt '^[> ] [^ ].* [|<>] ' "identical traces show markers"

# --- = folds the common run before the change (3 entries of context kept) ----------------------
tui : '"diff normal:3.0 faulty:3.0"' Enter =
has '\.\.\. 7 identical entries \.\.\.$' "= does not fold the common run"
hasnt 'setup_a' "the folded entries are still shown"
has '^  setup_f  *setup_f$' "the context before the change is folded too"
has 'folded 7 identical entries in 1 runs' "fold message"
# Enter on the fold line shows what it hides; = again unfolds all
tui : '"diff normal:3.0 faulty:3.0"' Enter = g Enter
hasnt 'identical entries \.\.\.' "Enter does not unfold"
has '^> main  *main$' "unfolded: the cursor stays on the first row"
tui : '"diff normal:3.0 faulty:3.0"' Enter = =
hasnt 'identical entries \.\.\.' "= twice still folds"

# --- search both panes, the focused one first; ? searches upwards -----------------------------
tui Enter Enter / '"critical_end"' Enter -- --normal normal --faulty faulty
has '/critical_end in the left pane, normal 2\.1' "the search does not look in the left pane"
cursor | grep -q 'GOMP_critical_end  *<' || { show; fail "search in both panes"; }
tui Enter Enter / '"nothing_calls_this"' Enter -- --normal normal --faulty faulty
has 'not found in either pane: /nothing_calls_this' "not found"
tui Enter Enter Tab / '"critical_end"' Enter -- --normal normal --faulty faulty
has 'left \[normal 2\.1\]  right faulty 2\.1' "Tab does not move the focus"
cursor | grep -q 'GOMP_critical_end  *<' || { show; fail "search in the left pane"; }
# ? from the top wraps to the last match; n keeps going up, N goes down
tui Enter Enter g '?' '"GOMP_critical"' Enter -- --normal normal --faulty faulty
cursor | grep -q 'GOMP_critical_end  *<' || { show; fail "? does not find the last match"; }
has '?GOMP_critical in the left pane' "? message"
tui Enter Enter g '?' '"GOMP_critical"' Enter n -- --normal normal --faulty faulty
cursor | grep -q 'GOMP_critical_start  *<' || { show; fail "n after ? does not go up"; }
tui Enter Enter g '?' '"GOMP_critical"' Enter n N -- --normal normal --faulty faulty
cursor | grep -q 'GOMP_critical_end  *<' || { show; fail "N after ? does not go down"; }
# Left and Right scroll the focused pane; q still goes back
tui Enter Enter Right Right -- --normal normal --faulty faulty
has '^difftrace: diff normal 2\.1' "Right left the diff view"
tui Enter Enter Right Left Left q -- --normal normal --faulty faulty
has '^difftrace: ranking' "q does not go back from the diff"

# --- pairs: Tab goes to them; Enter diffs the two traces in the faulty run, p in the normal one
tui Tab -- --normal normal --faulty faulty
cursor | grep -q '^>  *1 [0-3]\.1 *2\.1 ' || { show; fail "Tab does not go to the pairs"; }
tui Tab Enter -- --normal normal --faulty faulty
has '^difftrace: diff faulty 0\.1 | faulty 2\.1' "Enter on a pair"
has '|' "pair diff marks no change"
tui Tab p -- --normal normal --faulty faulty
has '^difftrace: diff normal 0\.1 | normal 2\.1' "p on a pair"
has ':  identical$' "0.1 and 2.1 were the same in the normal run"
tui : '"rank normal faulty"' Enter
has '^>  *1 2\.1 ' ":rank does not open the ranking"

# --- the defaults: OpenMP and MPI calls, MPI arguments; the planted trace first -------------
DEFAULTS= tui wait -- --normal normal --faulty faulty
has 'filter 11\.mpi\.ompall\.0K10  attributes sing\.log10\.args  K 10' "default setting"
grep -A1 '# TRACE' "$T/dump" | sed -n 2p | grep -q '^>  *1 2\.1 ' || { show; fail "defaults: 2.1 not first"; }

# --- the sweep table, once rank --sweep cached other settings ---------------------------------
expect_status 0 "$DT" rank --normal normal --faulty faulty --sweep \
	--sweep-filters 'everything;ompall' --sweep-attrs sing.orig,doub.actual
tui wait -- --normal normal --faulty faulty --size 40x100
has 'sweep over 6 settings cached for both runs, lowest B-score first' "no sweep table"
hasnt "no sweep table" "the sweep hint stays"
has '^  \* .* 11\.1K10  *sing\.log10  *10 ' "the current setting is not marked"
# lowest B-score first
awk '/B-SCORE/ { on = 1; next } on && !NF { exit } on { print ($1 == "*" ? $2 : $1) }' \
	"$T/dump" > "$T/b"
[ "$(wc -l < "$T/b")" = 6 ] || { show; fail "sweep rows: $(cat "$T/b")"; }
sort -n "$T/b" | cmp -s - "$T/b" || { show; fail "sweep not sorted by B-score: $(cat "$T/b")"; }
# Tab Tab: the first sweep row; Enter switches the interface to it and stays on it
tui Tab Tab Enter -- --normal normal --faulty faulty --size 40x100
set -- $(sed -n 1p "$T/b")
cursor | grep -q "^> \\*  *$1 " || { show; fail "the cursor left the chosen sweep row"; }
row=$(cursor)
f=$(echo "$row" | awk '{ print $4 }')
a=$(echo "$row" | awk '{ print $5 }')
has "^now filter .* ($f), attributes $a, K 10$" "Enter on a sweep row: message"
has " rank .*attrs $a  K 10" "Enter on a sweep row: the status line"
tui Tab Tab Enter g -- --normal normal --faulty faulty --size 40x100
has "^> filter $f  attributes $a  K 10" "Enter on a sweep row does not switch the setting"

pass
