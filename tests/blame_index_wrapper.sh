#!/bin/sh
# blame-index on the compile commands users have: a compile_commands.json (as bear -- make or
# CMake write it) whose commands name the MPI compiler wrappers, mpicc and mpif90 (and
# MPICH's mpicc.mpich where installed). Each wrapper is asked for its flags (Open MPI
# --showme:compile, MPICH -show) and says which command answered; the C file parses with
# mpi.h found (no error), and the Fortran file is passed over with a note, not an error. (libclang
# alone, which does not run the wrapper, missed mpi.h and every MPI constant.)
. "${abs_top_srcdir:-..}/tests/lib.sh"
need built mpi
"$DT" blame-index x.c 2>&1 | grep -q 'built without libclang' && skip "difftrace built without libclang"
command -v mpif90 >/dev/null || skip "mpif90 not found (apt-get install libopenmpi-dev gfortran)"
cd "$T" || fail "cd $T"
cp "$abs_top_srcdir/examples/blame/quad_mpi.c" "$T/quad.c"
printf 'program p\nuse mpi\ninteger ierr\ncall MPI_Init(ierr)\ncall MPI_Finalize(ierr)\nend program\n' >"$T/p.f90"
mkdir -p "$T/build"
cat >"$T/build/compile_commands.json" <<JSON
[
 { "directory": "$T", "command": "mpicc -g -O2 -c quad.c -o quad.o", "file": "quad.c" },
 { "directory": "$T", "arguments": ["mpif90", "-g", "-O2", "-c", "p.f90", "-o", "p.o"], "file": "p.f90" }
]
JSON
expect_status 0 "$DT" blame-index -p "$T/build"
grep -q "mpi.h" "$T/err" && fail "mpi.h not found: $(cat "$T/err")"
grep -q "^the MPI compiler wrapper mpicc, asked with 'mpicc \(--showme:compile\|-show\)', adds: .*-I" "$T/out" ||
	fail "which wrapper was asked is not said: $(cat "$T/out")"
grep -q 'indexed 1 file, 4 functions, .*; 1 Fortran file passed over$' "$T/out" || fail "summary: $(cat "$T/out")"
expect_err "p.f90: Fortran, not indexed (blame-index reads C and C++ sources)"
expect_status 0 "$DT" blame-index --list
grep -q '^(all runs)  *[0-9]*  *4  *0  .*quad.c$' "$T/out" || fail "quad.c indexed with errors: $(cat "$T/out")"
expect_status 0 "$DT" blame-index --show main
grep -q 'MPI_Reduce' "$T/out" || fail "main's MPI calls are not indexed: $(cat "$T/out")"

# MPICH's wrapper answers -show with the whole command: its -I flags are kept
if command -v mpicc.mpich >/dev/null; then
	cat >"$T/build/compile_commands.json" <<JSON
[ { "directory": "$T", "arguments": ["mpicc.mpich", "-g", "-c", "quad.c"], "file": "quad.c" } ]
JSON
	expect_status 0 "$DT" blame-index -p "$T/build"
	grep -q "mpi.h" "$T/err" && fail "MPICH: mpi.h not found: $(cat "$T/err")"
	grep -q "^the MPI compiler wrapper mpicc.mpich, asked with 'mpicc.mpich -show', adds: -I" "$T/out" ||
		fail "MPICH's wrapper: $(cat "$T/out")"
fi

# a wrapper that is not there: said, and the file parsed without it
cat >"$T/build/compile_commands.json" <<JSON
[ { "directory": "$T", "command": "mpicc-nowhere -g -c quad.c", "file": "quad.c" } ]
JSON
expect_status 1 "$DT" blame-index -p "$T/build"
expect_err "the MPI compiler wrapper mpicc-nowhere is not in PATH"
pass
