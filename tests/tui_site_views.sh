#!/bin/sh
# Call sites in the trace, ranking and diff views: tests/sync/extra.c, built -O2 -g and
# recorded as the README says (uftrace and the sync record together), where rank 1 of the
# faulty run makes one more MPI_Send from extra(). Each view names where the program made an
# MPI call (`at extra.c:LINE (extra)`), and e on it runs $EDITOR +LINE FILE on that line, not
# on the function's definition (which an MPI call has none of): headless first, then in a real
# terminal (tmux), past the input timeouts. The hang and timeline views are tests/tui_site.sh.
. "${abs_top_srcdir:-.}/tests/lib.sh"

need mpi built timeout uftrace
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
SRC="$abs_top_srcdir/tests/sync/extra.c"
extra=$(site_line "$SRC" extra) || exit 1
barrier=$(site_line "$SRC" barrier) || exit 1
cd "$T" || fail "cd $T"
site_prog "$SRC" extra
flags="-np 3"
"$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags="$flags --oversubscribe"
for run in normal faulty; do
	arg=ok
	[ $run = faulty ] && arg=extra
	# shellcheck disable=SC2086
	timeout -k 5 120 "$MPIRUN" $flags "$RECORD" -o "$T/$run" -- "$T/extra" $arg \
		</dev/null >"$T/$run.log" 2>&1 || { cat "$T/$run.log" >&2; fail "$run: the recording failed"; }
	expect_status 0 "$DT" import -q -r "$run" "$T/$run"
done
cat > "$T/ed" <<ED
#!/bin/sh
echo "\$@" > "$T/edited"
echo "EDITOR IS RUNNING"
sleep 1
ED
chmod +x "$T/ed"
export VISUAL='' EDITOR="$T/ed"

# tui KEYS...: runs the keys headless at 30x260 on the pair, the screen in $T/dump
tui() {
	printf '%s\n' "$@" > "$T/script"
	rm -f "$T/edited"
	expect_status 0 "$DT" tui --normal normal --faulty faulty --script "$T/script" \
		--dump "$T/dump" --size 30x260
}
has() { grep -Eq -- "$1" "$T/dump" || { cat "$T/dump" >&2; fail "$2"; }; }
edited() { # WHAT: the editor ran on the extra send's line
	[ "$(cat "$T/edited" 2>/dev/null)" = "+$extra $SRC" ] ||
		{ cat "$T/dump" >&2; fail "$1: the editor got '$(cat "$T/edited" 2>/dev/null)', not +$extra $SRC"; }
}

# the trace view of 1.0: its calls with their sites; e on the extra send opens its line
tui wait : '"trace faulty 1.0"' Enter
has "^  *[0-9]+ MPI_Send\[[^]]*tag=9[^]]*\]  at extra\.c:$extra \(extra\)$" "trace view: the extra send has no site"
has "^  *[0-9]+ MPI_Barrier\[[^]]*\]  at extra\.c:$barrier \(main\)$" "trace view: the barrier has no site"
n=$(grep -n 'tag=9' "$T/dump" | cut -d: -f1)
keys=
i=3
while [ "$i" -lt "$n" ]; do keys="$keys j"; i=$((i + 1)); done
# shellcheck disable=SC2086
tui wait : '"trace faulty 1.0"' Enter $keys e
has "^> *[0-9]+ MPI_Send\[[^]]*tag=9" "trace view: the cursor is not on the extra send"
edited "trace view"
grep -q 'no source line' "$T/dump" && { cat "$T/dump" >&2; fail "trace view: no source line said"; }

# the ranking: 1.0 first, its reason naming the site; e opens it
tui wait e
has "^> +1 1\.0 .*MPI_Send\[[^]]*tag=9[^]]*\] at extra\.c:$extra \(extra\) where the normal run has MPI_Barr" \
	"ranking view: 1.0's reason has no site"
edited "ranking view"

# Enter: the diff of 1.0; ] to the change, the right pane's extra send with its site; e
tui wait Enter ']' e
has "^difftrace: diff normal 1\.0 \| faulty 1\.0" "no diff view"
has "^> .*> MPI_Send\[[^]]*tag=9[^]]*\]  at extra\.c:$extra \(extra\)" "diff view: the extra send has no site"
edited "diff view"

# in a real terminal: the editor takes the screen, the interface comes back and answers keys
command -v tmux >/dev/null || { echo "tmux is not installed: the terminal part is left out"; pass; }
. "${abs_top_srcdir:-.}/tests/tmux.sh"
rm -f "$T/edited"
tm -f /dev/null new-session -d -s ui -x 200 -y 30 \
	"TERM=xterm-256color VISUAL= EDITOR='$T/ed' DIFFTRACE_DB='$DIFFTRACE_DB' '$DT' tui --normal normal --faulty faulty; echo EXITED \$?; sleep 30"
wait_for "^> *1 1\.0 .* at extra\.c:$extra (extra) where"
tm send-keys -t ui e
wait_for 'EDITOR IS RUNNING'
wait_for "$T/ed +$extra $SRC"
sleep 1
# the diff of 1.0 (Enter), the change (]), the editor again
tm send-keys -t ui Enter
wait_for '^difftrace: diff normal 1\.0 | faulty 1\.0'
tm send-keys -t ui ']'
wait_for "^> .*> MPI_Send.*at extra\.c:$extra (extra)"
rm -f "$T/edited"
tm send-keys -t ui e
wait_for 'EDITOR IS RUNNING'
wait_for "$T/ed +$extra $SRC"
sleep 1
# back in the ranking, t: the trace view of 1.0; G to its end (MPI_Finalize), k k up to the
# extra send
tm send-keys -t ui q
wait_for '^difftrace: ranking faulty against normal'
tm send-keys -t ui t
wait_for "MPI_Send.*tag=9.*  at extra\.c:$extra (extra)"
tm send-keys -t ui G k k
wait_for "^> *[0-9]* MPI_Send.*tag=9"
rm -f "$T/edited"
tm send-keys -t ui e
wait_for 'EDITOR IS RUNNING'
wait_for "$T/ed +$extra $SRC"
[ "$(cat "$T/edited")" = "+$extra $SRC" ] || fail "trace view in tmux: the editor got: $(cat "$T/edited")"
sleep 1
tm send-keys -t ui Q
wait_for 'EXITED 0'
pass
