#!/bin/sh
# End to end: difftrace-record records the arguments that identify an MPI operation by default,
# difftrace import names them (count=1, datatype=INT, op=MIN, comm=WORLD: Open MPI's handles
# resolved through the data symbols of the .sym files), and the `.args` attribute modes make a
# changed argument a changed function. The bug allreduce1-op-all of examples/ilcs.c changes
# only the operation of the first MPI_Allreduce (MPI_MIN -> MPI_MAX).
. "${abs_top_srcdir:-.}/tests/lib.sh"

need mpi uftrace built
export UFTRACE OMP_NUM_THREADS=2 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# the recorder's options: argument specs by default, none with --no-mpi-args
expect_status 0 "$RECORD" -n -- ./app
grep -q -- '-A MPI_Allreduce@arg3/i32,arg4/x64,arg5/x64,arg6/x64 ' "$T/out" ||
	fail "no MPI_Allreduce argument spec: $(cat "$T/out")"
grep -q -- '-A MPI_Reduce@arg3/i32,arg4/x64,arg5/x64,arg6/i32,arg7/x64 ' "$T/out" ||
	fail "no MPI_Reduce argument spec"
expect_status 0 "$RECORD" -n --no-mpi-args -- ./app
grep -q -- ' -A ' "$T/out" && fail "--no-mpi-args still records arguments: $(cat "$T/out")"
expect_status 0 "$RECORD" --help
grep -q -- '--no-mpi-args' "$T/out" || fail "--help lacks --no-mpi-args"

ILCS="$T/ilcs"
"$MPICC" -pg -fopenmp -O1 -o "$ILCS" "$abs_top_srcdir/examples/ilcs.c" -lm \
	>"$T/cc.log" 2>&1 || { cat "$T/cc.log" >&2; fail "mpicc failed"; }
# a -pg program writes gmon.out where it runs: not in the build tree
cd "$T" || fail "cd $T"

flags="-np 2"
if "$MPIRUN" --version 2>&1 | grep -q 'Open MPI'; then
	flags="$flags --oversubscribe"
	[ "$(id -u)" = 0 ] && flags="$flags --allow-run-as-root"
else
	skip "the argument names are Open MPI's (found $("$MPIRUN" --version 2>&1 | head -1))"
fi
to=
command -v timeout >/dev/null && to="timeout -k 3 120"
# record NAME ARGS...: the example under difftrace-record into $T/NAME
record() {
	name=$1; shift
	# shellcheck disable=SC2086
	if ! $to "$MPIRUN" $flags "$RECORD" -o "$T/$name" -- "$ILCS" "$@" </dev/null \
		>"$T/$name.log" 2>&1; then
		cat "$T/$name.log" >&2
		grep -qiE 'not enough slots|orte_init|PMIx|ess_init|btl' "$T/$name.log" &&
			skip "mpirun cannot start processes here"
		fail "recording $name failed"
	fi
}
record normal
record faulty --bug allreduce1-op-all
DB="$T/db"
expect_status 0 "$DT" -d "$DB" import --run normal "$T/normal"
expect_status 0 "$DT" -d "$DB" import --run faulty "$T/faulty"

# the arguments, named, with the handles' names
expect_status 0 "$DT" -d "$DB" show normal 0.0
grep -q 'MPI_Allreduce(count=1, datatype=INT, op=MIN, comm=WORLD);' "$T/out" ||
	fail "normal: no named MPI_Allreduce arguments: $(grep MPI_ "$T/out" | head -5)"
grep -q 'MPI_Bcast(count=61, datatype=INT, root=[01], comm=WORLD);' "$T/out" ||
	fail "normal: no named MPI_Bcast arguments"
# arg7 is on the stack (x86-64): uftrace reads it too
grep -q 'MPI_Reduce(count=5, datatype=LONG, op=SUM, root=0, comm=WORLD);' "$T/out" ||
	fail "normal: no named MPI_Reduce arguments: $(grep MPI_Reduce "$T/out")"
grep -q 'op=MAX' "$T/out" && fail "normal run with op=MAX"
expect_status 0 "$DT" -d "$DB" show faulty 0.0
grep -q 'MPI_Allreduce(count=1, datatype=INT, op=MAX, comm=WORLD);' "$T/out" ||
	fail "faulty: no MPI_Allreduce with op=MAX: $(grep MPI_Allreduce "$T/out" | head -3)"

# without the arguments the two runs look the same; with them the Allreduce differs
expect_status 0 "$DT" -d "$DB" diff --attrs sing.log10 --filter mpi normal:0.0 faulty:0.0
grep -q '(identical)' "$T/out" || fail "without arguments the traces differ: $(head -3 "$T/out")"
grep -q 'MPI_Allreduce\[' "$T/out" && fail "NAME[args] without .args"
expect_status 0 "$DT" -d "$DB" diff --attrs sing.orig.args --filter mpi normal:0.0 faulty:0.0
grep -q 'changed' "$T/out" || fail "with .args the traces are identical: $(head -3 "$T/out")"
# .args is the default
expect_status 0 "$DT" -d "$DB" diff --filter mpi normal:0.0 faulty:0.0
grep -q 'changed' "$T/out" || fail "with .args the traces are identical: $(head -3 "$T/out")"
grep -q '| MPI_Allreduce\[count=1,datatype=INT,op=MAX,comm=WORLD\]' "$T/out" ||
	fail "the diff does not show op=MAX: $(cat "$T/out")"
expect_status 0 "$DT" -d "$DB" rank --attrs sing.orig+args --filter mpi --normal normal --faulty faulty
grep -q 'attributes sing.orig.args' "$T/out" || fail "rank: $(head -2 "$T/out")"

# the attributes: NAME[args] functions, the same whatever the number of threads
expect_status 0 "$DT" -d "$DB" lattice --attrs sing.orig.args --filter mpi --threads 1 --force faulty
grep -q 'MPI_Allreduce\[count=1,datatype=INT,op=MAX,comm=WORLD\]' "$T/out" ||
	fail "no op=MAX attribute: $(cat "$T/out")"
cp "$T/out" "$T/lattice1"
expect_status 0 "$DT" -d "$DB" lattice --attrs sing.orig.args --filter mpi --threads 4 --force faulty
cmp -s "$T/out" "$T/lattice1" || fail "the lattice depends on the threads"
expect_status 0 "$DT" -d "$DB" lattice --attrs sing.orig --filter mpi faulty
grep -q 'MPI_Allreduce\[' "$T/out" && fail "NAME[args] attributes without .args"
expect_status 2 "$DT" -d "$DB" lattice --attrs sing.orig.argz --filter mpi faulty
expect_err "bad attribute mode"

# a rank killed while uftrace wrote its .sym files (mpirun stopping the other ranks of a failed
# job): the symbols of a sibling rank directory, the same binaries by their build ids, name its
# calls, and the note says so
cp -r "$T/normal" "$T/nosym"
rm -f "$T"/nosym/rank-0/*.sym
expect_status 0 "$DT" -d "$T/db2" import --run nosym "$T/nosym"
grep -q 'flagged' "$T/out" && fail "nosym flagged: $(cat "$T/out")"
expect_status 0 "$DT" -d "$T/db2" traces nosym
grep -q 'symbols of .* from rank-1 (no .sym file here; same build id)' "$T/out" || fail "nosym: $(cat "$T/out")"
expect_status 0 "$DT" -d "$T/db2" show nosym 0.0
grep -q 'MPI_Allreduce(count=1, datatype=INT, op=MIN, comm=WORLD);' "$T/out" ||
	fail "nosym: rank 0's calls not named: $(grep -c '+0x' "$T/out") unnamed"
# with no rank left to lend them: calls with arguments to unnamed addresses cannot be framed;
# the trace is kept up to there and flagged
rm -f "$T"/nosym/rank-1/*.sym
expect_status 0 "$DT" -d "$T/db2" import --run nosym2 "$T/nosym"
grep -q 'flagged: truncated' "$T/out" || fail "nosym2: $(cat "$T/out")"
expect_status 0 "$DT" -d "$T/db2" traces nosym2
grep -q 'no symbol names it (a missing .sym file?)' "$T/out" || fail "nosym2: $(cat "$T/out")"

# communicators the program made are named by their order of first use, not by address; a
# pairwise exchange's peers are written relative to the caller, so both ranks make one call
cat > "$T/comms.c" <<'PROG'
#include <mpi.h>
int main(int argc, char **argv)
{
	int rank, size, x = 1, y;
	MPI_Comm d, s;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm_dup(MPI_COMM_WORLD, &d);
	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &s);
	MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, d);
	MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, s);
	MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, d);
	MPI_Sendrecv(&x, 1, MPI_INT, (rank + 1) % size, 5, &y, 1, MPI_INT, (rank + size - 1) % size, 5,
		     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Comm_free(&s);
	MPI_Comm_free(&d);
	MPI_Finalize();
	return 0;
}
PROG
"$MPICC" -pg -O1 -o "$T/comms" "$T/comms.c" >"$T/cc2.log" 2>&1 || { cat "$T/cc2.log" >&2; fail "mpicc comms failed"; }
# shellcheck disable=SC2086
$to "$MPIRUN" $flags "$RECORD" -o "$T/comms.rec" -- "$T/comms" </dev/null >"$T/comms.log" 2>&1 ||
	{ cat "$T/comms.log" >&2; fail "recording comms failed"; }
expect_status 0 "$DT" -d "$T/db3" import --run comms "$T/comms.rec"
expect_status 0 "$DT" -d "$T/db3" show comms 1.0
# communicators named by how they were made: the thread's first dup and first split of WORLD
grep -q 'MPI_Allreduce(count=1, datatype=INT, op=SUM, comm=dup#1 of WORLD);' "$T/out" ||
	fail "comms: no dup#1 of WORLD: $(grep MPI_ "$T/out")"
grep -q 'MPI_Allreduce(count=1, datatype=INT, op=SUM, comm=split#1 of WORLD);' "$T/out" ||
	fail "comms: no split#1 of WORLD: $(grep MPI_ "$T/out")"
grep -q 'MPI_Comm_split(comm=WORLD)' "$T/out" || fail "comms: the split's parent: $(grep MPI_ "$T/out")"
grep -q 'comm=0x' "$T/out" && fail "comms: a communicator as an address: $(grep MPI_ "$T/out")"
[ "$(grep -c 'comm=dup#1 of WORLD)' "$T/out")" = 2 ] ||
	fail "comms: dup#1 of WORLD not twice: $(grep MPI_ "$T/out")"
for pt in 0.0 1.0; do
	expect_status 0 "$DT" -d "$T/db3" nlr comms $pt
	grep -q '^MPI_Sendrecv\[sendcount=1,sendtype=INT,dest=rank+1,sendtag=5,recvcount=1,recvtype=INT,source=rank+1,recvtag=5,comm=WORLD\]$' "$T/out" ||
		fail "comms $pt: peers not relative: $(grep Sendrecv "$T/out")"
done
exit 0
