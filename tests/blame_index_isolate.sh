#!/bin/sh
# blame-index parses each file in a process of its own, under limits of CPU time, memory and
# stack: a file libclang crashes on (an expression of 100,000 terms, deeper than its parser's
# stack) or spends too long on (a macro bomb, with a small --time-limit) is said as
# 'FILE: libclang crashed/was stopped', the other files are indexed, and the exit status is 1.
# (Parsed in difftrace's own process, the first killed difftrace with SIGSEGV and indexed
# nothing.)
. "${abs_top_srcdir:-..}/tests/lib.sh"
need built
"$DT" blame-index x.c 2>&1 | grep -q 'built without libclang' && skip "difftrace built without libclang"
command -v python3 >/dev/null || skip "python3 not found"

cd "$T" || fail "cd $T"
python3 -c "print('int deep(int a)\n{\n\tint c = a' + ' + a' * 100000 + ';\n\treturn c;\n}')" >deep.c
python3 -c "
print('#define A0 x + x')
for i in range(1, 30):
    print('#define A%d A%d + A%d' % (i, i - 1, i - 1))
print('int bomb(int x)\n{\n\treturn A29;\n}')" >bomb.c
printf 'int good(int x)\n{\n\tint y = x * 2;\n\treturn y;\n}\n' >good.c
printf 'int after(int x)\n{\n\tint z = x + 1;\n\treturn z;\n}\n' >after.c

expect_status 1 "$DT" blame-index --time-limit 5 deep.c good.c bomb.c after.c -- -O0
expect_err "deep.c: libclang crashed ("
grep -q 'bomb.c: libclang \(was stopped: over the time limit (5 s\|crashed (\)' "$T/err" ||
	fail "the macro bomb is not said to be stopped: $(cat "$T/err")"
grep -q 'indexed 2 files, 2 functions' "$T/out" || fail "the good files are not indexed: $(cat "$T/out")"
expect_status 0 "$DT" blame-index --show good
grep -q 'y <- x' "$T/out" || fail "good() not indexed: $(cat "$T/out")"
expect_status 0 "$DT" blame-index --show after
grep -q 'z <- x' "$T/out" || fail "after() not indexed: $(cat "$T/out")"
expect_status 1 "$DT" blame-index --show deep

# what libclang itself reports still comes through the child, and the limits are checked
expect_status 1 "$DT" blame-index missing.c -- -O0
expect_err "missing.c"
expect_status 2 "$DT" blame-index --time-limit 0 good.c
expect_err "bad --time-limit '0'"
expect_status 2 "$DT" blame-index --memory-limit lots good.c
expect_err "bad --memory-limit 'lots'"
pass
