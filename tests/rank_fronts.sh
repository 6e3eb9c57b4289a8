#!/bin/sh
# One diagnosis for every front-end (issue 22): `rank --format json` (and csv) and the
# interface's ranking view (headless) give the same order, positions and reasons on the same
# stores: a blind filter (only the program's own functions changed), a communication change,
# a tie among MPI_Test noise broken by the calls the filter drops, and a hung run with a
# hang-safe record; their pairs whose similarity changed too; the diff of the trace they put
# first is not identical, from the command line or the view. After
# the view ranked under every call and a diff was opened from it, `:rank` of another pair in
# the same session is what `difftrace rank` says of that pair. The sweep table: `rank --sweep`
# and the view's table over the settings it cached give the same rows (B-score, processes and
# threads with their scores, ties, what an empty row means) in the same order.
. "${abs_top_srcdir:-.}/tests/lib.sh"
. "$abs_top_srcdir/tests/rank_runs.sh"

MK="$abs_top_builddir/tests/mk_sync_rec"
[ -x "$MK" ] || fail "tests/mk_sync_rec is not built"
for k in normal own order count; do
	mk "$T/$k" "$k"
	expect_status 0 "$DT" import -q --run "$k" "$T/$k"
done
# noise: 4 processes, MPI_Test polls varying on every process; in x, 2.0 calls compute_b once
# more (only the calls the filter drops single it out)
noise() { # DIR SEED EXTRA
	mkdir "$1"
	for p in 0 1 2 3; do
		{ printf 'main\nMPI_Init\n[ret]\n'
		  i=0; while [ $i -lt 6 ]; do
			printf 'compute_a\n[ret]\n'
			[ "$3" = 1 ] && [ $p = 2 ] && [ $i = 3 ] && printf 'compute_b\n[ret]\n'
			t=$(( (p + i * $2) % 3 + 1 + $2 ))
			while [ $t -gt 0 ]; do printf 'MPI_Test\n[ret]\n'; t=$((t - 1)); done
			printf 'MPI_Allreduce\n[ret]\n'
			i=$((i + 1)); done
		  printf 'MPI_Finalize\n[ret]\n[ret]\n'; } > "$1/$p.0.txt"
	done
}
noise "$T/nn" 1 0
noise "$T/nx" 2 1
expect_status 0 "$DT" import -q --run nn "$T/nn"
expect_status 0 "$DT" import -q --run nx "$T/nx"
"$MK" "$T/sn" ok || fail "mk_sync_rec ok"
"$MK" "$T/sh" hung || fail "mk_sync_rec hung"
expect_status 0 "$DT" import -q --run sn "$T/sn"
expect_status 0 "$DT" import -q --run sh "$T/sh"

# cli NORMAL FAULTY: "position trace reason" of rank's JSON rows into $T/cli, the same as its
# CSV rows' (the runs given by name there: rank NORMAL FAULTY is rank --normal --faulty)
cli() {
	expect_status 0 "$DT" rank --normal "$1" --faulty "$2" --format json
	sed -n 's/^ *{"position": \([0-9]*\), .*"trace": "\([0-9.]*\)", .*"reason": "\(.*\)"}.\{0,1\}$/\1 \2 \3/p' \
		"$T/out" > "$T/cli"
	expect_status 0 "$DT" rank --format csv "$1" "$2"
	sed -e 1d -e 's/^\([^,]*\),\([^,]*\),\([^,]*,\)\{8\}"\{0,1\}/\1 \2 /' -e 's/"$//' \
		"$T/out" > "$T/csv"
	diff "$T/cli" "$T/csv" > "$T/d" || fail "rank $1 $2: json and csv differ: $(cat "$T/d")"
}
# view KEYS...: the same from the ranking view's screen (ties marked = there) into $T/view
view() {
	printf '%s\n' "$*" > "$T/keys"
	expect_status 0 "$DT" tui --script "$T/keys" --dump "$T/screen" --size 60x600
	sed -n 's/^[> ] *\([0-9][0-9]*\)=\{0,1\} \([0-9][0-9]*\.[0-9][0-9]*\)  .* [0-9][0-9]* \(->\|==\) [0-9][0-9]*  \(.*[^ ]\) *$/\1 \2 \4/p' \
		"$T/screen" > "$T/view"
}
same() { # NORMAL FAULTY WHAT
	cli "$1" "$2"
	[ -s "$T/cli" ] || fail "$3: rank printed no rows: $(cat "$T/out")"
	[ -s "$T/view" ] || fail "$3: the view showed no rows: $(cat "$T/screen")"
	diff "$T/cli" "$T/view" > "$T/d" || fail "$3: rank and the view differ: $(cat "$T/d")"
}

# pairs NORMAL FAULTY WHAT: rank's pairs (as many as it lists traces) are the view's first, in
# $T/screen; neither lists a pair whose similarity did not change
pairs() {
	expect_status 0 "$DT" rank --top 100 "$1" "$2"
	sed -n '/^most changed pairs/,$p' "$T/out" | awk 'NR > 2 { print $1, $2, $3, $4 }' > "$T/pc"
	awk '/# PAIR/ { on = 1; next } on && !NF { exit } on { sub(/^>/, ""); print $1, $2, $3, $4 }' \
		"$T/screen" | head -n "$(wc -l < "$T/pc")" > "$T/pv"
	diff "$T/pc" "$T/pv" > "$T/d" || fail "$3: rank's pairs and the view's differ: $(cat "$T/d")"
	grep -q ' 0\.000$' "$T/pc" "$T/pv" && fail "$3: a pair that did not change: $(cat "$T/screen")"
	[ "$2" != order ] || [ "$(wc -l < "$T/pc")" = 3 ] || fail "$3: rank's pairs: $(cat "$T/out")"
	return 0
}

for pair in "normal own blind filter" "normal order communication" "nn nx own-calls tie" \
	"sn sh hung run"; do
	set -- $pair
	n=$1 f=$2
	shift 2
	view : "\"rank $n $f\"" Enter wait
	same "$n" "$f" "$*"
	pairs "$n" "$f" "$*"
	# the diff of the trace both put first is never identical, from either
	first=$(head -1 "$T/cli" | cut -d' ' -f2)
	expect_status 0 "$DT" diff "$n:$first" "$f:$first"
	grep -q '(identical)' "$T/out" && fail "$*: diff of the first, $first: identical: $(cat "$T/out")"
	view : "\"rank $n $f\"" Enter wait Enter wait
	grep -q ":  [0-9]* changed, [0-9]* only left, [0-9]* only right" "$T/screen" ||
		fail "$*: the view's diff of the first, $first: $(cat "$T/screen")"
done
grep -q 'sees no difference' "$T/screen" && fail "hung run: blind"
# the blind ranking said so in both
view : '"rank normal own"' Enter wait
grep -q 'filter 11\.mpi\.ompall\.0K10 sees no difference; the program.s own functions do' "$T/screen" ||
	fail "the view, blind: not said: $(cat "$T/screen")"
# the tie: 2.0 alone first in both, by its other calls
cli nn nx
[ "$(head -1 "$T/cli" | cut -d' ' -f1-2)" = "1 2.0" ] || fail "own-calls tie: 2.0 not first: $(cat "$T/cli")"

# a diff opened from the blind ranking is under every call, and the interface's setting stays:
# :rank of another pair is then what rank says of it
view : '"rank normal own"' Enter wait Enter wait
grep -q 'under filter everything, as ranked' "$T/screen" || fail "diff from the ranking: $(cat "$T/screen")"
grep -q 'work_b' "$T/screen" || fail "diff from the ranking: no work_b: $(cat "$T/screen")"
view : '"rank normal own"' Enter wait Enter wait q q : '"rank normal count"' Enter wait
same normal count "after a diff under every call"
grep -q 'filter 11\.mpi\.ompall\.0K10' "$T/screen" || fail "the setting changed: $(cat "$T/screen")"

# one run alone: rank --run's outliers are the classes view's, in the same order with the same
# scores and class sizes
for r in "own everything" "nx mpi,ompall" "sh mpi,ompall"; do
	set -- $r
	expect_status 0 "$DT" rank --run "$1" --filter "$2" --top 10
	awk 'on { $1 = $1; print } /^ *# *trace/ { on = 1 }' "$T/out" > "$T/a"
	[ -s "$T/a" ] || fail "rank --run $1: no outliers: $(cat "$T/out")"
	printf ': "classes %s" Enter wait\n' "$1" > "$T/keys"
	expect_status 0 "$DT" tui --filter "$2" --script "$T/keys" --dump "$T/screen" --size 60x160
	awk 'on && !NF { exit } on { sub(/^>/, ""); $1 = $1; print } /outliers, the traces/ { on = 1 }' \
		"$T/screen" > "$T/b"
	diff "$T/a" "$T/b" > "$T/d" || fail "one run, $1: rank --run and the view differ: $(cat "$T/d")"
	[ "$1" = own ] && { [ "$(head -1 "$T/b")" = "1 2.1 0.914 1 (alone)" ] ||
		fail "one run: 2.1, alone under every call, not first: $(cat "$T/b")"; }
done

# the sweep: the view lists 3 processes and 4 threads a row, rank --top 3 and --top 4 as many;
# the view's rows of the settings rank computed, in its order, are rank's
SW="$abs_top_srcdir/tests/sweep_rows.awk"
for f in order count own; do
	for top in 3 4; do
		expect_status 0 "$DT" rank --normal normal --faulty "$f" --sweep --top "$top" \
			--sweep-filters 'ompall;mpi;everything' --sweep-attrs 'sing.actual,doub.log10'
		awk -v cli=1 -f "$SW" "$T/out" > "$T/sw$top"
	done
	[ "$(wc -l < "$T/sw3")" = 6 ] || fail "sweep $f: rows: $(cat "$T/out")"
	view : "\"rank normal $f\"" Enter wait
	awk -f "$SW" "$T/screen" > "$T/swv"
	cut -d'|' -f1-3 "$T/sw3" | while read -r k; do grep -F "$k|" "$T/swv"; done > "$T/swvk"
	cut -d'|' -f1-5 "$T/sw3" > "$T/a"
	cut -d'|' -f1-5 "$T/swvk" > "$T/b"
	diff "$T/a" "$T/b" > "$T/d" || fail "sweep $f: processes differ: $(cat "$T/d")"
	cut -d'|' -f1-4,6 "$T/sw4" > "$T/a"
	cut -d'|' -f1-4,6 "$T/swvk" > "$T/b"
	diff "$T/a" "$T/b" > "$T/d" || fail "sweep $f: threads differ: $(cat "$T/d")"
	# the view's own order, of those rows
	grep -F -f "$T/swvk" "$T/swv" | cmp -s - "$T/swvk" || fail "sweep $f: order: $(cat "$T/swv")"
done
pass
