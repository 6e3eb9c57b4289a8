#!/bin/sh
# bench_payload.sh [N]: the cost of difftrace-record --payload per send. bench/payloadwork.c
# makes N sends of SIZE bytes to MPI_PROC_NULL (a call that returns at once), timed in the
# program: plain, under libdifftrace-sync.so without a digest, and with the digest of the
# first 4096 bytes (DIFFTRACE_SYNC_PAYLOAD=4096, what --payload sets), for 8 B, 1 KiB, 4 KiB
# and 64 KiB (of which 4096 bytes are digested). The best of 5 rounds, each side interleaved.
set -eu
: "${abs_top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${abs_top_builddir:=$abs_top_srcdir}"
n=${1:-${BENCH_PAYLOAD_CALLS:-200000}}
lib="$abs_top_builddir/libdifftrace-sync.so"
command -v mpicc >/dev/null && [ -f "$lib" ] || { echo "bench_payload: no mpicc or no $lib"; exit 0; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self
T=$(mktemp -d /tmp/dt-bench-payload.XXXXXX)
trap 'rm -rf "$T"' EXIT
mpicc -O2 -o "$T/payloadwork" "$abs_top_srcdir/bench/payloadwork.c"
for size in 8 1024 4096 65536; do
	for i in 1 2 3 4 5; do
		printf '%s plain ' $size; "$T/payloadwork" "$n" $size
		rm -rf "$T/sync"
		printf '%s rec ' $size
		env LD_PRELOAD="$lib" DIFFTRACE_SYNC_DIR="$T/sync" "$T/payloadwork" "$n" $size
		rm -rf "$T/sync"
		printf '%s payload ' $size
		env LD_PRELOAD="$lib" DIFFTRACE_SYNC_DIR="$T/sync" DIFFTRACE_SYNC_PAYLOAD=4096 \
			"$T/payloadwork" "$n" $size
	done
done >"$T/runs"
awk -v n="$n" '
	{ k = $1 SUBSEP $2; if (!(k in m) || $3 < m[k]) m[k] = $3; if (!($1 in seen)) { seen[$1] = 1; o[++no] = $1 } }
	END {
	printf "MPI_Send to MPI_PROC_NULL, %d calls, ns per call (best of 5):\n", n
	printf "%8s %9s %10s %10s %10s %10s\n", "bytes", "plain", "recorded", "+payload", "digest", "GB/s"
	for (i = 1; i <= no; i++) {
		s = o[i]; d = m[s, "payload"] - m[s, "rec"]; b = s < 4096 ? s : 4096
		r = d > 0 ? sprintf("%.1f", b / d) : "-"
		printf "%8d %9.1f %10.1f %10.1f %10.1f %10s\n", s, m[s, "plain"], m[s, "rec"], m[s, "payload"], d, r
	}
}' "$T/runs"
