#!/bin/sh
# The sync record in the store (issue 25, item 1): kept per thread in compressed chunks, a ring
# exchange of 8 processes x 10,000 iterations (480,000 sync events) takes under a byte and a
# half an event and less than its recording compressed with zstd -3 (when zstd is here); what
# `sync` and `order` print is the same as from the rows of a store written before the chunks
# (schema 10: one row an event, still read; the ring gives every call its communicator size, 8);
# imported on 1, 2 and 3 threads, the events and the chunks are the same.
. "${abs_top_srcdir:-.}/tests/lib.sh"

command -v sqlite3 >/dev/null || skip "no sqlite3 command"
MK="$abs_top_builddir/tests/mk_sync_rec"
[ -x "$MK" ] || fail "tests/mk_sync_rec is not built"
"$MK" "$T/ring" ring 8 10000 || fail "mk_sync_rec ring"
expect_status 0 "$DT" import -q --run ring "$T/ring"
n=$(sqlite3 "$T/store.db" "SELECT sum(n) FROM sync_chunks")
bytes=$(sqlite3 "$T/store.db" "SELECT sum(length(data)) FROM sync_chunks")
[ "$n" = 480016 ] || fail "sync events in chunks: $n"
[ "$(sqlite3 "$T/store.db" "SELECT count(*) FROM sync_events")" = 0 ] || fail "rows written too"
[ $((bytes * 2)) -lt $((n * 3)) ] || fail "sync chunks take $bytes bytes for $n events"
if command -v zstd >/dev/null; then
	z=$(tar cf - -C "$T" ring | zstd -3 -q -c | wc -c)
	sqlite3 "$T/store.db" "VACUUM" || fail "vacuum"
	s=$(wc -c < "$T/store.db")
	[ "$s" -lt "$z" ] || fail "the store takes $s bytes, the recording under zstd -3 $z"
fi
expect_status 0 "$DT" sync --format csv ring
mv "$T/out" "$T/sync.chunks"
expect_status 0 "$DT" order ring
mv "$T/out" "$T/order.chunks"
# on worker threads the events reach the store as the columns of their chunks, written with
# each unit's own function ids: 1, 2 and 3 threads give the same events and the same chunks
for j in 1 2 3; do
	"$DT" -d "$T/j$j.db" import -q --jobs $j --run ring "$T/ring" >"$T/imp.out" 2>&1 ||
		{ cat "$T/imp.out" >&2; fail "import --jobs $j"; }
	"$DT" -d "$T/j$j.db" sync --format csv ring >"$T/sync.j$j" 2>"$T/err" || fail "sync, --jobs $j"
	sqlite3 "$T/j$j.db" "SELECT trace_id, seq, first, n, codec, hex(data) FROM sync_chunks
		ORDER BY trace_id, seq" >"$T/chunks.j$j" || fail "sqlite3, --jobs $j"
	[ "$(grep -c '' "$T/sync.j$j")" -gt 480016 ] || fail "--jobs $j: not every event printed"
	cmp -s "$T/sync.j$j" "$T/sync.chunks" ||
		fail "--jobs $j: other events: $(diff "$T/sync.chunks" "$T/sync.j$j" | head -5)"
	cmp -s "$T/chunks.j$j" "$T/chunks.j1" || fail "--jobs $j: other chunks than --jobs 1"
done

# the same events as rows of a store of schema 10, the chunks gone
sed 1d "$T/sync.chunks" > "$T/rows.csv"
sqlite3 "$T/store.db" <<SQL || fail "making rows"
CREATE TEMP TABLE t(proc, thread, seq, phase, ts, call, comm, dest, stag, src, rtag, root,
	count, datatype, op, req, obj, objseq, team, tnum);
.mode csv
.import $T/rows.csv t
INSERT INTO sync_events SELECT (SELECT id FROM traces WHERE proc = t.proc AND thread = t.thread),
	seq, phase, (SELECT id FROM functions WHERE name = t.call), ts, comm, dest, stag, src, rtag,
	root, count, datatype, op, req, obj, objseq, team, tnum,
	CASE WHEN t.comm = '0' THEN 8 ELSE 0 END FROM t;
DELETE FROM sync_chunks;
PRAGMA user_version = 10;
SQL
[ "$(sqlite3 "$T/store.db" "SELECT count(*) FROM sync_events")" = 480016 ] || fail "rows"
expect_status 0 "$DT" sync --format csv ring
cmp -s "$T/out" "$T/sync.chunks" || fail "sync differs from rows: $(diff "$T/out" "$T/sync.chunks" | head -5)"
expect_status 0 "$DT" order ring
cmp -s "$T/out" "$T/order.chunks" || fail "order differs from rows: $(diff "$T/out" "$T/order.chunks" | head -5)"
[ "$(sqlite3 "$T/store.db" "PRAGMA user_version")" = 13 ] || fail "not migrated"

# a damaged chunk: one line naming the store, exit 1
sqlite3 "$T/store.db" "DELETE FROM sync_events; DROP TABLE IF EXISTS t" || fail "sqlite3"
expect_status 0 "$DT" import -q --run ring2 "$T/ring"
sqlite3 "$T/store.db" "UPDATE sync_chunks SET data = substr(data, 1, length(data) - 5)
	WHERE seq = 1 AND trace_id = (SELECT min(trace_id) FROM sync_chunks)" || fail "damage"
expect_status 1 "$DT" sync ring2
[ "$(wc -l < "$T/err")" = 1 ] || fail "damaged: more than a line: $(cat "$T/err")"
grep -q 'store.db: damaged sync chunk at event 4096: zstd' "$T/err" || fail "damaged: $(cat "$T/err")"
pass
