#!/bin/sh
# The interface's framework, headless: the runs view, classes, traces, help, search, writing a
# view, ':' commands, changing the filter (the analysis is recomputed in the background), an
# analysis first computed under another linkage shown under ward as the commands show it, an
# 80x24 screen, NO_COLOR and a non-UTF-8 locale.
. "${abs_top_srcdir:-.}/tests/lib.sh"

expect_status 0 "$DT" import -q --run normal "$abs_top_srcdir/examples/traces/normal"
expect_status 0 "$DT" import -q --run faulty "$abs_top_srcdir/examples/traces/faulty"
ui() { # keys... : runs the interface on them; the screen is in $T/screen
	printf '%s\n' "$@" > "$T/keys"
	"$DT" tui --script "$T/keys" --dump "$T/screen" --size "${SIZE:-24x80}" > "$T/out" 2> "$T/err" ||
		fail "tui exited $?: $(cat "$T/err")"
}
has() { grep -q -- "$1" "$T/screen" || { cat "$T/screen" >&2; fail "screen lacks '$1'"; }; }
hasnt() { grep -q -- "$1" "$T/screen" && { cat "$T/screen" >&2; fail "screen has '$1'"; }; return 0; }

# the runs view opens first, 80x24, with both runs and the cursor on the first
ui
[ "$(wc -l < "$T/screen")" -eq 24 ] || fail "not 24 rows"
awk 'length > 80 { exit 1 }' "$T/screen" || fail "a row wider than 80"
has '^difftrace: runs in '
has '^>   normal  *4  *218 '
has '^    faulty  *4  *198 '
# the default parameters: the OpenMP and MPI calls, MPI arguments in the attributes
has 'runs  1/2  filter ompall,mpi  attrs sing.log10.args  K 10'

# Enter opens the classes of a run (computed in the background, then shown)
ui j Enter wait
has '^difftrace: classes of faulty'
has '4 classes of traces with identical attribute sets'
has 'P 1 T 1'
# and Enter on a class lists its traces; q goes back
ui j Enter wait j Enter
has '^difftrace: class 0 of faulty'
has '^> 0.0  *17336 '
ui j Enter wait j Enter q
has '^difftrace: classes of faulty'

# help lists the view's keys and the common ones
SIZE=50x80 ui F1
has 'Keys of the runs view'
has 'mark the run as the normal'
has 'search down, up (PCRE2'

# search: lands on the matching line; n finds the next; a bad pattern names its column
ui / '"faulty"' Enter
has '^>   faulty'
ui t wait / '"1\\.0"' Enter
has '^> 1\.0 '
ui / '"(x"' Enter
has 'bad pattern at column 3'

# ? searches upwards, as in less; n goes on upwards, N down; ? and Enter before any search
# still opens the help
ui G '?' '"normal"' Enter
has '^>   normal'
has '?normal'
ui '?' Enter
has 'Keys of the runs view'
ui t wait G '?' '"0\\.[01]"' Enter
has '^> 0\.1 '
ui t wait G '?' '"0\\.[01]"' Enter n
has '^> 0\.0 '
ui t wait G '?' '"0\\.[01]"' Enter n N
has '^> 0\.1 '

# marks: m and a letter, then ' and the letter back to the line; '' back where the jump began
ui t wait j j m a G "'" a
has '^> 1\.0 '
has 'mark a: line 3'
ui t wait j j m a G "'" a "'" "'"
has '^> 1\.1 '
ui t wait "'" b
has "no mark b in this view"

# help wraps at the width of the screen instead of cutting its lines
SIZE=50x80 ui F1
awk 'length > 80 { exit 1 }' "$T/screen" || fail "a help row wider than 80"
grep -q '^  *lattice RUN, jsm RUN' "$T/screen" || { cat "$T/screen" >&2; fail "help not wrapped"; }
grep -q '~$' "$T/screen" && { cat "$T/screen" >&2; fail "a help line is cut"; }
# a long title takes a second row (the similarity matrix's ends in its legend)
ui : '"jsm normal"' Enter wait
sed -n 2p "$T/screen" | grep -q 'legend: blank 0, then' || { cat "$T/screen" >&2; fail "title not wrapped"; }
# the classes view has column headers
ui j Enter wait
has '^  CLASS   SIZE  TRACES'
# the filters view says where a custom pattern is saved
XDG_CONFIG_HOME="$T/cfg" SIZE=24x200 ui : '"filters"' Enter
has "saved in $T/cfg/difftrace/filters/custom-tui.filter"

# U in the trace view runs uftrace tui on the trace's own recording ($UFTRACE stands in for it)
printf '#!/bin/sh\necho "$@" > "%s/uf-args"\n' "$T" > "$T/fakeuf"
chmod +x "$T/fakeuf"
# (wide: the message holds the recording's path, long in a distcheck build)
UFTRACE="$T/fakeuf" SIZE=24x400 ui : '"trace normal 1.1"' Enter wait U
grep -q "^tui -d $abs_top_srcdir/examples/traces/normal/rank-1 --tid [0-9][0-9]*\$" "$T/uf-args" ||
	fail "uftrace tui arguments: $(cat "$T/uf-args" 2>&1)"
has 'uftrace tui -d .*/rank-1 --tid [0-9]* ended'
expect_status 0 "$DT" import -q --run small "$DATA/text/small"
UFTRACE="$T/fakeuf" ui : '"trace small 0.0"' Enter wait U
has 'run small was not recorded with uftrace'
expect_status 0 "$DT" rm small

# w writes the view as text
ui w C-u "\"$T/runs.txt\"" Enter
grep -q '^  RUN  *TRACES' "$T/runs.txt" || fail "w wrote: $(cat "$T/runs.txt")"
grep -q '^  normal  *4 ' "$T/runs.txt" || fail "w lines"

# ':' commands: open views, change the filter (recomputed in the background)
ui : '"classes normal"' Enter wait
has '^difftrace: classes of normal'
ui : '"filter mpi"' Enter : '"classes faulty"' Enter wait
has 'filter mpi '
has 'filter 11.mpi.0K10'
ui : '"nonsense"' Enter
has "unknown command ':nonsense'"
ui : '"attrs sung"' Enter
has "attrs sing.log10.args"
has "bad attribute mode 'sung'"
ui : '"attrs doub.actual+args"' Enter
has "attrs doub.actual.w.args "
ui : '"attrs sing.orig"' Enter
has "attrs sing.orig  K"

# marking the pair in the runs view (1 then 2 on another run) and opening its ranking
ui 1 j 2
has '^  N normal'
has '^> F faulty'
ui 1 j 2 r wait
has '^difftrace: ranking faulty against normal'

# a custom filter pattern is checked as it is typed (the screen is taken inside the prompt)
ui f c '"MPI_(Al"'
has 'column 8: missing closing parenthesis'
has 'custom pattern (PCRE2): MPI_(Al'
ui f c '"MPI_Al"'
has 'matches 1 of .* function names (MPI_Allreduce)'

# other sizes, no colour, no UTF-8: still readable
SIZE=40x120 ui j Enter wait
[ "$(wc -l < "$T/screen")" -eq 40 ] || fail "not 40 rows"
has 'classes of faulty'
NO_COLOR=1 LANG=C LC_ALL=C ui Resize j Enter wait
has '4 classes of traces'
# an analysis first computed under another linkage shows its classes under the interface's,
# ward, as the commands show it under theirs
expect_status 0 "$DT" analyze --force --linkage single normal
ui : '"classes normal"' Enter wait
has 'clusters (ward linkage on 1 - Jaccard)'
# Q quits from anywhere; the program ends by itself when the script ends
ui j Enter wait Q
pass
