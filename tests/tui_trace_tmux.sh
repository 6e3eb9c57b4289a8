#!/bin/sh
# The trace view's call tree in a real terminal: tmux runs `difftrace tui`, keys are sent with
# pauses past the input timeout, and the folded lines are read off the pane: Enter folds the
# call under the cursor (its callees counted on its line), C folds every call, E unfolds them.
. "${abs_top_srcdir:-.}/tests/lib.sh"
command -v tmux >/dev/null || skip "tmux is not installed"

# main calls everything; each exchange calls MPI_Send and MPI_Recv, four times a step
mkdir "$T/calls"
{ printf 'main\ninit\n[ret]\n'
  i=0; while [ $i -lt 6 ]; do
	printf 'step\n[ret]\n'
	j=0; while [ $j -lt 4 ]; do
		printf 'exchange\nMPI_Send\n[ret]\nMPI_Recv\n[ret]\n[ret]\n'; j=$((j + 1)); done
	printf 'MPI_Barrier\n[ret]\n'; i=$((i + 1)); done
  printf 'finalize\n[ret]\n[ret]\n'; } > "$T/calls/0.0.txt"
expect_status 0 "$DT" import -q --run calls "$T/calls"
. "${abs_top_srcdir:-.}/tests/tmux.sh"

tm -f /dev/null new-session -d -s ui -x 100 -y 30 \
	"TERM=xterm-256color LC_ALL=C DIFFTRACE_DB='$DIFFTRACE_DB' DIFFTRACE_FILTER_PATH='${DIFFTRACE_FILTER_PATH:-}' '$DT' tui --filter everything; echo EXITED \$?; sleep 30"
wait_for 'difftrace: runs in'
tm send-keys -t ui : 'trace calls 0.0' Enter
wait_for '^> 1 \[-\] main'
tm send-keys -t ui '*'
wait_for 'every loop unfolded'
wait_for '|  |- \[-\] exchange$'
# five lines down, one key at a time past the input timeout, then Enter on exchange
for k in j j j j j; do
	tm send-keys -t ui $k
	sleep 0.2
done
tm send-keys -t ui Enter
wait_for '|  |- \[+\] exchange  2 calls folded  (MPI_Send - MPI_Recv)$'
sleep 0.5
screen
grep -q '^>   |  |- \[+\] exchange  2 calls folded  (MPI_Send - MPI_Recv)$' "$T/screen" ||
	{ cat "$T/screen" >&2; fail "the cursor left the folded call"; }
grep -q 'MPI_Send$' "$T/screen" && { cat "$T/screen" >&2; fail "a folded callee shows"; }
grep -q ' trace  6/8 ' "$T/screen" || { cat "$T/screen" >&2; fail "not 8 lines"; }
# Enter again: the callees are back
tm send-keys -t ui Enter
wait_for '|  |-   MPI_Send$'
# C: every call folded, the cursor on main; E: all back
tm send-keys -t ui C
wait_for '^> 1 \[+\] main  86 calls folded  (init - L[0-9]* x6 (step - '
sleep 0.5
screen
grep -q '^  2 ' "$T/screen" && { cat "$T/screen" >&2; fail "C left a callee of main"; }
tm send-keys -t ui E
wait_for 'every call unfolded'
wait_for '^  2   init$'
tm send-keys -t ui Q
wait_for 'EXITED 0'
