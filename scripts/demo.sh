#!/bin/sh
# demo.sh: installs what difftrace needs, builds it, and runs it on the bundled example:
# two recorded runs of a small MPI + OpenMP program (in the faulty one, rank 1's threads skip
# their critical section), imported into a store, analyzed and compared; at a terminal it ends
# in the interface on the ranking of the two runs.
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
echo "== difftrace show faulty 1.1"
"$dt" show faulty 1.1
echo
echo "== difftrace rank --normal normal --faulty faulty --filter ompall,mpi --top 4"
"$dt" rank --normal normal --faulty faulty --filter ompall,mpi --top 4
echo
echo "== difftrace diff --expand --filter ompall,mpi normal:1.1 faulty:1.1"
"$dt" diff --expand --filter ompall,mpi -W 100 normal:1.1 faulty:1.1
echo
echo "Next: '$dt --help', 'man $top/man/difftrace.1'; the store is $DIFFTRACE_DB."
# At a terminal, end in the interface on the ranking of the two runs (q goes back, ? helps).
if [ -t 0 ] && [ -t 1 ] && [ -z "${CI:-}" ]; then
	echo "Opening the interface on the ranking (press ? for help, Q to quit)..."
	sleep 1
	exec "$dt" tui --normal normal --faulty faulty --filter ompall,mpi
fi
