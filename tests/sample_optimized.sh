#!/bin/sh
# Optimized builds: what blame cannot find is said, per function, never silently. At -O2 the
# structure p of work() (tests/blame/optimized.c) lives in registers, and the debug
# information gives it no stack location at the sampled code: import names the function,
# the variable, its type and why, stores it, and blame says it once per function; at -O0
# nothing is said.
. "${abs_top_srcdir:-..}/tests/lib.sh"
need built mpi
[ -f "$abs_top_builddir/libdifftrace-sample.so" ] ||
	skip "libdifftrace-sample.so not built (configure found no libunwind: apt-get install libunwind-dev)"
cd "$T" || fail "cd $T"
S="$abs_top_srcdir/tests/blame/optimized.c"
flags="-np 1"
"$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags="$flags --oversubscribe"
[ "$(id -u)" = 0 ] && "$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags="$flags --allow-run-as-root"
for o in O2 O0; do
	"$MPICC" -g -$o -o "$T/opt-$o" "$S" >"$T/cc.log" 2>&1 || { cat "$T/cc.log" >&2; fail "mpicc -$o failed"; }
	# shellcheck disable=SC2086
	timeout -k 5 150 "$MPIRUN" $flags "$RECORD" --sample --sync-only -o "$T/rec-$o" -- "$T/opt-$o" 2000 \
		</dev/null >"$T/run.log" 2>&1 || { cat "$T/run.log" >&2; fail "the recorded run failed"; }
	expect_status 0 "$DT" import -r "opt-$o" "$T/rec-$o"
	cp "$T/out" "$T/import-$o"
done
if ! grep -q '^note: in work[.a-z0-9]*, p (struct pair) has no stack location at the sampled code: ' "$T/import-O2"; then
	# only where this compiler keeps p in registers at -O2
	command -v readelf >/dev/null || skip "readelf not found (binutils)"
	readelf --debug-dump=loc "$T/opt-O2" 2>/dev/null | grep -q 'DW_OP_reg\|DW_OP_piece' ||
		skip "this compiler keeps p on the stack at -O2"
	fail "-O2: no note that p has no stack location: $(cat "$T/import-O2")"
fi
grep -q 'has no stack location' "$T/import-O0" && fail "-O0: a variable said lost: $(cat "$T/import-O0")"
# blame says it too, in one line with what to do
expect_status 0 "$DT" blame opt-O2
grep -q "^# note: arrays or structures of the program's sampled functions have no stack location .*build with -Og or -O0 -g" "$T/out" ||
	fail "blame does not say what -O2 lost: $(cat "$T/out")"
# and per function, once, what was lost and why, from what the import stored
[ "$(grep -c '^# note: in work[.a-z0-9]*, no stack location at the sampled code for ' "$T/out")" = 1 ] ||
	fail "blame does not say once what work lost: $(cat "$T/out")"
grep -q '^# note: in work[.a-z0-9]*, no stack location at the sampled code for .*p (struct pair): [a-z]' "$T/out" ||
	fail "blame does not name p and why: $(cat "$T/out")"
# the interface's blame view ends with the same per-function note
printf '%s\n' : '"blame opt-O2"' Enter >"$T/keys"
"$DT" tui --script "$T/keys" --dump "$T/screen" --size 40x220 >"$T/tui.out" 2>"$T/tui.err" ||
	fail "tui exited $?: $(cat "$T/tui.err")"
grep -q 'note: in work[.a-z0-9]*, no stack location at the sampled code for .*p (struct pair)' "$T/screen" ||
	fail "the blame view does not say what work lost: $(cat "$T/screen")"
expect_status 0 "$DT" blame opt-O0
grep -q "no stack location" "$T/out" && fail "blame at -O0 says a variable is lost: $(cat "$T/out")"
# a store of schema 12 (no table of lost variables) is migrated and reads as before: the
# flag's note stays, the per-function notes are gone with the import that made them
if command -v sqlite3 >/dev/null; then
	sqlite3 "$DIFFTRACE_DB" "DROP TABLE blame_lost; PRAGMA user_version = 12;" || fail "sqlite3"
	expect_status 0 "$DT" blame opt-O2
	grep -q "^# note: arrays or structures of the program's sampled functions have no stack location" "$T/out" ||
		fail "blame on a store of schema 12: $(cat "$T/out")"
	grep -q '^# note: in work' "$T/out" && fail "per-function notes from a store without them: $(cat "$T/out")"
	[ "$(sqlite3 "$DIFFTRACE_DB" 'PRAGMA user_version')" = 13 ] || fail "the store was not migrated"
	# opened read-only, a store of schema 12 is read as it is (no table of lost variables)
	if reader_init; then
		mkdir "$T/ro" "$T/home" && cp "$DIFFTRACE_DB" "$T/ro/store.db" || fail "cp"
		sqlite3 "$T/ro/store.db" "DROP TABLE blame_lost; PRAGMA user_version = 12;" || fail "sqlite3"
		chmod 755 "$T" "$T/ro" && chmod 644 "$T/ro/store.db" && chmod 777 "$T/home" || fail "chmod"
		HOME="$T/home" as_reader "$RDT" -d "$T/ro/store.db" blame opt-O2 >"$T/out" 2>"$T/err" ||
			fail "blame on a read-only store of schema 12: $(cat "$T/err")"
		grep -q "^# note: arrays or structures of the program's sampled functions have no stack location" "$T/out" ||
			fail "blame on a read-only store of schema 12: $(cat "$T/out")"
		[ "$(sqlite3 "$T/ro/store.db" 'PRAGMA user_version')" = 12 ] || fail "a read-only store was migrated"
	else
		echo "note: cannot run difftrace as another user ($READER_WHY): the read-only store of schema 12 is not tested"
	fi
fi
pass
