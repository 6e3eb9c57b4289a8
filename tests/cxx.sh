#!/bin/sh
# C++ (issue 21, item 3): tests/cxx/stencil.cc, MPI + OpenMP with templates and namespaces, in
# which rank 2 skips a smoothing with "bug". Its names are demangled at import, so show, diff,
# rank and blame print grid::Field<double>::smooth(int), not _ZN4grid5FieldIdE6smoothEi; the
# filters match the demangled names; import --no-demangle keeps the mangled ones. hang names
# the call sites of tests/cxx/hang.cc demangled, built with -g and without; blame names the
# inlined comm::reduce_sum<double> in full and finds it in the blame index.
. "${abs_top_srcdir:-.}/tests/lib.sh"

need mpi uftrace built timeout
export UFTRACE OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=2
MPICXX=$(dirname "$MPICC")/$(basename "$MPICC" | sed 's/^mpicc/mpicxx/')
[ -x "$MPICXX" ] || skip "$MPICXX not found (apt-get install g++)"
APP="$T/stencil"
cd "$T" || fail "cd $T"
"$MPICXX" -pg -fopenmp -O2 -g -o "$APP" "$abs_top_srcdir/tests/cxx/stencil.cc" >"$T/cc.log" 2>&1 ||
	{ cat "$T/cc.log" >&2; fail "$MPICXX failed"; }
flags="-np 3"
"$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags="$flags --oversubscribe"
rec() { # NAME [RECORD-OPTIONS] -- [ARGS]
	name=$1
	shift
	# shellcheck disable=SC2086
	timeout -k 5 150 "$MPIRUN" $flags "$RECORD" -o "$T/$name" "$@" </dev/null >"$T/$name.log" 2>&1 ||
		{ cat "$T/$name.log" >&2; fail "recording $name failed"; }
}
rec normal -- "$APP"
rec bug -- "$APP" bug
expect_status 0 "$DT" import -r normal "$T/normal"
expect_status 0 "$DT" import -r bug "$T/bug"

expect_status 0 "$DT" show normal 0.0
for s in 'std::ios_base::Init::Init();' 'operator new(unsigned long);' \
	'grid::Field<double>::smooth(int) { ' 'grid::Field<double>::smooth(int) [clone ._omp_fn.0] {' \
	'} /* grid::Field<double>::smooth(int) */'; do
	grep -qF -- "$s" "$T/out" || { cat "$T/out" >&2; fail "show lacks '$s'"; }
done
grep -q '_ZN\|_Znwm' "$T/out" && { cat "$T/out" >&2; fail "show has mangled names"; }
grep -F 'comm::reduce_sum' "$T/out" | grep -q 'double comm::reduce_sum<double>(double)' ||
	{ cat "$T/out" >&2; fail "show lacks comm::reduce_sum<double>"; }

# the bug: rank 2 skips a smoothing; diff and rank say so by name
expect_status 0 "$DT" diff normal:2.0 bug:2.0
grep -qF 'grid::Field<double>::smooth(int) [clone ._omp_fn.0]' "$T/out" ||
	{ cat "$T/out" >&2; fail "diff lacks the demangled region"; }
expect_status 0 "$DT" rank --normal normal --faulty bug --format csv
row=$(sed -n 2p "$T/out")
case $row in
1,2.[01],*) ;;
*) cat "$T/out" >&2; fail "rank 2 is not first: $row" ;;
esac
# a filter by a demangled name: the smoothing's region only
printf 'name: smooth\ndescription: the smoothing\ninclude: ^grid::Field<double>::smooth\n' \
	>"$T/smooth.filter"
expect_status 0 "$DT" rank --normal normal --faulty bug --filter-file "$T/smooth.filter" \
	--filter smooth --format csv
row=$(sed -n 2p "$T/out")
case $row in
1,2.[01],*) ;;
*) cat "$T/out" >&2; fail "the filter on grid::Field<double>::smooth finds no change: $row" ;;
esac
[ "$(echo "$row" | cut -d, -f6)" -gt 0 ] || fail "the filter kept nothing: $row"
# the reasons name the program's own calls (filter everything) demangled
expect_status 0 "$DT" rank --normal normal --faulty bug --filter everything
grep -q '_Z' "$T/out" && { cat "$T/out" >&2; fail "rank has mangled names"; }
grep -q 'grid::Field<double>::smooth(int)\|operator new(unsigned long)\|std::' "$T/out" ||
	{ cat "$T/out" >&2; fail "rank names no C++ function"; }

# --no-demangle: the binary's names
expect_status 0 "$DT" import --no-demangle -r raw "$T/normal"
expect_status 0 "$DT" show raw 0.0
grep -qF '_ZN4grid5FieldIdE6smoothEi' "$T/out" || { cat "$T/out" >&2; fail "--no-demangle demangled"; }

# hang names the call sites of a C++ program as the traces name its functions, demangled: by
# the DWARF's linkage names with -g (a member function of a class template, a function template
# inlined into main), by the symbols without
HSRC="$abs_top_srcdir/tests/cxx/hang.cc"
recv=$(grep -n 'SITE:recv' "$HSRC" | cut -d: -f1)
barrier=$(grep -n 'SITE:barrier' "$HSRC" | cut -d: -f1)
if [ -z "$recv" ] || [ -z "$barrier" ]; then fail "no SITE: marks in $HSRC"; fi
hung() { # NAME CXXFLAGS...: build hang.cc, record it until the timeout, import it, hang it
	name=$1
	shift
	"$MPICXX" "$@" -o "$T/$name.bin" "$HSRC" >"$T/cc.log" 2>&1 ||
		{ cat "$T/cc.log" >&2; fail "$MPICXX failed"; }
	# shellcheck disable=SC2086
	timeout -k 5 150 "$MPIRUN" $flags "$RECORD" --sync-only --timeout 3 -o "$T/$name" -- \
		"$T/$name.bin" </dev/null >"$T/$name.log" 2>&1
	[ -d "$T/$name/rank-2/sync" ] || { cat "$T/$name.log" >&2; fail "$name: no sync record"; }
	expect_status 0 "$DT" import -r "$name" "$T/$name"
	expect_status 0 "$DT" hang "$name"
}
hung hang-g -O2 -g
grep -Eq "^  P 0-1 T 0 +in MPI_Recv \(1st\) at hang\.cc:$recv \(ns::Box<int>::get\(int\)\)$" "$T/out" ||
	{ cat "$T/out" >&2; fail "-g: the receive's site is not ns::Box<int>::get(int)"; }
grep -Eq "^  2\.0 +in MPI_Barrier \(1st\) at hang\.cc:$barrier \(void ns::wait_all<int>\(\)\)$" "$T/out" ||
	{ cat "$T/out" >&2; fail "-g: the inlined barrier's site is not ns::wait_all<int>"; }
hung hang-nog -O2
grep -Eq '^  P 0-1 T 0 +in MPI_Recv \(1st\) at ns::Box<int>::get\(int\)\+0x[0-9a-f]+$' "$T/out" ||
	{ cat "$T/out" >&2; fail "no -g: the receive's site is not ns::Box<int>::get(int)+offset"; }
grep -q '_Z' "$T/out" && { cat "$T/out" >&2; fail "hang has mangled names"; }

# blame names the functions of its samples alike
if [ -f "$abs_top_builddir/libdifftrace-sample.so" ]; then
	rec samp --sample=timer --sync-only -- "$APP"
	expect_status 0 "$DT" import -r samp "$T/samp"
	DIFFTRACE_BLAME_PATH="$abs_top_srcdir/blame" expect_status 0 "$DT" blame samp
	grep -q '_ZN' "$T/out" && { cat "$T/out" >&2; fail "blame has mangled names"; }
	# blame-index parses the C++ source: the functions of namespaces and class templates,
	# named as the source names them, and blame finds the sampled ones in the index
	if "$DT" blame-index --help >/dev/null 2>&1; then
		# shellcheck disable=SC2046
		expect_status 0 "$DT" blame-index "$abs_top_srcdir/tests/cxx/stencil.cc" -- -x c++ -fopenmp $("$MPICXX" --showme:compile 2>/dev/null || "$MPICXX" -compile-info 2>/dev/null | cut -d' ' -f2-)
		grep -q '^indexed 1 file, 5 functions' "$T/out" || fail "blame-index: $(cat "$T/out" "$T/err")"
		expect_status 0 "$DT" blame-index --show grid::Field::smooth
		grep -q '^function grid::Field::smooth ' "$T/out" || fail "index: smooth: $(cat "$T/out")"
		expect_status 0 "$DT" blame-index --show comm::reduce_sum
		DIFFTRACE_BLAME_PATH="$abs_top_srcdir/blame" expect_status 0 "$DT" blame samp
		grep -q 'no source in the blame index for.*smooth' "$T/out" &&
			fail "blame: the index has no smooth: $(cat "$T/out")"
		grep -q 'by the data flow' "$T/out" || fail "blame: no data flow: $(cat "$T/out")"
		# comm::reduce_sum<double>, inlined into main, is named in full and found in the
		# index: its MPI_Allreduce's result flows to main's total
		grep -q 'no source in the blame index for.*reduce_sum' "$T/out" &&
			fail "blame: the index has no reduce_sum: $(cat "$T/out")"
		# (total has a row when a sample fell in the reduction: on a loaded machine the
		# run may have none there; recorded again, at most twice)
		run=samp
		for again in 2 3; do
			grep -Eq '^total( \(main\))? ' "$T/out" && break
			echo "no row of total in the blame of $run: recorded again"
			rec "samp$again" --sample=timer --sync-only -- "$APP"
			expect_status 0 "$DT" import -r "samp$again" "$T/samp$again"
			run=samp$again
			DIFFTRACE_BLAME_PATH="$abs_top_srcdir/blame" expect_status 0 "$DT" blame "$run"
		done
		DIFFTRACE_BLAME_PATH="$abs_top_srcdir/blame" expect_status 0 "$DT" blame --why 'total (main)' "$run"
		grep -qF '<- <return> (comm::reduce_sum) <- r, line ' "$T/out" ||
			fail "blame --why total: not through comm::reduce_sum: $(cat "$T/out")"
		grep -qF ' in double comm::reduce_sum<double>(double)' "$T/out" ||
			fail "blame --why total: the inlined frame is not named in full: $(cat "$T/out")"
		grep -q '_ZN' "$T/out" && fail "blame with the index: mangled names: $(cat "$T/out")"
	fi
fi
pass
