#!/bin/sh
# The editor key in a real terminal: tmux runs `difftrace tui` on a uftrace recording of a
# program built with -g; e on a call runs $EDITOR +LINE FILE on the terminal (here a script that
# writes its arguments to a file and says so on the screen), and when it exits the interface
# is drawn again and answers keys, also after the input timeout has passed.
. "${abs_top_srcdir:-.}/tests/lib.sh"
command -v tmux >/dev/null || skip "tmux is not installed"
need uftrace built
CC=${CC_FOR_TESTS:-${CC:-cc}}
command -v "$CC" >/dev/null || CC=gcc
cat > "$T/prog.c" <<'SRC'
static int leaf(int x)
{
	return x + 1;
}

int main(void)
{
	return leaf(1) - 2;
}
SRC
"$CC" -g -O0 -pg -o "$T/prog" "$T/prog.c" 2>"$T/cc.log" || skip "cannot build with -pg: $(cat "$T/cc.log")"
"$UFTRACE" record -d "$T/rec" "$T/prog" >"$T/rec.log" 2>&1 ||
	skip "uftrace cannot record here: $(cat "$T/rec.log")"
expect_status 0 "$DT" import -q --run r "$T/rec"
cat > "$T/ed" <<ED
#!/bin/sh
echo "\$@" > "$T/edited"
echo "EDITOR IS RUNNING"
sleep 1
ED
chmod +x "$T/ed"

. "${abs_top_srcdir:-.}/tests/tmux.sh"
tm -f /dev/null new-session -d -s ui -x 100 -y 30 \
	"TERM=xterm-256color VISUAL= EDITOR='$T/ed' DIFFTRACE_DB='$DIFFTRACE_DB' '$DT' tui --filter everything; echo EXITED \$?; sleep 30"
wait_for 'difftrace: runs in'
tm send-keys -t ui : 'trace r 0.0' Enter
wait_for 'main  prog.c:6'
# the cursor to main's line, then e
tm send-keys -t ui G k
wait_for '^> *[0-9]* \[-\] main  prog.c:6'
tm send-keys -t ui e
wait_for 'EDITOR IS RUNNING'
wait_for "$T/ed +6 $T/prog.c"
[ "$(cat "$T/edited")" = "+6 $T/prog.c" ] || fail "the editor got: $(cat "$T/edited")"
# back: the view is drawn again, past the input timeout, and keys work
sleep 1
screen
grep -q 'EDITOR IS RUNNING' "$T/screen" && { cat "$T/screen" >&2; fail "the editor's output stayed on the screen"; }
grep -q '^difftrace: trace 0.0 of r' "$T/screen" || { cat "$T/screen" >&2; fail "the interface is not back"; }
tm send-keys -t ui D
wait_for 'START'
tm send-keys -t ui Q
wait_for 'EXITED 0'
pass
