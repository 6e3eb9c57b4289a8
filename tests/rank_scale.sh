#!/bin/sh
# The ranking on large runs of few behaviours (issue 19, item 1): two runs of 2,048 text traces
# in 12 and 13 classes of identical traces made `rank` die with SIGSEGV in
# rank_bscore_mean_classes (a class's count of traces, kept in a byte, wrapped at 256). Runs of
# 2,048 and 16,384 traces through `rank`, and every ranking path (default, --score jsmd,
# --sweep, --format json and csv, one run's outliers, the interface's ranking view) at 10,000
# traces; the B-score always in [0, 1]; and one B-score computed by hand.
. "${abs_top_srcdir:-.}/tests/lib.sh"

# gen DIR NPROC FAULTY: the issue's generator. Process p (kind p % 8), threads 0-3: thread 0
# makes MPI_Init, 40 iterations of MPI_Irecv MPI_Isend MPI_Waitall with MPI_Allreduce every
# (kind + 2)-th, MPI_Finalize; threads 1-3 make 40 iterations of (1 + (kind + t) % 4) critical
# sections and a barrier. With FAULTY = 1, thread 2 of process NPROC / 3 drops its last
# critical section from iteration 10 on.
gen() {
	mkdir "$1" && awk -v dir="$1" -v np="$2" -v faulty="$3" 'BEGIN {
		bad = int(np / 3)
		for (p = 0; p < np; p++) {
			kind = p % 8
			f = dir "/" p ".0.txt"
			printf "MPI_Init\n[ret]\n" > f
			for (i = 0; i < 40; i++) {
				printf "MPI_Irecv\n[ret]\nMPI_Isend\n[ret]\nMPI_Waitall\n[ret]\n" > f
				if (i % (kind + 2) == 0)
					printf "MPI_Allreduce\n[ret]\n" > f
			}
			printf "MPI_Finalize\n[ret]\n" > f
			close(f)
			for (t = 1; t < 4; t++) {
				f = dir "/" p "." t ".txt"
				for (i = 0; i < 40; i++) {
					c = 1 + (kind + t) % 4
					if (faulty && p == bad && t == 2 && i >= 10)
						c--
					for (j = 0; j < c; j++)
						printf "GOMP_critical_start\n[ret]\nGOMP_critical_end\n[ret]\n" > f
					printf "GOMP_barrier\n[ret]\n" > f
				}
				close(f)
			}
		}
	}' || fail "cannot write $1"
}

# bscore_ok FILE: the B-score line of a text ranking is a number in [0, 1]
bscore_ok() {
	b=$(sed -n 's/^# B-score ([^)]*): \([0-9.]*\).*/\1/p' "$1")
	[ -n "$b" ] || fail "no B-score in: $(head -3 "$1")"
	awk -v b="$b" 'BEGIN { exit !(b >= 0 && b <= 1) }' || fail "B-score $b out of [0, 1]"
}

# scale NPROC: import, analyze and rank a normal and a faulty run of NPROC x 4 traces in their
# own store; the faulty thread is first.
scale() {
	DIFFTRACE_DB="$T/s$1.db"
	gen "$T/n$1" "$1" 0
	gen "$T/f$1" "$1" 1
	expect_status 0 "$DT" import -q --run n "$T/n$1"
	expect_status 0 "$DT" import -q --run f "$T/f$1"
	expect_status 0 "$DT" analyze n f
	grep -q '12 classes of identical traces' "$T/out" && grep -q '13 classes' "$T/out" ||
		fail "$1 processes: not the issue's 12 and 13 classes: $(cat "$T/out")"
	BAD="$(($1 / 3)).2"
	expect_status 0 "$DT" rank --normal n --faulty f
	bscore_ok "$T/out"
	sed -n '/^ *#  trace/{n;p;q}' "$T/out" | grep -q "^ *1  $BAD " ||
		fail "$1 processes: $BAD not first: $(head -12 "$T/out")"
	rm -rf "$T/n$1" "$T/f$1"
}

scale 512 # 2,048 traces
scale 4096 # 16,384 traces
rm -f "$T"/s*.db

# 10,000 traces: every ranking path
scale 2500
for opts in "--score jsmd" "--format json" "--format csv" "--top 3" \
	"--sweep --sweep-filters mpi;ompall --sweep-attrs sing.log10,doub.orig"; do
	# shellcheck disable=SC2086
	expect_status 0 "$DT" rank --normal n --faulty f $opts
	case $opts in
	--score*) bscore_ok "$T/out"
		sed -n '/^ *#  trace/{n;p;q}' "$T/out" | grep -q "^ *1  $BAD " ||
			fail "jsmd: $BAD not first: $(head -8 "$T/out")" ;;
	*json*) grep -q "\"position\": 1, \"tied\": false, \"trace\": \"$BAD\"" "$T/out" ||
			fail "json: $BAD not first: $(head -20 "$T/out")"
		b=$(sed -n 's/^ *"bscore": \([0-9.]*\),$/\1/p' "$T/out")
		awk -v b="$b" 'BEGIN { exit !(b != "" && b >= 0 && b <= 1) }' ||
			fail "json: B-score '$b' out of [0, 1]" ;;
	*csv*) sed -n 2p "$T/out" | grep -q "^1,$BAD," || fail "csv: $BAD not first: $(head -3 "$T/out")" ;;
	--top*) [ "$(grep -c '^ *[0-9]*=\{0,1\}  [0-9]*\.[0-9] ' "$T/out")" -le 6 ] ||
			fail "--top 3: $(cat "$T/out")" ;;
	--sweep*) [ "$(grep -c '^11\.' "$T/out")" = 4 ] || fail "sweep: $(cat "$T/out")"
		awk 'NR > 2 { if (!($4 >= 0 && $4 <= 1)) exit 1 }' "$T/out" ||
			fail "sweep: a B-score out of [0, 1]: $(cat "$T/out")"
		[ "$(grep -c "^11\.ompall\..* $BAD " "$T/out")" = 2 ] ||
			fail "sweep: $BAD not first under ompall: $(cat "$T/out")" ;;
	esac
done
# the interface's ranking view
printf 'wait\n' > "$T/keys"
expect_status 0 "$DT" tui --script "$T/keys" --dump "$T/dump" --normal n --faulty f
grep -q '^difftrace: ranking f against n' "$T/dump" || fail "tui: no ranking view: $(cat "$T/dump")"
b=$(sed -n 's/.*B-score \([0-9.]*\)  10000 traces matched.*/\1/p' "$T/dump")
awk -v b="$b" 'BEGIN { exit !(b != "" && b >= 0 && b <= 1) }' || fail "tui: B-score '$b': $(cat "$T/dump")"
grep -A1 '# TRACE' "$T/dump" | sed -n 2p | grep -q "^>  *1 $BAD " ||
	fail "tui: $BAD not first: $(cat "$T/dump")"
# one run: the outliers (a thread unlike its cluster; the faulty one need not be first here,
# where each cluster gathers several kinds of process)
expect_status 0 "$DT" rank --run f
awk '$1 ~ /^[0-9]+$/ && $3 >= 0 && $3 <= 1 { n++ } END { exit n != 10 }' "$T/out" ||
	fail "outliers: not 10 rows scored in [0, 1]: $(cat "$T/out")"
rm -f "$T"/s*.db

# --- a B-score by hand ----------------------------------------------------------------------
# Traces 0.0 and 1.0 make X in both runs; 2.0 makes Y in both; 3.0 makes Y in the normal run,
# X and one more call in the faulty run (closest to X). The normal run's clusterings: {0,1,2,3}
# at k = 1, {0,1}{2,3} at 2, {0,1}{2}{3} at 3; the faulty run's: {0,1,3}{2} at 2, {0,1}{2}{3}
# at 3. B_3 = 1 (the same); at k = 2 the contingency table's cells are 2, 1, 1: T = 6 - 4 = 2,
# P = 2^2 + 2^2 - 4 = 4, Q = 3^2 + 1^2 - 4 = 6, B_2 = 2 / sqrt(24) = 0.408248. The mean over
# k = 2..3: (1 + 0.408248) / 2 = 0.704124.
DIFFTRACE_DB="$T/hand.db"
w() { f=$1; shift; for c in "$@"; do printf '%s\n[ret]\n' "$c"; done > "$f"; }
X="MPI_Init MPI_Send MPI_Recv MPI_Barrier MPI_Finalize"
Y="MPI_Bcast MPI_Reduce MPI_Gather MPI_Scatter MPI_Alltoall"
mkdir "$T/hn" "$T/hf"
# shellcheck disable=SC2086
{ w "$T/hn/0.0.txt" $X; w "$T/hn/1.0.txt" $X; w "$T/hn/2.0.txt" $Y; w "$T/hn/3.0.txt" $Y
  w "$T/hf/0.0.txt" $X; w "$T/hf/1.0.txt" $X; w "$T/hf/2.0.txt" $Y; w "$T/hf/3.0.txt" $X MPI_Allgather; }
expect_status 0 "$DT" import -q --run n "$T/hn"
expect_status 0 "$DT" import -q --run f "$T/hf"
expect_status 0 "$DT" rank --normal n --faulty f
grep -q '^# B-score (Fowlkes-Mallows, mean over k = 2..3, ward linkage): 0.704$' "$T/out" ||
	fail "B-score by hand 0.704: $(head -3 "$T/out")"
expect_status 0 "$DT" rank --normal n --faulty f --format json
grep -q '"bscore": 0.704124,' "$T/out" || fail "B-score by hand 0.704124: $(grep bscore "$T/out")"
pass
