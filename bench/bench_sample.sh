#!/bin/sh
# bench_sample.sh [RUNS]: the cost of difftrace-record --sample on examples/blame/quad_mpi.c
# (1 rank: no time waiting in MPI, which another rank descheduled by a loaded machine would change). The peer is the same program recorded without samples (--sync-only), measured the
# same way: the CPU time of the program's process (as it prints it at its end, so the launcher's
# own polling is left out), the median of RUNS runs, for
# allocations only (--sample=none), the timer at 1 kHz (the default rate) and at 10 kHz.
set -eu
: "${abs_top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${abs_top_builddir:=$abs_top_srcdir}"
runs=${1:-5}
command -v mpicc >/dev/null || { echo "bench_sample: mpicc not installed"; exit 0; }
[ -f "$abs_top_builddir/libdifftrace-sample.so" ] || { echo "bench_sample: libdifftrace-sample.so not built"; exit 0; }
T=$(mktemp -d /tmp/dt-bench-sample.XXXXXX)
trap 'rm -rf "$T"' EXIT
mpicc -g -O2 -o "$T/quad" "$abs_top_srcdir/examples/blame/quad_mpi.c" -lm
flags="-np 1"
mpirun --version 2>&1 | grep -q 'Open MPI' && flags="$flags --oversubscribe"
[ "$(id -u)" = 0 ] && flags="$flags --allow-run-as-root"
# cpu OPTIONS...: the median CPU seconds of the recorded program over $runs runs
cpu() {
	i=0
	: > "$T/times"
	while [ $i -lt "$runs" ]; do
		rm -rf "$T/rec"
		# shellcheck disable=SC2086
		mpirun $flags "$abs_top_builddir/difftrace-record" \
			-o "$T/rec" "$@" -- "$T/quad" 1000000 20 >"$T/out" 2>&1
		awk '/^cpu = / { print $3 }' "$T/out" >> "$T/times"
		i=$((i + 1))
	done
	sort -n "$T/times" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
base=$(cpu --sync-only)
printf '%-40s %8.2f s CPU\n' "without samples (--sync-only)" "$base"
for spec in none timer:1000 timer:10000; do
	t=$(cpu --sync-only --sample=$spec)
	n=$(cat "$T"/rec/rank-*/sample/*.dtp | wc -c)
	printf '%-40s %8.2f s CPU  %+6.1f%%  (%d KB of record)\n' "--sample=$spec" "$t" \
		"$(awk -v a="$t" -v b="$base" 'BEGIN { print (a - b) / b * 100 }')" $((n / 1024))
done
