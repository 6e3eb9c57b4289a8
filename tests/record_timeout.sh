#!/bin/sh
# difftrace-record --timeout runs by the clock (issue 24, item 3): on a loaded node the
# wrapper's rounds of 'sleep 0.1' ran late ('--timeout 15' fired after 23.8 s). Under a CPU
# hog (more busy processes than cores), '--timeout 5' must end a spinning program 5 +- 1 s
# after the start with --sync-only (nothing to flush), and within the 2 s of uftrace's flush
# more by default. Under uftrace the program must be gone afterwards too: uftrace can end at
# the flush signal and leave the program running, no longer its child.
# Under an MPI launcher the job must end as soon as its ranks have written their traces: a
# sleep the wrapper left in the background when the launcher stopped it kept the launcher's
# descriptors open, and MPICH's hydra waited 20 s more for it (a 4-rank job of '--timeout 10'
# ended after 32 s).
# This is a bound on the tool's behaviour, measured with generous slack, not a benchmark.
. "${abs_top_srcdir:-.}/tests/lib.sh"

need built timeout
[ -f "$abs_top_builddir/libdifftrace-sync.so" ] ||
	skip "libdifftrace-sync.so not built (no mpicc at configure time)"
command -v bc >/dev/null || skip "bc not found"
cd "$T" || fail "cd $T"

hogs=
stop_hogs() {
	# shellcheck disable=SC2086 # one pid a word
	[ -z "$hogs" ] || kill $hogs 2>/dev/null
	hogs=
}
trap 'stop_hogs; rm -rf "$T"' EXIT
n=$(($(nproc 2>/dev/null || echo 2) * 2))
i=0
while [ $i -lt "$n" ]; do
	timeout 120 sh -c 'while :; do :; done' &
	hogs="$hogs $!"
	i=$((i + 1))
done

# elapsed DIR [OPTIONS...]: runs the wrapper with --timeout 5 on a spinning program into DIR;
# the seconds it took in $s
elapsed() {
	d=$1
	shift
	a=$(date +%s.%N)
	timeout -k 5 60 "$RECORD" "$@" --timeout 5 -o "$T/$d" -- \
		sh -c 'echo $$ > spinner.pid; while :; do :; done' >"$T/out" 2>"$T/err"
	st=$?
	b=$(date +%s.%N)
	[ "$st" = 124 ] || { cat "$T/err" >&2; fail "$*: exit status $st, expected 124"; }
	grep -q 'still running after 5 s' "$T/err" || { cat "$T/err" >&2; fail "$*: no notice"; }
	s=$(echo "$b - $a" | bc)
}
# running PID: the process exists and is not a zombie (a killed orphan waits for init to
# reap it, which in a container may never happen)
running() {
	case $(ps -o stat= -p "$1" 2>/dev/null) in
	'' | Z*) return 1 ;;
	esac
}
within() { # VALUE LOW HIGH
	[ "$(echo "$1 >= $2 && $1 <= $3" | bc)" = 1 ]
}

elapsed so --sync-only
echo "--sync-only --timeout 5 under $n busy processes: the job ended after $s s"
within "$s" 4 6 || fail "--sync-only --timeout 5 ended the job after $s s"
[ -f so/rank-0/difftrace-timeout ] || fail "--sync-only: no timeout marker"
running "$(cat spinner.pid)" && fail "--sync-only: the program is still running"

need uftrace
rm -f spinner.pid
elapsed uf
echo "--timeout 5 (uftrace) under $n busy processes: the job ended after $s s"
within "$s" 4 8 || fail "--timeout 5 ended the job after $s s (uftrace's flush takes 2 s)"
[ -f uf/rank-0/difftrace-timeout ] || fail "uftrace: no timeout marker"
p=$(cat spinner.pid) || fail "the program did not start"
if running "$p"; then
	kill "$p"
	fail "uftrace: the program is still running after the timeout"
fi

# under the launcher: a hung 4-rank job with '--timeout 5' ends within the flush and uftrace's
# writing of its files (a few seconds), not 20 s later, and every rank is importable
stop_hogs
need mpi
cat >hang.c <<'EOF2'
#include <mpi.h>
int main(int argc, char **argv)
{
	int rank, x = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) /* a receive nobody sends: rank 0 hangs, the others in the barrier */
		MPI_Recv(&x, 1, MPI_INT, 1, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return x;
}
EOF2
"$MPICC" -pg -g -o hang hang.c >cc.log 2>&1 || { cat cc.log >&2; fail "mpicc failed"; }
flags="-np 4"
"$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags="$flags --oversubscribe"
[ "$(id -u)" = 0 ] && "$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags="$flags --allow-run-as-root"
a=$(date +%s.%N)
# shellcheck disable=SC2086
timeout -k 5 120 "$MPIRUN" $flags "$RECORD" --timeout 5 -o "$T/job" -- ./hang </dev/null >job.log 2>&1
b=$(date +%s.%N)
s=$(echo "$b - $a" | bc)
echo "a hung 4-rank job under $(basename "$MPIRUN") with --timeout 5: ended after $s s"
within "$s" 4 17 || { cat job.log >&2; fail "the job with --timeout 5 ended after $s s"; }
[ "$(ls -d "$T"/job/rank-* | wc -l)" = 4 ] || fail "not 4 rank folders: $(ls "$T/job")"
expect_status 0 "$DT" import -r job "$T/job"
pass
