#!/bin/sh
# The man pages render without warnings, alternating-font macros do not run words together,
# and every command is documented in difftrace(1), with the commands (not under INTERFACE).
. "${abs_top_srcdir:-.}/tests/lib.sh"
for m in "$abs_top_srcdir"/man/*.[0-9]; do
	if command -v mandoc >/dev/null; then
		out=$(mandoc -Tlint -W warning "$m" 2>&1) || true
		[ -z "$out" ] || fail "mandoc: $out"
	fi
	if command -v groff >/dev/null; then
		out=$(groff -ww -z -man "$m" 2>&1)
		[ -z "$out" ] || fail "groff: $out"
	fi
done
# an alternating-font macro (.BR, .IR ...) joins its arguments without spaces: two plain words
# in a row among them ran together on the page ("rank);thepairs")
for m in "$abs_top_srcdir"/man/*.[0-9]; do
	bad=$(awk '/^\.(BR|RB|BI|IB|IR|RI) / && $0 !~ /"/ {
		for (i = 2; i < NF; i++)
			if ($i ~ /^[A-Za-z][A-Za-z]+$/ && $(i + 1) ~ /^[A-Za-z][A-Za-z]+$/) {
				print FILENAME ":" NR ": " $0; break
			}
	}' "$m")
	[ -z "$bad" ] || fail "words run together: $bad"
done
# the linkages: the ones the code accepts (its error lists them) are the ones --help and the
# page name
codes=$("$DT" classes --linkage bogus x 2>&1 | sed -n 's/.*unknown linkage .bogus. (\(.*\)).*/\1/p' | tr -d ,)
[ -n "$codes" ] || fail "no list of linkages in the error"
for l in $codes; do
	"$DT" classes --help | grep -A1 -e '--linkage' | grep -qw "$l" || fail "--help lacks linkage $l"
	sed -n '/^\.BI \\-\\-linkage/,/^\.TP/p' "$abs_top_srcdir/man/difftrace.1" | grep -qw "$l" ||
		fail "difftrace(1) lacks linkage $l"
done
# every option of difftrace-record --help is in the synopsis of difftrace-record(1)
if [ -x "$RECORD" ]; then
	syn=$(sed -n '/^\.SH SYNOPSIS/,/^\.SH/p' "$abs_top_srcdir/man/difftrace-record.1" | sed 's/\\-/-/g')
	for o in $("$RECORD" --help | sed -n 's/^  \(-[a-zA-Z], \)\{0,1\}\(--[a-z-]*\).*/\2/p'); do
		case $o in --help | --version) continue ;; esac
		short=$("$RECORD" --help | sed -n "s/^  \(-[a-zA-Z]\), $o .*/\1/p")
		printf '%s\n' "$syn" | grep -q -e "\[ $o\( \|\$\)" -e "\[ ${short:-$o}\( \|\$\)" ||
			fail "difftrace-record(1) synopsis lacks $o"
	done
fi
for v in $("$DT" --help | awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } /^$/ { if (on) exit }'); do
	grep -q "^\.SS \"$v" "$abs_top_srcdir/man/difftrace.1" || fail "command $v not in difftrace(1)"
	# with the other commands: INTERFACE is for tui and its views only
	[ "$v" = tui ] && continue
	sec=$(awk -v v="$v" '/^\.SH / { sh = $0 } index($0, ".SS \"" v " ") == 1 { print sh; exit }' \
		"$abs_top_srcdir/man/difftrace.1")
	[ "$sec" != ".SH INTERFACE" ] || fail "command $v is documented under INTERFACE in difftrace(1)"
done
pass
