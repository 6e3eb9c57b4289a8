#!/bin/sh
# Culprits before victims in real hung runs, from the hang-safe record (issue 9, item 4): the
# bugs of examples/kinds.c whose runs hang are recorded with difftrace-record --sync-only
# --timeout (nothing in the record can be lost to the stop, whatever the load), and the
# default ranking against a normal run must put the faulty thread first, alone, with the
# reason from the record: the rank that left its loop early, broadcast from another root,
# dropped its farm result, sent with a tag nobody receives, received first; and the thread
# that spins outside any call, which the others wait for. The victims (stopped where they were
# made to wait, even with high scores) never carry a reason of the record.
. "${abs_top_srcdir:-.}/tests/lib.sh"

need mpi built timeout
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=3
[ -f "$abs_top_builddir/libdifftrace-sync.so" ] ||
	skip "libdifftrace-sync.so not built (no mpicc at configure time)"
APP="$T/kinds"
"$MPICC" -fopenmp -O1 -o "$APP" "$abs_top_srcdir/examples/kinds.c" >"$T/cc.log" 2>&1 ||
	{ cat "$T/cc.log" >&2; fail "mpicc failed"; }
cd "$T" || fail "cd $T"
flags="-np 4" ompi=
"$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags="$flags --oversubscribe" ompi=1

# rec NAME TIMEOUT [ARGS...]: record kinds.c into $T/NAME and import it as run NAME
rec() {
	name=$1 t=$2
	shift 2
	# shellcheck disable=SC2086
	timeout -k 5 150 "$MPIRUN" $flags "$RECORD" --sync-only --timeout "$t" -o "$T/$name" -- \
		"$APP" --iters 4 "$@" </dev/null >"$T/$name.log" 2>&1
	[ -d "$T/$name/rank-2/sync" ] || { cat "$T/$name.log" >&2; fail "$name: no sync record"; }
	"$DT" import -q --run "$name" "$T/$name" >"$T/$name.import" 2>&1 ||
		{ cat "$T/$name.import" >&2; fail "$name: import failed"; }
}
rec normal 120
grep -q 'checksum' "$T/normal.log" || { cat "$T/normal.log" >&2; fail "the normal run did not end"; }

# first BUG TRACE TIER: records BUG (in iteration 1), ranks it against the normal run, and
# checks that TRACE is alone first with hang_record TIER, and no other row has one
first() {
	bug=$1 culprit=$2 tier=$3
	rec "$bug" 5 --bug "$bug" --proc 2 --thread 1 --iter 1
	expect_status 0 "$DT" rank --normal normal --faulty "$bug" --format csv
	cp "$T/out" "$T/$bug.csv"
	row=$(sed -n 2p "$T/$bug.csv")
	[ "$(echo "$row" | cut -d, -f1-2,10)" = "1,$culprit,$tier" ] ||
		{ cat "$T/$bug.csv" >&2; fail "$bug: $culprit is not first with $tier: $row"; }
	[ "$(awk -F, 'NR > 1 && $1 == 1' "$T/$bug.csv" | wc -l)" = 1 ] ||
		{ cat "$T/$bug.csv" >&2; fail "$bug: $culprit is not alone first"; }
	[ "$(awk -F, 'NR > 2 && $10 != ""' "$T/$bug.csv" | wc -l)" = 0 ] ||
		{ cat "$T/$bug.csv" >&2; fail "$bug: a victim carries a reason of the hang-safe record"; }
	expect_status 0 "$DT" rank --normal normal --faulty "$bug"
	cp "$T/out" "$T/$bug.txt"
	# the text above is read from the ranking kept by the csv's rank (rankcache.h): computed
	# again it is the same, and so is the csv read back
	if command -v sqlite3 >/dev/null; then
		sqlite3 "$DIFFTRACE_DB" "DELETE FROM rank_cache" || fail "sqlite3"
		expect_status 0 "$DT" rank --normal normal --faulty "$bug"
		cmp -s "$T/out" "$T/$bug.txt" || fail "$bug: the kept ranking prints otherwise"
		expect_status 0 "$DT" rank --normal normal --faulty "$bug" --format csv
		cmp -s "$T/out" "$T/$bug.csv" || fail "$bug: the kept ranking, csv, prints otherwise"
	fi
}
reason() { # BUG REGEX: the text ranking's first row says REGEX
	grep '^   1  ' "$T/$1.txt" | grep -Eq -- "$2" || { cat "$T/$1.txt" >&2; fail "$1: reason lacks '$2'"; }
}

# the call that broke the pattern is named with where the program made it (its site: a
# file:line (function), or function+offset for a program without -g)
S=' at [^ ]+( \([^)]*\))?'
first early-exit 2.0 broke-pattern
reason early-exit "hang-safe record, call [0-9]+ of [0-9]+: MPI_Win_free$S where the normal run has GOMP_parallel"
if [ -n "$ompi" ]; then
	first bcast-root 2.0 broke-pattern
	reason bcast-root "MPI_Bcast\\[root=1\\]$S where the normal run has MPI_Bcast\\[root=0\\]"
else
	# MPICH completes a broadcast whose ranks name different roots (the data is wrong, nothing
	# hangs): the run ends, no record is cut, and the rank whose arguments differ is first
	first bcast-root 2.0 ''
	grep -q 'checksum' "$T/bcast-root.log" ||
		{ cat "$T/bcast-root.log" >&2; fail "bcast-root: the run did not end under MPICH"; }
	reason bcast-root "MPI_Bcast\\[root=1\\]($S)?, normally MPI_Bcast\\[root=0\\]"
fi
first farm-drop 2.0 broke-pattern
reason farm-drop 'where the normal run has MPI_Send\[dest=0,tag=4'
first tag 2.0 broke-pattern
reason tag "MPI_Isend\\[tag=99\\]$S where the normal run has MPI_Isend\\[tag=7\\]"
first recv-first 2.0 broke-pattern
reason recv-first "MPI_Recv\\[source=3,tag=1.*$S where the normal run has MPI_Send\\[dest=3,tag=1"
first spin 2.1 waited-for
reason spin '1 thread waits for it and it waits for nobody'
grep -q 'the hang-safe record.s pattern broken, then waited for' "$T/spin.txt" ||
	fail "spin: the order is not said: $(cat "$T/spin.txt")"

pass
