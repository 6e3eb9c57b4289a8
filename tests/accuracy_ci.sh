#!/bin/sh
# The reduced accuracy run (scripts/accuracy.sh, ACCURACY.md) under the default ranking (filter
# ompall,mpi, attributes sing.log10.args, K 10, score combined): a few bugs of the ILCS example
# (missing critical sections in one thread, in the workers of one process and in the
# communication thread, a wrong reduction operation in one rank seen only through the MPI
# arguments, an infinite loop in a hung run) and the bugs of examples/kinds.c whose runs end
# (calls in another order, another kernel in one thread, an extra compute call, a branch taken
# differently, a critical section skipped once, a wrong value sent with the same calls, found
# through the --payload digests, a put to another rank's slot of a window, found through the
# MPI_Put's displacement). Fails when one of them no longer puts its
# faulty trace FIRST, alone (ties counted against it), or can no longer be recorded. About
# two minutes on 2 cores. Skips (77) without mpicc, mpirun or uftrace. The kinds that hang
# (early exit, wrong root, dropped result, unmatched tag, both receive first) lose calls when
# a loaded machine is slow to flush them, so CI checks their rules on text runs
# (tests/rank_verdict.sh), and on hang-safe sync-only recordings (tests/rank_hangs.sh); ACCURACY.md
# measures them on full recordings.
. "${abs_top_srcdir:-.}/tests/lib.sh"

need mpi uftrace timeout built
export MPICC MPIRUN DIFFTRACE="$DT" DIFFTRACE_RECORD="$RECORD"

# the bugs found first today; add one here when a change makes difftrace find it
bugs=crit1-one-thread,crit2-one-thread,crit3-all-threads-one-proc,crit1-all-threads-one-proc
bugs=$bugs,allreduce1-op-one,infinite-loop
bugs=$bugs,kinds-order,kinds-kernel,kinds-extra-call,kinds-branch,kinds-crit-once,kinds-data,kinds-rma
sh "$abs_top_srcdir/scripts/accuracy.sh" -o "$T/acc" --bugs "$bugs" --no-sweep \
	--settings 'ompall,mpi/sing.log10.args/10/combined' --check 1 --report "$T/report.md" >"$T/out" 2>"$T/err"
rc=$?
cat "$T/report.md" 2>/dev/null
if [ $rc != 0 ]; then
	cat "$T/err" >&2
	grep -qiE 'not enough slots|orte_init|PMIx|ess_init' "$T/acc/log" 2>/dev/null &&
		skip "mpirun cannot start processes here"
	fail "a bug that used to be found first no longer is (status $rc)"
fi
pass
