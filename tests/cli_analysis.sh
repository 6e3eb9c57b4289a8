#!/bin/sh
# The analysis commands end to end on text runs: the paper's four-rank example (classes and
# Jaccard 4/6), a planted divergence that must rank first, diffNLR of the diverged trace, the
# loops of a trace, the lattice, caching, and wrong input.
. "${abs_top_srcdir:-.}/tests/lib.sh"

# --- the DiffTrace paper's example: rank 0 receives three times, ranks 1-3 send once ---------
mkdir "$T/paper"
for r in 0 1 2 3; do
	{
		printf 'MPI_Init\n[ret]\nMPI_Comm_rank\n[ret]\nMPI_Comm_size\n[ret]\n'
		if [ $r = 0 ]; then printf 'MPI_Recv\n[ret]\nMPI_Recv\n[ret]\nMPI_Recv\n[ret]\n'
		else printf 'MPI_Send\n[ret]\n'; fi
		printf 'MPI_Finalize\n[ret]\n'
	} > "$T/paper/$r.0.txt"
done
expect_status 0 "$DT" import -q --run paper "$T/paper"
expect_status 0 "$DT" classes --filter mpi --attrs sing.orig --by identical --format csv paper
grep -q '^identical,0,1,P 0 T 0$' "$T/out" || fail "class {0}: $(cat "$T/out")"
grep -q '^identical,1,3,P 1-3 T 0$' "$T/out" || fail "class {1,2,3}: $(cat "$T/out")"
expect_status 0 "$DT" jsm --filter mpi --attrs sing.orig --format csv paper
[ "$(sed -n 2p "$T/out")" = "0.0,1.000000,0.666667,0.666667,0.666667" ] || fail "J = 4/6: $(cat "$T/out")"
expect_status 0 "$DT" nlr --filter mpi paper 0.0
grep -q '^(MPI_Recv)^3$' "$T/out" || fail "nlr loop: $(cat "$T/out")"
grep -q '^L[0-9]* = (MPI_Recv)$' "$T/out" || fail "nlr loop table: $(cat "$T/out")"

# --- the default filter: ompall,mpi, or everything in a store without MPI or OpenMP calls -----
mkdir "$T/plain"
printf 'main\nfoo\n[ret]\nbar\n[ret]\n[ret]\n' > "$T/plain/0.0.txt"
cp "$T/plain/0.0.txt" "$T/plain/1.0.txt"
expect_status 0 "$DT" -d "$T/plain.db" import -q --run plain "$T/plain"
expect_status 0 "$DT" -d "$T/plain.db" analyze plain
grep -q '6 of 12 events kept by filter 11\.1K10 (everything), attributes sing\.log10\.args' "$T/out" ||
	fail "no fallback to everything: $(cat "$T/out")"
expect_status 0 "$DT" analyze paper
grep -q 'kept by filter 11\.mpi\.ompall\.0K10 (mpi,ompall), attributes sing\.log10\.args' "$T/out" ||
	fail "default filter: $(cat "$T/out")"

# --- novelty: a trace that does something the normal run never did weighs more than one that
# only lost calls. Two traces a b; in the faulty run 1.0 makes x instead of b (x is novel: +1/2)
mkdir "$T/nov_n" "$T/nov_f" "$T/nov_l"
for p in 0 1; do printf 'a\n[ret]\nb\n[ret]\n' > "$T/nov_n/$p.0.txt"; done
cp "$T/nov_n/0.0.txt" "$T/nov_f/0.0.txt"
cp "$T/nov_n/0.0.txt" "$T/nov_l/0.0.txt"
printf 'a\n[ret]\nx\n[ret]\n' > "$T/nov_f/1.0.txt"
printf 'a\n[ret]\n' > "$T/nov_l/1.0.txt"
for r in nov_n nov_f nov_l; do expect_status 0 "$DT" -d "$T/nov.db" import -q --run $r "$T/$r"; done
# JSM_D(0,1) = 1 - 1/3; 1.0's own change 1 - J({a,b},{a,x}) = 2/3, novelty 1/2 (x of {a,x}).
# The paper's row sums (--score jsmd, JSM_D's diagonal 0) tie: 2/3 each; the self term of
# jsmd-self breaks the tie (issue 27, item 4).
expect_status 0 "$DT" -d "$T/nov.db" rank --score jsmd --filter everything --attrs sing.orig --normal nov_n --faulty nov_f
grep -q '^  1=  0\.0  *0\.667  ' "$T/out" || fail "paper's, 0.0: $(cat "$T/out")"
grep -q '^  1=  1\.0  *0\.667  ' "$T/out" || fail "paper's, 1.0 tied: $(cat "$T/out")"
grep -q 'most changed traces (row sum of JSM_D;' "$T/out" || fail "paper's: $(cat "$T/out")"
expect_status 0 "$DT" -d "$T/nov.db" rank --score jsmd --format csv --filter everything --attrs sing.orig --normal nov_n --faulty nov_f
grep -q '^1,0\.0,0\.666667,0\.666667,' "$T/out" || fail "paper's csv: $(cat "$T/out")"
grep -q '^1,1\.0,0\.666667,0\.666667,' "$T/out" || fail "paper's csv, 1.0: $(cat "$T/out")"
expect_status 0 "$DT" -d "$T/nov.db" rank --score jsmd-self --filter everything --attrs sing.orig --normal nov_n --faulty nov_f
grep -q '^   1  1\.0  *1\.833  ' "$T/out" || fail "novelty: $(cat "$T/out")"
grep -q '^   2  0\.0  *0\.667  ' "$T/out" || fail "novelty, 0.0: $(cat "$T/out")"
grep -q "most changed traces (row sum of JSM_D plus the trace's own change;" "$T/out" ||
	fail "jsmd-self: $(cat "$T/out")"
# the sweep ranks by the paper's row sums, and the interface's sweep table as rank --sweep does
expect_status 0 "$DT" -d "$T/nov.db" rank --normal nov_n --faulty nov_f --sweep --sweep-filters everything --sweep-attrs sing.orig,doub.orig
grep -q '^11\.1K10  sing\.orig\.args .* \[0\.0 1\.0\] 0\.667$' "$T/out" || fail "sweep: the paper's sums: $(cat "$T/out")"
printf ': "rank nov_n nov_f" Enter wait\n' > "$T/keys"
expect_status 0 "$DT" -d "$T/nov.db" tui --script "$T/keys" --dump "$T/screen" --size 40x200
grep -q '11\.1K10  sing\.orig\.args  .*\[0\.0 1\.0\] 0\.67$' "$T/screen" ||
	fail "the interface's sweep: not the paper's sums: $(cat "$T/screen")"
expect_status 0 "$DT" -d "$T/nov.db" rank --score jsmd-self --format json --filter everything --attrs sing.orig --normal nov_n --faulty nov_f
grep -q '"score": "jsmd-self"' "$T/out" || fail "jsmd-self json: $(cat "$T/out")"
expect_status 2 "$DT" -d "$T/nov.db" rank --score jsmd+self --normal nov_n --faulty nov_f
expect_err "unknown score 'jsmd+self' (combined, jsmd, jsmd-self)"
# combined (the default): 0.0 is identical, 0; 1.0 adds the share of its events outside the
# common beginning and end (a x against a b, the returns not kept: 2 of 4)
expect_status 0 "$DT" -d "$T/nov.db" rank --filter everything --attrs sing.orig --normal nov_n --faulty nov_f
grep -q '^   1  1\.0  *2\.333  2->2  *diverged at kept event 2 of 2: x where the normal run has b$' "$T/out" ||
	fail "combined: $(cat "$T/out")"
grep -q '^   2  0\.0  *0\.000  2->2  *identical$' "$T/out" || fail "combined, 0.0: $(cat "$T/out")"
# lost only: JSM_D(0,1) = 1/2, own change 1/2, nothing novel
expect_status 0 "$DT" -d "$T/nov.db" rank --score jsmd-self --filter everything --attrs sing.orig --normal nov_n --faulty nov_l
grep -q '^   1  1\.0  *1\.000  ' "$T/out" || fail "no novelty: $(cat "$T/out")"
# a trace that ended normally with the beginning of its counterpart's events ended early
expect_status 0 "$DT" -d "$T/nov.db" rank --filter everything --attrs sing.orig --normal nov_n --faulty nov_l
grep -q '^   1  1\.0  *1\.333  2->1  *ended after 1 of 2 kept events' "$T/out" || fail "ended early: $(cat "$T/out")"

# --- a planted divergence: 4 processes x 2 threads; in the faulty run thread 2.1 skips its
# critical section in every iteration and process 3's main thread does one extra reduction ----
mk_planted "$T/normal" 0
mk_planted "$T/faulty" 1
expect_status 0 "$DT" import -q --run normal "$T/normal"
expect_status 0 "$DT" import -q --run faulty "$T/faulty"
expect_status 0 "$DT" analyze normal faulty
grep -q "^run normal: 8 traces, .* (computed)$" "$T/out" || fail "analyze: $(cat "$T/out")"
expect_status 0 "$DT" analyze faulty
grep -q "(cached)$" "$T/out" || fail "not cached: $(cat "$T/out")"
expect_status 0 "$DT" analyze --force faulty
grep -q "(computed)$" "$T/out" || fail "--force did not recompute"
expect_status 0 "$DT" rank --normal normal --faulty faulty --top 3
awk '/most changed traces/ { getline; getline; print $2; exit }' "$T/out" > "$T/first"
[ "$(cat "$T/first")" = 2.1 ] || fail "the planted trace does not rank first: $(cat "$T/out")"
grep -q 'B-score' "$T/out" || fail "no B-score"
# the sweep gives one row per setting, lowest B-score first
expect_status 0 "$DT" rank --normal normal --faulty faulty --sweep --sweep-filters 'everything;ompall' --sweep-attrs sing.orig,doub.actual
[ "$(grep -c 'K10\|sing\.\|doub\.' "$T/out")" -ge 4 ] || fail "sweep rows: $(cat "$T/out")"
# single-run mode
expect_status 0 "$DT" rank --run faulty --top 2
grep -q '2\.1\|3\.0' "$T/out" || fail "outliers: $(cat "$T/out")"

# diffNLR: the loop whose body changed, and the count that changed
expect_status 0 "$DT" diff -W 100 --filter everything normal:2.1 faulty:2.1
grep -q '|' "$T/out" || fail "diff side-by-side marks no change: $(cat "$T/out")"
expect_status 0 "$DT" diff -W 100 normal:3.0 faulty:3.0
grep -q 'L[0-9]*^20 *| *L[0-9]*^21' "$T/out" || fail "count change not one line: $(cat "$T/out")"
expect_status 0 "$DT" diff -u normal:3.0 faulty:3.0
grep -q '^@@ ' "$T/out" || fail "unified"
expect_status 0 "$DT" diff --format dot normal:3.0 faulty:3.0
grep -q '^digraph' "$T/out" || fail "dot"
expect_status 0 "$DT" diff normal:0.0 faulty:0.0
grep -q '[|<>]' "$T/out" && fail "identical traces show changes: $(cat "$T/out")"

expect_status 0 "$DT" diff --expand -W 100 normal:2.1 faulty:2.1
grep -q '^  GOMP_critical_start  *<$' "$T/out" || fail "--expand does not show the body: $(cat "$T/out")"

# a trace present in one run only is reported, not dropped
mkdir "$T/more"
cp "$T"/faulty/*.txt "$T/more/"
printf 'main\n[ret]\n' > "$T/more/4.0.txt"
expect_status 0 "$DT" import -q --run more "$T/more"
expect_status 0 "$DT" rank --normal normal --faulty more
grep -q '^only in the faulty run: 4.0$' "$T/out" || fail "4.0 not reported: $(cat "$T/out")"
grep -q '8 traces matched' "$T/out" || fail "matching: $(head -2 "$T/out")"

# the lattice and the classes read the cache
expect_status 0 "$DT" lattice faulty
grep -q '^# concept lattice, run faulty' "$T/out" || fail "lattice text"
expect_status 0 "$DT" lattice --format dot faulty
grep -q '^digraph' "$T/out" || fail "lattice dot"
expect_status 0 "$DT" classes --format json faulty
grep -q '"by": "cluster"' "$T/out" || fail "classes json"

# wrong input
expect_status 2 "$DT" classes --attrs sung.orig faulty
expect_status 2 "$DT" analyze -K 0 faulty
expect_status 2 "$DT" rank --normal normal
expect_status 2 "$DT" diff normal:0.0
expect_status 1 "$DT" diff normal:9.0 faulty:0.0
expect_err "no trace 9.0"
expect_status 2 "$DT" classes --filter nosuchfamily faulty
expect_err "nosuchfamily"
# editing a family's exclude: lines makes its cached analyses stale, as its include: lines do
printf 'name: mine\ndescription: the reductions\ninclude: ^MPI_\nexclude: ^MPI_Init$\n' > "$T/mine.filter"
expect_status 0 "$DT" analyze --filter-file "$T/mine.filter" --filter mine faulty
grep -q "(computed)$" "$T/out" || fail "mine: not computed: $(cat "$T/out")"
expect_status 0 "$DT" analyze --filter-file "$T/mine.filter" --filter mine faulty
grep -q "(cached)$" "$T/out" || fail "mine: not cached: $(cat "$T/out")"
printf 'name: mine\ndescription: the reductions\ninclude: ^MPI_\nexclude: ^MPI_Finalize$\n' > "$T/mine.filter"
expect_status 0 "$DT" analyze --filter-file "$T/mine.filter" --filter mine faulty
grep -q "(computed)$" "$T/out" || fail "mine: an edited exclude: line reused a stale analysis: $(cat "$T/out")"
printf 'name: broken\ndescription: a broken pattern\ninclude: MPI_(Send\n' > "$T/broken.filter"
expect_status 1 "$DT" classes --filter-file "$T/broken.filter" --filter broken faulty
expect_err "broken.filter:3:"
pass
