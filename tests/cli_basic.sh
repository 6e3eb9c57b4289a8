#!/bin/sh
# The everyday commands on a small text run: import, runs, traces, show (both formats), rm.
. "${abs_top_srcdir:-.}/tests/lib.sh"

expect_status 0 "$DT" import --run small --label "two ranks" "$DATA/text/small"
grep -q "imported run 'small' (text): 4 traces, 31 events" "$T/out" || fail "import summary: $(cat "$T/out")"

expect_status 0 "$DT" runs
grep -q '^small .* 4 .* 31 .*two ranks' "$T/out" || fail "runs: $(cat "$T/out")"

expect_status 0 "$DT" traces small
for pt in 0.0 0.1 1.0 1.1; do grep -q "^$pt " "$T/out" || fail "traces lacks $pt"; done
# 1.1 never returns from worker: flagged, with a note.
grep -A1 '^1\.1 ' "$T/out" | grep -q 'open-frames' || fail "1.1 not flagged open-frames"
grep -q 'note: 1 call left open' "$T/out" || fail "no note for open call"

# text round trip, byte for byte
for pt in 0.0 0.1 1.0 1.1; do
	"$DT" show --format text small "$pt" > "$T/$pt.txt" || fail "show $pt"
	cmp -s "$T/$pt.txt" "$DATA/text/small/$pt.txt" || fail "round trip of $pt differs"
done
# and importing the written text again gives the same run
expect_status 0 "$DT" import --run again "$T"
for pt in 0.0 1.0; do
	"$DT" show --format text again "$pt" | cmp -s - "$DATA/text/small/$pt.txt" || fail "re-import $pt"
done

# tree: folding of leaves, nesting, event numbers
expect_status 0 "$DT" show small 0.0
grep -q '^ *0  main() {$' "$T/out" || fail "tree open: $(cat "$T/out")"
grep -q '^ *1    MPI_Init();$' "$T/out" || fail "tree leaf fold"
grep -q '^ *11  } /\* main \*/$' "$T/out" || fail "tree close"
# --from/--count window
expect_status 0 "$DT" show --from 3 --count 2 --format text small 0.0
[ "$(cat "$T/out")" = "$(printf 'MPI_Recv\n[ret]')" ] || fail "window: $(cat "$T/out")"

# machine-readable listings
expect_status 0 "$DT" traces --format csv small
[ "$(wc -l < "$T/out")" -eq 5 ] || fail "csv rows"
head -1 "$T/out" | grep -q '^pt,proc,thread,pid,tid' || fail "csv header"
expect_status 0 "$DT" runs --format json
grep -q '"run": "small", "traces": 4, "events": 31' "$T/out" || fail "json: $(cat "$T/out")"

# same function names share ids across runs (interned once per store)
[ "$(sqlite3 "$DIFFTRACE_DB" "SELECT count(*) FROM functions")" -eq 7 ] || fail "functions interned twice"

expect_status 0 "$DT" rm again
expect_status 0 "$DT" runs --format csv
grep -q '^again,' "$T/out" && fail "rm left the run"
[ "$(sqlite3 "$DIFFTRACE_DB" "SELECT count(*) FROM traces")" -eq 4 ] || fail "rm left traces"
[ "$(sqlite3 "$DIFFTRACE_DB" "SELECT count(*) FROM chunks")" -eq 4 ] || fail "rm left chunks"

# the default run name comes from the path and is made unique
expect_status 0 "$DT" import -q "$DATA/text/small"
expect_status 0 "$DT" import -q "$DATA/text/small"
"$DT" runs --format csv | cut -d, -f1 | grep -qx 'small-2' || fail "no unique default name"

expect_status 0 "$DT" --version
grep -q '^difftrace [0-9]' "$T/out" || fail "version"
for v in import runs traces show rm; do
	expect_status 0 "$DT" $v --help
	grep -q "^usage: difftrace $v" "$T/out" || fail "$v --help"
done
pass
