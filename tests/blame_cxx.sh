#!/bin/sh
# blame_cxx.sh: a C++ program's blocks made by operator new[] and new (libstdc++'s operator new
# calls malloc, which the sampler wraps): each is blamed by the line of its new, not by
# libstdc++'s frame, and delete frees it (tests/blame/newdel.cc).
. "${abs_top_srcdir:-..}/tests/lib.sh"
need built mpi
[ -f "$abs_top_builddir/libdifftrace-sample.so" ] ||
	skip "libdifftrace-sample.so not built (configure found no libunwind: apt-get install libunwind-dev)"
MPICXX=$(command -v mpicxx || command -v mpic++ || true)
[ -n "$MPICXX" ] || skip "mpicxx not found (apt-get install libopenmpi-dev)"
export DIFFTRACE_BLAME_PATH="$abs_top_srcdir/blame"
SRC="$abs_top_srcdir/tests/blame/newdel.cc"
"$MPICXX" -g -O1 -o "$T/newdel" "$SRC" >"$T/cc.log" 2>&1 || { cat "$T/cc.log" >&2; fail "mpicxx failed"; }
flags="-np 1"
"$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags="$flags --oversubscribe"
[ "$(id -u)" = 0 ] && "$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags="$flags --allow-run-as-root"
# shellcheck disable=SC2086
timeout -k 5 150 "$MPIRUN" $flags "$RECORD" --sample=timer --sync-only -o "$T/rec" -- "$T/newdel" \
	</dev/null >"$T/rec.log" 2>&1 || { cat "$T/rec.log" >&2; fail "the recorded run failed"; }
expect_status 0 "$DT" import -r c "$T/rec"
expect_status 0 "$DT" blame c --format csv
site() { printf 'newdel.cc:%s (main)' "$(grep -n "SITE_$1" "$SRC" | cut -d: -f1)"; }
blame_of() { awk -F, -v n="$1" '$2 == n { print $5; exit }' "$T/out"; }
tot=$(blame_of Total)
for s in ARRAY OBJECT; do
	x=$(blame_of "$(site $s)")
	# each block is a quarter of a second of CPU of about 0.55 s in all
	awk -v x="${x:-0}" -v t="$tot" 'BEGIN { exit !(x > t / 4 && x < t * 3 / 4) }' ||
		fail "the block of new at $(site $s) took ${x:-nothing} of $tot: $(cat "$T/out")"
done
grep -q 'libstdc\|operator new\|_Zn' "$T/out" && fail "a row names libstdc++: $(cat "$T/out")"
pass
