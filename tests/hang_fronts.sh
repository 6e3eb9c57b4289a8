#!/bin/sh
# One hang report for every front-end: the interface's hang view (headless) and `difftrace
# hang` give the same most likely cause, the same changed input, the same threads, edges,
# mismatches, calls that can never complete and cycles, on the same made-up records
# (tests/mk_sync_rec.c): a deadlock, a tag and a count mismatch, a ring of sends hung by a
# larger size; and with a normal run, whether the view was given it (:hang RUN NORMAL) or
# found it in the pair the interface ranks (S from the ranking view, or from the runs view
# after marking the runs 1 and 2), which its title says; a normal run not in the store is said.
. "${abs_top_srcdir:-.}/tests/lib.sh"

MK="$abs_top_builddir/tests/mk_sync_rec"
[ -x "$MK" ] || fail "tests/mk_sync_rec is not built"
"$MK" "$T/ok" ok || fail "mk_sync_rec ok"
"$MK" "$T/hung" hung || fail "mk_sync_rec hung"
"$MK" "$T/tag" tag || fail "mk_sync_rec tag"
"$MK" "$T/count" count || fail "mk_sync_rec count"
"$MK" "$T/s1" size 1000 || fail "mk_sync_rec size 1000"
"$MK" "$T/s2" size 2000 || fail "mk_sync_rec size 2000"
for r in ok hung tag count s1 s2; do
	expect_status 0 "$DT" import -q --run "$r" "$T/$r"
done

# lines FILE: the report's lines, each under its section's letter, spaces collapsed: the cause
# (K), the changed input (A), the groups of threads (G, without the view's count of them), the
# wait-for graph (E), the mismatches (M), the locks held (L), the calls that can never
# complete (N), the cycles (C)
lines() {
	sed -e 's/^[> ] //' -e 's/  *$//' "$1" | awk '
	/^ *most likely cause: / { sub(/^ */, ""); print "K " $0; next }
	/changed them alike against the normal run: / { $1 = $1; print "A " $0; next }
	/^where each thread is at the end:/ { s = "G"; next }
	/^wait-for graph/ { s = "E"; next }
	/^mismatches / { s = "M"; next }
	/^locks and critical sections/ { s = "L"; next }
	/^calls that can never complete/ { s = "N"; next }
	/^deadlock: .*wait-for cycle|^wait-for cycles \(deadlock\)/ { s = "C"; next }
	/^$/ || /^no wait-for cycle/ || /^difftrace:/ { s = ""; next }
	s != "" {
		$1 = $1
		if (s == "G") sub(/ [0-9]+ threads?$/, "")
		print s " " $0
	}'
}
# same WHAT RUN [NORMAL] -- KEYS...: the view opened by KEYS and `difftrace hang [--normal
# NORMAL] RUN` give the same lines
same() {
	what=$1 run=$2 normal=
	shift 2
	if [ "$1" != -- ]; then normal=$1; shift; fi
	shift
	printf '%s\n' "$@" > "$T/keys"
	expect_status 0 "$DT" tui --script "$T/keys" --dump "$T/screen" --size 80x300
	lines "$T/screen" > "$T/view"
	expect_status 0 "$DT" hang ${normal:+--normal "$normal"} "$run"
	lines "$T/out" > "$T/cli"
	grep -q '^K ' "$T/cli" || fail "$what: no cause from hang: $(cat "$T/out")"
	grep -q '^G ' "$T/cli" || fail "$what: no threads from hang: $(cat "$T/out")"
	diff "$T/cli" "$T/view" > "$T/d" || fail "$what: hang and the view differ: $(cat "$T/d")"
	t="^difftrace: where each thread of $run is at the end"
	[ -z "$normal" ] || t="$t, against the normal run $normal"
	grep -q "$t\$" "$T/screen" || fail "$what: the view's title is not '$t': $(cat "$T/screen")"
}

same "deadlock" hung -- : '"hang hung"' Enter
same "tag mismatch" tag -- : '"hang tag"' Enter
grep -q '^M tag mismatch: ' "$T/cli" || fail "tag: no mismatch: $(cat "$T/out")"
same "count mismatch" count -- : '"hang count"' Enter
same "send cycle" s2 -- : '"hang s2"' Enter
# with a normal run: the cause is weighed against it
same "deadlock, normal given" hung ok -- : '"hang hung ok"' Enter
grep -q "^K most likely cause: 0\.0, 1\.0, 2\.0 (tied): its calls depart from the normal run's" "$T/cli" ||
	fail "hung --normal ok: not the departure: $(cat "$T/out")"
same "deadlock, from the ranking" hung ok -- : '"rank ok hung"' Enter wait S
same "send cycle, normal given" s2 s1 -- : '"hang s2 s1"' Enter
grep -q '^A .*count 1000 -> 2000 in MPI_Recv, MPI_Send' "$T/cli" ||
	fail "s2 --normal s1: no changed input: $(cat "$T/out")"
same "send cycle, the pair marked" s2 s1 -- / '"s1"' Enter 1 / '"s2"' Enter 2 S
# a normal run not in the store: said, and no view opens
printf '%s\n' : '"hang hung nosuch"' Enter > "$T/keys"
expect_status 0 "$DT" tui --script "$T/keys" --dump "$T/screen" --size 24x120
grep -q "^normal run: no run named 'nosuch'" "$T/screen" || fail "an unknown normal run: $(cat "$T/screen")"
grep -q '^difftrace: where each thread' "$T/screen" && fail "a view on an unknown normal run"
# a run that is not the pair's faulty one has no normal run
same "another run than the pair's" tag -- : '"rank ok hung"' Enter wait : '"hang tag"' Enter
pass
