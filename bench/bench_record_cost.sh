#!/bin/sh
# bench_record_cost.sh [RUNS]: what recording costs, per kind of program (issue 25, item 4).
# bench/costwork.c (built -pg -g -O2 -fopenmp) in three kinds, each the worst case of one part
# of the recording: many small MPI calls (mpi), deep call trees (calls), OpenMP regions with
# a critical section, a lock and a barrier each (omp); 2 ranks under mpirun. Each kind runs
# seven ways in turn, RUNS times (A B C ... A B C ..., so that a change of the machine's load
# falls on all of them): the program alone, `uftrace record`, `difftrace-record` (uftrace and
# the sync record), `--no-bind-now` (the same under uftrace's --no-pltbind, the default before
# symbols were bound at load), `--sync-only`, `--sample` (the default recording with samples
# at the default rate) and `perf record -g` (of each rank, when perf can record here). Figures: the
# median of the whole command's elapsed time (mpirun included) and of the CPU time of the
# ranks with their recorders (user + system, each rank's command under /usr/bin/time, which
# counts the processes it waits for: uftrace and the program, perf and the program), each
# also as a ratio to the program alone; and the median of the 1-minute load average read
# before each run, next to each figure.
set -eu
: "${abs_top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${abs_top_builddir:=$abs_top_srcdir}"
runs=${1:-3}
command -v mpicc >/dev/null || { echo "bench_record_cost: mpicc not installed"; exit 0; }
command -v uftrace >/dev/null || { echo "bench_record_cost: uftrace not installed"; exit 0; }
[ -x /usr/bin/time ] || { echo "bench_record_cost: /usr/bin/time not installed (Debian: time)"; exit 0; }
rec="$abs_top_builddir/difftrace-record"
[ -x "$rec" ] || { echo "bench_record_cost: difftrace-record not built"; exit 0; }
T=$(mktemp -d /tmp/dt-bench-cost.XXXXXX)
trap 'rm -rf "$T"' EXIT
cd "$T" # the -pg program writes gmon.out where it runs
mpicc -pg -g -O2 -fopenmp -o "$T/work" "$abs_top_srcdir/bench/costwork.c"
flags="-np 2"
mpirun --version 2>&1 | grep -q 'Open MPI' && flags="$flags --oversubscribe"
[ "$(id -u)" = 0 ] && flags="$flags --allow-run-as-root"
# each rank's command under /usr/bin/time, its CPU into cpu.RANK; uftrace and perf get a
# directory or file of their own per rank
cat > "$T/rank.sh" <<EOS
#!/bin/sh
r=\${OMPI_COMM_WORLD_RANK:-\${PMI_RANK:-0}}
case "\$1" in
uftrace) shift; set -- uftrace record -d "$T/uf.\$r" "\$@" ;;
perf) shift; set -- perf record -q -g -o "$T/perf.\$r" -- "\$@" ;;
esac
exec /usr/bin/time -f '%U %S' -o "$T/cpu.\$r" "\$@"
EOS
chmod +x "$T/rank.sh"
perf_ok=0
if command -v perf >/dev/null && perf record -q -g -o "$T/probe.data" true >/dev/null 2>&1; then
	perf_ok=1
fi
now() { date +%s.%N; }
ways="alone uftrace default lazy sync-only sample"
[ $perf_ok = 1 ] && ways="$ways perf"
# one KIND N WAY: one run, appended to $T/all as KIND|WAY|wall|cpu|load
one() {
	kind=$1 n=$2 way=$3
	rm -rf "$T"/uf.* "$T"/perf.* "$T/rec" "$T"/cpu.*
	case $way in
	alone) set -- "$T/rank.sh" "$T/work" ;;
	uftrace) set -- "$T/rank.sh" uftrace "$T/work" ;;
	default) set -- "$T/rank.sh" "$rec" -o "$T/rec" -- "$T/work" ;;
	lazy) set -- "$T/rank.sh" "$rec" --no-bind-now -o "$T/rec" -- "$T/work" ;;
	sync-only) set -- "$T/rank.sh" "$rec" --sync-only -o "$T/rec" -- "$T/work" ;;
	sample) set -- "$T/rank.sh" "$rec" --sample -o "$T/rec" -- "$T/work" ;;
	perf) set -- "$T/rank.sh" perf "$T/work" ;;
	esac
	load=$(cut -d' ' -f1 /proc/loadavg)
	a=$(now)
	# shellcheck disable=SC2086
	mpirun $flags "$@" "$kind" "$n" >"$T/out" 2>&1 ||
		{ cat "$T/out" >&2; echo "bench_record_cost: $kind $way failed"; exit 1; }
	b=$(now)
	cpu=$(cat "$T"/cpu.* | awk '{ s += $1 + $2 } END { print s }')
	echo "$kind|$way|$(awk -v a="$a" -v b="$b" 'BEGIN { print b - a }')|$cpu|$load" >> "$T/all"
}
: > "$T/all"
for kn in "mpi 60000" "calls 2000" "omp 20000"; do
	i=0
	while [ $i -lt "$runs" ]; do
		for w in $ways; do
			# shellcheck disable=SC2086
			one $kn "$w"
		done
		i=$((i + 1))
	done
done
[ $perf_ok = 1 ] || echo "perf record: not available here (Debian: linux-perf; or perf_event_paranoid)"
# the runs themselves, for whoever wants more than the medians: BENCH_COST_RAW=FILE
[ -z "${BENCH_COST_RAW:-}" ] || cp "$T/all" "$BENCH_COST_RAW"
awk -F'|' -v runs="$runs" '
	function srt(s, v,   n, i, j, t) {
		n = split(s, v, " ")
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
		return n
	}
	function med(s,   n, v) { n = srt(s, v); return v[int((n + 1) / 2)] }
	function span(s,   n, v) { n = srt(s, v); return sprintf("%.2f-%.2f", v[1], v[n]) }
	{ k = $1 SUBSEP $2; W[k] = W[k] " " $3; C[k] = C[k] " " $4; L[k] = L[k] " " $5
	  if (!($1 in seen)) { seen[$1] = 1; kinds[++nk] = $1 }
	  if (!($2 in wseen)) { wseen[$2] = 1; ways[++nw] = $2 } }
	END {
		name["alone"] = "the program alone"; name["uftrace"] = "uftrace record"
		name["default"] = "difftrace-record"; name["lazy"] = "difftrace-record --no-bind-now"
		name["sync-only"] = "difftrace-record --sync-only"
		name["sample"] = "difftrace-record --sample"; name["perf"] = "perf record -g"
		what["mpi"] = "many small MPI calls (mpi 60000: 2 ranks x 60,000 MPI_Sendrecv, 937 MPI_Allreduce)"
		what["calls"] = "deep call trees (calls 2000: 2 ranks x 16.4 M calls, 12 deep)"
		what["omp"] = "OpenMP (omp 20000: 2 ranks x 20,000 regions of 2 threads)"
		printf "median of %d runs; load: the 1-minute load average before the runs (median)\n", runs
		for (a = 1; a <= nk; a++) {
			kd = kinds[a]
			printf "\n%s\n", what[kd]
			printf "%-30s %9s %7s %9s %7s %6s  %s\n", "", "wall s", "ratio", "CPU s", "ratio", "load",
				"wall min-max"
			w0 = med(W[kd, "alone"]); c0 = med(C[kd, "alone"])
			for (b = 1; b <= nw; b++) {
				k = kd SUBSEP ways[b]
				w = med(W[k]); c = med(C[k])
				rw = w0 > 0 ? w / w0 : 0
				rc = c0 > 0 ? c / c0 : 0
				printf "%-30s %9.2f %6.2fx %9.2f %6.2fx %6.1f  %s\n", name[ways[b]], w, rw, c, rc,
					med(L[k]), span(W[k])
			}
		}
	}' "$T/all"
