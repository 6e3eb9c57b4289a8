#!/bin/sh
# Inputs that are valid but odd: time that goes backwards in a uftrace recording is flagged
# time-regressed and never printed as an unsigned wrap; a UTF-8 byte order mark at the start
# of a text trace is not part of the first name.
. "${abs_top_srcdir:-.}/tests/lib.sh"

# ---- time going backwards ----
U="$DATA/uftrace/nest"
[ -f "$U/6749.dat" ] || fail "fixture $U missing"
# the same records twice: the second copy starts before the first ended
cp -r "$U" "$T/twice" && chmod -R u+w "$T/twice"
cat "$U/6749.dat" "$U/6749.dat" > "$T/twice/6749.dat"
expect_status 0 "$DT" import --run twice "$T/twice"
grep -q 'flagged: time-regressed' "$T/out" || fail "repeated .dat not flagged: $(cat "$T/out")"
# the first record later than all the others: times before the first event
cp -r "$U" "$T/back" && chmod -R u+w "$T/back"
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

# ---- damage that still decodes ----
# a ParLOT stream holding four 0 tokens after "1 2 3": its encoder never writes that
mkdir "$T/p"
printf '+\n/bin/app\nmain\nfoo\nbar\n' > "$T/p/Hdbg.17.h.5.info"
cp "$T/p/Hdbg.17.h.5.info" "$T/p/Hdbg.17.h.6.info"
printf '\124\001\002\003\000\004' > "$T/p/Hdbg.17.h.5.0"
printf '\124\001\002\003\004' > "$T/p/Hdbg.17.h.6.0"
expect_status 0 "$DT" import --run p "$T/p"
expect_err "warning: a trace file is damaged"
expect_status 0 "$DT" traces p
grep -q '^0\.0 .* corrupt ' "$T/out" || fail "the damaged stream is not flagged: $(cat "$T/out")"
grep -q 'byte offset 4: a compressed group ParLOT never writes' "$T/out" || fail "no note: $(cat "$T/out")"
grep '^1\.0 ' "$T/out" | grep -q corrupt && fail "the sound stream is flagged: $(cat "$T/out")"
# a uftrace map whose base for the program is wrong: no call of it resolves
cp -r "$U" "$T/wb" && chmod -R u+w "$T/wb"
sed -i '1s/^55b70913f000/55b70903f000/' "$T/wb"/sid-*.map
expect_status 0 "$DT" import --run wb "$T/wb"
expect_err "warning: most calls of a module match no symbol"
expect_status 0 "$DT" traces wb
grep -q 'unresolved' "$T/out" || fail "wrong base not flagged: $(cat "$T/out")"
grep -q '7 of 7 addresses called in nest match no symbol' "$T/out" || fail "no note: $(cat "$T/out")"
expect_status 0 "$DT" import --run nest2 "$U"
[ ! -s "$T/err" ] || fail "a clean import warned: $(cat "$T/err")"

# names as people know them in text traces too: a C++ symbol demangled, a Fortran binding of MPI
# named as the C call; --no-demangle keeps them as written
mkdir "$T/cxxtext"
printf 'main\n_ZN4grid5FieldIdE6smoothEi\n[ret]\nmpi_send_\n[ret]\n[ret]\n' > "$T/cxxtext/0.0.txt"
expect_status 0 "$DT" import -q --run cxxtext "$T/cxxtext"
expect_status 0 "$DT" show --format text cxxtext 0.0
[ "$(sed -n 2p "$T/out")" = 'grid::Field<double>::smooth(int)' ] || fail "text: not demangled: $(cat "$T/out")"
[ "$(sed -n 4p "$T/out")" = 'MPI_Send' ] || fail "text: the Fortran binding: $(cat "$T/out")"
expect_status 0 "$DT" import -q --no-demangle --run cxxraw "$T/cxxtext"
expect_status 0 "$DT" show --format text cxxraw 0.0
[ "$(sed -n 2p "$T/out")" = '_ZN4grid5FieldIdE6smoothEi' ] || fail "text --no-demangle: $(cat "$T/out")"
pass
