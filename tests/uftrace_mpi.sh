#!/bin/sh
# End to end: build examples/mpi_omp_toy.c with -pg -fopenmp, record 2 ranks with
# difftrace-record under mpirun, import the rank directories and look at the traces.
. "${abs_top_srcdir:-.}/tests/lib.sh"

need mpi uftrace built
export UFTRACE

# the wrapper's own interface
expect_status 0 "$RECORD" --help
grep -q 'rank-R' "$T/out" || fail "--help lacks the layout"
expect_status 0 "$RECORD" --version
expect_status 127 env UFTRACE=/nonexistent/uftrace "$RECORD" -- true
expect_err "uftrace not found"
expect_status 2 "$RECORD" --bogus -- true
expect_status 0 env OMPI_COMM_WORLD_RANK=5 "$RECORD" -n -o "$T/x" -- ./app a
grep -q -- "-d $T/x/rank-5 .*-- ./app a" "$T/out" || fail "dry run: $(cat "$T/out")"
# quiet: uftrace's notice for its signal trigger (--timeout) only with --verbose; the program's
# own output goes through
expect_status 0 "$RECORD" --timeout 60 -o "$T/q" -- sh -c 'echo program says hi'
grep -q 'install signal handlers' "$T/out" "$T/err" && fail "notice without -v: $(cat "$T/out")"
grep -qx 'program says hi' "$T/out" || fail "the program's output: $(cat "$T/out")"
expect_status 0 "$RECORD" -v --timeout 60 -o "$T/q" -- true
grep -q 'install signal handlers' "$T/out" || fail "no notice with -v: $(cat "$T/out")"

"$MPICC" -pg -fopenmp -O0 -o "$T/toy" "$abs_top_srcdir/examples/mpi_omp_toy.c" \
	>"$T/cc.log" 2>&1 || { cat "$T/cc.log" >&2; fail "mpicc failed"; }

flags="-np 2"
if "$MPIRUN" --version 2>&1 | grep -q 'Open MPI'; then
	flags="$flags --oversubscribe"
	if [ "$(id -u)" = 0 ]; then
		flags="$flags --allow-run-as-root"
		export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	fi
fi
to=
command -v timeout >/dev/null && to="timeout 300"
# shellcheck disable=SC2086
if ! $to "$MPIRUN" $flags "$RECORD" -o "$T/traces" -- "$T/toy" 2 >"$T/run.log" 2>&1; then
	cat "$T/run.log" >&2
	# a machine where MPI cannot start at all (no network, no shared memory) is not our bug
	if grep -qiE 'not enough slots|orte_init|PMIx|ess_init|btl' "$T/run.log"; then
		skip "mpirun cannot start processes here"
	fi
	fail "mpirun with difftrace-record failed"
fi
grep -q 'ranks=2' "$T/run.log" || fail "the toy did not run: $(cat "$T/run.log")"
for r in 0 1; do
	[ -f "$T/traces/rank-$r/info" ] || fail "no uftrace data in rank-$r"
done

# --inject: a bad specification is refused before anything is recorded; a wrong Allreduce
# operation (MAX for SUM, in every rank) changes the toy's result, and the ranks are recorded
if [ -f "$abs_top_builddir/libdifftrace-inject.so" ]; then
	expect_status 2 "$RECORD" --inject 'allreduce:colour=red' -o "$T/bad" -- "$T/toy" 1
	grep -q 'bad specification' "$T/err" || fail "bad --inject spec: $(cat "$T/err")"
	[ -e "$T/bad/rank-0/info" ] && fail "a bad --inject spec still recorded"
	# shellcheck disable=SC2086
	$to "$MPIRUN" $flags "$RECORD" --inject 'allreduce:op=MPI_MAX' -o "$T/inj" -- \
		"$T/toy" 2 >"$T/inj.log" 2>&1 || fail "mpirun with --inject failed: $(cat "$T/inj.log")"
	[ -f "$T/inj/rank-1/info" ] || fail "no uftrace data in rank-1 with --inject"
	normal=$(grep 'result=' "$T/run.log")
	injected=$(grep 'result=' "$T/inj.log")
	[ -n "$injected" ] && [ "$normal" != "$injected" ] ||
		fail "--inject changed nothing: '$normal' / '$injected'"
else
	echo "libdifftrace-inject.so not built (no mpicc at configure time): --inject not tested"
fi

DB="$T/mpi.db"
expect_status 0 "$DT" -d "$DB" import --format uftrace --run toy --label "2 ranks" "$T/traces"
expect_status 0 "$DT" -d "$DB" traces toy
cp "$T/out" "$T/traces.txt"
pts=$(awk '$1 ~ /^[0-9]+\.[0-9]+$/ { print $1 }' "$T/traces.txt" | sort | tr '\n' ' ')
# two processes, each a main thread and one OpenMP worker (more threads are allowed, e.g. if
# the MPI library's own threads called traced functions)
for pt in 0.0 0.1 1.0 1.1; do
	case " $pts " in *" $pt "*) ;; *) fail "traces lacks $pt: $(cat "$T/traces.txt")" ;; esac
done
case " $pts " in *" 2."*) fail "a third process: $pts" ;; esac

for p in 0 1; do
	"$DT" -d "$DB" show --format text toy "$p.0" >"$T/main$p.txt" || fail "show $p.0"
	for f in main MPI_Init MPI_Allreduce MPI_Bcast MPI_Barrier MPI_Finalize GOMP_parallel \
		compute._omp_fn.0; do
		grep -qx "$f" "$T/main$p.txt" || fail "$p.0 lacks $f"
	done
	grep -qx '\[ret\]' "$T/main$p.txt" || fail "$p.0 has no returns"
	[ "$(grep -cvx '\[ret\]' "$T/main$p.txt")" = "$(grep -cx '\[ret\]' "$T/main$p.txt")" ] ||
		fail "$p.0: calls and returns do not pair up"
	"$DT" -d "$DB" show --format text toy "$p.1" >"$T/worker$p.txt" || fail "show $p.1"
	# a worker thread starts in the outlined function, and never calls MPI
	[ "$(head -1 "$T/worker$p.txt")" = "compute._omp_fn.0" ] ||
		fail "$p.1 starts with $(head -1 "$T/worker$p.txt")"
	grep -qx 'work' "$T/worker$p.txt" || fail "$p.1 lacks work"
	! grep -q '^MPI_' "$T/worker$p.txt" || fail "$p.1 calls MPI"
done

# the format is recognised without --format too
expect_status 0 "$DT" -d "$DB" import --run again "$T/traces"
pass
