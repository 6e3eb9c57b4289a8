#!/bin/sh
# blame_uftrace.sh: difftrace-record --sample as the README runs it, with uftrace recording
# (the default), keeps the samples' stacks. uftrace replaces the return addresses of the
# functions it traces with its trampoline; the sampler walks between libmcount's
# mcount_restore and mcount_reset, and keeps the frames up to libmcount's own where a tick
# lands inside it (it walked nothing under uftrace before: every sample's computation went to
# Other). A program of known depth (main -> outer -> middle -> inner), built with -pg at -O0
# and -O2: every tick at inner has middle and outer above it, as in a --sync-only recording of
# the same program, and the heap block it works on is on top. uftrace's own CPU time (its
# hooks, the loader's symbol binding) is left out of the table and said, and
# libmcount's allocations are not the program's containers. Then the quadrature example
# (examples/blame/quad_mpi.c) no longer puts most samples in Other.
. "${abs_top_srcdir:-..}/tests/lib.sh"
need built mpi uftrace
[ -f "$abs_top_builddir/libdifftrace-sample.so" ] ||
	skip "libdifftrace-sample.so not built (configure found no libunwind: apt-get install libunwind-dev)"
command -v sqlite3 >/dev/null || skip "sqlite3 not found (apt-get install sqlite3)"
export DIFFTRACE_BLAME_PATH="$abs_top_srcdir/blame"
cd "$T" || fail "cd $T"
flags="-np 1"
"$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags="$flags --oversubscribe"
[ "$(id -u)" = 0 ] && "$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags="$flags --allow-run-as-root"
record() { # NAME [RECORD OPTIONS] -- PROGRAM ARGS...
	n=$1; shift
	# shellcheck disable=SC2086
	timeout -k 5 200 "$MPIRUN" $flags "$RECORD" --sample -o "$T/$n.rec" "$@" \
		</dev/null >"$T/$n.log" 2>&1 || { cat "$T/$n.log" >&2; fail "the run $n failed"; }
	expect_status 0 "$DT" import -r "$n" "$T/$n.rec"
}
# the total of point $2 in the csv $1
total() { awk -F, -v p="$2" '$1 == p && $2 == "Total" { print $7 }' "$1"; }
q() { sqlite3 "$DIFFTRACE_DB" "$1"; }

D="$abs_top_srcdir/tests/blame/depth.c"
vline=$(grep -n 'double \*v = malloc' "$D" | cut -d: -f1)
for o in O0 O2; do
	"$MPICC" -g -$o -pg -o "$T/depth-$o" "$D" >"$T/cc.log" 2>&1 ||
		{ cat "$T/cc.log" >&2; fail "mpicc -$o -pg failed on depth.c"; }
	for how in uftrace sync; do
		n=$how-$o
		if [ $how = sync ]; then
			record "$n" --sync-only -- "$T/depth-$o" 3000
		else
			record "$n" -- "$T/depth-$o" 3000
		fi
		expect_status 0 "$DT" blame "$n" --point inner --point middle --point outer --format csv
		cp "$T/out" "$T/$n.csv"
		i=$(total "$T/$n.csv" inner) m=$(total "$T/$n.csv" middle) u=$(total "$T/$n.csv" outer)
		[ "${i:-0}" -ge 30 ] || fail "$n: $i ticks in inner: $(cat "$T/$n.csv")"
		# every tick in inner walked up through middle and outer (a tick taken while
		# uftrace's hooks run in inner's prologue may stop at libmcount's frame: 10%)
		[ $((m * 10)) -ge $((i * 9)) ] && [ $((u * 10)) -ge $((i * 9)) ] ||
			fail "$n: stacks lost: $i ticks at inner, $m reach middle, $u outer"
		expect_status 0 "$DT" blame "$n"
		cp "$T/out" "$T/$n.txt"
		sed -n '/^VARIABLE/{n;p;}' "$T/$n.txt" | grep -q "^depth.c:$vline (main) *heap " ||
			fail "$n: the block v is not on top: $(cat "$T/$n.txt")"
		other=$(awk '$1 == "Other" { print $4 }' "$T/$n.txt" | sed 's/.*(\(.*\))/\1/')
		awk -v x="${other:-0}" 'BEGIN { exit !(x < 50) }' || fail "$n: Other has $other%: $(cat "$T/$n.txt")"
	done
	grep -q "^# note: [0-9]* ticks more (.*) were uftrace's own recording" "$T/uftrace-$o.txt" ||
		fail "uftrace's own time is not said: $(cat "$T/uftrace-$o.txt")"
	# the interface says the same on its status line
	printf '%s\n' : "\"blame uftrace-$o\"" Enter >"$T/keys"
	"$DT" tui --script "$T/keys" --dump "$T/screen" --size 40x250 >"$T/tui.out" 2>"$T/tui.err" ||
		fail "tui exited $?: $(cat "$T/tui.err")"
	grep -q "ticks more (.*) were uftrace's own recording" "$T/screen" ||
		fail "the interface does not say uftrace's time: $(cat "$T/screen")"
	if grep -q "uftrace's own recording" "$T/sync-$o.txt"; then
		fail "a --sync-only run says uftrace's time: $(cat "$T/sync-$o.txt")"
	fi
	# libmcount's own blocks are not the program's: no container allocated from libmcount
	run=$(q "SELECT id FROM runs WHERE name = 'uftrace-$o'")
	u=$(q "SELECT count(*) FROM blame_containers WHERE run_id = $run AND kind IN (1, 2)")
	s=$(q "SELECT count(*) FROM blame_containers WHERE run_id = (SELECT id FROM runs WHERE
	       name = 'sync-$o') AND kind IN (1, 2)")
	[ "$u" -le $((s * 2 + 100)) ] ||
		fail "uftrace-$o: $u heap containers against $s without uftrace (libmcount's blocks?)"
done

# the quadrature example, as the README records it (-pg, uftrace on): not most in Other
"$MPICC" -g -O2 -pg -o "$T/quad" "$abs_top_srcdir/examples/blame/quad_mpi.c" -lm >"$T/cc.log" 2>&1 ||
	{ cat "$T/cc.log" >&2; fail "mpicc failed on quad_mpi.c"; }
flags=$(echo "$flags" | sed 's/-np 1/-np 2/')
# large enough that the program outweighs MPI_Init on a loaded machine (which is Other)
record quad -- "$T/quad" 80000 200
expect_status 0 "$DT" blame quad
grep -q '^Total ' "$T/out" || fail "quad: no blame table: $(cat "$T/out")"
# (no Other row: none of the samples went to Other)
total=$(awk '$1 == "Other" { print $6 }' "$T/out" | sed 's/.*(\(.*\))/\1/') # 2 ranks: R0 R1 TOTAL
awk -v x="${total:-0}" 'BEGIN { exit !(x < 50) }' || fail "quad: Other has $total% of the blame: $(cat "$T/out")"
xline=$(grep -n 'double \*x = malloc' "$abs_top_srcdir/examples/blame/quad_mpi.c" | cut -d: -f1)
grep -q "^quad_mpi.c:$xline (main) *heap " "$T/out" || fail "quad: the points x have no row: $(cat "$T/out")"
grep -q '^quad  *double  *MPI_Reduce ' "$T/out" || fail "quad: the result quad has no row: $(cat "$T/out")"
pass
