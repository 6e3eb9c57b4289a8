#!/bin/sh
# blame_cases.sh: difftrace blame on tests/blame/cases.c: blocks freed and made again at the
# same address, a realloc that moves a block, a second thread and a run killed by kill -9 each
# get the blame of the computation on them (by allocation site), the rows of a table add up to
# its total, and bad requests fail without touching the store.
. "${abs_top_srcdir:-..}/tests/lib.sh"
need built mpi
[ -f "$abs_top_builddir/libdifftrace-sample.so" ] ||
	skip "libdifftrace-sample.so not built (configure found no libunwind: apt-get install libunwind-dev)"
command -v sqlite3 >/dev/null || skip "sqlite3 not found (apt-get install sqlite3)"
export DIFFTRACE_BLAME_PATH="$abs_top_srcdir/blame"
SRC="$abs_top_srcdir/tests/blame/cases.c"
APP="$T/cases"
"$MPICC" -g -O1 -pthread -o "$APP" "$SRC" >"$T/cc.log" 2>&1 || { cat "$T/cc.log" >&2; fail "mpicc failed"; }
cd "$T" || fail "cd $T"
flags="-np 1"
"$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags="$flags --oversubscribe"
[ "$(id -u)" = 0 ] && "$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags="$flags --allow-run-as-root"
site() { printf 'cases.c:%s (%s)' "$(grep -n "SITE_$1" "$SRC" | cut -d: -f1)" "$2"; }
# the blame of row $2 in the csv of $1 (rank 0 column)
blame_of() { awk -F, -v n="$2" '$2 == n { print $5; exit }' "$1"; }
# csv with the commas inside quoted fields (MPI calls) made '+', for awk -F,
unquote() {
	awk '{ o = ""; q = 0; for (i = 1; i <= length($0); i++) { c = substr($0, i, 1)
		if (c == "\"") { q = !q; continue }; if (c == "," && q) c = "+"; o = o c }; print o }' "$1"
}
positive() { awk -v x="${1:-0}" 'BEGIN { exit !(x > 0) }'; }
# the rows of each point add up to its Total row (total column $1)
adds_up() {
	awk -F, -v col="$2" 'NR > 1 && $2 != "Total" { s[$1] += $col } NR > 1 && $2 == "Total" { t[$1] = $col }
	     END { for (p in t) if (s[p] - t[p] > 0.01 || t[p] - s[p] > 0.01) { print p, s[p], t[p]; exit 1 } }' "$1" ||
		fail "the rows of $1 do not add up to the total"
}

# shellcheck disable=SC2086
timeout -k 5 150 "$MPIRUN" $flags "$RECORD" --sample=timer --sync-only -o "$T/ok" -- "$APP" ok \
	</dev/null >"$T/ok.log" 2>&1 || { cat "$T/ok.log" >&2; fail "the recorded run failed"; }
expect_status 0 "$DT" import -r ok "$T/ok"
expect_status 0 "$DT" blame ok --format csv
unquote "$T/out" >"$T/ok.csv"
head -1 "$T/ok.csv" | grep -q '^point,variable,type,mpi_calls,R0,R0_pct,total,total_pct,mean,sd,direct$' ||
	fail "csv header: $(head -1 "$T/ok.csv")"
adds_up "$T/ok.csv" 7
# a block freed and another made at the same address: each has the blame of its own work
grep -q 'reuse 1' "$T/ok.log" || echo "note: the second block did not reuse the first one's address"
a=$(blame_of "$T/ok.csv" "$(site A main)")
b=$(blame_of "$T/ok.csv" "$(site B main)")
positive "$a" || fail "the freed block has no blame ($a): $(cat "$T/ok.csv")"
positive "$b" || fail "the block made at its address has no blame ($b): $(cat "$T/ok.csv")"
# the realloc that moved: blame on the moved block's site, not on the small block's
grep -q 'moved 1' "$T/ok.log" || fail "the realloc did not move"
m=$(blame_of "$T/ok.csv" "$(site REALLOC main)")
positive "$m" || fail "the moved block has no blame: $(cat "$T/ok.csv")"
# the block before the move has only the samples taken inside realloc itself, where it is
# still live and its address in a register
s=$(blame_of "$T/ok.csv" "$(site SMALL main)")
awk -v s="${s:-0}" -v m="$m" 'BEGIN { exit !(s < m / 4) }' ||
	fail "the block before the realloc took $s, the moved one $m"
# the second thread's block, in main's table though main is not on the thread's stack
w=$(blame_of "$T/ok.csv" "$(site THREAD worker)")
positive "$w" || fail "the thread's block has no blame: $(cat "$T/ok.csv")"
# each of the four works a quarter of a second of CPU: none takes more than half of the total
tot=$(blame_of "$T/ok.csv" Total)
for x in "$a" "$b" "$m" "$w"; do
	awk -v x="$x" -v t="$tot" 'BEGIN { exit !(x < t / 2) }' ||
		fail "one block took $x of $tot: $(cat "$T/ok.csv")"
done
# text and json
expect_status 0 "$DT" blame ok
grep -q '^VARIABLE  *TYPE  *MPI CALLS  *R0(%)  *DIRECT  *TOTAL(%)  *MEAN  *SD$' "$T/out" || fail "text header: $(cat "$T/out")"
grep -q "^Total " "$T/out" || fail "no Total row"
expect_status 0 "$DT" blame ok --format json --metric time
grep -q '"metric":"time","unit":"ns"' "$T/out" || fail "json: $(head -c 300 "$T/out")"
grep -q '"site":\[{"func":"main"' "$T/out" || fail "json has no allocation site"
# a point: the thread's function takes the thread's samples only
expect_status 0 "$DT" blame ok --point worker --format csv
unquote "$T/out" >"$T/worker.csv"
adds_up "$T/worker.csv" 7
positive "$(blame_of "$T/worker.csv" "$(site THREAD worker)")" || fail "worker's table: $(cat "$T/worker.csv")"
[ -z "$(blame_of "$T/worker.csv" "$(site A main)")" ] || fail "main's block in worker's table"

# the interface: b on the run opens its blame, Enter a variable's details, p adds a point
printf '%s\n' b >"$T/keys"
"$DT" tui --script "$T/keys" --dump "$T/screen" --size 24x110 >"$T/tui.out" 2>"$T/tui.err" ||
	fail "tui exited $?: $(cat "$T/tui.err")"
grep -q '^difftrace: variable blame of ok' "$T/screen" || fail "no blame view: $(cat "$T/screen")"
grep -q 'blame point main: ' "$T/screen" || fail "no point main: $(cat "$T/screen")"
grep -q "^  $(site A main) *heap " "$T/screen" || fail "no row of the first block: $(cat "$T/screen")"
grep -q '^  Total  ' "$T/screen" || fail "no Total row: $(cat "$T/screen")"
grep -q 'R0(%)' "$T/screen" || fail "no rank column at 110 columns: $(cat "$T/screen")"
printf '%s\n' : '"blame ok"' Enter j Enter >"$T/keys"
"$DT" tui --script "$T/keys" --dump "$T/screen" --size 24x80 >"$T/tui.out" 2>"$T/tui.err" ||
	fail "tui exited $?: $(cat "$T/tui.err")"
grep -q '^difftrace: blame of .* at main in ok' "$T/screen" || fail "no details: $(cat "$T/screen")"
grep -q 'allocation call path' "$T/screen" || fail "no allocation path: $(cat "$T/screen")"
grep -q '  written directly by the samples. own lines: 0.0 ticks (0.0% of its blame)' "$T/screen" ||
	fail "no direct part (0 without an index): $(cat "$T/screen")"
grep -q 'cases.c:[0-9]' "$T/screen" || fail "the path has no line: $(cat "$T/screen")"
grep -q '^    work  ' "$T/screen" || fail "work is not among the functions that blamed it: $(cat "$T/screen")"
printf '%s\n' b p '"worker"' Enter >"$T/keys"
"$DT" tui --script "$T/keys" --dump "$T/screen" --size 30x80 >"$T/tui.out" 2>"$T/tui.err" ||
	fail "tui exited $?: $(cat "$T/tui.err")"
grep -q 'blame point worker: ' "$T/screen" || fail "p did not add the point: $(cat "$T/screen")"

# the watch thread alone (no CPU-time timer, as where the kernel checks those late): every
# thread is still sampled, each block gets about a quarter of the samples
# shellcheck disable=SC2086
DIFFTRACE_SAMPLE_WATCH=only timeout -k 5 150 "$MPIRUN" $flags "$RECORD" --sample=timer --sync-only \
	-o "$T/watch" -- "$APP" ok </dev/null >"$T/watch.log" 2>&1 ||
	{ cat "$T/watch.log" >&2; fail "the run sampled by the watch thread failed"; }
expect_status 0 "$DT" import -r watch "$T/watch"
expect_status 0 "$DT" blame watch --format csv
unquote "$T/out" >"$T/watch.csv"
tot=$(blame_of "$T/watch.csv" Total)
for s in "$(site A main)" "$(site B main)" "$(site REALLOC main)" "$(site THREAD worker)"; do
	x=$(blame_of "$T/watch.csv" "$s")
	awk -v x="${x:-0}" -v t="$tot" 'BEGIN { exit !(x > t / 8 && x < t / 2) }' ||
		fail "sampled by the watch thread, $s took ${x:-nothing} of $tot: $(cat "$T/watch.csv")"
done

# kill -9: the samples up to then import and are blamed
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
sleep 0.6
# the program itself, not the timeout or mpirun whose command lines name it too
app=$(pgrep -f "^$APP spin" | head -1)
[ -n "$app" ] || fail "the spinning program is gone"
kill -9 "$app"
wait "$pid" 2>/dev/null
kill "$pid" 2>/dev/null
expect_status 0 "$DT" import -r killed "$T/killed"
expect_status 0 "$DT" blame killed --format csv
unquote "$T/out" >"$T/killed.csv"
adds_up "$T/killed.csv" 7
positive "$(blame_of "$T/killed.csv" "$(site SPIN main)")" ||
	fail "the killed run's last block has no blame: $(cat "$T/killed.csv")"
expect_status 0 "$DT" blame killed
grep -q 'killed' "$T/out" || fail "the table does not say the process was killed"

# bad requests: usage errors exit 2, data errors 1, the store unchanged
before=$(store_digest)
expect_status 2 "$DT" blame ok --metric cycles
expect_err "--metric takes"
expect_status 2 "$DT" blame
expect_status 2 "$DT" blame --normal ok
expect_err "go together"
expect_status 1 "$DT" blame nosuchrun
printf 'MPI_Send blame=x\n' >"$T/bad.transfer"
expect_status 1 "$DT" blame ok --transfer "$T/bad.transfer"
expect_err "bad.transfer:1:"
mkdir "$T/plain"
printf 'main\n[ret]\n' >"$T/plain/0.0.txt"
expect_status 0 "$DT" import -r plain --format text "$T/plain"
before=$(store_digest)
expect_status 1 "$DT" blame plain
expect_err "has no samples"
# a damaged store is refused, not read past
sqlite3 "$DIFFTRACE_DB" "UPDATE blame_samples SET path = 999999 WHERE rowid = (SELECT min(rowid) FROM blame_samples)"
expect_status 1 "$DT" blame ok
expect_err "damaged"
[ "$(store_digest)" = "$before" ] || fail "a failed blame changed the store"
pass
