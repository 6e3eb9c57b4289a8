#!/bin/sh
# Loops the K in use does not fold: nlr, diff and the trace view name the smallest K that folds
# them; a loop on one side against a different loop on the other is compared body against body,
# naming the iteration where they part.
. "${abs_top_srcdir:-.}/tests/lib.sh"

# an 11-call loop, 8 times: K 10 folds nothing
mkdir -p "$T/k" "$T/j"
for i in 1 2 3 4 5 6 7 8; do
	for j in 1 2 3 4 5 6 7 8 9 10 11; do echo "MPI_F$j"; done
done > "$T/k/0.0.txt"
expect_status 0 "$DT" import -q --run k "$T/k"
expect_status 0 "$DT" nlr k 0.0
grep -q '^# K 10 folds nothing here, but the trace repeats a body of 11 calls: try difftrace nlr -K 11 k 0.0$' "$T/out" ||
	fail "no K hint: $(head -3 "$T/out")"
expect_status 0 "$DT" nlr -K 11 k 0.0
grep -q 'folds nothing' "$T/out" && fail "a hint when K folds the loop: $(head -3 "$T/out")"
grep -q '^(MPI_F1 - .* - MPI_F11)^8$' "$T/out" || fail "K 11 does not fold: $(cat "$T/out")"
# diff says it on stderr, the diff itself unchanged on stdout
printf '%s\n' MPI_F1 > "$T/j/0.0.txt"
expect_status 0 "$DT" import -q --run j "$T/j"
expect_status 0 "$DT" diff k:0.0 j:0.0
grep -q 'K 10 folds nothing in k 0.0, but it repeats a body of 11 calls: -K 11 folds it' "$T/err" ||
	fail "no K hint from diff: $(cat "$T/err")"
grep -q 'folds nothing' "$T/out" && fail "the hint in the diff output"
grep -q 'folds nothing in j' "$T/err" && fail "a hint for a trace without a repeat"
# the trace view, on opening
printf '%s\n' : '"trace k 0.0"' Enter wait > "$T/keys"
expect_status 0 "$DT" tui --script "$T/keys" --dump "$T/screen"
grep -q 'K 10 folds nothing; :K 11 folds a loop of 11 calls' "$T/screen" ||
	{ cat "$T/screen" >&2; fail "no K hint in the trace view"; }

# (MPI_A MPI_B MPI_C)^4 against (MPI_A MPI_B)^5: different loops on one row, their bodies
# aligned by the diff when expanded, and where their calls part
mkdir -p "$T/p" "$T/q"
for i in 1 2 3 4; do printf '%s\n' MPI_A MPI_B MPI_C; done > "$T/p/0.0.txt"
for i in 1 2 3 4 5; do printf '%s\n' MPI_A MPI_B; done > "$T/q/0.0.txt"
expect_status 0 "$DT" import -q --run p "$T/p"
expect_status 0 "$DT" import -q --run q "$T/q"
expect_status 0 "$DT" diff -W 80 p:0.0 q:0.0
grep -q '^L[0-9]*^4  *| L[0-9]*^5$' "$T/out" || fail "not one changed row: $(cat "$T/out")"
grep -q '^    (L[0-9]*^4 and L[0-9]*^5 make the same 2 calls, then part in iteration 1 of L[0-9]* (call 3) and 2 of L[0-9]* (call 1))$' "$T/out" ||
	fail "no note on where the loops part: $(cat "$T/out")"
expect_status 0 "$DT" diff --expand -W 80 p:0.0 q:0.0
grep -q '^  MPI_A  *  MPI_A$' "$T/out" || fail "bodies not aligned: $(cat "$T/out")"
grep -q '^  MPI_C  *<$' "$T/out" || fail "the call one body lacks: $(cat "$T/out")"
# the same in the interface, when the row is opened
printf '%s\n' : '"diff p:0.0 q:0.0"' Enter wait Enter > "$T/keys"
expect_status 0 "$DT" tui --script "$T/keys" --dump "$T/screen" --size 24x120
grep -q 'make the same 2 calls, then part in iteration 1 of L[0-9]* (call 3) and 2 of' "$T/screen" ||
	{ cat "$T/screen" >&2; fail "no note in the diff view"; }
pass
