#!/bin/sh
# accuracy.sh: how well difftrace finds the bugs of the ILCS example (examples/ilcs.c, the
# paper's Table II) and a few injected faults (difftrace-inject(7)).
#
# Builds the example once, records ONE normal run and one run per bug (faulty process 2,
# thread 1, iteration 3; 4 processes x 3 threads, oversubscribed), the runs that hang with
# difftrace-record --timeout, imports them all into one store, and for each bug and each
# setting (filter / attributes / K) runs 'difftrace rank --normal normal --faulty BUG' and
# finds where the truly faulty trace and process rank; also 'rank --sweep' per bug. Writes a
# markdown report (the table and its summary) to stdout or --report FILE.
#
# Where a trace ranks: 1 + the number of traces NOT in the faulty set whose JSM_D row sum is at
# least that of the best-ranked faulty trace (ties counted against us; a score of 0 is "-",
# not found). The faulty set (column "faulty"): the traces the bug changes -- P.T for a
# one-thread bug, T of every process for a *-thread-all-procs bug, the workers of process P
# for *-all-threads-one-proc, every worker for *-everywhere (crit2: the communication thread
# P.0 instead, it is the one that skips the section), P.0 for an MPI bug of one process, and
# every P.0 for an MPI bug of all processes. A process's score is the sum of its threads';
# its rank is computed the same way. A trace that 'rank' lists as running at the stop of a hung
# run comes first, as rank lists it (its score counts as 1000 more, and so does its process's).
#
# Options:
#   -o DIR            work directory (default: build/accuracy); recordings and the store go here
#   --bugs LIST       only these bugs (space or comma separated; default: all, see --list)
#   --settings LIST   FILTER/ATTRS/K items separated by ';' (default: see $settings below)
#   --default S       the setting the summary counts (default: the first of --settings)
#   --no-sweep        skip 'rank --sweep'
#   --reuse           keep recordings already in DIR (re-record only the missing ones)
#   --report FILE     write the markdown report to FILE (default: stdout)
#   --check N         exit 1 when a bug's faulty trace ranks below N (or is not found) under
#                     the default setting, or a bug could not be recorded
#   --list            list the bugs and exit
# Environment: DIFFTRACE, DIFFTRACE_RECORD (default: build/difftrace, build/difftrace-record,
# else in PATH), MPICC, MPIRUN, UFTRACE.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)

work=$top/build/accuracy
bugs=
settings='ompall,mpi/sing.log10.args/10;ompall,mpi/sing.log10/10;mpi/sing.orig.args/10;everything/sing.log10/10;everything/sing.orig/10;everything/doub.actual/10;ompall,mpi/sing.orig/10;ompall,mpi/doub.actual/10;mpi/sing.log10/10;mpi/sing.orig/10;mpi/doub.actual/10;ompall/sing.log10/10;ompall/sing.orig/10;ompall/doub.actual/10'
default=
sweep=1 reuse=0 report='' check=0 list=0

# NAME|how it is made|faulty traces|hang timeout (0: must end)
all_bugs='allreduce1-op-one|ilcs|2.0|0
allreduce1-op-all|ilcs|*.0|0
allreduce1-size-one|ilcs|2.0|6
allreduce1-size-all|ilcs|*.0|0
allreduce2-op-one|ilcs|2.0|6
allreduce2-op-all|ilcs|*.0|0
allreduce2-size-one|ilcs|2.0|6
allreduce2-size-all|ilcs|*.0|0
bcast-size-one|ilcs|2.0|6
bcast-size-all|ilcs|*.0|0
crit1-one-thread|ilcs|2.1|0
crit1-thread-all-procs|ilcs|*.1|0
crit1-all-threads-one-proc|ilcs|2.1,2.2|0
crit1-everywhere|ilcs|*.1,*.2|0
crit2-one-thread|ilcs|2.0|0
crit2-thread-all-procs|ilcs|*.0|0
crit2-all-threads-one-proc|ilcs|2.0|0
crit2-everywhere|ilcs|*.0|0
crit3-one-thread|ilcs|2.1|0
crit3-thread-all-procs|ilcs|*.1|0
crit3-all-threads-one-proc|ilcs|2.1,2.2|0
crit3-everywhere|ilcs|*.1,*.2|0
infinite-loop|ilcs|2.1|6
inj-allreduce-op|allreduce:ranks=2:op=MPI_MAX|2.0|6
inj-allreduce-count|allreduce:ranks=2:count=2:call=3-|2.0|6
inj-bcast-drop|bcast:ranks=2:drop:call=3|2.0|6
inj-critical|critical:ranks=2:threads=1|2.1|0
inj-spin|spin:func=GOMP_critical_start:ranks=2:threads=1:call=7|2.1|6'

die() { echo "accuracy.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	-o) [ $# -ge 2 ] || die "-o needs a directory"; work=$2; shift ;;
	--bugs) [ $# -ge 2 ] || die "--bugs needs a list"; bugs=$(echo "$2" | tr ',' ' '); shift ;;
	--settings) [ $# -ge 2 ] || die "--settings needs a list"; settings=$2; shift ;;
	--default) [ $# -ge 2 ] || die "--default needs a setting"; default=$2; shift ;;
	--no-sweep) sweep=0 ;;
	--reuse) reuse=1 ;;
	--report) [ $# -ge 2 ] || die "--report needs a file"; report=$2; shift ;;
	--check) [ $# -ge 2 ] || die "--check needs a rank"; check=$2; shift ;;
	--list) list=1 ;;
	-h | --help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown option $1 (see --help)" ;;
	esac
	shift
done
[ -n "$default" ] || default=${settings%%;*}
if [ $list = 1 ]; then
	echo "$all_bugs" | awk -F'|' '{ printf "%-28s %-10s %s\n", $1, $3, $2 }'
	exit 0
fi
if [ -z "$bugs" ]; then
	bugs=$(echo "$all_bugs" | cut -d'|' -f1 | tr '\n' ' ')
else
	for b in $bugs; do
		echo "$all_bugs" | grep -q "^$b|" || die "unknown bug $b (see --list)"
	done
fi

DT=${DIFFTRACE:-}
[ -n "$DT" ] || { [ -x "$top/build/difftrace" ] && DT=$top/build/difftrace; } ||
	DT=$(command -v difftrace) || die "no difftrace (build it: sh scripts/build.sh build)"
RECORD=${DIFFTRACE_RECORD:-}
[ -n "$RECORD" ] || RECORD=$(dirname "$DT")/difftrace-record
[ -x "$RECORD" ] || RECORD=$(command -v difftrace-record) || die "no difftrace-record"
MPICC=${MPICC:-$(command -v mpicc || true)}
MPIRUN=${MPIRUN:-$(command -v mpirun || true)}
[ -n "$MPICC" ] || die "mpicc not found (apt-get install libopenmpi-dev)"
[ -n "$MPIRUN" ] || die "mpirun not found (apt-get install openmpi-bin)"
[ -n "${UFTRACE:-}" ] || command -v uftrace >/dev/null || die "uftrace not found (apt-get install uftrace)"
export OMP_NUM_THREADS=3
flags="--oversubscribe -np 4"
if [ "$(id -u)" = 0 ]; then
	flags="$flags --allow-run-as-root"
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

mkdir -p "$work/rec" || die "cannot create $work"
export DIFFTRACE_DB="$work/accuracy.db"
log=$work/log
: >"$log"
note() { echo "accuracy: $*" >&2; }

ilcs=$work/ilcs
if [ $reuse = 0 ] || [ ! -x "$ilcs" ]; then
	"$MPICC" -pg -fopenmp -O1 -o "$ilcs" "$top/examples/ilcs.c" -lm >>"$log" 2>&1 ||
		die "mpicc failed (see $log)"
fi

# record NAME TIMEOUT [--inject SPEC] -- ARGS: one run of the example into $work/rec/NAME
record() {
	name=$1 secs=$2; shift 2
	[ $reuse = 1 ] && [ -f "$work/rec/$name.ok" ] && return 0
	rm -rf "$work/rec/$name" "$work/rec/$name.ok"
	t=$secs
	[ "$t" = 0 ] && t=30
	inj=
	if [ "$1" = --inject ]; then inj=$2; shift 2; fi
	shift # --
	echo "== record $name (timeout $t s${inj:+, inject $inj}): $*" >>"$log"
	# shellcheck disable=SC2086
	if [ -n "$inj" ]; then
		timeout -k 5 $((t + 30)) "$MPIRUN" $flags "$RECORD" --timeout "$t" --inject "$inj" \
			-o "$work/rec/$name" -- "$ilcs" "$@" </dev/null >>"$log" 2>&1
	else
		timeout -k 5 $((t + 30)) "$MPIRUN" $flags "$RECORD" --timeout "$t" \
			-o "$work/rec/$name" -- "$ilcs" "$@" </dev/null >>"$log" 2>&1
	fi
	rc=$?
	echo "== $name: exit status $rc" >>"$log"
	if [ $rc != 0 ] && [ "$secs" = 0 ]; then
		note "$name: the run failed ($rc; see $log)"
		return 1
	fi
	[ -d "$work/rec/$name" ] || { note "$name: nothing recorded (see $log)"; return 1; }
	: >"$work/rec/$name.ok"
}

rm -f "$DIFFTRACE_DB" "$DIFFTRACE_DB-wal" "$DIFFTRACE_DB-shm"
note "recording into $work/rec (log: $log)"
record normal 0 -- || die "the normal run could not be recorded (see $log)"
"$DT" import -q --run normal "$work/rec/normal" >>"$log" 2>&1 || die "importing the normal run failed"
failed=
for b in $bugs; do
	line=$(echo "$all_bugs" | grep "^$b|")
	how=$(echo "$line" | cut -d'|' -f2)
	secs=$(echo "$line" | cut -d'|' -f4)
	note "$b"
	if [ "$how" = ilcs ]; then
		record "$b" "$secs" -- --bug "$b" --proc 2 --thread 1 --iter 3
	else
		record "$b" "$secs" --inject "$how" --
	fi || { failed="$failed $b"; continue; }
	# a run killed by --timeout may lose a rank's trace (a known difftrace-record issue):
	# record it once more before giving up on it
	"$DT" import -q --run "$b" "$work/rec/$b" >>"$log" 2>&1 && continue
	note "$b: import failed (see $log); recording it again"
	rm -f "$work/rec/$b.ok"
	if [ "$how" = ilcs ]; then
		record "$b" "$secs" -- --bug "$b" --proc 2 --thread 1 --iter 3
	else
		record "$b" "$secs" --inject "$how" --
	fi && "$DT" import -q --run "$b" "$work/rec/$b" >>"$log" 2>&1 ||
		{ note "$b: import failed again (see $log)"; failed="$failed $b"; }
done

# the awk function both readers below use: whether trace P.T is in the faulty set (a list such
# as "2.1,2.2" or "*.0")
isfaulty_awk='
function isfaulty(pt,   n, i, a, p) {
	n = split(faulty, a, ",")
	for (i = 1; i <= n; i++) {
		if (a[i] == pt) return 1
		if (a[i] ~ /^\*\./) { p = pt; sub(/^[0-9]+/, "*", p); if (p == a[i]) return 1 }
	}
	return 0
}'

# position FAULTY: reads 'rank --top 1000' output; prints "trace-rank process-rank ties top"
position() {
	awk -v faulty="$1" "$isfaulty_awk"'
	function isfaultyproc(p,   n, i, a) {
		n = split(faulty, a, ",")
		for (i = 1; i <= n; i++) {
			if (a[i] ~ /^\*\./) return 1
			if (a[i] ~ "^" p "\\.") return 1
		}
		return 0
	}
	/^most changed traces/ { on = 1; next }
	/^most changed pairs/ { on = 0 }
	on && $1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+\.[0-9]+$/ {
		# a trace running when a hung run was stopped is listed first whatever its sum
		n++; pt[n] = $2; s[n] = $3 + ($4 == "running" ? 1000 : 0)
		p = $2; sub(/\..*/, "", p); ps[p] += s[n]; if (!(p in seen)) { seen[p] = 1; np++; pl[np] = p }
	}
	END {
		best = -1; top = ""
		for (i = 1; i <= n; i++) {
			if (top == "" && s[i] > 0) top = pt[i]
			if (isfaulty(pt[i]) && s[i] > best) best = s[i]
		}
		if (best <= 0) tr = "-"
		else { tr = 1; for (i = 1; i <= n; i++) if (!isfaulty(pt[i]) && s[i] >= best - 1e-9) tr++ }
		bp = -1
		for (i = 1; i <= np; i++) if (isfaultyproc(pl[i]) && ps[pl[i]] > bp) bp = ps[pl[i]]
		if (bp <= 0) pr = "-"
		else { pr = 1; for (i = 1; i <= np; i++) if (!isfaultyproc(pl[i]) && ps[pl[i]] >= bp - 1e-9) pr++ }
		printf "%s %s %s\n", tr, pr, (top == "" ? "-" : top)
	}'
}

# setting label: everything/sing.log10/10 -> "everything sing.log10 K10"
out=$work/report.md
{
	echo "| bug | faulty | setting | thread rank | process rank | top trace | B-score |"
	echo "|---|---|---|---:|---:|---|---:|"
} >"$work/table.md"
: >"$work/summary.tsv"
oldifs=$IFS
for b in $bugs; do
	case " $failed " in *" $b "*) echo "| $b | | (not recorded) | | | | |" >>"$work/table.md"; continue ;; esac
	faulty=$(echo "$all_bugs" | grep "^$b|" | cut -d'|' -f3)
	IFS=';'
	for s in $settings; do
		IFS=$oldifs
		f=${s%%/*} rest=${s#*/}; a=${rest%%/*} k=${rest#*/}
		if "$DT" rank --normal normal --faulty "$b" --filter "$f" --attrs "$a" -K "$k" --top 1000 \
			>"$work/rank.out" 2>>"$log"; then
			# shellcheck disable=SC2046
			set -- $(position "$faulty" <"$work/rank.out")
			bs=$(sed -n 's/^# B-score[^:]*: \([0-9.]*\).*/\1/p' "$work/rank.out")
			tr=$1 pr=$2 tt=$3
		else
			tr=error pr=error tt=- bs=-
			note "$b: rank failed under $s (see $log)"
		fi
		label="$f $a K$k"
		d=
		[ "$s" = "$default" ] && d=" **(default)**"
		echo "| $b | $faulty | $label$d | $tr | $pr | $tt | $bs |" >>"$work/table.md"
		printf '%s\t%s\t%s\t%s\t%s\n' "$b" "$s" "$tr" "$pr" "$bs" >>"$work/summary.tsv"
		IFS=';'
	done
	IFS=$oldifs
	if [ $sweep = 1 ]; then
		if "$DT" rank --normal normal --faulty "$b" --sweep >"$work/sweep.out" 2>>"$log"; then
			# the lowest-B row, and how many rows put a faulty trace first in "Top threads"
			sw=$(awk -v faulty="$faulty" "$isfaulty_awk"'
			/^#/ { next }
			/^Filter/ { col = index($0, "Top threads"); next }
			col && NF >= 5 {
				rows++
				t = substr($0, col); sub(/^ +/, "", t); sub(/[ ,].*/, "", t)
				if (isfaulty(t)) first++
				if (rows == 1) { row1 = $1 " " $2 " K" $3; b1 = $4; t1 = (t == "-" ? "-" : (isfaulty(t) ? 1 : "not 1")) }
			}
			END { printf "%s|%s|%s|%d/%d\n", row1, t1, b1, first, rows }' "$work/sweep.out")
			IFS='|'
			set -- $sw
			IFS=$oldifs
			echo "| $b | $faulty | --sweep: lowest B-score row $1; settings with a faulty trace first: $4 | $2 | | | $3 |" >>"$work/table.md"
		else
			note "$b: rank --sweep failed (see $log)"
		fi
	fi
done

# the summary under the default setting
nb=$(echo "$bugs" | wc -w)
summary=$(awk -F'\t' -v d="$default" -v nb="$nb" '
	$2 == d { n++; if ($3 == 1) first++; if ($3 ~ /^[0-9]+$/ && $3 <= 3) top3++; else miss = miss " " $1 }
	END { printf "%d of %d bugs put a faulty trace first, %d in the top 3", first, nb, top3
	      if (miss != "") printf "; not in the top 3:%s", miss; printf "\n" }' "$work/summary.tsv")
{
	echo "Default setting: \`$default\` (filter/attributes/K). $summary."
	[ -z "$failed" ] || echo "Not recorded or not imported:$failed."
	echo
	echo "Per setting (bugs whose faulty trace ranks first / in the top 3):"
	echo
	IFS=';'
	for s in $settings; do
		awk -F'\t' -v d="$s" '$2 == d { n++; if ($3 == 1) f++; if ($3 ~ /^[0-9]+$/ && $3 <= 3) t++ }
			END { printf "- `%s`: %d / %d of %d\n", d, f, t, n }' "$work/summary.tsv"
	done
	IFS=$oldifs
	echo
	cat "$work/table.md"
} >"$out"
if [ -n "$report" ]; then cp "$out" "$report"; else cat "$out"; fi
note "$summary"

status=0
if [ "$check" != 0 ]; then
	[ -z "$failed" ] || { note "FAIL: not recorded:$failed"; status=1; }
	bad=$(awk -F'\t' -v d="$default" -v c="$check" '$2 == d && !($3 ~ /^[0-9]+$/ && $3 <= c) { printf " %s(%s)", $1, $3 }' "$work/summary.tsv")
	[ -z "$bad" ] || { note "FAIL: not in the top $check under $default:$bad"; status=1; }
fi
exit $status
