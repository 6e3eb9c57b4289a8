#!/bin/sh
# difftrace order streams (issue 25, item 2): the sync events are read a chunk of a thread at a
# time and merged by time into the causality filter, each event written as it is released, so
# memory is that of the events the filter holds, not of the record. Made-up records
# (tests/mk_sync_rec) of every shape: the streamed order is the order of the whole record
# loaded at once (order --check, which keeps that path), byte for byte, in each policy and
# format, the held events and the ignored ones reported alike; and a ring of 4 processes of
# 1.2 million events is ordered within 40 MB of address space (ulimit -v), where the whole
# record loaded at once took 300 MB (the build of the commit before fails there). The timeout only keeps a regression from hanging the
# suite: nothing is timed.
. "${abs_top_srcdir:-.}/tests/lib.sh"

need built timeout
MK="$abs_top_builddir/tests/mk_sync_rec"
[ -x "$MK" ] || fail "tests/mk_sync_rec is not built"

for rec in ok hung "ring 3 300" "killed 3 200" tag peer count; do
	name=$(echo "$rec" | cut -d' ' -f1)
	# shellcheck disable=SC2086
	"$MK" "$T/$name" $rec || fail "mk_sync_rec $rec"
	expect_status 0 "$DT" import --run "$name" "$T/$name"
	for p in minimal concurrent timestamp; do
		for f in text csv json; do
			"$DT" order --policy "$p" --format "$f" "$name" >"$T/s.out" 2>"$T/s.err"
			st=$?
			"$DT" order --check --policy "$p" --format "$f" "$name" >"$T/w.out" 2>"$T/w.err"
			sw=$?
			# (--check also judges the order: it refuses the timestamp policy's order of the
			# killed record, which is the same both ways)
			[ "$st" = 0 ] || { cat "$T/s.err" >&2; fail "order $rec ($p, $f): exit status $st"; }
			[ "$sw" = 0 ] || grep -q 'breaks rule' "$T/w.err" ||
				{ cat "$T/w.err" >&2; fail "order --check $rec ($p, $f): exit status $sw"; }
			[ -s "$T/s.out" ] || fail "order $rec ($p, $f): no output"
			cmp -s "$T/s.out" "$T/w.out" ||
				{ diff "$T/w.out" "$T/s.out" | head -n 20 >&2
				  fail "order $rec ($p, $f): not the order of the whole record"; }
			# the same report of held and ignored events (--check adds its verdict)
			grep -v 'passes the checker\|breaks rule' "$T/w.err" >"$T/w.rep"
			cmp -s "$T/s.err" "$T/w.rep" ||
				{ diff "$T/w.rep" "$T/s.err" >&2; fail "order $rec ($p, $f): another report"; }
		done
	done
done
# rules that never release an MPI_Allreduce's exit: the held events, listed the same
cat >"$T/never.rules" <<'EOR'
event INIT(proc) on exit /^MPI_Init(_thread)?$/;
event NEVER(proc) on exit /^MPI_Allreduce$/;
rule NEVER(p, n) <- INIT(p + 100, n);
EOR
held=0
for f in text csv; do
	"$DT" order --rules "$T/never.rules" --format "$f" ring >"$T/s.out" 2>"$T/s.err" ||
		{ cat "$T/s.err" >&2; fail "order --rules never.rules"; }
	"$DT" order --check --rules "$T/never.rules" --format "$f" ring >"$T/w.out" 2>"$T/w.err" ||
		{ cat "$T/w.err" >&2; fail "order --check --rules never.rules"; }
	cmp -s "$T/s.out" "$T/w.out" || fail "order --rules never.rules ($f): not the whole record's"
	grep -v 'passes the checker' "$T/w.err" >"$T/w.rep"
	cmp -s "$T/s.err" "$T/w.rep" ||
		{ diff "$T/w.rep" "$T/s.err" >&2; fail "order --rules never.rules ($f): another report"; }
	! grep -q 'can never be delivered' "$T/s.err" || held=$((held + 1))
done
[ "$held" = 2 ] || fail "the held events of never.rules not reported: $(cat "$T/s.err")"

# a large record: 4 processes x 75,000 rounds of a ring with one tag, an MPI_Allreduce every
# 64th: the filter holds a few events at a time; the whole record loaded at once takes 300 MB
"$MK" "$T/big" steady 4 75000 || fail "mk_sync_rec steady 4 75000"
expect_status 0 "$DT" import --run big "$T/big"
grep -q '1,209,376 events' "$T/out" || { cat "$T/out" >&2; fail "the record is not the expected size"; }
rm -rf "$T/big"
# the sanitizers reserve terabytes of address space: no bound there
bound=
if ! { ldd "$DT" 2>/dev/null | grep -q 'lib[at]san'; } &&
	! { nm "$DT" 2>/dev/null | grep -q __asan_init; }; then
	bound=40960
fi
(
	[ -z "$bound" ] || ulimit -v "$bound"
	exec timeout -k 5 600 "$DT" order --format csv big
) >"$T/out" 2>"$T/err"
st=$?
[ "$st" = 0 ] || { cat "$T/err" >&2; fail "order of the large record: exit status $st"; }
[ "$(wc -l <"$T/out")" = 1209377 ] || fail "order of the large record: $(wc -l <"$T/out") lines"
tail -n 1 "$T/out" | grep -q '^1209375,1209375,[0-9]*,0,3,0,302343,"MPI_Recv",exit,' ||
	{ tail -n 1 "$T/out" >&2; fail "the last event is not process 3's last MPI_Recv exit"; }
pass
