#!/bin/sh
# Writers wait for the store as long as it takes, saying so once, and an import holds the
# store's write lock only to publish: two imports and a browse at once all succeed, with the
# right events, while another program holds the write lock longer than any fixed timeout.
. "${abs_top_srcdir:-.}/tests/lib.sh"
command -v sqlite3 >/dev/null || skip "sqlite3 command not installed"

expect_status 0 "$DT" import -q --run base "$DATA/text/small"

# two runs whose function names are new to the store, and new to each other
for r in a b; do
	mkdir "$T/$r"
	for p in 0 1; do
		awk -v r=$r -v p=$p 'BEGIN { srand(p + (r == "a") * 7)
			print "main"; for (i = 0; i < 3000; i++) printf "%s_f%d\n[ret]\n", r, int(rand() * 300)
			print "[ret]" }' > "$T/$r/$p.0.txt"
	done
done

# Another program holds the write lock for 7 s (longer than the 5 s SQLite waits by default).
lock() {
	(echo "BEGIN IMMEDIATE;"; echo ".shell touch $T/locked"; sleep 7; echo "COMMIT;") |
		sqlite3 "$DIFFTRACE_DB" >/dev/null 2>&1 &
	n=0
	while [ ! -f "$T/locked" ]; do
		sleep 0.05; n=$((n + 1)); [ $n -gt 400 ] && fail "the lock was not taken"
	done
}

lock
"$DT" import -q --run a "$T/a" >"$T/a.out" 2>"$T/a.err" & pa=$!
"$DT" import -q --run b "$T/b" >"$T/b.out" 2>"$T/b.err" & pb=$!
"$DT" classes base >"$T/c.out" 2>"$T/c.err" & pc=$!
wait $pa; sa=$?
wait $pb; sb=$?
wait $pc; sc=$?
rm -f "$T/locked"
[ $sa = 0 ] || fail "import a: exit $sa: $(cat "$T/a.err")"
[ $sb = 0 ] || fail "import b: exit $sb: $(cat "$T/b.err")"
[ $sc = 0 ] || fail "classes: exit $sc: $(cat "$T/c.err")"
for f in a b c; do
	[ "$(grep -c 'waiting for the store (another difftrace is importing)' "$T/$f.err")" = 1 ] ||
		fail "$f: no single waiting message: $(cat "$T/$f.err")"
done
grep -q 'class' "$T/c.out" || fail "classes printed nothing: $(cat "$T/c.out")"

# each run holds exactly its own events, whichever published first
for r in a b; do
	for p in 0 1; do
		expect_status 0 "$DT" show --format text $r $p.0
		cmp -s "$T/out" "$T/$r/$p.0.txt" || fail "run $r trace $p.0 differs from its file"
	done
done
expect_status 0 "$DT" show --format text base 0.0
cmp -s "$T/out" "$DATA/text/small/0.0.txt" || fail "run base changed"

# removing waits too
lock
expect_status 0 "$DT" rm a
grep -q 'waiting for the store' "$T/err" || fail "rm did not say it waited"
wait
pass
