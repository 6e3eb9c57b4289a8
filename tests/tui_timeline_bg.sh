#!/bin/sh
# The timeline and hang views compute in the background: in a real 80x24 terminal (tmux), each
# opens at once with a line saying what it computes, answers the keys while its work is not done
# (F1 and q, T from the hang view, Q quits), and shows its content by itself once the work ends,
# without a key. DIFFTRACE_TUI_TASK_HOLD keeps the work from ending until a file exists, so that
# the test sees the view before its work is done whatever the machine's speed. Made-up sync
# recordings (tests/mk_sync_rec.c), so no MPI is needed.
. "${abs_top_srcdir:-.}/tests/lib.sh"
command -v tmux >/dev/null || skip "tmux is not installed"

MK="$abs_top_builddir/tests/mk_sync_rec"
[ -x "$MK" ] || fail "tests/mk_sync_rec is not built"
"$MK" "$T/ok" ok && "$MK" "$T/hung" hung || fail "mk_sync_rec failed"
expect_status 0 "$DT" import -q --run ok "$T/ok"
expect_status 0 "$DT" import -q --run hung "$T/hung"
. "${abs_top_srcdir:-.}/tests/tmux.sh"
hasnt() { grep -q -- "$1" "$T/screen" && { cat "$T/screen" >&2; fail "screen has '$1'"; }; return 0; }
start() {
	tm -f /dev/null new-session -d -s ui -x 80 -y 24 \
		"TERM=xterm-256color LC_ALL=C DIFFTRACE_TUI_TASK_HOLD='$T/go' DIFFTRACE_DB='$DIFFTRACE_DB' '$DT' tui; echo EXITED \$?; sleep 30"
	wait_for 'difftrace: runs in'
}

start
# the timeline opens at once and says it computes
tm send-keys -t ui T
wait_for '^difftrace: timeline of ok'
wait_for 'computing the timeline of ok'
wait_for '^    held until .*go exists'
sleep 0.5 # idle redraws: still computing, the line stays
screen
hasnt 'STEP'
# the keys work meanwhile: help, back to the view, back to the runs
tm send-keys -t ui F1
wait_for '^difftrace: help for the timeline'
tm send-keys -t ui q
wait_for 'computing the timeline of ok'
tm send-keys -t ui q
wait_for 'difftrace: runs in'
# opened again: the same work, still going on; it ends and the view shows it with no key
tm send-keys -t ui T
wait_for 'computing the timeline of ok'
touch "$T/go"
wait_for 'timeline of ok: 4 traces, 14 steps'
wait_for '^>      1 \[Init(     ]crit_in(  |Init('
wait_for '^0\.0 #0 MPI_Init enter (step 1)'
hasnt 'computing'
tm send-keys -t ui Q
wait_for 'EXITED 0'
tm_fresh

# the hang view: T opens the timeline while the report is computed; both show once done
rm -f "$T/go"
start
tm send-keys -t ui j S
wait_for 'computing the hang report of hung'
wait_for '^    held until .*go exists'
tm send-keys -t ui T
wait_for 'computing the timeline of hung'
tm send-keys -t ui q
wait_for 'computing the hang report of hung'
touch "$T/go"
wait_for '^> P 0-1 T 0  *in MPI_Recv (1st)'
tm send-keys -t ui Enter
wait_for '^0\.0 #2 MPI_Recv enter (step 3)'
tm send-keys -t ui Q
wait_for 'EXITED 0'
tm_fresh

# Q while the work is held: the interface ends at once all the same
rm -f "$T/go"
start
tm send-keys -t ui T
wait_for 'computing the timeline of ok'
tm send-keys -t ui Q
wait_for 'EXITED 0'
pass
