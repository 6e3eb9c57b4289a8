#!/bin/sh
# The interface's trace view (a trace's nested loops as a tree) and lattice view (concepts,
# their ranges, navigation, the Hasse diagram), driven headless: keys from a script, then what
# is on the screen. On the example MPI+OpenMP runs, on generated runs with a planted divergence
# and nested loops, and on a run whose lattice is too big for a diagram.
. "${abs_top_srcdir:-.}/tests/lib.sh"

# screen NAME KEYS [OPTIONS]: runs the interface on KEYS; the screen is then in $S. Sanitizer
# reports go to stderr, so stderr must stay empty.
screen() {
	name=$1 keys=$2
	shift 2
	printf '%s\n' "$keys" > "$T/$name.keys"
	# every call and the paper's attributes: the checks below count calls like init and step
	expect_status 0 "$DT" tui --filter everything --attrs sing.log10 --script "$T/$name.keys" \
		--dump "$T/$name.screen" "$@"
	[ -s "$T/err" ] && { cat "$T/err" >&2; fail "$name: stderr"; }
	S="$T/$name.screen"
}
# has TEXT WHY, hasre REGEX WHY, hasnt TEXT WHY: what must (not) be on the screen
has() { grep -qF -- "$1" "$S" || { cat "$S" >&2; fail "$2: no '$1' on the screen"; }; }
hasre() { grep -q -- "$1" "$S" || { cat "$S" >&2; fail "$2: nothing matches '$1'"; }; }
hasnt() { ! grep -qF -- "$1" "$S" || { cat "$S" >&2; fail "$2: '$1' on the screen"; }; }

for r in normal faulty; do
	expect_status 0 "$DT" import -q --run $r "$abs_top_srcdir/examples/traces/$r"
done

# nested loops: (step - (MPI_Send - MPI_Recv)^4 - MPI_Barrier)^6 between main, init, finalize
mkdir "$T/nest"
for p in 0 1; do
	{ printf 'main\ninit\n[ret]\n'
	  i=0; while [ $i -lt 6 ]; do
		printf 'step\n[ret]\n'
		j=0; while [ $j -lt 4 ]; do printf 'MPI_Send\n[ret]\nMPI_Recv\n[ret]\n'; j=$((j + 1)); done
		printf 'MPI_Barrier\n[ret]\n'; i=$((i + 1)); done
	  printf 'finalize\n[ret]\n[ret]\n'; } > "$T/nest/$p.0.txt"
done
expect_status 0 "$DT" import -q --run nest "$T/nest"

# --- the trace view -----------------------------------------------------------------------
# opened before the run has an analysis: computed in the background, then shown
screen tr1 ': "trace nest 0.0" Enter' --size 24x100
has 'difftrace: trace 0.0 of nest, nested loops' "title"
has '126 events, 63 kept by the filter, 4 entries, 1 loop (2 distinct)' "header"
hasre '^> 1 \[-\] main$' "first entry"
hasre '^  3   \[+\] L[0-9]* x6  body 3, 60 events  (step - L[0-9]* x4 (MPI_Send - MPI_Recv) - MPI_Barrier)$' \
	"a folded loop with its body"
has ' trace  1/4 ' "four lines"

# unfold the loop, then the loop inside it; fold again
screen tr2 ': "trace nest 0.0" Enter j j Enter'
hasre '^> 3   \[-\] L[0-9]* x6  body 3, 60 events$' "unfolded loop"
hasre '^    |- step$' "body line"
hasre '^    |- \[+\] L[0-9]* x4  body 2, 8 events  (MPI_Send - MPI_Recv)$' "nested loop, folded"
hasre '^    `- MPI_Barrier$' "last body line"
hasre '^  4   finalize$' "the entry after the loop"
screen tr3 ': "trace nest 0.0" Enter j j Enter j j o'
hasre '^>   |- \[-\] L[0-9]* x4  body 2, 8 events$' "nested loop unfolded with o"
hasre '^    |  |- MPI_Send$' "nested body, guide of the outer loop"
hasre '^    |  `- MPI_Recv$' "nested body, last"
screen tr4 ': "trace nest 0.0" Enter j j Enter j j o Enter'
hasnt 'MPI_Send$' "nested loop folded again"
screen tr5 ': "trace nest 0.0" Enter j j Enter Enter'
hasre '^> 3   \[+\] L' "loop folded again"
hasnt '|- step' "folded body"

# all at once, and back up the tree
screen tr6 ': "trace nest 0.0" Enter *'
has 'every loop unfolded' "*"
hasre '^    |  `- MPI_Recv$' "* unfolds nested loops"
has ' trace  1/9 ' "nine lines"
screen tr7 ': "trace nest 0.0" Enter * j j j j j u'
hasre '^>   |- \[-\] L[0-9]* x4' "u goes to the enclosing loop"
screen tr8 ': "trace nest 0.0" Enter * j j j j j c'
hasre '^>   |- \[+\] L[0-9]* x4' "c folds the enclosing loop"
hasre '^    `- MPI_Barrier$' "the rest stays unfolded"
screen tr9 ': "trace nest 0.0" Enter * j j j j j z'
has 'every loop folded' "z"
hasre '^> 3   \[+\] L' "z: the cursor on the top-level loop"
screen tr10 ': "trace nest 0.0" Enter j j +'
hasre '^    |  |- MPI_Send$' "+ unfolds the loops inside"

# calls fold as a tree, inside and around the loops: main calls everything, each exchange
# calls MPI_Send and MPI_Recv: (step - (exchange - MPI_Send - MPI_Recv)^4 - MPI_Barrier)^6
mkdir "$T/calls"
{ printf 'main\ninit\n[ret]\n'
  i=0; while [ $i -lt 6 ]; do
	printf 'step\n[ret]\n'
	j=0; while [ $j -lt 4 ]; do
		printf 'exchange\nMPI_Send\n[ret]\nMPI_Recv\n[ret]\n[ret]\n'; j=$((j + 1)); done
	printf 'MPI_Barrier\n[ret]\n'; i=$((i + 1)); done
  printf 'finalize\n[ret]\n[ret]\n'; } > "$T/calls/0.0.txt"
expect_status 0 "$DT" import -q --run calls "$T/calls"
screen cf1 ': "trace calls 0.0" Enter *'
hasre '^> 1 \[-\] main$' "a call with callees"
hasre '^  2   init$' "a callee, indented"
hasre '^  3   \[-\] L[0-9]* x6  body 3, 84 events$' "a loop at the level of its calls"
hasre '^    |  |- \[-\] exchange$' "a call with callees in a loop's body"
hasre '^    |  |-   MPI_Send$' "its callee, indented"
has ' trace  1/10 ' "ten lines"
screen cf2 ': "trace calls 0.0" Enter * j j j j j Enter'
hasre '^>   |  |- \[+\] exchange  2 calls folded  (MPI_Send - MPI_Recv)$' "Enter folds the call, the cursor stays on it"
hasre '^    `- MPI_Barrier$' "the lines after it"
has ' trace  6/8 ' "two lines fewer"
screen cf3 ': "trace calls 0.0" Enter * j j j j j Enter Enter'
hasre '^>   |  |- \[-\] exchange$' "Enter unfolds it again"
has ' trace  6/10 ' "its lines back"
screen cf4 ': "trace calls 0.0" Enter * G C'
hasre '^> 1 \[+\] main  86 calls folded  (init - L[0-9]* x6 (step - ' "C: the cursor goes to the call that hides it"
has 'every call folded' "C says so"
has ' trace  1/1 ' "one line"
screen cf5 ': "trace calls 0.0" Enter * C Enter'
hasre '^  2   init$' "a folded call unfolds one level"
hasre '^    |  |- \[+\] exchange  2 calls folded  (MPI_Send - MPI_Recv)$' "the calls folded in it stay folded"
has ' trace  1/8 ' "main's callees"
screen cf6 ': "trace calls 0.0" Enter * j j j j j j C E'
has 'every call unfolded' "E says so"
hasre '^> 1 \[-\] main$' "E: the cursor stays on the call C put it on"
has ' trace  1/10 ' "every line back"
screen cf7 ': "trace calls 0.0" Enter * j j j j j j u'
hasre '^>   |  |- \[-\] exchange$' "u goes to the calling line"
screen cf8 ': "trace calls 0.0" Enter * j j j j j j c'
hasre '^>   |  |- \[+\] exchange  2 calls folded  (MPI_Send - MPI_Recv)$' "c folds the calling line"
screen cf9 ': "trace calls 0.0" Enter C t Enter'
has 'the first use of L' "the table's jump unfolds the calls that hide the loop"
hasre '^>   |- \[-\] L[0-9]* x4  body 3, 12 events$' "the cursor on the loop"
screen cf10 ': "trace calls 0.0" Enter * j j j j j Enter z'
has 'every loop folded' "z"
hasnt 'calls folded' "z unfolds the calls"
# a folded call lists what it hides, so that a search finds a call however deep it is folded
screen cf14 ': "trace calls 0.0" Enter C / "MPI_Recv" Enter'
hasre '^> 1 \[+\] main  86 calls folded' "search lands on the folded call"
hasnt 'not found' "search finds the hidden call"
screen cf11 ': "trace calls 0.0" Enter +'
has 'a call, not a loop: + unfolds loops (Enter a call)' "+ on a call"
# a trace of more than 1048576 kept events reads its call depths at the first key that folds
mkdir "$T/calltree"
awk 'BEGIN { print "main"; for (i = 0; i < 600000; i++) print "f\ng\n[ret]\n[ret]"; print "[ret]" }' \
	> "$T/calltree/0.0.txt"
expect_status 0 "$DT" import -q --run calltree "$T/calltree"
screen cf12 ': "trace calltree 0.0" Enter'
hasre '^> 1 main$' "no call tree before a key asks for it"
screen cf13 ': "trace calltree 0.0" Enter Enter'
hasre '^> 1 \[+\] main  1200000 calls folded  (L[0-9]* x600000 (f - g))$' "Enter reads the depths and folds"

# the loop table, and Enter on a loop: its first use, unfolded
screen tb1 ': "trace nest 0.0" Enter t'
has '2 loops in trace 0.0 of nest' "table header"
hasre '^> L[0-9]* = (MPI_Send - MPI_Recv)  body 2, 2 events per iteration$' "inner loop"
hasre '^  L[0-9]* = (step - L[0-9]* x4 - MPI_Barrier)  body 3, 10 events per iteration$' "outer loop"
screen tb2 ': "trace nest 0.0" Enter t Enter'
has 'the first use of L' "jump"
hasre '^>   |- \[-\] L[0-9]* x4  body 2, 8 events$' "the cursor on the inner loop"
hasre '^  3   \[-\] L[0-9]* x6' "its enclosing loop unfolded"
screen tb3 ': "trace nest 0.0" Enter t q'
has ' trace  1/4 ' "q leaves the table, not the view"
hasre '^> 1 \[-\] main$' "the tree as it was"
screen tb4 ': "trace normal 0.0" Enter t'
has 'trace 0.0 has no loop' "no table without loops"

# search: the text of the lines, folded bodies included
screen se1 ': "trace nest 0.0" Enter / "MPI_Recv" Enter'
hasre '^> 3   \[+\] L' "search lands on the folded loop"
screen se2 ': "trace nest 0.0" Enter * / "MPI_Recv" Enter'
hasre '^>   |  `- MPI_Recv$' "search lands on the unfolded line"
screen se3 ': "trace nest 0.0" Enter / "nosuchcall" Enter'
has 'not found: /nosuchcall' "search miss"

# the example runs: the OpenMP threads are one loop; keys that need a loop say so
screen ex1 ': "trace normal 0.1" Enter Enter'
has '30 events, 15 kept by the filter, 1 entry, 1 loop' "example header"
hasre '^> 1 \[-\] L[0-9]* x3  body 5, 15 events$' "example loop"
hasre '^    |- \[-\] compute._omp_fn.0$' "example body"
hasre '^    `-   GOMP_critical_end$' "example body end"
screen ex2 ': "trace normal 0.0" Enter Enter'
hasre '^>  1 \[+\] main  39 calls folded  (MPI_Init - ' "Enter folds a call: its callees hidden, counted"
has ' trace  1/1 ' "one line left"
screen ex2b ': "trace normal 0.0" Enter Enter Enter'
hasre '^>  1 \[-\] main$' "Enter again unfolds it"
has ' trace  1/40 ' "every line back"
screen ex2c ': "trace normal 0.0" Enter G Enter'
has 'a call without callees: nothing to fold' "Enter on a leaf call"
screen ex2u ': "trace normal 0.0" Enter u'
has 'entry 1 of the trace is in no call or loop' "u at the top level"
screen ex3 ': "trace normal 9.9" Enter'
has 'no trace 9.9 in run normal' "a missing trace"
has ' runs ' "the view was not pushed"
screen ex4 ': "trace normal 0.1" Enter d'
has 'choose the normal and faulty runs first' "d without a pair"
screen ex5 ': "trace normal 0.1" Enter F1'
has 'fold or unfold the loop or the call under the' "help lists the view's keys"
hasre '^  C  *fold every call that has callees' "help: C"
hasre '^  E  *unfold every folded call' "help: E"
# d diffs against the other run of the pair (set here by the ranking view)
screen ex6 ': "rank normal faulty" Enter q : "trace faulty 0.1" Enter d'
has 'diff normal 0.1 | faulty 0.1' "d opens the diff"

# the filter changes the trace: the view is reopened on the new analysis
screen ex7 ': "trace normal 0.0" Enter : "filter mpi" Enter'
hasre '^  4 \[+\] L[0-9]* x3  body 3, 9 events  (MPI_Allreduce - MPI_Bcast - MPI_Barrier)$' \
	"the mpi filter's loop"
has '13 kept by the filter' "fewer events kept"

# the tree keeps its folds when another analysis finishes below it
# (nest2 has no analysis yet: its lattice view starts one, and every view reopens at its end)
expect_status 0 "$DT" import -q --run nest2 "$T/nest"
screen ex8 ': "trace nest 0.0" Enter * : "lattice nest2" Enter q'
has ' trace  1/9 ' "back in the trace view"
hasre '^    |  `- MPI_Recv$' "still unfolded after a background analysis"

# UTF-8: the count sign and box-drawing guides
if locale -a 2>/dev/null | grep -qi '^c\.utf-\{0,1\}8$'; then
	LC_ALL=C.UTF-8 screen u1 ': "trace nest 0.0" Enter *'
	has '[-] L' "utf8 tree"
	has '├─ step' "utf8 guide"
	has '│  └─ MPI_Recv' "utf8 nested guide"
	hasre 'L[0-9]* ×6' "utf8 count sign"
fi

# --- the lattice view ---------------------------------------------------------------------
# normal: 5 concepts, drawn; the picture is fixed by the layout (78 columns whatever the size)
screen la1 'x'
has 'difftrace: lattice of normal' "lattice title"
has '5 concepts, 5 edges' "counts"
has 'c0: 4 traces P 0-1 T 0-1, 0 attributes, up -, down c1 c2' "selected concept's header"
sed -n '3,11p' "$S" | sed 's/^> /  /' > "$T/diagram"
cat > "$T/diagram.want" <<'EOF'
                                         >c0<
                                        /  |
                                     [c1]  |
                                       |   |
                                       | [c2]
                                       |   |
                                       | [c3]
                                       |/
                                     [c4]
EOF
diff "$T/diagram.want" "$T/diagram" >&2 || fail "the diagram of normal"
hasre '^  c1          2   1   1  P 0-1 T 1        1  +L[0-9]*:0$' "list under the diagram, range"
hasre '^  c3          1   1   1  P 0 T 0         18  +printf:0$' "reduced intent"
hasre '^  c4          0   2   0  -               19  -$' "bottom concept"
screen la2 'x j j' --size 30x120
sed -n '3,11p' "$S" | sed 's/^> /  /' > "$T/diagram"
sed 's/>c0</[c0]/; s/\[c2\]/>c2</' "$T/diagram.want" | diff - "$T/diagram" >&2 ||
	fail "the diagram at 120 columns, c2 selected"

# moving: j to the next box, u to a parent, c to a child, Enter: the concept's traces
screen la3 'x j j'
hasre '^>  *| >c2<$' "j j selects c2"
has 'c2: 2 traces P 0-1 T 0, 17 attributes, up c0, down c3' "c2's header"
screen la4 'x j j u'
hasre '^>  *>c0<$' "u goes up to c0"
screen la5 'x j j c'
hasre '^>  *| >c3<$' "c goes down to c3"
has 'c3: the child of c2' "c's message"
screen la6 'x j j Enter'
has 'concept c2 of normal' "Enter lists the traces"
hasre '^> 0\.0 ' "trace 0.0"
hasre '^  1\.0 ' "trace 1.0"
screen la7 'x j j j j j j j'
hasre '^> c2          2   1   1  P 0-1 T 0 ' "j goes from the boxes down the list"
hasre '^  *| >c2<$' "the box of the list's concept is marked"
screen la8 'x Tab G p'
has 'c4 has 2 parents; this is c1 (e lists them)' "p with two parents"
hasre '^> c1  ' "p: the first parent"
screen la9 'x Tab G e'
has '2 parents of c4: Enter goes there, e or q back' "neighbours page"
hasre '^> c1  ' "first parent"
hasre '^  c3  ' "second parent"
has '(none: c4 is the bottom concept)' "no child"
screen la10 'x Tab G e j Enter'
hasre '^> c3  ' "Enter on a neighbour goes there"
has ' lattice  4/5 ' "on the list"
screen la11 'x Tab G e q'
hasre '^> c4  ' "q leaves the neighbours page"
screen la12 'x Tab'
has 'INTENT: +NEW HERE (i: all)' "reduced intents by default"
screen la13 'x Tab i'
has 'INTENT (i: only the new ones)' "i: full intents"
hasre '^  c1          2   1   1  P 0-1 T 1        1  L[0-9]*:0$' "full intent of c1"
screen la14 'x u'
has 'c0 is the top concept: it has no parent' "u at the top"
screen la15 'x / "printf" Enter'
hasre '^> c3 .*+printf:0$' "search lands on the concept"

# faulty: seven concepts, the threads that skipped the critical section apart
screen la16 'j x'
has '7 concepts' "faulty lattice"
hasre '^  c2          1   1   1  P 1 T 1          1  +L[0-9]*:0$' "the faulty rank's thread"

# generated runs: compact ranges with several processes, and the planted divergence
mk_planted "$T/gn" 0
mk_planted "$T/gf" 1
expect_status 0 "$DT" import -q --run gn "$T/gn"
expect_status 0 "$DT" import -q --run gf "$T/gf"
screen g1 ': "lattice gf" Enter' --attrs sing.orig
hasre '^  c1          3   1   1  P 0-1,3 T 1      1  +L[0-9]*$' "range with a gap"
hasre '^  c2          1   1   1  P 2 T 1          1  +L[0-9]*$' "the planted thread alone"
hasre '^  c3          4   1   1  P 0-3 T 0        4  ' "the main threads"
screen g2 ': "trace gf 2.1" Enter'
hasre '^> 1 \[+\] L[0-9]* x20  body 1, 20 events  (work)$' "the planted trace's loop"
screen g3 ': "trace gn 2.1" Enter' --size 24x100
hasre '^> 1 \[+\] L[0-9]* x20  body 3, 60 events  (work - GOMP_critical_start - GOMP_critical_end)$' \
	"the normal trace's loop"
screen g4 ': "lattice gf" Enter' --attrs doub.actual
has '[c4]' "a diagram with doubled attributes"
hasre '^  c3          1   1   1  P 3 T 0   ' "the extra reduction alone"

# a lattice too big to draw: the list alone, and Tab says why
mkdir "$T/big"
for p in 0 1 2 3 4 5 6 7 8 9; do
	{ printf 'main\n'
	  for f in 0 1 2 3 4; do [ $(( (p * 7 + 3) >> f & 1 )) = 1 ] && printf 'f%d\n[ret]\n' $f; done
	  [ $((p % 3)) = 0 ] && printf 'g\n[ret]\n'
	  printf '[ret]\n'; } > "$T/big/$p.0.txt"
done
expect_status 0 "$DT" import -q --run big "$T/big"
screen b1 ': "lattice big" Enter Tab'
has 'no diagram: 24 concepts: the diagram is drawn for 12 or fewer' "why no diagram"
hasre '^  ID     TRACES  UP  DN  EXTENT ' "the list's header"
hasre '^  c1          5   1   4  P 0,2,4,6,8 T 0        2  +f0:0$' "list line with ranges"
screen b2 ': "lattice big" Enter G e'
has '4 parents of c23' "neighbours of the bottom"
screen b3 ': "lattice big" Enter G p p'
has 'c17 has 3 parents' "up twice"
pass
