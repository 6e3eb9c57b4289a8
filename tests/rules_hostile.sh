#!/bin/sh
# Rule files from strangers. An empty rule file (issue 19, item 7: UBSan's memcpy from NULL in
# the checker, seen in the sanitizer build) orders and checks every event. Rule files nested
# 100,000 deep (issue 19, item 3): parentheses, and a chain of 100,000 `+1`
# terms, whether given with --rules or found in DIFFTRACE_RULES_PATH, are refused by order,
# hang and watch with one line naming the file, line and column, instead of overflowing the
# stack: order exits 1; hang and watch make their report without the causality filter and say
# why (as for any bad shipped rule file). Made-up sync records (tests/mk_sync_rec); no MPI.
. "${abs_top_srcdir:-.}/tests/lib.sh"
need python3

MK="$abs_top_builddir/tests/mk_sync_rec"
[ -x "$MK" ] || fail "tests/mk_sync_rec is not built"
"$MK" "$T/rec" ok || fail "mk_sync_rec ok"
expect_status 0 "$DT" import -r ok "$T/rec"

# an empty rule file: nothing is an instance of anything, every event goes out as it came
: >"$T/empty.rules"
expect_status 0 "$DT" sync --format csv ok
nev=$(($(wc -l <"$T/out") - 1))
[ "$nev" -gt 10 ] || fail "too few sync events: $nev"
expect_status 0 "$DT" order --rules "$T/empty.rules" --check ok
expect_err "the order of $nev events passes the checker"
expect_status 0 "$DT" order --rules "$T/empty.rules" --format csv ok
cp "$T/out" "$T/empty.csv"
expect_status 0 "$DT" order --rules "$T/empty.rules" --check="$T/empty.csv" ok

mkdir -p "$T/paren" "$T/sum"
python3 - "$T" <<'PY'
import sys
t = sys.argv[1]
head = "event DEEP(proc) on enter /^MPI_Barrier$/;\nrule DEEP(p, n) <- "
with open(t + "/paren/zz-deep.rules", "w") as f:
    f.write(head + "(" * 100000 + "true" + ")" * 100000 + ";\n")
with open(t + "/sum/zz-deep.rules", "w") as f:
    f.write(head + "n == 0" + " + 1" * 100000 + ";\n")
PY
# the 1001st parenthesis is at column 19 + 1001; the sum's 1000th `+` (its tree's 1001st
# level) at 27 + 4 * 999
for d in paren sum; do
	case $d in
	paren) where="zz-deep.rules:2:1020: condition nested more than 1000 deep" ;;
	sum) where="zz-deep.rules:2:4023: condition nested more than 1000 deep" ;;
	esac
	f="$T/$d/zz-deep.rules"
	expect_status 1 "$DT" order --rules "$f" ok
	expect_err "$where"
	[ "$(wc -l <"$T/err")" -eq 1 ] || fail "order $d: not one line: $(cat "$T/err")"
	expect_status 1 "$DT" hang --rules "$f" ok
	expect_err "$where"
	# found in DIFFTRACE_RULES_PATH, after the shipped files
	expect_status 1 env DIFFTRACE_RULES_PATH="$T/$d" "$DT" order ok
	expect_err "$where"
	# hang and watch report without the shipped rules, saying why
	expect_status 0 env DIFFTRACE_RULES_PATH="$T/$d" "$DT" hang ok
	grep -q "the causality filter stopped: .*$where" "$T/out" || fail "hang $d: $(cat "$T/out")"
	expect_status 0 env DIFFTRACE_RULES_PATH="$T/$d" "$DT" watch --once "$T/rec"
	grep -q "the causality filter stopped: .*$where" "$T/out" || fail "watch $d: $(cat "$T/out")"
done
# and the same rule within the bound works through order
python3 -c 'import sys; open(sys.argv[1], "w").write(
    "event DEEP(proc) on enter /^MPI_Barrier$/;\nrule DEEP(p, n) <- " + "(" * 900 + "true" +
    ")" * 900 + ";\n")' "$T/paren/zz-deep.rules"
expect_status 0 env DIFFTRACE_RULES_PATH="$T/paren" "$DT" order --check ok
expect_err "passes the checker"
pass
