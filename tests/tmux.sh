# tmux.sh: what the interface tests that drive a real terminal share (sourced after lib.sh):
# a tmux server of their own (tm), killed at exit with the test's folder; the pane's screen
# into $T/screen (the session named by $ui, "ui" unless set); waiting (up to 15 s) for a pattern
# to show; a fresh server (tm_fresh) for a test that starts the interface again.
sock="dt$$"
tm() { tmux -L "$sock" "$@"; }
# tm_fresh: end this server and go on with another socket. A new session on the socket of a
# server that is still shutting down (its last session was killed) fails with "server exited
# unexpectedly"; a socket of its own never meets the old server.
tm_fresh() {
	tm kill-server 2>/dev/null
	tm_n=$(( ${tm_n:-0} + 1 ))
	sock="dt$$-$tm_n"
}
trap 'tm kill-server 2>/dev/null; rm -rf "$T"' EXIT
screen() { tm capture-pane -p -t "${ui:-ui}" > "$T/screen" 2>/dev/null; }
wait_for() { # pattern: up to 15 s
	n=0
	while :; do
		screen
		grep -q -- "$1" "$T/screen" && return 0
		n=$((n + 1))
		[ $n -gt 150 ] && { cat "$T/screen" >&2; fail "the screen never showed '$1'"; }
		sleep 0.1
	done
}
