#!/bin/sh
# difftrace report: per function, calls, total and self time of two runs and their change, as
# uftrace report --diff; on the bundled uftrace example (timestamps) and on text runs (none);
# and the report view of two traces.
. "${abs_top_srcdir:-.}/tests/lib.sh"

expect_status 0 "$DT" import -q --run normal "$abs_top_srcdir/examples/traces/normal"
expect_status 0 "$DT" import -q --run faulty "$abs_top_srcdir/examples/traces/faulty"
expect_status 0 "$DT" report --normal normal --faulty faulty
grep -q '^# faulty against normal (all traces): per function, N normal, F faulty, DIFF F - N; largest change of total time first$' "$T/out" ||
	fail "header: $(head -2 "$T/out")"
# the faulty run's rank 1 threads skip their critical section: fewer calls, and the time
# columns are durations
grep -q '^ *[0-9]* *[0-9]* *-[0-9]* .* [0-9.]* [nmu]\{0,1\}s .* GOMP_critical_end$' "$T/out" ||
	fail "GOMP_critical_end: $(cat "$T/out")"
# self time is never more than total time; the CSV has both in nanoseconds
expect_status 0 "$DT" report --normal normal --faulty faulty --format csv
head -1 "$T/out" | grep -qx 'function,calls_normal,calls_faulty,total_normal_ns,total_faulty_ns,self_normal_ns,self_faulty_ns' ||
	fail "csv header: $(head -1 "$T/out")"
awk -F, 'NR > 1 && ($6 > $4 || $7 > $5) { bad = 1 } END { exit bad }' "$T/out" ||
	fail "self time above total time: $(cat "$T/out")"
awk -F, '$1 == "main" { found = 1; if ($2 != 2 || $3 != 2) exit 1 } END { exit !found }' "$T/out" ||
	fail "main is called once per rank: $(cat "$T/out")"
# one trace, the top N, another order
expect_status 0 "$DT" report --normal normal --faulty faulty --trace 1.1 --top 2 --sort calls
[ "$(wc -l < "$T/out")" -eq 4 ] || fail "--top 2: $(cat "$T/out")"
grep -q '(trace 1.1)' "$T/out" || fail "--trace: $(head -1 "$T/out")"
sed -n 3p "$T/out" | grep -q ' -3 .*GOMP_critical_\(start\|end\)$' || fail "--sort calls: $(cat "$T/out")"

# the same as a view: R in the diff view, or :report, for one trace of each run
printf '%s\n' : '"diff normal:1.1 faulty:1.1"' Enter wait R > "$T/keys"
expect_status 0 "$DT" tui --script "$T/keys" --dump "$T/screen" --size 24x120
grep -q '^difftrace: report normal 1.1 | faulty 1.1: per function, largest change of total time first' "$T/screen" ||
	{ cat "$T/screen" >&2; fail "R does not open the report"; }
grep -q '^   N CALLS  F CALLS    DIFF     N TOTAL     F TOTAL        DIFF      N SELF      F SELF        DIFF  TOTAL N|F     FUNC' "$T/screen" ||
	{ cat "$T/screen" >&2; fail "report view header"; }
# the times as bars (issue 24, item 6): what both runs spent (#), then what the faulty run
# spent less (-) or more (+), to the scale of the longest
printf '%s\n' : '"report normal:1.1 faulty:1.1"' Enter > "$T/keys"
expect_status 0 "$DT" tui --script "$T/keys" --dump "$T/screen" --size 24x140
grep -q ' -2\.904 us .*  ###########-  compute\._omp_fn\.0$' "$T/screen" &&
	grep -q ' +315 ns  #             omp_get_thread_num$' "$T/screen" ||
	{ cat "$T/screen" >&2; fail "report view: no bars"; }
grep -q '^  *3  *0  *-3 .* GOMP_critical_end$' "$T/screen" || { cat "$T/screen" >&2; fail "report view lines"; }
printf '%s\n' : '"report normal:1.1 faulty:1.1"' Enter s s > "$T/keys"
expect_status 0 "$DT" tui --script "$T/keys" --dump "$T/screen" --size 24x120
grep -q 'largest change of calls first' "$T/screen" || { cat "$T/screen" >&2; fail "s does not sort"; }

# text runs have no timestamps: calls only, times as '-'
mkdir -p "$T/a" "$T/b"
printf '%s\n' MPI_Send MPI_Recv MPI_Send MPI_Recv > "$T/a/0.0.txt"
printf '%s\n' MPI_Send MPI_Barrier > "$T/b/0.0.txt"
expect_status 0 "$DT" import -q --run a "$T/a"
expect_status 0 "$DT" import -q --run b "$T/b"
expect_status 0 "$DT" report --normal a --faulty b
grep -q 'largest change of calls first (no timestamps in the recording)' "$T/out" || fail "no-time header: $(head -1 "$T/out")"
grep -q '^ *2 *0 *-2 *- *- *- *- *- *-  MPI_Recv$' "$T/out" || fail "MPI_Recv: $(cat "$T/out")"
grep -q '^ *0 *1 *+1 .*MPI_Barrier$' "$T/out" || fail "MPI_Barrier: $(cat "$T/out")"

# errors
expect_status 2 "$DT" report --normal a
expect_err "needs --normal RUN and --faulty RUN"
expect_status 2 "$DT" report --normal a --faulty b --sort speed
expect_err "--sort takes total, self or calls"
expect_status 1 "$DT" report --normal a --faulty nosuch
expect_status 1 "$DT" report --normal a --faulty b --trace 7.7
expect_err "no trace 7.7 in run a"
pass
