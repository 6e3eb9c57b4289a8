#!/bin/sh
# The interface without a usable terminal: at the end of its input it ends (instead of
# waiting for a key for ever), and a terminal that cannot address its cursor is refused with
# the command-line alternative.
. "${abs_top_srcdir:-.}/tests/lib.sh"
need timeout
expect_status 0 "$DT" import -q --run normal "$DATA/text/small"

# a hang fails the test (status 124) instead of hanging it
expect_status 0 env TERM=xterm timeout 60 "$DT" tui < /dev/null
: | { TERM=xterm timeout 60 "$DT" tui > "$T/out" 2>&1; st=$?; [ $st = 0 ] || fail "tui on an ended pipe: exit $st"; }
# keys that open a prompt, then the end of the input: the prompt is cancelled, the program ends
printf ':filt' | { TERM=xterm timeout 60 "$DT" tui > "$T/out" 2>&1; st=$?; [ $st = 0 ] || fail "tui at the end of a prompt: exit $st"; }

expect_status 1 env TERM=dumb timeout 60 "$DT" tui
expect_err "the terminal 'dumb' cannot move its cursor; use the command line instead (difftrace runs"

# ---- commands refused when typed ----
ui() {
	printf '%s\n' "$@" > "$T/keys"
	"$DT" tui --script "$T/keys" --dump "$T/screen" --size 24x80 > "$T/out" 2> "$T/err" ||
		fail "tui exited $?: $(cat "$T/err")"
}
has() { grep -q -- "$1" "$T/screen" || { cat "$T/screen" >&2; fail "screen lacks '$1'"; }; }
ui : '"filter nosuch"' Enter
has "unknown filter family 'nosuch'"
has 'filter ompall,mpi '
ui : '"trace normal 99999999999999999999.0"' Enter
has '99999999999999999999.0: P.T out of range'
ui : '"diff normal:0.0 normal:0.99999999999999999999"' Enter
has 'out of range'

# ---- a run removed by another difftrace while the interface shows it ----
if command -v tmux >/dev/null; then
	expect_status 0 "$DT" import -q --run b1 "$DATA/text/small"
	sock="dt$$"
	tm() { tmux -L "$sock" "$@"; }
	trap 'tm kill-server 2>/dev/null; rm -rf "$T"' EXIT
	screen() { tm capture-pane -p -t ui > "$T/screen" 2>/dev/null; }
	wait_for() {
		n=0
		while :; do
			screen
			grep -q -- "$1" "$T/screen" && return 0
			n=$((n + 1))
			[ $n -gt 300 ] && { cat "$T/screen" >&2; fail "the screen never showed '$1'"; }
			sleep 0.1
		done
	}
	tm -f /dev/null new-session -d -s ui -x 100 -y 30 \
		"TERM=xterm-256color DIFFTRACE_DB='$DIFFTRACE_DB' DIFFTRACE_FILTER_PATH='${DIFFTRACE_FILTER_PATH:-}' '$DT' tui; echo EXITED \$?; sleep 30"
	wait_for 'difftrace: runs in'
	tm send-keys -t ui j Enter
	wait_for 'classes of traces with identical attribute sets'
	expect_status 0 "$DT" rm b1
	tm send-keys -t ui j Enter
	wait_for 'run b1 was removed'
	grep -q '^difftrace: class [0-9]* of b1' "$T/screen" && grep -q 'no analysis of b1 (see the message below)' "$T/screen" ||
		fail "traces view wording: $(cat "$T/screen")"
	tm send-keys -t ui Q
	wait_for 'EXITED 0'
fi
pass
