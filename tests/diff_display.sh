#!/bin/sh
# How a diff shows what differs, in `difftrace diff` side by side and in the diff view: cut
# lines end in a mark ('~', an ellipsis in a UTF-8 locale), a changed pair too long for its
# column shows the part that differs (the common part elided), --color colours as git diff
# with the differing words in reverse video, and scrolling sideways leaves short lines alone;
# diff --format json and jsm --format json for scripts.
. "${abs_top_srcdir:-.}/tests/lib.sh"

# two one-trace runs whose MPI_Allreduce differs only in its last argument
mkdir -p "$T/a" "$T/b"
printf '%s\n' MPI_Init 'MPI_Allreduce[count=1,datatype=MPI_DOUBLE,comm=MPI_COMM_WORLD,op=MPI_SUM]' \
	'MPI_Barrier[comm=MPI_COMM_WORLD_WITH_A_VERY_LONG_NAME_INDEED_AND_LONGER_STILL]' MPI_Finalize > "$T/a/0.0.txt"
sed 's/op=MPI_SUM/op=MPI_MAX/' "$T/a/0.0.txt" > "$T/b/0.0.txt"
expect_status 0 "$DT" import -q --run a "$T/a"
expect_status 0 "$DT" import -q --run b "$T/b"

# ASCII locale: '~'
expect_status 0 env LC_ALL=C "$DT" diff -W 70 a:0.0 b:0.0
grep -q '^MPI_Allreduce\[~op=MPI_SUM\]  *| MPI_Allreduce\[~op=MPI_MAX\]$' "$T/out" ||
	fail "the changed pair does not show its difference: $(cat "$T/out")"
grep -q '^MPI_Barrier\[comm=MPI_COMM_WORLD_~  ' "$T/out" || fail "no cut mark: $(cat "$T/out")"
grep -q '^MPI_Init  *MPI_Init$' "$T/out" || fail "a line that fits: $(cat "$T/out")"
# wide enough: nothing elided or cut
expect_status 0 env LC_ALL=C "$DT" diff -W 200 a:0.0 b:0.0
grep -q '~' "$T/out" && fail "cut at 200 columns: $(cat "$T/out")"
grep -q 'op=MPI_SUM] *| MPI_Allreduce\[count=1,' "$T/out" || fail "at 200: $(cat "$T/out")"
# UTF-8 locale: an ellipsis
if locale -a 2>/dev/null | grep -qi '^C\.utf-\{0,1\}8$'; then
	expect_status 0 env LC_ALL=C.UTF-8 "$DT" diff -W 70 a:0.0 b:0.0
	grep -q "^MPI_Allreduce\[$(printf '\342\200\246')op=MPI_SUM\]" "$T/out" ||
		fail "no ellipsis in UTF-8: $(cat "$T/out")"
fi

# side by side shows the changed hunks by default: an @@ line with the entry positions (from 1),
# then the change with 3 common entries on each side; --context N, --all for every entry
mkdir -p "$T/h1" "$T/h2"
i=1
while [ $i -le 30 ]; do echo "f$i"; i=$((i + 1)); done > "$T/h1/0.0.txt"
sed -e 's/^f10$/g10/' -e '/^f25$/d' "$T/h1/0.0.txt" > "$T/h2/0.0.txt"
expect_status 0 "$DT" import -q --run h1 "$T/h1"
expect_status 0 "$DT" import -q --run h2 "$T/h2"
expect_status 0 "$DT" diff --filter everything -W 60 h1:0.0 h2:0.0
cat > "$T/want" <<'EOT'
A: h1 0.0                      B: h2 0.0  (1 changed, 1 only in A, 0 only in B)
@@ -7,7 +7,7 @@
f7                             f7
f8                             f8
f9                             f9
f10                          | g10
f11                            f11
f12                            f12
f13                            f13
@@ -22,7 +22,6 @@
f22                            f22
f23                            f23
f24                            f24
f25                          <
f26                            f26
f27                            f27
f28                            f28
EOT
cmp -s "$T/out" "$T/want" || { diff "$T/want" "$T/out" >&2; fail "default side by side"; }
expect_status 0 "$DT" diff --filter everything -W 60 --context 1 h1:0.0 h2:0.0
[ "$(grep -c . "$T/out")" = 9 ] || fail "--context 1: $(cat "$T/out")"
grep -q '^@@ -9,3 +9,3 @@$' "$T/out" || fail "--context 1 header: $(cat "$T/out")"
expect_status 0 "$DT" diff --filter everything --context 0 h1:0.0 h2:0.0
grep -q '^@@ -10,1 +10,1 @@$' "$T/out" || fail "--context 0: $(cat "$T/out")"
grep -q '^@@ -25,1 +24,0 @@$' "$T/out" || fail "--context 0, only in A: $(cat "$T/out")"
# close changes share a hunk
expect_status 0 "$DT" diff --filter everything --context 8 h1:0.0 h2:0.0
[ "$(grep -c '^@@' "$T/out")" = 1 ] || fail "--context 8, one hunk: $(cat "$T/out")"
expect_status 0 "$DT" diff --filter everything --all h1:0.0 h2:0.0
[ "$(grep -c . "$T/out")" = 31 ] || fail "--all: $(cat "$T/out")"
grep -q '^@@' "$T/out" && fail "--all has hunk lines: $(cat "$T/out")"
expect_status 0 "$DT" diff --filter everything -a h1:0.0 h2:0.0
[ "$(grep -c . "$T/out")" = 31 ] || fail "-a: $(cat "$T/out")"
expect_status 0 "$DT" diff --filter everything --fold h1:0.0 h2:0.0
grep -q 'identical entries' "$T/out" || fail "--fold: $(cat "$T/out")"
expect_status 0 "$DT" diff --filter everything h1:0.0 h1:0.0
[ "$(cat "$T/out")" = "$(printf 'A: h1 0.0%57sB: h1 0.0  (identical)' '')" ] ||
	fail "identical: $(cat "$T/out")"
expect_status 2 "$DT" diff --context many h1:0.0 h2:0.0
expect_err "--context takes a number of entries"

# colour: only when asked or at a terminal; the differing word in reverse video
esc=$(printf '\033')
expect_status 0 "$DT" diff --color=always -W 200 a:0.0 b:0.0
grep -q "${esc}\[31m.*${esc}\[7mMPI_SUM" "$T/out" || fail "no coloured word: $(cat -v "$T/out")"
grep -q "${esc}\[32m.*${esc}\[7mMPI_MAX" "$T/out" || fail "no coloured right side: $(cat -v "$T/out")"
grep "MPI_Init" "$T/out" | grep -q "$esc" && fail "a common line is coloured: $(cat -v "$T/out")"
expect_status 0 "$DT" diff --color=never a:0.0 b:0.0
grep -q "$esc" "$T/out" && fail "colour with never"
expect_status 0 "$DT" diff --color a:0.0 b:0.0
grep -q "$esc" "$T/out" && fail "colour with auto, not at a terminal"
expect_status 2 "$DT" diff --color=sometimes a:0.0 b:0.0
expect_err "--color takes auto, always or never"

# unified: coloured as git diff when asked
expect_status 0 "$DT" diff -u --color=always a:0.0 b:0.0
grep -q "^${esc}\[31m-MPI_Allreduce.*op=MPI_SUM\]${esc}\[m\$" "$T/out" || fail "unified colour: $(cat -v "$T/out")"
grep -q "^${esc}\[36m@@ " "$T/out" || fail "unified hunk colour: $(cat -v "$T/out")"
expect_status 0 "$DT" diff -u a:0.0 b:0.0
grep -q "$esc" "$T/out" && fail "unified colour by default off a terminal"

# JSON: both traces' entries, the hunks, the loop bodies they use; jsm too
expect_status 0 "$DT" diff --format json a:0.0 b:0.0
grep -q '"a": {"run": "a", "trace": "0.0", "entries": \[{"name": "MPI_Init"}' "$T/out" || fail "json a: $(cat "$T/out")"
grep -q '"changed": 1, "only_a": 0, "only_b": 0, "identical": false' "$T/out" || fail "json stats: $(cat "$T/out")"
grep -q '{"kind": "same", "a": 0, "b": 0, "n": 1}' "$T/out" || fail "json hunks: $(cat "$T/out")"
grep -q '"loops": {}' "$T/out" || fail "json loops: $(cat "$T/out")"
if command -v python3 >/dev/null; then
	python3 -m json.tool < "$T/out" > /dev/null || fail "diff json does not parse: $(cat "$T/out")"
fi
# a loop: its body is listed under its id
mkdir -p "$T/l"
for i in 1 2 3; do printf '%s\n' MPI_Send MPI_Recv; done > "$T/l/0.0.txt"
expect_status 0 "$DT" import -q --run l "$T/l"
expect_status 0 "$DT" diff --format json a:0.0 l:0.0
grep -q '"entries": \[{"loop": [0-9]*, "count": 3}\]' "$T/out" || fail "json loop entry: $(cat "$T/out")"
grep -q '"[0-9]*": \[{"name": "MPI_Send"}, {"name": "MPI_Recv"}\]' "$T/out" || fail "json loop body: $(cat "$T/out")"
if command -v python3 >/dev/null; then
	python3 -m json.tool < "$T/out" > /dev/null || fail "diff json does not parse: $(cat "$T/out")"
fi
expect_status 0 "$DT" jsm --format json a
grep -q '"traces": \["0.0"\]' "$T/out" || fail "jsm json: $(cat "$T/out")"
grep -q '\[1.000000\]' "$T/out" || fail "jsm json matrix: $(cat "$T/out")"
expect_status 2 "$DT" diff --format yaml a:0.0 b:0.0
expect_err "unknown format 'yaml' (side-by-side, unified, dot, json)"

# the interface: the same marks, and short lines stay when the pane scrolls
ui() { # keys...
	printf '%s\n' "$@" > "$T/keys"
	LC_ALL=C "$DT" tui --script "$T/keys" --dump "$T/screen" --size 24x80 > "$T/out" 2> "$T/err" ||
		fail "tui exited $?: $(cat "$T/err")"
}
has() { grep -q -- "$1" "$T/screen" || { cat "$T/screen" >&2; fail "screen lacks '$1'"; }; }
ui : '"diff a:0.0 b:0.0"' Enter wait
has '^  MPI_Allreduce\[~op=MPI_SUM\]  *| MPI_Allreduce\[~op=MPI_MAX\]$'
has '^  MPI_Barrier\[comm=MPI_COMM_WORLD_WITH~   MPI_Barrier'
ui : '"diff a:0.0 b:0.0"' Enter wait L L L L L L L L
has '^> MPI_Init  *MPI_Init$'
has '^  MPI_Finalize  *MPI_Finalize$'
has '| ~OUBLE,comm=MPI_COMM_WORLD,op=MPI_MAX\]$'
has 'WITH~   ~.*_AND_LONGER_STILL\]$'
# other views: a line cut at the edge ends in the mark
ui : '"diff a:0.0 b:0.0"' Enter wait : '"nlr a 0.0"' Enter wait
grep -q '~$' "$T/screen" || { cat "$T/screen" >&2; fail "no cut mark in the trace view"; }

# in a real terminal: the differing word is in reverse video, the rest of the pair is not
if command -v tmux >/dev/null; then
	sock="dd$$"
	trap 'tmux -L "$sock" kill-server 2>/dev/null; rm -rf "$T"' EXIT
	tmux -L "$sock" -f /dev/null new-session -d -s ui -x 200 -y 20 \
		"TERM=xterm-256color DIFFTRACE_DB='$DIFFTRACE_DB' '$DT' tui; sleep 30"
	n=0
	until tmux -L "$sock" capture-pane -p -t ui 2>/dev/null | grep -q 'difftrace: runs in'; do
		n=$((n + 1))
		[ $n -gt 150 ] && fail "the interface did not start"
		sleep 0.1
	done
	tmux -L "$sock" send-keys -t ui : 'diff a:0.0 b:0.0' Enter
	n=0
	while :; do
		tmux -L "$sock" capture-pane -e -p -t ui > "$T/screen" 2>/dev/null
		grep -q "op=${esc}\[[0-9;]*7mMPI_MAX" "$T/screen" && break
		n=$((n + 1))
		[ $n -gt 150 ] && { cat -v "$T/screen" >&2; fail "MPI_MAX is not in reverse video"; }
		sleep 0.1
	done
	grep -q "${esc}\[[0-9;]*7m[^${esc}]*op=" "$T/screen" && fail "the common part is highlighted"
fi
pass
