#!/bin/sh
# Every request the record numbers is completed once in it, however the MPI library hands out
# request handles. Open MPI and MPICH give every send they complete at once the same handle
# (a preallocated completed request), so two small MPI_Isend before an MPI_Waitall pass one
# handle twice: the recorder keeps both requests under it and gives the completions to them
# oldest first (a table keyed by the handle alone kept the last only, and the Waitall
# recorded 3 of its 4 completions). tests/sync/requests.c completes pairs of such sends by
# each call that completes requests (Wait, Waitall, Waitany, Waitsome, Test, Testall,
# Testsome), frees a pair (MPI_Request_free, recorded with the request it frees), starts
# persistent requests three times (and frees them, inactive: no request), cancels a receive
# (its completion has no source or tag) and exchanges again; last, it completes a receive
# by PMPI_Wait, which the recorder does not see, and posts another, to which both MPIs give
# the same handle: as the library has not completed it, the handle is its own, and its wait
# completes it, not the one before (which stays not completed). In `difftrace sync`, each
# request made is completed, or freed, exactly once (the one PMPI_Wait completed, never), by
# the request number it was made with, and a receive's completion has the tag it was posted
# with.
. "${abs_top_srcdir:-.}/tests/lib.sh"

need mpi built timeout
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
[ -f "$abs_top_builddir/libdifftrace-sync.so" ] ||
	skip "libdifftrace-sync.so not built (no mpicc at configure time)"

APP="$T/requests"
"$MPICC" -O2 -g -o "$APP" "$abs_top_srcdir/tests/sync/requests.c" >"$T/cc.log" 2>&1 ||
	{ cat "$T/cc.log" >&2; fail "mpicc failed"; }
cd "$T" || fail "cd $T"
flags="-np 2"
"$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags="$flags --oversubscribe"
# shellcheck disable=SC2086
timeout -k 5 150 "$MPIRUN" $flags "$RECORD" --sync-only -o "$T/rec" -- "$APP" </dev/null \
	>"$T/run.log" 2>&1 || { cat "$T/run.log" >&2; fail "the run failed"; }
grep -q '^done$' "$T/run.log" || { cat "$T/run.log" >&2; fail "the program did not end"; }
expect_status 0 "$DT" import -r req "$T/rec"

# made: the exits of the calls that make a request, with their tags; completions: the exits
# and the one-request records (=) of the calls that complete them
# shellcheck disable=SC2016
check='
$3 == "<" && $5 ~ /^MPI_(Isend|Irecv|Start)$/ && match($0, / req=[0-9]+/) {
	r = substr($0, RSTART + 5, RLENGTH - 5)
	tag = match($0, / tag=[0-9]+/) ? substr($0, RSTART + 5, RLENGTH - 5) : ""
	made[r] = tag
	order[++n] = r
}
($3 == "<" || $3 == "=") && $5 ~ /^MPI_(Wait|Test|Request_free)/ && match($0, / req=[0-9]+/) {
	r = substr($0, RSTART + 5, RLENGTH - 5)
	done[r]++
	if (!(r in made))
		print "request " r " completed, never made"
	else if (match($0, / tag=[0-9]+/) && substr($0, RSTART + 5, RLENGTH - 5) != made[r])
		print "request " r " (tag " made[r] ") completed by: " $0
}
END {
	for (i = 1; i <= n; i++) {
		r = order[i]
		want = made[r] == 12 ? 0 : 1
		if (done[r] + 0 != want)
			print "request " r " (tag " made[r] ") completed " done[r] + 0 " times, not " want
	}
	print "made " n
}'
for p in 0.0 1.0; do
	expect_status 0 "$DT" sync req "$p"
	cp "$T/out" "$T/sync.$p"
	awk "$check" "$T/sync.$p" >"$T/check.$p"
	# 9 pairs of sends, 2 pairs of receives, 3 x 2 starts, 3 single receives
	grep -q '^made 31$' "$T/check.$p" ||
		{ cat "$T/sync.$p" >&2; fail "$p: not 31 requests made: $(cat "$T/check.$p")"; }
	[ "$(wc -l <"$T/check.$p")" = 1 ] ||
		{ cat "$T/sync.$p" >&2; fail "$p: $(cat "$T/check.$p")"; }
	# the first Waitall: 4 completions
	[ "$(grep -c '= .* MPI_Waitall .*req=[1-4]$' "$T/sync.$p")" = 4 ] ||
		{ cat "$T/sync.$p" >&2; fail "$p: the first Waitall has not 4 completions"; }
	# the freed pair (tag 8), by the MPI_Request_free of each
	[ "$(grep -Ec '< .* MPI_Request_free  +req=1[78]$' "$T/sync.$p")" = 2 ] ||
		{ cat "$T/sync.$p" >&2; fail "$p: the sends freed are not requests 17 and 18"; }
	# the cancelled receive (tag 10): completed with neither source nor tag
	grep -Eq '< .* MPI_Wait  +req=25$' "$T/sync.$p" ||
		{ cat "$T/sync.$p" >&2; fail "$p: the cancelled receive's completion"; }
done
# the run ends normally in the analysis too: no request left waiting
expect_status 0 "$DT" hang req
grep -q 'no wait-for cycle' "$T/out" || fail "hang of a normal run: $(cat "$T/out")"
pass
