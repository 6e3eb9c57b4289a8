#!/bin/sh
# blame_record.sh: difftrace-record --sample end to end: its options, samples of every thread
# with symbolized stacks, heap blocks freed and made again at the same address, a realloc that
# moves a block, globals and statics with their types, a program without -g, and a run killed
# by kill -9 whose samples up to then import, and a sample inside MPI_Bcast resolved to the
# container of the data broadcast.
. "${abs_top_srcdir:-..}/tests/lib.sh"
need built mpi
[ -f "$abs_top_builddir/libdifftrace-sample.so" ] ||
	skip "libdifftrace-sample.so not built (configure found no libunwind: apt-get install libunwind-dev)"
command -v sqlite3 >/dev/null || skip "sqlite3 not found (apt-get install sqlite3)"

# options
expect_status 0 "$RECORD" -n --sample --sync-only -- ./app
grep -q 'DIFFTRACE_SAMPLE=auto' "$T/out" || fail "--sample does not ask for samples: $(cat "$T/out")"
grep -q 'libdifftrace-sample.so:.*libdifftrace-sync.so' "$T/out" ||
	fail "the sampler is not before the sync recorder: $(cat "$T/out")"
expect_status 0 "$RECORD" -n --sample=timer:250 --sync-only -- ./app
grep -q 'DIFFTRACE_SAMPLE=timer:250' "$T/out" || fail "--sample=timer:250 lost: $(cat "$T/out")"
expect_status 2 "$RECORD" -n --sample=sometimes -- ./app
expect_err "--sample takes"

APP="$T/allocs"
"$MPICC" -g -O1 -pthread -o "$APP" "$abs_top_srcdir/tests/blame/allocs.c" >"$T/cc.log" 2>&1 ||
	{ cat "$T/cc.log" >&2; fail "mpicc failed"; }
"$MPICC" -O1 -pthread -o "$APP-nog" "$abs_top_srcdir/tests/blame/allocs.c" >"$T/cc.log" 2>&1 ||
	{ cat "$T/cc.log" >&2; fail "mpicc failed"; }
cd "$T" || fail "cd $T"
flags="-np 1"
"$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags="$flags --oversubscribe"
[ "$(id -u)" = 0 ] && "$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags="$flags --allow-run-as-root"

# shellcheck disable=SC2086
timeout -k 5 150 "$MPIRUN" $flags "$RECORD" --sample=timer --sync-only -o "$T/ok" -- "$APP" ok \
	</dev/null >"$T/ok.log" 2>&1 || { cat "$T/ok.log" >&2; fail "the recorded run failed"; }
ls "$T"/ok/rank-0/sample/*.dtp >/dev/null 2>&1 || fail "no sample files in rank-0/sample"
ls "$T"/ok/rank-0/sample/*.maps >/dev/null 2>&1 || fail "no maps file in rank-0/sample"
expect_status 0 "$DT" import -r ok "$T/ok"
grep -q 'samples of 1 processes' "$T/out" || fail "no samples imported: $(cat "$T/out")"
q() { sqlite3 "$DIFFTRACE_DB" "$1"; }
run=$(q "SELECT id FROM runs WHERE name = 'ok'")

# samples in both threads, with the spinning function on their stacks
n=$(q "SELECT count(DISTINCT tid) FROM blame_samples WHERE run_id = $run AND weight > 0")
[ "$n" -ge 2 ] || fail "samples in $n threads, expected the main thread and the worker"
n=$(q "SELECT count(*) FROM blame_locs WHERE run_id = $run AND func = 'spin' AND in_main = 1
       AND file LIKE '%allocs.c' AND line > 0")
[ "$n" -ge 1 ] || fail "no sample symbolized to spin() at a line of allocs.c"
ticks=$(q "SELECT sum(weight) FROM blame_samples WHERE run_id = $run")
[ "$ticks" -ge 100 ] || fail "$ticks ticks for 0.6 s of CPU at 1 kHz"

# a block freed and another made at the same address: two containers
if grep -q 'reuse 1' "$T/ok.log"; then
	n=$(q "SELECT count(*) FROM blame_containers WHERE run_id = $run AND size = 1000 AND
	       kind = 1 GROUP BY addr ORDER BY 1 DESC LIMIT 1")
	[ "$n" -ge 2 ] || fail "a reused address made $n containers of 1000 bytes"
	n=$(q "SELECT count(*) FROM blame_containers a JOIN blame_containers b ON
	       a.run_id = b.run_id AND a.addr = b.addr AND a.id < b.id WHERE a.run_id = $run AND
	       a.size = 1000 AND b.size = 1000 AND a.t_free <= b.t_alloc")
	[ "$n" -ge 1 ] || fail "the reused block's lifetimes overlap"
fi
# the realloc that moved: the new block knows the old one
grep -q 'moved 1' "$T/ok.log" || fail "the realloc did not move: $(cat "$T/ok.log")"
n=$(q "SELECT count(*) FROM blame_containers n JOIN blame_containers o ON o.run_id = n.run_id
       AND o.id = n.prev WHERE n.run_id = $run AND n.size = 4194304 AND o.size = 100 AND
       n.alloc_call = 3 AND o.addr <> n.addr AND o.t_free <= n.t_alloc")
[ "$n" = 1 ] || fail "the moved realloc is not linked to its old block ($n)"
# allocation call paths reach main, at a line of allocs.c
path=$(q "SELECT hex(p.locs) FROM blame_containers n JOIN blame_containers o ON
       o.run_id = n.run_id AND o.id = n.prev JOIN blame_paths p ON p.run_id = o.run_id AND
       p.id = o.site WHERE n.run_id = $run AND n.size = 4194304 AND o.size = 100")
[ -n "$path" ] || fail "the 100-byte block has no allocation path"
first=$(printf '%s' "$path" | cut -c1-8 | sed 's/\(..\)\(..\)\(..\)\(..\)/\4\3\2\1/')
[ "$(q "SELECT func || ' ' || (file LIKE '%allocs.c') FROM blame_locs WHERE run_id = $run AND
       id = $((0x$first))")" = "main 1" ] || fail "the 100-byte block's path does not start in main"
# globals and statics, with their DWARF types and sizes
[ "$(q "SELECT type || ' ' || size FROM blame_containers WHERE run_id = $run AND
       name = 'table'")" = "double[1000] 8000" ] || fail "the global 'table' is not typed"
[ "$(q "SELECT kind || ' ' || type FROM blame_containers WHERE run_id = $run AND
       name = 'counter'")" = "4 long int" ] || fail "the static 'counter' is not found"
[ "$(q "SELECT flags & 2 FROM blame_procs WHERE run_id = $run")" = 0 ] ||
	fail "a -g program flagged as without -g"

# without -g: globals from the symbol table, flagged
# shellcheck disable=SC2086
timeout -k 5 150 "$MPIRUN" $flags "$RECORD" --sample --sync-only -o "$T/nog" -- "$APP-nog" ok \
	</dev/null >"$T/nog.log" 2>&1 || { cat "$T/nog.log" >&2; fail "the run without -g failed"; }
expect_status 0 "$DT" import -r nog "$T/nog"
grep -q 'no -g' "$T/out" || fail "no flag for a program without -g: $(cat "$T/out")"
run=$(q "SELECT id FROM runs WHERE name = 'nog'")
[ "$(q "SELECT size FROM blame_containers WHERE run_id = $run AND name = 'table'")" = 8000 ] ||
	fail "the global 'table' not found in the symbol table"

# kill -9: the samples up to then import
# shellcheck disable=SC2086
timeout -k 5 150 "$MPIRUN" $flags "$RECORD" --sample --sync-only -o "$T/killed" -- "$APP" spin \
	</dev/null >"$T/killed.log" 2>&1 &
pid=$!
n=0
while ! grep -q spinning "$T/killed.log" 2>/dev/null && [ $n -lt 600 ]; do
	sleep 0.1
	n=$((n + 1))
done
grep -q spinning "$T/killed.log" || { kill "$pid"; fail "the spinning run never got there"; }
sleep 0.5
# the program itself, not the timeout or mpirun whose command lines name it too
app=$(pgrep -f "^$APP spin" | head -1)
[ -n "$app" ] || fail "the spinning program is gone"
kill -9 "$app"
wait "$pid" 2>/dev/null
kill "$pid" 2>/dev/null
expect_status 0 "$DT" import -r killed "$T/killed"
kid=$(q "SELECT id FROM runs WHERE name = 'killed'")
n=$(q "SELECT count(*) FROM blame_samples WHERE run_id = $kid")
[ "$n" -ge 1 ] || fail "no samples imported from the killed run"

# PAPI counter overflow where PAPI reports the counter; else the timer, with a message
# shellcheck disable=SC2086
timeout -k 5 150 "$MPIRUN" $flags "$RECORD" --sample=papi --sync-only -o "$T/papi" -- "$APP" ok \
	</dev/null >"$T/papi.log" 2>&1 || { cat "$T/papi.log" >&2; fail "the PAPI run failed"; }
expect_status 0 "$DT" import -r papi "$T/papi"
run=$(q "SELECT id FROM runs WHERE name = 'papi'")
src=$(q "SELECT source FROM blame_procs WHERE run_id = $run")
if grep -q 'PAPI does not report the counter' "$T/papi.log"; then
	echo "PAPI path not tested: PAPI does not report PAPI_TOT_CYC on this machine (the timer was used)"
	[ "$src" = 1 ] || fail "the fallback from PAPI is not the timer (source $src)"
else
	[ "$src" = 2 ] || fail "PAPI reports the counter, yet the samples are not PAPI's (source $src)"
fi
[ "$(q "SELECT count(*) FROM blame_samples WHERE run_id = $run")" -ge 1 ] ||
	fail "no samples with --sample=papi"

# MPI buffers: rank 1 of the quadrature example waits in MPI_Bcast while rank 0 makes the
# input; those samples carry the container of the data broadcast (dim_num, or the points x)
"$MPICC" -g -O1 -o "$T/quad" "$abs_top_srcdir/examples/blame/quad_mpi.c" -lm >"$T/cc.log" 2>&1 ||
	{ cat "$T/cc.log" >&2; fail "mpicc failed on quad_mpi.c"; }
# shellcheck disable=SC2086
timeout -k 5 150 "$MPIRUN" $(echo "$flags" | sed 's/-np 1/-np 2/') "$RECORD" --sample --sync-only \
	-o "$T/quad.rec" -- "$T/quad" 200000 10 </dev/null >"$T/quad.log" 2>&1 ||
	{ cat "$T/quad.log" >&2; fail "the quadrature run failed"; }
expect_status 0 "$DT" import -r quad "$T/quad.rec"
run=$(q "SELECT id FROM runs WHERE name = 'quad'")
n=$(q "SELECT count(*) FROM blame_samples s JOIN blame_containers c ON c.run_id = s.run_id AND
       c.id = s.c0 WHERE s.run_id = $run AND s.rank = 1 AND s.call = 27 AND c.rank = 1 AND
       (c.name = 'dim_num' OR (c.kind = 1 AND c.size = 1600000))")
[ "$n" -ge 1 ] || fail "no sample of rank 1 in MPI_Bcast blamed on dim_num or x: $(q "SELECT rank, call, c0, c1, weight FROM blame_samples WHERE run_id = $run AND call <> 0")"

# removing a run removes its blame data
expect_status 0 "$DT" rm killed
[ "$(q "SELECT count(*) FROM blame_samples WHERE run_id = $kid")" = 0 ] ||
	fail "the removed run's samples stayed"
pass
