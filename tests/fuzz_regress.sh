#!/bin/sh
# Every saved fuzz input (fuzz/corpus/TARGET: seeds and every crash found so far) runs through
# its target again, under the sanitizers of this build.
. "${abs_top_srcdir:-.}/tests/lib.sh"
for t in lza3 text parlot uftrace esc sync chunk sample rules; do
	"$abs_top_builddir/fuzz/regress_$t" "$abs_top_srcdir/fuzz/corpus/$t" > "$T/out" 2>&1 ||
		{ cat "$T/out" >&2; fail "fuzz target $t failed on a saved input"; }
	grep -q ' inputs ran' "$T/out" || fail "$t ran nothing"
done
pass
