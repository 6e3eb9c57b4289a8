#!/bin/sh
# demo.sh [--no-tui]: installs what difftrace needs, builds it, and runs it on the ILCS example
# (examples/ilcs.c): builds the example, records a normal run and a faulty run (4 processes x
# 3 threads, oversubscribed; in the faulty one worker 1 of process 2 skips critical section 1,
# 20 times), imports both, analyzes them and prints the ranking of the traces; at a
# terminal it ends in the interface on that ranking, with the faulty trace 2.1 on top.
# --no-tui (or no terminal, or CI set): prints the ranking and the diff of the top trace instead.
# Without mpicc/mpirun/uftrace it falls back to the traces bundled in examples/traces.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
tui=1
for a in "$@"; do
	case $a in
	--no-tui) tui=0 ;;
	-h | --help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "demo.sh: unknown option $a (--no-tui)" >&2; exit 2 ;;
	esac
done
[ -t 0 ] && [ -t 1 ] && [ -z "${CI:-}" ] || tui=0
sh "$top/scripts/deps.sh" demo
sh "$top/scripts/build.sh" "$top/build"
dt="$top/build/difftrace"
export DIFFTRACE_DB="$top/build/demo.db"
rm -f "$DIFFTRACE_DB" "$DIFFTRACE_DB-wal" "$DIFFTRACE_DB-shm"
# the demo ranks with the defaults: the OpenMP and MPI calls, MPI arguments in the attributes
# (ACCURACY.md measures them against the other settings)
bug="crit1-one-thread --proc 2 --thread 1 --iter 3"

if command -v mpicc >/dev/null && command -v mpirun >/dev/null && command -v uftrace >/dev/null; then
	export OMP_NUM_THREADS=3
	flags="--oversubscribe -np 4"
	if [ "$(id -u)" = 0 ]; then
		flags="$flags --allow-run-as-root"
		export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	fi
	demo="$top/build/demo"
	rm -rf "$demo"
	mkdir -p "$demo"
	echo
	echo "== mpicc -pg -fopenmp -O1 -o build/demo/ilcs examples/ilcs.c -lm"
	mpicc -pg -fopenmp -O1 -o "$demo/ilcs" "$top/examples/ilcs.c" -lm
	for run in normal faulty; do
		args=
		[ $run = faulty ] && args="--bug $bug"
		echo
		echo "== OMP_NUM_THREADS=3 mpirun $flags difftrace-record --timeout 30 -o build/demo/$run -- ./ilcs $args"
		# shellcheck disable=SC2086
		(cd "$demo" && mpirun $flags "$top/build/difftrace-record" --timeout 30 -o "$demo/$run" \
			-- "$demo/ilcs" $args </dev/null 2>"$demo/$run.err") ||
			{ cat "$demo/$run.err" >&2; echo "demo.sh: recording the $run run failed" >&2; exit 1; }
		"$dt" import --run "$run" --label "ilcs${args:+ $args}" "$demo/$run"
	done
	pt=2.1
else
	echo
	echo "== mpicc, mpirun or uftrace is missing: importing the traces bundled in examples/traces"
	for run in normal faulty; do
		"$dt" import --run "$run" --label "bundled example" "$top/examples/traces/$run"
	done
	pt=1.1
fi
echo
echo "== difftrace runs"
"$dt" runs
echo
echo "== difftrace analyze normal faulty"
"$dt" analyze normal faulty
echo
echo "== difftrace rank --normal normal --faulty faulty --top 5"
"$dt" rank --normal normal --faulty faulty --top 5 | tee "$top/build/demo.rank"
first=$(awk '/^most changed traces/ { on = 1; next } on && $1 == 1 { print $2; exit }' "$top/build/demo.rank")
[ -n "$first" ] && pt=$first
if [ $tui = 0 ]; then
	echo
	echo "== difftrace diff --expand normal:$pt faulty:$pt"
	"$dt" diff --expand -W 100 "normal:$pt" "faulty:$pt"
fi
echo
echo "Next: '$dt --help', 'man $top/man/difftrace.1'; the store is $DIFFTRACE_DB."
echo "To run difftrace and difftrace-record by name, as the README's tour does:"
echo "  export PATH=\"$top/build:\$PATH\" DIFFTRACE_DB=\"$DIFFTRACE_DB\""
if [ $tui = 0 ]; then
	echo "(not at a terminal, or --no-tui: the interface was not opened; '$dt tui' opens it)"
fi
# At a terminal, end in the interface on the ranking of the two runs (q goes back, ? helps).
if [ $tui = 1 ]; then
	echo "Opening the interface on the ranking (press ? for help, Q to quit)..."
	sleep 1
	exec "$dt" tui --normal normal --faulty faulty
fi
