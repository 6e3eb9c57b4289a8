#!/bin/sh
# blame_inline.sh: functions the compiler inlined (issue 15): tests/blame/inlined.c, built with
# -O2, spends half its time in square(), which is always inlined into main. The import gives
# its samples an inlined level for square (at the loop's line) above main's (at the call's
# line), so the data flow walks square's return to main's y as a call, and the locations name
# square. The other half is in work(), a real function, writing a structure of collect(),
# inlined into main: the frame scan finds it among the inlined function's locals, and the data
# flow passes it on to main's z, which collect computes from it.
. "${abs_top_srcdir:-..}/tests/lib.sh"
need built mpi
[ -f "$abs_top_builddir/libdifftrace-sample.so" ] ||
	skip "libdifftrace-sample.so not built (configure found no libunwind: apt-get install libunwind-dev)"
export DIFFTRACE_BLAME_PATH="$abs_top_srcdir/blame"
SRC="$abs_top_srcdir/tests/blame"
APP="$T/inlined"
"$MPICC" -g -O2 -o "$APP" "$SRC/inlined.c" >"$T/cc.log" 2>&1 ||
	{ cat "$T/cc.log" >&2; fail "mpicc failed"; }
# square has no code of its own: only its inlined copy in main (DWARF inline info)
if command -v nm >/dev/null 2>&1; then
	nm "$APP" | grep -q ' square' && fail "square was not inlined: $(nm "$APP" | grep square)"
fi
if command -v readelf >/dev/null 2>&1; then
	readelf --debug-dump=info "$APP" 2>/dev/null | grep -q DW_TAG_inlined_subroutine ||
		fail "no inlined subroutine in the DWARF"
fi
cd "$T" || fail "cd $T"
flags="-np 1"
"$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags="$flags --oversubscribe"
[ "$(id -u)" = 0 ] && "$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags="$flags --allow-run-as-root"
# shellcheck disable=SC2086
timeout -k 5 150 "$MPIRUN" $flags "$RECORD" --sample=timer --sync-only -o "$T/rec" -- "$APP" \
	</dev/null >"$T/rec.log" 2>&1 || { cat "$T/rec.log" >&2; fail "the recorded run failed"; }
expect_status 0 "$DT" import -r r "$T/rec"
LR=$(grep -n 'LINE_R' "$SRC/inlined.c" | tail -1 | cut -d: -f1)
LF=$((LR - 1)) # the loop's line: the compiler gives it the loop's body too
LC=$(grep -n '/\* CALL \*/' "$SRC/inlined.c" | cut -d: -f1)

# the store: square's inlined level at the loop's line, above main at the call's line
q() { sqlite3 "$DIFFTRACE_DB" "$1"; }
if command -v sqlite3 >/dev/null 2>&1; then
	[ "$(q "SELECT count(*) FROM blame_locs WHERE func = 'square' AND inl = 1 AND line IN ($LF, $LR)")" -ge 1 ] ||
		fail "no inlined level of square at line $LF or $LR: $(q 'SELECT * FROM blame_locs')"
	[ "$(q "SELECT count(*) FROM blame_locs WHERE func = 'main' AND inl = 0 AND line = $LC")" -ge 1 ] ||
		fail "no level of main at the call's line $LC: $(q 'SELECT * FROM blame_locs')"
fi

# shellcheck disable=SC2046
"$DT" blame-index "$SRC/inlined.c" -- $("$MPICC" --showme:compile 2>/dev/null) >"$T/bx.out" 2>"$T/bx.err"
rc=$?
if grep -q "built without libclang" "$T/bx.err"; then
	skip "difftrace was built without libclang (apt-get install libclang-dev)"
fi
[ $rc = 0 ] || { cat "$T/bx.err" >&2; fail "blame-index inlined.c: exit $rc"; }

# half the run's blame (square's phase) reaches main's y through square's return value, the
# other half (work's, in gcc's copy work.constprop.0, found under work's index entry) main's z:
# collect's structure a, written through work's pointer, is a temporary that collect's return
# value, z, is computed from
half() { # ROW: the row takes between 35% and 65% of the table in $T/out
	tot=$(awk -F, '$2 == "Total" { print $7; exit }' "$T/out")
	b=$(awk -F, -v n="$1" '$2 == n { print $7; exit }' "$T/out")
	awk -v b="${b:-0}" -v t="${tot:-0}" 'BEGIN { exit !(t > 0 && b / t > 0.35 && b / t < 0.65) }' ||
		fail "$1 took ${b:-nothing} of ${tot:-nothing}: $(cat "$T/out")"
}
expect_status 0 "$DT" blame r --format csv
half "y (main)"
half "z (main)"
# without the index the frame scan finds the structure a among the locals of collect, the
# inlined function, on main's frame
expect_status 0 "$DT" blame r --no-index --format csv
half a
expect_status 0 "$DT" blame r --format csv
grep -q '^main,r (square),' "$T/out" && fail "square's r kept blame: $(cat "$T/out")"
# why: the call on main's line, square's return value, the sample in square at its own line
expect_status 0 "$DT" blame r --why "y (main)"
# (at the loop's line, what its condition controls)
chain="y \(main\) <- square\(PHASE\), line $LC <- <return> \(square\) <- r, line [0-9]+ <- "
chain="$chain(the condition of line $LF \(implicit\) <- )?sample at inlined.c:($LF|$LR) in square"
sed -n 2p "$T/out" | grep -Eq "^ *[0-9.]+%  $chain\$" || fail "y's first path: $(cat "$T/out")"
pass
