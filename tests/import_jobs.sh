#!/bin/sh
# difftrace import --jobs (issue 13): the threads of one process share the units of work (trace
# files, rank directories) as the processes of an MPI job do, and the store is the one a serial
# import makes (every table the same but the run's creation time) with 1, 2, 3 and 4 threads,
# for text traces, uftrace recordings of rank directories and of OpenMP threads, and a trace
# larger than a part (sent in pieces); a thread that fails on its share fails the import with
# the file, line and column, leaving the store as it was; bad --jobs values are refused.
. "${abs_top_srcdir:-.}/tests/lib.sh"

command -v sqlite3 >/dev/null || skip "sqlite3 not found (apt-get install sqlite3)"

mkdir "$T/tr"
for p in 0 1 2 3 4 5 6 7 8; do
	for t in 0 1 2; do
		{ printf 'main\nMPI_Init\n[ret]\n'
		  i=0; while [ $i -lt $((5 + p * 3 + t)) ]; do
			printf 'MPI_Send\n[ret]\nwork_%d_%d\n[ret]\n' $(((i + p) % 4)) "$t"; i=$((i + 1)); done
		  printf 'MPI_Finalize\n[ret]\n[ret]\n'; } > "$T/tr/$p.$t.txt"
	done
done
# 1.0.txt (unit 3, decoded by a thread) bigger than a part of the wire (4 MB): 1.2 M
# events over names first met in the middle of it
awk 'BEGIN { srand(3); print "main"; for (i = 0; i < 600000; i++) {
	if (i < 300000) printf "f%d\n[ret]\n", int(rand() * 50); else printf "g%d\n[ret]\n", int(rand() * 5000) }
	print "[ret]" }' > "$T/tr/1.0.txt"

dump() { # every table of the store, the runs' creation times left out
	sqlite3 "$1" .dump | sed "s/'[0-9-]* [0-9:]*'/TIME/g"
}
imp() { # DB JOBS
	"$DT" -d "$1" import -q --jobs "$2" --run tr "$T/tr" >"$T/imp.out" 2>&1 ||
		{ cat "$T/imp.out" >&2; fail "import of text traces with $2 threads failed"; }
	for u in mpi omp nest; do
		"$DT" -d "$1" import -q --jobs "$2" --run "$u" "$DATA/uftrace/$u" >"$T/imp.out" 2>&1 ||
			{ cat "$T/imp.out" >&2; fail "import of uftrace/$u with $2 threads failed"; }
	done
}
imp "$T/serial.db" 1
dump "$T/serial.db" >"$T/serial.sql"
grep -q 'INSERT INTO traces' "$T/serial.sql" || fail "the serial store has no traces"
[ "$("$DT" -d "$T/serial.db" traces --format csv tr | grep -c '')" -eq 28 ] ||
	fail "not 27 traces (and a header) in the text run"
for j in 2 3 4; do
	imp "$T/j$j.db" $j
	dump "$T/j$j.db" >"$T/j$j.sql"
	cmp -s "$T/serial.sql" "$T/j$j.sql" ||
		{ diff "$T/serial.sql" "$T/j$j.sql" | head -20 >&2; fail "$j threads: not the serial store"; }
done
# the default (the cores this process may use) is the same store too
"$DT" -d "$T/def.db" import -q --run tr "$T/tr" >"$T/imp.out" 2>&1 || { cat "$T/imp.out" >&2; fail "default import"; }
"$DT" -d "$T/one.db" import -q --jobs 1 --run tr "$T/tr" >"$T/imp.out" 2>&1 || fail "import --jobs 1"
[ "$(dump "$T/def.db")" = "$(dump "$T/one.db")" ] || fail "the default number of threads: not the serial store"

# a thread that fails on its share (unit 17, 5.2.txt: the third thread's of 3) fails the
# import: the error names the file, line and column, and the store is as it was
printf 'main\nwo\000rk\n[ret]\n' > "$T/tr/5.2.txt"
before=$(dump "$T/j3.db")
for j in 1 3; do
	"$DT" -d "$T/j3.db" import -q --jobs $j --run bad "$T/tr" >"$T/bad.out" 2>&1
	st=$?
	[ $st -eq 1 ] || { cat "$T/bad.out" >&2; fail "a failing unit with $j threads: exit $st, not 1"; }
	grep -q "5\.2\.txt:2:3: NUL byte" "$T/bad.out" || { cat "$T/bad.out" >&2; fail "the error does not name the file and place ($j threads)"; }
	grep -q 'the store is unchanged' "$T/bad.out" || { cat "$T/bad.out" >&2; fail "not said that nothing changed"; }
	[ "$(dump "$T/j3.db")" = "$before" ] || fail "a failed import with $j threads changed the store"
done

# bad values
for v in 0 -1 abc 2x 257; do
	expect_status 2 "$DT" -d "$T/j3.db" import --jobs "$v" "$T/tr"
	expect_err "bad --jobs '$v'"
done
expect_status 0 "$DT" import --help
grep -q -- '--jobs N' "$T/out" || fail "--jobs not in import --help"
pass
