#!/bin/sh
# run.sh TARGET SECONDS: fuzzes one target, starting from its saved corpus; new interesting
# inputs go to fuzz/work/TARGET, crashes to fuzz/crashes/TARGET. Copy any crash into
# fuzz/corpus/TARGET once fixed, so `make check` keeps running it.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
t=$1
secs=${2:-600}
mkdir -p "$top/fuzz/work/$t" "$top/fuzz/crashes/$t"
[ -x "$top/fuzz/bin/fuzz_$t" ] || sh "$top/fuzz/build.sh" "$t"
cd "$top/fuzz/crashes/$t"
"$top/fuzz/bin/fuzz_$t" -max_total_time="$secs" -max_len=65536 -timeout=10 -rss_limit_mb=4096 \
	-print_final_stats=1 "$top/fuzz/work/$t" "$top/fuzz/corpus/$t"
