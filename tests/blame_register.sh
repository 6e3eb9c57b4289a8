#!/bin/sh
# blame_register.sh: pointer variables in registers (an -O2 -g build, recorded as the README
# says: difftrace-record --sample, uftrace on). tests/blame/regvar.c's scale keeps its pointer
# v in a register where its loop runs, and main keeps x and y in callee-saved registers across
# the call, so the loop's frame holds y's address too, though it never touches y. The sampler
# keeps each register word's register (difftrace-sample(5) version 4) and the import matches
# it with the DWARF location of the frame's variables at its pc: v's register names x's block,
# and the frame's other registers (y's, left there by main) are not counted. Without the
# register numbers the loop's samples were split between x and y. With the blame index, the
# loop in gcc's copy scale.constprop.0 follows scale's entry, and x takes it as at -O0. main's
# z, in rax at the call's return (a caller-saved register of a caller's frame, which the
# sampler does not have), is said lost, with why.
. "${abs_top_srcdir:-..}/tests/lib.sh"
need built mpi uftrace
[ -f "$abs_top_builddir/libdifftrace-sample.so" ] ||
	skip "libdifftrace-sample.so not built (configure found no libunwind: apt-get install libunwind-dev)"
command -v readelf >/dev/null || skip "readelf not found (binutils)"
command -v objdump >/dev/null || skip "objdump not found (binutils)"
export DIFFTRACE_BLAME_PATH="$abs_top_srcdir/blame"
cd "$T" || fail "cd $T"
S="$abs_top_srcdir/tests/blame/regvar.c"
"$MPICC" -g -O2 -pg -o "$T/regvar" "$S" >"$T/cc.log" 2>&1 || { cat "$T/cc.log" >&2; fail "mpicc -O2 -pg failed"; }
# the case is exercised only where the compiler keeps scale's v in a register: the location of
# the first parameter of scale's out-of-line copy
readelf --debug-dump=info "$T/regvar" >"$T/info" 2>/dev/null || fail "readelf failed"
awk -v fn=scale '
/^ <[0-9]+><[0-9a-f]+>:/ {
	match($0, /<[0-9]+>/); depth = substr($0, RSTART + 1, RLENGTH - 2) + 0
	match($0, /><[0-9a-f]+>/); off = substr($0, RSTART + 2, RLENGTH - 3)
	tag = $0; sub(/.*\(/, "", tag); sub(/\).*/, "", tag)
	if (depth <= sd) in_sub = 0
	at_sub = tag == "DW_TAG_subprogram"
	if (at_sub) { cur = off; sd = depth; in_sub = 1 }
	param = in_sub && depth == sd + 1 && tag == "DW_TAG_formal_parameter" && !(cur in first)
	if (param) first[cur] = 1
	next
}
at_sub && /DW_AT_name/ && $NF == fn { named[cur] = 1 }
at_sub && /DW_AT_abstract_origin/ { o = $NF; gsub(/[<>]|0x/, "", o); origin[cur] = o }
at_sub && /DW_AT_low_pc/ { concrete[cur] = 1 }
param && /DW_AT_location/ { loc[cur] = $0 }
END { for (s in concrete) if ((named[s] || named[origin[s]]) && (s in loc)) print loc[s] }' \
	"$T/info" >"$T/vloc"
grep -q 'DW_OP_reg[0-9]' "$T/vloc" ||
	skip "this compiler does not keep scale's v in a register at -O2 ($(cat "$T/vloc")): the case is not exercised"
flags="-np 1"
"$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags="$flags --oversubscribe"
[ "$(id -u)" = 0 ] && "$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags="$flags --allow-run-as-root"
# shellcheck disable=SC2086
timeout -k 5 200 "$MPIRUN" $flags "$RECORD" --sample -o "$T/rec" -- "$T/regvar" 40000 \
	</dev/null >"$T/run.log" 2>&1 || { cat "$T/run.log" >&2; fail "the recorded run failed"; }
expect_status 0 "$DT" import -r reg "$T/rec"
cp "$T/out" "$T/import"
xl=$(grep -n 'SITE_X' "$S" | cut -d: -f1)
yl=$(grep -n 'SITE_Y' "$S" | cut -d: -f1)
# the blame of row $2 in the csv $1 (rank 0's column) in whole ticks, rounded (a sample split
# between blocks counts a share of a tick to each), 0 when there is no such row
blame_of() { awk -F, -v n="$2" '$2 == n { b = $5 } END { printf "%d\n", b + 0.5 }' "$1"; }

# without the index: the heap blocks by their sites; the loop's samples are x's alone
expect_status 0 "$DT" blame reg --no-index --format csv
cp "$T/out" "$T/plain.csv"
x=$(blame_of "$T/plain.csv" "regvar.c:$xl (main)")
y=$(blame_of "$T/plain.csv" "regvar.c:$yl (main)")
tot=$(blame_of "$T/plain.csv" Total)
[ "$x" -ge 100 ] || fail "x's block took $x ticks of $tot: $(cat "$T/plain.csv")"
# y's block is never touched while the loop runs: at most a tick or two outside it
[ "$y" -le $((x / 20)) ] || fail "y's block took $y ticks against x's $x: $(cat "$T/plain.csv")"

# with the index, as at -O0: x by its name, on top; y only what main's own loop that fills it
# took (a tick or two, the loop runs for a fraction of a millisecond), never the scale loop's
# shellcheck disable=SC2046
expect_status 0 "$DT" blame-index "$S" -- $("$MPICC" --showme:compile 2>/dev/null || "$MPICC" -show 2>/dev/null | tr ' ' '\n' | grep '^-I')
expect_status 0 "$DT" blame reg
cp "$T/out" "$T/index.txt"
sed -n '/^VARIABLE/{n;p;}' "$T/index.txt" | grep -q "^x (regvar.c:$xl in main) *heap " ||
	fail "x is not on top with the index: $(cat "$T/index.txt")"
expect_status 0 "$DT" blame reg --format csv
cp "$T/out" "$T/index.csv"
xi=$(blame_of "$T/index.csv" "x (regvar.c:$xl in main)")
yi=$(blame_of "$T/index.csv" "y (regvar.c:$yl in main)")
[ "$xi" -ge 100 ] || fail "x has $xi ticks in the csv with the index: $(cat "$T/index.csv")"
[ "$yi" -le $((xi / 20)) ] || fail "y has $yi ticks with the index against x's $xi: $(cat "$T/index.txt")"
grep -q "no source in the blame index for scale" "$T/index.txt" &&
	fail "gcc's copy of scale is not joined to its index entry: $(cat "$T/index.txt")"

# z in rax at the call's return: said lost, once, with why; x and y, in callee-saved
# registers, are not
ret=$(objdump -d --no-show-raw-insn "$T/regvar" | awk '/call.*<scale/ { c = 1; next } c { print $1; exit }' | tr -d :)
[ -n "$ret" ] || fail "no call of scale in main: $(objdump -d "$T/regvar" | grep -c call) calls"
if readelf --debug-dump=loc "$T/regvar" 2>/dev/null |
	grep -q "^ *0*$ret [0-9a-f]* (DW_OP_reg0 (rax))"; then
	why="in a caller-saved register in a caller's frame (rax)"
	grep -q "^note: in main, z (double\*) has no stack location at the sampled code: $why; " "$T/import" ||
		fail "import does not say z is lost: $(cat "$T/import")"
	[ "$(grep -c "^# note: in main, no stack location at the sampled code for z (double\*): $why$" "$T/index.txt")" = 1 ] ||
		fail "blame does not say once that z is lost: $(cat "$T/index.txt")"
else
	echo "note: this compiler does not keep z in rax at the call's return: its note is not tested"
fi
grep -q "for [xy] (double\*)" "$T/index.txt" && fail "x or y said lost: $(cat "$T/index.txt")"
pass
