#!/bin/sh
# The runs list follows the store (issue 24, item 6): a run imported by another command while
# the interface shows the runs appears within a second, without a key, the cursor staying on
# its run; a run removed goes. In tmux.
. "${abs_top_srcdir:-.}/tests/lib.sh"
command -v tmux >/dev/null || skip "tmux is not installed"

expect_status 0 "$DT" import -q --run normal "$abs_top_srcdir/examples/traces/normal"
. "${abs_top_srcdir:-.}/tests/tmux.sh"

tm -f /dev/null new-session -d -s ui -x 100 -y 30 \
	"TERM=xterm-256color DIFFTRACE_DB='$DIFFTRACE_DB' DIFFTRACE_FILTER_PATH='${DIFFTRACE_FILTER_PATH:-}' '$DT' tui; echo EXITED \$?; sleep 30"
wait_for 'difftrace: runs in'
wait_for '^>   normal  *4  *218'
expect_status 0 "$DT" import -q --run faulty "$abs_top_srcdir/examples/traces/faulty"
wait_for '^    faulty  *4 '
grep -q '^>   normal ' "$T/screen" || { cat "$T/screen" >&2; fail "the cursor left its run"; }
grep -q 'the store has 2 runs now' "$T/screen" || { cat "$T/screen" >&2; fail "no message"; }
expect_status 0 "$DT" rm normal
n=0
while :; do
	screen
	grep -q 'normal  *4' "$T/screen" || break
	n=$((n + 1))
	[ $n -gt 150 ] && { cat "$T/screen" >&2; fail "the removed run stays"; }
	sleep 0.1
done
grep -q '^>   faulty ' "$T/screen" || { cat "$T/screen" >&2; fail "the cursor not on the run left"; }
tm send-keys -t ui Q
wait_for 'EXITED 0'
pass
