#!/bin/sh
# The recorder under both MPI families (issue 21, item 2): Open MPI's handles are pointers,
# MPICH's integers, so the recorder libraries are built once per family configure found
# (libdifftrace-sync.so for mpicc's, libdifftrace-sync-mpich.so for mpicc.mpich's).
# difftrace-record preloads the set of the MPI the program loads; a library preloaded into a
# program of the other family refuses before main() with both libraries named, never a
# crashed program (under MPICH, every rank aborted with "Invalid communicator"); a family
# without libraries is refused by difftrace-record; difftrace import under MPICH's launcher
# runs difftrace-mpi-mpich.
. "${abs_top_srcdir:-.}/tests/lib.sh"

need built timeout
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=2
[ -n "${MPI_ABI:-}" ] && [ -n "${MPI2_ABI:-}" ] ||
	skip "configure found one MPI family only (apt-get install libopenmpi-dev openmpi-bin libmpich-dev mpich)"
B=$abs_top_builddir
# LeakSanitizer (the sanitizer build) reports the MPI library's own allocations in
# difftrace-mpi-mpich, as in tests/import_mpi.sh: not difftrace's
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
# the compiler and launcher of each family
if [ "$MPI_ABI" = openmpi ]; then
	OCC=$MPICC ORUN=$MPIRUN CCC=$MPICC2 CRUN=$MPIRUN2
else
	OCC=$MPICC2 ORUN=$MPIRUN2 CCC=$MPICC CRUN=$MPIRUN
fi
lib() { # KIND FAMILY: the library of that family
	if [ "$2" = "$MPI_ABI" ]; then echo "$B/libdifftrace-$1.so"; else echo "$B/libdifftrace-$1-$2.so"; fi
}
for f in "$(lib sync openmpi)" "$(lib sync mpich)" "$(lib inject mpich)" "$B/difftrace-mpi-$MPI2_ABI"; do
	[ -f "$f" ] || fail "$f not built"
done
cd "$T" || fail "cd $T"
"$OCC" -fopenmp -O1 -o "$T/app-ompi" "$abs_top_srcdir/tests/sync/hangs.c" >"$T/cc.log" 2>&1 ||
	{ cat "$T/cc.log" >&2; fail "$OCC failed"; }
"$CCC" -fopenmp -O1 -o "$T/app-mpich" "$abs_top_srcdir/tests/sync/hangs.c" >"$T/cc.log" 2>&1 ||
	{ cat "$T/cc.log" >&2; fail "$CCC failed"; }
orun() { timeout -k 5 60 "$ORUN" --oversubscribe -np 3 "$@" </dev/null; }
crun() { timeout -k 5 60 "$CRUN" -n 3 "$@" </dev/null; }

# difftrace-record chooses by the program's libmpi (and --mpi or DIFFTRACE_MPI_ABI say it)
expect_status 0 "$RECORD" -n -o "$T/d" -- "$T/app-mpich" ok
grep -q "LD_PRELOAD=$(lib sync mpich)" "$T/out" || fail "MPICH program: $(cat "$T/out")"
expect_status 0 "$RECORD" -n -o "$T/d" -- "$T/app-ompi" ok
grep -q "LD_PRELOAD=$(lib sync openmpi)" "$T/out" || fail "Open MPI program: $(cat "$T/out")"
expect_status 0 "$RECORD" -n --mpi mpich --inject 'send:call=1:count=+1' -o "$T/d" -- sh -c true
grep -q "LD_PRELOAD=$(lib inject mpich):$(lib sync mpich)" "$T/out" || fail "--mpi mpich: $(cat "$T/out")"
expect_status 0 env DIFFTRACE_MPI_ABI=mpich "$RECORD" -n -o "$T/d" -- "$T/app-ompi" ok
grep -q "LD_PRELOAD=$(lib sync mpich)" "$T/out" || fail "DIFFTRACE_MPI_ABI: $(cat "$T/out")"
expect_status 2 "$RECORD" --mpi lam -- "$T/app-ompi" ok
expect_err "difftrace-record: --mpi takes openmpi or mpich, not 'lam'"

# the MPICH program records (uftrace and the sync record) and imports, under mpiexec.mpich
crun "$RECORD" -o "$T/rec" -- "$T/app-mpich" ok >"$T/rec.log" 2>&1 ||
	{ cat "$T/rec.log" >&2; fail "recording the MPICH program failed"; }
grep -q 'Invalid communicator' "$T/rec.log" && fail "$(cat "$T/rec.log")"
expect_status 0 "$DT" import -r mpich "$T/rec"
expect_status 0 "$DT" sync mpich
grep -Eq '^2\.0 .*MPI_Allreduce +comm=2 count=1 type=MPI_INT op=MPI_SUM' "$T/out" ||
	fail "the sync record of the MPICH run: $(head -40 "$T/out")"
expect_status 0 "$DT" show mpich 0.0
# MPICH's handles (integers) named as Open MPI's (addresses of objects) are
grep -qF 'MPI_Allreduce(count=1, datatype=INT, op=SUM, comm=split#1 of WORLD);' "$T/out" ||
	fail "uftrace trace of the MPICH run: $(cat "$T/out")"
grep -qF 'MPI_Isend(count=1, datatype=INT, dest=1, tag=7, comm=WORLD);' "$T/out" ||
	fail "uftrace trace of the MPICH run: $(cat "$T/out")"
# difftrace import under MPICH's launcher: one job (difftrace-mpi-mpich), one import
crun "$DT" import -r mpich2 "$T/rec" >"$T/imp.log" 2>&1 || { cat "$T/imp.log" >&2; fail "import under $CRUN"; }
[ "$(grep -c "imported run 'mpich2'" "$T/imp.log")" = 1 ] || fail "not one import: $(cat "$T/imp.log")"
expect_status 0 "$DT" sync mpich2
grep -Eq 'MPI_Allreduce +comm=2 count=1 type=MPI_INT op=MPI_SUM' "$T/out" || fail "mpich2: $(head "$T/out")"

# the injector under MPICH: a dropped send hangs the receiver, whom hang names
crun "$RECORD" --sync-only --timeout 3 --inject 'isend:call=1:ranks=0:drop' -o "$T/inj" -- \
	"$T/app-mpich" ok >"$T/inj.log" 2>&1
[ -d "$T/inj/rank-1/sync" ] || { cat "$T/inj.log" >&2; fail "no sync record of the injected run"; }
grep -q 'Invalid communicator' "$T/inj.log" && fail "$(cat "$T/inj.log")"
expect_status 0 "$DT" import -r inj "$T/inj"
expect_status 0 "$DT" hang inj
grep -q '^  1\.0 .*in MPI_Waitall' "$T/out" || fail "hang of the injected run: $(cat "$T/out")"

# a library of the other family, preloaded all the same: refused before main(), both named
refused() { # LOG LIBMPI LIBRARY
	grep -q "difftrace-sync: the program loads the MPI library .*$2.*, but $3 was built for " "$1" ||
		{ cat "$1" >&2; fail "no refusal naming $2 and $3"; }
	grep -qE 'Invalid communicator|Segmentation|signal 11' "$1" && { cat "$1" >&2; fail "a crash"; }
	[ -d "$T/wrong/rank-0/sync" ] && fail "something was recorded"
	return 0
}
crun env DIFFTRACE_SYNC_LIB="$(lib sync openmpi)" "$RECORD" --sync-only -o "$T/wrong" -- \
	"$T/app-mpich" ok >"$T/w1.log" 2>&1 && fail "the MPICH program ran with Open MPI's recorder"
refused "$T/w1.log" libmpich "$(lib sync openmpi)"
orun env DIFFTRACE_SYNC_LIB="$(lib sync mpich)" "$RECORD" --sync-only -o "$T/wrong" -- \
	"$T/app-ompi" ok >"$T/w2.log" 2>&1 && fail "the Open MPI program ran with MPICH's recorder"
refused "$T/w2.log" 'libmpi\.so' "$(lib sync mpich)"
# ... and the injector too
crun env DIFFTRACE_INJECT_LIB="$(lib inject openmpi)" "$RECORD" --sync-only \
	--inject 'send:call=1:count=+1' -o "$T/wrong" -- "$T/app-mpich" ok >"$T/w3.log" 2>&1
grep -q "difftrace-inject: the program loads the MPI library .*libmpich" "$T/w3.log" ||
	{ cat "$T/w3.log" >&2; fail "the injector did not refuse"; }
# ... and the sampler (built with libunwind), whose MPI wrappers ask the MPI for a type's size
# (PMPI_Type_size of Open MPI given MPICH's MPI_INT: a segmentation fault)
if [ -f "$(lib sample mpich)" ]; then
	orun env DIFFTRACE_SAMPLE_LIB="$(lib sample mpich)" "$RECORD" --sample=timer --sync-only \
		-o "$T/wrong4" -- "$T/app-ompi" ok >"$T/w4.log" 2>&1 &&
		fail "the Open MPI program ran with MPICH's sampler"
	grep -q "difftrace-sample: the program loads the MPI library .*libmpi\.so.*, but $(lib sample mpich) was built for .*libdifftrace-sample\.so, libdifftrace-sample-mpich\.so" "$T/w4.log" ||
		{ cat "$T/w4.log" >&2; fail "the sampler did not refuse"; }
	grep -qE 'Segmentation|signal 11' "$T/w4.log" && { cat "$T/w4.log" >&2; fail "a crash"; }
	[ -d "$T/wrong4/rank-0/sample" ] && fail "something was sampled"
fi

# a build with one family's libraries refuses a program of the other before it starts
mkdir "$T/one"
sed "s/^abi2=.*/abi2=''/" "$RECORD" >"$T/one/difftrace-record"
cp "$B/libdifftrace-sync.so" "$T/one/"
expect_status 2 sh "$T/one/difftrace-record" --sync-only -o "$T/one/d" -- \
	"$( [ "$MPI_ABI" = openmpi ] && echo "$T/app-mpich" || echo "$T/app-ompi")" ok
expect_err "uses .*, but this difftrace has recorder libraries for .* only (libdifftrace-sync.so); libdifftrace-sync-$MPI2_ABI.so is built when configure finds"
[ -d "$T/one/d/rank-0" ] && fail "a rank directory was made"
pass
