#!/bin/sh
# The interface in a real terminal: tmux runs `difftrace tui` on the bundled example, keys are
# sent with send-keys and the screen read with capture-pane. Checks the views answer, the
# background analysis, help, a resize redraw, prompts that stay drawn past the input timeout,
# and that quitting ends the program.
. "${abs_top_srcdir:-.}/tests/lib.sh"
command -v tmux >/dev/null || skip "tmux is not installed"

expect_status 0 "$DT" import -q --run normal "$abs_top_srcdir/examples/traces/normal"
expect_status 0 "$DT" import -q --run faulty "$abs_top_srcdir/examples/traces/faulty"
. "${abs_top_srcdir:-.}/tests/tmux.sh"

tm -f /dev/null new-session -d -s ui -x 100 -y 30 \
	"TERM=xterm-256color DIFFTRACE_DB='$DIFFTRACE_DB' DIFFTRACE_FILTER_PATH='${DIFFTRACE_FILTER_PATH:-}' '$DT' tui; echo EXITED \$?; sleep 30"
wait_for 'difftrace: runs in'
wait_for 'normal  *4  *218'
tm send-keys -t ui j Enter
wait_for 'classes of traces with identical attribute sets'
grep -q 'difftrace: classes of faulty' "$T/screen" || fail "not the classes of faulty"
tm send-keys -t ui F1
wait_for 'Keys of the classes view'
tm send-keys -t ui q
wait_for 'clusters (ward linkage'
# a resize redraws at the new size
tm resize-window -t ui -x 80 -y 24
wait_for 'classes  1/'
[ "$(awk 'length > 80' "$T/screen" | wc -l)" -eq 0 ] || fail "rows wider than 80 after the resize"
# search from the keyboard
tm send-keys -t ui q / 'faulty' Enter
wait_for '^>   faulty'
# a prompt stays on the screen while it is typed: the input timeout (100 ms) redraws the screen
# under it, and the prompt with what is typed so far must be drawn again over it
last() { tail -n 1 "$T/screen"; }
prompt_stays() { # keys... then the bottom row must read $want after several timeouts
	tm send-keys -t ui "$@"
	wait_for "$want"
	sleep 1
	screen
	[ "$(last)" = "$want" ] || { cat "$T/screen" >&2; fail "prompt gone after a timeout: '$(last)'"; }
	tm send-keys -t ui Escape
	sleep 0.3
}
want='/fau' prompt_stays / f a u
want=':clas' prompt_stays : c l a s
want='write this view to: difftrace-runs.txt' prompt_stays w
tm send-keys -t ui : filters Enter
wait_for 'difftrace: filter families'
want='custom pattern (PCRE2): MPI_Se' prompt_stays c M P I _ S e
tm send-keys -t ui q
wait_for 'difftrace: runs in'
# marks with a pause between the keys (past the input timeout): m a, elsewhere, ' a
tm send-keys -t ui t
wait_for 'difftrace: all traces of'
tm send-keys -t ui j j m
wait_for 'mark: type a letter'
sleep 0.5
tm send-keys -t ui a
wait_for 'mark a set on line 3'
tm send-keys -t ui G "'"
sleep 0.5
tm send-keys -t ui a
wait_for 'mark a: line 3'
grep -q '^> 1\.0 ' "$T/screen" || { cat "$T/screen" >&2; fail "' a did not go back to the mark"; }
tm send-keys -t ui q
wait_for 'difftrace: runs in'
# Q quits; the shell after it says how the program ended
tm send-keys -t ui Q
wait_for 'EXITED 0'

# killed with SIGTERM, it puts the terminal back in canonical mode with echo (a server of its
# own: tm_fresh)
tm_fresh
tm -f /dev/null new-session -d -s ui -x 150 -y 30 \
	"TERM=xterm-256color DIFFTRACE_DB='$DIFFTRACE_DB' DIFFTRACE_FILTER_PATH='${DIFFTRACE_FILTER_PATH:-}' '$DT' tui & p=\$!; sleep 2; kill -TERM \$p; wait \$p; stty -a | tr ' ' '\\n' | grep -E '^-?(icanon|echo)\$' | tr '\\n' ' '; echo MODES; sleep 30"
wait_for 'MODES'
grep -q '^icanon echo MODES' "$T/screen" || fail "terminal modes after SIGTERM: $(cat "$T/screen")"
pass
