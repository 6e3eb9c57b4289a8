#!/bin/sh
# blame_omp.sh: an OpenMP loop (tests/blame/ompblame.c, '#pragma omp parallel for' computing
# y from x) with the blame index made with the program's own flags (-fopenmp): the loop's body
# is indexed (libclang's C API shows an OpenMP directive's body as its captures only, so
# -fopenmp is parsed as -D_OPENMP), its samples in the outlined main._omp_fn.0 join main's
# lines, and y, the variable the loop computes, takes the blame in one row, its block's (in
# the outlined function y is a local of main that flows nowhere: the pointer written through
# is named by the block it points to, as the frame scan names it), not a row of the pointer y
# besides; the OpenMP runtime's own blocks (its team, allocated under GOMP_parallel called
# from main) are not the program's.
. "${abs_top_srcdir:-..}/tests/lib.sh"
need built mpi
[ -f "$abs_top_builddir/libdifftrace-sample.so" ] ||
	skip "libdifftrace-sample.so not built (configure found no libunwind: apt-get install libunwind-dev)"
"$DT" blame-index x.c 2>&1 | grep -q 'built without libclang' && skip "difftrace built without libclang"
# threads that wait at the loop's barrier sleep rather than spin: on a loaded machine the spin
# of a thread whose partner is descheduled would be CPU time of the runtime's, not the loop's
export DIFFTRACE_BLAME_PATH="$abs_top_srcdir/blame" OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive
cd "$T" || fail "cd $T"
S="$abs_top_srcdir/tests/blame/ompblame.c"
"$MPICC" -g -O2 -fopenmp -o "$T/omp" "$S" -lm >"$T/cc.log" 2>&1 || { cat "$T/cc.log" >&2; fail "mpicc -fopenmp failed"; }
flags="-np 1"
"$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags="$flags --oversubscribe"
[ "$(id -u)" = 0 ] && "$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags="$flags --allow-run-as-root"
# shellcheck disable=SC2086
timeout -k 5 150 "$MPIRUN" $flags "$RECORD" --sample --sync-only -o "$T/rec" -- "$T/omp" 2000 \
	</dev/null >"$T/run.log" 2>&1 || { cat "$T/run.log" >&2; fail "the recorded run failed"; }
expect_status 0 "$DT" import -r omp "$T/rec"

# the loop's body is indexed with the program's flags
# shellcheck disable=SC2046
expect_status 0 "$DT" blame-index "$S" -- -fopenmp $("$MPICC" --showme:compile 2>/dev/null || "$MPICC" -show 2>/dev/null | tr ' ' '\n' | grep '^-I')
body=$(grep -n 'y\[i\] = sqrt' "$S" | cut -d: -f1)
expect_status 0 "$DT" blame-index --show main
grep -q "^  explicit y <- x (line $body, through)$" "$T/out" || fail "the OpenMP loop's body is not indexed: $(cat "$T/out")"

expect_status 0 "$DT" blame omp
# one row for y: its block, named by y where main allocates it
yline=$(grep -n 'double \*y = malloc' "$S" | cut -d: -f1)
yrow="y (ompblame.c:$yline in main)"
first=$(sed -n '/^VARIABLE/{n;p;}' "$T/out")
case "$first" in "$yrow "*) ;; *) fail "y's block is not on top: $(cat "$T/out")" ;; esac
grep -q '^y (main) ' "$T/out" && fail "y has a row of its own besides its block's: $(cat "$T/out")"
[ "$(grep -c '^y (' "$T/out")" = 1 ] || fail "y has more than one row: $(cat "$T/out")"
pct=$(echo "$first" | awk '{ print $NF, $(NF-1), $(NF-2) }' | sed 's/.*(\([0-9.]*\)).*/\1/')
# at least half of what the table blames on variables: Other (the runtime's and the loader's
# time, which grows with the machine's load: 8% idle, 22% seen under a load of 17) left out
other=$(sed -n 's/^Other .*(\([0-9.]*\)).*(\([0-9.]*\)).*/\1/p' "$T/out")
awk -v p="${pct:-0}" -v o="${other:-0}" 'BEGIN { exit !(p >= 0.5 * (100 - o)) }' ||
	fail "y has $pct% of the blame, Other $other%: $(cat "$T/out")"
# no row for a block made where main enters the parallel region (the runtime's team)
pragma=$(grep -n '^#pragma omp parallel for' "$S" | cut -d: -f1)
grep -q "^ompblame.c:$pragma (main) " "$T/out" && fail "the OpenMP runtime's block is a row: $(cat "$T/out")"
grep -q "^ompblame.c:$((pragma + 1)) (main) " "$T/out" && fail "the OpenMP runtime's block is a row: $(cat "$T/out")"
# the why of the block's row: through the pointer y, from the outlined loop
expect_status 0 "$DT" blame omp --why "$yrow" --top 0
grep -q "^ *[0-9.]*%  $yrow <- y (main), a pointer into it <- sample at ompblame.c:[0-9]* in main._omp_fn" "$T/out" ||
	fail "the why of y's block does not go through y: $(cat "$T/out")"
pass
