#!/bin/sh
# Control characters in function names, run names, labels and source paths never reach the
# terminal: every command escapes them (text, CSV, JSON and error messages); only
# `show --format text` to a pipe keeps the raw bytes, for the round trip through import.
. "${abs_top_srcdir:-.}/tests/lib.sh"

ESC=$(printf '\033'); BEL=$(printf '\007'); CSI1=$(printf '\302\233'); DEL=$(printf '\177')
# a name that would set the clipboard (OSC 52), ring the bell and clear the screen
evil="ev${ESC}]52;c;SGVsbG8=${BEL}il${ESC}[2J${DEL}"
src="$T/src${ESC}]52;c;QQ==${BEL}
x${ESC}[31m"
label="lab${ESC}]52;c;QQ==${BEL}
el${ESC}[2J"
faulty="f${CSI1}x"
mkdir "$src" "$T/f"
for p in 0 1 2; do
	printf 'main\nMPI_Init\n[ret]\n%s\n[ret]\nMPI_Barrier\n[ret]\n%s\n[ret]\n[ret]\n' "$evil" "$evil" > "$src/$p.0.txt"
	printf 'main\nMPI_Init\n[ret]\n%s\n[ret]\n[ret]\n' "$evil" > "$T/f/$p.0.txt"
done
expect_status 0 "$DT" import --run n --label "$label" "$src"
expect_status 0 "$DT" import --run "$faulty" "$T/f"

# no ESC, BEL, DEL or C1 control in stdout or stderr of CMD...
clean() {
	"$@" >"$T/out" 2>"$T/err"
	st=$?
	[ $st -le 2 ] || fail "exit $st: $*"
	for f in "$T/out" "$T/err"; do
		LC_ALL=C grep -q "[$ESC$BEL$DEL]" "$f" && { cat -v "$f" >&2; fail "raw control in $f: $*"; }
		LC_ALL=C grep -q "$CSI1" "$f" && { cat -v "$f" >&2; fail "raw C1 control in $f: $*"; }
	done
	return 0
}
has() { grep -q -- "$1" "$T/out" || { cat -v "$T/out" >&2; fail "output lacks '$1': $2"; }; }

E='ev\\e]52;c;SGVsbG8=\\x07il\\e\[2J\\x7f'
for fmt in text csv json; do
	clean "$DT" runs --format $fmt
	clean "$DT" traces --format $fmt n
done
# a newline in a label or a path does not start a line of its own
clean "$DT" runs
[ "$(wc -l < "$T/out")" -eq 3 ] || fail "runs: a field broke a line: $(cat -v "$T/out")"
has 'lab\\e]52;c;QQ==\\x07\\nel\\e\[2J' runs
has 'f\\u009bx ' runs
clean "$DT" traces n
[ "$(wc -l < "$T/out")" -eq 4 ] || fail "traces: a field broke a line: $(cat -v "$T/out")"
has 'src\\e]52;c;QQ==\\x07\\nx\\e\[31m/0.0.txt' traces
clean "$DT" runs --format csv
[ "$(wc -l < "$T/out")" -eq 3 ] || fail "runs csv: a field broke a line"
clean "$DT" runs --format json
has '"label": "lab\\u001b]52;c;QQ==\\u0007\\u000ael\\u001b\[2J"' "runs json"
has '"run": "f\\u009bx"' "runs json"

for cmd in "show n 0.0" "nlr --filter everything n 0.0" "classes --filter everything n" \
	"jsm --filter everything n" "lattice --filter everything n" \
	"lattice --filter everything --format dot n" "analyze --filter everything n" \
	"rank --filter everything --normal n --faulty $faulty" \
	"rank --filter everything --run n" \
	"diff --filter everything n:0.0 $faulty:0.0" "diff --filter everything -u n:0.0 $faulty:0.0" \
	"classes --filter everything --format csv n" "classes --filter everything --format json n"; do
	clean "$DT" $cmd
done
clean "$DT" show n 0.0
has "$E();" show
clean "$DT" nlr --filter everything n 0.0
has "^$E\$" nlr
clean "$DT" diff --filter everything n:0.0 "$faulty:0.0"
has "$E" diff
# coloured, the diff writes its own SGR sequences to the terminal, and nothing else raw
for style in -y -u; do
	expect_status 0 "$DT" diff --color=always $style --filter everything n:0.0 "$faulty:0.0"
	LC_ALL=C sed "s/${ESC}\[[0-9;]*m//g" "$T/out" >"$T/plain"
	LC_ALL=C grep -q "[$ESC$BEL$DEL]" "$T/plain" &&
		{ cat -v "$T/out" >&2; fail "diff --color $style: a raw control besides colour"; }
	grep -q -- "$E" "$T/plain" || { cat -v "$T/out" >&2; fail "diff --color $style: name lost"; }
	LC_ALL=C grep -q "${ESC}\[3[12]m" "$T/out" || fail "diff --color $style: no colour"
done
clean "$DT" filters test mpi "$evil"
has "$E" "filters test"
# error messages quote what they were given, escaped
clean "$DT" show n "$evil"
grep -q "'$E' is not a trace" "$T/err" || fail "show error: $(cat -v "$T/err")"
clean "$DT" classes --filter "$evil" n
grep -q "unknown filter family '$E'" "$T/err" || fail "filter error: $(cat -v "$T/err")"
clean "$DT" "$evil"
clean "$DT" runs "--$evil"
clean "$DT" import --run "$evil" "$T/f"
clean "$DT" import --format text "$T/f/nosuch$evil"

# report: the per-function table and its CSV, whole runs and one trace
for cmd in "report --normal n --faulty $faulty" "report --normal n --faulty $faulty --format csv" \
	"report --normal n --faulty $faulty --trace 0.0" "report --normal $faulty --faulty n --sort self"; do
	clean "$DT" $cmd
	has "$E" "$cmd"
done
clean "$DT" report --normal n --faulty "$faulty" --trace 9.9
clean "$DT" report --normal n --faulty "nosuch$evil"

# the sync record: a hung run (tests/mk_sync_rec) under a run name with a C1 control, its host
# name (offset 72 of each file's header) turned hostile; its rules read from a file whose name
# is hostile too
MK="$abs_top_builddir/tests/mk_sync_rec"
[ -x "$MK" ] || fail "tests/mk_sync_rec is not built"
"$MK" "$T/hung" hung || fail "mk_sync_rec"
for f in "$T"/hung/rank-*/sync/*.dts; do
	printf 'no%s]52;c;QQ==%sde%s[2J\0' "$ESC" "$BEL" "$ESC" |
		dd of="$f" bs=1 seek=72 conv=notrunc 2>/dev/null || fail "dd"
done
hung="h${CSI1}x"
expect_status 0 "$DT" import -q --run "$hung" "$T/hung"
rules="$T/r${ESC}]52;c;QQ==${BEL}.rules"
cat "$abs_top_srcdir"/rules/*.rules > "$rules"
for fmt in text csv json; do
	clean "$DT" sync --format $fmt "$hung"
	clean "$DT" sync --format $fmt "$hung" 0.0
	clean "$DT" traces --format $fmt "$hung"
	clean "$DT" order --format $fmt "$hung"
done
clean "$DT" sync "$hung"
has 'MPI_Recv' sync
clean "$DT" sync "$hung" 9.9
grep -q "run 'h\\\\u009bx' has no sync" "$T/err" || fail "sync error: $(cat -v "$T/err")"
clean "$DT" sync "$faulty"
grep -q "run 'f\\\\u009bx' has no sync" "$T/err" || fail "sync error: $(cat -v "$T/err")"
clean "$DT" traces --format csv "$hung"
has ',no\\e]52;c;QQ==\\x07de\\e\[2J,' "traces csv (host)"
clean "$DT" traces --format json "$hung"
has '"host": "no\\u001b]52;c;QQ==\\u0007de\\u001b\[2J"' "traces json (host)"
clean "$DT" order --format chrome "$hung"
clean "$DT" order --check "$hung"
clean "$DT" order --rules "$rules" "$hung"
for fmt in text json; do
	clean "$DT" hang --format $fmt "$hung"
	clean "$DT" hang --format $fmt --rules "$rules" "$hung"
done
clean "$DT" hang --rules "$rules" "$hung"
has 'run h\\u009bx:' hang
has 'r\\e]52;c;QQ==\\x07.rules' "hang --rules"
clean "$DT" hang "$faulty"
clean "$DT" hang --rules "$T/nosuch$evil" "$hung"
printf 'rule x%s[2J: y\n' "$ESC" > "$T/bad.rules"
clean "$DT" hang --rules "$T/bad.rules" "$hung"
clean "$DT" order --rules "$T/bad.rules" "$hung"

# filters show: a family file of someone else's, with controls in its description and patterns
printf 'name: hostile\ndescription: clears%s[2J the screen%s\ninclude: ^ev%s\\]52\n' \
	"$ESC" "$BEL" "$ESC" > "$T/hostile.filter"
clean "$DT" filters show --filter-file "$T/hostile.filter" hostile
has 'description: clears\\e\[2J the screen\\x07' "filters show"
has 'include: ^ev\\e\\\]52' "filters show"
clean "$DT" filters show --filter-file "$T/hostile.filter" "mpi,hostile"
clean "$DT" filters show "$evil"
clean "$DT" filters --filter-file "$T/hostile.filter"

# show --format text at a terminal escapes (raw bytes only to a file or a pipe): script(1)
# gives it a terminal
if command -v script >/dev/null; then
	script -qec "\"$DT\" show --format text n 0.0" /dev/null > "$T/tty" 2>&1 < /dev/null ||
		fail "show --format text at a terminal: $(cat -v "$T/tty")"
	LC_ALL=C grep -q "[$BEL$DEL]" "$T/tty" && { cat -v "$T/tty" >&2; fail "show at a terminal: raw control"; }
	LC_ALL=C sed "s/${ESC}\[[0-9;?]*[a-zA-Z]//g" "$T/tty" | LC_ALL=C grep -q "$ESC" &&
		{ cat -v "$T/tty" >&2; fail "show at a terminal: raw ESC"; }
	grep -q -- "^$E" "$T/tty" || { cat -v "$T/tty" >&2; fail "show at a terminal: name not escaped"; }
fi

# columns are padded by display width: a run named é lines up with the others
expect_status 0 "$DT" import -q --run "$(printf '\303\251')" "$T/f"
expect_status 0 "$DT" runs
# (16 columns for the name, then a space and the trace count right-aligned in 7)
grep -q "^$(printf '\303\251') \{22\}3 " "$T/out" || fail "runs columns do not line up: $(cat "$T/out")"

# the round trip keeps the bytes: text to a pipe imports back to the same trace
"$DT" show --format text n 0.0 > "$T/back.txt" || fail "show --format text"
cmp -s "$T/back.txt" "$src/0.0.txt" || fail "show --format text changed the names"
pass
