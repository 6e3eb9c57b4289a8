#!/bin/sh
# `show` prints byte for byte what tests/data/show/*.out hold (written by the printf-based
# version, before the output was buffered and the names escaped once per function): both
# formats, timestamps and recorded arguments (uftrace), hostile names (escaped in the tree,
# raw in text to a pipe), nesting past the indent limit, --from and --count, and a trace of
# several store chunks.
. "${abs_top_srcdir:-.}/tests/lib.sh"
need built
OUT="$DATA/show"

# without source lines: the fixtures' binaries may or may not be on this machine
expect_status 0 "$DT" import --no-srclines --format uftrace --run args "$DATA/uftrace/args"
expect_status 0 "$DT" import --no-srclines --format uftrace --run nest "$DATA/uftrace/nest"

# names with ESC, BEL, DEL, a tab, a C1 control and a byte that is not UTF-8; 70 levels deep
mkdir "$T/odd"
{
	printf 'main\n'
	i=0
	while [ $i -lt 70 ]; do printf 'lvl%d\n' $i; i=$((i + 1)); done
	printf 'ev\033]52;c;QQ==\007il\n[ret]\nt\tab\177\n[ret]\nc1\302\233x\n[ret]\nbad\377\n[ret]\n'
	i=0
	while [ $i -lt 70 ]; do printf '[ret]\n'; i=$((i + 1)); done
	printf 'MPI_Barrier\n[ret]\n[ret]\n'
} > "$T/odd/0.0.txt"
# 600,000 events: three chunks of the store
awk 'BEGIN { print "main"; for (i = 0; i < 149999; i++) { print "MPI_Send"; print "[ret]";
	print "kernel"; print "[ret]" } print "MPI_Bcast" }' > "$T/odd/1.0.txt"
expect_status 0 "$DT" import --run odd "$T/odd"

check() { # NAME ARGS...: show ARGS must print tests/data/show/NAME.out
	name=$1; shift
	"$DT" show "$@" > "$T/$name.out" 2>"$T/err" || { cat "$T/err" >&2; fail "show $*"; }
	cmp -s "$T/$name.out" "$OUT/$name.out" || {
		diff "$OUT/$name.out" "$T/$name.out" | head -20 >&2
		fail "show $* differs from $name.out"
	}
}
for pt in $("$DT" traces --format csv args | awk -F, 'NR > 1 { print $1 }'); do
	check "args-$pt" args "$pt"
	check "args-$pt-text" --format text args "$pt"
done
for pt in $("$DT" traces --format csv nest | awk -F, 'NR > 1 { print $1 }'); do
	check "nest-$pt" nest "$pt"
done
check odd odd 0.0
check odd-text --format text odd 0.0
check odd-from --from 60 --count 20 odd 0.0
# the long trace: only a digest of its 14 MB is kept
for f in "" "--format text"; do
	# shellcheck disable=SC2086
	"$DT" show $f odd 1.0 | cksum > "$T/ck" || fail "show $f odd 1.0"
	"$DT" show $f --from 262140 --count 10 odd 1.0 >> "$T/ck" || fail "show --from $f odd 1.0"
	grep -q . "$T/ck" || fail "no output"
	cat "$T/ck" >> "$T/long.out"
done
cmp -s "$T/long.out" "$OUT/long.out" || { diff "$OUT/long.out" "$T/long.out" >&2; fail "long trace"; }
pass
