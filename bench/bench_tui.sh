#!/bin/sh
# bench_tui.sh [NTRACES [NEVENTS]]: how long each view of the interface takes to open (and draw
# its first screen) on a store of two runs of NTRACES traces of NEVENTS events (default 1,024 x
# 10^6) with their analyses cached, next to the CLI command that prints the same data.
set -eu
: "${abs_top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${abs_top_builddir:=$abs_top_srcdir}"
n=${1:-1024}
ev=${2:-1000000}
DT="$abs_top_builddir/difftrace"
T=$(mktemp -d /tmp/dt-bench-tui.XXXXXX)
trap 'rm -rf "$T"' EXIT
export DIFFTRACE_DB="$T/s.db" DIFFTRACE_NO_PROGRESS=1
now() { date +%s.%N; }
t0=$(now)
"$abs_top_builddir/bench/bench_tui_store" "$DIFFTRACE_DB" "$n" "$ev"
t1=$(now)
"$DT" analyze normal faulty >/dev/null
t2=$(now)
awk -v n="$n" -v e="$ev" -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN {
	printf "store: 2 runs x %d traces x %d events (%.1f s to write, %.1f s to analyze)\n\n", n, e, b - a, c - b }'
cat > "$T/keys" <<'KEYS'
Enter q t q x q m q
: "rank normal faulty" Enter
Enter q
: "trace normal 0.0" Enter q
: "report normal:0.0 faulty:0.0" Enter q
: "filters" Enter q
Q
KEYS
DIFFTRACE_TUI_TIMING="$T/timing" "$DT" tui --script "$T/keys" --size 50x160
printf '%-14s %10s    %s\n' "view" "open+draw" "CLI equivalent (same data, whole command)"
cli() { s=$(now); "$@" > /dev/null; e=$(now); awk -v a="$s" -v b="$e" 'BEGIN { printf "%.1f ms", (b - a) * 1000 }'; }
while read -r name ms unit; do
	case $name in
	classes) peer="difftrace classes: $(cli "$DT" classes normal)" ;;
	lattice) peer="difftrace lattice: $(cli "$DT" lattice normal)" ;;
	jsm) peer="difftrace jsm: $(cli "$DT" jsm normal)" ;;
	rank) peer="difftrace rank: $(cli "$DT" rank --normal normal --faulty faulty)" ;;
	diff) peer="difftrace diff: $(cli "$DT" diff normal:0.0 faulty:0.0)" ;;
	trace) peer="difftrace nlr: $(cli "$DT" nlr normal 0.0)" ;;
	report) peer="difftrace report --trace 0.0: $(cli "$DT" report --normal normal --faulty faulty --trace 0.0)" ;;
	traces) peer="difftrace traces: $(cli "$DT" traces normal)" ;;
	runs) peer="difftrace runs: $(cli "$DT" runs)" ;;
	*) peer="-" ;;
	esac
	printf '%-14s %7s %s    %s\n' "$name" "$ms" "$unit" "$peer"
done < "$T/timing"
