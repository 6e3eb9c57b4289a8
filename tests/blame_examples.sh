#!/bin/sh
# blame_examples.sh: difftrace blame on the two examples of examples/blame. The quadrature
# program: the broadcast input (dim_num) carries the blame of rank 1, which waits for rank 0 to
# make the input, the points x the computation of rank 0, and the reduced result quad blame
# through MPI_Reduce. The sparse solver: the solution vector and the matrix, behind a few
# layers of functions, get most of the blame while few samples write x directly (with the
# blame index, x then the matrix on top, as the paper's Table 1). Two runs
# compared: the variables whose share changed, per rank. Shapes only, never timings.
. "${abs_top_srcdir:-..}/tests/lib.sh"
need built mpi
[ -f "$abs_top_builddir/libdifftrace-sample.so" ] ||
	skip "libdifftrace-sample.so not built (configure found no libunwind: apt-get install libunwind-dev)"
export DIFFTRACE_BLAME_PATH="$abs_top_srcdir/blame"
cd "$T" || fail "cd $T"
flags="-np 2"
"$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags="$flags --oversubscribe"
[ "$(id -u)" = 0 ] && "$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags="$flags --allow-run-as-root"
row() { awk -F, -v p="$2" -v n="$3" '$1 == p && $2 == n' "$1"; }
# field $4 of row $3 at point $2
field() { row "$1" "$2" "$3" | cut -d, -f"$4"; }
# csv with the commas inside quoted fields (MPI calls) made '+', for awk -F,
unquote() {
	awk '{ o = ""; q = 0; for (i = 1; i <= length($0); i++) { c = substr($0, i, 1)
		if (c == "\"") { q = !q; continue }; if (c == "," && q) c = "+"; o = o c }; print o }' "$1"
}
positive() { awk -v x="${1:-0}" 'BEGIN { exit !(x > 0) }'; }
adds_up() {
	awk -F, -v col="$2" 'NR > 1 && $2 != "Total" { s[$1] += $col } NR > 1 && $2 == "Total" { t[$1] = $col }
	     END { for (p in t) if (s[p] - t[p] > 0.01 || t[p] - s[p] > 0.01) { print p, s[p], t[p]; exit 1 } }' "$1" ||
		fail "the rows of $1 do not add up to the total"
}
record() { # NAME PROGRAM ARGS...
	n=$1; shift
	# shellcheck disable=SC2086
	timeout -k 5 200 "$MPIRUN" $flags "$RECORD" --sample --sync-only -o "$T/$n.rec" -- "$@" \
		</dev/null >"$T/$n.log" 2>&1 || { cat "$T/$n.log" >&2; fail "the run $n failed"; }
	expect_status 0 "$DT" import -r "$n" "$T/$n.rec"
}

# the quadrature program
Q="$abs_top_srcdir/examples/blame/quad_mpi.c"
"$MPICC" -g -O1 -o "$T/quad" "$Q" -lm >"$T/cc.log" 2>&1 || { cat "$T/cc.log" >&2; fail "mpicc failed on quad_mpi.c"; }
record quad "$T/quad" 200000 600
expect_status 0 "$DT" blame quad --format csv
unquote "$T/out" >"$T/quad.csv"
head -1 "$T/quad.csv" | grep -q '^point,variable,type,mpi_calls,R0,R0_pct,R1,R1_pct,total,total_pct,mean,sd,direct$' ||
	fail "csv header: $(head -1 "$T/quad.csv")"
adds_up "$T/quad.csv" 9
# columns: 5 R0, 7 R1
positive "$(field "$T/quad.csv" main dim_num 7)" || fail "dim_num has no blame on rank 1: $(cat "$T/quad.csv")"
field "$T/quad.csv" main dim_num 4 | grep -q MPI_Bcast || fail "dim_num's blame is not through MPI_Bcast"
qxline=$(grep -n 'double \*x = malloc' "$Q" | cut -d: -f1)
positive "$(field "$T/quad.csv" main "quad_mpi.c:$qxline (main)" 5)" ||
	fail "the points x have no blame on rank 0: $(cat "$T/quad.csv")"
# quad, without the index, has the samples of the root waiting in MPI_Reduce: an oversubscribed
# MPI yields while it waits, and on a loaded machine the root may spend no CPU tick there
if grep -q MPI_Reduce "$T/quad.csv"; then
	[ "$(field "$T/quad.csv" main quad 3)" = double ] || fail "quad is not typed or has no blame: $(cat "$T/quad.csv")"
	field "$T/quad.csv" main quad 4 | grep -q MPI_Reduce || fail "quad's blame is not through MPI_Reduce: $(cat "$T/quad.csv")"
	positive "$(field "$T/quad.csv" main quad 5)" || fail "quad has no blame on rank 0, the root"
else
	echo "note: no sample fell in MPI_Reduce in this run"
fi
# (with the index, below, the sums of rank 1 go to quad whatever the load)
expect_status 0 "$DT" blame quad
grep -q '^dim_num  *int  *MPI_Bcast ' "$T/out" || fail "text table: $(cat "$T/out")"

# the sparse solver
S="$abs_top_srcdir/examples/blame/sparse_mpi.c"
"$MPICC" -g -O1 -o "$T/sparse" "$S" >"$T/cc.log" 2>&1 || { cat "$T/cc.log" >&2; fail "mpicc failed on sparse_mpi.c"; }
record sparse "$T/sparse" 100000 100
expect_status 0 "$DT" blame sparse --point main --point cg --point axpy_x --point csr_fill --format csv
unquote "$T/out" >"$T/sparse.csv"
adds_up "$T/sparse.csv" 9
mline=$(grep -n 'struct csr \*A = malloc' "$S" | cut -d: -f1)
xline=$(grep -n 'pb->x = calloc' "$S" | cut -d: -f1)
matrix=$(field "$T/sparse.csv" main "sparse_mpi.c:$mline (csr_new)" 9)
x=$(field "$T/sparse.csv" main "sparse_mpi.c:$xline (problem_new)" 9)
total=$(field "$T/sparse.csv" main Total 9)
# the paper's Base Data Centric column: the solution vector is written directly by few samples
# (axpy_x), the matrix by its assembly (csr_fill, a quadrature per entry)
direct=$(field "$T/sparse.csv" axpy_x Total 9)
echo "sparse: matrix $matrix, x $x, total $total, samples writing x directly $direct"
positive "$x" || fail "the solution vector has no blame at main: $(cat "$T/sparse.csv")"
# without the index the heuristic cannot follow setup()'s blocks out of it (they are its
# temporaries while it runs): its assembly is Other, and the structure's block shares with x
awk -v m="${matrix:-0}" -v x="$x" -v t="$total" -v d="$direct" \
	'BEGIN { exit !(m > t / 10 && d < t / 5) }' ||
	fail "the matrix ($matrix) takes less than a tenth of $total, or $direct samples write x: $(cat "$T/sparse.csv")"
# at cg its own temporaries are variables of their own: the gathered vector through MPI_Allgather
pline=$(grep -n 'double \*pall = malloc' "$S" | cut -d: -f1)
# (the gather is short: a run at the kernel's 250 Hz can have no sample in it; those it has are
# the gathered vector's, and no other variable's)
if grep -q MPI_Allgather "$T/sparse.csv"; then
	field "$T/sparse.csv" cg "sparse_mpi.c:$pline (cg)" 4 | grep -q MPI_Allgather ||
		fail "cg's gathered vector is not blamed through MPI_Allgather: $(cat "$T/sparse.csv")"
	awk -F, -v v="sparse_mpi.c:$pline (cg)" '$1 == "cg" && $2 != v && $4 ~ /MPI_Allgather/' \
		"$T/sparse.csv" | grep -q . && fail "MPI_Allgather on another variable at cg: $(cat "$T/sparse.csv")"
else
	echo "note: no sample fell in MPI_Allgather in this run"
fi
[ -z "$(row "$T/sparse.csv" main "sparse_mpi.c:$pline (cg)")" ] || fail "cg's temporary is a variable of main"

# with the blame index, the paper's Table 1: the solution vector and the matrix on top (cg's work goes to x through the field pb->x that cg(pb->A, pb->x, r, ...) writes, the
# assembly to the matrix through pb->A, returned by setup() to main's pb); the structure's own
# block (three pointers) takes next to nothing
sline=$(grep -n 'struct problem \*pb = malloc' "$S" | cut -d: -f1)
# shellcheck disable=SC2046
if "$DT" blame-index --run sparse "$S" -- $("$MPICC" --showme:compile 2>/dev/null) >"$T/bxs.out" 2>"$T/bxs.err"; then
	expect_status 0 "$DT" blame sparse --format csv
	unquote "$T/out" >"$T/sparsex.csv"
	adds_up "$T/sparsex.csv" 9
	top2=$(awk -F, '$1 == "main" && $2 != "Other" && $2 != "Output" && $2 != "Total" && NR > 1 { print $2 }' \
		"$T/sparsex.csv" | head -2 | tr '\n' ';')
	# (which of the two comes first is up to the load: cg's MPI waits go to x, and an
	# oversubscribed MPI yields while it waits)
	case $top2 in
	"pb->x (sparse_mpi.c:$xline in problem_new);pb->A (sparse_mpi.c:$mline in csr_new);" | \
		"pb->A (sparse_mpi.c:$mline in csr_new);pb->x (sparse_mpi.c:$xline in problem_new);") ;;
	*) fail "with the index, x and the matrix are not on top ($top2): $(cat "$T/sparsex.csv")" ;;
	esac
	# the blocks are named by the fields that point to them (pb->A = csr_new(...) for the
	# matrix allocated in csr_new), the structure by its variable
	[ -z "$(row "$T/sparsex.csv" main "sparse_mpi.c:$xline (problem_new)")" ] ||
		fail "with the index, x keeps its site as name: $(cat "$T/sparsex.csv")"
	mx=$(field "$T/sparsex.csv" main "pb->A (sparse_mpi.c:$mline in csr_new)" 9)
	sb=$(field "$T/sparsex.csv" main "pb (sparse_mpi.c:$sline in problem_new)" 9)
	awk -v m="${mx:-0}" -v s="${sb:-0}" 'BEGIN { exit !(s < m / 4) }' ||
		fail "with the index, the structure's block ($sb) takes much of the matrix's ($mx): $(cat "$T/sparsex.csv")"
	# the Base Data Centric column (13): few samples write x directly, the assembly writes the
	# matrix (as the paper's Table 1: 0 for the solution vector, 24.5 for the matrix)
	xx=$(field "$T/sparsex.csv" main "pb->x (sparse_mpi.c:$xline in problem_new)" 9)
	xd=$(field "$T/sparsex.csv" main "pb->x (sparse_mpi.c:$xline in problem_new)" 13)
	md=$(field "$T/sparsex.csv" main "pb->A (sparse_mpi.c:$mline in csr_new)" 13)
	echo "sparse with the index: x $xx (direct $xd), matrix $mx (direct $md)"
	awk -v x="$xx" -v xd="${xd:-0}" -v m="$mx" -v md="${md:-0}" 'BEGIN { exit !(xd < x / 5 && md > m / 2) }' ||
		fail "with the index, the direct writes of x ($xd of $xx) or of the matrix ($md of $mx): $(cat "$T/sparsex.csv")"
elif grep -q "built without libclang" "$T/bxs.err"; then
	echo "note: difftrace was built without libclang: the sparse solver with its index not tested"
else
	cat "$T/bxs.err" >&2
	fail "blame-index sparse_mpi.c failed"
fi

# two runs: the faulty quadrature sums three times as long, the same points: the blame of the
# points x that rank 1 sums triples (ticks are CPU time, the sums a fixed amount of work). The
# shares move less surely: how long a rank polls in the broadcast or the reduction while the
# other works is up to the scheduler of a loaded machine (an oversubscribed MPI yields).
record quad6 "$T/quad" 200000 1800
expect_status 0 "$DT" blame --normal quad --faulty quad6 --format csv --top 0
unquote "$T/out" >"$T/change.csv"
head -1 "$T/change.csv" | grep -q '^point,rank,variable,type,normal,normal_pct,faulty,faulty_pct,change_pct$' ||
	fail "change csv header: $(head -1 "$T/change.csv")"
pts=$(awk -F, -v v="quad_mpi.c:$qxline (main)" '$2 == 1 && $3 == v { print $5, $7 }' "$T/change.csv")
# shellcheck disable=SC2086
awk -v n="$(echo $pts | cut -d' ' -f1)" -v f="$(echo $pts | cut -d' ' -f2)" 'BEGIN { exit !(n > 0 && f > 2 * n) }' ||
	fail "the blame of the points on rank 1 did not grow with the sums ($pts): $(cat "$T/change.csv")"
expect_status 0 "$DT" blame --normal quad --faulty quad6
grep -q '^RANK  *VARIABLE  *TYPE  *NORMAL(%)  *FAULTY(%)  *CHANGE$' "$T/out" || fail "change text: $(cat "$T/out")"
[ "$(grep -c '^R1 ' "$T/out")" -le 5 ] || fail "more than --top 5 rows for rank 1"
expect_status 0 "$DT" blame --normal quad --faulty quad6 --format json
grep -q '"changes":\[{"rank":0' "$T/out" || fail "change json: $(head -c 300 "$T/out")"

# with the blame index, the sums go to what they compute: the local sum quad_local, a temporary
# of main that only feeds the reduction, passes them on to the reduced result quad (rank 1 only
# sums), not to the points they read; the input and the reduced result keep their calls (a
# sample or two at a line the index does not map may stay on the points)
# shellcheck disable=SC2046
if "$DT" blame-index --run quad "$Q" -- $("$MPICC" --showme:compile 2>/dev/null) >"$T/bx.out" 2>"$T/bx.err"; then
	expect_status 0 "$DT" blame quad --format csv
	unquote "$T/out" >"$T/quadx.csv"
	adds_up "$T/quadx.csv" 9
	ql=$(field "$T/quadx.csv" main quad 7)
	# a heap block is named by the variable its allocation is assigned to, the site as detail
	[ -z "$(row "$T/quadx.csv" main "quad_mpi.c:$qxline (main)")" ] ||
		fail "with the index, the points keep their site as name: $(cat "$T/quadx.csv")"
	positive "$(field "$T/quadx.csv" main "x (quad_mpi.c:$qxline in main)" 5)" ||
		fail "with the index, the points are not named x: $(cat "$T/quadx.csv")"
	pts=$(field "$T/quadx.csv" main "x (quad_mpi.c:$qxline in main)" 7)
	awk -v q="${ql:-0}" -v p="${pts:-0}" 'BEGIN { exit !(q > 0 && p < q / 10) }' ||
		fail "with the index, rank 1's sums are not on quad ($ql) but on the points ($pts): $(cat "$T/quadx.csv")"
	[ -z "$(row "$T/quadx.csv" main "quad_local (main)")" ] ||
		fail "the local sum keeps its blame: $(cat "$T/quadx.csv")"
	field "$T/quadx.csv" main quad 4 | grep -q MPI_Reduce || fail "quad lost MPI_Reduce with the index"
	field "$T/quadx.csv" main dim_num 4 | grep -q MPI_Bcast || fail "dim_num lost MPI_Bcast with the index"
elif grep -q "built without libclang" "$T/bx.err"; then
	echo "note: difftrace was built without libclang: the quadrature with its index not tested"
else
	cat "$T/bx.err" >&2
	fail "blame-index quad_mpi.c failed"
fi
pass
