#!/bin/sh
# blame_flow2.sh: the rest of issue 15's blame tests, each on a program of known CPU time with
# the blamed variable and its share computed by hand:
#  - tests/blame/hpl.c: a branch on a flag (its body on acc; its condition's cost, through the
#    flag's implicit relation, on what it controls, hits; none on the flag), and the paper's HPL
#    case with two user points (solve holds the matrix, factor the panel);
#  - tests/blame/collect.c, 2 ranks: MPI_Bcast and MPI_Reduce waited in, blamed by their
#    transfer functions on the broadcast buffer and the reduced result, then by the data flow
#    on the caller's n and total;
#  - bad input: tests/blame/partial.c indexed with a syntax error in one function (libclang's
#    diagnostic, main still indexed and joined), and dflow.c built without -g (a clear note,
#    part 1's blame as without an index).
. "${abs_top_srcdir:-..}/tests/lib.sh"
need built mpi
[ -f "$abs_top_builddir/libdifftrace-sample.so" ] ||
	skip "libdifftrace-sample.so not built (configure found no libunwind: apt-get install libunwind-dev)"
export DIFFTRACE_BLAME_PATH="$abs_top_srcdir/blame"
SRC="$abs_top_srcdir/tests/blame"
cd "$T" || fail "cd $T"
flags=""
"$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags="--oversubscribe"
[ "$(id -u)" = 0 ] && "$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags="$flags --allow-run-as-root"
# record NAME NP PROGRAM: runs it under the sampler and imports it as run NAME
record() {
	# shellcheck disable=SC2086
	timeout -k 5 150 "$MPIRUN" -np "$2" $flags "$RECORD" --sample=timer --sync-only -o "$T/$1.rec" -- "$3" \
		</dev/null >"$T/$1.log" 2>&1 || { cat "$T/$1.log" >&2; fail "the recorded run of $3 failed"; }
	expect_status 0 "$DT" import -r "$1" "$T/$1.rec"
}
build() { # OUT CFLAGS... SOURCES
	out=$1
	shift
	"$MPICC" -O0 -o "$T/$out" "$@" >"$T/cc.log" 2>&1 || { cat "$T/cc.log" >&2; fail "mpicc failed: $*"; }
}
MPIFLAGS=$("$MPICC" --showme:compile 2>/dev/null)

# is libclang there?
# shellcheck disable=SC2086
"$DT" blame-index "$SRC/hpl.c" -- $MPIFLAGS >"$T/bx.out" 2>"$T/bx.err"
rc=$?
grep -q "built without libclang" "$T/bx.err" &&
	skip "difftrace was built without libclang (apt-get install libclang-dev)"
[ $rc = 0 ] || { cat "$T/bx.err" >&2; fail "blame-index hpl.c: exit $rc"; }

# csv with the commas inside quoted fields made '+', for awk -F,
unquote() {
	awk '{ o = ""; q = 0; for (i = 1; i <= length($0); i++) { c = substr($0, i, 1)
		if (c == "\"") { q = !q; continue }; if (c == "," && q) c = "+"; o = o c }; print o }' "$1"
}
# the blame of variable $3 at point $2 in csv $1, column $4 (default 7: one rank's total)
blame_of() { awk -F, -v p="$2" -v n="$3" -v c="${4:-7}" '$1 == p && $2 == n { print $c; exit }' "$1"; }
# near NAME VALUE EXPECTED TOLERANCE
near() {
	awk -v v="$2" -v e="$3" -v t="$4" 'BEGIN { exit !(v >= e - t && v <= e + t) }' ||
		fail "$1 is $2, expected $3 +- $4"
}
ratio() { awk -v a="${1:-0}" -v b="${2:-0}" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }'; }

# ---- a branch on a flag, and two user blame points ------------------------------------------
build hpl -g "$SRC/hpl.c"
record h 1 "$T/hpl"
expect_status 0 "$DT" blame h --point main --point solve --point factor --format csv
unquote "$T/out" >"$T/h.csv"
acc=$(blame_of "$T/h.csv" main "acc (main)")
hits=$(blame_of "$T/h.csv" main "hits (main)")
# by hand: the branch's body and its condition take 0.4 s of CPU each: acc 1/2, hits 1/2
near "acc's share of acc + hits" "$(ratio "$acc" "$(awk -v a="${acc:-0}" -v b="${hits:-0}" 'BEGIN { print a + b }')")" 0.5 0.1
# the flag decides, it computes nothing: no blame (and the index has the implicit relation)
[ -z "$(blame_of "$T/h.csv" main "flag (main)")" ] || fail "the flag took blame: $(cat "$T/h.csv")"
expect_status 0 "$DT" blame-index --show main
L80=$(grep -n '^	if (is_set(flag, PHASE))' "$SRC/hpl.c" | cut -d: -f1)
grep -q "implicit hits <- flag (line $L80)" "$T/out" || fail "no implicit hits <- flag: $(cat "$T/out")"
expect_status 0 "$DT" blame h --why "hits (main)" --top 1
grep -q "hits (main) <- the condition of line $L80 (implicit) <- is_set(flag, PHASE), line $L80 <- <return> (is_set) <- " "$T/out" ||
	fail "why hits: $(cat "$T/out")"
# HPL: at solve the matrix (its block, SITE_MAT) takes the panel's work too (factor folds the
# panel into it) and update's: all of solve's; at factor the panel (SITE_PANEL) takes all, and
# factor's table is half of solve's (panel_factor and update take 0.2 s each)
mat="mat (hpl.c:$(grep -n '/\* SITE_MAT \*/' "$SRC/hpl.c" | cut -d: -f1) in solve)"
panel="panel (hpl.c:$(grep -n '/\* SITE_PANEL \*/' "$SRC/hpl.c" | cut -d: -f1) in factor)"
stot=$(blame_of "$T/h.csv" solve Total)
ftot=$(blame_of "$T/h.csv" factor Total)
near "the matrix's share at solve" "$(ratio "$(blame_of "$T/h.csv" solve "$mat")" "$stot")" 1.0 0.05
near "the panel's share at factor" "$(ratio "$(blame_of "$T/h.csv" factor "$panel")" "$ftot")" 1.0 0.05
near "factor's part of solve" "$(ratio "$ftot" "$stot")" 0.5 0.1
[ -z "$(blame_of "$T/h.csv" solve "$panel")" ] || fail "the panel has blame at solve: $(cat "$T/h.csv")"

# ---- MPI_Bcast and MPI_Reduce by their prototypes, then the data flow -----------------------
build collect -g "$SRC/collect.c"
record c 2 "$T/collect"
# shellcheck disable=SC2086
expect_status 0 "$DT" blame-index "$SRC/collect.c" -- $MPIFLAGS
expect_status 0 "$DT" blame c --format csv
unquote "$T/out" >"$T/c.csv"
# columns: R0 3 (pct 4)... point,variable,type,calls,R0,R0_pct,R1,R1_pct,total
n1=$(blame_of "$T/c.csv" main "n (main)" 7)
t0=$(blame_of "$T/c.csv" main "total (main)" 5)
b0=$(blame_of "$T/c.csv" main "r (burn)" 5)
b1=$(blame_of "$T/c.csv" main "r (burn)" 7)
# each rank computes 0.4 s of CPU (burn's r) and waits for the other about as long: rank 1 in
# the broadcast (on n), rank 0 in the reduction (on total). The wait is CPU time only while the
# library polls (it yields when oversubscribed, and how much a loaded machine lets it poll
# varies from a quarter to two thirds of the pair here), so its share is not tested; that the
# wait's time is there, and where the calls' time goes (below), must hold exactly
positive() { awk -v x="${1:-0}" 'BEGIN { exit !(x > 0) }'; }
positive "$n1" || fail "n has no blame on rank 1, which waits in the broadcast: $(cat "$T/c.csv")"
positive "$t0" || fail "total has no blame on rank 0, which waits in the reduction: $(cat "$T/c.csv")"
# all of the broadcast's time is n's, all of the reduction's total's: no other variable has them
awk -F, 'NR > 1 && $2 != "n (main)" && $2 != "Other" && $2 != "Output" && $4 ~ /MPI_Bcast/' "$T/c.csv" | grep -q . &&
	fail "MPI_Bcast's time on another variable: $(cat "$T/c.csv")"
awk -F, 'NR > 1 && $2 != "total (main)" && $2 != "Other" && $2 != "Output" && $4 ~ /MPI_Reduce/' "$T/c.csv" | grep -q . &&
	fail "MPI_Reduce's time on another variable: $(cat "$T/c.csv")"
grep -q '^main,n (main),int,MPI_Bcast,' "$T/c.csv" || fail "n without MPI_Bcast: $(cat "$T/c.csv")"
grep -q '^main,total (main),double,MPI_Reduce,' "$T/c.csv" || fail "total without MPI_Reduce: $(cat "$T/c.csv")"
# the calls' status (written on the same lines) takes nothing: the prototype picks the buffer
for v in "err (share)" "err (reduce_sum)" "dim (share)" "global (reduce_sum)" "local (reduce_sum)"; do
	[ -z "$(blame_of "$T/c.csv" main "$v")" ] || fail "$v has blame: $(cat "$T/c.csv")"
done
expect_status 0 "$DT" blame c --why "n (main)" --top 1
grep -q "n (main) <- share(.*), line [0-9]* <- <return> (share) <- dim, line [0-9]* <- argument 1 of [P]*MPI_Bcast (its transfer function) <- sample in [P]*MPI_Bcast at collect.c:[0-9]* in share" "$T/out" ||
	fail "why n: $(cat "$T/out")"
# and that path is (nearly) all of n's blame: by hand, all of it (a sample in the broadcast's
# own frames, the rest)
p1=$(sed -n 2p "$T/out" | awk '{ sub("%", "", $1); print $1 }')
near "the broadcast's part of n" "$p1" 100 10
expect_status 0 "$DT" blame c --why "total (main)" --top 1
grep -q "<- global, line [0-9]* <- argument 2 of [P]*MPI_Reduce (its transfer function) <- sample in [P]*MPI_Reduce at collect.c:" "$T/out" ||
	fail "why total: $(cat "$T/out")"

# ---- a source that does not parse whole ----------------------------------------------------
build partial -g "$SRC/partial.c"
record p 1 "$T/partial"
# shellcheck disable=SC2086
expect_status 1 "$DT" blame-index --run p "$SRC/partial.c" -- -DBREAK_SCALE $MPIFLAGS
expect_err "partial.c:[0-9]*:[0-9]*: error: expected expression"
grep -q "1 file with errors (what parsed is stored)" "$T/out" || fail "summary: $(cat "$T/out")"
expect_status 0 "$DT" blame-index --show main --run p
grep -q "^function main" "$T/out" || fail "main not indexed: $(cat "$T/out")"
expect_status 0 "$DT" blame p --format csv
unquote "$T/out" >"$T/p.csv"
c=$(blame_of "$T/p.csv" main "c (main)")
hb=$(blame_of "$T/p.csv" main "h (partial.c:$(grep -n '/\* SITE_H \*/' "$SRC/partial.c" | cut -d: -f1) in main)")
# by hand: c = a + b and scale() 0.4 s each: c half of the two
near "c's share of c and the block" "$(ratio "$c" "$(awk -v a="${c:-0}" -v b="${hb:-0}" 'BEGIN { print a + b }')")" 0.5 0.1

# ---- a binary without -g -----------------------------------------------------------------
build nog "$SRC/dflow.c" "$SRC/dflow_extra.c"
record nog 1 "$T/nog"
expect_status 0 "$DT" blame nog --no-index --format csv
cp "$T/out" "$T/nog_plain.csv"
# shellcheck disable=SC2086
expect_status 0 "$DT" blame-index --run nog "$SRC/dflow.c" -- $MPIFLAGS
expect_status 0 "$DT" blame nog
grep -q '^# note: the program has no -g: no source lines to join the blame index to' "$T/out" ||
	fail "no note: $(cat "$T/out")"
expect_err "run 'nog': the program has no -g, so its blame index cannot be used"
grep -q ' (main)  *double' "$T/out" && fail "source rows without -g: $(cat "$T/out")"
# part 1's blame: the same table as without the index
expect_status 0 "$DT" blame nog --format csv
cmp -s "$T/out" "$T/nog_plain.csv" || fail "without -g the index changed the table: $(cat "$T/out")"
expect_status 0 "$DT" blame nog --format json
grep -q '"index_no_debug":true' "$T/out" || fail "json: $(head -c 300 "$T/out")"
exit 0
