#!/bin/sh
# A call name the interface's background analysis makes (an MPI call with its arguments,
# MPI_Barrier[comm=WORLD], interned by the analysis on its own connection to the store) is
# shown by name in the trace view, not as '?': the interface reads a function name it lacks
# again when the store changed. A -pg program with a function of that name, under uftrace
# with the argument spec difftrace-record gives MPI_Barrier (no MPI needed).
. "${abs_top_srcdir:-.}/tests/lib.sh"

need uftrace built
cat > "$T/fake.c" <<'C'
__attribute__((noinline)) int MPI_Barrier(long comm)
{
	return (int)(comm & 1);
}
int main(void)
{
	int s = 0;
	for (int i = 0; i < 3; i++)
		s += MPI_Barrier(0x44000000L); /* MPICH's MPI_COMM_WORLD */
	return s;
}
C
cc -pg -O1 -o "$T/fake" "$T/fake.c" >"$T/cc.log" 2>&1 || { cat "$T/cc.log" >&2; fail "cc failed"; }
cd "$T" || fail "cd $T"
"$UFTRACE" record -d "$T/rec" --no-event -A 'MPI_Barrier@arg1/x64' "$T/fake" >"$T/rec.log" 2>&1
[ -f "$T/rec/info" ] || { cat "$T/rec.log" >&2; fail "uftrace record failed"; }
expect_status 0 "$DT" import -q --run fake "$T/rec"
# no analysis yet: the interface's makes MPI_Barrier[comm=WORLD]
expect_status 0 "$DT" show fake 0.0
grep -q 'MPI_Barrier(comm=WORLD)' "$T/out" || fail "the argument is not recorded: $(cat "$T/out")"
printf '%s\n' : '"nlr fake 0.0"' Enter wait >"$T/keys"
LC_ALL=C "$DT" tui --script "$T/keys" --dump "$T/screen" --size 24x100 >"$T/tui.out" 2>"$T/err" ||
	fail "tui exited $?: $(cat "$T/err")"
grep -q 'MPI_Barrier\[comm=WORLD\]' "$T/screen" || { cat "$T/screen" >&2; fail "no MPI_Barrier[comm=WORLD]"; }
grep -Eq '^[> ] +[0-9]+ +\?' "$T/screen" && { cat "$T/screen" >&2; fail "a name shown as '?'"; }
# the same store, analysed already: the names are there from the start
LC_ALL=C "$DT" tui --script "$T/keys" --dump "$T/screen2" --size 24x100 >"$T/tui.out" 2>"$T/err" ||
	fail "tui exited $?: $(cat "$T/err")"
grep -q 'MPI_Barrier\[comm=WORLD\]' "$T/screen2" || { cat "$T/screen2" >&2; fail "no name the second time"; }
exit 0
