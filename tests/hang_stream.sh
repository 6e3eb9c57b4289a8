#!/bin/sh
# difftrace hang streams (issue 25, item 2): the sync events go through the analysis a chunk
# of a thread at a time, keeping only what the report needs (open calls, requests not
# completed, sends not received, runs of collectives alike), then through the causality
# filter with the open calls' completions, so memory is that of the report and of the events
# the filter holds, not of the record. Made-up records (tests/mk_sync_rec) of every shape: the
# streamed report is the one of the whole record loaded at once (hang --whole, which keeps
# that path), byte for byte, in both formats, of the imported run and of its recording's
# directory; and a ring of 4 processes of 1.2 million events hung at its end is reported
# within 40 MB of address space (ulimit -v; it needs 16 MB, the executable and its libraries
# 10 of them), where the whole record loaded at once took 250 MB (the build of the commit
# before fails there), and from its directory (imported privately, each .dts file mapped
# while it is read: 34 MB of address space here) within 100 MB. Against a normal run (hang --normal), each
# thread's calls are compared with its counterpart's a chunk of both at a time: the report and
# every field of the comparison (tests/hr_dump) are those of both records loaded whole
# (--whole), on pairs of the records above; the large record against a normal one as long is
# reported within the same 40 MB (the build before took 377 MB and fails). The timeout only
# keeps a regression from hanging the suite: nothing is timed.
. "${abs_top_srcdir:-.}/tests/lib.sh"

need built timeout
MK="$abs_top_builddir/tests/mk_sync_rec"
[ -x "$MK" ] || fail "tests/mk_sync_rec is not built"
HRD="$abs_top_builddir/tests/hr_dump"
[ -x "$HRD" ] || fail "tests/hr_dump is not built"

for rec in ok hung "ring 3 300" "killed 3 200" tag peer count "chain 1" "stuck 3 300"; do
	name=$(echo "$rec" | cut -d' ' -f1)
	# shellcheck disable=SC2086
	"$MK" "$T/$name" $rec || fail "mk_sync_rec $rec"
	expect_status 0 "$DT" import --run "$name" "$T/$name"
	for f in text json; do
		for what in "$name" "$T/$name"; do
			"$DT" hang --format "$f" "$what" >"$T/s.out" 2>"$T/s.err"
			st=$?
			"$DT" hang --whole --format "$f" "$what" >"$T/w.out" 2>"$T/w.err"
			sw=$?
			[ "$st" = 0 ] || { cat "$T/s.err" >&2; fail "hang $rec ($f, $what): exit status $st"; }
			[ "$sw" = 0 ] || { cat "$T/w.err" >&2; fail "hang --whole $rec ($f, $what): exit status $sw"; }
			[ -s "$T/s.out" ] || fail "hang $rec ($f, $what): no output"
			cmp -s "$T/s.out" "$T/w.out" ||
				{ diff "$T/w.out" "$T/s.out" | head -n 20 >&2
				  fail "hang $rec ($f, $what): not the report of the whole record"; }
			cmp -s "$T/s.err" "$T/w.err" || fail "hang $rec ($f, $what): another message"
		done
	done
done
# against a normal run (hang --normal): the faulty run's report streamed and each thread's
# calls compared with its counterpart's a chunk of both at a time, the same as both records
# loaded whole (hang --whole --normal); a pair of each kind: a prefix, a departure, threads
# only in one run, a faulty run that did not hang
"$MK" "$T/steady" steady 3 300 || fail "mk_sync_rec steady 3 300"
expect_status 0 "$DT" import --run steady "$T/steady"
"$MK" "$T/chain0" chain 0 || fail "mk_sync_rec chain 0"
expect_status 0 "$DT" import --run chain0 "$T/chain0"
# several chunks a thread (4,096 events each), the departure in the third, or at the start
for rec in "steadym steady 3 3000" "stuckm stuck 3 3000" "ringm ring 3 3000"; do
	# shellcheck disable=SC2086
	set -- $rec
	name=$1
	shift
	"$MK" "$T/$name" "$@" || fail "mk_sync_rec $*"
	expect_status 0 "$DT" import --run "$name" "$T/$name"
done
# the same program started with a larger size (every send and receive with another count: a
# changed input, left out of the comparison in both paths)
"$MK" "$T/size64" size 64 || fail "mk_sync_rec size 64"
expect_status 0 "$DT" import --run size64 "$T/size64"
"$MK" "$T/size5000" size 5000 || fail "mk_sync_rec size 5000"
expect_status 0 "$DT" import --run size5000 "$T/size5000"
for pair in "ok hung" "ok tag" "tag peer" "peer count" "count tag" "hung ok" "chain0 chain" \
	"steady stuck" "ring stuck" "ring killed" "steady killed" "stuck stuck" "steadym stuckm" \
	"ringm stuckm" "stuckm stuck" "stuck stuckm" "size64 size5000" "hung peer"; do
	# shellcheck disable=SC2086
	set -- $pair
	for f in text json; do
		"$DT" hang --normal "$1" --format "$f" "$2" >"$T/s.out" 2>"$T/s.err"
		st=$?
		"$DT" hang --whole --normal "$1" --format "$f" "$2" >"$T/w.out" 2>"$T/w.err"
		sw=$?
		[ "$st" = "$sw" ] || { cat "$T/s.err" "$T/w.err" >&2; fail "hang --normal $pair ($f): exit status $st, whole $sw"; }
		[ -s "$T/s.out" ] || [ "$st" != 0 ] || fail "hang --normal $pair ($f): no output"
		cmp -s "$T/s.out" "$T/w.out" ||
			{ diff "$T/w.out" "$T/s.out" | head -n 20 >&2
			  fail "hang --normal $pair ($f): not the report of the whole records"; }
		cmp -s "$T/s.err" "$T/w.err" || fail "hang --normal $pair ($f): another message"
	done
	# every field of the comparison, not only those the report says
	"$HRD" "$DIFFTRACE_DB" "$1" "$2" >"$T/s.out" 2>&1 || { cat "$T/s.out" >&2; fail "hr_dump $pair"; }
	"$HRD" "$DIFFTRACE_DB" "$1" "$2" --whole >"$T/w.out" 2>&1 ||
		{ cat "$T/w.out" >&2; fail "hr_dump --whole $pair"; }
	cmp -s "$T/s.out" "$T/w.out" ||
		{ diff "$T/w.out" "$T/s.out" | head -n 20 >&2; fail "$pair: another comparison streamed"; }
done
grep -q '^3 threads$' "$T/s.out" || { cat "$T/s.out" >&2; fail "hr_dump hung peer: not 3 threads"; }
# the comparison said: the rank that broke the pattern, its call against the normal run's
"$DT" hang --normal steady stuck >"$T/out" || fail "hang --normal steady stuck"
grep -q 'depart from the normal run.s at call 606 of 605: MPI_Recv' "$T/out" ||
	{ cat "$T/out" >&2; fail "hang --normal steady stuck: no departure"; }

# the cases the records above make, said
"$DT" hang tag >"$T/out" || fail "hang tag"
head -n 1 "$T/out" | grep -q '^most likely cause: 2.0, 3.0 (tied): a tag mismatch between threads that wait for each other, 2.0 waits for tag 11 from 3; 3.0 sent tag 10 to 2 (unreceived): one of the two has it wrong$' ||
	{ cat "$T/out" >&2; fail "hang tag: the cause is not the mismatch's two threads"; }
"$DT" hang --format json tag >"$T/out" || fail "hang --format json tag"
grep -q '"why": "mismatch", "pts": \["2.0", "3.0"\]' "$T/out" || { cat "$T/out" >&2; fail "hang tag: json cause"; }
"$DT" hang peer >"$T/out" || fail "hang peer"
grep -q 'peer mismatch: 2.0 waits for tag 10 from 3; 1.0 sent tag 10 to 2' "$T/out" ||
	{ cat "$T/out" >&2; fail "hang peer: no peer mismatch"; }
"$DT" hang killed >"$T/out" || fail "hang killed"
grep -q '^  P 0-2 T 0  *in MPI_Waitall (200th)$' "$T/out" ||
	{ cat "$T/out" >&2; fail "hang killed: not in the last MPI_Waitall"; }
# rules that never release an MPI_Allreduce's exit: the same held events both ways
cat >"$T/never.rules" <<'EOR'
event INIT(proc) on exit /^MPI_Init(_thread)?$/;
event NEVER(proc) on exit /^MPI_Allreduce$/;
rule NEVER(p, n) <- INIT(p + 100, n);
EOR
"$DT" hang --rules "$T/never.rules" stuck >"$T/s.out" 2>&1 || fail "hang --rules never.rules"
"$DT" hang --whole --rules "$T/never.rules" stuck >"$T/w.out" 2>&1 || fail "hang --whole --rules"
cmp -s "$T/s.out" "$T/w.out" || { diff "$T/w.out" "$T/s.out" >&2; fail "hang --rules: another report"; }
grep -q 'MPI_Allreduce exit' "$T/s.out" || { cat "$T/s.out" >&2; fail "the held Allreduce not reported"; }

# a large record: 4 processes x 75,000 rounds of a ring with one tag, an MPI_Allreduce every
# 64th, then each waits for the one before it
"$MK" "$T/big" stuck 4 75000 || fail "mk_sync_rec stuck 4 75000"
expect_status 0 "$DT" import --run big "$T/big"
grep -q '1,209,380 events' "$T/out" || { cat "$T/out" >&2; fail "the record is not the expected size"; }
# the sanitizers reserve terabytes of address space: no bound there
bound=
dbound=
if ! { ldd "$DT" 2>/dev/null | grep -q 'lib[at]san'; } &&
	! { nm "$DT" 2>/dev/null | grep -q __asan_init; }; then
	bound=40960
	dbound=102400
fi
for what in big "$T/big"; do
	b=$bound
	[ "$what" = big ] || b=$dbound
	(
		[ -z "$b" ] || ulimit -v "$b"
		exec timeout -k 5 600 "$DT" hang "$what"
	) >"$T/out" 2>"$T/err"
	st=$?
	[ "$st" = 0 ] || { cat "$T/err" >&2; fail "hang of the large record ($what): exit status $st"; }
	grep -q '^  P 0-3 T 0  *in MPI_Recv (75001st)$' "$T/out" ||
		{ cat "$T/out" >&2; fail "hang ($what) does not place the 4 processes in their last MPI_Recv"; }
	grep -q '^  0.0 -> 3.0 -> 2.0 -> 1.0 -> 0.0$' "$T/out" ||
		{ cat "$T/out" >&2; fail "hang ($what): no cycle of the 4"; }
	grep -q '^  3.0 in MPI_Recv (75001st): rule mpi-p2p.rules:[0-9]*: RECV(0, 2, 3, 8, 1)' "$T/out" ||
		{ cat "$T/out" >&2; fail "hang ($what): 3.0's receive not held"; }
done
# against a normal run as long (the ring without the last receives): the comparison reads both
# a chunk of each thread at a time, within the same bound
"$MK" "$T/bign" steady 4 75000 || fail "mk_sync_rec steady 4 75000"
expect_status 0 "$DT" import --run bign "$T/bign"
(
	[ -z "$bound" ] || ulimit -v "$bound"
	exec timeout -k 5 600 "$DT" hang --normal bign big
) >"$T/out" 2>"$T/err"
st=$?
[ "$st" = 0 ] || { cat "$T/err" >&2; fail "hang --normal of the large records: exit status $st"; }
grep -q '^most likely cause: 0.0, 1.0, 2.0, 3.0 (tied): its calls depart from the normal run.s at call 151173 of 151172: MPI_Recv\[source=3,tag=8,datatype=MPI_INT\] where the normal run has (end)$' "$T/out" ||
	{ cat "$T/out" >&2; fail "hang --normal of the large records: not the departure of the last receives"; }
pass
