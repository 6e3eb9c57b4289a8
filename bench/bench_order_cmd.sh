#!/bin/sh
# bench_order_cmd.sh [ROUNDS [RUNS]]: `difftrace order` as a whole command against `sort` of
# the same events (issue 25, item 2). tests/mk_sync_rec steady 4 ROUNDS (a ring of 4
# processes with one tag and an MPI_Allreduce every 64th round; 250,000 rounds: 4.0 M sync
# events) is imported; `difftrace sync --format csv` writes its events to a file, and each
# side runs RUNS times in turn, output to /dev/null: `difftrace order RUN` (the text format)
# and `sort -t, -k5,5n FILE` (by timestamp: the arrival order, no causality). BEFORE=PROGRAM
# adds another difftrace build's `order` on the same store. Figures: the median of the
# elapsed time, of the CPU time (user + system) and of the peak resident memory, by
# /usr/bin/time, with the 1-minute load average before the runs.
set -eu
: "${abs_top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${abs_top_builddir:=$abs_top_srcdir}"
rounds=${1:-250000}
runs=${2:-5}
[ -x /usr/bin/time ] || { echo "bench_order_cmd: /usr/bin/time not installed (Debian: time)"; exit 0; }
DT="$abs_top_builddir/difftrace"
T=$(mktemp -d /tmp/dt-bench-ordercmd.XXXXXX)
trap 'rm -rf "$T"' EXIT
export DIFFTRACE_DB="$T/store.db" DIFFTRACE_NO_PROGRESS=1
"$abs_top_builddir/tests/mk_sync_rec" "$T/rec" steady 4 "$rounds"
"$DT" import -q --run r "$T/rec"
rm -rf "$T/rec"
"$DT" sync --format csv r >"$T/sync.csv"
n=$(($(wc -l <"$T/sync.csv") - 1))
: >"$T/all"
one() {
	label=$1
	shift
	load=$(cut -d' ' -f1 /proc/loadavg)
	/usr/bin/time -f '%e %U %S %M' -o "$T/t" "$@" >/dev/null 2>"$T/err" ||
		{ cat "$T/err" >&2; echo "bench_order_cmd: $label failed"; exit 1; }
	echo "$label|$(cat "$T/t")|$load" >>"$T/all"
}
i=0
while [ $i -lt "$runs" ]; do
	one "difftrace order" "$DT" order r
	one "sort -t, -k5,5n" sort -t, -k5,5n "$T/sync.csv"
	[ -z "${BEFORE:-}" ] || one "difftrace order (BEFORE)" "$BEFORE" order r
	i=$((i + 1))
done
echo "bench_order_cmd: $n sync events (steady 4 $rounds), median of $runs runs, whole commands"
awk -F'|' '
	function med(s,   n, v, i, j, t) {
		n = split(s, v, " ")
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
		return v[int((n + 1) / 2)]
	}
	{ split($2, f, " "); k = $1
	  if (!(k in seen)) { seen[k] = 1; order[++nk] = k }
	  W[k] = W[k] " " f[1]; C[k] = C[k] " " (f[2] + f[3]); M[k] = M[k] " " f[4]; L[k] = L[k] " " $3 }
	END {
		printf "%-28s %8s %8s %10s %6s\n", "", "wall s", "CPU s", "peak MB", "load"
		for (i = 1; i <= nk; i++) {
			k = order[i]
			printf "%-28s %8.2f %8.2f %10.1f %6.1f\n", k, med(W[k]), med(C[k]), med(M[k]) / 1024, med(L[k])
		}
	}' "$T/all"
