#!/bin/sh
# Where each thread of a hung run stopped comes from one place (issue 22, item 2): rank names
# the call of every thread that `hang` names, from the hang-safe record, and says it is the
# sync record's. Made-up sync records (tests/mk_sync_rec): a normal run and one where ranks 0
# and 1 wait in MPI_Recv for each other and rank 2 in MPI_Barrier.
. "${abs_top_srcdir:-.}/tests/lib.sh"

MK="$abs_top_builddir/tests/mk_sync_rec"
[ -x "$MK" ] || fail "tests/mk_sync_rec is not built"
"$MK" "$T/n" ok || fail "mk_sync_rec ok"
"$MK" "$T/h" hung || fail "mk_sync_rec hung"
expect_status 0 "$DT" import -q --run n "$T/n"
expect_status 0 "$DT" import -q --run h "$T/h"
expect_status 0 "$DT" hang --format json h
sed -n 's/.*{"pt": "\([0-9.]*\)", "state": "in-call", "call": "\([A-Za-z_]*\)".*/\1 \2/p' "$T/out" |
	sort > "$T/hang"
[ "$(wc -l < "$T/hang")" = 3 ] || fail "hang: not 3 threads in a call: $(cat "$T/out")"
expect_status 0 "$DT" rank --normal n --faulty h --format csv
sed -n 's/^[0-9]*,\([0-9.]*\),.*\(stopped early in\|at the stop in\) \([A-Za-z_]*\) (sync record).*/\1 \3/p' \
	"$T/out" | sort > "$T/rank"
[ "$(cat "$T/rank")" = "$(cat "$T/hang")" ] ||
	fail "rank and hang name other calls: rank $(cat "$T/rank"), hang $(cat "$T/hang"): $(cat "$T/out")"
# text runs have no record: the trace's last call, said to be the trace's
mkdir "$T/tn" "$T/tf"
printf 'main\nMPI_Init\n[ret]\nMPI_Send\n[ret]\nMPI_Recv\n[ret]\nMPI_Finalize\n[ret]\n[ret]\n' > "$T/tn/0.0.txt"
cp "$T/tn/0.0.txt" "$T/tn/1.0.txt"
cp "$T/tn/0.0.txt" "$T/tf/0.0.txt"
printf 'main\nMPI_Init\n[ret]\nMPI_Send\n' > "$T/tf/1.0.txt"
expect_status 0 "$DT" import -q --run tn "$T/tn"
expect_status 0 "$DT" import -q --run tf "$T/tf"
expect_status 0 "$DT" rank --normal tn --faulty tf
grep -q '1\.0 .*stopped early in MPI_Send (trace), after' "$T/out" ||
	fail "text run: the trace's last call not said: $(cat "$T/out")"
pass
