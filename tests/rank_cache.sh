#!/bin/sh
# The ranking kept in the store (issue 13; src/analysis/rankcache.h): `rank` prints the same
# bytes whether it computes the ranking or reads it back, in every format, for a change the
# filter sees and one only the program's own functions show (ranked under filter everything);
# the kept ranking is the one read (a value swapped in the store shows); a damaged value is
# computed again; the ranking goes with an analysis re-run or removed, and another linkage
# has its own; a read-only store computes it without keeping it; the interface's ranking view
# shows the same from the cache as computed, and from it the diff view opens without reading the
# analyses' matrices.
. "${abs_top_srcdir:-.}/tests/lib.sh"

command -v sqlite3 >/dev/null || skip "sqlite3 not found (apt-get install sqlite3)"
q() { sqlite3 "$DIFFTRACE_DB" "$1"; }

. "${abs_top_srcdir:-.}/tests/rank_runs.sh" # mk DIR KIND

for k in normal order own; do
	mk "$T/$k" $k
	expect_status 0 "$DT" import -q --run $k "$T/$k"
done
expect_status 0 "$DT" analyze normal order own

# --- computed, then read back: the same bytes ---------------------------------------------
for f in order own; do
	for opts in "" "--format csv" "--format json" "--top 3" "--format csv --top 1" \
		"--format json --top 2" "--score jsmd"; do
		q "DELETE FROM rank_cache"
		# shellcheck disable=SC2086
		expect_status 0 "$DT" rank --normal normal --faulty $f $opts
		cp "$T/out" "$T/computed"
		# shellcheck disable=SC2086
		expect_status 0 "$DT" rank --normal normal --faulty $f $opts
		cmp -s "$T/computed" "$T/out" ||
			{ diff "$T/computed" "$T/out" >&2; fail "$f $opts: the cached ranking prints otherwise"; }
	done
done
expect_status 0 "$DT" rank --normal normal --faulty own
grep -q 'sees no difference; the program.s own functions do' "$T/out" ||
	fail "own: not ranked under every call: $(cat "$T/out")"
# two rankings kept for own: its filter's (no difference) and every call's
[ "$(q "SELECT count(*) FROM rank_cache")" -ge 2 ] || fail "own: rankings not kept: $(q "SELECT * FROM rank_cache")"

# --- the kept ranking is the one read ------------------------------------------------------
q "DELETE FROM rank_cache"
expect_status 0 "$DT" rank --normal normal --faulty order
cp "$T/out" "$T/order.txt"
[ "$(q "SELECT count(*) FROM rank_cache")" = 1 ] || fail "no ranking kept"
fn=$(q "SELECT normal FROM rank_cache")
ff=$(q "SELECT faulty FROM rank_cache")
expect_status 0 "$DT" rank --normal normal --faulty own
cp "$T/out" "$T/own.txt"
fo=$(q "SELECT faulty FROM rank_cache WHERE faulty <> $ff LIMIT 1")
[ -n "$fo" ] || fail "no ranking kept for own"
# order's ranking replaced by own's (every call's, under the default filter's key): order now
# prints own's traces under order's name
q "UPDATE rank_cache SET value = (SELECT value FROM rank_cache WHERE faulty = $fo LIMIT 1)
   WHERE faulty = $ff"
expect_status 0 "$DT" rank --normal normal --faulty order
cmp -s "$T/order.txt" "$T/out" && fail "the kept ranking was not read"
# a damaged value is computed again, and replaced
q "UPDATE rank_cache SET value = x'00ff' WHERE faulty = $ff"
expect_status 0 "$DT" rank --normal normal --faulty order
cmp -s "$T/order.txt" "$T/out" || fail "a damaged ranking: $(cat "$T/out")"
expect_status 0 "$DT" rank --normal normal --faulty order
cmp -s "$T/order.txt" "$T/out" || fail "the replaced ranking: $(cat "$T/out")"

# --- another linkage, its own ranking; an analysis re-run or removed takes its rankings ----
expect_status 0 "$DT" rank --normal normal --faulty order --linkage single
cp "$T/out" "$T/single.txt"
grep -q 'single linkage' "$T/single.txt" || fail "single: $(cat "$T/single.txt")"
[ "$(q "SELECT count(*) FROM rank_cache WHERE faulty = $ff")" = 2 ] ||
	fail "linkages: $(q "SELECT normal, faulty, opts FROM rank_cache")"
expect_status 0 "$DT" rank --normal normal --faulty order --linkage single
cmp -s "$T/single.txt" "$T/out" || fail "single, cached: $(cat "$T/out")"
expect_status 0 "$DT" rank --normal normal --faulty order
cmp -s "$T/order.txt" "$T/out" || fail "ward after single: $(cat "$T/out")"

expect_status 0 "$DT" analyze --force order
[ "$(q "SELECT count(*) FROM rank_cache WHERE faulty = $ff OR normal = $ff")" = 0 ] ||
	fail "the re-run analysis kept its rankings: $(q "SELECT normal, faulty, opts FROM rank_cache")"
expect_status 0 "$DT" rank --normal normal --faulty order
cmp -s "$T/order.txt" "$T/out" || fail "after the re-run: $(cat "$T/out")"
expect_status 0 "$DT" analyze --force normal
[ "$(q "SELECT count(*) FROM rank_cache WHERE normal = $fn")" = 0 ] ||
	fail "the normal run's re-run analysis kept its rankings"
expect_status 0 "$DT" rank --normal normal --faulty order
cmp -s "$T/order.txt" "$T/out" || fail "after the normal re-run: $(cat "$T/out")"
expect_status 0 "$DT" rm own
[ "$(q "SELECT count(*) FROM rank_cache WHERE faulty NOT IN (SELECT id FROM analyses)")" = 0 ] ||
	fail "rankings of a removed run's analyses are left"

printf 'wait\n' > "$T/keys"
# --- a read-only store (as the user nobody, as store_access.sh): computed, not kept; and one of
# schema 8, which has no table for it ------------------------------------------------------------
if reader_init; then
	mkdir "$T/ro" "$T/home"
	for k in normal order; do
		expect_status 0 "$DT" -d "$T/ro/store.db" import -q --run $k "$T/$k"
	done
	expect_status 0 "$DT" -d "$T/ro/store.db" analyze normal order
	chmod 755 "$T" "$T/ro"
	chmod 644 "$T/ro/store.db"
	chmod 777 "$T/home"
	nobody() {
		HOME="$T/home" as_reader "$RDT" -d "$T/ro/store.db" "$@"
	}
	for schema in 10 8; do
		expect_status 0 nobody rank --normal normal --faulty order
		cmp -s "$T/order.txt" "$T/out" ||
			{ diff "$T/order.txt" "$T/out" >&2; fail "read-only, schema $schema"; }
		expect_status 0 nobody tui --normal normal --faulty order --script "$T/keys" --dump "$T/home/screen" --size 40x160
		grep -q 'B-score' "$T/home/screen" || fail "read-only view, schema $schema: $(cat "$T/home/screen")"
		[ "$schema" = 8 ] ||
			[ "$(sqlite3 "$T/ro/store.db" "SELECT count(*) FROM rank_cache")" = 0 ] ||
			fail "read-only: a ranking kept"
		[ "$schema" = 8 ] ||
			sqlite3 "$T/ro/store.db" "DROP TABLE rank_cache; PRAGMA user_version = 8;" ||
			fail "sqlite3"
	done
else
	echo "note: cannot run difftrace as another user ($READER_WHY): the read-only store is not tested"
fi

# --- the interface's ranking view: the same screen from the cache as computed ---------------
printf 'wait\n' > "$T/keys"
q "DELETE FROM rank_cache"
expect_status 0 "$DT" tui --normal normal --faulty order --script "$T/keys" --dump "$T/screen1" --size 40x160
[ "$(q "SELECT count(*) FROM rank_cache")" = 1 ] || fail "the view kept no ranking"
expect_status 0 "$DT" tui --normal normal --faulty order --script "$T/keys" --dump "$T/screen2" --size 40x160
cmp -s "$T/screen1" "$T/screen2" ||
	{ diff "$T/screen1" "$T/screen2" >&2; fail "the ranking view from the cache differs"; }
grep -q 'B-score' "$T/screen2" || fail "the ranking view: $(cat "$T/screen2")"
grep -q '# PAIR' "$T/screen2" || fail "the ranking view, pairs: $(cat "$T/screen2")"
# rank and the view share the ranking (the view clusters with ward, as rank by default)
q "DELETE FROM rank_cache"
expect_status 0 "$DT" rank --normal normal --faulty order
expect_status 0 "$DT" tui --normal normal --faulty order --script "$T/keys" --dump "$T/screen3" --size 40x160
cmp -s "$T/screen1" "$T/screen3" || fail "the ranking view from rank's ranking differs"
[ "$(q "SELECT count(*) FROM rank_cache")" = 1 ] || fail "rank and the view keep two rankings"

# --- from the kept ranking, the view and the diff it opens need neither analysis's matrix --------
# (the diff view reads the traces' rows only): with the matrices gone, both still open
q "DELETE FROM analysis_blobs WHERE key = 'jsm'"
printf 'wait\nEnter\n' > "$T/keys2"
expect_status 0 "$DT" tui --normal normal --faulty order --script "$T/keys2" --dump "$T/screen4" --size 40x160
grep -q '^difftrace: diff normal 2\.0 | order 2\.0' "$T/screen4" ||
	fail "the diff view from the kept ranking: $(cat "$T/screen4")"
grep -q 'damaged' "$T/screen4" && fail "the diff view read a matrix: $(cat "$T/screen4")"
pass
