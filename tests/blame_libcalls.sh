#!/bin/sh
# blame_libcalls.sh: library functions without source, placed by the shipped prototype tables
# (blame/libc.transfer, blame/blas.transfer) through the blame index. tests/blame/libcalls.c
# spends its CPU in memset and memcpy on a heap block (and, when Debian's libblas-dev is
# there, in cblas_daxpy and cblas_dgemm); the samples inside those calls must go to the
# destination's block (by its allocation site), not to the source's nor to Other, and the rows
# of the table add up to its total. glibc runs memcpy and memset as internal routines
# (__memmove_avx_unaligned_erms and the like): the call at the program's line names them.
. "${abs_top_srcdir:-..}/tests/lib.sh"
need built mpi
[ -f "$abs_top_builddir/libdifftrace-sample.so" ] ||
	skip "libdifftrace-sample.so not built (configure found no libunwind: apt-get install libunwind-dev)"
export DIFFTRACE_BLAME_PATH="$abs_top_srcdir/blame"
SRC="$abs_top_srcdir/tests/blame/libcalls.c"
cd "$T" || fail "cd $T"
flags="-np 1"
"$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags="$flags --oversubscribe"
[ "$(id -u)" = 0 ] && "$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags="$flags --allow-run-as-root"
MPIFLAGS=$("$MPICC" --showme:compile 2>/dev/null)

# the BLAS part needs CBLAS in Debian's libblas3 (libblas-dev) or libopenblas; without it the
# program is built without that phase
blas=1
def=""
if "$MPICC" -g -O0 -DWITH_BLAS -o "$T/libcalls" "$SRC" -lblas >"$T/cc.log" 2>&1; then
	def="-DWITH_BLAS"
else
	blas=0
	echo "note: no CBLAS to link (apt-get install libblas-dev): the BLAS part is skipped"
	"$MPICC" -g -O0 -o "$T/libcalls" "$SRC" >"$T/cc.log" 2>&1 || { cat "$T/cc.log" >&2; fail "mpicc failed"; }
fi

# is libclang there? (the index, of every run, is the program's as built)
# shellcheck disable=SC2086
"$DT" blame-index "$SRC" -- $def $MPIFLAGS >"$T/bx.out" 2>"$T/bx.err"
rc=$?
grep -q "built without libclang" "$T/bx.err" &&
	skip "difftrace was built without libclang (apt-get install libclang-dev)"
[ $rc = 0 ] || { cat "$T/bx.err" >&2; fail "blame-index libcalls.c: exit $rc"; }

# shellcheck disable=SC2086
timeout -k 5 150 "$MPIRUN" $flags "$RECORD" --sample=timer --sync-only -o "$T/rec" -- "$T/libcalls" 0.4 \
	</dev/null >"$T/rec.log" 2>&1 || { cat "$T/rec.log" >&2; fail "the recorded run failed"; }
expect_status 0 "$DT" import -r l "$T/rec"

# a block by the variable it is allocated into (SITE_DST: dst), its site as detail
site() { printf '%s (libcalls.c:%s in main)' "$(echo "$1" | tr 'A-Z' 'a-z')" "$(grep -n "/\* SITE_$1 \*/" "$SRC" | cut -d: -f1)"; }
line_of() { grep -n "^	*$1" "$SRC" | head -1 | cut -d: -f1; }
blame_of() { awk -F, -v n="$2" '$2 == n { print $5; exit }' "$1"; }
unquote() {
	awk '{ o = ""; q = 0; for (i = 1; i <= length($0); i++) { c = substr($0, i, 1)
		if (c == "\"") { q = !q; continue }; if (c == "," && q) c = "+"; o = o c }; print o }' "$1"
}
ratio() { awk -v a="${1:-0}" -v b="${2:-0}" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }'; }
atleast() { awk -v v="$2" -v e="$3" 'BEGIN { exit !(v >= e) }' || fail "$1 is $2, expected at least $3"; }

expect_status 0 "$DT" blame l --format csv
unquote "$T/out" >"$T/l.csv"
# the rows add up to the total
awk -F, 'NR > 1 && $2 != "Total" { s += $5 } NR > 1 && $2 == "Total" { t = $5 }
     END { exit !(t > 0 && s - t < 0.01 && t - s < 0.01) }' "$T/l.csv" ||
	fail "the rows do not add up to the total: $(cat "$T/l.csv")"

# why VARIABLE: its paths, all of them
why() {
	"$DT" blame l --why "$1" --top 1000 >"$T/why" 2>"$T/err" || { cat "$T/err" >&2; fail "why $1"; }
}
dst=$(blame_of "$T/l.csv" "$(site DST)")
src=$(blame_of "$T/l.csv" "$(site SRC)")
# by hand: 0.4 s of CPU in memset and memcpy, all on the destination; the source has only
# the loop that fills it
atleast "the destination's share of destination + source" \
	"$(ratio "$dst" "$(awk -v a="${dst:-0}" -v b="${src:-0}" 'BEGIN { print a + b }')")" 0.9
why "$(site DST)"
grep -q "<- dst (main), a pointer into it <- argument 1 of memcpy (its transfer function) <- sample in [^ ]* at libcalls.c:$(line_of 'memcpy(dst')" "$T/why" ||
	fail "no memcpy path to the destination: $(cat "$T/why")"
grep -q "<- argument 1 of memset (its transfer function) <- sample in [^ ]* at libcalls.c:$(line_of 'memset(dst')" "$T/why" ||
	fail "no memset path to the destination: $(cat "$T/why")"
# nothing of the copies goes to the source or to Other
if [ -n "$src" ]; then
	why "$(site SRC)"
	grep -q "memcpy\|memset\|memmove" "$T/why" && fail "the source took a copy's samples: $(cat "$T/why")"
fi
for l in "$(line_of 'memcpy(dst')" "$(line_of 'memset(dst')"; do
	if grep -q '^main,Other,' "$T/l.csv"; then
		why Other
		grep -q "at libcalls.c:$l in main" "$T/why" && fail "Other took samples of line $l: $(cat "$T/why")"
	fi
done

if [ $blas = 1 ]; then
	x=$(blame_of "$T/l.csv" "$(site X)")
	y=$(blame_of "$T/l.csv" "$(site Y)")
	c=$(blame_of "$T/l.csv" "$(site C)")
	# by hand: 0.4 s in cblas_daxpy on y, 0.4 s in cblas_dgemm on c; x only filled
	atleast "y's share of x + y" "$(ratio "$y" "$(awk -v a="${x:-0}" -v b="${y:-0}" 'BEGIN { print a + b }')")" 0.9
	atleast "c's share of x + c" "$(ratio "$c" "$(awk -v a="${x:-0}" -v b="${c:-0}" 'BEGIN { print a + b }')")" 0.9
	why "$(site Y)"
	grep -q "<- y (main), a pointer into it <- argument 5 of cblas_daxpy (its transfer function)" "$T/why" ||
		fail "no daxpy path to y: $(cat "$T/why")"
	grep -q "cblas_dgemm" "$T/why" && fail "y, read by dgemm, took its samples: $(cat "$T/why")"
	why "$(site C)"
	grep -q "<- c (main), a pointer into it <- argument 13 of cblas_dgemm (its transfer function)" "$T/why" ||
		fail "no dgemm path to c: $(cat "$T/why")"
	if [ -n "$x" ]; then
		why "$(site X)"
		grep -q "cblas_" "$T/why" && fail "x, only read, took BLAS samples: $(cat "$T/why")"
	fi
fi

# a user file read after the shipped ones replaces a function: memcpy blamed on its source
printf 'memcpy blame=2 from=1 bytes=3\n' >"$T/mine.transfer"
expect_status 0 "$DT" blame l --transfer "$T/mine.transfer" --why "$(site SRC)" --top 1000
grep -q "<- src (main), a pointer into it <- argument 2 of memcpy (its transfer function)" "$T/out" ||
	fail "the user's memcpy did not replace the shipped one: $(cat "$T/out")"
pass
