#!/bin/sh
# The interface's similarity matrix and filter views, headless on the planted-divergence text
# runs: heat map labels, shades and the cursor's cell (checked against 'difftrace jsm'), moving
# in two directions and scrolling a larger matrix, JSM_D of the marked pair and its diff, then
# choosing and applying filter families, a custom pattern (rejected with its column, or added to
# a family the analysis finds by name), the attribute mode and K.
. "${abs_top_srcdir:-.}/tests/lib.sh"

export XDG_CONFIG_HOME="$T/config"
custom="$XDG_CONFIG_HOME/difftrace/filters/custom-tui.filter"

# the runs of tests/cli_analysis.sh: in the faulty run thread 2.1 skips its critical section and
# process 3 does one more reduction
mk_planted "$T/normal" 0
mk_planted "$T/faulty" 1
expect_status 0 "$DT" import -q --run normal "$T/normal"
expect_status 0 "$DT" import -q --run faulty "$T/faulty"

# tui KEYS [OPTIONS]: runs the keys headless at 24x80; the screen is in $T/screen. The checks
# below are about every call (work, compute) and the paper's attributes, so the interface starts
# on the filter everything and sing.log10; DEFAULTS= starts it on the defaults.
DEFAULTS='--filter everything --attrs sing.log10'
tui() {
	keys=$1; shift
	printf '%s\n' "$keys" > "$T/keys"
	# shellcheck disable=SC2086
	expect_status 0 "$DT" tui $DEFAULTS "$@" --script "$T/keys" --dump "$T/screen"
}
row() { sed -n "$1p" "$T/screen"; }
title() { row 1; }
# the row under the title; a title too long for a row (the matrix's, with its legend) takes two
toff() { if row 2 | grep -q '^  .*legend: blank 0'; then echo 1; else echo 0; fi; }
header() { row $((2 + $(toff))); }
list_row() { row $(($1 + $(toff))); } # list_row N: row N of a one-row title's layout
status() { row 23; }
message() { row 24; }
screen_has() { grep -q -- "$1" "$T/screen" || { cat "$T/screen" >&2; fail "$2"; }; }
screen_lacks() { ! grep -q -- "$1" "$T/screen" || { cat "$T/screen" >&2; fail "$2"; }; }

# ---- the JSM of one run ----------------------------------------------------------------------
# with sing.actual, main threads differ by their loop counts: J(0.0, 3.0) = 0.6 in the faulty run
expect_status 0 "$DT" jsm --filter everything --attrs sing.actual --format csv faulty
j03=$(awk -F, '$1 == "0.0" { printf "%.4f", $8 }' "$T/out")
[ "$j03" = 0.6000 ] || fail "the data changed: J(0.0, 3.0) = $j03"
tui ': "jsm faulty" Enter wait l l l l l l l l h' --attrs sing.actual
title | grep -q "JSM of faulty  0\.0 x 3\.0 = $j03  (clusters " || { cat "$T/screen" >&2; fail "title: $(title)"; }
message | grep -q '^0\.0: class [0-9]*, cluster [0-9]*   3\.0: class [0-9]*, cluster [0-9]*   J = 0\.600000$' ||
	fail "message: $(message)"
# every column labelled (the matrix is narrow), the cursor's under a 'v'
header | grep -q '^  P\.T  0\.0  0\.1  1\.0  1\.1  2\.0  2\.1 v3\.0  3\.1$' || fail "header: $(header)"
for pt in 0.0 0.1 1.0 1.1 2.0 2.1 3.0 3.1; do
	grep -q "^[ >] $pt " "$T/screen" || fail "no row $pt"
done
# the cursor's cell framed in its row: 0.6 is '*' on the ASCII ramp, the diagonal 1 is '@'
list_row 3 | grep -q '^> 0\.0  @@@@ .*\[\*\*\*\*\]' || fail "cursor cell: $(list_row 3)"
screen_has '@@@@' "no diagonal shade"
status | grep -q '^ jsm  1/8 ' || fail "status: $(status)"
# h and l move the cursor here (the framework would go back, open); q still goes back
tui ': "jsm faulty" Enter wait h h l' --attrs sing.actual
status | grep -q '^ jsm ' || fail "h went back: $(status)"
title | grep -q ' 0\.0 x 0\.1 = 0\.0000 ' || fail "h l: $(title)"
tui ': "jsm faulty" Enter wait q'
status | grep -q '^ runs ' || fail "q did not go back: $(status)"
# the block characters on a UTF-8 terminal
utf8=$(locale -a 2>/dev/null | grep -i -m1 '^c\.utf-\?8$')
if [ -n "$utf8" ]; then
	(LC_ALL=$utf8 && export LC_ALL && tui ': "jsm faulty" Enter wait' --attrs sing.actual &&
	 grep -q '█' "$T/screen") || fail "no block shades in UTF-8: $(cat "$T/screen")"
fi

# ---- JSM_D of the marked pair -----------------------------------------------------------------
tui ': "jsm normal" Enter wait 3'
message | grep -q 'mark the normal and the faulty run first' || fail "3 without a pair: $(message)"
title | grep -q 'JSM of normal' || fail "3 without a pair changed the matrix: $(title)"
# :rank marks the pair; * finds the most changed pair: thread 2.1 against the other threads 1
tui ': "rank normal faulty" Enter wait : "jsm normal" Enter wait 3 wait *' --attrs sing.actual
title | grep -q 'JSM_D 0\.1 x 2\.1 = 1\.0000 (1\.000 -> 0\.000)  |faulty - normal|' ||
	{ cat "$T/screen" >&2; fail "JSM_D: $(title)"; }
list_row 4 | grep -q '^> 0\.1 ' || fail "cursor row: $(list_row 4)"
# the main thread of process 3: 0.6 in the faulty run, 1 in the normal one
tui ': "rank normal faulty" Enter wait : "jsm faulty" Enter wait 3 wait l l l l l l' --attrs sing.actual
title | grep -q 'JSM_D 0\.0 x 3\.0 = 0\.4000 (1\.000 -> 0\.600)' || fail "JSM_D value: $(title)"
message | grep -q '|0\.600000 - 1\.000000| = 0\.400000$' || fail "JSM_D message: $(message)"
# 1 and 2 switch to the pair's own matrices, keeping the cursor on the same traces
tui ': "rank normal faulty" Enter wait : "jsm faulty" Enter wait 3 wait l l l l l l 1' --attrs sing.actual
title | grep -q 'JSM of normal  0\.0 x 3\.0 = 1\.0000' || fail "1: $(title)"
# Enter on a JSM_D cell: the row's trace, normal against faulty
tui ': "rank normal faulty" Enter wait : "jsm normal" Enter wait 3 wait j j j j j Enter wait'
status | grep -q '^ diff ' || { cat "$T/screen" >&2; fail "Enter did not open the diff: $(status)"; }
title | grep -q 'normal 2\.1.*faulty 2\.1' || fail "diff of the wrong traces: $(title)"

# ---- a matrix larger than the screen: 60 processes x 2 threads --------------------------------
mkdir "$T/big"
p=0
while [ $p -lt 60 ]; do
	printf 'MPI_Init\n[ret]\nf%d\n[ret]\n' $((p % 7)) > "$T/big/$p.0.txt"
	printf 'work\n[ret]\ng%d\n[ret]\n' $((p % 5)) > "$T/big/$p.1.txt"
	p=$((p + 1))
done
expect_status 0 "$DT" import -q --run big "$T/big"
tui ': "jsm big" Enter wait G $'
title | grep -q 'JSM of big  59\.1 x 59\.1 = 1\.0000' || fail "G \$: $(title)"
header | grep -q '^  <.* 59\.1v$' || fail "columns not scrolled: $(header)"
row 22 | grep -q '^> 59\.1 .*\[@\]$' || fail "last row: $(row 22)"
status | grep -q '^ jsm  120/120 ' || fail "status: $(status)"
# zoomed out to fit, a cell is a block; Enter zooms back in on it
tui ': "jsm big" Enter wait = j'
title | grep -q 'JSM of big 1:6  3\.0\.\.5\.1 x 0\.0\.\.2\.1  mean ' || fail "zoom: $(title)"
status | grep -q '^ jsm  2/20 ' || fail "zoomed rows: $(status)"
tui ': "jsm big" Enter wait = j Enter'
title | grep -q 'JSM of big  3\.0 x 0\.0 = ' || fail "Enter did not zoom in: $(title)"

# ---- the filters view -------------------------------------------------------------------------
tui 'f'
title | grep -q 'filter families' || fail "f: $(title)"
header | grep -q '^  filter 11\.1  attrs sing\.log10  K 10  (in use)  = everything$' || fail "header: $(header)"
screen_has '^  \[x\] everything   bit 15   1 pattern ' "everything is not chosen"
screen_has '^  \[ \] mpi          bit  7   2 patterns ' "mpi line"
# choose mpi instead of everything: the pending alias, then applied
tui 'f / "mpi " Enter Space / "everything" Enter Space'
header | grep -q '^  filter 11\.mpi\.0  attrs sing\.log10  K 10  \* a applies  = mpi$' || fail "pending: $(header)"
screen_has '^> \[ \] everything ' "everything still chosen"
tui 'f / "mpi " Enter Space / "everything" Enter Space a wait'
status | grep -q 'filter mpi  attrs sing\.log10  K 10' || fail "not applied: $(status)"
header | grep -q '(in use)' || fail "header after applying: $(header)"
tui 'f / "mpi " Enter Space / "everything" Enter Space a wait q Enter wait'
title | grep -q 'classes of normal  (filter 11\.mpi\.0K10' || fail "the classes are not recomputed: $(title)"
# the defaults: ompall and mpi chosen, MPI arguments in the attributes; A toggles them
DEFAULTS= tui 'f'
header | grep -q '^  filter 11\.mpi\.ompall\.0  attrs sing\.log10\.args  K 10  (in use)  = mpi,ompall$' ||
	fail "default header: $(header)"
screen_has '^  \[x\] ompall ' "ompall is not chosen by default"
DEFAULTS= tui 'f A'
header | grep -q '^  filter 11\.mpi\.ompall\.0  attrs sing\.log10  K 10  \* a applies' || fail "A: $(header)"
DEFAULTS= tui 'f A m'
header | grep -q 'attrs sing\.actual  K 10' || fail "m after A: $(header)"
tui 'f A m a wait'
status | grep -q 'filter everything  attrs sing\.actual\.args  K 10' || fail "A applied: $(status)"
# the patterns of a family
tui 'f / "mpi " Enter p'
screen_has '^        include  \^MPI_$' "p does not show the patterns"

# a custom pattern: rejected with its column, then added to custom-tui and found by the analysis
tui 'f c "MPI_(Send" Enter'
message | grep -q '^pattern rejected: column 10: missing closing parenthesis' || fail "bad pattern: $(message)"
screen_has 'custom pattern (c): MPI_(Send  -> column 10: ' "the custom line"
[ -e "$custom" ] && fail "a rejected pattern was written"
tui 'f c "^MPI_All" Enter'
message | grep -q '^added to custom-tui: matches 1 of [0-9]* function names (MPI_Allreduce)' || fail "add: $(message)"
screen_has '^> \[x\] custom-tui   bit  -   1 pattern ' "custom-tui is not chosen"
grep -q '^include: \^MPI_All$' "$custom" || fail "family file: $(cat "$custom")"
header | grep -q 'filter 11\.custom-tui\.1 ' || fail "custom alias: $(header)"
expect_status 0 "$DT" classes --filter custom-tui normal
tui 'f / "custom-tui " Enter Space / "everything" Enter Space a wait q Enter wait'
title | grep -q '(filter 11\.custom-tui\.0K10' || fail "custom filter not applied: $(title)"
# D removes the interface's own patterns only
tui 'f / "everything" Enter D'
message | grep -q 'D removes patterns of family custom-tui only' || fail "D on a shipped family: $(message)"
tui 'f / "custom-tui " Enter D "y" Enter'
[ -e "$custom" ] && fail "D did not remove the family"
screen_lacks 'custom-tui   bit' "the removed family is still listed"

# attributes and K: pending until applied, u forgets them
tui 'f m + +'
header | grep -q 'attrs sing\.actual  K 12  \* a applies' || fail "m + +: $(header)"
tui 'f M M K C-u "3" Enter a wait'
status | grep -q 'attrs sing\.orig  K 3' || fail "M M K: $(status)"
tui 'f m m m m K C-u "40" Enter'
message | grep -q 'K goes from 1 to 32' || fail "K 40: $(message)"
header | grep -q 'attrs doub\.log10\.w  K 10' || fail "cycle to doub: $(header)"
tui 'f m + u'
header | grep -q 'attrs sing\.log10  K 10  (in use)' || fail "u: $(header)"
pass
