#!/bin/sh
# The timeline and hang views, headless, on made-up sync recordings (tests/mk_sync_rec.c: a run
# that ends, with messages and a critical section, and a deadlocked one), so that they are
# tested without MPI: lanes, step numbers, message markers, the footer of an event and what it
# waited for, lanes moved, collapsed and scrolled, time rows, the jumps from the runs, ranking,
# diff and hang views, the runs without a sync record, 80x24 and the non-UTF-8 locale.
. "${abs_top_srcdir:-.}/tests/lib.sh"

MK="$abs_top_builddir/tests/mk_sync_rec"
[ -x "$MK" ] || fail "tests/mk_sync_rec is not built"
"$MK" "$T/ok" ok || fail "mk_sync_rec ok failed"
"$MK" "$T/hung" hung || fail "mk_sync_rec hung failed"
expect_status 0 "$DT" import -q --run ok "$T/ok"
expect_status 0 "$DT" import -q --run hung "$T/hung"
expect_status 0 "$DT" import -q --run plain "$abs_top_srcdir/examples/traces/normal"
ui() { # keys... : runs the interface on them; the screen is in $T/screen
	printf '%s\n' "$@" > "$T/keys"
	"$DT" tui --script "$T/keys" --dump "$T/screen" --size "${SIZE:-24x80}" > "$T/out" 2> "$T/err" ||
		fail "tui exited $?: $(cat "$T/err")"
}
has() { grep -q -- "$1" "$T/screen" || { cat "$T/screen" >&2; fail "screen lacks '$1'"; }; }
hasnt() { grep -q -- "$1" "$T/screen" && { cat "$T/screen" >&2; fail "screen has '$1'"; }; return 0; }
fits() { # the screen is 24 rows of at most 80 columns
	[ "$(wc -l < "$T/screen")" -eq 24 ] || { cat "$T/screen" >&2; fail "not 24 rows"; }
	awk 'length > 80 { exit 1 }' "$T/screen" || { cat "$T/screen" >&2; fail "a row wider than 80"; }
}

# lanes per trace, a row per step, the cursor's cell in [ ], the footer on its event
ui : '"timeline ok"' Enter
fits
has '^difftrace: timeline of ok: 4 traces, 14 steps (maximal concurrency)'
has '^    STEP >0\.0        0\.1        1\.0        2\.0'
has '^>      1 \[Init(     ]crit_in(  |Init(     |Init('
has '^      14 |Finalize) |          |Finalize) |Finalize)'
has '^0\.0 #0 MPI_Init enter (step 1)'
has "^waited for: its thread's previous event only (no rule)"
# messages: the sends marked >0 on lanes 1.0 and 2.0, the receives <1 and <2 on lane 0.0
has '^       3 |Recv(     |crit_out( |Send(>0   |Send(>0'
has '^       6 |Recv)<2   |'
# ] goes to the lane's next event: the receive's completion, what it waited for (the send, by
# the rule of mpi-p2p.rules), and the send marked @ on its lane (wide: the rule's file)
SIZE=24x120 ui : '"timeline ok"' Enter ']' ']' ']'
has '^>      4 \[Recv)<1   ]crit_out) |Send)     |Send)'
has '^       3 |Recv(     |crit_out( @Send(>0   |Send(>0'
has '^0\.0 #3 MPI_Recv exit (step 4) comm=0 src=1 tag=5 count=1 type=MPI_INT'
has '^waited for: SEND(0, 1, 0, 5, 1) = 1\.0 #2 MPI_Send enter (step 3) \[mpi-p2p\.rules:[0-9]*]'
# p goes there
ui : '"timeline ok"' Enter ']' ']' ']' p
has '^1\.0 #2 MPI_Send enter (step 3) comm=0 dest=0 tag=5'
has '^    STEP  0\.0        0\.1       >1\.0        2\.0'
# a critical section's entry waited for the other thread's exit from it (omp.rules)
ui : '"timeline ok"' Enter ']' ']' ']' ']' ']' ']' ']'
has '^0\.0 #7 GOMP_critical_start exit (step 8) obj=0x1 seq=2'
has '^waited for: RELEASE(0, 1, 1) = 0\.1 #2 GOMP_critical_end enter (step 3)'
# a collective's exit: the entries it counted
ui : '"timeline ok"' Enter l l G k k
has '^1\.0 #5 MPI_Barrier exit (step 12)'
has '^waited for: #COLL_IN(0, _, 1) = 3, the last 0\.0 #10 MPI_Barrier enter'
# Right and Left move between lanes; [ with no earlier event says so
ui : '"timeline ok"' Enter Right Right Left
has '^    STEP  0\.0       >0\.1        1\.0        2\.0'
has '^0\.1 #0 GOMP_critical_start enter (step 1) obj=0x1'
ui : '"timeline ok"' Enter '['
has 'no earlier event in this lane'
# Enter collapses the cursor's process into one lane, again expands it; z does every process
ui : '"timeline ok"' Enter Enter
has '^    STEP >0\.\*(2)     1\.0        2\.0'
has '^>      1 \[Init(+1   ]Init(     |Init('
has '(+1 more threads here)'
has 'process 0 collapsed into one lane'
ui : '"timeline ok"' Enter Enter o
has '^    STEP >0\.0        0\.1        1\.0        2\.0'
ui : '"timeline ok"' Enter l l z
has '^    STEP  0\.\*(2)    >1\.0        2\.0'
ui : '"timeline ok"' Enter l l z z
hasnt '0\.\*(2)'
# t: rows by time; the cursor stays on its event
ui : '"timeline ok"' Enter ']' ']' t
has '^difftrace: timeline of ok: 4 traces, [0-9]* instants (aligned clocks)'
has '^ *TIME >0\.0 '
has '^0\.0 #2 MPI_Recv enter (step 3)'
has '^>  *0\.[0-9]*ms \[Recv(  '
# a narrow screen scrolls the lanes sideways (+N says how many more)
SIZE=24x40 ui : '"timeline ok"' Enter
has '^    STEP >0\.0        0\.1        +2'
SIZE=24x40 ui : '"timeline ok"' Enter l l l
has '^    STEP  1\.0       >2\.0'
SIZE=24x40 ui : '"timeline ok"' Enter L H
has '^    STEP >0\.0        0\.1        +2'

# a run without a sync record says so, in the timeline and in the hang view
ui : '"timeline plain"' Enter
fits
has 'run plain has no sync record: no timeline'
ui : '"hang plain"' Enter
has 'run plain has no sync record: no hang report'

# the hang view: groups with P.T ranges, the wait-for graph, the cycle
ui : '"hang hung"' Enter
fits
has '^difftrace: where each thread of hung is at the end'
has '^> P 0-1 T 0  *in MPI_Recv (1st)  2 threads'
has '^  2\.0  *in MPI_Barrier (1st)  1 thread'
has '^  0\.0      waits for 1\.0 (receive: MPI_Recv comm=0 src=1 tag=0'
has '^  2\.0      waits for P 0-1 T 0 (collective: MPI_Barrier comm=0)'
has '^  0\.0 -> 1\.0 -> 0\.0'
has 'deadlock: 1 cycle'
# Enter on a group: the timeline at its thread's last event
ui : '"hang hung"' Enter Enter
has '^difftrace: timeline of hung: 3 traces, 3 steps'
has '^0\.0 #2 MPI_Recv enter (step 3) comm=0 src=1 tag=0'
ui : '"hang hung"' Enter j Enter
has '^>      3 |Recv(     |Recv(     \[Barrier(  ]'
has '^2\.0 #2 MPI_Barrier enter (step 3)'

# from the runs view: T the timeline, S the hang report of the run under the cursor
ui '/' '"hung"' Enter S
has '^difftrace: where each thread of hung is at the end'
ui '/' '"hung"' Enter T
has '^difftrace: timeline of hung'
ui '/' '"ok"' Enter S
has '^> P 0-2 T 0  *finished (returned from MPI_Finalize)  3 threads'
has '^  0\.1  *not in a recorded call (after GOMP_critical_end, 1st)'
has '^  wait-for cycles (deadlock): none'

# from the ranking: T on a trace opens the faulty run's timeline at its first diverging event,
# S its hang report
ui : '"rank ok hung"' Enter wait T
has '^difftrace: timeline of hung'
has 'stopped early: at its last call, MPI_[A-Za-z]* (1st)\|first diverging call of'
ui : '"rank ok hung"' Enter wait S
has '^difftrace: where each thread of hung is at the end'
# from a diff: the right trace's first diverging event
ui : '"diff ok:0.0 hung:0.0"' Enter wait T
has '^difftrace: timeline of hung'
has '^0\.0 #2 MPI_Recv enter (step 3)'
has '0\.0 stopped early: at its last call, MPI_Recv (1st)'
ui : '"diff ok:2.0 hung:2.0"' Enter wait T
has '^2\.0 #2 MPI_Barrier enter (step 3)'
has 'first diverging call of 2\.0 (kept event 2): MPI_Barrier (1st)'
# a diff of a run without a sync record says so and stays
ui : '"diff plain:0.0 plain:1.0"' Enter wait T
has 'run plain has no sync record: no timeline'
has '^difftrace: diff plain 0\.0 | plain 1\.0'

# the help lists the timeline's keys
SIZE=50x80 ui : '"timeline ok"' Enter F1
has 'Keys of the timeline view'
has 'collapse / expand the cursor'
SIZE=50x80 ui : '"hang hung"' Enter F1
has 'Keys of the hang view'

# NO_COLOR and a UTF-8 locale: the same screen, the lanes drawn with box characters
NO_COLOR=1 ui : '"timeline ok"' Enter
has '^>      1 \[Init(     ]crit_in(  |Init('
if locale -a 2>/dev/null | grep -qi '^c\.utf-\?8$'; then
	LC_ALL=C.UTF-8 ui : '"timeline ok"' Enter
	grep -q "│Init(" "$T/screen" || { cat "$T/screen" >&2; fail "no box lanes in UTF-8"; }
fi
pass
