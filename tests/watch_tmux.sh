#!/bin/sh
# The live screen of difftrace watch in a real terminal (tmux, 80x24): it shows each rank's
# call on a recording in progress (written by test_live --make), refreshes by itself (the
# time in the call grows between two captures, past several refreshes), g groups the
# threads, ? shows the keys, NO_COLOR is honoured, q quits, and TERM=dumb is refused.
. "${abs_top_srcdir:-.}/tests/lib.sh"
command -v tmux >/dev/null || skip "tmux is not installed"
[ -x "$abs_top_builddir/tests/test_live" ] || fail "tests/test_live not built"
"$abs_top_builddir/tests/test_live" --make "$T/rec" || fail "cannot make the recording"

. "${abs_top_srcdir:-.}/tests/tmux.sh"
ui=ui
secs() { # the seconds 0.0 has been in its call, as shown
	sed -n 's/^0\.0 *\([0-9]*\)\.\([0-9]\)s .*/\1\2/p' "$T/screen" | head -n 1
}

tm -f /dev/null new-session -d -s ui -x 80 -y 24 \
	"TERM=xterm-256color NO_COLOR=1 '$DT' watch --interval 0.2 '$T/rec'; echo EXITED \$?; sleep 30"
wait_for '^0\.0 .* in MPI_Recv (1st) src=1 tag=5'
grep -q '^1\.0 .* not in a recorded call (after MPI_Init, 1st)' "$T/screen" || { cat "$T/screen" >&2; fail "1.0 not outside"; }
grep -q 'q:Quit' "$T/screen" || fail "no key bar"
[ "$(awk 'length > 80' "$T/screen" | wc -l)" -eq 0 ] || fail "rows wider than 80"
a=$(secs)
# past several refreshes the time in the call has grown (no duration is asserted)
sleep 1.5
screen
b=$(secs)
[ -n "$a" ] && [ -n "$b" ] && [ "$b" -gt "$a" ] || { cat "$T/screen" >&2; fail "the time did not grow: '$a' then '$b'"; }
tm send-keys -t ui g
wait_for 'g:Group (always)'
wait_for '^0\.0 .* in MPI_Recv'
grep -q 'LONGEST' "$T/screen" || { cat "$T/screen" >&2; fail "not grouped"; }
tm send-keys -t ui '?'
wait_for 'keys of difftrace watch'
tm send-keys -t ui Space
wait_for '^0\.0 .* in MPI_Recv'
tm send-keys -t ui q
wait_for 'EXITED 0'
# a terminal that cannot move its cursor is refused, with the way out
ui=dumb
tm new-session -d -s dumb -x 80 -y 24 \
	"TERM=dumb '$DT' watch '$T/rec'; echo EXITED \$?; sleep 30"
wait_for 'EXITED 2'
grep -q "the terminal 'dumb' cannot move its cursor: use --once" "$T/screen" || { cat "$T/screen" >&2; fail "TERM=dumb not refused"; }
pass
