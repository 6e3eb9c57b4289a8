#!/bin/sh
# bench_otf2.sh [ITERS]: how fast `difftrace import` reads an OTF2 archive, against
# `otf2-print` (otf2-tools) reading the same archive, both whole commands. The archives are
# tests/mk_otf2's MPI + OpenMP run of 4 locations, its compute and ring repeated ITERS times
# (default 100000: 9.2 M records, 116 MB; 2 of 3 region records are MPI and OpenMP calls,
# each a sync event too), and the same 4 locations with calls of one user function only
# (mk_otf2 calls: 80 records an iteration, 8 M, 92 MB). Each figure is the best of 3 of the
# wall time and of the CPU time (user + system), with the largest resident set, from /usr/bin/time;
# otf2-print's output goes to /dev/null. The import is timed on one thread (--jobs 1) and
# with the default --jobs, into a fresh store each time.
set -eu
: "${abs_top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${abs_top_builddir:=$abs_top_srcdir}"
iters=${1:-100000}
DT="$abs_top_builddir/difftrace"
MK="$abs_top_builddir/tests/mk_otf2"
[ -x "$MK" ] || make -C "$abs_top_builddir" -s tests/mk_otf2 >/dev/null 2>&1 ||
	{ echo "bench_otf2: needs OTF2 (tests/mk_otf2 is not built)"; exit 0; }
command -v otf2-print >/dev/null || { echo "bench_otf2: needs otf2-print (otf2-tools)"; exit 0; }
T=$(mktemp -d /tmp/dt-bench-otf2.XXXXXX)
trap 'rm -rf "$T"' EXIT
export DIFFTRACE_NO_PROGRESS=1 LC_ALL=C
"$MK" "$T/a" normal --iters "$iters"
"$MK" "$T/c" calls --iters "$iters"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
best() {
	bw=999999; bc=999999; bm=0
	for _ in 1 2 3; do
		rm -f "$T/s.db"*
		/usr/bin/time -f '%e %U %S %M' -o "$T/t" "$@" > /dev/null
		read -r w u s m < "$T/t"
		bw=$(awk -v a="$bw" -v b="$w" 'BEGIN { print (b < a) ? b : a }')
		bc=$(awk -v a="$bc" -v b="$u" -v c="$s" 'BEGIN { print (b + c < a) ? b + c : a }')
		bm=$(awk -v a="$bm" -v b="$m" 'BEGIN { print (b > a) ? b : a }')
	done
	awk -v n="$n" -v w="$bw" -v c="$bc" -v m="$bm" -v what="$label" 'BEGIN {
		printf "%-34s %7.2f s wall %6.2f M records/s  %7.2f s CPU %6.2f M records/s  %5.0f MB\n",
			what, w, n / (w > 0 ? w : 0.001) / 1e6, c, n / (c > 0 ? c : 0.001) / 1e6,
			m / 1024 }'
}
for a in a c; do
	n=$(otf2-print "$T/$a/traces.otf2" | awk 'NR > 4 && /^[A-Z_]+ +[0-9]+ +[0-9]+/ { c++ } END { print c }')
	case $a in
	a) echo "MPI + OpenMP archive: $iters iterations, 4 locations, $n records, $(du -sh "$T/a" | cut -f1)" ;;
	c) echo "calls-only archive: $iters iterations, 4 locations, $n records, $(du -sh "$T/c" | cut -f1)" ;;
	esac
	label="otf2-print > /dev/null"; best otf2-print "$T/$a/traces.otf2"
	label="difftrace import --jobs 1"; best "$DT" -d "$T/s.db" import -q --jobs 1 "$T/$a"
	label="difftrace import"; best "$DT" -d "$T/s.db" import -q "$T/$a"
done
