#!/bin/sh
# The reduced run of scripts/accuracy_suite.sh (ACCURACY.md, bench/suite): four bug programs
# of the corpus whose runs end or abort at once -- a reduction whose datatype differs on one
# rank, a communicator one rank never frees, a receive with the wrong datatype that aborts the
# run (MPI_ERR_TRUNCATE), a send buffer written while an MPI_Isend is in flight (--payload:
# the digest at the send's completion) -- each recorded normal and faulty and ranked with the
# defaults.
# Fails when one of them no longer puts its faulty trace first (ties counted against it), or
# can no longer be recorded. About half a minute on 2 cores. Skips (77) without mpicc, mpirun
# (Open MPI: the script passes the environment with mpirun -x) or uftrace.
. "${abs_top_srcdir:-.}/tests/lib.sh"

need mpi uftrace timeout built
"$MPIRUN" --version 2>&1 | grep -q 'Open MPI' || skip "accuracy_suite.sh runs Open MPI's mpirun"
export MPICC MPIRUN DIFFTRACE="$DT" DIFFTRACE_RECORD="$RECORD"

sh "$abs_top_srcdir/scripts/accuracy_suite.sh" -o "$T/suite" --check \
	--programs pm_allreduce_type,rs_comm_leak,cb_wrong_type,lc_isend_modify --report "$T/report.md" >"$T/out" 2>"$T/err"
rc=$?
cat "$T/report.md" 2>/dev/null
if [ $rc != 0 ]; then
	cat "$T/err" >&2
	grep -qiE 'not enough slots|orte_init|PMIx|ess_init' "$T/suite/log" 2>/dev/null &&
		skip "mpirun cannot start processes here"
	fail "a bug program whose faulty trace came first no longer does (status $rc)"
fi
grep -q '^| cb_wrong_type .* | 3.0 | 1.000 |$' "$T/report.md" || fail "the report lacks cb_wrong_type's cause line"
grep -q 'send buffer written in flight: MPI_Isend to 0' "$T/suite/lc_isend_modify.rank.txt" ||
	fail "lc_isend_modify: the send written in flight is not named: $(cat "$T/suite/lc_isend_modify.rank.txt")"
pass
