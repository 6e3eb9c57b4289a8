#!/bin/sh
# bench_uftrace.sh [STEPS]: records bench/ufwork.c with uftrace (STEPS x 3000 calls, so
# 6000 x STEPS events), then times `difftrace import` of that recording next to
# `uftrace dump` of the same recording to /dev/null, and prints M events/s for both, their
# ratio, and the bytes the store keeps per event.
set -eu
: "${abs_top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${abs_top_builddir:=$abs_top_srcdir}"
steps=${1:-${BENCH_UFTRACE_STEPS:-1500}}
command -v uftrace >/dev/null || { echo "bench_uftrace: uftrace not installed"; exit 0; }
T=$(mktemp -d /tmp/dt-bench-uftrace.XXXXXX)
trap 'rm -rf "$T"' EXIT
gcc -O1 -pg -o "$T/ufwork" "$abs_top_srcdir/bench/ufwork.c"
uftrace record --no-event -d "$T/uftrace.data" "$T/ufwork" "$steps" >/dev/null
now() { date +%s.%N; }
t0=$(now)
DIFFTRACE_NO_PROGRESS=1 "$abs_top_builddir/difftrace" -d "$T/s.db" import -q --run b "$T/uftrace.data"
t1=$(now)
uftrace dump -d "$T/uftrace.data" > /dev/null
t2=$(now)
events=$("$abs_top_builddir/difftrace" -d "$T/s.db" runs --format csv | awk -F, 'NR == 2 { print $3 }')
bytes=$("$abs_top_builddir/difftrace" -d "$T/s.db" runs --format csv | awk -F, 'NR == 2 { print $4 }')
raw=$(cat "$T"/uftrace.data/*.dat | wc -c)
awk -v e="$events" -v a="$t0" -v b="$t1" -v c="$t2" -v by="$bytes" -v raw="$raw" 'BEGIN {
	di = e / (b - a) / 1e6; du = e / (c - b) / 1e6
	printf "uftrace recording: %d events, %.1f MB of .dat files\n", e, raw / 1e6
	printf "%-34s %10.2f M events/s\n", "difftrace import (uftrace)", di
	printf "%-34s %10.2f M events/s\n", "uftrace dump > /dev/null", du
	printf "%-34s %10.1fx\n", "difftrace import / uftrace dump", di / du
	printf "%-34s %10.3f bytes/event (timestamps included; .dat: %.1f)\n", "stored", by / e, raw / e
}'
