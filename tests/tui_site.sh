#!/bin/sh
# Call sites in the interface (issue 24, item 1), in a real terminal: tmux runs `difftrace tui`
# on a hung run of tests/sync/sites.c built -O2 -g. The hang view names where each blocked
# call was made (sites.c:LINE (function), the lines the source marks), and e on its line runs
# $EDITOR +LINE FILE (a script that writes its arguments down); Enter opens the timeline at
# the thread's last event, whose footer names the site too, and e there opens the editor on
# it. A tag mismatch's receive and send are named below it, and e opens either. The
# command-line side is tests/sync_site.sh; the trace, ranking and diff views are
# tests/tui_site_views.sh.
. "${abs_top_srcdir:-.}/tests/lib.sh"
command -v tmux >/dev/null || skip "tmux is not installed"
need mpi built timeout
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
SRC="$abs_top_srcdir/tests/sync/sites.c"
recv=$(site_line "$SRC" recv) || exit 1
barrier=$(site_line "$SRC" barrier) || exit 1
cd "$T" || fail "cd $T"
site_prog "$SRC" sites
flags="-np 3"
"$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags="$flags --oversubscribe"
# shellcheck disable=SC2086
timeout -k 5 150 "$MPIRUN" $flags "$RECORD" --sync-only --timeout 3 -o "$T/rec" -- "$T/sites" \
	</dev/null >"$T/rec.log" 2>&1
[ -d "$T/rec/rank-2/sync" ] || { cat "$T/rec.log" >&2; fail "no sync record"; }
expect_status 0 "$DT" import -q --run h "$T/rec"
cat > "$T/ed" <<ED
#!/bin/sh
echo "\$@" > "$T/edited"
echo "EDITOR IS RUNNING"
sleep 1
ED
chmod +x "$T/ed"

# a tag mismatch, headless: the hang view's mismatch is followed by where its receive and its
# send were made, as difftrace hang prints them; e on the mismatch opens the receive, on the
# send's line the send; the most likely cause names both sites too
send=$(site_line "$SRC" send) || exit 1
# shellcheck disable=SC2086
timeout -k 5 150 "$MPIRUN" $flags "$RECORD" --sync-only --timeout 3 -o "$T/tagrec" -- "$T/sites" tag \
	</dev/null >"$T/tagrec.log" 2>&1
[ -d "$T/tagrec/rank-2/sync" ] || { cat "$T/tagrec.log" >&2; fail "tag: no sync record"; }
expect_status 0 "$DT" import -q --run tag "$T/tagrec"
hv() { # KEYS...: the hang view of tag, headless, then KEYS
	printf '%s\n' : '"hang tag"' Enter "$@" > "$T/keys"
	rm -f "$T/edited"
	VISUAL='' EDITOR="$T/ed" "$DT" tui --script "$T/keys" --dump "$T/dump" --size 40x320 \
		>/dev/null 2>"$T/err" || fail "tui: $(cat "$T/err")"
}
hv
grep -q "^  tag mismatch: 1\.0 waits for tag 0 from 0; 0\.0 sent tag 7 to 1 (unreceived)$" "$T/dump" &&
	grep -A2 '^  tag mismatch' "$T/dump" | grep -q "^    the receive at sites\.c:$recv (exchange)$" &&
	grep -A2 '^  tag mismatch' "$T/dump" | grep -q "^    the send at sites\.c:$send (exchange)$" ||
	{ cat "$T/dump" >&2; fail "hang view: the mismatch's sites are not named"; }
grep -q "^. most likely cause: .*; the receive at sites\.c:$recv (exchange); the send at sites\.c:$send (exchange)" "$T/dump" ||
	{ cat "$T/dump" >&2; fail "hang view: the cause does not name the sites"; }
# the cursor to the mismatch (a search), e; then to the send's line below it
hv / '"tag mismatch"' Enter e
grep -q '^> *tag mismatch' "$T/dump" || { cat "$T/dump" >&2; fail "hang view: the cursor is not on the mismatch"; }
[ "$(cat "$T/edited" 2>/dev/null)" = "+$recv $SRC" ] ||
	{ cat "$T/dump" >&2; fail "hang view: e on the mismatch opened '$(cat "$T/edited" 2>/dev/null)'"; }
hv / '"tag mismatch"' Enter / '"the send at"' Enter e
grep -q '^> *the send at' "$T/dump" || { cat "$T/dump" >&2; fail "hang view: the cursor is not on the send"; }
[ "$(cat "$T/edited" 2>/dev/null)" = "+$send $SRC" ] ||
	{ cat "$T/dump" >&2; fail "hang view: e on the send opened '$(cat "$T/edited" 2>/dev/null)'"; }

. "${abs_top_srcdir:-.}/tests/tmux.sh"
tm -f /dev/null new-session -d -s ui -x 160 -y 30 \
	"TERM=xterm-256color VISUAL= EDITOR='$T/ed' DIFFTRACE_DB='$DIFFTRACE_DB' '$DT' tui; echo EXITED \$?; sleep 30"
wait_for 'difftrace: runs in'
tm send-keys -t ui : 'hang h' Enter
wait_for "^> P 0-1 T 0 .*in MPI_Recv (1st) .*at sites\.c:$recv (exchange)"
wait_for "^  2\.0 .*in MPI_Barrier (1st) .*at sites\.c:$barrier (main)"
wait_for "0\.0 .*waits for 1\.0 (receive: MPI_Recv .*at sites\.c:$recv (exchange)"
# e on the group in MPI_Recv: the editor on the line of the call
tm send-keys -t ui e
wait_for 'EDITOR IS RUNNING'
wait_for "$T/ed +$recv $SRC"
[ "$(cat "$T/edited")" = "+$recv $SRC" ] || fail "hang view: the editor got: $(cat "$T/edited")"
sleep 1
wait_for "^> P 0-1 T 0 .*in MPI_Recv (1st)"
# the barrier's line: e there opens its own line
tm send-keys -t ui j
wait_for "^> *2\.0 .*in MPI_Barrier"
tm send-keys -t ui e
wait_for "$T/ed +$barrier $SRC"
sleep 1
# Enter: the timeline at 2.0's last event, the barrier's entry, its site in the footer
tm send-keys -t ui Enter
wait_for '^difftrace: timeline of h'
wait_for "^2\.0 #[0-9]* MPI_Barrier enter .*at sites\.c:$barrier (main)"
rm -f "$T/edited"
tm send-keys -t ui e
wait_for "$T/ed +$barrier $SRC"
[ "$(cat "$T/edited")" = "+$barrier $SRC" ] || fail "timeline: the editor got: $(cat "$T/edited")"
sleep 1
tm send-keys -t ui Q
wait_for 'EXITED 0'
pass
