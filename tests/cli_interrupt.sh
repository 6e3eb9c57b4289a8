#!/bin/sh
# Interrupting an import half way (SIGINT, SIGTERM or SIGKILL; on one thread or two) leaves the
# store exactly as it was.
. "${abs_top_srcdir:-.}/tests/lib.sh"
command -v sqlite3 >/dev/null || skip "sqlite3 command not installed"

expect_status 0 "$DT" import -q --run base "$DATA/text/small"
before=$(store_digest)

# A trace big enough that the import writes to the WAL long before it ends: 4 million
# events over a few thousand names in a pseudo-random order (so it compresses badly).
awk 'BEGIN { srand(7); for (i = 0; i < 2000000; i++) { printf "f%d\n[ret]\n", int(rand() * 5000) } }' > "$T/big.txt"

# read_some PID: waits until the import has read part of its input (it stages what it decodes
# outside the store, so the store's files do not grow before it ends), up to 30 s
read_some() {
	n=0
	while [ "$(sed -n 's/^rchar: //p' /proc/$1/io 2>/dev/null || echo 0)" -lt 3000000 ]; do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.05
		n=$((n + 1)); [ $n -gt 600 ] && break
	done
}

for sig in INT TERM KILL; do
	"$DT" import -q --run big "$T/big.txt" >/dev/null 2>"$T/err.$sig" &
	pid=$!
	read_some $pid
	kill -0 $pid 2>/dev/null || fail "import ended before it could be interrupted ($sig)"
	kill -$sig $pid
	wait $pid
	st=$?
	case $sig in
	INT|TERM)
		[ $st -eq 130 ] || fail "SIG$sig: exit $st, expected 130"
		grep -q "interrupted; the store is unchanged" "$T/err.$sig" || fail "SIG$sig message"
		;;
	KILL) [ $st -eq 137 ] || fail "SIGKILL: exit $st" ;;
	esac
	[ "$(store_digest)" = "$before" ] || fail "SIG$sig changed the store"
	expect_status 0 "$DT" traces base
done

# an import on two decoding threads (each with a file, its parts queued for the writing
# thread): interrupted, it stops them all and leaves the store as it was
mkdir "$T/two"
cp "$T/big.txt" "$T/two/0.0.txt"
cp "$T/big.txt" "$T/two/1.0.txt"
"$DT" import -q --jobs 2 --run two "$T/two" >/dev/null 2>"$T/err.two" &
pid=$!
read_some $pid
kill -0 $pid 2>/dev/null || fail "the threaded import ended before it could be interrupted"
kill -INT $pid
wait $pid
st=$?
[ $st -eq 130 ] || fail "SIGINT, 2 threads: exit $st, expected 130 ($(cat "$T/err.two"))"
grep -q "interrupted; the store is unchanged" "$T/err.two" || fail "SIGINT, 2 threads: message"
[ "$(store_digest)" = "$before" ] || fail "SIGINT changed the store (2 threads)"

# and the same import, left alone, succeeds afterwards
expect_status 0 "$DT" import -q --run big "$T/big.txt"
[ "$("$DT" traces --format csv big | cut -d, -f7 | tail -1)" = 4000000 ] || fail "big import"
pass
