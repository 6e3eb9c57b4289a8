#!/bin/sh
# A diff without a setting is shown under the one the diagnosis chooses (dg_diff_setting), from
# the command line and from the interface alike: two traces the default filter sees as
# identical are shown under every call when that sees a difference, and the filter is named
# (`diff` and `:diff`); two traces whose calls are alike under every filter, which rank puts
# first for the data they sent (a sync record with payload digests) or for their time, are not
# "identical": the diff says what rank found (`diff`, its JSON, `:diff` and Enter on the
# ranking's first row).
. "${abs_top_srcdir:-.}/tests/lib.sh"
. "$abs_top_srcdir/tests/rank_runs.sh"

MK="$abs_top_builddir/tests/mk_sync_rec"
[ -x "$MK" ] || fail "tests/mk_sync_rec is not built"
# view KEYS...: the interface headless on those keys, the screen in $T/screen
view() {
	printf '%s\n' "$*" > "$T/keys"
	expect_status 0 "$DT" tui --script "$T/keys" --dump "$T/screen" --size 40x220
}
has() { grep -q -- "$1" "$T/screen" || fail "$2: $(cat "$T/screen")"; }
hasnt() { grep -q -- "$1" "$T/screen" && fail "$2: $(cat "$T/screen")"; return 0; }

# --- the default filter blind: shown under every call, said, in the interface as in diff ----
for k in normal own; do
	mk "$T/$k" $k
	expect_status 0 "$DT" import -q --run $k "$T/$k"
done
expect_status 0 "$DT" diff normal:2.1 own:2.1
grep -q '^# filter 11\.mpi\.ompall\.0K10 sees no difference between these traces; every call does' "$T/out" ||
	fail "diff, blind filter: $(cat "$T/out")"
view : '"diff normal:2.1 own:2.1"' Enter wait
has '^difftrace: diff normal 2\.1 | own 2\.1' ":diff opened no diff"
has ':  1 changed, 0 only left, 9 only right  (filter 11\.mpi\.ompall\.0K10 sees no difference; every call does: under filter everything)' \
	":diff, blind filter: not said"
has 'work_b' ":diff, blind filter: not under every call"
hasnt ':  identical' ":diff, blind filter: identical"
# traces identical under every call too stay identical, with no remark
view : '"diff normal:1.1 own:1.1"' Enter wait
has 'right \[own 1\.1\]:  identical$' ":diff of identical traces"

# --- rank puts a trace first for its data: its diff says so ------------------------------------
"$MK" "$T/c0" chain 0 || fail "mk_sync_rec chain 0"
"$MK" "$T/c1" chain 1 || fail "mk_sync_rec chain 1"
expect_status 0 "$DT" import -q --run c0 "$T/c0"
expect_status 0 "$DT" import -q --run c1 "$T/c1"
expect_status 0 "$DT" rank --format csv c0 c1
[ "$(sed -n 2p "$T/out" | cut -d, -f1-2)" = "1,0.0" ] || fail "chain: 0.0 not first: $(cat "$T/out")"
expect_status 0 "$DT" diff c0:0.0 c1:0.0
grep -q '(identical)' "$T/out" && fail "diff of the data's first: identical: $(cat "$T/out")"
grep -q '(calls identical under every filter; sent data differs: MPI_Send to 1 tag 5, the 1st, first in causal order)$' "$T/out" ||
	fail "diff of the data's first: $(cat "$T/out")"
expect_status 0 "$DT" diff -u c0:0.0 c1:0.0
grep -q '^# calls identical under every filter; sent data differs: MPI_Send to 1 tag 5' "$T/out" ||
	fail "diff -u of the data's first: $(cat "$T/out")"
expect_status 0 "$DT" diff --format json c0:0.0 c1:0.0
grep -q '"verdict": "calls identical under every filter; sent data differs: MPI_Send to 1 tag 5, the 1st, first in causal order"' "$T/out" ||
	fail "diff json of the data's first: $(cat "$T/out")"
# 2.0 only received: identical, as rank says
expect_status 0 "$DT" diff c0:2.0 c1:2.0
grep -q '(identical)$' "$T/out" || fail "diff of 2.0: $(cat "$T/out")"
expect_status 0 "$DT" diff --format json c0:2.0 c1:2.0
grep -q '"verdict": null' "$T/out" || fail "diff json of 2.0: $(cat "$T/out")"
# the interface: Enter on the ranking's first row, and :diff
view : '"rank c0 c1"' Enter wait Enter wait
has '^difftrace: diff c0 0\.0 | c1 0\.0' "Enter on the ranking's first row"
has ':  calls identical under every filter; sent data differs: MPI_Send to 1 tag 5, the 1st, first in causal order' \
	"the view's diff of the data's first"
view : '"diff c0:1.0 c1:1.0"' Enter wait
has ':  calls identical under every filter; sent data differs: MPI_Send to 2 tag 5' ":diff of 1.0"

# --- rank puts a trace first for its time: its diff says so ------------------------------------
# 4 processes with timestamps: 5 iterations of relax (1 ms, +-4%) and MPI_Allreduce; in slow,
# rank 1's relax takes three times as long, every call the same
tmk() {
	mkdir "$1"
	for p in 0 1 2 3; do
		awk -v p=$p -v slow="$2" 'BEGIN {
			t = 1000
			printf "@%d main\n@%d MPI_Init\n", t, t + 10; t += 1000000
			printf "@%d [ret]\n", t
			for (i = 0; i < 5; i++) {
				w = 1000000 * (1 + 0.04 * ((p + i) % 3 - 1))
				if (slow && p == 1) w = 3 * w
				printf "@%d relax\n", t; t += w; printf "@%d [ret]\n", t
				printf "@%d MPI_Allreduce\n", t; t += (slow ? 3000000 : 1040000) - w + 20000
				printf "@%d [ret]\n", t
			}
			printf "@%d MPI_Finalize\n", t; t += 5000; printf "@%d [ret]\n@%d [ret]\n", t, t + 10
		}' > "$1/$p.0.txt" || fail "awk"
	done
}
tmk "$T/t0" 0
tmk "$T/t1" 1
expect_status 0 "$DT" import -q --run t0 "$T/t0"
expect_status 0 "$DT" import -q --run t1 "$T/t1"
expect_status 0 "$DT" rank --format csv t0 t1
[ "$(sed -n 2p "$T/out" | cut -d, -f1-2)" = "1,1.0" ] || fail "time: 1.0 not first: $(cat "$T/out")"
expect_status 0 "$DT" diff t0:1.0 t1:1.0
grep -q '(identical)' "$T/out" && fail "diff of the time's first: identical: $(cat "$T/out")"
grep -q '(calls identical under every filter; relax: 3\.0x its normal time, peers 1\.0x (0\.010 s more than theirs))$' "$T/out" ||
	fail "diff of the time's first: $(cat "$T/out")"
view : '"rank t0 t1"' Enter wait Enter wait
has '^difftrace: diff t0 1\.0 | t1 1\.0' "Enter on the time's first row"
has ':  calls identical under every filter; relax: 3\.0x its normal time' "the view's diff of the time's first"
pass
