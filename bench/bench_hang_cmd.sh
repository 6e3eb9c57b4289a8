#!/bin/sh
# bench_hang_cmd.sh [ROUNDS [RUNS]]: `difftrace hang` as a whole command, streamed, against the
# whole record loaded at once (`hang --whole`) (issue 25, item 2). tests/mk_sync_rec stuck 4
# ROUNDS (a ring of 4 processes with one tag and an MPI_Allreduce every 64th round, then each
# waits in MPI_Recv for the one before it: 75,000 rounds are 1.2 M sync events) is imported and
# kept as a directory; each side runs RUNS times in turn, output to /dev/null: `hang RUN`,
# `hang DIR` (the recording not imported: it is imported into a private store first) and
# `hang --whole RUN`; and against a normal run, tests/mk_sync_rec steady 4 ROUNDS (the same
# ring without the last receives): `hang --normal N RUN` and `hang --whole --normal N RUN`.
# BEFORE=PROGRAM adds another difftrace build's `hang RUN`, `hang DIR` and `hang --normal N RUN`.
# Figures: the median of the elapsed time, of the CPU time (user + system) and of the peak
# resident memory, by /usr/bin/time, with the 1-minute load average before each run.
set -eu
: "${abs_top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${abs_top_builddir:=$abs_top_srcdir}"
rounds=${1:-75000}
runs=${2:-5}
[ -x /usr/bin/time ] || { echo "bench_hang_cmd: /usr/bin/time not installed (Debian: time)"; exit 0; }
DT="$abs_top_builddir/difftrace"
T=$(mktemp -d /tmp/dt-bench-hangcmd.XXXXXX)
trap 'rm -rf "$T"' EXIT
export DIFFTRACE_DB="$T/store.db" DIFFTRACE_NO_PROGRESS=1
"$abs_top_builddir/tests/mk_sync_rec" "$T/rec" stuck 4 "$rounds"
n=$("$DT" import --run r "$T/rec" 2>&1 | sed -n 's/.* \([0-9,]*\) events.*/\1 events/p')
"$abs_top_builddir/tests/mk_sync_rec" "$T/norm" steady 4 "$rounds"
"$DT" import --run n "$T/norm" >/dev/null 2>&1
: >"$T/all"
one() {
	label=$1
	shift
	load=$(cut -d' ' -f1 /proc/loadavg)
	/usr/bin/time -f '%e %U %S %M' -o "$T/t" "$@" >/dev/null 2>"$T/err" ||
		{ cat "$T/err" >&2; echo "bench_hang_cmd: $label failed"; exit 1; }
	echo "$label|$(cat "$T/t")|$load" >>"$T/all"
}
i=0
while [ $i -lt "$runs" ]; do
	one "difftrace hang RUN" "$DT" hang r
	one "difftrace hang DIR" "$DT" hang "$T/rec"
	one "difftrace hang --whole RUN" "$DT" hang --whole r
	[ -z "${BEFORE:-}" ] || one "difftrace hang RUN (BEFORE)" "$BEFORE" hang r
	[ -z "${BEFORE:-}" ] || one "difftrace hang DIR (BEFORE)" "$BEFORE" hang "$T/rec"
	one "difftrace hang --normal N RUN" "$DT" hang --normal n r
	one "difftrace hang --whole --normal N RUN" "$DT" hang --whole --normal n r
	[ -z "${BEFORE:-}" ] || one "difftrace hang --normal N RUN (BEFORE)" "$BEFORE" hang --normal n r
	i=$((i + 1))
done
echo "bench_hang_cmd: stuck 4 $rounds ($n), median of $runs runs, whole commands"
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
		printf "%-40s %8s %8s %10s %6s\n", "", "wall s", "CPU s", "peak MB", "load"
		for (i = 1; i <= nk; i++) {
			k = order[i]
			printf "%-40s %8.2f %8.2f %10.1f %6.1f\n", k, med(W[k]), med(C[k]), med(M[k]) / 1024, med(L[k])
		}
	}' "$T/all"
