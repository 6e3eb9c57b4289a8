#!/bin/sh
# test.sh: installs what the tests need, then builds from scratch with -Werror twice, with gcc
# under AddressSanitizer and UndefinedBehaviorSanitizer and with clang, runs the whole test
# suite in each, checks `make distcheck`, and prints "N passed, N failed, N skipped".
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
sh "$top/scripts/deps.sh" test || exit 1
out=${DIFFTRACE_TEST_DIR:-$top/build-test}
rm -rf "$out"
mkdir -p "$out"
(cd "$top" && autoreconf -fi) >"$out/autoreconf.log" 2>&1 || { cat "$out/autoreconf.log"; exit 1; }
pass=0 fail=0 skip=0
count() { # log file
	p=$(sed -n 's/^# PASS: *//p' "$1"); f=$(sed -n 's/^# FAIL: *//p' "$1")
	s=$(sed -n 's/^# SKIP: *//p' "$1"); x=$(sed -n 's/^# ERROR: *//p' "$1")
	pass=$((pass + ${p:-0})); fail=$((fail + ${f:-0} + ${x:-0})); skip=$((skip + ${s:-0}))
}
suite() { # name, configure options...
	name=$1
	shift
	echo "== $name: configure $*"
	if ! sh "$top/scripts/build.sh" "$out/$name" --enable-werror "$@" >"$out/$name.build.log" 2>&1; then
		tail -30 "$out/$name.build.log"
		echo "$name: build failed"
		fail=$((fail + 1))
		return
	fi
	make -C "$out/$name" -s -j2 check >"$out/$name.check.log" 2>&1
	grep -E '^(PASS|FAIL|SKIP|ERROR|XFAIL|XPASS):' "$out/$name.check.log" | sed "s/^/  /"
	if [ -f "$out/$name/test-suite.log" ]; then
		count "$out/$name/test-suite.log"
		grep -q '^# FAIL: *0$' "$out/$name/test-suite.log" || cat "$out/$name/test-suite.log"
	else
		tail -30 "$out/$name.check.log"
		fail=$((fail + 1))
	fi
}
suite gcc-sanitizers CC=gcc --enable-sanitizers
suite clang CC=clang
# the tests where the MPI matters, a second time under MPICH (the second MPI family configure
# found; skipped without it): the recorder, the hang report (of a store, of a recording in
# progress), the ranking of hung runs, the example, the import in a job, Fortran, C++, the
# sampler, the timeout under the launcher, the one-sided calls, the first calls of threads
# under uftrace, the MPI constants' names, requests sharing a handle and the call sites
mpich_tests="tests/sync_record.sh tests/sync_hang.sh tests/hang_cause.sh tests/example_ilcs.sh
	tests/import_mpi.sh tests/inject.sh tests/fortran.sh tests/cxx.sh tests/blame_record.sh
	tests/record_timeout.sh tests/rank_data.sh tests/rank_rma.sh tests/sync_payload.sh
	tests/record_first_calls.sh tests/mpi_constants.sh tests/sync_requests.sh tests/sync_halo.sh
	tests/rank_site.sh tests/hang_live.sh tests/rank_hangs.sh"
echo "== clang, under MPICH: $(echo $mpich_tests)"
if [ -f "$out/clang/Makefile" ]; then
	# shellcheck disable=SC2086
	make -C "$out/clang" -s check TESTS="$(echo $mpich_tests)" DIFFTRACE_TEST_MPI=mpich \
		TEST_SUITE_LOG=mpich-suite.log >"$out/mpich.check.log" 2>&1
	grep -E '^(PASS|FAIL|SKIP|ERROR|XFAIL|XPASS):' "$out/mpich.check.log" | sed "s/^/  mpich /"
	if [ -f "$out/clang/mpich-suite.log" ]; then
		count "$out/clang/mpich-suite.log"
		grep -q '^# FAIL: *0$' "$out/clang/mpich-suite.log" || cat "$out/clang/mpich-suite.log"
	else
		tail -30 "$out/mpich.check.log"
		fail=$((fail + 1))
	fi
fi
echo "== make distcheck"
if make -C "$out/clang" -s distcheck DISTCHECK_CONFIGURE_FLAGS="CC=clang --enable-werror" \
	>"$out/distcheck.log" 2>&1; then
	echo "  PASS: distcheck"
	pass=$((pass + 1))
else
	tail -40 "$out/distcheck.log"
	echo "  FAIL: distcheck"
	fail=$((fail + 1))
fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
