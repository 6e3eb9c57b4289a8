#!/bin/sh
# Traces with identical attribute sets collapse into one row of the analysis: on the test data,
# on the real ParLOT samples and on random runs with many repeated traces, every run analysed
# both ways (one row per class, one row per trace) gives the same classes, matrix, clusters,
# lattice, JSM_D, orderings and B-score (tests/test_collapse with store paths); and a store of
# identical traces keeps an analysis whose size grows linearly with the number of traces.
. "${abs_top_srcdir:-.}/tests/lib.sh"
CHK="$abs_top_builddir/tests/test_collapse"
[ -x "$CHK" ] || fail "$CHK not built"

# --- the test data and the ParLOT samples ------------------------------------------------------
expect_status 0 "$DT" -d "$T/small.db" import -q --run small "$DATA/text/small"
expect_status 0 "$DT" -d "$T/small.db" import -q --run again "$DATA/text/small"
expect_status 0 "$CHK" "$T/small.db"
if [ -n "$SHARED" ]; then
	for d in "$SHARED"/data/parlot/*/; do
		[ -d "$d" ] || continue
		n=$(basename "$d")
		expect_status 0 "$DT" -d "$T/parlot.db" import -q --parlot-token-names --run "$n" "$d/ptrace"
	done
	[ -f "$T/parlot.db" ] && expect_status 0 "$CHK" "$T/parlot.db"
fi

# --- random runs: 12 processes x 4 threads from a few behaviours, a faulty run that differs ----
# awk's rand() with a fixed seed: the same traces on every run of the test
gen() { # gen DIR SEED KINDS
	mkdir -p "$1"
	awk -v dir="$1" -v seed="$2" -v kinds="$3" 'BEGIN {
		srand(seed)
		split("MPI_Send MPI_Recv MPI_Barrier MPI_Allreduce omp_set_lock omp_unset_lock GOMP_barrier MPI_Bcast", f, " ")
		for (p = 0; p < 12; p++) for (t = 0; t < 4; t++) {
			k = int(rand() * kinds); file = dir "/" p "." t ".txt"
			print "MPI_Init\n[ret]" > file
			for (i = 0; i < 3 + k; i++) {
				g = f[1 + (k * 7 + i * 3) % 8]
				for (r = 0; r <= (k + i) % 4; r++) print g "\n[ret]" > file
			}
			print "MPI_Finalize\n[ret]" > file
			close(file)
		}
	}'
}
gen "$T/r1" 7 5
gen "$T/r2" 11 6
gen "$T/r3" 13 2
expect_status 0 "$DT" -d "$T/rand.db" import -q --run r1 "$T/r1"
expect_status 0 "$DT" -d "$T/rand.db" import -q --run r2 "$T/r2"
expect_status 0 "$DT" -d "$T/rand.db" import -q --run r3 "$T/r3"
expect_status 0 "$CHK" "$T/rand.db"

# --- the store grows linearly: N and 4N identical traces ----------------------------------------
command -v sqlite3 >/dev/null || skip "sqlite3 not found (apt-get install sqlite3)"
same() { # same DIR COUNT
	mkdir -p "$1"
	i=0
	while [ $i -lt "$2" ]; do
		printf 'MPI_Init\n[ret]\nMPI_Barrier\n[ret]\nMPI_Finalize\n[ret]\n' > "$1/$i.0.txt"
		i=$((i + 1))
	done
}
same "$T/n1" 64
same "$T/n4" 256
for r in n1 n4; do
	expect_status 0 "$DT" -d "$T/same.db" import -q --run $r "$T/$r"
	expect_status 0 "$DT" -d "$T/same.db" analyze $r
done
blobs() { # the analysis blobs of run $1, and its similarity matrix, in bytes
	sqlite3 "$T/same.db" "SELECT sum(length(b.value)),
		sum(CASE WHEN b.key = 'jsm' THEN length(b.value) ELSE 0 END)
		FROM analysis_blobs b JOIN analyses a ON a.id = b.analysis_id JOIN runs r ON r.id = a.run_id
		WHERE r.name = '$1'"
}
b1=$(blobs n1)
b4=$(blobs n4)
[ "${b1#*|}" = 4 ] && [ "${b4#*|}" = 4 ] || fail "one class, a 1 x 1 matrix: $b1 / $b4"
# a dense matrix alone would be 4 n^2 bytes: 16 KiB and 256 KiB (the packed objects' paths
# grow by a digit here and there: linear, with some slack)
[ "${b4%|*}" -le $((4 * ${b1%|*} + 1024)) ] || fail "analysis blobs not linear: $b1 for 64, $b4 for 256"
expect_status 0 "$DT" -d "$T/same.db" classes --by identical --format csv n4
grep -q '^identical,0,256,' "$T/out" || fail "one class of 256: $(cat "$T/out")"
pass
