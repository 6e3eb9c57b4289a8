#!/bin/sh
# Read-only stores are read (analyses not cached are computed in memory, not saved), other
# programs' SQLite files are refused untouched, and read commands never create a store.
. "${abs_top_srcdir:-.}/tests/lib.sh"
command -v sqlite3 >/dev/null || skip "sqlite3 command not installed"

# ---- another program's database, an empty file, no file, not SQLite ----
sqlite3 "$T/other.db" 'CREATE TABLE t(x); INSERT INTO t VALUES(1);'
cp "$T/other.db" "$T/other.orig"
expect_status 1 "$DT" -d "$T/other.db" runs
expect_err "not a difftrace store: $T/other.db has tables of another program"
expect_status 1 "$DT" -d "$T/other.db" import -q "$DATA/text/small"
expect_err "has tables of another program"
cmp -s "$T/other.db" "$T/other.orig" || fail "other.db was changed"
[ ! -e "$T/other.db-wal" ] || fail "other.db was switched to WAL"

expect_status 1 "$DT" -d "$T/missing.db" runs
expect_err "no store here"
[ ! -e "$T/missing.db" ] || fail "a read command created a store"
expect_status 1 "$DT" -d "$T/missing.db" classes base
[ ! -e "$T/missing.db" ] || fail "classes created a store"
: > "$T/empty.db"
expect_status 1 "$DT" -d "$T/empty.db" traces base
expect_err "no store here"
[ ! -s "$T/empty.db" ] || fail "a read command wrote a schema into an empty file"
echo 'not sqlite at all, but long enough to be read as a header by SQLite...........' > "$T/junk.db"
expect_status 1 "$DT" -d "$T/junk.db" runs
expect_err "not a difftrace store: not an SQLite database"

# ---- the marker: set on creation; a store made before it is accepted and marked ----
expect_status 0 "$DT" import -q --run base "$DATA/text/small"
[ "$(sqlite3 "$DIFFTRACE_DB" 'PRAGMA application_id')" = 1147556978 ] || fail "no application id"
sqlite3 "$DIFFTRACE_DB" 'PRAGMA application_id = 0'
expect_status 0 "$DT" runs
grep -q '^base ' "$T/out" || fail "an unmarked store was refused"
[ "$(sqlite3 "$DIFFTRACE_DB" 'PRAGMA application_id')" = 1147556978 ] || fail "id not set on open"

# ---- a store the user cannot write (tests run as root, where permissions do not bite: run
# the read commands as nobody, on a copy of difftrace that nobody can read, lib.sh) ----
reader_init || skip "cannot run difftrace as another user: $READER_WHY"
mkdir "$T/ro" "$T/home"
expect_status 0 "$DT" -d "$T/ro/store.db" import -q --run base "$DATA/text/small"
expect_status 0 "$DT" -d "$T/ro/store.db" import -q --run other "$DATA/text/small"
expect_status 0 "$DT" -d "$T/ro/store.db" analyze other
chmod 755 "$T" "$T/ro"
chmod 644 "$T/ro/store.db"
chmod 777 "$T/home"
nobody() {
	HOME="$T/home" as_reader "$RDT" -d "$T/ro/store.db" "$@"
}
sum() { sqlite3 "$T/ro/store.db" 'SELECT count(*) FROM analyses; SELECT count(*) FROM loops;
	SELECT count(*) FROM runs; SELECT count(*) FROM functions'; }
before=$(sum)
for args in "runs" "traces base" "show base 0.0" "nlr other 0.0" "classes other"; do
	expect_status 0 nobody $args
	[ ! -s "$T/err" ] || fail "$args on a read-only store: $(cat "$T/err")"
done
# not cached: computed in memory, said once, not saved
expect_status 0 nobody classes base
[ "$(grep -c 'read-only: analyses it has not cached are computed in memory and not saved' "$T/err")" = 1 ] ||
	fail "no single not-saved notice: $(cat "$T/err")"
grep -q 'CLASS' "$T/out" || fail "classes printed nothing"
expect_status 0 nobody diff base:0.0 other:0.1
expect_status 0 nobody rank --normal base --faulty other
[ "$(sum)" = "$before" ] || fail "a read command wrote to a read-only store"
# the interface computes it in the background too, and shows it
printf 'Enter\nwait\n' > "$T/home/keys"
expect_status 0 nobody tui --script "$T/home/keys" --dump "$T/home/screen" --size 24x80
grep -q 'classes of traces with identical attribute sets' "$T/home/screen" ||
	fail "the interface did not show an analysis of a read-only store: $(cat "$T/home/screen")"
grep -q 'the store is read-only: analyses are computed in memory, not saved' "$T/home/screen" ||
	fail "the interface does not say the analysis is not saved: $(cat "$T/home/screen")"
# writing is refused with what it is
cp -R "$DATA/text/small" "$T/home/small" && chmod -R a+rX "$T/home/small" || fail "cp"
expect_status 1 nobody import -q "$T/home/small"
expect_err "cannot write the store: Permission denied"
expect_status 1 nobody rm base
expect_err "the store is read-only: cannot remove runs"
[ "$(sum)" = "$before" ] || fail "a refused write changed the store"
# a folder the user can write, holding a store file they cannot: read through its own WAL files
chmod 777 "$T/ro"
chmod 444 "$T/ro/store.db"
expect_status 0 nobody classes base
expect_err "computed in memory"
pass
