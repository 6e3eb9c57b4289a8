#!/bin/sh
# accuracy.sh: how well difftrace finds the bugs of the ILCS example (examples/ilcs.c, the
# paper's Table II), a few injected faults (difftrace-inject(7)) and one bug of each kind of
# examples/kinds.c (kinds-*: compared with a normal run of that program, all recorded with
# difftrace-record --payload, so that kinds-data, a wrong value sent with the same calls, shows;
# kinds-rma is a put to another rank's slot of a window, the same calls).
#
# Builds the example once, records ONE normal run and one run per bug (faulty process 2,
# thread 1, iteration 3; 4 processes x 3 threads, oversubscribed), the runs that hang with
# difftrace-record --timeout, imports them all into one store, and for each bug and each
# setting (filter / attributes / K) runs 'difftrace rank --normal normal --faulty BUG' and
# finds where the truly faulty trace and process rank; also 'rank --sweep' per bug. Writes a
# markdown report (the table and its summary) to stdout or --report FILE.
#
# Where a trace ranks (from 'rank --format csv'): 1 + the number of traces NOT in the faulty
# set ranked at or above the best-ranked faulty trace (ties counted against us; a trace with a
# score of 0 and "identical" as its reason is "-", not found; one the time or data rules put
# first has score 0 and another reason). Fair top-1: the share of faulty traces among those tied first (0 when every
# score is 0); the same for a random pick (faulty traces / matched traces) and for "always
# 0.0" (1 when 0.0 is faulty). The faulty set (column "faulty"): the traces the bug changes -- P.T for a
# one-thread bug, T of every process for a *-thread-all-procs bug, the workers of process P
# for *-all-threads-one-proc, every worker for *-everywhere (crit2: the communication thread
# P.0 instead, it is the one that skips the section), P.0 for an MPI bug of one process, and
# every P.0 for an MPI bug of all processes. A process's score is the sum of its threads';
# its rank is computed the same way.
# A setting is FILTER/ATTRS/K[/SCORE], SCORE being 'combined' (the default ranking), 'jsmd'
# (the paper's JSM_D row sums; the default when SCORE is left out) or 'jsmd-self' (those sums
# plus each trace's own change and novelty: what 'jsmd' was before issue 27).
#
# Options:
#   -o DIR            work directory (default: build/accuracy); recordings and the store go here
#   --bugs LIST       only these bugs (space or comma separated; default: all, see --list)
#   --settings LIST   FILTER/ATTRS/K items separated by ';' (default: see $settings below)
#   --default S       the setting the summary counts (default: the first of --settings)
#   --no-sweep        skip 'rank --sweep'
#   --reuse           keep recordings already in DIR (re-record only the missing ones)
#   --free            run the ILCS example in its free-running mode (ilcs --free: the paper's
#                     structure, normal runs differ from each other) for the normal run and
#                     the example's bugs
#   --report FILE     write the markdown report to FILE (default: stdout)
#   --check N         exit 1 when a bug's faulty trace ranks below N (or is not found) under
#                     the default setting, or a bug could not be recorded
#   --hang-cause      for each bug that hangs, also score the first line of 'difftrace hang'
#                     (its most likely cause), alone and with --normal, tie-aware (the share of
#                     faulty traces among the threads it names), beside the older reading of
#                     the report (the threads of its cycles, else those others wait for), a
#                     random pick and always 0.0
#   --list            list the bugs and exit
# Environment: DIFFTRACE, DIFFTRACE_RECORD (default: build/difftrace, build/difftrace-record,
# else in PATH), MPICC, MPIRUN, UFTRACE.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)

work=$top/build/accuracy
bugs=
settings='ompall,mpi/sing.log10.args/10/combined;ompall,mpi/sing.log10.args/10/jsmd;ompall,mpi/doub.log10.args/10/jsmd;everything/sing.log10/10/jsmd;everything/doub.actual/10/jsmd;ompall,mpi/sing.log10/10/jsmd;mpi/sing.orig.args/10/jsmd'
default=
sweep=1 reuse=0 report='' check=0 list=0 ilcs_args='' hangcause=0

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
inj-spin|spin:func=GOMP_critical_start:ranks=2:threads=1:call=7|2.1|6
kinds-order|kinds|2.0|0
kinds-kernel|kinds|2.1|0
kinds-extra-call|kinds|2.1|0
kinds-branch|kinds|2.1|0
kinds-early-exit|kinds|2.0|6
kinds-bcast-root|kinds|2.0|6
kinds-farm-drop|kinds|2.0|6
kinds-crit-once|kinds|2.1|0
kinds-tag|kinds|2.0|6
kinds-recv-first|kinds|2.0|6
kinds-data|kinds|2.0|0
kinds-rma|kinds|2.0|0'

die() { echo "accuracy.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	-o) [ $# -ge 2 ] || die "-o needs a directory"; work=$2; shift ;;
	--bugs) [ $# -ge 2 ] || die "--bugs needs a list"; bugs=$(echo "$2" | tr ',' ' '); shift ;;
	--settings) [ $# -ge 2 ] || die "--settings needs a list"; settings=$2; shift ;;
	--default) [ $# -ge 2 ] || die "--default needs a setting"; default=$2; shift ;;
	--no-sweep) sweep=0 ;;
	--reuse) reuse=1 ;;
	--free) ilcs_args=--free ;;
	--report) [ $# -ge 2 ] || die "--report needs a file"; report=$2; shift ;;
	--check) [ $# -ge 2 ] || die "--check needs a rank"; check=$2; shift ;;
	--list) list=1 ;;
	--hang-cause) hangcause=1 ;;
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

. "$top/scripts/find_tools.sh"
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

ilcs=$work/ilcs kinds=$work/kinds
if [ $reuse = 0 ] || [ ! -x "$ilcs" ] || [ ! -x "$kinds" ]; then
	"$MPICC" -pg -fopenmp -O1 -o "$ilcs" "$top/examples/ilcs.c" -lm >>"$log" 2>&1 ||
		die "mpicc failed (see $log)"
	"$MPICC" -pg -fopenmp -O1 -o "$kinds" "$top/examples/kinds.c" >>"$log" 2>&1 ||
		die "mpicc failed (see $log)"
fi
prog=$ilcs

# record NAME TIMEOUT [--inject SPEC] -- ARGS: one run of $prog into $work/rec/NAME
record() {
	name=$1 secs=$2; shift 2
	[ $reuse = 1 ] && [ -f "$work/rec/$name.ok" ] && return 0
	rm -rf "$work/rec/$name" "$work/rec/$name.ok"
	t=$secs
	[ "$t" = 0 ] && t=30
	inj=
	if [ "$1" = --inject ]; then inj=$2; shift 2; fi
	shift # --
	# the kinds program's runs with a digest of each message (kinds-data: the same calls,
	# other data); the ILCS runs as the paper's were measured, without
	po=
	[ "$prog" = "$kinds" ] && po=--payload
	echo "== record $name (timeout $t s${inj:+, inject $inj}${po:+, $po}): $*" >>"$log"
	# shellcheck disable=SC2086
	if [ -n "$inj" ]; then
		timeout -k 5 $((t + 30)) "$MPIRUN" $flags "$RECORD" --timeout "$t" --inject "$inj" \
			-o "$work/rec/$name" -- "$prog" "$@" </dev/null >>"$log" 2>&1
	else
		timeout -k 5 $((t + 30)) "$MPIRUN" $flags "$RECORD" --timeout "$t" $po \
			-o "$work/rec/$name" -- "$prog" "$@" </dev/null >>"$log" 2>&1
	fi
	rc=$?
	echo "== $name: exit status $rc" >>"$log"
	# (with --free a bug may hang where the lock-step example ends: a wrong operation in one
	# process makes the processes disagree on when to stop; such a run is kept as stopped)
	if [ $rc != 0 ] && [ "$secs" = 0 ] && { [ "$prog" != "$ilcs" ] || [ -z "$ilcs_args" ]; }; then
		note "$name: the run failed ($rc; see $log)"
		return 1
	fi
	[ -d "$work/rec/$name" ] || { note "$name: nothing recorded (see $log)"; return 1; }
	: >"$work/rec/$name.ok"
}

rm -f "$DIFFTRACE_DB" "$DIFFTRACE_DB-wal" "$DIFFTRACE_DB-shm"
note "recording into $work/rec (log: $log)"
# shellcheck disable=SC2086
record normal 0 -- $ilcs_args || die "the normal run could not be recorded (see $log)"
"$DT" import -q --run normal "$work/rec/normal" >>"$log" 2>&1 || die "importing the normal run failed"
case " $bugs " in
*" kinds-"*)
	prog=$kinds
	record kinds-normal 0 -- || die "the normal run of kinds could not be recorded (see $log)"
	"$DT" import -q --run kinds-normal "$work/rec/kinds-normal" >>"$log" 2>&1 ||
		die "importing the normal run of kinds failed"
	;;
esac
# record_bug B HOW SECS
record_bug() {
	# shellcheck disable=SC2086
	case $2 in
	ilcs) prog=$ilcs; record "$1" "$3" -- $ilcs_args --bug "$1" --proc 2 --thread 1 --iter 3 ;;
	kinds) prog=$kinds; record "$1" "$3" -- --bug "${1#kinds-}" --proc 2 --thread 1 --iter 3 ;;
	*) prog=$ilcs; record "$1" "$3" --inject "$2" -- ;;
	esac
}
failed=
for b in $bugs; do
	line=$(echo "$all_bugs" | grep "^$b|")
	how=$(echo "$line" | cut -d'|' -f2)
	secs=$(echo "$line" | cut -d'|' -f4)
	note "$b"
	record_bug "$b" "$how" "$secs" || { failed="$failed $b"; continue; }
	# a run killed by --timeout may lose a rank's trace (a known difftrace-record issue):
	# record it once more before giving up on it
	"$DT" import -q --run "$b" "$work/rec/$b" >>"$log" 2>&1 && continue
	note "$b: import failed (see $log); recording it again"
	rm -f "$work/rec/$b.ok"
	record_bug "$b" "$how" "$secs" && "$DT" import -q --run "$b" "$work/rec/$b" >>"$log" 2>&1 ||
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

# position FAULTY: reads 'rank --format csv --top 1000' output; prints "trace-rank
# process-rank top fair-top1 random always-0.0 all-zero"
position() {
	awk -F, -v faulty="$1" "$isfaulty_awk"'
	function isfaultyproc(p,   n, i, a) {
		n = split(faulty, a, ",")
		for (i = 1; i <= n; i++) {
			if (a[i] ~ /^\*\./) return 1
			if (a[i] ~ "^" p "\\.") return 1
		}
		return 0
	}
	NR > 1 && $2 ~ /^[0-9]+\.[0-9]+$/ {
		n++; pos[n] = $1 + 0; pt[n] = $2; s[n] = $3 + 0
		# a suspect: a score, or a reason other than "identical" (the rules that rank traces
		# whose calls agree: their time, their data; score 0)
		sus[n] = s[n] > 0 || $0 !~ /,identical$/
		p = $2; sub(/\..*/, "", p); ps[p] += s[n]; if (!(p in seen)) { seen[p] = 1; np++; pl[np] = p }
	}
	END {
		best = 0; bi = 0; top = "-"; nf = 0; f1 = 0; n1 = 0; zero = 1
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
		bp = -1
		for (i = 1; i <= np; i++) if (isfaultyproc(pl[i]) && ps[pl[i]] > bp) bp = ps[pl[i]]
		if (bp <= 0) pr = "-"
		else { pr = 1; for (i = 1; i <= np; i++) if (!isfaultyproc(pl[i]) && ps[pl[i]] >= bp - 1e-9) pr++ }
		printf "%s %s %s %.3f %.3f %d %d\n", tr, pr, top, fair, (n ? nf / n : 0), isfaulty("0.0"), zero
	}'
}

# hangscore FAULTY: reads 'hang --format json'; prints "cause-fair older-fair random always-0.0
# named": the share of faulty threads among those the cause line names (its "pts"), the same
# for the threads of the cycles (else the threads others wait for), faulty threads among all
# threads, whether 0.0 is faulty, and the threads the cause names
hangscore() {
	awk -v faulty="$1" "$isfaulty_awk"'
	function share(list,   n, i, a, f) {
		n = split(list, a, " "); f = 0
		for (i = 1; i <= n; i++) f += isfaulty(a[i])
		return n ? f / n : 0
	}
	function pts(line,   out, m) {
		out = ""
		while (match(line, /"[0-9]+\.[0-9]+"/)) {
			m = substr(line, RSTART + 1, RLENGTH - 2)
			if (!(m in seenp)) { seenp[m] = 1; out = out " " m }
			line = substr(line, RSTART + RLENGTH)
		}
		return out
	}
	/^ "cause": / { l = $0; sub(/.*"pts": \[/, "", l); sub(/\].*/, "", l); delete seenp; cause = pts(l); next }
	/"state": / { l = $0; sub(/^ *\{"pt": "/, "", l); sub(/".*/, "", l); n++; nf += isfaulty(l); next }
	/^ "cycles": \[/ { incyc = 1; delete seenc }
	/^ "mismatches"/ { incyc = 0 }
	incyc && /\[ *"[0-9]/ { l = $0; while (match(l, /"[0-9]+\.[0-9]+"/)) { m = substr(l, RSTART + 1, RLENGTH - 2); if (!(m in seenc)) { seenc[m] = 1; cyc = cyc " " m } ; l = substr(l, RSTART + RLENGTH) } }
	/"from": .*"to": / { l = $0; sub(/.*"to": "/, "", l); sub(/".*/, "", l); if (!(l in seent)) { seent[l] = 1; waited = waited " " l } }
	END {
		old = cyc != "" ? cyc : waited
		named = cause; gsub(/^ /, "", named); gsub(/ /, ",", named)
		printf "%.3f %.3f %.3f %d %s\n", share(cause), share(old), (n ? nf / n : 0), isfaulty("0.0"), named == "" ? "-" : named
	}'
}

# setting label: everything/sing.log10/10 -> "everything sing.log10 K10"
out=$work/report.md
{
	echo "| bug | faulty | setting | thread rank | fair top-1 | process rank | top trace | B-score |"
	echo "|---|---|---|---:|---:|---:|---|---:|"
} >"$work/table.md"
: >"$work/summary.tsv"
{
	echo "| bug | faulty | cause names | fair top-1 | with --normal names | fair top-1 | older reading | random | always 0.0 |"
	echo "|---|---|---|---:|---|---:|---:|---:|---:|"
} >"$work/hang.md"
: >"$work/hang.tsv"
oldifs=$IFS
for b in $bugs; do
	case " $failed " in *" $b "*) echo "| $b | | (not recorded) | | | | | |" >>"$work/table.md"; continue ;; esac
	faulty=$(echo "$all_bugs" | grep "^$b|" | cut -d'|' -f3)
	normal=normal
	case $b in kinds-*) normal=kinds-normal ;; esac
	IFS=';'
	for s in $settings; do
		IFS=$oldifs
		f=${s%%/*} rest=${s#*/}; a=${rest%%/*} rest=${rest#*/}; k=${rest%%/*} sc=jsmd
		[ "$rest" = "$k" ] || sc=${rest#*/}
		if "$DT" rank --normal $normal --faulty "$b" --filter "$f" --attrs "$a" -K "$k" --top 1000 \
			--score "$sc" >"$work/rank.out" 2>>"$log" &&
			"$DT" rank --normal $normal --faulty "$b" --filter "$f" --attrs "$a" -K "$k" \
				--top 1000 --score "$sc" --format csv >"$work/rank.csv" 2>>"$log"; then
			# "no difference found" lists no trace: all of the run's tie at 0, so that the
			# baselines (a random pick, always 0.0) still count this bug
			[ "$(wc -l <"$work/rank.csv")" -gt 1 ] ||
				"$DT" traces "$b" 2>>"$log" | awk 'NR > 1 { print "1," $1 ",0,identical" }' >>"$work/rank.csv"
			# shellcheck disable=SC2046
			set -- $(position "$faulty" <"$work/rank.csv")
			bs=$(sed -n 's/^# B-score[^:]*: \([0-9.]*\).*/\1/p' "$work/rank.out")
			[ -n "$bs" ] || bs=-
			tr=$1 pr=$2 tt=$3 fair=$4 rnd=$5 r0=$6 zero=$7
		else
			tr=error pr=error tt=- bs=- fair=0 rnd=0 r0=0 zero=0
			note "$b: rank failed under $s (see $log)"
		fi
		label="$f $a K$k $sc"
		d=
		[ "$s" = "$default" ] && d=" **(default)**"
		echo "| $b | $faulty | $label$d | $tr | $fair | $pr | $tt | $bs |" >>"$work/table.md"
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$b" "$s" "$tr" "$pr" "$bs" "$fair" "$rnd" "$r0" "$zero" >>"$work/summary.tsv"
		IFS=';'
	done
	IFS=$oldifs
	if [ $hangcause = 1 ] && [ "$(echo "$all_bugs" | grep "^$b|" | cut -d'|' -f4)" != 0 ]; then
		if "$DT" hang --format json "$b" >"$work/hang.json" 2>>"$log" &&
			"$DT" hang --format json --normal $normal "$b" >"$work/hangn.json" 2>>"$log"; then
			# shellcheck disable=SC2046
			set -- $(hangscore "$faulty" <"$work/hang.json") $(hangscore "$faulty" <"$work/hangn.json")
			echo "| $b | $faulty | $5 | $1 | ${10} | $6 | $2 | $3 | $4 |" >>"$work/hang.md"
			printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$b" "$1" "$6" "$2" "$3" "$4" >>"$work/hang.tsv"
		else
			note "$b: hang failed (see $log)"
		fi
	fi
	if [ $sweep = 1 ]; then
		if "$DT" rank --normal $normal --faulty "$b" --sweep >"$work/sweep.out" 2>>"$log"; then
			# the lowest-B row, and how many rows put a faulty trace first, alone, in "Top threads"
			sw=$(awk -v faulty="$faulty" "$isfaulty_awk"'
			/^#/ || /^no difference found/ { next }
			/^Filter/ { col = index($0, "Top threads"); next }
			col && NF >= 5 {
				rows++
				t = substr($0, col); sub(/^ +/, "", t); tied = t ~ /^\[/; sub(/[ ,].*/, "", t)
				ok = !tied && isfaulty(t)
				if (ok) first++
				if (rows == 1) { row1 = $1 " " $2 " K" $3; b1 = $4; t1 = (t == "-" ? "-" : (ok ? 1 : (tied ? "tie" : "not 1"))) }
			}
			END { printf "%s|%s|%s|%d/%d\n", row1, t1, b1, first, rows }' "$work/sweep.out")
			IFS='|'
			set -- $sw
			IFS=$oldifs
			echo "| $b | $faulty | --sweep: lowest B-score row $1; settings with a faulty trace alone first: $4 | $2 | | | | $3 |" >>"$work/table.md"
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
# per setting and group of bugs: alone first, top 3, fair top-1 (and the two baselines), all zero
persetting() {
	awk -F'\t' -v d="$1" -v g="$2" '
	$2 == d && (g == "all" || (g == "kinds" && $1 ~ /^kinds-/) || (g == "ilcs" && $1 !~ /^kinds-/)) {
		n++; if ($3 == 1) f++; if ($3 ~ /^[0-9]+$/ && $3 <= 3) t++
		fair += $6; rnd += $7; r0 += $8; z += $9
	}
	END { if (n) printf "| `%s` | %s | %d | %d / %d | %d / %d | %.2f | %.2f | %.2f | %d |\n", d, g, n, f, n, t, n, fair / n, rnd / n, r0 / n, z }' "$work/summary.tsv"
}
{
	echo "Default setting: \`$default\` (filter/attributes/K/score). $summary."
	[ -z "$failed" ] || echo "Not recorded or not imported:$failed."
	echo
	echo "Per setting and group of bugs (ilcs: the example and the injected faults; kinds:"
	echo "examples/kinds.c): bugs whose faulty trace is alone first, in the top 3, the mean fair"
	echo "top-1 (share of faulty traces among those tied first), the same for a random pick and for"
	echo "always 0.0, and the rankings that were all zero."
	echo
	echo "| setting | bugs | n | alone first | top 3 | fair top-1 | random | always 0.0 | all zero |"
	echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
	IFS=';'
	for s in $settings; do
		IFS=$oldifs
		for g in ilcs kinds all; do persetting "$s" $g; done
		IFS=';'
	done
	IFS=$oldifs
	echo
	cat "$work/table.md"
	if [ $hangcause = 1 ]; then
		echo
		echo "The first line of 'difftrace hang' (its most likely cause) on the bugs that hang:"
		echo "the threads it names and the share of faulty ones among them (fair top-1), alone"
		echo "and with --normal; the older reading of the report (the threads of its cycles, else"
		echo "those others wait for), a random pick and always 0.0, scored the same way."
		awk -F'\t' '{ n++; a += $2; b += $3; c += $4; r += $5; z += $6 }
			END { if (n) printf "\nMean over %d hung runs: cause %.2f, with --normal %.2f, older reading %.2f, random %.2f, always 0.0 %.2f.\n\n", n, a / n, b / n, c / n, r / n, z / n }' "$work/hang.tsv"
		cat "$work/hang.md"
	fi
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
