#!/bin/sh
# difftrace blame-index: the data flow of small C functions computed by hand (tests/blame/*.c),
# from flags, from compile_commands.json, per run; a source that does not parse.
. "${abs_top_srcdir:-.}/tests/lib.sh"
need built
SRC="$abs_top_srcdir/tests/blame"

"$DT" blame-index "$SRC/flow.c" >"$T/out" 2>"$T/err"
rc=$?
if grep -q "built without libclang" "$T/err"; then
	[ $rc = 1 ] || fail "without libclang: exit $rc, expected 1"
	skip "difftrace was built without libclang (apt-get install libclang-dev)"
fi
[ $rc = 0 ] || { cat "$T/err" >&2; fail "indexing flow.c: exit $rc"; }
grep -q "indexed 1 file, 12 functions, 107 lines" "$T/out" || fail "summary: $(cat "$T/out")"

show() {
	expect_status 0 "$DT" blame-index --show "$1"
	cp "$T/out" "$T/$1"
}
has() { # has FUNC LINE: the text --show prints for FUNC has LINE (a whole line)
	grep -qxF -- "  $2" "$T/$1" || { cat "$T/$1" >&2; fail "$1 lacks: $2"; }
}
hasnt() {
	! grep -qF -- "$2" "$T/$1" || { cat "$T/$1" >&2; fail "$1 has: $2"; }
}

# c = a + b: c <- a, b; the return value from c
show add
has add "explicit c <- a (line 13)"
has add "explicit c <- b (line 13)"
has add "explicit <return> <- c (line 14)"
has add "line 13 write c"
has add "exit a b <return>"
has add "var c: int (local, line 12)"
has add "var a: int (param, line 10, exit)"

# a loop: the index and the bound control what the loop writes (implicit), the accumulator
# gets the array and the index (explicit)
show sum
has sum "implicit s <- i (line 20)"
has sum "implicit s <- n (line 20)"
has sum "explicit s <- v (line 21)"
has sum "explicit s <- i (line 21)"
has sum "line 20 condition i"
hasnt sum "implicit <return>"

# while, do and switch: their conditions control what their bodies write
show loops
has loops "implicit t <- j (line 94)"
has loops "explicit t <- j (line 95)"
has loops "implicit t <- mode (line 98)"
has loops "implicit t <- mode (line 99)"
has loops "line 95 write j"

# a branch on a flag controls both arms
show pick
has pick "implicit r <- flag (line 28)"
has pick "explicit r <- a (line 29)"
has pick "explicit r <- b (line 31)"
hasnt pick "explicit r <- flag"

# an out-parameter: a write through p, p an exit variable; a global written
show produce
has produce "explicit out <- in (line 37, through)"
has produce "line 37 through out"
has produce "explicit g_total <- in (line 38)"
has produce "var g_total: int (global, line 8, exit)"
has produce "exit in out g_total"

# x[i] = v through a pointer parameter: i is an index, and the loop controls it
show fill
has fill "explicit dst <- val (line 44, through)"
has fill "explicit dst <- k (line 44, through, index)"
has fill "implicit dst <- n (line 43, through)"

# fields: s.f counts for s (container resolution), p->f for a write through p
show move
has move "explicit q <- dx (line 50, field x)"
has move "explicit p <- q (line 52, through, field x)"
hasnt move "var x"

# recursion: a call site of itself, its value returned
show fact
has fact "call 59:13 fact(n-1 {n}) -> <return>"
has fact "explicit <return> <- n (line 59)"
has fact "implicit <return> <- n (line 57)"

# a call through a function pointer: an unknown callee, by its expression
show apply
has apply "call 70:6 unknown via fp(x {x}) -> y"
has apply "call 71:13 twice(x {x}) -> <return>"
has apply "explicit y <- x (line 70)"

# &r passed to a function: r is written by the call
show caller
has caller "call 77:2 produce(4 {}; &r {r} out r)"
has caller "line 77 out r"

# twenty calls inside the arguments of one: each its own site, the outer one writes r
show nest
[ "$(grep -c '^  call 85:2 produce(' "$T/nest")" = 1 ] || fail "nest: the outer call"
[ "$(grep -c '^  call 8[56]:[0-9]* twice(' "$T/nest")" = 20 ] || fail "nest: 20 inner calls"
has nest "explicit r <- x (line 85, arg)"

# the same as JSON
expect_status 0 "$DT" blame-index --show add --format json
grep -q '"kind":"explicit","dst":"c","src":"a","line":13' "$T/out" || fail "json: $(cat "$T/out")"
if command -v python3 >/dev/null; then
	python3 -c 'import json,sys; d=json.load(sys.stdin); assert d[0]["function"]=="add"' \
		<"$T/out" || fail "--format json is not JSON"
fi

# indexing a file again replaces it
expect_status 0 "$DT" blame-index "$SRC/flow.c"
expect_status 0 "$DT" blame-index --list
[ "$(grep -c 'flow.c' "$T/out")" = 1 ] || fail "indexed twice: $(cat "$T/out")"
grep -q "(all runs) *107 *12 *0 .*flow.c" "$T/out" || fail "list: $(cat "$T/out")"

# MPI calls: call sites with the variables of each argument; the library's constants
# (MPI_INT, MPI_COMM_WORLD) are not variables of the program
MPICC=${MPICC:-$(command -v mpicc || true)}
if [ -n "$MPICC" ]; then
	# shellcheck disable=SC2046
	expect_status 0 "$DT" blame-index "$SRC/mpicalls.c" -- $("$MPICC" --showme:compile)
	show share
	has share "call 14:2 MPI_Bcast(&dim {dim} out dim; 1 {}; MPI_INT {}; root {root}; MPI_COMM_WORLD {})"
	has share "explicit dim <- root (line 14, arg)"
	hasnt share "ompi_"
	show reduce_sum
	has reduce_sum "call 7:2 MPI_Reduce(&local {local}; &global {global} out global; 1 {}; MPI_DOUBLE {}; MPI_SUM {}; root {root}; MPI_COMM_WORLD {})"
	has reduce_sum "explicit global <- local (line 7, arg)"
	has reduce_sum "explicit <return> <- global (line 8)"
else
	echo "note: mpicc not found, the MPI call sites are not checked"
fi

# compile_commands.json: of a build folder (-p), or a file of any name, and for one run only
mkdir "$T/build"
cat >"$T/build/compile_commands.json" <<EOF
[ { "directory": "$SRC", "arguments": ["cc", "-c", "-DFLOW_ANSWER=42", "flow.c", "-o", "$T/build/flow.o"],
    "file": "flow.c" } ]
EOF
expect_status 0 "$DT" import --run small "$DATA/text/small"
expect_status 0 "$DT" blame-index -p "$T/build" --run small
grep -q "indexed 1 file, 12 functions" "$T/out" || fail "-p: $(cat "$T/out")"
expect_status 0 "$DT" blame-index --list --run small
grep -q "^small .*flow.c" "$T/out" || fail "list --run: $(cat "$T/out")"
expect_status 0 "$DT" blame-index --show add --run small
[ "$(grep -c '^function add' "$T/out")" = 2 ] || fail "--run shows its index and the store's"
cp "$T/build/compile_commands.json" "$T/cc.json"
expect_status 0 "$DT" blame-index --compile-commands "$T/cc.json" "$SRC/flow.c"
# a file the commands lack gets the command of its nearest neighbour (libclang's inference)
expect_status 1 "$DT" blame-index --compile-commands "$T/cc.json" "$SRC/broken.c"
expect_err "broken.c:11:15: error"
# removing the run removes its index
expect_status 0 "$DT" rm small
expect_status 0 "$DT" blame-index --list
grep -q "^small" "$T/out" && fail "the index of a removed run stays: $(cat "$T/out")"

# a source that does not parse: libclang's errors as FILE:LINE:COL, exit 1, what parsed stored
expect_status 1 "$DT" blame-index "$SRC/broken.c"
expect_err "broken.c:11:15: error: expected ';' at end of declaration"
expect_err "broken.c:17:9: error: use of undeclared identifier 'undeclared_thing'"
grep -q "1 file with errors" "$T/out" || fail "summary: $(cat "$T/out")"
show good
has good "explicit b <- a (line 5)"
hasnt good "parse errors"
show bad
grep -q "^function bad .*has parse errors" "$T/bad" || fail "bad is not flagged"
expect_status 1 "$DT" blame-index "$T/missing.c"
expect_err "missing.c"

# a flag clang lacks (gcc's) is said and left out; the file is indexed without errors
expect_status 0 "$DT" blame-index "$SRC/flow.c" -- -fbogus-gcc-flag
expect_err "flow.c: the compile command, ignored: unknown argument: '-fbogus-gcc-flag'"

# requests that make no sense
expect_status 1 "$DT" blame-index --show no_such_function
expect_err "no indexed function 'no_such_function'"
expect_status 2 "$DT" blame-index
expect_status 2 "$DT" blame-index --show add "$SRC/flow.c"
expect_status 2 "$DT" blame-index -p "$T/build" "$SRC/flow.c" -- -DX
expect_status 2 "$DT" blame-index --show add --format csv
expect_status 1 "$DT" blame-index -p "$T/nowhere"
expect_err "compile_commands.json"
pass
