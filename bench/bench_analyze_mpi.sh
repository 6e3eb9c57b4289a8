#!/bin/sh
# bench_analyze_mpi.sh [FILES [EVENTS]]: difftrace analyze --force of the same run serially and
# under mpirun with 1, 2 (and 4, oversubscribed) processes: whole commands on both sides (the
# launcher's start and every process's store opening included), wall time, best of 3, with the
# machine's load average (a loaded 2-core machine shares its cores with everything else). Each
# side once with the default threads (one per core in every process) and once with --threads 1
# (one core per process: how the split scales over machines). FILES text traces (default 16)
# of EVENTS events each (default 1,200,000: an MPI call, drawn from eight at random, and a
# compute call per iteration),
# imported once; and the fixed cost of each side, with the analysis cached. Needs mpirun and
# difftrace-mpi.
set -eu
files=${1:-16}
events=${2:-1200000}
top=$(cd "$(dirname "$0")/.." && pwd)
DT=${DIFFTRACE:-$top/build/difftrace}
MPIRUN=${MPIRUN:-mpirun}
[ -x "$DT" ] || { echo "bench_analyze_mpi: no $DT (set DIFFTRACE)" >&2; exit 1; }
[ -x "$(dirname "$DT")/difftrace-mpi" ] || { echo "bench_analyze_mpi: no difftrace-mpi beside $DT" >&2; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
flags=
"$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags=--oversubscribe
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
mkdir "$w/tr"
# irregular traces (the MPI call of each iteration drawn from eight), so that NLR has work to do
awk -v F="$files" -v N="$((events / 4))" -v D="$w/tr" 'BEGIN {
	split("Send Recv Isend Irecv Wait Waitall Allreduce Barrier", m, " ")
	for (f = 0; f < F; f++) {
		fn = sprintf("%s/%d.0.txt", D, f)
		print "main" > fn
		x = f + 1
		for (i = 0; i < N; i++) {
			x = (x * 1103515245 + 12345) % 2147483648
			printf "MPI_%s\n[ret]\nwork_%d\n[ret]\n", m[int(x / 65536) % 8 + 1], (i * 7 + f) % 13 > fn
		}
		print "[ret]" > fn
		close(fn)
	}
}'
"$DT" -d "$w/s.db" import -q --run r "$w/tr" >/dev/null
now() { date +%s.%N; }
best() { # LABEL COMMAND...: best wall time of 3
	label=$1; shift
	b=
	for _ in 1 2 3; do
		t0=$(now); "$@" >/dev/null 2>&1; t1=$(now)
		t=$(echo "$t1 - $t0" | bc)
		if [ -z "$b" ] || [ "$(echo "$t < $b" | bc)" = 1 ]; then b=$t; fi
	done
	printf '%-48s %7.2f s  %6.1f M events/s\n' "$label" "$b" "$(echo "$files * $events / $b / 1000000" | bc -l)"
}
echo "bench_analyze_mpi: $files text traces x $events events, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
# the fixed cost of each side: the analysis cached, nothing computed (the launch, the processes'
# start and store opening, the summary)
best "difftrace analyze (cached: nothing computed)" "$DT" -d "$w/s.db" analyze r
for np in 1 2 4; do
	# shellcheck disable=SC2086
	best "mpirun -np $np difftrace analyze (cached)" "$MPIRUN" -np $np $flags "$DT" -d "$w/s.db" analyze r
done
for th in "" "--threads 1"; do
	# shellcheck disable=SC2086
	best "difftrace analyze --force $th (serial)" "$DT" -d "$w/s.db" analyze --force $th r
	for np in 1 2 4; do
		# shellcheck disable=SC2086
		best "mpirun -np $np difftrace analyze --force $th" "$MPIRUN" -np $np $flags "$DT" -d "$w/s.db" analyze --force $th r
	done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
