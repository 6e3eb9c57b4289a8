#!/bin/sh
# Call sites (issue 24, item 1): the sync record keeps where the program made each call, and
# `hang` names it as file:line (function), the innermost frame of the program, in text and
# JSON: tests/sync/sites.c, built -O2 -g, hangs with ranks 0 and 1 in MPI_Recv in exchange()
# and rank 2 in main's MPI_Barrier; the lines are the ones the source marks. Built without -g,
# the report says so once and names function+offset. The Fortran program's sites (through
# the Fortran bindings) are in tests/fortran.sh; a file of version 1 in tests/test_sync.c.
. "${abs_top_srcdir:-.}/tests/lib.sh"

need mpi built timeout
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
[ -f "$abs_top_builddir/libdifftrace-sync.so" ] ||
	skip "libdifftrace-sync.so not built (no mpicc at configure time)"
SRC="$abs_top_srcdir/tests/sync/sites.c"
recv=$(grep -n 'SITE:recv' "$SRC" | cut -d: -f1)
barrier=$(grep -n 'SITE:barrier' "$SRC" | cut -d: -f1)
[ -n "$recv" ] && [ -n "$barrier" ] || fail "no SITE: marks in $SRC"
cd "$T" || fail "cd $T"
flags="-np 3"
"$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags="$flags --oversubscribe"

rec() { # NAME ARG CFLAGS...: build sites.c with CFLAGS, record it with ARG until it ends or
	# the timeout, import it
	name=$1 arg=$2
	shift 2
	"$MPICC" "$@" -o "$T/$name.bin" "$SRC" >"$T/cc.log" 2>&1 || { cat "$T/cc.log" >&2; fail "mpicc failed"; }
	# shellcheck disable=SC2086
	timeout -k 5 150 "$MPIRUN" $flags "$RECORD" --sync-only --timeout 3 -o "$T/$name" -- \
		"$T/$name.bin" $arg </dev/null >"$T/$name.log" 2>&1
	[ -d "$T/$name/rank-2/sync" ] || { cat "$T/$name.log" >&2; fail "$name: no sync record"; }
	ls "$T/$name"/rank-0/sync/*.maps >/dev/null 2>&1 || fail "$name: no module map beside the record"
	expect_status 0 "$DT" import -r "$name" "$T/$name"
}
has() { # REGEX WHAT
	grep -Eq -- "$1" "$T/out" || { cat "$T/out" >&2; fail "$2"; }
}

rec g hang -O2 -g
expect_status 0 "$DT" hang g
has "^  P 0-1 T 0 +in MPI_Recv \(1st\) at sites\.c:$recv \(exchange\)$" \
	"ranks 0 and 1: not in MPI_Recv at sites.c:$recv (exchange)"
has "^  2\.0 +in MPI_Barrier \(1st\) at sites\.c:$barrier \(main\)$" \
	"rank 2: not in MPI_Barrier at sites.c:$barrier (main)"
has "^  0\.0 +waits for 1\.0 \(receive: MPI_Recv .*\) at sites\.c:$recv \(exchange\)$" \
	"the wait-for line of 0.0 has no site"
has "^  2\.0 in MPI_Barrier \(1st\) at sites\.c:$barrier \(main\): rule " \
	"the barrier that can never complete has no site"
grep -q 'debug information' "$T/out" && { cat "$T/out" >&2; fail "a -g program said to have no debug information"; }
expect_status 0 "$DT" hang --format json g
for pt in 0.0 1.0; do
	has "\{\"pt\": \"$pt\", \"state\": \"in-call\", \"call\": \"MPI_Recv\", .*\"site\": \{\"file\": \"[^\"]*/sites\.c\", \"line\": $recv, \"function\": \"exchange\"\}" \
		"json: $pt has no site sites.c:$recv (exchange)"
done
has "\{\"pt\": \"2\.0\", \"state\": \"in-call\", \"call\": \"MPI_Barrier\", .*\"site\": \{\"file\": \"[^\"]*/sites\.c\", \"line\": $barrier, \"function\": \"main\"\}" \
	"json: 2.0 has no site sites.c:$barrier (main)"
has '"sites_note": "",' "json: a note on a -g program"
# sync and order name the site of each call's entry
expect_status 0 "$DT" sync g
has "^0\.0 +[0-9]+ +> +[0-9.]+ +MPI_Recv +.* at sites\.c:$recv \(exchange\)$" "sync: no site on 0.0's MPI_Recv"
has "^2\.0 +[0-9]+ +> +[0-9.]+ +MPI_Barrier +.* at sites\.c:$barrier \(main\)$" "sync: no site on 2.0's MPI_Barrier"
expect_status 0 "$DT" sync --format csv g
has "^0,0,[0-9]+,0,[0-9]+,MPI_Recv,.*,[^,]*/sites\.c,$recv,exchange$" "sync csv: no site"
expect_status 0 "$DT" order g
has " 1\.0 #[0-9]+ MPI_Recv enter .* at sites\.c:$recv \(exchange\)$" "order: no site on 1.0's MPI_Recv"
expect_status 0 "$DT" order --format json g
has "\"trace\":\"2\.0\",.*\"function\":\"MPI_Barrier\",\"phase\":\"enter\".*\"site\":\"sites\.c:$barrier \(main\)\"" \
	"order json: no site on 2.0's MPI_Barrier"
# the rank reasons name where a hung thread's call was made
rec ok ok -O2 -g
expect_status 0 "$DT" rank --normal ok --faulty g
has "^ +[0-9]+ +1\.0 .*(stopped early|at the stop) in MPI_Recv \(sync record\) at sites\.c:$recv \(exchange\)" \
	"rank: 1.0's reason does not say where its MPI_Recv was made"
has "^ +[0-9]+ +2\.0 .*stopped early in MPI_Barrier \(sync record\) at sites\.c:$barrier \(main\), after " \
	"rank: 2.0's reason does not say where its MPI_Barrier was made"
# the recording's directory itself, not imported (read as far as it is written)
expect_status 0 "$DT" hang "$T/g"
has "^  2\.0 +in MPI_Barrier \(1st\) at sites\.c:$barrier \(main\)$" "hang DIR: no site"

# without -g: said once, and the function + offset of each call
rec nog hang -O2
expect_status 0 "$DT" hang nog
[ "$(grep -c 'no debug information' "$T/out")" = 1 ] ||
	{ cat "$T/out" >&2; fail "no -g: not said exactly once"; }
has '^note: the program has no debug information \(built without -g\)' "no -g: the note"
has '^  P 0-1 T 0 +in MPI_Recv \(1st\) at exchange\+0x[0-9a-f]+$' "no -g: not exchange+offset"
has '^  2\.0 +in MPI_Barrier \(1st\) at main\+0x[0-9a-f]+$' "no -g: not main+offset"
expect_status 0 "$DT" hang --format json nog
has '"sites_note": "the program has no debug information' "json: no note without -g"
has '"site": \{"file": "[^"]*/nog\.bin", "line": 0, "function": "exchange\+0x[0-9a-f]+"\}' \
	"json: no -g: not the binary and exchange+offset"
pass
