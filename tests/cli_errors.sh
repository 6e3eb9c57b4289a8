#!/bin/sh
# Wrong command lines exit 2, bad data exits 1 with the file and position, and neither changes
# the store.
. "${abs_top_srcdir:-.}/tests/lib.sh"

expect_status 0 "$DT" import -q --run base "$DATA/text/small"
before=$(store_digest)

# command-line mistakes: exit 2 and a pointer to --help
expect_status 2 "$DT"
expect_status 2 "$DT" frobnicate
expect_err "'frobnicate' is not a command"
expect_status 2 "$DT" import
expect_err "no PATH to import"
expect_status 2 "$DT" import --format zip "$DATA/text/small"
expect_err "unknown format 'zip'"
expect_status 2 "$DT" import --run 'has space' "$DATA/text/small"
expect_status 2 "$DT" import --run 'a:b' "$DATA/text/small"
expect_status 2 "$DT" import --bogus "$DATA/text/small"
expect_err "see 'difftrace import --help'"
expect_status 2 "$DT" show base
expect_status 2 "$DT" show base zero
expect_err "'zero' is not a trace"
expect_status 2 "$DT" show --count -3 base 0.0
expect_status 2 "$DT" show --format html base 0.0
expect_status 2 "$DT" show --from 999 base 0.0
expect_err "past the end"
expect_status 2 "$DT" traces
expect_status 2 "$DT" runs extra
expect_status 2 "$DT" rank base
expect_err "two runs: NORMAL FAULTY, or --normal and --faulty; one: --run RUN"
expect_status 2 "$DT" rank --normal base base base
expect_err "unexpected argument 'base'"
expect_status 2 "$DT" -d

# data problems: exit 1, one line naming the file and where
expect_status 1 "$DT" traces nosuchrun
expect_err "no run named 'nosuchrun'"
expect_status 1 "$DT" show base 7.0
expect_err "no trace 7.0"
expect_status 1 "$DT" rm nosuchrun
expect_status 1 "$DT" import -q --run base "$DATA/text/small"
expect_err "a run named 'base' exists already"
expect_status 1 "$DT" import -q "$T/does-not-exist"
expect_err "does-not-exist: cannot read"
printf 'main\nfoo\n' > "$T/ok.txt"
printf 'main\nfo\000o\n' > "$T/nul.txt"
expect_status 1 "$DT" import -q --run x "$T/ok.txt" "$T/nul.txt"
expect_err "nul.txt:2:3: NUL byte"
[ "$(wc -l < "$T/err")" -le 2 ] || fail "more than the error and the store line: $(cat "$T/err")"
expect_err "store is unchanged"
mkdir "$T/dup"; printf 'a\n' > "$T/dup/1.0.txt"; printf 'a\n' > "$T/dup/rank.1.0.txt"
expect_status 1 "$DT" import -q "$T/dup"
expect_err "same process and thread numbers"
mkdir "$T/empty"
expect_status 1 "$DT" import -q "$T/empty"
expect_err "cannot tell the trace format"
head -c 100 /dev/urandom > "$T/blob.bin"
expect_status 1 "$DT" import -q "$T/blob.bin"

# binary formats: ParLOT with an impossible trailer, uftrace with a damaged info and a damaged
# record; each names the file and the byte offset
mkdir -p "$T/p" "$T/u"
printf '+\n/bin/app\nmain\nfoo\n' > "$T/p/Hdbg.17.h.5.info"
printf '\004\005\007' > "$T/p/Hdbg.17.h.5.0"
expect_status 1 "$DT" import -q "$T/p"
expect_err "Hdbg.17.h.5.0: offset 2: bad trailer byte 7"
cp "$DATA"/uftrace/nest/* "$T/u/"
printf 'Xtrace!' | dd of="$T/u/info" conv=notrunc 2>/dev/null
expect_status 1 "$DT" import -q "$T/u"
expect_err "u/info: offset 0: bad magic"
cp "$DATA/uftrace/nest/info" "$T/u/info"
dat=$(ls "$T"/u/*.dat)
printf '\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377' | dd of="$dat" bs=1 seek=32 conv=notrunc 2>/dev/null
expect_status 1 "$DT" import -q "$T/u"
expect_err "$(basename "$dat"): offset 32: bad record magic"

# reading commands never create a store
expect_status 1 "$DT" -d "$T/none.db" runs
expect_err "no store here"
[ -e "$T/none.db" ] && fail "runs created a store"
# a file that is not a store
printf 'hello' > "$T/not.db"
expect_status 1 "$DT" -d "$T/not.db" runs
expect_err "not a difftrace store"

# a damaged event chunk (a zstd frame with a byte changed, then one cut short): exit 1, one
# line naming the store and the chunk, the store left as it was; the sound traces still read
mkdir "$T/zt"
awk 'BEGIN { srand(7); for (i = 0; i < 3000; i++) print "MPI_Send\n[ret]\nf" int(rand() * 20) "\n[ret]" }' \
	>"$T/zt/0.0.txt"
cp "$T/zt/0.0.txt" "$T/zt/0.1.txt"
expect_status 0 "$DT" -d "$T/z.db" import -q --run z "$T/zt"
[ "$(sqlite3 "$T/z.db" "SELECT group_concat(codec) FROM chunks")" = "1,1" ] ||
	fail "the chunks are not zstd frames: $(sqlite3 "$T/z.db" "SELECT codec, length(events) FROM chunks")"
sqlite3 "$T/z.db" "UPDATE chunks SET events = CAST(substr(events, 1, 20) ||
	CASE substr(events, 21, 1) WHEN X'00' THEN X'01' ELSE X'00' END || substr(events, 22) AS BLOB)
	WHERE trace_id = (SELECT id FROM traces WHERE thread = 0)" || fail "sqlite3"
zbefore=$(sqlite3 "$T/z.db" "SELECT hex(events) FROM chunks")
expect_status 1 "$DT" -d "$T/z.db" show z 0.0
[ "$(wc -l <"$T/err")" = 1 ] || fail "not one line: $(cat "$T/err")"
grep -q "^difftrace: $T/z.db: damaged event chunk at event 0: zstd: " "$T/err" ||
	fail "the damaged chunk: $(cat "$T/err")"
expect_status 0 "$DT" -d "$T/z.db" show z 0.1
sqlite3 "$T/z.db" "UPDATE chunks SET events = substr(events, 1, length(events) - 3)
	WHERE trace_id = (SELECT id FROM traces WHERE thread = 0)" || fail "sqlite3"
expect_status 1 "$DT" -d "$T/z.db" analyze z
[ "$(wc -l <"$T/err")" = 1 ] || fail "not one line: $(cat "$T/err")"
grep -q "^difftrace: $T/z.db: damaged event chunk at event 0: zstd: " "$T/err" ||
	fail "the cut chunk: $(cat "$T/err")"
[ "$(sqlite3 "$T/z.db" "SELECT count(*) FROM analyses")" = 0 ] || fail "a failed analysis was stored"

[ "$(store_digest)" = "$before" ] || fail "the store changed: $before / $(store_digest)"
pass
