#!/bin/sh
# A thread's start and end in the rule language (difftrace-rules(5); issue 27, item 3), through
# difftrace order on a made-up sync record (tests/mk_sync_rec ok: ranks 1 and 2 each make
# MPI_Init, a send, MPI_Barrier, MPI_Finalize; rank 0's main thread MPI_Init, two receives, a
# critical section, MPI_Barrier, MPI_Finalize; rank 0's second thread a critical section).
# With `start B` (B: a barrier's entry) every thread is off until its barrier: counted by hand,
# 4 + 4 + 10 events of the main threads and the 4 of 0.1 (which never starts) are ignored, 12
# are delivered; order says so on stderr, and the checker accepts the order.
. "${abs_top_srcdir:-.}/tests/lib.sh"

MK="$abs_top_builddir/tests/mk_sync_rec"
[ -x "$MK" ] || fail "tests/mk_sync_rec is not built"
"$MK" "$T/rec" ok || fail "mk_sync_rec ok"
expect_status 0 "$DT" import -r ok "$T/rec"
printf 'event B(proc) on enter /^MPI_Barrier$/;\nstart B;\n' >"$T/life.rules"
expect_status 0 "$DT" order --rules "$T/life.rules" --check ok
expect_err "22 of the 34 sync events of run 'ok' ignored: their thread was off"
expect_err "the order of 12 events passes the checker"
[ "$(grep -c ' MPI_\| GOMP_' "$T/out")" -eq 12 ] || fail "not 12 events: $(cat "$T/out")"
grep -q 'MPI_Init\|MPI_Send\|MPI_Recv\|GOMP_' "$T/out" && fail "an ignored event: $(cat "$T/out")"
[ "$(grep -c 'MPI_Barrier' "$T/out")" -eq 6 ] || fail "barriers: $(cat "$T/out")"
# an order that delivers an ignored event is refused (0.0's MPI_Init entry, before its start)
expect_status 0 "$DT" order --format csv ok
grep '^[0-9]*,[0-9]*,[0-9]*,[0-9-]*,0,0,0,"MPI_Init",enter,' "$T/out" >"$T/init.csv"
[ "$(wc -l <"$T/init.csv")" -eq 1 ] || fail "no MPI_Init row: $(cat "$T/out")"
expect_status 0 "$DT" order --rules "$T/life.rules" --format csv ok
{ head -1 "$T/out"; cat "$T/init.csv"; tail -n +2 "$T/out"; } >"$T/bad.csv"
expect_status 1 "$DT" order --rules "$T/life.rules" --check="$T/bad.csv" ok
expect_err "is delivered while its thread is off"
# `end`: a rank's events after its barrier's exit are ignored (its MPI_Finalize)
printf 'event E(proc) on exit /^MPI_Barrier$/;\nend E;\n' >"$T/end.rules"
expect_status 0 "$DT" order --rules "$T/end.rules" --check ok
expect_err "6 of the 34 sync events of run 'ok' ignored"
grep -q 'MPI_Finalize' "$T/out" && fail "end: $(cat "$T/out")"
# `end ... within`: after the end only the scope's events are ignored; an MPI_Finalize is out of
# a scope of sends, and turns its thread on again: nothing ignored
printf 'event E(proc) on exit /^MPI_Barrier$/;\nevent S(proc) on enter|exit /^MPI_Send$/;\nend E within S;\n' >"$T/endw.rules"
expect_status 0 "$DT" order --rules "$T/endw.rules" --check ok
grep -q 'ignored' "$T/err" && fail "end within: $(cat "$T/err")"
expect_err "the order of 34 events passes the checker"
[ "$(grep -c 'MPI_Finalize' "$T/out")" -eq 6 ] || fail "end within: $(cat "$T/out")"
# with a scope of MPI_Finalize, the 6 events are ignored as with `end E`
printf 'event E(proc) on exit /^MPI_Barrier$/;\nevent F(proc) on enter|exit /^MPI_Finalize$/;\nend E within F;\n' >"$T/endf.rules"
expect_status 0 "$DT" order --rules "$T/endf.rules" --check ok
expect_err "6 of the 34 sync events of run 'ok' ignored"
# `fork`: the rounds of maximal concurrency wait for the announced threads; the checker accepts
# the order, and a fork with no start to count its threads is refused
printf 'event B(proc) on enter /^MPI_Barrier$/;\nevent I(proc) on exit /^MPI_Init$/;\nstart B;\nfork I starts 1;\n' >"$T/fork.rules"
expect_status 0 "$DT" order --rules "$T/fork.rules" --policy concurrent --check ok
expect_err "the order of 12 events passes the checker (policy concurrent)"
printf 'event I(proc) on exit /^MPI_Init$/;\nfork I starts 1;\n' >"$T/fork2.rules"
expect_status 1 "$DT" order --rules "$T/fork2.rules" ok
expect_err "fork2.rules:2: \`fork I\` announces threads that start, but the rule set has no \`start\` statement"
pass
