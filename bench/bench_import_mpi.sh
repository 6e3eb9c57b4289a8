#!/bin/sh
# bench_import_mpi.sh [FILES [EVENTS]]: difftrace import of the same text traces serially, on 2
# and 3 threads of one process (--jobs), and under mpirun with 1, 2 (and 4, oversubscribed)
# processes (one thread each): whole commands on every side, wall
# time, best of 3, with the machine's load average (a loaded 2-core machine shares its cores
# with everything else). FILES traces (default 16) of EVENTS events each (default 1,200,000:
# an MPI call and a compute call per iteration). Needs mpirun and difftrace-mpi.
set -eu
files=${1:-16}
events=${2:-1200000}
top=$(cd "$(dirname "$0")/.." && pwd)
DT=${DIFFTRACE:-$top/build/difftrace}
MPIRUN=${MPIRUN:-mpirun}
[ -x "$DT" ] || { echo "bench_import_mpi: no $DT (set DIFFTRACE)" >&2; exit 1; }
[ -x "$(dirname "$DT")/difftrace-mpi" ] || { echo "bench_import_mpi: no difftrace-mpi beside $DT" >&2; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
flags=
"$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags=--oversubscribe
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
mkdir "$w/tr"
awk -v F="$files" -v N="$((events / 4))" -v D="$w/tr" 'BEGIN {
	for (f = 0; f < F; f++) {
		fn = sprintf("%s/%d.0.txt", D, f)
		print "main" > fn
		for (i = 0; i < N; i++)
			printf "MPI_Send\n[ret]\nwork_%d\n[ret]\n", (i * 7 + f) % 13 > fn
		print "[ret]" > fn
		close(fn)
	}
}'
now() { date +%s.%N; }
best() { # LABEL COMMAND...: best wall time of 3
	label=$1; shift
	b=
	for r in 1 2 3; do
		rm -f "$w/s.db" "$w/s.db-wal" "$w/s.db-shm"
		t0=$(now); "$@" >/dev/null 2>&1; t1=$(now)
		t=$(echo "$t1 - $t0" | bc)
		if [ -z "$b" ] || [ "$(echo "$t < $b" | bc)" = 1 ]; then b=$t; fi
	done
	printf '%-34s %7.2f s  %6.1f M events/s\n' "$label" "$b" "$(echo "$files * $events / $b / 1000000" | bc -l)"
}
echo "bench_import_mpi: $files text traces x $events events ($(du -sh "$w/tr" | cut -f1)), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
best "difftrace import --jobs 1 (serial)" "$DT" -d "$w/s.db" import -q --jobs 1 "$w/tr"
for j in 2 3; do
	best "difftrace import --jobs $j" "$DT" -d "$w/s.db" import -q --jobs $j "$w/tr"
done
for np in 1 2 4; do
	best "mpirun -np $np difftrace import" "$MPIRUN" -np $np $flags "$DT" -d "$w/s.db" import -q "$w/tr"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
