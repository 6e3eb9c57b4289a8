#!/bin/sh
# Inputs that are valid but odd: time that goes backwards in a uftrace recording is flagged
# time-regressed and never printed as an unsigned wrap; a UTF-8 byte order mark at the start
# of a text trace is not part of the first name.
. "${abs_top_srcdir:-.}/tests/lib.sh"

# ---- time going backwards ----
U="$DATA/uftrace/nest"
[ -f "$U/6749.dat" ] || fail "fixture $U missing"
# the same records twice: the second copy starts before the first ended
cp -r "$U" "$T/twice"
cat "$U/6749.dat" "$U/6749.dat" > "$T/twice/6749.dat"
expect_status 0 "$DT" import --run twice "$T/twice"
grep -q 'flagged: time-regressed' "$T/out" || fail "repeated .dat not flagged: $(cat "$T/out")"
# the first record later than all the others: times before the first event
cp -r "$U" "$T/back"
printf '\377\377\377\377\377\377\377\017' | dd of="$T/back/6749.dat" bs=1 seek=0 conv=notrunc 2>/dev/null
expect_status 0 "$DT" import -q --run back "$T/back"
expect_status 0 "$DT" traces --format csv back
grep -q 'time-regressed' "$T/out" || fail "not flagged: $(cat "$T/out")"
expect_status 0 "$DT" show back 0.0
grep -q '18446' "$T/out" && fail "a wrapped time: $(cat "$T/out")"
grep -q '^ *2  *-[0-9]*\.[0-9]\{9\}  ' "$T/out" || fail "no negative offset: $(cat "$T/out")"
# and the same recording without the change is not flagged
expect_status 0 "$DT" import --run nest "$U"
grep -q 'flagged' "$T/out" && fail "a clean recording flagged: $(cat "$T/out")"

# ---- a byte order mark ----
mkdir "$T/bom"
printf '\357\273\277main\nf\n[ret]\n[ret]\n' > "$T/bom/0.0.txt"
expect_status 0 "$DT" import -q --run bom "$T/bom"
expect_status 0 "$DT" show --format text bom 0.0
[ "$(head -1 "$T/out")" = main ] || fail "the BOM is part of the first name: $(head -1 "$T/out" | od -c)"
pass
