#!/bin/sh
# The default ranking when the filter does not single out a trace (issue 9, item 3): MPI_Test
# polls whose number varies on every process make every trace differ under the default filter;
# a thread whose own compute path changed (one more call of compute_b) must still come first,
# alone, because its other calls (filter everything) differ too. A communication bug among the
# same noise keeps its first place, and where the filter singles out a trace nothing else is
# looked at.
. "${abs_top_srcdir:-.}/tests/lib.sh"

# mk DIR SEED KIND: 4 processes x 1 thread, 6 iterations of compute_a, MPI_Isend, MPI_Test
# polls (how many depends on the process, the iteration and SEED: the noise), MPI_Allreduce.
# KIND changes process 2:
#   extra  it calls compute_b once more in iteration 3
#   tag    its MPI_Isend of iteration 3 has another tag (no call of its own changes)
#   tie    (with SEED 0: no noise) processes 0 and 3 poll once more in iteration 3, alike under
#          the filter; process 3 also calls compute_b then
mk() {
	mkdir "$1"
	for p in 0 1 2 3; do
		{ printf 'main\nMPI_Init\n[ret]\n'
		  i=0; while [ $i -lt 6 ]; do
			printf 'compute_a\n[ret]\n'
			[ "$3" = extra ] && [ $p = 2 ] && [ $i = 3 ] && printf 'compute_b\n[ret]\n'
			if [ "$3" = tag ] && [ $p = 2 ] && [ $i = 3 ]; then printf 'MPI_Isend tag=99\n[ret]\n'
			else printf 'MPI_Isend tag=1\n[ret]\n'; fi
			t=$(( (p + i * $2) % 3 + 1 + $2 ))
			if [ "$3" = tie ] && [ $i = 3 ] && [ $((p % 3)) = 0 ]; then
				t=$((t + 1))
				[ $p = 3 ] && printf 'compute_b\n[ret]\n'
			fi
			while [ $t -gt 0 ]; do printf 'MPI_Test\n[ret]\n'; t=$((t - 1)); done
			printf 'MPI_Allreduce\n[ret]\n'
			i=$((i + 1)); done
		  printf 'MPI_Finalize\n[ret]\n[ret]\n'; } > "$1/$p.0.txt"
	done
}
mk "$T/normal" 1 none
mk "$T/extra" 2 extra
mk "$T/tag" 2 tag
mk "$T/calm" 0 none
mk "$T/tie" 0 tie
for k in normal extra tag calm tie; do
	expect_status 0 "$DT" import -q --run $k "$T/$k"
done

# --- the audit's case: noise on every process, one thread's compute path changed -------------
# the interface's ranking view: every call analysed in the background, then the same order
printf 'wait\n' > "$T/keys"
expect_status 0 "$DT" tui --normal normal --faulty extra --script "$T/keys" --dump "$T/screen" --size 30x200
grep -q 'filter 11\.mpi\.ompall\.0K10 does not single out a trace (every trace differs)' "$T/screen" ||
	fail "the ranking view, extra: not said: $(cat "$T/screen")"
grep -q '^>  *1 2\.0 ' "$T/screen" || fail "the ranking view, extra: 2.0 not first: $(cat "$T/screen")"
grep -q '^  *2 ' "$T/screen" || fail "the ranking view, extra: 2.0 not alone first: $(cat "$T/screen")"
expect_status 0 "$DT" rank --normal normal --faulty extra
grep -q '^# filter 11\.mpi\.ompall\.0K10 does not single out a trace (every trace differs)' "$T/out" ||
	fail "extra: not said: $(cat "$T/out")"
grep -q "^   1  2\.0  .*; its own calls differ at 6 of 7: compute_b where the normal run has compute_a$" "$T/out" ||
	fail "extra: 2.0 not first, or why not said: $(cat "$T/out")"
expect_status 0 "$DT" rank --normal normal --faulty extra --format csv
[ "$(sed -n 2p "$T/out" | cut -d, -f1-2)" = "1,2.0" ] || fail "extra: 2.0 not first: $(cat "$T/out")"
[ "$(awk -F, 'NR > 1 && $1 == 1' "$T/out" | wc -l)" = 1 ] || fail "extra: 2.0 not alone first: $(cat "$T/out")"
expect_status 0 "$DT" rank --normal normal --faulty extra --format json
grep -q '"other_calls_compared": true' "$T/out" || fail "extra, json: $(cat "$T/out")"
# the paper's ranking is left as it is
expect_status 0 "$DT" rank --normal normal --faulty extra --score jsmd
grep -q 'does not single out' "$T/out" && fail "extra, jsmd: $(cat "$T/out")"

# --- a communication bug among the same noise keeps its first place --------------------------
expect_status 0 "$DT" rank --normal normal --faulty tag --format csv
[ "$(sed -n 2p "$T/out" | cut -d, -f1-2)" = "1,2.0" ] || fail "tag: 2.0 not first: $(cat "$T/out")"
[ "$(awk -F, 'NR > 1 && $1 == 1' "$T/out" | wc -l)" = 1 ] || fail "tag: 2.0 not alone first: $(cat "$T/out")"

# --- a tie at the top is broken by the calls the filter drops --------------------------------
expect_status 0 "$DT" rank --normal calm --faulty tie --format csv
[ "$(sed -n 2p "$T/out" | cut -d, -f1-2)" = "1,3.0" ] || fail "tie: 3.0 not first: $(cat "$T/out")"
[ "$(awk -F, 'NR > 1 && $1 == 1' "$T/out" | wc -l)" = 1 ] || fail "tie: 3.0 not alone first: $(cat "$T/out")"
[ "$(awk -F, 'NR > 1 && $5 == "identical" { print $1 }' "$T/out" | sort -u)" = 3 ] ||
	fail "tie: the identical traces: $(cat "$T/out")"

# --- where the filter singles out a trace, nothing else is looked at --------------------------
mk "$T/one" 1 tag
expect_status 0 "$DT" import -q --run one "$T/one"
expect_status 0 "$DT" rank --normal normal --faulty one
grep -q 'does not single out' "$T/out" && fail "one: $(cat "$T/out")"
grep -q 'own calls differ' "$T/out" && fail "one: own calls looked at: $(cat "$T/out")"
pass
