#!/bin/sh
# bench_sample_uftrace.sh [RUNS]: the cost of sampling at 1 kHz (difftrace-record
# --sample=timer:1000) with uftrace recording and without (--sync-only), against the same
# recording without samples, and perf record -g at 1 kHz against the program alone. The
# program is examples/blame/quad_mpi.c built as the README builds (-pg -g -O2), one rank
# (no time waiting in MPI, which a loaded machine would change). Figures: the median of RUNS
# runs of the whole command (mpirun and the recorder included) in elapsed seconds, and the
# program's own CPU time as it prints it at its end.
set -eu
: "${abs_top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${abs_top_builddir:=$abs_top_srcdir}"
runs=${1:-5}
command -v mpicc >/dev/null || { echo "bench_sample_uftrace: mpicc not installed"; exit 0; }
command -v uftrace >/dev/null || { echo "bench_sample_uftrace: uftrace not installed"; exit 0; }
[ -f "$abs_top_builddir/libdifftrace-sample.so" ] ||
	{ echo "bench_sample_uftrace: libdifftrace-sample.so not built"; exit 0; }
T=$(mktemp -d /tmp/dt-bench-sampleuf.XXXXXX)
trap 'rm -rf "$T"' EXIT
mpicc -pg -g -O2 -o "$T/quad" "$abs_top_srcdir/examples/blame/quad_mpi.c" -lm
args="400000 100"
flags="-np 1"
mpirun --version 2>&1 | grep -q 'Open MPI' && flags="$flags --oversubscribe"
[ "$(id -u)" = 0 ] && flags="$flags --allow-run-as-root"
now() { date +%s.%N; }
# run LABEL COMMAND...: the medians over $runs runs of the elapsed time and the program's CPU
run() {
	label=$1
	shift
	: > "$T/wall"
	: > "$T/cpu"
	i=0
	while [ $i -lt "$runs" ]; do
		rm -rf "$T/rec" "$T/perf.data"
		a=$(now)
		"$@" >"$T/out" 2>&1 || { cat "$T/out" >&2; echo "bench_sample_uftrace: $label failed"; exit 1; }
		b=$(now)
		awk -v a="$a" -v b="$b" 'BEGIN { print b - a }' >> "$T/wall"
		awk '/^cpu = / { print $3 }' "$T/out" >> "$T/cpu"
		i=$((i + 1))
	done
	w=$(sort -n "$T/wall" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
	c=$(sort -n "$T/cpu" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
	printf '%-44s %7.2f s elapsed %7.2f s CPU\n' "$label" "$w" "$c"
	echo "$label|$w|$c" >> "$T/all"
}
rec="$abs_top_builddir/difftrace-record"
# shellcheck disable=SC2086
run "the program alone" mpirun $flags "$T/quad" $args
# shellcheck disable=SC2086
run "--sync-only" mpirun $flags "$rec" --sync-only -o "$T/rec" -- "$T/quad" $args
# shellcheck disable=SC2086
run "--sync-only --sample=timer:1000" mpirun $flags "$rec" --sync-only --sample=timer:1000 -o "$T/rec" -- "$T/quad" $args
# shellcheck disable=SC2086
run "uftrace (the default recording)" mpirun $flags "$rec" -o "$T/rec" -- "$T/quad" $args
# shellcheck disable=SC2086
run "uftrace --sample=timer:1000" mpirun $flags "$rec" --sample=timer:1000 -o "$T/rec" -- "$T/quad" $args
if command -v perf >/dev/null && perf record -q -o "$T/probe.data" true >/dev/null 2>&1; then
	# shellcheck disable=SC2086
	run "perf record -g -F 1000 (the program alone)" perf record -q -g -F 1000 -o "$T/perf.data" -- mpirun $flags "$T/quad" $args
else
	echo "perf record: not available here (apt-get install linux-perf; perf_event_paranoid)"
fi
awk -F'|' '{ w[$1] = $2; c[$1] = $3 }
	function pct(a, b) { return b > 0 ? (a - b) / b * 100 : 0 }
	END {
		printf "sampling at 1 kHz without uftrace: %+.1f%% elapsed, %+.1f%% CPU (against --sync-only)\n",
			pct(w["--sync-only --sample=timer:1000"], w["--sync-only"]), pct(c["--sync-only --sample=timer:1000"], c["--sync-only"])
		printf "sampling at 1 kHz with uftrace:    %+.1f%% elapsed, %+.1f%% CPU (against uftrace alone)\n",
			pct(w["uftrace --sample=timer:1000"], w["uftrace (the default recording)"]), pct(c["uftrace --sample=timer:1000"], c["uftrace (the default recording)"])
		p = "perf record -g -F 1000 (the program alone)"
		if (p in w)
			printf "perf record -g at 1 kHz:           %+.1f%% elapsed, %+.1f%% CPU (against the program alone)\n",
				pct(w[p], w["the program alone"]), pct(c[p], c["the program alone"])
	}' "$T/all"
