#!/bin/sh
# The Chrome trace export (`order --format chrome`) carries the program's calls beside its sync
# events: a real MPI + OpenMP run recorded with uftrace and the sync recorder, exported, and read
# back with python's json module: the program's functions as complete events on their rank's and
# thread's row, nested as the calls were, the sync slices inside the calls they record; --calls
# bounds them (a trace cut short says where); a run without sync events has its calls alone; a
# hostile function name stays JSON.
. "${abs_top_srcdir:-.}/tests/lib.sh"

need mpi uftrace built timeout
command -v python3 >/dev/null || skip "python3 is not installed"
export UFTRACE OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=2
[ -f "$abs_top_builddir/libdifftrace-sync.so" ] ||
	skip "libdifftrace-sync.so not built (no mpicc at configure time)"
"$MPICC" -pg -fopenmp -O0 -o "$T/toy" "$abs_top_srcdir/examples/mpi_omp_toy.c" \
	>"$T/cc.log" 2>&1 || { cat "$T/cc.log" >&2; fail "mpicc failed"; }
cd "$T" || fail "cd $T"
flags="-np 2"
"$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags="$flags --oversubscribe"
# shellcheck disable=SC2086
timeout -k 5 150 "$MPIRUN" $flags "$RECORD" -o "$T/tr" -- "$T/toy" 2 </dev/null \
	>"$T/run.log" 2>&1 || { cat "$T/run.log" >&2; fail "the run failed"; }
expect_status 0 "$DT" import -q -r r "$T/tr"

cat > "$T/check.py" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
ev = doc["traceEvents"]
limit = int(sys.argv[2])
calls = [e for e in ev if e["ph"] == "X"]
if limit == 0:
    assert not calls, "calls written with --calls 0"
    sys.exit(0)
assert 0 < len(calls) <= limit, "%d calls for --calls %d" % (len(calls), limit)
rows = {}
for e in calls:
    assert e["cat"] == "call" and e["dur"] >= 0, e
    rows.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"], e["name"]))
# well nested on each row: a call ends before the call around it does
for row, v in rows.items():
    v.sort(key=lambda x: (x[0], -x[1]))
    st = []
    for a, b, n in v:
        while st and st[-1][1] < a - 1e-6:
            st.pop()
        assert not st or b <= st[-1][1] + 1e-6, ("overlap", row, st[-1], (a, b, n))
        st.append((a, b, n))
names = {}
for row, v in rows.items():
    names[row] = set(n for _, _, n in v)
if len(sys.argv) > 3:
    want = sys.argv[3]
    assert any(want in s for s in names.values()), ("no", want, names)
    sys.exit(0)
if limit < 1000:
    sys.exit(0)
for p in (0, 1):
    # the program's own functions, on the rank's main thread and its OpenMP worker
    for f in ("main", "compute", "exchange", "MPI_Allreduce"):
        assert f in names.get((p, 0), ()), (p, f, names.get((p, 0)))
    assert "work" in names.get((p, 1), ()), (p, names.get((p, 1)))
# the sync recorder's slices lie inside the call they record, on the same row and clock
for b in ev:
    if b["ph"] == "B" and b["name"].startswith("MPI_Allreduce"):
        assert any(x["pid"] == b["pid"] and x["tid"] == b["tid"] and x["name"] == b["name"]
                   and x["ts"] <= b["ts"] <= x["ts"] + x["dur"] for x in calls), b
PY
expect_status 0 "$DT" order --format chrome r
python3 "$T/check.py" "$T/out" 1000000 || fail "chrome: the calls"
[ -s "$T/err" ] && fail "stderr without a cut: $(cat "$T/err")"
# bounded: 6 calls in all, the traces cut short say so on stderr and on their rows
expect_status 0 "$DT" order --format chrome --calls 6 r
python3 "$T/check.py" "$T/out" 6 || fail "chrome --calls 6"
grep -q '"name":"calls cut here"' "$T/out" || fail "no 'calls cut here'"
expect_err "calls of run 'r' written (--calls 6): 4 traces cut short"
expect_status 0 "$DT" order --format chrome --calls 0 r
python3 "$T/check.py" "$T/out" 0 || fail "chrome --calls 0"
# a run recorded without sync events: the Chrome trace has its calls alone, the other formats
# have nothing to order
cp -r "$T/tr" "$T/nosync"
rm -rf "$T"/nosync/rank-*/sync
expect_status 0 "$DT" import -q -r nosync "$T/nosync"
expect_status 0 "$DT" order --format chrome nosync
python3 "$T/check.py" "$T/out" 1000000 || fail "chrome without sync events"
expect_err "run 'nosync' has no sync events: the Chrome trace has its calls alone"
expect_status 1 "$DT" order nosync
expect_err "has no sync events: record it"
expect_status 2 "$DT" order --format chrome --calls many r
expect_err "--calls needs a count"
# a function named with a quote, a backslash, an escape sequence and a byte that is not UTF-8
printf 's/ T work$/ T wo"r\\\\k\033[2J\377/\n' > "$T/sed.txt"
LC_ALL=C sed -i -f "$T/sed.txt" "$T"/tr/rank-0/toy.sym
expect_status 0 "$DT" import -q -r hostile "$T/tr"
expect_status 0 "$DT" order --format chrome hostile
LC_ALL=C grep -q "$(printf '\033')" "$T/out" && fail "a raw escape in the export"
python3 "$T/check.py" "$T/out" 1000000 "$(printf 'wo"r\\k\033[2J\357\277\275')" ||
	fail "chrome: the hostile name"
