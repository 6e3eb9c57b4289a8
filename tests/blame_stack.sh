#!/bin/sh
# blame_stack.sh: local arrays and structures are containers (difftrace-sample(5), version 3):
# tests/blame/stack.c works on main's array v, on helper's array u passed down to work, and on
# main's structure g through a field, and MPI_Allreduce of main's arrays part into sum; with -g
# each takes the blame of its work by source name and DWARF type (kind stack), at main, at the
# function that declares it and at work, and the reduction's on sum; the rows add up; built by
# clang (whose frame base is a register) too; and the same program built without -g imports
# and is blamed cleanly, its samples on Other.
. "${abs_top_srcdir:-..}/tests/lib.sh"
need built mpi
[ -f "$abs_top_builddir/libdifftrace-sample.so" ] ||
	skip "libdifftrace-sample.so not built (configure found no libunwind: apt-get install libunwind-dev)"
export DIFFTRACE_BLAME_PATH="$abs_top_srcdir/blame"
SRC="$abs_top_srcdir/tests/blame/stack.c"
"$MPICC" -g -O1 -o "$T/stack" "$SRC" >"$T/cc.log" 2>&1 || { cat "$T/cc.log" >&2; fail "mpicc failed"; }
"$MPICC" -O1 -o "$T/stack-nog" "$SRC" >"$T/cc.log" 2>&1 || { cat "$T/cc.log" >&2; fail "mpicc failed"; }
cd "$T" || fail "cd $T"
flags="-np 1"
"$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags="$flags --oversubscribe"
[ "$(id -u)" = 0 ] && "$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags="$flags --allow-run-as-root"
# the blame of row $2 in the csv of $1 (rank 0 column); $3 its type column
blame_of() { awk -F, -v n="$2" '$2 == n { print $5; exit }' "$1"; }
type_of() { awk -F, -v n="$2" '$2 == n { print $3; exit }' "$1"; }
unquote() {
	awk '{ o = ""; q = 0; for (i = 1; i <= length($0); i++) { c = substr($0, i, 1)
		if (c == "\"") { q = !q; continue }; if (c == "," && q) c = "+"; o = o c }; print o }' "$1"
}
# x > t * f
above() { awk -v x="${1:-0}" -v t="$2" -v f="$3" 'BEGIN { exit !(x > t * f) }'; }
adds_up() {
	awk -F, 'NR > 1 && $2 != "Total" { s[$1] += $7 } NR > 1 && $2 == "Total" { t[$1] = $7 }
	     END { for (p in t) if (s[p] - t[p] > 0.01 || t[p] - s[p] > 0.01) { print p, s[p], t[p]; exit 1 } }' "$1" ||
		fail "the rows of $1 do not add up to the total"
}
record() {
	# shellcheck disable=SC2086
	timeout -k 5 150 "$MPIRUN" $flags "$RECORD" --sample=timer --sync-only -o "$T/$1" -- "$T/$2" \
		</dev/null >"$T/$1.log" 2>&1 || { cat "$T/$1.log" >&2; fail "the recorded run $1 failed"; }
	expect_status 0 "$DT" import -r "$1" "$T/$1"
}

record g stack
expect_status 0 "$DT" blame g --format csv --point main --point helper --point fill --point work
unquote "$T/out" >"$T/g.csv"
adds_up "$T/g.csv"
grep '^main,' "$T/g.csv" >"$T/main.csv"
grep '^helper,' "$T/g.csv" >"$T/helper.csv"
grep '^fill,' "$T/g.csv" >"$T/fill.csv"
grep '^work,' "$T/g.csv" >"$T/work.csv"
# main's array and structure at main, by source name and DWARF type
[ "$(type_of "$T/main.csv" v)" = "double[4096]" ] || fail "v at main: $(cat "$T/main.csv")"
[ "$(type_of "$T/main.csv" g)" = "struct grid" ] || fail "g at main: $(cat "$T/main.csv")"
tot=$(blame_of "$T/main.csv" Total)
above "$(blame_of "$T/main.csv" v)" "$tot" 0.1 || fail "v has too little blame: $(cat "$T/main.csv")"
above "$(blame_of "$T/main.csv" g)" "$tot" 0.1 || fail "g has too little blame: $(cat "$T/main.csv")"
# helper's array is a local of a callee at main: its blame passes on (not a row of main's)
if grep -q ',helper::u,\|,u,' "$T/main.csv"; then fail "helper's u in main's table: $(cat "$T/main.csv")"; fi
# at the function that declares it: by its plain name, nearly all of the function's blame
tot=$(blame_of "$T/helper.csv" Total)
above "$(blame_of "$T/helper.csv" u)" "$tot" 0.9 || fail "u at helper: $(cat "$T/helper.csv")"
tot=$(blame_of "$T/fill.csv" Total)
above "$(blame_of "$T/fill.csv" main::g)" "$tot" 0.9 || fail "g at fill: $(cat "$T/fill.csv")"
# at work, which each of the three is passed to: a third each, named function::variable
tot=$(blame_of "$T/work.csv" Total)
for x in main::v helper::u main::g; do
	above "$(blame_of "$T/work.csv" "$x")" "$tot" 0.2 || fail "$x at work: $(cat "$T/work.csv")"
done
[ "$(type_of "$T/work.csv" helper::u)" = "double[4096]" ] || fail "u's type: $(cat "$T/work.csv")"
# MPI_Allreduce(part, sum): a buffer on the stack is a stack reference, so the transfer
# function blames sum, the result, with all the bytes of the call (not part, nor g)
grep -q ',sum,double\[4096\],.*MPI_Allreduce' "$T/main.csv" || fail "sum at main: $(cat "$T/main.csv")"
expect_status 0 "$DT" blame g --format csv --metric bytes
unquote "$T/out" >"$T/bytes.csv"
adds_up "$T/bytes.csv"
tot=$(blame_of "$T/bytes.csv" Total)
above "$tot" 0 0 || fail "no bytes: $(cat "$T/bytes.csv")"
above "$(blame_of "$T/bytes.csv" sum)" "$tot" 0.95 || fail "bytes of the reduction: $(cat "$T/bytes.csv")"
# json says the kind; the declaration is its site
expect_status 0 "$DT" blame g --format json
grep -q '"name":"v","type":"double\[4096\]","kind":"stack"' "$T/out" || fail "json: $(head -c 600 "$T/out")"
grep -q "\"site\":\[{\"func\":\"main\",\"file\":\"[^\"]*stack.c\",\"line\":$(grep -n 'double v\[N\]' "$SRC" | cut -d: -f1)}" "$T/out" ||
	fail "json site of v: $(head -c 600 "$T/out")"
# the interface's details
printf '%s\n' : '"blame g"' Enter j Enter >"$T/keys"
"$DT" tui --script "$T/keys" --dump "$T/screen" --size 24x80 >"$T/tui.out" 2>"$T/tui.err" ||
	fail "tui exited $?: $(cat "$T/tui.err")"
grep -q 'a local variable (on the stack)' "$T/screen" || fail "details: $(cat "$T/screen")"
grep -q 'declared in' "$T/screen" || fail "details: $(cat "$T/screen")"

# clang's frame bases: the frame pointer at -O0, the stack pointer at -O1 (and DWARF 5 without
# .debug_aranges)
if command -v clang >/dev/null; then
	for o in O0 O1; do
		OMPI_CC=clang MPICH_CC=clang "$MPICC" -g -$o -o "$T/stack-clang$o" "$SRC" >"$T/cc.log" 2>&1 ||
			{ cat "$T/cc.log" >&2; fail "mpicc with clang failed"; }
		record "clang$o" "stack-clang$o"
		expect_status 0 "$DT" blame "clang$o" --format csv --point work
		unquote "$T/out" >"$T/clang.csv"
		adds_up "$T/clang.csv"
		tot=$(blame_of "$T/clang.csv" Total)
		for x in main::v helper::u main::g; do
			above "$(blame_of "$T/clang.csv" "$x")" "$tot" 0.2 ||
				fail "clang -$o: $x at work: $(cat "$T/clang.csv")"
		done
	done
else
	echo "note: no clang: its frame bases are not tested"
fi

# without -g: no stack containers, the work on them Other, every sample counted once
record nog stack-nog
grep -q 'no -g (no types, no stack variables' "$T/out" || fail "import does not say the program has no -g: $(cat "$T/out")"
expect_status 0 "$DT" blame nog --format csv --point main --point work
unquote "$T/out" >"$T/nog.csv"
adds_up "$T/nog.csv"
if grep -q ',double\[4096\],\|,struct grid,' "$T/nog.csv"; then fail "stack rows without -g: $(cat "$T/nog.csv")"; fi
grep '^work,' "$T/nog.csv" >"$T/nwork.csv"
tot=$(blame_of "$T/nwork.csv" Total)
above "$(blame_of "$T/nwork.csv" Other)" "$tot" 0.9 || fail "without -g, work's table: $(cat "$T/nwork.csv")"
expect_status 0 "$DT" blame nog --format json
if grep -q '"kind":"stack"' "$T/out"; then fail "a stack variable without -g: $(head -c 600 "$T/out")"; fi
pass
