#!/bin/sh
# bench_show.sh [N]: how fast `difftrace show` prints to a pipe, both formats, on a synthetic
# irregular trace of N events (default 10^7; bench/gen_trace), imported as text. Each is a
# whole command, its output piped to `cat > /dev/null`; the figure is the best of 3 of its
# wall time and of its own CPU time (user + system, from /usr/bin/time). Next to it, the
# floor of any pipe reader: `cat` of the same trace's text (what --format text prints). With
# BEFORE=/path/to/another/difftrace, that build is timed too, on the same store.
set -eu
: "${abs_top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${abs_top_builddir:=$abs_top_srcdir}"
n=${1:-10000000}
DT="$abs_top_builddir/difftrace"
T=$(mktemp -d /tmp/dt-bench-show.XXXXXX)
trap 'rm -rf "$T"' EXIT
export DIFFTRACE_DB="$T/s.db" DIFFTRACE_NO_PROGRESS=1 LC_ALL=C
mkdir "$T/irr"
"$abs_top_builddir/bench/gen_trace" irregular "$n" > "$T/irr/0.0.txt"
"$DT" import -q --run irr "$T/irr"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
# best of 3: wall seconds and CPU seconds of CMD's first process, its output through a pipe
best() {
	bw=999999; bc=999999
	for _ in 1 2 3; do
		/usr/bin/time -f '%e %U %S' -o "$T/t" "$@" | cat > /dev/null
		read -r w u s < "$T/t"
		bw=$(awk -v a="$bw" -v b="$w" 'BEGIN { print (b < a) ? b : a }')
		bc=$(awk -v a="$bc" -v b="$u" -v c="$s" 'BEGIN { print (b + c < a) ? b + c : a }')
	done
	awk -v n="$n" -v w="$bw" -v c="$bc" -v what="$label" 'BEGIN {
		printf "%-40s %7.2f s wall %8.1f M events/s   %6.2f s CPU %8.1f M events/s\n",
			what, w, n / (w > 0 ? w : 0.001) / 1e6, c, n / (c > 0 ? c : 0.001) / 1e6 }'
}
echo "irregular trace, $n events, output piped to cat > /dev/null (best of 3):"
label="difftrace show (tree)"; best "$DT" show irr 0.0
label="difftrace show --format text"; best "$DT" show --format text irr 0.0
if [ -n "${BEFORE:-}" ]; then
	label="$BEFORE show (tree)"; best "$BEFORE" show irr 0.0
	label="$BEFORE show --format text"; best "$BEFORE" show --format text irr 0.0
fi
label="cat of the same text (floor)"; best cat "$T/irr/0.0.txt"
