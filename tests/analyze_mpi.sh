#!/bin/sh
# difftrace analyze under mpirun (issue 13, item 3): the processes share the per-trace work
# (the NAME[args] pass of args mode, filter and NLR) and process 0 writes the store, whose
# analyses are those of a serial analyze with 1, 2 and 4 processes: the same store (every
# table, the runs' creation times aside) and the same classes, matrix, ranking and lattice, on
# runs with more traces than processes, MPI arguments (kinds.c recorded under uftrace, when
# uftrace is here) and a run with fewer traces than processes; a process that fails on its
# share, or a bad filter, fails the analysis with one line and leaves the store as it was.
. "${abs_top_srcdir:-.}/tests/lib.sh"

need mpi built
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=2
[ -x "$abs_top_builddir/difftrace-mpi" ] || skip "difftrace-mpi not built (no mpicc at configure time)"
command -v sqlite3 >/dev/null || skip "sqlite3 not found (apt-get install sqlite3)"
# LeakSanitizer (the sanitizer build) reports Open MPI's own allocations in difftrace-mpi
# (components it unloaded: no module to suppress by): not difftrace's, so not counted here
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
flags=
"$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags="--oversubscribe"

# text traces: 9 processes x 3 threads, two runs whose process 4 differs
for run in tn tf; do
	mkdir "$T/$run"
	for p in 0 1 2 3 4 5 6 7 8; do
		for t in 0 1 2; do
			{ printf 'main\nMPI_Init\n[ret]\n'
			  i=0; while [ $i -lt $((5 + t)) ]; do
				printf 'MPI_Send\n[ret]\nwork_%d\n[ret]\n' $(((i + p) % 4))
				[ "$run$p" = tf4 ] && printf 'MPI_Barrier\n[ret]\n'
				i=$((i + 1)); done
			  printf 'MPI_Finalize\n[ret]\n[ret]\n'; } > "$T/$run/$p.$t.txt"
		done
	done
	expect_status 0 "$DT" -d "$T/base.db" import -q --run "$run" "$T/$run"
done
# uftrace recordings, one trace with MPI arguments (fewer traces than processes)
expect_status 0 "$DT" -d "$T/base.db" import -q --run uf "$abs_top_srcdir/tests/data/uftrace/mpi"
expect_status 0 "$DT" -d "$T/base.db" import -q --run args "$abs_top_srcdir/tests/data/uftrace/args"
runs="tn tf uf args"
# kinds.c under uftrace: 4 processes x 2 threads, the MPI calls with their arguments
if command -v uftrace >/dev/null; then
	"$MPICC" -pg -fopenmp -O1 -o "$T/kinds" "$abs_top_srcdir/examples/kinds.c" >"$T/cc.log" 2>&1 ||
		{ cat "$T/cc.log" >&2; fail "mpicc failed"; }
	for what in "kn" "kf --bug order --proc 2 --iter 1"; do
		# shellcheck disable=SC2086
		set -- $what
		name=$1; shift
		# shellcheck disable=SC2086
		(cd "$T" && timeout -k 5 60 "$MPIRUN" -np 4 $flags "$RECORD" -o "$T/$name" -- \
			"$T/kinds" --iters 3 "$@" </dev/null >"$T/$name.log" 2>&1)
		[ -d "$T/$name/rank-3" ] || { cat "$T/$name.log" >&2; fail "recording kinds.c failed"; }
		expect_status 0 "$DT" -d "$T/base.db" import -q --run "$name" "$T/$name"
	done
	[ "$(sqlite3 "$T/base.db" "SELECT count(*) FROM traces t JOIN runs r ON r.id = t.run_id
		WHERE r.name = 'kf' AND t.nargs > 0")" -ge 4 ] || fail "kinds.c: no traces with MPI arguments"
	runs="$runs kn kf"
else
	echo "uftrace not found: kinds.c is not recorded (the args run has one traced call)" >&2
fi

# dump DB: every table of the store, the runs' creation times left out
dump() {
	sqlite3 "$1" .dump | sed "s/'[0-9-]* [0-9:]*'/TIME/g"
}
# outputs DB: what the commands read of the analyses
outputs() {
	for r in $runs; do
		for cmd in "classes" "classes --format json" "jsm --format json" "lattice"; do
			# shellcheck disable=SC2086
			"$DT" -d "$1" $cmd "$r" || echo "$cmd $r failed"
		done
	done
	"$DT" -d "$1" rank --normal tn --faulty tf --format csv || echo "rank failed"
	if [ "${runs%kf}" != "$runs" ]; then
		"$DT" -d "$1" rank --normal kn --faulty kf --format csv || echo "rank failed"
	fi
}
cp "$T/base.db" "$T/serial.db"
# shellcheck disable=SC2086
expect_status 0 "$DT" -d "$T/serial.db" analyze $runs
grep -q 'computed' "$T/out" || fail "the serial analysis computed nothing"
dump "$T/serial.db" > "$T/serial.sql"
grep -q 'INSERT INTO analysis_traces' "$T/serial.sql" || fail "the serial store has no analysis"
outputs "$T/serial.db" > "$T/serial.txt" 2>&1
grep -q failed "$T/serial.txt" && { cat "$T/serial.txt" >&2; fail "reading the serial analyses failed"; }
for np in 1 2 4; do
	cp "$T/base.db" "$T/p$np.db"
	# shellcheck disable=SC2086
	timeout -k 5 120 "$MPIRUN" -np "$np" $flags "$DT" -d "$T/p$np.db" analyze $runs \
		</dev/null >"$T/p$np.out" 2>&1 || { cat "$T/p$np.out" >&2; fail "analyze with $np processes failed"; }
	[ "$(grep -c '^run .*(computed)$' "$T/p$np.out")" = "$(echo "$runs" | wc -w)" ] ||
		{ cat "$T/p$np.out" >&2; fail "$np processes: not one line per run from process 0"; }
	dump "$T/p$np.db" > "$T/p$np.sql"
	cmp -s "$T/serial.sql" "$T/p$np.sql" ||
		{ diff "$T/serial.sql" "$T/p$np.sql" | head -20 >&2; fail "$np processes: not the serial store"; }
	outputs "$T/p$np.db" > "$T/p$np.txt" 2>&1
	cmp -s "$T/serial.txt" "$T/p$np.txt" ||
		{ diff "$T/serial.txt" "$T/p$np.txt" | head -20 >&2; fail "$np processes: not the serial analyses"; }
done
# progress: process 0's line, through the launcher's pipe with DIFFTRACE_PROGRESS=1, none without
rm -f "$T/pg.db"*
cp "$T/base.db" "$T/pg.db"
# shellcheck disable=SC2086
DIFFTRACE_NO_PROGRESS= DIFFTRACE_PROGRESS=1 timeout -k 5 120 "$MPIRUN" -np 2 $flags "$DT" -d "$T/pg.db" analyze tn \
	</dev/null >"$T/pg.out" 2>"$T/pg.err" || { cat "$T/pg.err" >&2; fail "analyze with progress failed"; }
grep -q 'analyzing: .* events' "$T/pg.err" || { cat "$T/pg.err" >&2; fail "no progress line"; }
rm -f "$T/pg.db"*
cp "$T/base.db" "$T/pg.db"
# shellcheck disable=SC2086
DIFFTRACE_NO_PROGRESS= timeout -k 5 120 "$MPIRUN" -np 2 $flags "$DT" -d "$T/pg.db" analyze tn </dev/null >"$T/pg.out" 2>"$T/pg.err" ||
	{ cat "$T/pg.err" >&2; fail "analyze failed"; }
grep -q 'analyzing' "$T/pg.err" && { cat "$T/pg.err" >&2; fail "a progress line on a pipe"; }
# cached: nothing computed again, on any process
# shellcheck disable=SC2086
timeout -k 5 120 "$MPIRUN" -np 2 $flags "$DT" -d "$T/p2.db" analyze tn </dev/null >"$T/c.out" 2>&1 ||
	{ cat "$T/c.out" >&2; fail "analyze of a cached run failed"; }
grep -q '(cached)$' "$T/c.out" || { cat "$T/c.out" >&2; fail "the cached analysis was not reused"; }

# a process that fails on its share: trace 3.0 of kinds.c's run damaged (process 2's of 4), or
# of the text run (process 1's); the serial error, one line, and the store as it was
cp "$T/base.db" "$T/bad.db"
bad=tn
[ "${runs%kf}" != "$runs" ] && bad=kf
sqlite3 "$T/bad.db" "UPDATE chunks SET events = X'ff0102030405' WHERE trace_id = (SELECT t.id
	FROM traces t JOIN runs r ON r.id = t.run_id WHERE r.name = '$bad' AND t.proc = 3 AND t.thread = 0)"
expect_status 1 "$DT" -d "$T/bad.db" analyze "$bad"
# the damage, not the stop of a worker thread that was on another trace
expect_err 'damaged event chunk'
serr=$(grep '^difftrace: ' "$T/err")
[ -n "$serr" ] || fail "the damaged trace: no serial error"
before=$(dump "$T/bad.db")
for np in 2 4; do
	# shellcheck disable=SC2086
	timeout -k 5 120 "$MPIRUN" -np $np $flags "$DT" -d "$T/bad.db" analyze "$bad" \
		</dev/null >"$T/bad.out" 2>&1 && { cat "$T/bad.out" >&2; fail "a failing process: the analysis succeeded"; }
	[ "$(grep '^difftrace: ' "$T/bad.out")" = "$serr" ] ||
		{ cat "$T/bad.out" >&2; fail "$np processes: not the serial error ($serr), once"; }
	[ "$(dump "$T/bad.db")" = "$before" ] || fail "$np processes: a failed analysis changed the store"
done
# the work is split: each process reads its share of the traces and no other. Process 0 reads
# the good store and the others a copy of it with one trace damaged: trace 2.0 of the text run
# (its seventh: process 2's of 4, 0's of 2) fails the analysis with 4 processes, naming the
# copy, and not with 2; trace 0.0 (process 0's) fails neither.
damage() { # DB PT: damages trace P.T of run tn in DB
	sqlite3 "$1" "UPDATE chunks SET events = X'ff0102030405' WHERE trace_id = (SELECT t.id
		FROM traces t JOIN runs r ON r.id = t.run_id WHERE r.name = 'tn'
		AND t.proc || '.' || t.thread = '$2')"
}
mpmd() { # NP GOOD OTHERS: analyze tn with process 0 on store GOOD, the others on OTHERS
	# shellcheck disable=SC2086
	timeout -k 5 120 "$MPIRUN" $flags -np 1 "$DT" -d "$2" analyze tn : -np $(($1 - 1)) \
		"$DT" -d "$3" analyze tn </dev/null >"$T/mpmd.out" 2>&1
}
for pt in 2.0 0.0; do
	rm -f "$T/good.db" "$T/other.db"
	cp "$T/base.db" "$T/good.db"
	cp "$T/base.db" "$T/other.db"
	damage "$T/other.db" "$pt"
	if [ "$pt" = 2.0 ]; then
		mpmd 4 "$T/good.db" "$T/other.db" && { cat "$T/mpmd.out" >&2; fail "trace 2.0 was not read by process 2 of 4"; }
		grep -q "^difftrace: $T/other.db: damaged event chunk" "$T/mpmd.out" ||
			{ cat "$T/mpmd.out" >&2; fail "process 2's error is not the one process 0 prints"; }
		cp "$T/base.db" "$T/good2.db"
		mpmd 2 "$T/good2.db" "$T/other.db" || { cat "$T/mpmd.out" >&2; fail "trace 2.0 was read by process 1 of 2"; }
		[ "$(dump "$T/good2.db" | grep -c 'INSERT INTO analysis_traces')" = 27 ] || fail "2 processes: no analysis"
	else
		mpmd 4 "$T/good.db" "$T/other.db" || { cat "$T/mpmd.out" >&2; fail "trace 0.0 was read by another process than 0"; }
	fi
done

# a bad filter: refused by process 0, the others end with it
before=$(dump "$T/p4.db")
# shellcheck disable=SC2086
timeout -k 5 120 "$MPIRUN" -np 4 $flags "$DT" -d "$T/p4.db" analyze --force --filter nosuch tn \
	</dev/null >"$T/bad.out" 2>&1 && { cat "$T/bad.out" >&2; fail "a bad filter: the analysis succeeded"; }
[ "$(grep -c "^difftrace: unknown filter family 'nosuch'" "$T/bad.out")" = 1 ] ||
	{ cat "$T/bad.out" >&2; fail "a bad filter: not one error line"; }
[ "$(dump "$T/p4.db")" = "$before" ] || fail "a bad filter changed the store"

# under a launcher, without difftrace-mpi beside it: refused, not analysed once per process
DIFFTRACE_MPI="$T/none" OMPI_COMM_WORLD_SIZE=3 expect_status 2 "$DT" -d "$T/p4.db" analyze tn
expect_err 'difftrace-mpi is not here'
expect_err 'or analyze without the launcher'
pass
