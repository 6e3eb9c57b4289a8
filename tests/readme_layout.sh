#!/bin/sh
# README's layout table is true to the tree: every folder it names exists, every file, every
# module of a stage's folder (FOLDER/NAME.c or .h; a name that is a command of difftrace, as
# `watch`, is a command), every view_*.c pattern matches a file, every manual page NAME(N) is
# man/NAME.N; and every folder of src/ is in it.
. "${abs_top_srcdir:-.}/tests/lib.sh"

S=$abs_top_srcdir
awk '/^\| folder \| what is there \|$/ { on = 1; next } on && !/^\|/ { exit } on && !/^\| ---/' \
	"$S/README.md" > "$T/rows"
[ "$(wc -l < "$T/rows")" -ge 8 ] || fail "no layout table in README.md: $(cat "$T/rows")"
[ "$(grep -c '^| `src/` |' "$T/rows")" = 1 ] || fail "src/ is not one row: $(cut -c1-80 "$T/rows")"

# one check a line: "dir PATH", "file DIR... -- NAME", "mod DIR NAME", "man NAME N"
awk -F' \\| ' '
{
	col1 = substr($1, 3); col2 = $2; sub(/ \|$/, "", col2)
	nd = 0
	while (match(col1, /`[^`]*`/)) {
		d = substr(col1, RSTART + 1, RLENGTH - 2); col1 = substr(col1, RSTART + RLENGTH)
		print "dir " d; dirs[++nd] = d
	}
	cur = ""
	while (match(col2, /`[^`]*`/)) {
		t = substr(col2, RSTART + 1, RLENGTH - 2); col2 = substr(col2, RSTART + RLENGTH)
		if (t ~ / /) continue
		if (t ~ /^[a-z0-9-]+\([0-9]\)$/) {
			n = t; sub(/\(.*/, "", n); s = t; gsub(/[^0-9]/, "", s); print "man " n " " s
		} else if (nd == 1 && t ~ /^[a-z_]+\/$/) {
			cur = dirs[1] t; print "dir " cur
		} else if (t ~ /\.(c|h|md|sh)$/) {
			l = "file"; for (i = 1; i <= nd; i++) l = l " " dirs[i]; print l " . -- " t
		} else if (cur != "" && t ~ /^[a-z_][a-z0-9_]*$/) {
			print "mod " cur " " t
		}
	}
}' "$T/rows" > "$T/checks"
[ "$(grep -c '^mod ' "$T/checks")" -ge 40 ] || fail "too few modules read: $(cat "$T/checks")"

bad=
while read -r kind a b c; do
	case $kind in
	dir) [ -d "$S/$a" ] || bad="$bad
  folder $a" ;;
	man) [ -f "$S/man/$a.$b" ] || bad="$bad
  manual page man/$a.$b" ;;
	mod) [ -f "$S/$a$b.c" ] || [ -f "$S/$a$b.h" ] ||
		grep -q "{ \"$b\", cmd_" "$S/src/cli/cli.c" || bad="$bad
  module $a$b (.c or .h), nor a command" ;;
	file)
		set -- $a $b $c
		dirs=
		while [ "$1" != -- ]; do dirs="$dirs $1"; shift; done
		f=$2 found=
		for d in $dirs; do
			for p in "$S/$d/"$f; do [ -f "$p" ] && found=1; done
		done
		[ -n "$found" ] || bad="$bad
  file $f in$dirs" ;;
	esac
done < "$T/checks"
[ -z "$bad" ] || fail "README's layout table names what is not in the tree:$bad"

# every stage folder of src/ is named in src/'s row
for d in "$S"/src/*/; do
	d=$(basename "$d")
	grep -q "^dir src/$d/\$" "$T/checks" || bad="$bad $d"
done
[ -z "$bad" ] || fail "folders of src/ missing from README's layout table:$bad"
pass
