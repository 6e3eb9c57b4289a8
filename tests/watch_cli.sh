#!/bin/sh
# difftrace watch without MPI, on recordings in progress written by test_live --make: the text
# snapshot names each thread's call and arguments, threads are grouped STAT-like with their
# P.T ranges when there are more than 24 (or with --group), listed one by one with --threads,
# a recording of one rank's directory or a sync directory is read as well, json has a thread
# per file, and bad use gets one-line errors.
. "${abs_top_srcdir:-.}/tests/lib.sh"
[ -x "$abs_top_builddir/tests/test_live" ] || fail "tests/test_live not built"
mk() { "$abs_top_builddir/tests/test_live" --make "$@" || fail "cannot make the recording $1"; }

mk "$T/small"
expect_status 0 "$DT" watch --once "$T/small"
grep -Eq '^0\.0 +[0-9.]+s +in MPI_Recv \(1st\) src=1 tag=5' "$T/out" || { cat "$T/out" >&2; fail "0.0 not in MPI_Recv"; }
grep -Eq '^1\.0 +[0-9.]+s +not in a recorded call \(after MPI_Init, 1st\)$' "$T/out" || { cat "$T/out" >&2; fail "1.0 not outside (another host's: what it does is unknown)"; }
grep -q '^2 processes, 2 threads, 5 events; in causal order 5, held 0$' "$T/out" || { cat "$T/out" >&2; fail "wrong header"; }
grep -q 'LONGEST' "$T/out" && fail "2 threads grouped"
# one rank's directory, a sync directory
expect_status 0 "$DT" watch --once "$T/small/rank-0"
grep -q '^0\.0 .* in MPI_Recv' "$T/out" && ! grep -q '^1\.0' "$T/out" || { cat "$T/out" >&2; fail "rank-0 alone"; }
expect_status 0 "$DT" watch --once "$T/small/rank-1/sync"
grep -q '^1\.0 .* not in a recorded call' "$T/out" || { cat "$T/out" >&2; fail "rank-1/sync alone"; }

# 30 threads: grouped by default, with the P.T ranges of each group
mk "$T/many" 30
expect_status 0 "$DT" watch --once "$T/many"
grep -Eq '^P 1 T 1-30 +[0-9.]+s +in GOMP_barrier \(1st\)$' "$T/out" || { cat "$T/out" >&2; fail "no group of 1.1-30 in the barrier"; }
grep -Eq '^0\.0 +[0-9.]+s +in MPI_Recv \(1st\) src=1 tag=5$' "$T/out" || { cat "$T/out" >&2; fail "0.0 not a group of its own"; }
[ "$(grep -c 'GOMP_barrier' "$T/out")" -eq 1 ] || fail "the barrier on more than one line"
expect_status 0 "$DT" watch --once --threads "$T/many"
[ "$(grep -c 'in GOMP_barrier (1st)' "$T/out")" -eq 30 ] || { cat "$T/out" >&2; fail "--threads: not a line per thread"; }
grep -q '^1\.30 ' "$T/out" || fail "--threads: no 1.30"
expect_status 0 "$DT" watch --once --group "$T/small"
grep -q 'LONGEST' "$T/out" || fail "--group did not group"
expect_status 0 "$DT" watch --once --format json "$T/many"
[ "$(grep -o '"pt": ' "$T/out" | wc -l)" -eq 32 ] || fail "json: not 32 threads"
grep -q '"groups": \[{"pts": "P 1 T 1-30", "state": "in-call", "call": "GOMP_barrier", "threads": 30' "$T/out" ||
	{ cat "$T/out" >&2; fail "json: no group of 30"; }

# an empty directory: no thread yet, said so
mkdir "$T/empty"
expect_status 0 "$DT" watch --once "$T/empty"
grep -q 'no sync file yet' "$T/out" || fail "the empty directory not explained"

# bad use
expect_status 1 "$DT" watch --once "$T/nosuch"
grep -q "nosuch" "$T/err" || fail "the missing directory not named"
expect_status 2 "$DT" watch --count 0 "$T/small"
expect_status 2 "$DT" watch --once "$T/small" "$T/many"
expect_status 0 "$DT" watch --help
grep -q -- '--interval S' "$T/out" || fail "no help"
pass
