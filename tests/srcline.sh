#!/bin/sh
# Source lines and times of a uftrace recording: a tiny program built with -g -pg is recorded
# twice (3 and 5 iterations of its loop) and once without -g; the import keeps where each
# function is defined, show and diff print FILE:LINE (text and JSON), show --time prints
# durations; the interface (headless) shows the lines, toggles the time column with D and opens
# $EDITOR +LINE FILE with e; a store made before the source lines keeps working, read-only too.
. "${abs_top_srcdir:-.}/tests/lib.sh"

need uftrace built
CC=${CC_FOR_TESTS:-${CC:-cc}}
command -v "$CC" >/dev/null || CC=gcc
cat > "$T/prog.c" <<'SRC'
#include <stdio.h>
static int leaf(int x)
{
	return x * 2;
}

int work(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += leaf(i);
	return s;
}

int main(int argc, char **argv)
{
	printf("%d\n", work(argc > 1 ? 5 : 3));
	return 0;
}
SRC
"$CC" -g -O0 -pg -o "$T/prog" "$T/prog.c" 2>"$T/cc.log" || skip "cannot build with -pg: $(cat "$T/cc.log")"
"$CC" -O0 -pg -o "$T/prog_nog" "$T/prog.c" 2>"$T/cc.log" || fail "cc without -g: $(cat "$T/cc.log")"
rec() { # dir program args...
	d=$1
	shift
	"$UFTRACE" record -d "$d" "$@" >"$T/rec.log" 2>&1 ||
		skip "uftrace cannot record here: $(cat "$T/rec.log")"
}
rec "$T/a.data" "$T/prog"
rec "$T/b.data" "$T/prog" 1
rec "$T/c.data" "$T/prog_nog"

# ---- import: the lines are kept, a program without -g is said once ----
expect_status 0 "$DT" import --run a "$T/a.data"
grep -q 'source lines of 3 functions' "$T/out" || fail "import a: $(cat "$T/out")"
expect_status 0 "$DT" import --run b "$T/b.data"
expect_status 0 "$DT" import --run c "$T/c.data"
grep -q "no source lines for $T/prog_nog: it has no debug information (build it with -g)" "$T/out" ||
	fail "import c: $(cat "$T/out")"
[ "$(grep -c 'no source lines' "$T/out")" = 1 ] || fail "said more than once: $(cat "$T/out")"

# a program that is gone since the recording: said so, not mistaken for one without -g; with
# uftrace record --srcline the recording's own lines stand in for the binary's
cp "$T/prog" "$T/gone"
rec "$T/g.data" "$T/gone"
if "$UFTRACE" record --srcline -d "$T/s.data" "$T/gone" >"$T/rec.log" 2>&1; then srcl=1; else srcl=0; fi
rm "$T/gone"
expect_status 0 "$DT" import --run gone "$T/g.data"
grep -q "no source lines for $T/gone: it could not be read here" "$T/out" || fail "import gone: $(cat "$T/out")"
grep -q 'no debug information' "$T/out" && fail "gone mistaken for no -g: $(cat "$T/out")"
expect_status 0 "$DT" show gone 0.0
grep -q "^# no source lines for $T/gone: it could not be read at import" "$T/out" ||
	fail "show gone: $(cat "$T/out")"
if [ $srcl = 1 ]; then
	expect_status 0 "$DT" import --run srcl "$T/s.data"
	grep -q 'source lines of 3 functions' "$T/out" || fail "import --srcline recording: $(cat "$T/out")"
	grep -q 'no source lines' "$T/out" && fail "--srcline recording: $(cat "$T/out")"
	expect_status 0 "$DT" show srcl 0.0
	grep -q '  work() { /\* .*prog.c:7 \*/$' "$T/out" || fail "show srcl: $(cat "$T/out")"
else
	echo "uftrace record --srcline failed: the recording's own lines are not tested"
fi

# a binary rebuilt since the recording (another build id) is not read for lines
cp "$T/prog" "$T/rebuilt"
rec "$T/rb.data" "$T/rebuilt"
sed 's/return x \* 2;/return x * 3;/' "$T/prog.c" > "$T/prog2.c"
"$CC" -g -O0 -pg -o "$T/rebuilt" "$T/prog2.c" 2>"$T/cc.log" || fail "cc: $(cat "$T/cc.log")"
expect_status 0 "$DT" import --run rebuilt "$T/rb.data"
grep -q "no source lines for $T/rebuilt: the file there is another build than the one recorded" \
	"$T/out" || fail "import rebuilt: $(cat "$T/out")"
# --no-srclines: none kept, nothing said
expect_status 0 "$DT" import --no-srclines --run plain "$T/a.data"
grep -q 'source lines' "$T/out" && fail "--no-srclines: $(cat "$T/out")"
expect_status 0 "$DT" show plain 0.0
grep -q '/\* .*:[0-9]* \*/' "$T/out" && fail "--no-srclines: show has lines: $(cat "$T/out")"

# ---- show: /* FILE:LINE */ after calls (relative to the current folder under it) ----
cd "$T" || fail "cd"
expect_status 0 "$DT" show a 0.0
grep -q '  work() { /\* prog.c:7 \*/$' "$T/out" || fail "show: work's line: $(cat "$T/out")"
grep -q '  leaf(); /\* prog.c:2 \*/$' "$T/out" || fail "show: leaf's line: $(cat "$T/out")"
grep -q '  main() { /\* prog.c:15 \*/$' "$T/out" || fail "show: main's line: $(cat "$T/out")"
grep -q '  printf();$' "$T/out" || fail "show: printf has no line: $(cat "$T/out")"
grep -q 'TIME(s)' "$T/out" || fail "show: no start column by default"
cd / || fail "cd /"
expect_status 0 "$DT" show a 0.0
grep -q "work() { /\\* $T/prog.c:7 \\*/" "$T/out" || fail "show elsewhere: the whole path: $(cat "$T/out")"
# --time: durations on the lines that close calls, as uftrace replay
expect_status 0 "$DT" show --time duration a 0.0
grep -q 'DURATION(s)' "$T/out" || fail "--time duration: no header: $(cat "$T/out")"
grep -q 'TIME(s)' "$T/out" && fail "--time duration still shows the start"
grep -Eq '^ +[0-9]+ +[0-9]+\.[0-9]{9} +leaf\(\);' "$T/out" || fail "no duration of leaf: $(cat "$T/out")"
grep -Eq '^ +[0-9]+ +[0-9]+\.[0-9]{9} +\} /\* work \*/' "$T/out" || fail "no duration at work's }: $(cat "$T/out")"
grep -Eq '^ +[0-9]+ {18,}work\(\) \{' "$T/out" || fail "an opening line has a duration: $(cat "$T/out")"
expect_status 0 "$DT" show --time both a 0.0
grep -q 'TIME(s) .*DURATION(s)' "$T/out" || fail "--time both: $(cat "$T/out")"
expect_status 0 "$DT" show --time none a 0.0
grep -Eq 'TIME|DURATION' "$T/out" && fail "--time none: $(cat "$T/out")"
expect_status 2 "$DT" show --time sometimes a 0.0
expect_err "--time takes start, duration, both or none"
# the program without -g: said in the header, no line anywhere
expect_status 0 "$DT" show c 0.0
grep -q "^# no source lines for $T/prog_nog: it has no debug information" "$T/out" ||
	fail "show c: $(cat "$T/out")"
grep -q 'prog.c:' "$T/out" && fail "show c has lines"
# text traces have neither lines nor times
expect_status 0 "$DT" import -q --run txt "$DATA/text/small"
expect_status 0 "$DT" show --time duration txt 0.0
grep -Eq 'DURATION|/\* .*:[0-9]+ \*/' "$T/out" && fail "a text trace with times or lines: $(cat "$T/out")"

# ---- diff: NAME @FILE:LINE in text, file and line in JSON ----
expect_status 0 "$DT" diff -K 10 --filter everything a:0.0 b:0.0
grep -q '^work @prog.c:7  *work @prog.c:7$' "$T/out" || fail "diff: $(cat "$T/out")"
grep -q 'L0^3  *| L0^5' "$T/out" || fail "diff: the loop: $(cat "$T/out")"
expect_status 0 "$DT" diff --filter everything --format json a:0.0 b:0.0
grep -q "{\"name\": \"work\", \"file\": \"$T/prog.c\", \"line\": 7}" "$T/out" || fail "json: $(cat "$T/out")"
grep -q '{"name": "printf"}' "$T/out" || fail "json: printf: $(cat "$T/out")"

# ---- the interface, headless ----
ui() { # keys... : the screen in $T/screen
	printf '%s\n' "$@" > "$T/keys"
	"$DT" tui --filter everything --script "$T/keys" --dump "$T/screen" --size "${SIZE:-24x100}" \
		>"$T/out" 2>"$T/err" || fail "tui exited $?: $(cat "$T/err")"
}
has() { grep -q -- "$1" "$T/screen" || { cat "$T/screen" >&2; fail "screen lacks '$1'"; }; }
hasnt() { grep -q -- "$1" "$T/screen" && { cat "$T/screen" >&2; fail "screen has '$1'"; }; return 0; }
ui : '"trace a 0.0"' Enter wait
# the calls as a tree: a callee indented under its caller, [-] on a call whose callees show
has '^  4   \[-\] work  prog.c:7$'
has '^  3 \[-\] main  prog.c:15$'
has '^  6   printf$'
# Enter folds main: its callees (work, three leaf, printf) hidden and counted
ui : '"trace a 0.0"' Enter wait j j Enter
has '^> 3 \[+\] main  5 calls folded  prog.c:15  (work - L0 x3 (leaf) - printf)$'
hasnt 'START'
# D: since the start, D again: duration (a loop: all its iterations), D again: none
ui : '"trace a 0.0"' Enter wait D
has '^  #      START '
has '^> 1 *0 ns __monstartup'
grep -Eq '^  4 +[0-9.]+ [num]?s   \[-\] work  prog.c:7$' "$T/screen" || { cat "$T/screen" >&2; fail "no start of work"; }
has "since the trace's first event"
ui : '"trace a 0.0"' Enter wait D D
has '^  #   DURATION '
grep -Eq '^  5 +[0-9.]+ [num]?s     \[\+\] L0 ' "$T/screen" || { cat "$T/screen" >&2; fail "no duration of the loop"; }
ui : '"trace a 0.0"' Enter wait D D D
hasnt 'DURATION'
hasnt 'START'
has 'time column off'
# a trace without timestamps says so
ui : '"trace txt 0.0"' Enter wait D
has 'has no timestamps'
# the diff view: lines in both panes, the time column in both
ui : '"diff a:0.0 b:0.0"' Enter wait
grep -Eq '^  work  prog.c:7 {20,}work  prog.c:7$' "$T/screen" || { cat "$T/screen" >&2; fail "diff view lines"; }
ui : '"diff a:0.0 b:0.0"' Enter wait D D
grep -Eq '^ +[0-9.]+ [num]?s L0\^3 .*\| +[0-9.]+ [num]?s L0\^5' "$T/screen" || { cat "$T/screen" >&2; fail "diff view durations"; }
# e: the editor on the call's line ($VISUAL, then $EDITOR, then vi)
cat > "$T/ed" <<ED
#!/bin/sh
echo "\$@" > "$T/edited"
ED
chmod +x "$T/ed"
EDITOR="$T/ed" VISUAL= ui : '"trace a 0.0"' Enter wait j j j e
[ "$(cat "$T/edited")" = "+7 $T/prog.c" ] || fail "editor got: $(cat "$T/edited" 2>&1)"
has "$T/ed +7 $T/prog.c"
rm -f "$T/edited"
VISUAL="$T/ed -x" EDITOR=false ui : '"diff a:0.0 b:0.0"' Enter wait j j e
[ "$(cat "$T/edited")" = "-x +15 $T/prog.c" ] || fail "diff view, VISUAL: $(cat "$T/edited" 2>&1)"
rm -f "$T/edited"
EDITOR="$T/ed" ui : '"trace a 0.0"' Enter wait j e
[ -e "$T/edited" ] && fail "the editor ran on a call without a line"
has 'no source line for __cxa_atexit (not in the program'
EDITOR="$T/ed" ui : '"trace c 0.0"' Enter wait j j e
has "no source line for main: $T/prog_nog: it has no debug information (-g)"
EDITOR="$T/ed" ui : '"trace a 0.0"' Enter wait j j j j e
has 'a loop, not a call'
# the ranking view names where the changed call is defined
SIZE=24x160 ui : '"rank a b"' Enter wait
has 'leaf where the normal run has printf.*prog.c:2'

# ---- a store from before the source lines (schema 6) keeps working ----
cp "$DIFFTRACE_DB" "$T/old.db"
sqlite3 "$T/old.db" 'DROP TABLE srclines; ALTER TABLE blame_locs DROP COLUMN inl;
	PRAGMA user_version = 6;' || fail "sqlite3"
cp "$T/old.db" "$T/old-ro.db"
expect_status 0 "$DT" -d "$T/old.db" show a 0.0
grep -q 'work() {$' "$T/out" || fail "old store: $(cat "$T/out")"
expect_status 0 "$DT" -d "$T/old.db" diff a:0.0 b:0.0
[ "$(sqlite3 "$T/old.db" 'PRAGMA user_version')" -ge 7 ] || fail "old store not migrated"
expect_status 0 "$DT" -d "$T/old.db" import --run a2 "$T/a.data"
grep -q 'source lines of 3 functions' "$T/out" || fail "import into a migrated store: $(cat "$T/out")"
expect_status 0 "$DT" -d "$T/old.db" show a2 0.0
grep -q 'work() { /\* .*prog.c:7 \*/' "$T/out" || fail "migrated store, new run: $(cat "$T/out")"
# read-only (never migrated): no lines, no error
if reader_init; then
	mkdir "$T/ro" "$T/home" && mv "$T/old-ro.db" "$T/ro/store.db" && chmod 755 "$T" "$T/ro" &&
		chmod 644 "$T/ro/store.db" && chmod 777 "$T/home" || fail "chmod"
	nobody() { HOME="$T/home" as_reader "$RDT" -d "$T/ro/store.db" "$@"; }
	expect_status 0 nobody show a 0.0
	grep -q 'work() {$' "$T/out" || fail "read-only old store: $(cat "$T/out")"
	expect_status 0 nobody diff --format json a:0.0 b:0.0
	[ "$(sqlite3 "$T/ro/store.db" 'PRAGMA user_version')" = 6 ] || fail "a read-only store was migrated"
	printf '%s\n' : '"trace a 0.0"' Enter wait D e > "$T/keys"
	nobody tui --filter everything --script "$T/keys" --dump "$T/home/screen" >"$T/out" 2>"$T/err" ||
		fail "tui on a read-only old store: $(cat "$T/err")"
	grep -q 'no source line for __monstartup: the run has none' "$T/home/screen" ||
		fail "read-only old store, e: $(cat "$T/home/screen")"
else
	echo "note: cannot run difftrace as another user ($READER_WHY): the read-only old store is not tested"
fi
pass
