#!/bin/sh
# accuracy_suite.sh: how well difftrace finds the bugs of bench/suite/, small programs written
# for this measurement in the kinds of bugs that public MPI correctness suites document (the
# MPI Bugs Initiative, MPI-CorrBench, the hybrid MPI+OpenMP classes; bench/suite/README).
#
# For each program of bench/suite/MANIFEST: builds it (-pg -O2 -g, -fopenmp when it uses
# OpenMP), records its normal and its faulty run as the README tells users to
# (mpirun -np N difftrace-record --timeout T -o DIR -- ./prog ARGS; --payload where the
# manifest says the symptom is a wrong result), one run at a time, imports both into one
# store, and runs 'difftrace rank --normal NAME-normal --faulty NAME-faulty' (the default
# ranking) and, when the faulty run did not end by itself (stopped by --timeout or aborted),
# 'difftrace hang --normal NAME-normal NAME-faulty' (its most likely cause).
#
# Scores, each tie-aware (ACCURACY.md): the ranking's fair top-1 is the share of faulty traces
# (the manifest's ground truth) among the traces tied first, 0 when no trace differs; a
# random pick's expectation is the share of faulty traces among the run's traces; "always 0.0"
# is 1 when the main thread of rank 0 is faulty. The hang cause is scored the same way: the
# share of faulty traces among the threads its line names (0 when it names none).
# Prints a markdown table per program and the means (stdout, or --report FILE).
#
# Options:
#   -o DIR            work directory (default: build/accuracy-suite)
#   --programs LIST   only these programs (space or comma separated; default: all)
#   --timeout N       difftrace-record --timeout for every run (default 8)
#   --reuse           keep the recordings already in DIR
#   --report FILE     write the markdown report to FILE
#   --check           exit 1 unless every program's faulty trace is first, alone (and no run
#                     failed to record)
#   --list            list the programs and exit
# Environment: DIFFTRACE, DIFFTRACE_RECORD (default: build/difftrace, build/difftrace-record,
# else in PATH), MPICC, MPICXX, MPIF90, MPIRUN.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
suite=$top/bench/suite
work=$top/build/accuracy-suite
progs='' tmo=8 reuse=0 report='' check=0 list=0

die() { echo "accuracy_suite.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	-o) [ $# -ge 2 ] || die "-o needs a directory"; work=$2; shift ;;
	--programs) [ $# -ge 2 ] || die "--programs needs a list"; progs=$(echo "$2" | tr ',' ' '); shift ;;
	--timeout) [ $# -ge 2 ] || die "--timeout needs seconds"; tmo=$2; shift ;;
	--reuse) reuse=1 ;;
	--report) [ $# -ge 2 ] || die "--report needs a file"; report=$2; shift ;;
	--check) check=1 ;;
	--list) list=1 ;;
	-h | --help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown option $1 (see --help)" ;;
	esac
	shift
done
manifest=$(grep -v '^#' "$suite/MANIFEST" | grep .) || die "no $suite/MANIFEST"
if [ $list = 1 ]; then
	echo "$manifest" | awk -F'|' '{ printf "%-22s %-10s %-6s %s\n", $1, $6, $7, $4 }'
	exit 0
fi
if [ -z "$progs" ]; then
	progs=$(echo "$manifest" | cut -d'|' -f1 | tr '\n' ' ')
else
	for p in $progs; do
		echo "$manifest" | grep -q "^$p|" || die "unknown program $p (see --list)"
	done
fi

. "$top/scripts/find_tools.sh"
MPICC=${MPICC:-$(command -v mpicc || true)}
MPICXX=${MPICXX:-$(command -v mpicxx || true)}
MPIF90=${MPIF90:-$(command -v mpif90 || true)}
MPIRUN=${MPIRUN:-$(command -v mpirun || true)}
[ -n "$MPICC" ] || die "mpicc not found (apt-get install libopenmpi-dev)"
[ -n "$MPIRUN" ] || die "mpirun not found (apt-get install openmpi-bin)"
command -v uftrace >/dev/null || die "uftrace not found (apt-get install uftrace)"
flags=--oversubscribe
if [ "$(id -u)" = 0 ]; then
	flags="$flags --allow-run-as-root"
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

mkdir -p "$work/rec" "$work/bin" || die "cannot create $work"
export DIFFTRACE_DB="$work/suite.db"
log=$work/log
: >"$log"
note() { echo "accuracy_suite: $*" >&2; }
rm -f "$DIFFTRACE_DB" "$DIFFTRACE_DB-wal" "$DIFFTRACE_DB-shm"

field() { echo "$manifest" | grep "^$1|" | cut -d'|' -f"$2"; }

# build NAME: the program's binary in $work/bin
build() {
	src=
	for e in c cpp f90; do
		[ -f "$suite/$1.$e" ] && { src=$suite/$1.$e; break; }
	done
	[ -n "$src" ] || { note "$1: no source"; return 1; }
	case $src in
	*.cpp) cc=$MPICXX ;;
	*.f90) cc=$MPIF90 ;;
	*) cc=$MPICC ;;
	esac
	[ -n "$cc" ] || { note "$1: no compiler for $src"; return 1; }
	omp=
	[ "$(field "$1" 3)" -gt 1 ] && omp=-fopenmp
	# shellcheck disable=SC2086
	"$cc" -pg -O2 -g $omp -o "$work/bin/$1" "$src" -lm >>"$log" 2>&1 || { note "$1: build failed (see $log)"; return 1; }
}

# record NAME WHICH RUN: one run into $work/rec/NAME-WHICH; prints the recorder's status
record() {
	name=$1 which=$2 run=$3
	dir=$work/rec/$name-$which
	if [ $reuse = 1 ] && [ -f "$dir.rc" ]; then cat "$dir.rc"; return 0; fi
	rm -rf "$dir"
	envs='' args=''
	for w in $run; do
		case $w in
		[A-Z]*=*) envs="$envs -x $w" ;;
		*) args="$args $w" ;;
		esac
	done
	po=
	[ "$(field "$name" 10)" = yes ] && po=--payload
	np=$(field "$name" 2)
	echo "== record $name-$which (np $np, timeout $tmo${po:+, $po}):$envs$args" >>"$log"
	# shellcheck disable=SC2086
	OMP_NUM_THREADS=$(field "$name" 3) timeout -k 5 $((tmo + 40)) "$MPIRUN" $flags -np "$np" \
		-x OMP_NUM_THREADS $envs "$RECORD" --timeout "$tmo" $po -o "$dir" -- "$work/bin/$name" $args \
		</dev/null >>"$log" 2>&1
	rc=$?
	echo "== $name-$which: exit status $rc" >>"$log"
	echo $rc >"$dir.rc"
	echo $rc
}

# the awk function the readers below use: whether trace P.T is in the faulty list
isfaulty_awk='
function isfaulty(pt,   n, i, a) {
	n = split(faulty, a, ",")
	for (i = 1; i <= n; i++) if (a[i] == pt) return 1
	return 0
}'

# position FAULTY: reads 'rank --format csv --top 1000'; prints "thread-rank top fair random
# always-0.0" (as scripts/accuracy.sh counts them)
position() {
	awk -F, -v faulty="$1" "$isfaulty_awk"'
	NR > 1 && $2 ~ /^[0-9]+\.[0-9]+$/ {
		n++; pos[n] = $1 + 0; pt[n] = $2; s[n] = $3 + 0
		sus[n] = s[n] > 0 || $0 !~ /,identical$/
	}
	END {
		bi = 0; top = "-"; nf = 0; f1 = 0; n1 = 0; zero = 1
		for (i = 1; i <= n; i++) {
			if (sus[i]) zero = 0
			if (isfaulty(pt[i])) nf++
			if (i == 1 && sus[i]) top = pt[i]
			if (isfaulty(pt[i]) && sus[i] && !bi) bi = i
		}
		if (!bi) tr = "-"
		else { tr = 1; for (i = 1; i <= n; i++) if (!isfaulty(pt[i]) && pos[i] <= pos[bi]) tr++ }
		if (!zero) for (i = 1; i <= n; i++) if (pos[i] == pos[1]) { n1++; if (isfaulty(pt[i])) f1++ }
		fair = zero || !n1 ? 0 : f1 / n1
		printf "%s %s %.3f %.3f %d\n", tr, top, fair, (n ? nf / n : 0), isfaulty("0.0")
	}'
}

# hangscore FAULTY: reads 'hang --format json'; prints "cause-fair named" (the threads of its
# "cause" line and the share of faulty ones among them)
hangscore() {
	awk -v faulty="$1" "$isfaulty_awk"'
	/^ "cause": / {
		l = $0; sub(/.*"pts": \[/, "", l); sub(/\].*/, "", l)
		while (match(l, /"[0-9]+\.[0-9]+"/)) {
			m = substr(l, RSTART + 1, RLENGTH - 2)
			if (!(m in seen)) { seen[m] = 1; n++; f += isfaulty(m); named = named (named == "" ? "" : ",") m }
			l = substr(l, RSTART + RLENGTH)
		}
	}
	END { printf "%.3f %s\n", (n ? f / n : 0), (named == "" ? "-" : named) }'
}

: >"$work/results.tsv"
failed=
for p in $progs; do
	note "$p"
	build "$p" || { failed="$failed $p"; continue; }
	rn=$(record "$p" normal "$(field "$p" 8)")
	rf=$(record "$p" faulty "$(field "$p" 9)")
	if [ "$rn" != 0 ]; then
		note "$p: the normal run failed ($rn; see $log)"
		failed="$failed $p"
		continue
	fi
	ok=1
	for w in normal faulty; do
		"$DT" import -q --run "$p-$w" "$work/rec/$p-$w" >>"$log" 2>&1 ||
			{ note "$p: importing the $w run failed (see $log)"; ok=0; }
	done
	[ $ok = 1 ] || { failed="$failed $p"; continue; }
	faulty=$(field "$p" 6)
	"$DT" rank --normal "$p-normal" --faulty "$p-faulty" --top 1000 >"$work/$p.rank.txt" 2>>"$log"
	if "$DT" rank --normal "$p-normal" --faulty "$p-faulty" --top 1000 --format csv >"$work/$p.rank.csv" 2>>"$log"; then
		# "no difference found" lists no trace: every trace of the run ties at 0
		[ "$(wc -l <"$work/$p.rank.csv")" -gt 1 ] ||
			"$DT" traces "$p-faulty" 2>>"$log" | awk 'NR > 1 { print "1," $1 ",0,identical" }' >>"$work/$p.rank.csv"
		# shellcheck disable=SC2046
		set -- $(position "$faulty" <"$work/$p.rank.csv")
		tr=$1 tt=$2 fair=$3 rnd=$4 r0=$5
	else
		note "$p: rank failed (see $log)"
		tr=error tt=- fair=0 rnd=0 r0=0
	fi
	# how the faulty run ended: by itself (0), stopped by --timeout or aborted (not 0)
	cause=- cfair=-
	if [ "$rf" != 0 ]; then
		if "$DT" hang --format json --normal "$p-normal" "$p-faulty" >"$work/$p.hang.json" 2>>"$log"; then
			# shellcheck disable=SC2046
			set -- $(hangscore "$faulty" <"$work/$p.hang.json")
			cfair=$1 cause=$2
			"$DT" hang --normal "$p-normal" "$p-faulty" 2>>"$log" | head -n 1 >"$work/$p.hang.txt"
		else
			note "$p: hang failed (see $log)"
			cfair=0 cause=error
		fi
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$p" "$faulty" "$(field "$p" 7)" "$rf" \
		"$tr" "$tt" "$fair" "$rnd" "$r0" "$cause" "$cfair" >>"$work/results.tsv"
done

out=$work/report.md
{
	echo "| program | kind | faulty | faulty run | thread rank | top trace | fair top-1 | random | always 0.0 | hang cause names | cause fair top-1 |"
	echo "|---|---|---|---|---:|---|---:|---:|---:|---|---:|"
	while IFS='	' read -r p faulty hang rf tr tt fair rnd r0 cause cfair; do
		# the recorder's status: 124 when --timeout stopped the run, the job's otherwise
		case $rf in
		0) ended=ended ;;
		124) ended=stopped ;;
		*) ended="aborted ($rf)" ;;
		esac
		echo "| $p | $(field "$p" 4) | $faulty | $hang, $ended | $tr | $tt | $fair | $rnd | $r0 | $cause | $cfair |"
	done <"$work/results.tsv"
	echo
	awk -F'\t' '
	{ n++; if ($5 == 1) first++; fair += $7; rnd += $8; r0 += $9
	  if ($4 != 0) { h++; cf += $11; hr += $8; h0 += $9; hf += $7 } }
	END {
		if (!n) exit
		printf "Ranking, %d programs: faulty trace first (alone or tied only with faulty ones) in %d; mean fair top-1 %.2f, random %.2f, always 0.0 %.2f.\n", n, first, fair / n, rnd / n, r0 / n
		if (h) printf "\nHang cause line, %d faulty runs that did not end by themselves: mean fair top-1 %.2f (rank on the same runs %.2f), random %.2f, always 0.0 %.2f.\n", h, cf / h, hf / h, hr / h, h0 / h
	}' "$work/results.tsv"
	echo
	echo "Per kind (the programs' name prefix): programs, faulty trace first, mean fair top-1 of the"
	echo "ranking, random, always 0.0; runs that did not end, and the cause line's mean fair top-1."
	echo
	echo "| kind | n | first | fair top-1 | random | always 0.0 | not ended | cause fair top-1 |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|"
	awk -F'\t' '
	{ k = $1; sub(/_.*/, "", k); if (!(k in n)) order[++nk] = k
	  n[k]++; if ($5 == 1) first[k]++; fair[k] += $7; rnd[k] += $8; r0[k] += $9
	  if ($4 != 0) { h[k]++; cf[k] += $11 } }
	END { for (i = 1; i <= nk; i++) { k = order[i]
		printf "| %s | %d | %d | %.2f | %.2f | %.2f | %d | %s |\n", k, n[k], first[k], fair[k] / n[k], rnd[k] / n[k], r0[k] / n[k], h[k], h[k] ? sprintf("%.2f", cf[k] / h[k]) : "-" } }' "$work/results.tsv"
	[ -z "$failed" ] || printf '\nNot measured (build, record or import failed):%s.\n' "$failed"
} >"$out"
if [ -n "$report" ]; then cp "$out" "$report"; else cat "$out"; fi

status=0
if [ $check = 1 ]; then
	[ -z "$failed" ] || { note "FAIL: not measured:$failed"; status=1; }
	bad=$(awk -F'\t' '$5 != 1 { printf " %s(%s)", $1, $5 }' "$work/results.tsv")
	[ -z "$bad" ] || { note "FAIL: faulty trace not first:$bad"; status=1; }
fi
exit $status
