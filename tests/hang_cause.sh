#!/bin/sh
# difftrace hang names the most likely cause first, and sees the waits the graph used to miss:
# tests/sync/culprits.c run with 4 ranks under difftrace-record --timeout deadlocks through an
# MPI_Wait on an MPI_Ibarrier, in a ring of four receives, in a barrier of a communicator made
# by MPI_Comm_split, in a wait for a persistent receive (MPI_Recv_init, MPI_Start), and aborts
# on an MPI error (MPI_ERR_RANK). Each cause line names the
# faulty rank; with --normal (a run of the same program that ended) it says how the rank's
# calls departed from it.
. "${abs_top_srcdir:-.}/tests/lib.sh"

need mpi built timeout
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
[ -f "$abs_top_builddir/libdifftrace-sync.so" ] ||
	skip "libdifftrace-sync.so not built (no mpicc at configure time)"
APP="$T/culprits"
"$MPICC" -O1 -g -o "$APP" "$abs_top_srcdir/tests/sync/culprits.c" >"$T/cc.log" 2>&1 ||
	{ cat "$T/cc.log" >&2; fail "mpicc failed"; }
cd "$T" || fail "cd $T"
flags="-np 4"
"$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags="$flags --oversubscribe"

# run NAME MODE [ok]: record the program (until the timeout when it hangs), import it as NAME
run() {
	name=$1; shift
	# shellcheck disable=SC2086
	timeout -k 5 150 "$MPIRUN" $flags "$RECORD" --timeout 4 --sync-only -o "$T/$name" -- \
		"$APP" "$@" </dev/null >"$T/$name.log" 2>&1
	[ -d "$T/$name/rank-3/sync" ] || { cat "$T/$name.log" >&2; fail "$name: no sync record"; }
	expect_status 0 "$DT" import -r "$name" "$T/$name"
}
# report NAME [OPTIONS]: the hang report into $T/NAME.hang
report() {
	name=$1; shift
	expect_status 0 "$DT" hang "$@" "$name"
	cp "$T/out" "$T/$name.hang"
}
has() { # NAME REGEX WHAT
	grep -Eq -- "$2" "$T/$1.hang" || { cat "$T/$1.hang" >&2; fail "$1: $3"; }
}
first() { # NAME REGEX WHAT: the report's first line
	head -1 "$T/$1.hang" | grep -Eq -- "$2" || { cat "$T/$1.hang" >&2; fail "$1: $3"; }
}

# rank 1 receives from 0 where the others wait for an MPI_Ibarrier it never entered: the
# waits on the Ibarrier's request wait for rank 1, which waits for rank 0
run ibarrier ibarrier
report ibarrier
has ibarrier '^  0\.0 +waits for 1\.0 \(collective: MPI_Wait' "the wait on the Ibarrier waits for nobody"
has ibarrier '^  2\.0 +waits for 1\.0 \(collective: MPI_Wait' "2.0's wait on the Ibarrier waits for nobody"
has ibarrier '^  (0\.0 -> 1\.0 -> 0\.0|1\.0 -> 0\.0 -> 1\.0)$' "no cycle through the Ibarrier"
first ibarrier '^most likely cause: 1\.0: of the 2 threads that wait for each other, the one in MPI_Recv \(1st\)' \
	"the cause is not rank 1, the only one not in the Ibarrier"
expect_status 0 "$DT" hang --format json ibarrier
grep -q '"cause": {"why": "odd", "pts": \["1.0"\], "text": "1.0: ' "$T/out" ||
	fail "json lacks the cause: $(cat "$T/out")"

# a ring of four receives (rank 2's from any source): the cycle is printed with all four
run ring ring
run ring-ok ring ok
report ring
has ring '^  0\.0 -> 3\.0 -> 2\.0 -> 1\.0 -> 0\.0$' "the ring of four not printed in full"
first ring '^most likely cause: 0\.0, 1\.0, 2\.0, 3\.0 \(tied\): 4 threads that wait for each other, all in MPI_Recv \(1st\)' \
	"the ring alone is not a tie of its four"
report ring --normal ring-ok
# the call the cause names, with where the program made it
S=' at culprits\.c:[0-9]+ \([a-z_]+\)'
first ring "^most likely cause: 0\\.0: its calls depart from the normal run.s at call 2 of 4: MPI_Recv\\[source=3,tag=7[^]]*\\]$S where the normal run has MPI_Ssend" \
	"with the normal run, the cause is not rank 0, which received first"
expect_status 1 "$DT" hang --normal nosuchrun ring

# rank 2 skips its half's barrier: rank 0 waits there for it (a member of the half it made,
# with no call on it yet), rank 2 waits for rank 0 in MPI_COMM_WORLD's
run split split
run split-ok split ok
report split
has split '^  0\.0 +waits for 2\.0 \(collective: MPI_Barrier comm=[0-9]*[2-9]' \
	"the barrier of the split communicator waits for nobody"
has split '^  (0\.0 -> 2\.0 -> 0\.0|2\.0 -> 0\.0 -> 2\.0)$' "no cycle through the split communicator"
report split --normal split-ok
first split "^most likely cause: 2\\.0: its calls depart from the normal run.s at call 3 of 6: MPI_Barrier\\[comm=0\\]$S where the normal run has MPI_Barrier\\[comm=" \
	"with the normal run, the cause is not rank 2, which skipped its barrier"

# persistent requests: rank 0's MPI_Wait on its MPI_Start of an MPI_Recv_init waits for rank
# 1, which never started its MPI_Send_init and waits in the barrier
run persist persist
run persist-ok persist ok
report persist
has persist '^  0\.0 +waits for 1\.0 \(request: MPI_Wait' "the wait on a persistent receive waits for nobody"
has persist '^  (0\.0 -> 1\.0 -> 0\.0|1\.0 -> 0\.0 -> 1\.0)$' "no cycle through the persistent receive"
report persist --normal persist-ok
first persist "^most likely cause: 1\\.0: its calls depart from the normal run.s at call 3 of 7: MPI_Request_free$S where the normal run has MPI_Start\\[dest=0,tag=9" \
	"with the normal run, the cause is not rank 1, which never started its send"
expect_status 0 "$DT" sync persist-ok 0.0
grep -q 'MPI_Start.*src=1 tag=9' "$T/out" || fail "MPI_Start not recorded with its MPI_Recv_init's arguments: $(cat "$T/out")"

# rank 1 sends to rank 99: an MPI error, the run aborts (not a timeout, not a deadlock)
run abort abort
report abort
first abort "^most likely cause: 1\\.0: an MPI error in MPI_Send\\[dest=99,tag=5.*\\]$S, MPI_ERR_RANK \\(error code [0-9]+\\): the run aborted\$" \
	"the abort and its reason not named"
has abort '^run abort: 4 threads with sync events, aborted \(flags' "the run is not said to have aborted"
grep -q 'stopped by difftrace-record --timeout' "$T/abort.hang" && fail "the abort is called a timeout"
grep -q '^deadlock' "$T/abort.hang" && fail "the abort is called a deadlock"
# the library's text on stderr: MPICH's launcher may end the job before it forwards the
# aborting rank's last output (on a loaded machine it forwarded none of it); the record has
# the error's class and code whatever the launcher does (the cause line, above)
if [ -s "$T/abort.log" ]; then
	grep -q 'difftrace-sync: rank 1: MPI error: ' "$T/abort.log" ||
		fail "the error not said on stderr: $(cat "$T/abort.log")"
else
	echo "note: the launcher forwarded none of the aborted job's output"
fi
pass
