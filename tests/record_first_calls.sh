#!/bin/sh
# record_first_calls.sh: no library call is lost when OpenMP threads make their first call to
# a function at the same moment. Under uftrace's lazy binding the loader writes the function's
# address into the program's GOT at the first call and uftrace hooks it again only when that
# call returns: a thread calling the same function in between goes around the hook (with its
# defaults, uftrace lost the usleep of 3 of 4 threads in every run here). difftrace-record
# binds every symbol when the program loads (LD_BIND_NOW=1), so uftrace hooks resolved
# entries from the start and the loader never writes the GOT again. tests/record/first_calls.c
# in 3 runs of 2 ranks of 4 threads: every thread of each team records its usleep and each
# of its 12 math functions exactly once, and rank 0 its MPI calls with their arguments.
. "${abs_top_srcdir:-.}/tests/lib.sh"

need mpi uftrace built timeout
export UFTRACE OMP_NUM_THREADS=4 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# the uftrace command: symbols bound at load, not uftrace's --no-pltbind (every call through
# the loader's resolver); --sync-only runs no uftrace and binds nothing
expect_status 0 "$RECORD" -n -- ./app
grep -q 'LD_BIND_NOW=1 .*uftrace record ' "$T/out" || fail "uftrace runs without LD_BIND_NOW=1: $(cat "$T/out")"
grep -q -- '--no-pltbind' "$T/out" && fail "still --no-pltbind: $(cat "$T/out")"
# one env for the preloads and the binding: a second env would run with the recorders loaded
# (the sampler made the rank directory in it, before uftrace could)
[ "$(awk '{ for (i = 1; i <= NF && $i !~ /uftrace$/; i++) n += ($i == "env") } END { print n }' "$T/out")" = 1 ] ||
	fail "not one env before uftrace: $(cat "$T/out")"
expect_status 0 "$RECORD" -n --sync-only -- ./app
grep -q 'LD_BIND_NOW' "$T/out" && fail "--sync-only binds at load: $(cat "$T/out")"
expect_status 0 "$RECORD" --help
grep -q 'LD_BIND_NOW=1' "$T/out" || fail "--help does not say LD_BIND_NOW=1"
grep -q -- '--no-bind-now' "$T/out" || fail "--help lacks --no-bind-now"
# --no-bind-now: uftrace's --no-pltbind, as before
expect_status 0 "$RECORD" -n --no-bind-now -- ./app
grep -q 'uftrace record .*--force --no-pltbind ' "$T/out" || fail "--no-bind-now: $(cat "$T/out")"
grep -q 'LD_BIND_NOW' "$T/out" && fail "--no-bind-now still binds at load: $(cat "$T/out")"

# a program whose library refers to a function defined nowhere stops at load under
# LD_BIND_NOW (it never calls it): recorded with --no-pltbind instead, and said
mkdir -p "$T/u" || fail "mkdir"
printf 'void nowhere(void);\nvoid g(int x) { if (x > 5) nowhere(); }\n' >"$T/u/lib.c"
printf '#include <stdio.h>\nvoid g(int);\nint main(void) { g(1); puts("ran"); return 0; }\n' >"$T/u/main.c"
"$MPICC" -shared -fPIC -o "$T/u/libu.so" "$T/u/lib.c" >"$T/cc.log" 2>&1 &&
	"$MPICC" -o "$T/u/prog" "$T/u/main.c" -L"$T/u" -lu -Wl,-rpath,"$T/u" -Wl,--allow-shlib-undefined \
		>"$T/cc.log" 2>&1 || { cat "$T/cc.log" >&2; fail "cc failed (a library with an undefined function)"; }
expect_status 0 "$RECORD" -n --no-sync -- "$T/u/prog"
grep -q 'uftrace record .*--force --no-pltbind ' "$T/out" || fail "no --no-pltbind: $(cat "$T/out")"
grep -q 'LD_BIND_NOW' "$T/out" && fail "LD_BIND_NOW with a function defined nowhere: $(cat "$T/out")"
expect_err 'functions defined nowhere (nowhere)'
expect_status 0 "$RECORD" --no-sync -o "$T/u/rec" -- "$T/u/prog"
grep -qx 'ran' "$T/out" || fail "the program did not run: $(cat "$T/out" "$T/err")"
[ -f "$T/u/rec/rank-0/info" ] || fail "no uftrace data for the program with --no-pltbind"

APP="$T/first_calls"
"$MPICC" -fopenmp -pg -g -O0 -fno-builtin -o "$APP" "$abs_top_srcdir/tests/record/first_calls.c" -lm \
	>"$T/cc.log" 2>&1 || { cat "$T/cc.log" >&2; fail "mpicc failed"; }
cd "$T" || fail "cd $T" # the -pg program writes gmon.out where it runs
flags="-np 2"
if "$MPIRUN" --version 2>&1 | grep -q 'Open MPI'; then
	flags="$flags --oversubscribe"
	[ "$(id -u)" = 0 ] && flags="$flags --allow-run-as-root"
	ompi=1
else
	ompi=0
fi
fns="usleep cos sin tan acos asin atan cosh sinh tanh exp log log10"
lost=
for run in 1 2 3; do
	# shellcheck disable=SC2086
	timeout -k 5 150 "$MPIRUN" $flags "$RECORD" -o "$T/r$run" -- "$APP" </dev/null \
		>"$T/r$run.log" 2>&1 || { cat "$T/r$run.log" >&2; fail "run $run failed"; }
	[ "$(grep -c 'threads=4 sum=2' "$T/r$run.log")" = 2 ] ||
		fail "run $run: not 2 ranks of 4 threads: $(cat "$T/r$run.log")"
	expect_status 0 "$DT" import -r "r$run" "$T/r$run"
	expect_status 0 "$DT" traces "r$run"
	pts=$(awk '$1 ~ /^[0-9]+\.[0-9]+$/ { print $1 }' "$T/out")
	team=0
	for pt in $pts; do
		"$DT" show --format text "r$run" "$pt" >"$T/show" 2>"$T/err" || fail "show r$run $pt: $(cat "$T/err")"
		# a thread of the team: the main thread (main) or a worker (its outlined region)
		grep -Eqx 'main|main\._omp_fn\.0' "$T/show" || continue
		team=$((team + 1))
		for f in $fns; do
			n=$(grep -cx "$f" "$T/show")
			[ "$n" = 1 ] || lost="$lost r$run:$pt:$f=$n"
		done
	done
	[ "$team" = 8 ] || fail "run $run: $team threads of the teams recorded, not 8: $pts"
done
[ -z "$lost" ] || fail "library calls lost or doubled (run:trace:function=count):$lost"

# the MPI calls and their arguments (the handles are named from Open MPI's symbols only)
expect_status 0 "$DT" show r1 0.0
grep -q 'MPI_Allreduce(count=1' "$T/out" || fail "no MPI_Allreduce arguments: $(grep MPI_ "$T/out")"
grep -q 'MPI_Bcast(count=1' "$T/out" || fail "no MPI_Bcast arguments: $(grep MPI_ "$T/out")"
if [ "$ompi" = 1 ]; then
	grep -q 'MPI_Allreduce(count=1, datatype=INT, op=SUM, comm=WORLD);' "$T/out" ||
		fail "the MPI_Allreduce's handles are not named: $(grep MPI_ "$T/out")"
fi
pass
