#!/bin/sh
# blame_omp_shares.sh: the paper's small case of an OpenMP loop, with shares computed by hand.
# tests/blame/ompshares.c's '#pragma omp parallel for' does, per element, 3000 units of work
# into a, 2000 into b and 1000 into c, each unit one multiply-add depending on the one before
# (the same cost on every array): with the blame index, a takes 1/2 of the three's blame, b
# 1/3 and c 1/6, whichever of the two threads ran it, and the loop indices (i of the parallel
# loop, k of the inner ones, p of the passes) take none.
. "${abs_top_srcdir:-..}/tests/lib.sh"
need built mpi
[ -f "$abs_top_builddir/libdifftrace-sample.so" ] ||
	skip "libdifftrace-sample.so not built (configure found no libunwind: apt-get install libunwind-dev)"
"$DT" blame-index x.c 2>&1 | grep -q 'built without libclang' && skip "difftrace built without libclang"
# threads that wait at the loop's barrier sleep rather than spin (the spin would be the
# runtime's time, not the loop's)
export DIFFTRACE_BLAME_PATH="$abs_top_srcdir/blame" OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive
cd "$T" || fail "cd $T"
S="$abs_top_srcdir/tests/blame/ompshares.c"
"$MPICC" -g -O2 -fopenmp -o "$T/omp" "$S" >"$T/cc.log" 2>&1 || { cat "$T/cc.log" >&2; fail "mpicc -fopenmp failed"; }
flags="-np 1"
"$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags="$flags --oversubscribe"
[ "$(id -u)" = 0 ] && "$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags="$flags --allow-run-as-root"
# shellcheck disable=SC2086
timeout -k 5 200 "$MPIRUN" $flags "$RECORD" --sample --sync-only -o "$T/rec" -- "$T/omp" 8 10000 \
	</dev/null >"$T/run.log" 2>&1 || { cat "$T/run.log" >&2; fail "the recorded run failed"; }
expect_status 0 "$DT" import -r shares "$T/rec"
# shellcheck disable=SC2046
expect_status 0 "$DT" blame-index "$S" -- -fopenmp $("$MPICC" --showme:compile 2>/dev/null || "$MPICC" -show 2>/dev/null | tr ' ' '\n' | grep '^-I')
expect_status 0 "$DT" blame shares --format csv
cp "$T/out" "$T/shares.csv"
# a variable's blame: the row of its block at main, named by the variable where main allocates
# it, the only row of the variable (the pointer has no row besides)
for v in a b c; do
	n=$(awk -F, -v v="$v" '$1 == "main" && index($2, v " (") == 1' "$T/shares.csv" | wc -l)
	[ "$n" -le 1 ] || fail "$v has $n rows: $(cat "$T/shares.csv")"
	awk -F, -v v="$v (main)" '$1 == "main" && $2 == v { exit 1 }' "$T/shares.csv" ||
		fail "the pointer $v has a row besides its block's: $(cat "$T/shares.csv")"
done
blame_of() {
	r="$1 (ompshares.c:$(grep -n "double \*$1 = calloc" "$S" | cut -d: -f1) in main)"
	awk -F, -v v="$r" '$1 == "main" && $2 == v { b += $5 } END { print b + 0 }' "$T/shares.csv"
}
a=$(blame_of a) b=$(blame_of b) c=$(blame_of c)
n=$(awk -v a="$a" -v b="$b" -v c="$c" 'BEGIN { print int(a + b + c) }')
[ "$n" -ge 300 ] || fail "too few ticks on a, b and c ($a, $b, $c) for the shares: $(cat "$T/shares.csv")"
# The tolerance. Each tick lands in a's work with probability 1/2 (b's 1/3, c's 1/6), one draw
# of a binomial: over the n ticks of the three, a share's standard deviation is
# sqrt(p (1 - p) / n), about 0.02 for a at n = 600. Four of them (a false failure once in
# 16,000 checks) plus 0.15 for what is not sampling noise: the units of each inner loop that
# the processor runs out of order in the shadow of the loop before, the outer loop's own
# instructions, which its line gives to all three, and the lines a sample's address is given
# to at the loops' boundaries: on an idle machine under 0.02 of a share, but a full test run
# on the loaded 2 cores once gave a 0.629, b 0.222, c 0.149 of 730 ticks. The order and the
# rough proportions of the three still decide the check: a variable that took no part of the
# loop's blame, or all of it, is far outside.
for v in "a $a 3" "b $b 2" "c $c 1"; do
	# shellcheck disable=SC2086
	set -- $v
	awk -v v="$1" -v x="$2" -v n="$n" -v k="$3" 'BEGIN {
		p = k / 6; s = x / n; tol = 4 * sqrt(p * (1 - p) / n) + 0.15
		d = s - p; if (d < 0) d = -d
		if (d > tol) { printf "%s has %.3f of the three, expected %.3f +- %.3f\n", v, s, p, tol; exit 1 }
	}' || fail "the shares are not 3:2:1 (a $a, b $b, c $c): $(cat "$T/shares.csv")"
done
# the loop indices: no blame
for v in i k p; do
	awk -F, -v v="$v" '$2 == v " (main)" { exit 1 }' "$T/shares.csv" ||
		fail "the loop index $v takes blame: $(cat "$T/shares.csv")"
done
pass
