#!/bin/sh
# difftrace hang on a large killed record (issue 19, item 4): runs of millions of sync events
# killed inside MPI_Waitall never finished (the completions a Waitall waits for were looked up
# with a pass over the process's events per request: quadratic), at 600 MB and growing (the
# run's events copied three times for the causality filter). A halo exchange of 4 processes
# killed in its last MPI_Waitall (tests/mk_sync_rec killed: half a million events, 60 MB in
# memory) must be reported within 220 MB of address space (ulimit -v), and say where each
# process is. The timeout only keeps a regression from hanging the suite: nothing is timed.
. "${abs_top_srcdir:-.}/tests/lib.sh"

need built timeout
MK="$abs_top_builddir/tests/mk_sync_rec"
[ -x "$MK" ] || fail "tests/mk_sync_rec is not built"
"$MK" "$T/k" killed 4 20000 || fail "mk_sync_rec killed"
expect_status 0 "$DT" import --run k "$T/k"
grep -q '489,996 events' "$T/out" || { cat "$T/out" >&2; fail "the record is not the expected size"; }
rm -rf "$T/k"

# the sanitizers reserve terabytes of address space: no bound there
bound=
if ! { ldd "$DT" 2>/dev/null | grep -q 'lib[at]san'; } &&
	! { nm "$DT" 2>/dev/null | grep -q __asan_init; }; then
	bound=225280
fi
(
	[ -z "$bound" ] || ulimit -v "$bound"
	exec timeout -k 5 600 "$DT" hang k
) >"$T/out" 2>"$T/err"
st=$?
[ "$st" = 0 ] || { cat "$T/err" >&2; fail "hang on the killed record: exit status $st"; }
grep -q '^  P 0-3 T 0  *in MPI_Waitall (20000th)$' "$T/out" ||
	{ cat "$T/out" >&2; fail "hang does not place the 4 processes in their last MPI_Waitall"; }
grep -q '0.0      waits for P 1,3 T 0 (request: MPI_Waitall' "$T/out" ||
	{ cat "$T/out" >&2; fail "no wait for the requests' peers"; }

# JSON too, under the same bound
(
	[ -z "$bound" ] || ulimit -v "$bound"
	exec timeout -k 5 600 "$DT" hang --format json k
) >"$T/out" 2>"$T/err" || { cat "$T/err" >&2; fail "hang --format json on the killed record"; }
grep -q '"pt": "3.0", "state": "in-call", "call": "MPI_Waitall", "occurrence": 20000' "$T/out" ||
	{ head -c 2000 "$T/out" >&2; fail "the JSON report lacks 3.0 in its last MPI_Waitall"; }
pass
