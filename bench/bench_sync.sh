#!/bin/sh
# bench_sync.sh [N]: the cost of the sync record per recorded call. bench/syncwork.c makes
# N cheap MPI calls (MPI_Send to MPI_PROC_NULL) and N lock/unlock pairs, timed in the program,
# once plain and once under libdifftrace-sync.so writing its record (two records a call); the
# difference is the recorder's cost. Next to it, the floor of any recorder that stores its
# records into a file mapping: two bare 96-byte stores with a clock reading each into fresh
# pages of a MAP_SHARED file (what the machine charges for new pages, which dominates in
# virtual machines), with the pages made three ways (bench/syncwork.c). Times include the
# mapping of the chunks. The best of 5 runs of each, so that a loaded machine shows less.
set -eu
: "${abs_top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${abs_top_builddir:=$abs_top_srcdir}"
n=${1:-${BENCH_SYNC_CALLS:-1000000}}
lib="$abs_top_builddir/libdifftrace-sync.so"
command -v mpicc >/dev/null && [ -f "$lib" ] || { echo "bench_sync: no mpicc or no $lib"; exit 0; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self
T=$(mktemp -d /tmp/dt-bench-sync.XXXXXX)
trap 'rm -rf "$T"' EXIT
mpicc -O2 -fopenmp -o "$T/syncwork" "$abs_top_srcdir/bench/syncwork.c"
# 5 rounds, each a plain run then a recorded run (interleaved, so that a change of the machine's
# load or of its memory shows on both sides); the smallest figure of each column
for i in 1 2 3 4 5; do
	rm -rf "$T/sync"
	printf 'plain '; env X=1 "$T/syncwork" "$n" "$T"
	rm -rf "$T/sync"
	printf 'rec '; env LD_PRELOAD="$lib" DIFFTRACE_SYNC_DIR="$T/sync" "$T/syncwork" "$n" "$T"
done >"$T/runs"
records=$(for f in "$T"/sync/*.dts; do echo "$f"; done | wc -l)
awk -v n="$n" -v files="$records" '
	{ for (i = 2; i <= 6; i++) if (!(($1, i) in m) || $i < m[$1, i]) m[$1, i] = $i }
	function fl(what, v) {
		printf "%-44s %6s    %7s    %7.1f ns\n", what, "", "", v
	}
	END {
	printf "sync record, %d calls of each kind (%d file%s written):\n", n, files, files == 1 ? "" : "s"
	printf "%-44s %8s %10s %10s\n", "call", "plain", "recorded", "cost"
	printf "%-44s %6.1f ns %7.1f ns %7.1f ns\n", "MPI_Send to MPI_PROC_NULL", m["plain", 2], m["rec", 2], m["rec", 2] - m["plain", 2]
	printf "%-44s %6.1f ns %7.1f ns %7.1f ns\n", "omp_set_lock / omp_unset_lock", m["plain", 3], m["rec", 3], m["rec", 3] - m["plain", 3]
	print "floor, 2 bare records a call into fresh pages, the pages made by:"
	fl("  ftruncate + MAP_POPULATE, 768 KiB (before)", m["plain", 4] < m["rec", 4] ? m["plain", 4] : m["rec", 4])
	fl("  ftruncate only (a fault per page)", m["plain", 5] < m["rec", 5] ? m["plain", 5] : m["rec", 5])
	fl("  fallocate + MADV_POPULATE_WRITE (now)", m["plain", 6] < m["rec", 6] ? m["plain", 6] : m["rec", 6])
}' "$T/runs"
