#!/bin/sh
# The interface says when its background analysis waits for the store: another program holds
# the store's write lock while the classes view computes an analysis, and the status line reads
# "waiting for the store (another difftrace is importing)" (not a full progress bar) for as long
# as the lock is held, past the input timeout; once the lock is let go the view opens.
. "${abs_top_srcdir:-.}/tests/lib.sh"
command -v tmux >/dev/null || skip "tmux is not installed"
command -v sqlite3 >/dev/null || skip "sqlite3 command not installed"

expect_status 0 "$DT" import -q --run normal "$abs_top_srcdir/examples/traces/normal"
. "${abs_top_srcdir:-.}/tests/tmux.sh"

# Another program holds the write lock until $T/release exists (or the test ends).
(echo "BEGIN IMMEDIATE;"; echo ".shell touch $T/locked"
 echo ".shell while [ ! -f $T/release ] && [ -d $T ]; do sleep 0.05; done"; echo "COMMIT;") |
	sqlite3 "$DIFFTRACE_DB" >/dev/null 2>&1 &
n=0
while [ ! -f "$T/locked" ]; do
	sleep 0.05; n=$((n + 1)); [ $n -gt 400 ] && fail "the lock was not taken"
done

tm -f /dev/null new-session -d -s ui -x 150 -y 30 \
	"TERM=xterm-256color DIFFTRACE_DB='$DIFFTRACE_DB' DIFFTRACE_FILTER_PATH='${DIFFTRACE_FILTER_PATH:-}' '$DT' tui; echo EXITED \$?; sleep 30"
wait_for 'normal  *4  *218'
tm send-keys -t ui Enter
wait_for 'analyzing normal: waiting for the store (another difftrace is importing)'
# still said after several input timeouts, with no progress bar claiming the work is done
sleep 1
screen
grep -q 'analyzing normal: waiting for the store (another difftrace is importing)' "$T/screen" ||
	{ cat "$T/screen" >&2; fail "the waiting message went away while the lock is held"; }
grep -q "100%\|\[####" "$T/screen" && { cat "$T/screen" >&2; fail "a progress bar while waiting"; }
grep -q "computing the analysis of normal ... waiting for the store" "$T/screen" || { cat "$T/screen" >&2; fail "the view does not say it waits"; }
[ -f "$T/locked" ] || fail "lock lost"
touch "$T/release"
wait_for 'classes of traces with identical attribute sets'
screen
grep -q 'waiting for the store' "$T/screen" && { cat "$T/screen" >&2; fail "still waiting after the lock was let go"; }
tm send-keys -t ui Q
wait_for 'EXITED 0'
wait
pass
