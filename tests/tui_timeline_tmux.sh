#!/bin/sh
# The timeline and hang views in a real 80x24 terminal (tmux): opened from the keyboard, the
# screen read after waiting past the input timeout (the idle redraw must leave the lanes, the
# footer and the cursor as they were), moved, and left. Made-up sync recordings
# (tests/mk_sync_rec.c), so no MPI is needed.
. "${abs_top_srcdir:-.}/tests/lib.sh"
command -v tmux >/dev/null || skip "tmux is not installed"

MK="$abs_top_builddir/tests/mk_sync_rec"
[ -x "$MK" ] || fail "tests/mk_sync_rec is not built"
"$MK" "$T/ok" ok && "$MK" "$T/hung" hung || fail "mk_sync_rec failed"
expect_status 0 "$DT" import -q --run ok "$T/ok"
expect_status 0 "$DT" import -q --run hung "$T/hung"
. "${abs_top_srcdir:-.}/tests/tmux.sh"
has() { grep -q -- "$1" "$T/screen" || { cat "$T/screen" >&2; fail "screen lacks '$1'"; }; }

tm -f /dev/null new-session -d -s ui -x 80 -y 24 \
	"TERM=xterm-256color LC_ALL=C DIFFTRACE_DB='$DIFFTRACE_DB' '$DT' tui; echo EXITED \$?; sleep 30"
wait_for 'difftrace: runs in'
# T on the first run (ok) opens its timeline
tm send-keys -t ui T
wait_for 'timeline of ok: 4 traces, 14 steps'
sleep 1 # past the 100 ms input timeout, several idle redraws
screen
has '^    STEP >0\.0        0\.1        1\.0        2\.0'
has '^>      1 \[Init(     ]crit_in(  |Init('
has '^0\.0 #0 MPI_Init enter (step 1)'
[ "$(awk 'length > 80' "$T/screen" | wc -l)" -eq 0 ] || fail "rows wider than 80"
tm send-keys -t ui ']' ']' ']'
wait_for '^0\.0 #3 MPI_Recv exit (step 4)'
sleep 1
screen
has '^>      4 \[Recv)<1   ]'
has '^       3 |Recv(     |crit_out( @Send(>0'
has '^waited for: SEND(0, 1, 0, 5, 1) = 1\.0 #2 MPI_Send enter'
# Left and Right move between lanes (q, not Left, goes back here)
tm send-keys -t ui Right Right
wait_for '^    STEP  0\.0        0\.1       >1\.0'
tm send-keys -t ui q
wait_for 'difftrace: runs in'
# S on the second run (hung): the hang report; Enter: the timeline at the thread's last event
tm send-keys -t ui j S
wait_for 'where each thread of hung is at the end'
sleep 1
screen
has '^> P 0-1 T 0  *in MPI_Recv (1st)'
tm send-keys -t ui Enter
wait_for '^0\.0 #2 MPI_Recv enter (step 3)'
tm send-keys -t ui Q
wait_for 'EXITED 0'
pass
