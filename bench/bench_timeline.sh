#!/bin/sh
# bench_timeline.sh [P N [REPS]]: how long the interface's timeline and hang views take to open
# on sync recordings of two sizes (tests/mk_sync_rec ring: P processes, N iterations of a ring
# exchange and an MPI_Allreduce, 6 events per process and iteration; default P = 16 and 64,
# N = 400: about 38,000 and 153,000 events), run headless on a script that opens one view and
# waits for its work (`wait`).
#
# Per view, the median of REPS runs (default 5):
#   open      opening it and drawing its first screen (DIFFTRACE_TUI_TIMING: what a user waits
#             for before the screen answers keys)
#   ready     until its content is on the screen (the "ready" line of DIFFTRACE_TUI_TIMING when
#             the view computes in the background; otherwise the same as open)
#   cpu       the whole process's user + system CPU time (the interface's start included)
# The load average is printed first: the machine is shared, so compare figures of one run.
set -eu
: "${abs_top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${abs_top_builddir:=$abs_top_srcdir}"
DT="$abs_top_builddir/difftrace"
MK="$abs_top_builddir/tests/mk_sync_rec"
[ -x "$MK" ] || make -C "$abs_top_builddir" -s tests/mk_sync_rec >/dev/null
reps=${3:-5}
T=$(mktemp -d /tmp/dt-bench-tl.XXXXXX)
trap 'rm -rf "$T"' EXIT
export DIFFTRACE_DB="$T/s.db" DIFFTRACE_NO_PROGRESS=1
if [ $# -ge 2 ]; then sizes="$1:$2"; else sizes="16:400 64:400"; fi
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores)"
for s in $sizes; do
	p=${s%:*} n=${s#*:}
	"$MK" "$T/r$p" ring "$p" "$n"
	"$DT" import -q --run "r$p" "$T/r$p"
done
median() { sort -n | awk '{ v[NR] = $1 } END { printf "%.1f", NR ? v[int((NR + 1) / 2)] : 0 }'; }
printf '%-9s %-9s %8s %10s %10s %10s\n' run view events "open ms" "ready ms" "cpu ms"
for s in $sizes; do
	p=${s%:*}
	run="r$p"
	nev=$(sqlite3 "$DIFFTRACE_DB" "SELECT count(*) FROM sync_events y JOIN traces t ON t.id = y.trace_id JOIN runs r ON r.id = t.run_id WHERE r.name = '$run'" 2>/dev/null || echo "?")
	for view in timeline hang; do
		printf ': "%s %s" Enter wait Q\n' "$view" "$run" > "$T/keys"
		: > "$T/open"
		: > "$T/ready"
		: > "$T/cpu"
		i=0
		while [ "$i" -lt "$reps" ]; do
			rm -f "$T/timing"
			# the process's CPU time: the children's ticks of a subshell that ran it
			c=$(sh -c 'DIFFTRACE_TUI_TIMING="$1" "$2" tui --script "$3" --size 50x160 >/dev/null 2>&1
				awk "{ print (\$16 + \$17) * 1000 / $(getconf CLK_TCK) }" /proc/$$/stat' sh \
				"$T/timing" "$DT" "$T/keys")
			echo "$c" >> "$T/cpu"
			awk -v v="$view" '$1 == v { print $2 }' "$T/timing" >> "$T/open"
			awk -v v="$view" '$1 == v { o = $2 } $1 == v "-ready" { r = $2 }
				END { print r != "" ? r : o }' "$T/timing" >> "$T/ready"
			i=$((i + 1))
		done
		printf '%-9s %-9s %8s %10s %10s %10s\n' "$run" "$view" "$nev" "$(median < "$T/open")" \
			"$(median < "$T/ready")" "$(median < "$T/cpu")"
	done
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
