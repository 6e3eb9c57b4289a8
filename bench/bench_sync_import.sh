#!/bin/sh
# bench_sync_import.sh [PROCS [ROUNDS [RUNS]]]: `difftrace import` of a sync record as a whole
# command (issue 25, item 1: 10 M sync events a second of CPU). tests/mk_sync_rec ring PROCS
# ROUNDS (16 x 50,000: 4,800,032 sync events, 440 MB of .dts files) is imported RUNS times
# (3 by default) into a new store each time, after a warm-up; BEFORE=PROGRAM adds another
# difftrace build, run in turn with this one (A B A B ...), and checks that both write the same
# sync chunks. Figures: the median of the CPU time (user + system), of the elapsed time and of
# the peak resident memory, by /usr/bin/time, with the 1-minute load average before each run,
# and the sync events a second of CPU.
set -eu
: "${abs_top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${abs_top_builddir:=$abs_top_srcdir}"
procs=${1:-16}
rounds=${2:-50000}
runs=${3:-3}
[ -x /usr/bin/time ] || { echo "bench_sync_import: /usr/bin/time not installed (Debian: time)"; exit 0; }
DT="$abs_top_builddir/difftrace"
T=$(mktemp -d /tmp/dt-bench-syncimp.XXXXXX)
trap 'rm -rf "$T"' EXIT
export DIFFTRACE_NO_PROGRESS=1
"$abs_top_builddir/tests/mk_sync_rec" "$T/rec" ring "$procs" "$rounds"
: >"$T/all"
one() { # LABEL PROGRAM [count]
	rm -f "$T/s.db" "$T/s.db-wal" "$T/s.db-shm"
	load=$(cut -d' ' -f1 /proc/loadavg)
	/usr/bin/time -f '%e %U %S %M' -o "$T/t" "$2" -d "$T/s.db" import -q --run r "$T/rec" \
		>/dev/null 2>"$T/err" || { cat "$T/err" >&2; echo "bench_sync_import: $1 failed"; exit 1; }
	[ "${3:-}" != count ] || echo "$1|$(cat "$T/t")|$load" >>"$T/all"
}
chunks() {
	sqlite3 "$T/s.db" "SELECT hex(sha3_query('SELECT trace_id, seq, first, n, codec, data
		FROM sync_chunks ORDER BY trace_id, seq'))"
}
one "difftrace import" "$DT"
n=$(sqlite3 "$T/s.db" "SELECT sum(n) FROM sync_chunks")
[ -z "${BEFORE:-}" ] || {
	mine=$(chunks)
	one "difftrace import (BEFORE)" "$BEFORE"
	[ "$(chunks)" = "$mine" ] || { echo "bench_sync_import: BEFORE wrote other sync chunks"; exit 1; }
}
i=0
while [ $i -lt "$runs" ]; do
	[ -z "${BEFORE:-}" ] || one "difftrace import (BEFORE)" "$BEFORE" count
	one "difftrace import" "$DT" count
	i=$((i + 1))
done
echo "bench_sync_import: $n sync events (ring $procs $rounds), median of $runs runs after a warm-up, whole commands"
awk -F'|' -v n="$n" '
	function med(s,   k, v, i, j, t) {
		k = split(s, v, " ")
		for (i = 2; i <= k; i++)
			for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
		return v[int((k + 1) / 2)]
	}
	{ split($2, f, " "); k = $1
	  if (!(k in seen)) { seen[k] = 1; order[++nk] = k }
	  W[k] = W[k] " " f[1]; C[k] = C[k] " " (f[2] + f[3]); M[k] = M[k] " " f[4]; L[k] = L[k] " " $3 }
	END {
		printf "%-28s %8s %8s %14s %10s %6s\n", "", "CPU s", "wall s", "M events/s CPU", "peak MB", "load"
		for (i = 1; i <= nk; i++) {
			k = order[i]
			c = med(C[k])
			r = c > 0 ? sprintf("%.1f", n / c / 1e6) : "-"
			printf "%-28s %8.2f %8.2f %14s %10.1f %6.1f\n", k, c, med(W[k]), r, med(M[k]) / 1024, med(L[k])
		}
	}' "$T/all"
