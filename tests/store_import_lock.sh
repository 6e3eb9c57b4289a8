#!/bin/sh
# An import holds the store's write lock only to publish, not while it decodes: during an import
# of a few million text events, other writers (rm of another run, an analysis that saves its
# results) finish while the import has not ended. The import reads a named pipe, so the test
# decides when its input ends: the other writers run while half of it is still unwritten, and
# must end without waiting for the store.
. "${abs_top_srcdir:-.}/tests/lib.sh"
command -v mkfifo >/dev/null || skip "mkfifo not installed"

expect_status 0 "$DT" import -q --run base "$DATA/text/small"
expect_status 0 "$DT" import -q --run other "$DATA/text/small"

# 2 x 1.5 million calls over a few thousand names in a pseudo-random order
half() { awk -v s="$1" 'BEGIN { srand(s); for (i = 0; i < 1500000; i++) printf "f%d\n[ret]\n", int(rand() * 5000) }'; }
mkfifo "$T/big.txt"
"$DT" import -q --run big "$T/big.txt" >"$T/imp.out" 2>"$T/imp.err" & pid=$!
exec 3>"$T/big.txt"
# the first half: written once the import has read all but a pipe's buffer of it, so the import
# is decoding and cannot have ended (its input is still open)
half 7 >&3

# writer WHAT ARGS...: runs a command that writes to the store; it must end by itself, never
# saying it waits (a writer waits for the lock for ever: the message is the sign it waits)
writer() {
	what=$1; shift
	"$@" >"$T/w.out" 2>"$T/w.err" & w=$!
	while kill -0 $w 2>/dev/null; do
		grep -q 'waiting for the store' "$T/w.err" &&
			{ kill $w; exec 3>&-; kill $pid; fail "$what waited for the import's lock"; }
		sleep 0.05
	done
	wait $w || { exec 3>&-; fail "$what failed: $(cat "$T/w.err")"; }
	kill -0 $pid 2>/dev/null || fail "the import ended before $what did: $(cat "$T/imp.err")"
}
writer "rm of another run" "$DT" rm other
writer "classes (saving an analysis)" "$DT" classes base
grep -q 'class' "$T/w.out" || fail "classes printed nothing"

# the second half, then the end of input: the import publishes
half 8 >&3
exec 3>&-
wait $pid || fail "import failed: $(cat "$T/imp.err")"

expect_status 0 "$DT" runs
grep -q '^big ' "$T/out" || fail "no run big"
grep -q '^other ' "$T/out" && fail "run other still there"
[ "$("$DT" traces --format csv big | cut -d, -f7 | tail -1)" = 6000000 ] || fail "big: not 6000000 events"
expect_status 0 "$DT" show --format text base 0.0
cmp -s "$T/out" "$DATA/text/small/0.0.txt" || fail "run base changed"
pass
