#!/bin/sh
# build.sh [TARGET...]: builds libFuzzer binaries of the fuzz targets into fuzz/bin with clang,
# AddressSanitizer and UndefinedBehaviorSanitizer. Run one with fuzz/run.sh.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$top/fuzz/bin"
lib="err util esc names flags memsink lza3 chunk_codec import import_text ptdup import_parlot import_uftrace uftrace_data uftrace_info uftrace_syms uftrace_args import_otf2 import_sync sync_file import_sample dwarf_vars srcmap rules filter check"
srcs=""
for m in $lib; do srcs="$srcs $(ls "$top"/src/*/"$m.c")"; done
targets=${*:-"lza3 text parlot uftrace esc sync chunk sample rules"}
for t in $targets; do
	clang -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		-DFUZZ_FIXTURE="\"$top/tests/data/uftrace/args\"" -DPKGDATADIR="\"$top\"" \
		-I"$top/src" "$top/fuzz/fuzz_$t.c" $srcs -o "$top/fuzz/bin/fuzz_$t" \
		-lzstd $(pkg-config --libs libdw libpcre2-8)
	echo "built fuzz/bin/fuzz_$t"
done
