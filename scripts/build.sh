#!/bin/sh
# build.sh DIR [configure options...]: bootstraps if needed and builds difftrace in DIR
# (out of the source tree, so several builds can sit side by side).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
dir=$1
shift
[ -x "$top/configure" ] || (cd "$top" && autoreconf -fi >/dev/null 2>&1 || autoreconf -fi)
mkdir -p "$dir"
cd "$dir"
"$top/configure" -q "$@"
make -s -j"$(nproc 2>/dev/null || echo 2)"
