#!/bin/sh
# Call sites (issue 24, item 1): the sync record keeps where the program made each call, and
# `hang` names it as file:line (function), the innermost frame of the program, in text and
# JSON: tests/sync/sites.c, built -O2 -g, hangs with ranks 0 and 1 in MPI_Recv in exchange()
# and rank 2 in main's MPI_Barrier; the lines are the ones the source marks. A tag mismatch's
# receive and send are named with their sites too, and the most likely cause names the site of
# the call it names (also against a normal run, and in rank's reasons). Built without -g,
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
send=$(grep -n 'SITE:send' "$SRC" | cut -d: -f1)
if [ -z "$recv" ] || [ -z "$barrier" ] || [ -z "$send" ]; then fail "no SITE: marks in $SRC"; fi
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
# the most likely cause names where the call it names was made
has "^most likely cause: 0\.0, 1\.0 \(tied\): 2 threads that wait for each other, all in MPI_Recv \(1st\) at sites\.c:$recv \(exchange\) \(" \
	"the cause has no site"
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
has "\"cause\": \{\"why\": \"cycle\", .*\"text\": \"[^\"]* at sites\.c:$recv \(exchange\) [^\"]*\", \"site\": \{\"file\": \"[^\"]*/sites\.c\", \"line\": $recv, \"function\": \"exchange\"\}" \
	"json: the cause has no site"
# sync and order name the site of each call's entry
expect_status 0 "$DT" sync g
has "^0\.0 +[0-9]+ +> +[0-9.]+ +MPI_Recv +.* at sites\.c:$recv \(exchange\)$" "sync: no site on 0.0's MPI_Recv"
has "^2\.0 +[0-9]+ +> +[0-9.]+ +MPI_Barrier +.* at sites\.c:$barrier \(main\)$" "sync: no site on 2.0's MPI_Barrier"
expect_status 0 "$DT" sync --format csv g
has "^0,0,[0-9]+,0,[0-9]+,MPI_Recv,.*,[^,]*/sites\.c,$recv,exchange$" "sync csv: no site"
expect_status 0 "$DT" sync --format json g
has "\{\"proc\": 0, \"thread\": 0, .*\"phase\": \"enter\", .*\"call\": \"MPI_Recv\", .*\"site\": \{\"file\": \"[^\"]*/sites\.c\", \"line\": $recv, \"function\": \"exchange\"\}\}" \
	"sync json: no site on 0.0's MPI_Recv"
has "\{\"proc\": 2, \"thread\": 0, .*\"phase\": \"enter\", .*\"call\": \"MPI_Barrier\", .*\"site\": \{\"file\": \"[^\"]*/sites\.c\", \"line\": $barrier, \"function\": \"main\"\}\}" \
	"sync json: no site on 2.0's MPI_Barrier"
expect_status 0 "$DT" order g
has " 1\.0 #[0-9]+ MPI_Recv enter .* at sites\.c:$recv \(exchange\)$" "order: no site on 1.0's MPI_Recv"
expect_status 0 "$DT" order --format json g
has "\"trace\":\"2\.0\",.*\"function\":\"MPI_Barrier\",\"phase\":\"enter\".*\"site\":\"sites\.c:$barrier \(main\)\"" \
	"order json: no site on 2.0's MPI_Barrier"
# show, on a trace of the sync record's calls: each call with its site
expect_status 0 "$DT" show g 0.0
has "^ +[0-9]+ +[0-9.]+ +MPI_Recv\(\) \{ /\* at sites\.c:$recv \(exchange\) \*/$" "show: no site on MPI_Recv"
expect_status 0 "$DT" show --from 2 g 2.0
has "^ +2 +[0-9.]+ +MPI_Barrier\(\) \{ /\* at sites\.c:$barrier \(main\) \*/$" "show --from: no site on MPI_Barrier"
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

# a uftrace recording (the default): show matches each MPI call of the trace to the record's
# entries of the same thread and function, in order, and names its site
need uftrace
"$MPICC" -pg -O2 -g -o "$T/uf.bin" "$SRC" >"$T/cc.log" 2>&1 || { cat "$T/cc.log" >&2; fail "mpicc -pg failed"; }
# shellcheck disable=SC2086
timeout -k 5 150 "$MPIRUN" $flags "$RECORD" -o "$T/uf" -- "$T/uf.bin" ok </dev/null >"$T/uf.log" 2>&1 ||
	{ cat "$T/uf.log" >&2; fail "uftrace: the recording failed"; }
expect_status 0 "$DT" import -r uf "$T/uf"
expect_status 0 "$DT" show uf 0.0
has "^ +[0-9]+ +[0-9.]+ +MPI_Send\(.*\); /\* at sites\.c:$send \(exchange\) \*/$" "uftrace show: no site on MPI_Send"
has "^ +[0-9]+ +[0-9.]+ +MPI_Recv\(.*\); /\* at sites\.c:$recv \(exchange\) \*/$" "uftrace show: no site on MPI_Recv"
has "^ +[0-9]+ +[0-9.]+ +MPI_Barrier\(.*\); /\* at sites\.c:$barrier \(main\) \*/$" "uftrace show: no site on MPI_Barrier"

# a tag mismatch: the report names where the blocked receive and the unreceived send were made
rec tag tag -O2 -g
expect_status 0 "$DT" hang tag
has '^  tag mismatch: 1\.0 waits for tag 0 from 0; 0\.0 sent tag 7 to 1 \(unreceived\)$' "tag: no mismatch"
has "^    the receive at sites\.c:$recv \(exchange\)$" "tag: the receive's site"
has "^    the send at sites\.c:$send \(exchange\)$" "tag: the send's site"
has "^most likely cause: .*tag mismatch.*; the receive at sites\.c:$recv \(exchange\); the send at sites\.c:$send \(exchange\)$" \
	"tag: the cause does not say where the two calls were made"
expect_status 0 "$DT" hang --format json tag
has "\"kind\": \"tag\", .*\"receive_site\": \{\"file\": \"[^\"]*/sites\.c\", \"line\": $recv, \"function\": \"exchange\"\}, \"send_site\": \{\"file\": \"[^\"]*/sites\.c\", \"line\": $send, " \
	"json: the mismatch's sites"
has "\"cause\": \{\"why\": \"mismatch\", .*\"site\": \{\"file\": \"[^\"]*/sites\.c\", \"line\": $recv, \"function\": \"exchange\"\}" \
	"json: the mismatch cause's site is not the receive's"
# against the normal run: the call that departs from it, where it was made, in hang's cause
# and in rank's reason (the hang-safe record's call that broke the pattern)
expect_status 0 "$DT" hang --normal ok tag
has "^most likely cause: 0\.0: its calls depart from the normal run.s at call [0-9]+ of [0-9]+: MPI_Send\[tag=7\] at sites\.c:$send \(exchange\) where the normal run has MPI_Send\[tag=0\]$" \
	"hang --normal: the departing call has no site"
expect_status 0 "$DT" hang --normal ok --format json tag
has "\"cause\": \{\"why\": \"diverged\", .*\"site\": \{\"file\": \"[^\"]*/sites\.c\", \"line\": $send, \"function\": \"exchange\"\}" \
	"hang --normal json: the cause's site is not the send's"
expect_status 0 "$DT" rank --normal ok --faulty tag
has "^ +1 +0\.0 .*hang-safe record, call [0-9]+ of [0-9]+: MPI_Send\[tag=7\] at sites\.c:$send \(exchange\) where the normal run has MPI_Send\[tag=0\]" \
	"rank: the call that broke the pattern has no site"
expect_status 0 "$DT" rank --normal ok --faulty tag --format json
has "\"trace\": \"0\.0\", .*\"site\": \{\"file\": \"[^\"]*/sites\.c\", \"line\": $send, \"function\": \"exchange\"\}" \
	"rank json: 0.0's site is not the send's"

# a store of schema 11 (before the sites): read as before, without them
if command -v sqlite3 >/dev/null; then
	cp "$DIFFTRACE_DB" "$T/old.db"
	sqlite3 "$T/old.db" 'DROP TABLE sync_sites; PRAGMA user_version = 11;' || fail "sqlite3"
	expect_status 0 "$DT" -d "$T/old.db" hang g
	has '^  P 0-1 T 0 +in MPI_Recv \(1st\)$' "schema 11: not read as before"
	grep -q ' at sites\.c:' "$T/out" && { cat "$T/out" >&2; fail "schema 11: a site out of nowhere"; }
fi

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
