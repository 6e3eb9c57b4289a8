#!/bin/sh
# bench_scale.sh [-n TRACES] [-e EVENTS] [-d DISTINCT] [-s] [-k STORE]
# bench_scale.sh -t STORE: where difftrace stands against the scale
# goals of issue 13 (131,072 traces of 10^4 events, a few hundred distinct behaviours: import
# both runs, analyze and rank in under 2 minutes in all, under 4 GB peak; rank with the analysis
# cached under 1 s; every view of the interface opens in under 100 ms; the store under 1.5x the
# size of the same text traces compressed by zstd -3).
#
# Generates two runs (normal, and faulty with one trace in 997 calling MPI_Probe once more) of
# TRACES text traces (TRACES/4 processes x 4 threads, default 2048) of about EVENTS lines each
# (calls and returns, default 10000) drawn from DISTINCT behaviours (default 300), with
# bench/gen_scale (-s: each step's MPI calls in a random order, which makes every trace's NLR,
# hence its attribute set, its own: the worst case for the classes of identical traces); times as whole commands with /usr/bin/time (elapsed, CPU, peak RSS)
# `difftrace import` of each run, `analyze normal faulty`, `rank` (twice: the second with
# everything cached); times each view of the interface opening, headless (`tui --script`,
# DIFFTRACE_TUI_TIMING, as bench_tui.sh does); and compares the store's size with
# `tar | zstd -3` of the same text traces (skipped with a message if zstd is missing).
# The text traces are deleted as soon as they are imported and compressed; free space is
# checked first. Needs /usr/bin/time.
# -k STORE keeps the store at STORE (a new file) instead of deleting it; -t STORE times only
# `rank` (twice) and the views on such a kept store, with whatever difftrace is built (so that
# two builds compare on the same store without generating and importing it again; the first
# rank may compute the ranking that the second reads back, see rankcache.h).
set -eu
: "${abs_top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${abs_top_builddir:=$abs_top_srcdir}"
n=2048
ev=10000
distinct=300
shuffle=0
keep=
only=
while getopts n:e:d:sk:t: o; do
	case $o in
	n) n=$OPTARG ;;
	e) ev=$OPTARG ;;
	d) distinct=$OPTARG ;;
	s) shuffle=1 ;;
	k) keep=$OPTARG ;;
	t) only=$OPTARG ;;
	*) echo "usage: $0 [-n TRACES] [-e EVENTS] [-d DISTINCT] [-s] [-k STORE] | -t STORE" >&2; exit 2 ;;
	esac
done
DT="$abs_top_builddir/difftrace"
GEN="$abs_top_builddir/bench/gen_scale"
[ -x "$DT" ] || { echo "bench_scale: $DT not built" >&2; exit 1; }
[ -n "$only" ] || [ -x "$GEN" ] || { echo "bench_scale: $GEN not built (make bench/gen_scale)" >&2; exit 1; }
[ -z "$keep" ] || [ ! -e "$keep" ] || { echo "bench_scale: $keep exists" >&2; exit 1; }
[ -z "$only" ] || [ -f "$only" ] || { echo "bench_scale: no store $only" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "bench_scale: /usr/bin/time needed (apt-get install time)" >&2; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/dt-bench-scale.XXXXXX")
trap 'rm -rf "$T"' EXIT
export DIFFTRACE_DB="$T/s.db" DIFFTRACE_NO_PROGRESS=1 LC_ALL=C
[ -z "$only" ] || DIFFTRACE_DB=$only

# the views, open and draw, headless (as bench_tui.sh)
views() {
	cat >"$T/keys" <<'KEYS'
Enter q t q x q m q
: "rank normal faulty" Enter
Enter q
: "trace normal 0.0" Enter q
: "filters" Enter q
Q
KEYS
	DIFFTRACE_TUI_TIMING="$T/timing" "$DT" tui --script "$T/keys" --size 50x160 >/dev/null
	echo
	echo "interface view, open+draw (goal: under 100 ms)"
	while read -r name ms unit; do
		printf '%-14s %9s %s\n' "$name" "$ms" "$unit"
	done <"$T/timing"
	echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
}

now() { date +%s.%N; }
: >"$T/fig"
t() { # t LABEL CMD...: one whole command, its figures appended to $T/fig and printed
	label=$1
	shift
	if /usr/bin/time -f "%e %U %S %M" -o "$T/time" "$@" >"$T/cmd.out" 2>"$T/cmd.err"; then
		read -r el us sy rss <"$T/time"
		echo "$(echo "$label" | tr ' ' _) $el $us $sy $rss" >>"$T/fig"
		awk -v l="$label" -v e="$el" -v u="$us" -v s="$sy" -v m="$rss" 'BEGIN {
			printf "%-22s %9.2f s %9.2f s %9.0f MB\n", l, e, u + s, m / 1024 }'
	else
		echo "bench_scale: $label failed: $(grep -v '^Command' "$T/cmd.err" | head -1)" >&2
		exit 1
	fi
}

if [ -n "$only" ]; then
	echo "bench_scale: rank and the views on $only; $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"
	printf "%-22s %11s %11s %12s\n" "whole command" elapsed CPU "peak RSS"
	t "rank" "$DT" rank --normal normal --faulty faulty
	t "rank (cached)" "$DT" rank --normal normal --faulty faulty
	views
	exit 0
fi

# Two runs of text (about 9.5 bytes a line) and the store (well under the text): ask for 2.5x
# one run's text, and say so plainly if it is not there.
need=$(awk -v n="$n" -v e="$ev" 'BEGIN { printf "%.0f", n * e * 9.5 * 2.5 / 1048576 }')
free=$(df -Pm "$T" | awk 'NR == 2 { print $4 }')
if [ "$free" -lt "$need" ]; then
	echo "bench_scale: $n traces x $ev events need about $need MB free in $T, only $free MB there (set TMPDIR)" >&2
	exit 1
fi

echo "bench_scale: 2 runs x $n traces x $ev events, $distinct behaviours$([ $shuffle = 0 ] || echo ', MPI calls shuffled'); $(nproc) cores (import: default --jobs, $(nproc) decoding threads); load average $(cut -d' ' -f1-3 /proc/loadavg)"
t0=$(now)
"$GEN" "$T/normal" "$n" "$ev" "$distinct" 0 "$shuffle"
"$GEN" "$T/faulty" "$n" "$ev" "$distinct" 1 "$shuffle"
t1=$(now)
text=$(du -sbc "$T/normal" "$T/faulty" | awk 'END { print $1 }')
lines=$(cat "$T"/normal/0.0.txt | wc -l)
awk -v a="$t0" -v b="$t1" -v s="$text" -v l="$lines" 'BEGIN {
	printf "text traces: %.1f MB (trace 0.0: %d lines), written in %.1f s\n", s / 1048576, l, b - a }'
if command -v zstd >/dev/null; then
	z0=$(now)
	zs=$(tar -C "$T" -cf - normal faulty | zstd -3 -q -c | wc -c)
	z1=$(now)
	awk -v s="$zs" -v a="$z0" -v b="$z1" 'BEGIN { printf "tar | zstd -3: %.1f MB in %.1f s\n", s / 1048576, b - a }'
else
	zs=
	echo "zstd not found: the store is not compared with zstd (apt-get install zstd)"
fi

echo
printf "%-22s %11s %11s %12s\n" "whole command" elapsed CPU "peak RSS"
t "import normal" "$DT" import -q --run normal "$T/normal"
rm -rf "$T/normal"
t "import faulty" "$DT" import -q --run faulty "$T/faulty"
rm -rf "$T/faulty"
t "analyze normal faulty" "$DT" analyze normal faulty
t "rank" "$DT" rank --normal normal --faulty faulty
t "rank (cached)" "$DT" rank --normal normal --faulty faulty
echo "classes: $("$DT" classes normal | sed -n 's/.*: \([0-9]*\) classes.*/\1/p') in normal, $("$DT" classes faulty | sed -n 's/.*: \([0-9]*\) classes.*/\1/p') in faulty"
awk '$1 != "rank_(cached)" { e += $2; c += $3 + $4; if ($5 > m) m = $5 }
	END { printf "%-22s %9.2f s %9.2f s %9.0f MB   (import both, analyze, rank; goal: 120 s, 4096 MB)\n",
		"all", e, c, m / 1024 }' "$T/fig"

store=$(wc -c <"$DIFFTRACE_DB")
if [ -n "$zs" ]; then
	awk -v s="$store" -v z="$zs" 'BEGIN {
		printf "store: %.1f MB, %.2fx tar | zstd -3 (goal: under 1.5x)\n", s / 1048576, s / z }'
else
	awk -v s="$store" 'BEGIN { printf "store: %.1f MB\n", s / 1048576 }'
fi

if [ -n "$keep" ]; then
	cp "$DIFFTRACE_DB" "$keep"
	echo "store kept: $keep"
fi
views
