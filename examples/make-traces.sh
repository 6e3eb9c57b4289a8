#!/bin/sh
# make-traces.sh: records the bundled example traces (examples/traces/normal and faulty) from
# mpi_omp_toy.c: 2 MPI ranks x 2 OpenMP threads, 3 iterations; in the faulty run rank 1 skips
# its critical section. Needs mpicc, mpirun and uftrace. Only what the importer reads is kept
# (no perf-cpu*.dat, no shared-library symbol files, at most 12 DLOP lines).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d /tmp/dt-examples.XXXXXX)
trap 'rm -rf "$work"' EXIT
mpicc -pg -O0 -fopenmp -o "$work/toy" "$here/mpi_omp_toy.c"
sed -e 's|@VERSION[@]|example|g' "$top/src/difftrace-record.sh" > "$work/record"
chmod +x "$work/record"
cd "$work"
mpirun -np 2 --oversubscribe "$work/record" -o normal -- ./toy 3 >/dev/null
mpirun -np 2 --oversubscribe "$work/record" -o faulty -- ./toy 3 1 >/dev/null
for run in normal faulty; do
	for r in "$run"/rank-*; do
		dst="$here/traces/$r"
		rm -rf "$dst"
		mkdir -p "$dst"
		cp "$r/info" "$r/default.opts" "$r"/sid-*.map "$dst/"
		awk '/^DLOP/ { if (++n > 12) next } { print }' "$r/task.txt" > "$dst/task.txt"
		for t in $(sed -n 's/^taskinfo:tids=//p' "$r/info" | tr , ' '); do cp "$r/$t.dat" "$dst/"; done
		cp "$r/toy.sym" "$dst/"
	done
done
du -sh "$here/traces"
