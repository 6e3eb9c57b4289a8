#!/bin/sh
# blame_names.sh: with a blame index, a heap block's row is named by what points to it where it
# is allocated, its allocation site as detail (tests/blame/names.c): x for x = malloc(...), s->f
# for s->f = vec_new(...) (the block allocated in vec_new), s for the structure, y for the block
# vec_make allocates into its v and returns to main's y. fill() works on x and on s->f the same
# CPU time: by hand, each takes half of the two. --why takes the name.
. "${abs_top_srcdir:-..}/tests/lib.sh"
need built mpi
[ -f "$abs_top_builddir/libdifftrace-sample.so" ] ||
	skip "libdifftrace-sample.so not built (configure found no libunwind: apt-get install libunwind-dev)"
export DIFFTRACE_BLAME_PATH="$abs_top_srcdir/blame"
SRC="$abs_top_srcdir/tests/blame/names.c"
"$MPICC" -g -O0 -o "$T/names" "$SRC" >"$T/cc.log" 2>&1 || { cat "$T/cc.log" >&2; fail "mpicc failed"; }
cd "$T" || fail "cd $T"
flags="-np 1"
"$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags="$flags --oversubscribe"
[ "$(id -u)" = 0 ] && "$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags="$flags --allow-run-as-root"
# shellcheck disable=SC2086
timeout -k 5 150 "$MPIRUN" $flags "$RECORD" --sample=timer --sync-only -o "$T/rec" -- "$T/names" \
	</dev/null >"$T/rec.log" 2>&1 || { cat "$T/rec.log" >&2; fail "the recorded run failed"; }
expect_status 0 "$DT" import -r n "$T/rec"
line() { grep -n "/\* SITE_$1 \*/" "$SRC" | cut -d: -f1; }
blame_of() { awk -F, -v n="$2" '$1 == "main" && $2 == n { print $5; exit }' "$1"; }
positive() { awk -v x="${1:-0}" 'BEGIN { exit !(x > 0) }'; }

# without the index: the blocks by their allocation site
expect_status 0 "$DT" blame n --format csv
cp "$T/out" "$T/site.csv"
positive "$(blame_of "$T/site.csv" "names.c:$(line X) (main)")" || fail "x's site row: $(cat "$T/site.csv")"

# shellcheck disable=SC2046
"$DT" blame-index "$SRC" -- $("$MPICC" --showme:compile 2>/dev/null) >"$T/bx.out" 2>"$T/bx.err"
rc=$?
grep -q "built without libclang" "$T/bx.err" && skip "difftrace was built without libclang (apt-get install libclang-dev)"
[ $rc = 0 ] || { cat "$T/bx.err" >&2; fail "blame-index names.c: exit $rc"; }
expect_status 0 "$DT" blame n --format csv
cp "$T/out" "$T/named.csv"
X="x (names.c:$(line X) in main)"
F="s->f (names.c:$(line F) in vec_new)"
x=$(blame_of "$T/named.csv" "$X")
f=$(blame_of "$T/named.csv" "$F")
awk -v x="${x:-0}" -v f="${f:-0}" 'BEGIN { s = x + f; exit !(s > 0 && x / s > 0.4 && x / s < 0.6) }' ||
	fail "x ($x) and s->f ($f) are not named so, or do not share half and half: $(cat "$T/named.csv")"
positive "$(blame_of "$T/named.csv" "y (names.c:$(line Y) in vec_make)")" ||
	fail "the block vec_make returns is not named by the caller's y: $(cat "$T/named.csv")"
[ -z "$(blame_of "$T/named.csv" "names.c:$(line X) (main)")" ] ||
	fail "x keeps its site as name with the index: $(cat "$T/named.csv")"
# the text table and the json show the names
expect_status 0 "$DT" blame n
grep -qF "$X " "$T/out" || fail "text row of x: $(cat "$T/out")"
grep -qF "$F " "$T/out" || fail "text row of s->f: $(cat "$T/out")"
expect_status 0 "$DT" blame n --format json
grep -qF "\"name\":\"$F\"" "$T/out" || fail "json name of s->f: $(head -c 800 "$T/out")"
# --why by the name: the block's path starts at its row
expect_status 0 "$DT" blame n --why "$X" --top 1
grep -qF "# why $X at main" "$T/out" || fail "why x: $(cat "$T/out")"
grep -qF "$X <- " "$T/out" || fail "why x's path: $(cat "$T/out")"
pass
