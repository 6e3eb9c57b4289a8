#!/bin/sh
# The call sites in rank's reasons: tests/sync/extra.c, built -O2 -g and recorded as the README
# says (difftrace-record: uftrace and the sync record together), where rank 1 of the faulty run
# makes one more MPI_Send from extra(), a function of its own. rank names where the program
# made the call at which the trace diverged, `at extra.c:LINE (extra)`, in its text and as the
# trace's JSON "site"; so does a run of the sync record alone (--sync-only), whose trace is
# the record itself (its kept calls without arguments); and `show` names the same site for
# that event. The call beyond a change every trace shares (a changed input) is named so too.
. "${abs_top_srcdir:-.}/tests/lib.sh"

need mpi built timeout uftrace
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
SRC="$abs_top_srcdir/tests/sync/extra.c"
extra=$(site_line "$SRC" extra) || exit 1
cd "$T" || fail "cd $T"
site_prog "$SRC" extra
over=
"$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && over=--oversubscribe
np=3
rec() { # NAME ARGS [RECORD OPTIONS]: record extra.c with ARGS on $np ranks, import it as NAME
	name=$1 arg=$2
	shift 2
	# shellcheck disable=SC2086
	timeout -k 5 120 "$MPIRUN" -np $np $over "$RECORD" "$@" -o "$T/$name" -- "$T/extra" $arg \
		</dev/null >"$T/$name.log" 2>&1 || { cat "$T/$name.log" >&2; fail "$name: the recording failed"; }
	expect_status 0 "$DT" import -q -r "$name" "$T/$name"
}
has() { # REGEX WHAT
	grep -Eq -- "$1" "$T/out" || { cat "$T/out" >&2; fail "$2"; }
}

for mode in default sync; do
	opt=
	[ $mode = sync ] && opt=--sync-only
	rec "n-$mode" ok $opt
	rec "f-$mode" extra $opt
	expect_status 0 "$DT" rank "n-$mode" "f-$mode"
	has "^ +1 +1\.0 .*diverged at kept event [0-9]+ of [0-9]+: MPI_Send(\[[^]]*tag=9[^]]*\])? at extra\.c:$extra \(extra\) where the normal run has MPI_Barrier" \
		"$mode: rank's reason does not name the extra send's site extra.c:$extra (extra)"
	expect_status 0 "$DT" rank --format json "n-$mode" "f-$mode"
	has "\"trace\": \"1\.0\", .*\"site\": \{\"file\": \"[^\"]*/extra\.c\", \"line\": $extra, \"function\": \"extra\"\}, \"reason\": \"diverged at [^\"]* at extra\.c:$extra \(extra\) where [^\"]*\"" \
		"$mode: rank's JSON has no site for 1.0"
	has "\"trace\": \"0\.0\", .*\"site\": null" "$mode: an identical trace has a site"
	# a second rank reads the ranking back from the store: the same reasons
	cp "$T/out" "$T/first.json"
	expect_status 0 "$DT" rank --format json "n-$mode" "f-$mode"
	cmp -s "$T/out" "$T/first.json" || { diff "$T/first.json" "$T/out" >&2; fail "$mode: the cached ranking differs"; }
	expect_status 0 "$DT" show "f-$mode" 1.0
	has "MPI_Send\(.*\).* at extra\.c:$extra \(extra\)" "$mode: show lacks the site"
done

# every pair of ranks exchanges once more in the faulty run (a changed input: its traces
# change alike), and rank 1 makes the extra send too: the call beyond the change its peers
# share is named with its site
np=4
rec n-input "ok 3"
rec f-input "extra 4"
expect_status 0 "$DT" rank n-input f-input
has "^ +1 +1\.0 .*beyond the change its peers share: diverged at call [0-9]+: MPI_Send\[[^]]*tag=9[^]]*\] at extra\.c:$extra \(extra\) where the normal run has MPI_Barrier" \
	"input: the call beyond the common change has no site"
expect_status 0 "$DT" rank --format json n-input f-input
has "\"trace\": \"1\.0\", .*\"site\": \{\"file\": \"[^\"]*/extra\.c\", \"line\": $extra, \"function\": \"extra\"\}, \"reason\": \"beyond " \
	"input: rank's JSON has no site for 1.0"
pass
