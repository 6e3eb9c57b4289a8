#!/bin/sh
# demo.sh: installs what difftrace needs, builds it, and runs it on the bundled example:
# two runs of a small MPI + OpenMP program, imported into a store and summarised.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
sh "$top/scripts/deps.sh" demo
sh "$top/scripts/build.sh" "$top/build"
dt="$top/build/difftrace"
export DIFFTRACE_DB="$top/build/demo.db"
rm -f "$DIFFTRACE_DB" "$DIFFTRACE_DB-wal" "$DIFFTRACE_DB-shm"
echo
echo "== importing the bundled example into $DIFFTRACE_DB"
for run in normal faulty; do
	"$dt" import --run "$run" --label "bundled example" "$top/examples/traces/$run"
done
echo
echo "== difftrace runs"
"$dt" runs
echo
echo "== difftrace traces faulty"
"$dt" traces faulty
echo
echo "== difftrace show faulty 1.0 --count 25"
"$dt" show faulty 1.0 --count 25
echo
echo "Next: '$dt --help', 'man $top/man/difftrace.1'; the store is $DIFFTRACE_DB."
