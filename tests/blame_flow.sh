#!/bin/sh
# blame_flow.sh: difftrace blame joined with the blame index (issue 15): tests/blame/dflow.c runs
# phases of known CPU time, and each phase's blame lands on the variable the data flow says, in
# its share: c = a + b in a loop on c (not the index), an out-parameter on the caller's x, a
# structure's fields on the structure, a heap block written through a pointer parameter on the
# block (the runtime container), a function without source by the heuristic (named in a note).
. "${abs_top_srcdir:-..}/tests/lib.sh"
need built mpi
[ -f "$abs_top_builddir/libdifftrace-sample.so" ] ||
	skip "libdifftrace-sample.so not built (configure found no libunwind: apt-get install libunwind-dev)"
export DIFFTRACE_BLAME_PATH="$abs_top_srcdir/blame"
SRC="$abs_top_srcdir/tests/blame"
APP="$T/dflow"
"$MPICC" -g -O0 -o "$APP" "$SRC/dflow.c" "$SRC/dflow_extra.c" >"$T/cc.log" 2>&1 ||
	{ cat "$T/cc.log" >&2; fail "mpicc failed"; }
cd "$T" || fail "cd $T"
flags="-np 1"
"$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags="$flags --oversubscribe"
[ "$(id -u)" = 0 ] && "$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags="$flags --allow-run-as-root"
# shellcheck disable=SC2086
timeout -k 5 150 "$MPIRUN" $flags "$RECORD" --sample=timer --sync-only -o "$T/rec" -- "$APP" \
	</dev/null >"$T/rec.log" 2>&1 || { cat "$T/rec.log" >&2; fail "the recorded run failed"; }
expect_status 0 "$DT" import -r r "$T/rec"

# without an index: the heuristic only, and --auto-points asks for one
expect_status 0 "$DT" blame r --format csv
grep -q '^main,c (main),' "$T/out" && fail "source rows without an index: $(cat "$T/out")"
expect_status 1 "$DT" blame r --auto-points 20
grep -q "needs the program's blame index" "$T/err" || fail "--auto-points: $(cat "$T/err")"
expect_status 2 "$DT" blame r --auto-points 0
expect_status 2 "$DT" blame r --auto-points x

# shellcheck disable=SC2046
"$DT" blame-index "$SRC/dflow.c" -- $("$MPICC" --showme:compile 2>/dev/null) >"$T/bx.out" 2>"$T/bx.err"
rc=$?
if grep -q "built without libclang" "$T/bx.err"; then
	skip "difftrace was built without libclang (apt-get install libclang-dev)"
fi
[ $rc = 0 ] || { cat "$T/bx.err" >&2; fail "blame-index dflow.c: exit $rc"; }

# csv with the commas inside quoted fields (MPI calls, types) made '+', for awk -F,
unquote() {
	awk '{ o = ""; q = 0; for (i = 1; i <= length($0); i++) { c = substr($0, i, 1)
		if (c == "\"") { q = !q; continue }; if (c == "," && q) c = "+"; o = o c }; print o }' "$1"
}
# the row of $2 in the csv $1: its total (column $3, default 7: one rank)
blame_of() { awk -F, -v n="$2" -v c="${3:-7}" '$2 == n { print $c; exit }' "$1"; }
adds_up() { # CSV [COLUMN, default 7]
	awk -F, -v c="${2:-7}" 'NR > 1 && $2 != "Total" { s[$1] += $c } NR > 1 && $2 == "Total" { t[$1] = $c }
	     END { for (p in t) if (s[p] - t[p] > 0.01 || t[p] - s[p] > 0.01) { print p, s[p], t[p]; exit 1 } }' "$1" ||
		fail "the rows of $1 do not add up to the total: $(cat "$1")"
}
# share NAME EXPECTED TOLERANCE: NAME's part of the four computed variables is EXPECTED +- TOL
share() {
	v=$(blame_of "$T/main.csv" "$1")
	awk -v v="${v:-0}" -v s="$sum" -v e="$2" -v t="$3" 'BEGIN { x = s > 0 ? v / s : 0
		if (x < e - t || x > e + t) { printf "%.3f", x; exit 1 } }' >"$T/got" ||
		fail "$1 took $(cat "$T/got") of the computed variables' blame, expected $2 +- $3: $(cat "$T/main.csv")"
}
# a heap block: named by the pointer its allocation is assigned to, the site as detail
heap="h (dflow.c:$(grep -n "/\* SITE_H \*/" "$SRC/dflow.c" | cut -d: -f1) in main)"

expect_status 0 "$DT" blame r --format csv
unquote "$T/out" >"$T/main.csv"
adds_up "$T/main.csv"
c=$(blame_of "$T/main.csv" "c (main)")
x=$(blame_of "$T/main.csv" "x (main)")
st=$(blame_of "$T/main.csv" "st (main)")
h=$(blame_of "$T/main.csv" "$heap")
sum=$(awk -v a="${c:-0}" -v b="${x:-0}" -v d="${st:-0}" -v e="${h:-0}" 'BEGIN { print a + b + d + e }')
# by hand: c, x and st take 0.4 s of CPU each, the heap block 0.2 s: 2/7, 2/7, 2/7 and 1/7
share "c (main)" 0.286 0.06
share "x (main)" 0.286 0.06
share "st (main)" 0.286 0.06
share "$heap" 0.143 0.05
# the loops' indices, produce's local r and accumulate's pointer take nothing at main
for v in "i (main)" "j (main)" "k (produce)" "r (produce)" "k (fill)" "s (accumulate)" "v (fill)"; do
	[ -z "$(blame_of "$T/main.csv" "$v")" ] || fail "$v has blame at main: $(cat "$T/main.csv")"
done

# text: the function without source is named, the part joined is said
expect_status 0 "$DT" blame r
grep -q '^# note: no source in the blame index for spin (blamed by the heuristic)$' "$T/out" ||
	fail "no note of spin: $(cat "$T/out")"
grep -q '% by the data flow$' "$T/out" || fail "no joined part: $(cat "$T/out")"
grep -q '^c (main)  *double ' "$T/out" || fail "text row of c: $(cat "$T/out")"
# spin has no source: its own table is the heuristic's (its heap block)
expect_status 0 "$DT" blame r --point spin --format csv
grep -q '^spin,dflow_extra.c:[0-9]* (spin),heap,' "$T/out" || fail "spin by the heuristic: $(cat "$T/out")"

# points: produce's blame goes to its out-parameter out (its local r, a temporary that only feeds
# *out, passes it on), accumulate's on main's st (the local its pointer
# s points to, a stack container); fill's on the heap block its pointer parameter points to
expect_status 0 "$DT" blame r --point produce --point accumulate --point fill --format csv
unquote "$T/out" >"$T/pts.csv"
adds_up "$T/pts.csv"
grep -q '^produce,out (produce),double \*,' "$T/pts.csv" || fail "produce's table: $(cat "$T/pts.csv")"
grep -q '^produce,r (produce),' "$T/pts.csv" && fail "produce's temporary r kept its blame: $(cat "$T/pts.csv")"
grep -q '^accumulate,main::st,struct stats,' "$T/pts.csv" || fail "accumulate's table: $(cat "$T/pts.csv")"
grep -qF "fill,$heap,heap," "$T/pts.csv" || fail "fill's table: $(cat "$T/pts.csv")"
grep -q '^produce,k (produce)' "$T/pts.csv" && fail "the index of produce's loop: $(cat "$T/pts.csv")"

# the automatic criterion: produce's variables hold about 2/7 of the computation (more than
# 15% of the whole), accumulate's about 1/7 (less than 15%)
expect_status 0 "$DT" blame r --auto-points 15 --format json
grep -q '"point":"produce","total":[0-9.e+]*,"samples":[0-9]*,"automatic":true' "$T/out" ||
	fail "produce is no automatic point: $(head -c 600 "$T/out")"
grep -q '"point":"accumulate"' "$T/out" && fail "accumulate became a point: $(head -c 600 "$T/out")"
grep -q '"no_source":\["spin"\]' "$T/out" || fail "json no_source: $(head -c 300 "$T/out")"
grep -q '"name":"c (main)","type":"double","kind":"local"' "$T/out" || fail "json kind: $(head -c 600 "$T/out")"

# the interface's blame view joins the index too, and says what a row is
printf '%s\n' : '"blame r"' Enter >"$T/keys"
"$DT" tui --script "$T/keys" --dump "$T/screen" --size 24x100 >"$T/tui.out" 2>"$T/tui.err" ||
	fail "tui exited $?: $(cat "$T/tui.err")"
grep -q '^  c (main)  *double ' "$T/screen" || fail "no row of c (main): $(cat "$T/screen")"
# the first row (c, x or st, whichever took most) is a variable by the data flow
printf '%s\n' : '"blame r"' Enter j Enter >"$T/keys"
"$DT" tui --script "$T/keys" --dump "$T/screen" --size 24x100 >"$T/tui.out" 2>"$T/tui.err" ||
	fail "tui exited $?: $(cat "$T/tui.err")"
grep -q 'a variable of the function, by the data flow' "$T/screen" || fail "details: $(cat "$T/screen")"

# why: the paths that brought a variable its blame, its steps from the variable back to the
# sample. x's blame came up from produce's r through *out and the call site of line 67
L67=$(grep -n '^	produce(&x, PHASE);' "$SRC/dflow.c" | cut -d: -f1)
L39=$(grep -n '^	\*out = r;' "$SRC/dflow.c" | cut -d: -f1)
L38=$(grep -n '^			r = r + 0.5;' "$SRC/dflow.c" | cut -d: -f1)
expect_status 0 "$DT" blame r --why "x (main)"
grep -q "^# why x (main) at main in run 'r': [0-9]* ticks" "$T/out" || fail "why header: $(cat "$T/out")"
chain="x (main) <- produce(&x, PHASE), line $L67 <- \*out (produce) <- r, line $L39 <- sample at dflow.c:$L38 in produce"
# the largest path is the loop's body, about half of x's blame or more (the loop's condition
# line and cpu_now take the rest: clock_gettime's share grows with the machine's load, 39 % at
# a load of 4 in CI)
sed -n 2p "$T/out" | grep -q "^ *[0-9.]*%  $chain\$" || fail "x's first path: $(cat "$T/out")"
p1=$(sed -n 2p "$T/out" | awk '{ sub("%", "", $1); print $1 }')
awk -v p="$p1" 'BEGIN { exit !(p > 45) }' || fail "x's first path has $p1%: $(cat "$T/out")"
# c = a + b in main's loop: the sample's own line
L66=$(grep -n '^			c = a + b;' "$SRC/dflow.c" | cut -d: -f1)
expect_status 0 "$DT" blame r --why "c (main)" --top 0
grep -q "^ *[0-9.]*%  c (main) <- sample at dflow.c:$L66 in main\$" "$T/out" || fail "c's path: $(cat "$T/out")"
# the heap block: named by main's pointer h, which fill's *v came up to
expect_status 0 "$DT" blame r --why "$heap" --format json
grep -qF '"steps":["'"$heap"'","h (main), a pointer into it","fill(h, 8192, PHASE / 2), line ' "$T/out" ||
	grep -qF '"steps":["'"$heap"'","h (main), a pointer into it","fill(h, 8192, PHASE/2), line ' "$T/out" ||
	fail "the heap block's path: $(cat "$T/out")"
# the shares of the paths add up to 1 (all paths)
expect_status 0 "$DT" blame r --why "st (main)" --format csv --top 0
awk -F, 'NR > 1 { s += $5 } END { exit !(s > 99.9 && s < 100.1) }' "$T/out" ||
	fail "st's paths do not add up: $(cat "$T/out")"
grep -q "accumulate(&st, PHASE */ *2), line [0-9]* <- \*s (accumulate) <- sample at dflow.c:" "$T/out" ||
	fail "st through accumulate: $(cat "$T/out")"
# Other by the heuristic: spin's samples reached no variable
expect_status 0 "$DT" blame r --why Other --top 0
grep -q '<- no variable found <- sample at dflow_extra.c:[0-9]* in spin$' "$T/out" || fail "Other: $(cat "$T/out")"
expect_status 1 "$DT" blame r --why "nothing (main)"
expect_err "no variable 'nothing (main)' in the blame of run 'r'"
expect_status 2 "$DT" blame --normal r --faulty r --why "x (main)"
expect_status 2 "$DT" blame r --why "x (main)" --auto-points 10
# the interface: Enter on x shows why, one step a line
printf '%s\n' : '"blame r"' Enter / '"x .main"' Enter Enter >"$T/keys"
"$DT" tui --script "$T/keys" --dump "$T/screen" --size 60x120 >"$T/tui.out" 2>"$T/tui.err" ||
	fail "tui exited $?: $(cat "$T/tui.err")"
grep -q 'why: the [0-9]* largest of [0-9]* paths to it' "$T/screen" || fail "no why: $(cat "$T/screen")"
grep -A5 'why: the' "$T/screen" | tr -s ' ' | grep -q "^ x (main)$" || fail "why's first step: $(cat "$T/screen")"
grep -q "^ *<- produce(&x, PHASE), line $L67$" "$T/screen" || fail "why's call step: $(cat "$T/screen")"
grep -q "^ *<- \*out (produce)$" "$T/screen" || fail "why's exit variable: $(cat "$T/screen")"
grep -q "^ *<- sample at dflow.c:$L38 in produce$" "$T/screen" || fail "why's sample: $(cat "$T/screen")"

# two runs compared: joined the same way; automatic points only for one run
expect_status 0 "$DT" blame --normal r --faulty r --format csv --top 0
grep -q '^main,0,c (main),double,' "$T/out" || fail "comparison: $(cat "$T/out")"
expect_status 2 "$DT" blame --normal r --faulty r --auto-points 10
# the interface's comparison joins the index as the command does: the same variables
printf '%s\n' : '"blamediff r r"' Enter >"$T/keys"
"$DT" tui --script "$T/keys" --dump "$T/screen" --size 60x120 >"$T/tui.out" 2>"$T/tui.err" ||
	fail "tui exited $?: $(cat "$T/tui.err")"
grep -q '^difftrace: blame of r against r at main' "$T/screen" || fail "no change view: $(cat "$T/screen")"
grep -q '^[ >]*R0  *c (main)  *double ' "$T/screen" || fail ":blamediff without the index: $(cat "$T/screen")"

# --no-index: the heuristic as without the index
expect_status 0 "$DT" blame r --no-index --format csv
grep -q '^main,c (main),' "$T/out" && fail "--no-index joined: $(cat "$T/out")"

# the sparse solver of examples/blame, 2 ranks: its helpers' locals (cg's temporaries, spmv's
# sums, the residual of solve) pass their blame on to the matrix, the solution vector and the
# problem structure that holds them
S="$abs_top_srcdir/examples/blame/sparse_mpi.c"
"$MPICC" -g -O0 -o "$T/sparse" "$S" >"$T/cc.log" 2>&1 || { cat "$T/cc.log" >&2; fail "mpicc failed on sparse_mpi.c"; }
flags2=$(echo "$flags" | sed 's/-np 1/-np 2/')
# shellcheck disable=SC2086
timeout -k 5 150 "$MPIRUN" $flags2 "$RECORD" --sample --sync-only -o "$T/sp.rec" -- "$T/sparse" 100000 100 \
	</dev/null >"$T/sp.log" 2>&1 || { cat "$T/sp.log" >&2; fail "the sparse run failed"; }
expect_status 0 "$DT" import -r sparse "$T/sp.rec"
# shellcheck disable=SC2046
expect_status 0 "$DT" blame-index "$S" -- $("$MPICC" --showme:compile 2>/dev/null)
expect_status 0 "$DT" blame sparse --format csv
unquote "$T/out" >"$T/sparse.csv"
adds_up "$T/sparse.csv" 9
if grep -E '^main,[^,]* \((cg|spmv|dot|axpy|axpy_x|solve|csr_fill|csr_new|problem_new|setup)\),' "$T/sparse.csv" |
	grep -v ',heap,' | grep -q .; then
	fail "a helper's local keeps blame at main: $(cat "$T/sparse.csv")"
fi
# the blocks by what points to them: NAME (SITE in FUNCTION)
site() { echo "$3 (sparse_mpi.c:$(grep -n "$1" "$S" | head -1 | cut -d: -f1) in $2)"; }
# two ranks: the total is column 9
m=$(blame_of "$T/sparse.csv" "$(site 'struct csr \*A = malloc' csr_new 'pb->A')" 9)
x=$(blame_of "$T/sparse.csv" "$(site 'pb->x = calloc' problem_new 'pb->x')" 9)
p=$(blame_of "$T/sparse.csv" "$(site 'struct problem \*pb = malloc' problem_new pb)" 9)
tot=$(blame_of "$T/sparse.csv" Total 9)
awk -v m="${m:-0}" -v x="${x:-0}" -v p="${p:-0}" -v t="$tot" \
	'BEGIN { exit !(m > t / 10 && x > t / 10 && m + x + p > t * 0.6) }' ||
	fail "the matrix ($m), x ($x) and the problem ($p) do not take most of $tot: $(cat "$T/sparse.csv")"
exit 0
