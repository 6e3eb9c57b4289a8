#!/bin/sh
# difftrace import under mpirun (issue 13, item 3): the processes share the traces and process
# 0 writes the store, which is the one a serial import makes (every table the same but the
# run's creation time) with 1, 2 and 4 processes, for text traces and for a uftrace recording
# of rank directories; a process that fails on its share leaves the store as it was, with the
# file and line of the error; a store import under a launcher without difftrace-mpi is refused.
. "${abs_top_srcdir:-.}/tests/lib.sh"

need mpi built
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
[ -x "$abs_top_builddir/difftrace-mpi" ] || skip "difftrace-mpi not built (no mpicc at configure time)"
command -v sqlite3 >/dev/null || skip "sqlite3 not found (apt-get install sqlite3)"
# LeakSanitizer (the sanitizer build) reports Open MPI's own allocations in difftrace-mpi
# (components it unloaded: no module to suppress by): not difftrace's, so not counted here
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
flags=
"$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags="--oversubscribe"

mkdir "$T/tr"
for p in 0 1 2 3 4 5 6 7 8; do
	for t in 0 1 2; do
		{ printf 'main\nMPI_Init\n[ret]\n'
		  i=0; while [ $i -lt $((5 + p * 3 + t)) ]; do
			printf 'MPI_Send\n[ret]\nwork_%d\n[ret]\n' $(((i + p) % 4)); i=$((i + 1)); done
		  printf 'MPI_Finalize\n[ret]\n[ret]\n'; } > "$T/tr/$p.$t.txt"
	done
done
UF="$abs_top_srcdir/tests/data/uftrace/mpi"

# dump DB: every table of the store, the runs' creation times left out
dump() {
	sqlite3 "$1" .dump | sed "s/'[0-9-]* [0-9:]*'/TIME/g"
}
imp() { # DB NP: import both into DB with NP processes (0: without mpirun)
	db=$1 np=$2
	for what in "tr $T/tr" "uf $UF"; do
		set -- $what
		if [ "$np" = 0 ]; then
			"$DT" -d "$db" import -q --run "$1" "$2" >"$T/imp.out" 2>&1
		else
			# shellcheck disable=SC2086
			timeout -k 5 120 "$MPIRUN" -np "$np" $flags "$DT" -d "$db" import -q --run "$1" "$2" \
				</dev/null >"$T/imp.out" 2>&1
		fi || { cat "$T/imp.out" >&2; fail "import of $1 with $np processes failed"; }
	done
}
imp "$T/serial.db" 0
dump "$T/serial.db" > "$T/serial.sql"
grep -q 'INSERT INTO traces' "$T/serial.sql" || fail "the serial store has no traces"
for np in 1 2 4; do
	imp "$T/p$np.db" $np
	dump "$T/p$np.db" > "$T/p$np.sql"
	cmp -s "$T/serial.sql" "$T/p$np.sql" ||
		{ diff "$T/serial.sql" "$T/p$np.sql" | head -20 >&2; fail "$np processes: not the serial store"; }
done
# and the analyses on it
expect_status 0 "$DT" -d "$T/serial.db" rank --normal tr --faulty uf --format csv
cp "$T/out" "$T/rank1"
expect_status 0 "$DT" -d "$T/p4.db" rank --normal tr --faulty uf --format csv
cmp -s "$T/rank1" "$T/out" || fail "the ranking differs: $(diff "$T/rank1" "$T/out")"

# a process that fails on its share (unit 11, 5.2.txt: process 3 of 4) fails the import: the
# error names the file, line and column, and the store is as it was
printf 'main\nwo\000rk\n[ret]\n' > "$T/tr/5.2.txt"
before=$(dump "$T/p4.db")
# shellcheck disable=SC2086
timeout -k 5 120 "$MPIRUN" -np 4 $flags "$DT" -d "$T/p4.db" import -q --run bad "$T/tr" \
	</dev/null >"$T/bad.out" 2>&1 && { cat "$T/bad.out" >&2; fail "a failing process: the import succeeded"; }
grep -q "5\.2\.txt:2:3: " "$T/bad.out" || { cat "$T/bad.out" >&2; fail "the error does not name the file and place"; }
grep -q 'the store is unchanged' "$T/bad.out" || { cat "$T/bad.out" >&2; fail "not said that nothing changed"; }
[ "$(dump "$T/p4.db")" = "$before" ] || fail "a failed parallel import changed the store"

# under a launcher, without difftrace-mpi beside it: refused, not imported once per process
DIFFTRACE_MPI="$T/none" OMPI_COMM_WORLD_SIZE=3 expect_status 2 "$DT" -d "$T/x.db" import -q "$UF"
expect_err 'difftrace-mpi is not here'
[ -e "$T/x.db" ] && fail "a store was made"
pass
