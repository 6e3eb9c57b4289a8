#!/bin/sh
# bench_blame_import.sh [POINTS]: the import and the blame of a large sample record, as whole
# commands. examples/blame/quad_mpi.c runs on 2 ranks under difftrace-record --sample at
# 10 kHz with the sampler's watch thread alone (DIFFTRACE_SAMPLE_WATCH=only: every 100 us of a
# thread's CPU, whatever the kernel's tick) on POINTS points (default 10^7; rank 0 reads them,
# rank 1 polls in the broadcast meanwhile: the samples grow with POINTS, about 10^4 per 10^6
# points here); then `difftrace import` of the recording and `difftrace blame` of the run are
# timed with /usr/bin/time (elapsed, CPU, peak memory).
set -eu
: "${abs_top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${abs_top_builddir:=$abs_top_srcdir}"
points=${1:-10000000}
command -v mpicc >/dev/null || { echo "bench_blame_import: mpicc not installed"; exit 0; }
[ -f "$abs_top_builddir/libdifftrace-sample.so" ] || { echo "bench_blame_import: libdifftrace-sample.so not built"; exit 0; }
[ -x /usr/bin/time ] || { echo "bench_blame_import: /usr/bin/time not installed (apt-get install time)"; exit 0; }
T=$(mktemp -d /tmp/dt-bench-bimport.XXXXXX)
trap 'rm -rf "$T"' EXIT
mpicc -g -O2 -o "$T/quad" "$abs_top_srcdir/examples/blame/quad_mpi.c" -lm
flags="-np 2"
mpirun --version 2>&1 | grep -q 'Open MPI' && flags="$flags --oversubscribe"
[ "$(id -u)" = 0 ] && flags="$flags --allow-run-as-root"
# shellcheck disable=SC2086
DIFFTRACE_SAMPLE_WATCH=only mpirun $flags "$abs_top_builddir/difftrace-record" --sync-only \
	--sample=timer:10000 -o "$T/rec" -- "$T/quad" "$points" 20 >"$T/out" 2>&1
bytes=$(cat "$T"/rec/rank-*/sample/*.dtp | wc -c)
echo "bench_blame_import: quad_mpi.c, 2 ranks, $points points, 10 kHz (watch thread alone); record $((bytes / 1048576)) MB; load average $(cut -d' ' -f1-3 /proc/loadavg)"
DT="$abs_top_builddir/difftrace"
/usr/bin/time -f "%e %U %S %M" -o "$T/t1" "$DT" -d "$T/s.db" import -q -r quad "$T/rec" >/dev/null
/usr/bin/time -f "%e %U %S %M" -o "$T/t2" "$DT" -d "$T/s.db" blame quad --format csv >"$T/b.csv" || { cat "$T/b.csv"; exit 1; }
samples=$(sqlite3 "$T/s.db" 'select coalesce(sum(nrec), 0) from blame_samples' 2>/dev/null || echo "?")
ticks=$(awk -F, '$2 == "Total" { print $(NF - 3); exit }' "$T/b.csv")
printf '%-34s %s sample records (%s ticks)\n' "recorded" "$samples" "$ticks"
awk -v w="import (whole command)" '{ printf "%-34s %7.2f s elapsed  %7.2f s CPU  %6.0f MB peak\n", w, $1, $2 + $3, $4 / 1024 }' "$T/t1"
awk -v w="blame (whole command)" '{ printf "%-34s %7.2f s elapsed  %7.2f s CPU  %6.0f MB peak\n", w, $1, $2 + $3, $4 / 1024 }' "$T/t2"
