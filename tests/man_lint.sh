#!/bin/sh
# The man pages render without warnings, and every command is documented in difftrace(1).
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
for v in $("$DT" --help | awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } /^$/ { if (on) exit }'); do
	grep -q "^\.SS \"$v" "$abs_top_srcdir/man/difftrace.1" || fail "command $v not in difftrace(1)"
done
pass
