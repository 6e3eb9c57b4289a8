#!/bin/sh
# difftrace order (issue 10, parts 2 and 3, on real recordings): the sync events of a real
# MPI + OpenMP run merged under each policy pass the independent checker; an order written as
# csv checks back; an order that puts a receive's completion before its send is refused with the
# rule it breaks; the Chrome trace export has a row per trace and message arrows; bad options
# and rule files get one-line errors.
. "${abs_top_srcdir:-.}/tests/lib.sh"

need mpi built timeout
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=2
[ -f "$abs_top_builddir/libdifftrace-sync.so" ] ||
	skip "libdifftrace-sync.so not built (no mpicc at configure time)"
APP="$T/hangs"
"$MPICC" -fopenmp -O1 -o "$APP" "$abs_top_srcdir/tests/sync/hangs.c" >"$T/cc.log" 2>&1 ||
	{ cat "$T/cc.log" >&2; fail "mpicc failed"; }
cd "$T" || fail "cd $T"
flags="-np 3"
"$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags="$flags --oversubscribe"
# shellcheck disable=SC2086
timeout -k 5 150 "$MPIRUN" $flags "$RECORD" --sync-only -o "$T/ok" -- "$APP" ok </dev/null \
	>"$T/ok.log" 2>&1 || { cat "$T/ok.log" >&2; fail "the ok run failed"; }
expect_status 0 "$DT" import -r ok "$T/ok"
expect_status 0 "$DT" sync --format csv ok
nev=$(($(wc -l <"$T/out") - 1))
[ "$nev" -gt 100 ] || fail "too few sync events: $nev"

# every policy: all events delivered, and the checker accepts the order
for p in minimal concurrent timestamp; do
	expect_status 0 "$DT" order --policy "$p" --check ok
	grep -q "the order of $nev events passes the checker (policy $p)" "$T/err" ||
		fail "$p: $(cat "$T/err")"
	[ "$(grep -c ' MPI_\| GOMP_\| omp_' "$T/out")" -eq "$nev" ] ||
		fail "$p: not every event in the order: $(wc -l <"$T/out") lines for $nev events"
done
# maximal concurrency puts concurrent events in one step: fewer steps than events
expect_status 0 "$DT" order --policy concurrent --format csv ok
steps=$(awk -F, 'NR > 1 { s[$2] = 1 } END { print length(s) }' "$T/out")
[ "$steps" -lt "$nev" ] || fail "concurrent: $steps steps for $nev events"

# an order written as csv checks back; the same order with rank 2's events first does not
# (rank 2 completes a receive from rank 1 before rank 1 sent it)
expect_status 0 "$DT" order --format csv ok
cp "$T/out" "$T/order.csv"
expect_status 0 "$DT" order --check="$T/order.csv" ok
grep -q "a valid order of $nev of the $nev sync events" "$T/out" || fail "csv: $(cat "$T/out")"
{ head -1 "$T/order.csv"; awk -F, 'NR > 1 && $5 == 2' "$T/order.csv"
  awk -F, 'NR > 1 && $5 != 2' "$T/order.csv"; } >"$T/bad.csv"
expect_status 1 "$DT" order --check="$T/bad.csv" ok
expect_err 'breaks rule .*mpi-p2p.rules:[0-9]*'
# the same with a thread's own order broken
{ head -1 "$T/order.csv"; tail -n +2 "$T/order.csv" | sort -t, -k7,7nr; } >"$T/bad2.csv"
expect_status 1 "$DT" order --check="$T/bad2.csv" ok
expect_err "breaks its thread's order"
printf 'index,step\nnot a row\n' >"$T/bad3.csv"
expect_status 1 "$DT" order --check="$T/bad3.csv" ok
expect_err "bad3.csv: line 2: not a row"

# the Chrome trace event export: a named row per trace, message arrows from sends to receives
expect_status 0 "$DT" order --format chrome ok
grep -q '"traceEvents"' "$T/out" || fail "chrome: no traceEvents"
[ "$(grep -c '"name":"thread_name"' "$T/out")" -ge 6 ] || fail "chrome: fewer than 6 rows"
grep -q '"ph":"s"' "$T/out" && grep -q '"ph":"f"' "$T/out" || fail "chrome: no message arrows"
if command -v python3 >/dev/null; then
	python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$T/out" ||
		fail "chrome: not JSON"
fi

# errors: a bad policy or format is a usage error; a rule file with an error names its place;
# a run recorded without sync events says how to get them
expect_status 2 "$DT" order --policy fastest ok
expect_err "unknown policy 'fastest'"
expect_status 2 "$DT" order --format xml ok
printf 'event SEND(comm) on enter /MPI_Send/;\nrule SEND(c, n) <- && ;\n' >"$T/bad.rules"
expect_status 1 "$DT" order --rules "$T/bad.rules" ok
expect_err 'bad.rules:2:[0-9]*: '
printf 'a\nb\n[ret]\n[ret]\n' >"$T/t.txt"
expect_status 0 "$DT" import -r txt --format text "$T/t.txt"
expect_status 1 "$DT" order txt
expect_err "run 'txt' has no sync events"
pass
