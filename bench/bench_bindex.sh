#!/bin/sh
# bench_bindex.sh [RUNS]: the speed (source lines per second, the main files' lines) and the
# peak memory of difftrace blame-index, the median of RUNS runs, on three inputs: the examples
# (examples/*.c, examples/blame/*.c, with mpicc's include flags), and difftrace's own src/
# through a compile_commands.json written here (the flags of its build). Each run indexes into
# a fresh store. Needs a build with libclang and /usr/bin/time.
set -eu
: "${abs_top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${abs_top_builddir:=$abs_top_srcdir}"
runs=${1:-3}
DT="$abs_top_builddir/difftrace"
[ -x /usr/bin/time ] || { echo "bench_bindex: /usr/bin/time not installed"; exit 0; }
T=$(mktemp -d /tmp/dt-bench-bindex.XXXXXX)
trap 'rm -rf "$T"' EXIT
if ! "$DT" -d "$T/probe.db" blame-index "$abs_top_srcdir/tests/blame/flow.c" >/dev/null 2>&1; then
	echo "bench_bindex: difftrace was built without libclang"
	exit 0
fi
mpiflags=""
command -v mpicc >/dev/null && mpiflags=$(mpicc --showme:compile)

# difftrace's sources as its build compiles them (config.h in the build folder)
defs='"-DPKGDATADIR=\"/usr/share/difftrace\"", "-DSRCDIR_FILTERS=\"f\"", "-DSRCDIR_RULES=\"r\"", "-DSRCDIR_BLAME=\"b\""'
printf '[\n' >"$T/compile_commands.json"
sep=""
for f in "$abs_top_srcdir"/src/*/*.c "$abs_top_srcdir"/tui/*.c; do
	case $f in */par/par_mpi.c | */record/*.c) continue ;; esac
	printf '%s{ "directory": "%s", "file": "%s", "arguments": ["cc", "-std=c11", "-D_GNU_SOURCE", "-I%s/src", "-I%s/tui", "-I%s", %s, "-c", "%s"] }\n' \
		"$sep" "$abs_top_builddir" "$f" "$abs_top_srcdir" "$abs_top_srcdir" \
		"$abs_top_builddir" "$defs" "$f" >>"$T/compile_commands.json"
	sep=","
done
printf ']\n' >>"$T/compile_commands.json"

# one NAME ARGS...: the median seconds and the peak RSS of blame-index ARGS over $runs runs
one() {
	name=$1
	shift
	: >"$T/times"
	i=0
	while [ $i -lt "$runs" ]; do
		rm -f "$T/store.db"
		/usr/bin/time -f '%e %M' -o "$T/time" "$DT" -d "$T/store.db" blame-index "$@" \
			>"$T/out" 2>"$T/err" || true
		tail -n 1 "$T/time" >>"$T/times"
		[ -s "$T/err" ] && sed 's/^/  /' "$T/err" | head -n 3
		i=$((i + 1))
	done
	lines=$(sed -n 's/.*functions, \([0-9]*\) lines.*/\1/p' "$T/out")
	funcs=$(sed -n 's/.*files*, \([0-9]*\) functions*.*/\1/p' "$T/out")
	sort -n "$T/times" | awk -v n="$name" -v l="$lines" -v f="$funcs" '
		{ s[NR] = $1; m[NR] = $2 }
		END {
			t = s[int((NR + 1) / 2)]; mx = 0
			for (i = 1; i <= NR; i++) if (m[i] > mx) mx = m[i]
			printf "%-28s %6d lines %5d functions %7.2f s %9.0f lines/s %7.1f MiB peak\n",
				n, l, f, t, (t > 0 ? l / t : 0), mx / 1024
		}'
}
# shellcheck disable=SC2086
one "examples/*.c" "$abs_top_srcdir"/examples/*.c -- $mpiflags -fopenmp
# shellcheck disable=SC2086
one "examples/blame/*.c" "$abs_top_srcdir"/examples/blame/*.c -- $mpiflags
one "difftrace src/ (compile db)" -p "$T"
