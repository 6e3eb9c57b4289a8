#!/bin/sh
# blame_store.sh: difftrace blame on blame data written into the store by hand (no MPI needed):
# ten ranks (the text table gives the node mean and deviation instead of rank columns), the
# rows adding up to the total in csv, and a store of schema 4 (samples without a scan)
# migrated on open, whose computation then goes to Other with a note.
. "${abs_top_srcdir:-..}/tests/lib.sh"
need built
command -v sqlite3 >/dev/null || skip "sqlite3 not found (apt-get install sqlite3)"
export DIFFTRACE_BLAME_PATH="$abs_top_srcdir/blame"
mkdir "$T/plain"
printf 'main\n[ret]\n' >"$T/plain/0.0.txt"
expect_status 0 "$DT" import -q -r plain --format text "$T/plain"
q() { sqlite3 "$DIFFTRACE_DB" "$1"; }
# fill RUN W: the blame data of a run; rank 3 waits W ticks in MPI_Bcast (the others 5)
fill() {
run=$(q "SELECT id FROM runs WHERE name = '$1'")
# locations: 0 main, 1 work; paths: 0 the samples' (work, main), 1 the block's site (main);
# containers: 0 the global g, 1 a heap block; scan 0: the block, in frame 0's registers
q "INSERT INTO blame_locs(run_id, id, func, file, line, module, in_main) VALUES($run, 0, 'main', '/src/app.c', 7, 'app', 1);
   INSERT INTO blame_locs(run_id, id, func, file, line, module, in_main) VALUES($run, 1, 'work', '/src/app.c', 3, 'app', 1);
   INSERT INTO blame_paths VALUES($run, 0, x'0100000000000000');
   INSERT INTO blame_paths VALUES($run, 1, x'00000000');
   INSERT INTO blame_containers VALUES($run, 0, 0, 100, 3, 4096, 4, 0, 9223372036854775807,
     'g', 'int', -1, -1, 0);
   INSERT INTO blame_containers VALUES($run, 1, 0, 100, 1, 65536, 800, 1, 9223372036854775807,
     NULL, NULL, 1, -1, 1);
   INSERT INTO blame_scans VALUES($run, 0, x'0000000001000000');"
r=0
while [ $r -lt 10 ]; do
	q "INSERT INTO blame_procs VALUES($run, $r, $((100 + r)), 0, 1, 1000000, 'cpu-time', '/bin/app');
	   INSERT INTO blame_samples(run_id, rank, pid, tid, path, call, c0, c1, nrec, weight, cost,
	     bytes, scan) VALUES($run, $r, $((100 + r)), $((100 + r)), 0, 0, -1, -1, 10, $((10 + r)),
	     1000, 0, 0);
	   INSERT INTO blame_samples(run_id, rank, pid, tid, path, call, c0, c1, nrec, weight, cost,
	     bytes, scan) VALUES($run, $r, $((100 + r)), $((100 + r)), 0, 27, 0, -1, 5,
	     $([ $r = 3 ] && echo "$2" || echo 5), 500, 4, -1);"
	r=$((r + 1))
done
}
fill plain 5
expect_status 0 "$DT" blame plain
grep -q '^# 10 ranks: per-rank columns in csv and json$' "$T/out" || fail "text with 10 ranks: $(cat "$T/out")"
grep -q 'R0(%)' "$T/out" && fail "rank columns in text with 10 ranks"
grep -q '^app.c:7 (main)  *heap  *-  *0  *145(74.4)  *14.5  *2.9$' "$T/out" ||
	fail "the block's row (mean 14.5, deviation 2.9): $(cat "$T/out")"
grep -q '^g  *int  *MPI_Bcast  *0  *50(25.6)  *5.0  *0.0$' "$T/out" || fail "g's row: $(cat "$T/out")"
grep -q '^Total  *-  *-  *0  *195(100)  *19.5  *2.9$' "$T/out" || fail "the Total row: $(cat "$T/out")"
# no blame index: said, with what to do; and not with --no-index
grep -q "^# note: no blame index of the program: .* run 'difftrace blame-index -p BUILD_DIR'" "$T/out" ||
	fail "no note that there is no index: $(cat "$T/out")"
grep -q "the samples have no stacks" "$T/out" && fail "stacks said missing: $(cat "$T/out")"
expect_status 0 "$DT" blame plain --no-index
grep -q "no blame index" "$T/out" && fail "--no-index still notes the index: $(cat "$T/out")"
# the interface says the same on its status line
printf '%s\n' : '"blame plain"' Enter >"$T/keys"
"$DT" tui --script "$T/keys" --dump "$T/screen" --size 40x200 >"$T/tui.out" 2>"$T/tui.err" ||
	fail "tui exited $?: $(cat "$T/tui.err")"
grep -q "no blame index of the program: computation is blamed" "$T/screen" ||
	fail "the interface does not say there is no index: $(cat "$T/screen")"
expect_status 0 "$DT" blame plain --format csv
# R0..R9 with percents: total is column 25
awk -F, 'NR > 1 && $2 != "Total" { s += $25 } $2 == "Total" { t = $25 }
	END { exit !(s == t && t == 195) }' "$T/out" || fail "the csv rows do not add up: $(cat "$T/out")"
expect_status 0 "$DT" blame plain --metric bytes --format csv
grep -q '^main,g,int,MPI_Bcast,.*,200,100.0000,' "$T/out" || fail "bytes: $(cat "$T/out")"

# two runs: rank 3 of the faulty one waits ten times as long in the broadcast
expect_status 0 "$DT" import -q -r plain2 --format text "$T/plain"
fill plain2 50
expect_status 0 "$DT" blame --normal plain --faulty plain2 --top 2
grep -q '^R3  *g  *int  *5(27.8)  *50(79.4)  *+51.6%$' "$T/out" || fail "the change of g on rank 3: $(cat "$T/out")"
grep -q '^R3  *app.c:7 (main)  *heap  *13(72.2)  *13(20.6)  *-51.6%$' "$T/out" ||
	fail "the change of the block on rank 3: $(cat "$T/out")"
[ "$(grep -c '^R[0-9]' "$T/out")" = 20 ] || fail "--top 2: not two rows per rank: $(cat "$T/out")"
printf '%s\n' : '"blamediff plain plain2"' Enter >"$T/keys"
"$DT" tui --script "$T/keys" --dump "$T/screen" --size 40x80 >"$T/tui.out" 2>"$T/tui.err" ||
	fail "tui exited $?: $(cat "$T/tui.err")"
grep -q '^difftrace: blame of plain2 against plain at main' "$T/screen" || fail "no change view: $(cat "$T/screen")"
grep -q 'R3  *g  *int  *5.0( 27.8)  *50.0( 79.4)  *+51.6%' "$T/screen" || fail "change view: $(cat "$T/screen")"
# the runs view: 1 and 2 mark the runs, B opens the same view
printf '%s\n' 1 j 2 B >"$T/keys"
"$DT" tui --script "$T/keys" --dump "$T/screen" --size 40x80 >"$T/tui.out" 2>"$T/tui.err" ||
	fail "tui exited $?: $(cat "$T/tui.err")"
grep -q '^difftrace: blame of plain2 against plain at main' "$T/screen" || fail "B: $(cat "$T/screen")"
expect_status 0 "$DT" rm plain2

# samples without stacks (program counters only, as the sampler under uftrace once recorded):
# said in one line, with what to do
expect_status 0 "$DT" import -q -r pconly --format text "$T/plain"
fill pconly 5
q "UPDATE blame_paths SET locs = x'01000000' WHERE run_id = (SELECT id FROM runs WHERE name = 'pconly') AND id = 0"
expect_status 0 "$DT" blame pconly
grep -q '^# note: the samples have no stacks (program counters only: .*record again with this difftrace-record$' "$T/out" ||
	fail "no note that the samples have no stacks: $(cat "$T/out")"
expect_status 0 "$DT" rm pconly

# a store of schema 4: no scans; opened, it is migrated, and computation goes to Other
q "DROP TABLE blame_scans; ALTER TABLE blame_samples DROP COLUMN scan;
   ALTER TABLE blame_locs DROP COLUMN inl; PRAGMA user_version = 4;"
expect_status 0 "$DT" blame plain
[ "$(q "PRAGMA user_version")" = 13 ] || fail "the store was not migrated"
grep -q "no sample's frames point into a container" "$T/out" || fail "no note: $(cat "$T/out")"
grep -q '^Other  *-  *-  *-  *145(74.4) ' "$T/out" || fail "computation not in Other: $(cat "$T/out")"

# a store of schema 7 (locations without the inlined flag) opened read-only, never migrated:
# its locations are all real frames, and blame reads them as before
expect_status 0 "$DT" blame plain
cp "$T/out" "$T/want"
if reader_init; then
	mkdir "$T/ro" "$T/home" && cp "$DIFFTRACE_DB" "$T/ro/store.db" || fail "cp"
	sqlite3 "$T/ro/store.db" "ALTER TABLE blame_locs DROP COLUMN inl; PRAGMA user_version = 7;" ||
		fail "sqlite3"
	chmod 755 "$T" "$T/ro" && chmod 644 "$T/ro/store.db" && chmod 777 "$T/home" || fail "chmod"
	HOME="$T/home" as_reader "$RDT" -d "$T/ro/store.db" blame plain >"$T/out" 2>"$T/err" ||
		fail "blame on a read-only store of schema 7: $(cat "$T/err")"
	cmp -s "$T/out" "$T/want" || fail "read-only store of schema 7: $(cat "$T/out")"
	[ "$(sqlite3 "$T/ro/store.db" 'PRAGMA user_version')" = 7 ] || fail "a read-only store was migrated"
else
	echo "note: cannot run difftrace as another user ($READER_WHY): the read-only store of schema 7 is not tested"
fi
pass
