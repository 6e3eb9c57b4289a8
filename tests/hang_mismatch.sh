#!/bin/sh
# A mismatch is named (issue 24, item 2): for a blocked receive with a near-match, 'hang'
# says what differs, in text and JSON: a tag mismatch (rank 2 waits for tag 11 from 3, which
# sends it tag 10), a peer mismatch (rank 2 waits for tag 10 from 3, rank 1 sends it tag 10)
# and a count mismatch (4 INT received, 8 sent). Made-up sync records (tests/mk_sync_rec);
# a run without a mismatch, or killed in a matching exchange, names none.
. "${abs_top_srcdir:-.}/tests/lib.sh"

need built
MK="$abs_top_builddir/tests/mk_sync_rec"
[ -x "$MK" ] || fail "tests/mk_sync_rec is not built"

check() { # KIND TEXT
	"$MK" "$T/$1" "$1" || fail "mk_sync_rec $1"
	expect_status 0 "$DT" import --run "$1" "$T/$1"
	expect_status 0 "$DT" hang "$1"
	grep -qxF "  $1 mismatch: $2" "$T/out" || { cat "$T/out" >&2; fail "$1: not named"; }
	[ "$(grep -c 'mismatch:' "$T/out")" = 1 ] || { cat "$T/out" >&2; fail "$1: more than one"; }
	expect_status 0 "$DT" hang --format json "$1"
	grep -qF "{\"pt\": \"2.0\", \"kind\": \"$1\", \"sender\": \"$3\", \"send_seq\": $4, \"text\": \"$2\", \"receive_site\": null, \"send_site\": null}" \
		"$T/out" || { cat "$T/out" >&2; fail "$1: not in the JSON report"; }
}
check tag "2.0 waits for tag 11 from 3; 3.0 sent tag 10 to 2 (unreceived)" 3.0 4
check peer "2.0 waits for tag 10 from 3; 1.0 sent tag 10 to 2 (unreceived)" 1.0 2
check count "2.0 waits for 4 MPI_INT, tag 10 from 3; 3.0 sent 8 MPI_INT, tag 10 to 2 (another size)" \
	3.0 4

# the interface's hang view shows them too, and Enter on one opens the receiver's timeline
printf '%s\n' : '"hang tag"' Enter > "$T/keys"
"$DT" tui --script "$T/keys" --dump "$T/screen" --size 26x80 >/dev/null 2>"$T/err" ||
	fail "tui: $(cat "$T/err")"
grep -qx '  tag mismatch: 2.0 waits for tag 11 from 3; 3.0 sent tag 10 to 2 (unreceived)' \
	"$T/screen" || { cat "$T/screen" >&2; fail "the hang view lacks the mismatch"; }
# and, as difftrace hang, the calls that can never complete (issue 24, item 6)
grep -q '^  calls that can never complete (held by the causality filter at the end):$' \
	"$T/screen" && grep -q '^  2\.0 in MPI_Recv (2nd): rule mpi-p2p\.rules:[0-9]*: RECV(0, 3, 2, 11, 1)' \
	"$T/screen" || { cat "$T/screen" >&2; fail "the hang view lacks the calls never completing"; }
printf '%s\n' : '"hang tag"' Enter j j j j j j j j j j j > "$T/keys"
"$DT" tui --script "$T/keys" --dump "$T/screen" --size 24x80 >/dev/null 2>"$T/err" ||
	fail "tui: $(cat "$T/err")"
grep -q '^> *tag mismatch: 2\.0' "$T/screen" || { cat "$T/screen" >&2; fail "cursor not on it"; }
printf '%s\n' : '"hang tag"' Enter j j j j j j j j j j j Enter > "$T/keys"
"$DT" tui --script "$T/keys" --dump "$T/screen" --size 24x80 >/dev/null 2>"$T/err" ||
	fail "tui: $(cat "$T/err")"
grep -q '^2\.0 #[0-9]* MPI_Recv enter' "$T/screen" ||
	{ cat "$T/screen" >&2; fail "Enter on the mismatch: not the receiver's timeline"; }

# the timeline's p on the blocked receive goes to the unreceived send, and says why
printf '%s\n' : '"timeline tag"' Enter l l G p > "$T/keys"
"$DT" tui --script "$T/keys" --dump "$T/screen" --size 24x80 >/dev/null 2>"$T/err" ||
	fail "tui: $(cat "$T/err")"
grep -q '^3\.0 #4 MPI_Send enter' "$T/screen" &&
	grep -qx 'tag mismatch: 2.0 waits for tag 11 from 3; 3.0 sent tag 10 to 2 (unreceived)' \
		"$T/screen" || { cat "$T/screen" >&2; fail "timeline p: the mismatch not named"; }

# no mismatch: a deadlock of two receives, and a halo exchange killed in its Waitall (its
# last messages sent, not yet received: they match)
"$MK" "$T/hung" hung || fail "mk_sync_rec hung"
"$MK" "$T/killed" killed 4 50 || fail "mk_sync_rec killed"
for r in hung killed; do
	expect_status 0 "$DT" import --run "$r" "$T/$r"
	expect_status 0 "$DT" hang "$r"
	grep -q 'mismatch' "$T/out" && { cat "$T/out" >&2; fail "$r: a mismatch named"; }
	expect_status 0 "$DT" hang --format json "$r"
	grep -q '"mismatches": \[\],' "$T/out" || { cat "$T/out" >&2; fail "$r: JSON mismatches"; }
done

# the user's path: examples/kinds.c, -O2 -g, whose rank 2 sends its ring messages with a tag
# nobody receives, recorded under mpirun and stopped by --timeout: its neighbours, waiting in
# MPI_Waitall for their receives from 2, are named
MPICC=${MPICC:-$(command -v mpicc || true)}
MPIRUN=${MPIRUN:-$(command -v mpirun || true)}
if [ -z "$MPICC" ] || [ -z "$MPIRUN" ] || ! command -v timeout >/dev/null ||
	[ ! -f "$abs_top_builddir/libdifftrace-sync.so" ]; then
	echo "no mpicc, mpirun, timeout or libdifftrace-sync.so: the recorded run is left out"
	pass
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=3
"$MPICC" -fopenmp -O2 -g -o "$T/kinds" "$abs_top_srcdir/examples/kinds.c" >"$T/cc.log" 2>&1 ||
	{ cat "$T/cc.log" >&2; fail "mpicc failed"; }
flags="-np 4"
"$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags="$flags --oversubscribe"
# shellcheck disable=SC2086
(cd "$T" && timeout -k 5 150 "$MPIRUN" $flags "$RECORD" --sync-only --timeout 5 -o "$T/rec" -- \
	"$T/kinds" --iters 4 --bug tag --proc 2 --thread 1 --iter 1 </dev/null >"$T/rec.log" 2>&1)
[ -d "$T/rec/rank-2/sync" ] || { cat "$T/rec.log" >&2; fail "no sync record"; }
expect_status 0 "$DT" import --run rec "$T/rec"
expect_status 0 "$DT" hang rec
for p in 1 3; do
	grep -qxF "  tag mismatch: $p.0 waits for tag 7 from 2; 2.0 sent tag 99 to $p (unreceived)" \
		"$T/out" || { cat "$T/out" >&2; fail "recorded run: $p.0's mismatch not named"; }
done
pass
