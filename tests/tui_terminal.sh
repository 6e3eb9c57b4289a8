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
pass
