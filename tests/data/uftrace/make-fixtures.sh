#!/bin/sh
# make-fixtures.sh: re-records the uftrace fixtures of this directory (see README).
# Needs gcc, uftrace, mpicc and mpirun. Run from anywhere: sh tests/data/uftrace/make-fixtures.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
w=/tmp/dt-fixtures
rm -rf "$w"
mkdir -p "$w"
cd "$w"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# strip SRC DST: keep what the importer reads: info, task.txt (at most 12 DLOP lines, enough to
# show their repetition), the maps, the .dat of each listed thread, and the .sym/.dbg files of
# the recorded executables (library calls resolve through the executable's PLT entries).
strip() {
	rm -rf "$2"
	mkdir -p "$2"
	cp "$1/info" "$1/default.opts" "$1"/sid-*.map "$2/"
	awk '/^DLOP/ { if (++n > 12) next } { print }' "$1/task.txt" >"$2/task.txt"
	for t in $(strings "$1/info" | sed -n 's/^taskinfo:tids=//p' | tr ',' ' '); do
		cp "$1/$t.dat" "$2/"
	done
	for exe in $(sed -n 's/^SESS .*exename="\(.*\)"$/\1/p' "$1/task.txt" | sort -u); do
		b=$(basename "$exe")
		cp "$1/$b.sym" "$2/"
		[ ! -f "$1/$b.dbg" ] || cp "$1/$b.dbg" "$2/"
	done
}

gcc -pg -O0 -o nest "$here/src/nest.c"
uftrace record -d nest.data ./nest
strip nest.data "$here/nest"

gcc -pg -O0 -g -o args "$here/src/args.c"
uftrace record -d args.data -A 'f1@arg1/i32,arg2/s,arg3/c,arg4/i16,arg5' \
	-A 'f2@fparg1/32,fparg2,arg1/i32' -A 'f3@arg2/s,arg1/s' -A 'f4@arg1/u8' \
	-A 'printf@arg1/s' -R 'f1@retval/x32' -R 'f3@retval/s' -R 'f4@retval/u8' ./args
strip args.data "$here/args"
uftrace record -d autoargs.data -a ./args
strip autoargs.data "$here/autoargs"

gcc -pg -O0 -fopenmp -o omp "$here/src/omp.c"
uftrace record -d omp.data --no-pltbind ./omp
strip omp.data "$here/omp"

mpicc -pg -O0 -fopenmp -o toy "$top/examples/mpi_omp_toy.c"
sed 's|@VERSION@|fixture|' "$top/src/difftrace-record.sh" >record
chmod +x record
mpirun -np 2 --oversubscribe ./record -o mpi -- ./toy 2
rm -rf "$here/mpi"
strip mpi/rank-0 "$here/mpi/rank-0"
strip mpi/rank-1 "$here/mpi/rank-1"
uftrace record --force --no-event -d all.data mpirun -np 2 --oversubscribe ./toy 1
strip all.data "$here/mpirun"
du -sh "$here"
