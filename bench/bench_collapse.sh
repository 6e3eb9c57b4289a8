#!/bin/sh
# bench_collapse.sh [-b BASE] [-d DISTINCT] [-w WORST] [SIZES...]: analyze and rank on synthetic
# MPI + OpenMP text traces, this tree's difftrace against the one built from commit BASE
# (default: where this branch left main), both sides timed as whole commands with /usr/bin/time (elapsed, CPU, peak RSS).
#
# Each size N is N traces (N/4 processes x 4 threads) in two runs, normal and faulty, drawn
# from DISTINCT behaviours (default 300): a behaviour calls a set of MPI and OpenMP functions
# given by the bits of its number, in a loop, so that DISTINCT behaviours are DISTINCT attribute
# sets under the default filter and attributes; in the faulty run a few traces call one
# function more. The runs are imported once (with this tree's binary: the store format is the
# same on both sides) and the store copied for the other side; then, on each side,
# `analyze normal`, `analyze faulty` (computing the analyses) and `rank` (analyses cached) are
# timed, and the size of the analysis blobs in the store measured. The worst case for the
# collapse, WORST traces (default 8192) all distinct, follows (-w 0: not run). Sizes default to
# 1024 4096 8192 (`none`: only the worst case).
# Needs git (the base is built from `git archive`), /usr/bin/time and sqlite3.
# A side that fails (the base's dense matrix past SQLite's blob limit) is shown as failed. A size
# written +N is run on this tree's side only (the base's n x n matrices would not fit in memory).
set -eu
: "${abs_top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${abs_top_builddir:=$abs_top_srcdir}"
base=
distinct=300
worst=8192
while getopts b:d:w: o; do
	case $o in
	b) base=$OPTARG ;;
	d) distinct=$OPTARG ;;
	w) worst=$OPTARG ;;
	*) echo "usage: $0 [-b BASE] [-d DISTINCT] [-w WORST] [SIZES...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- 1024 4096 8192
new="$abs_top_builddir/difftrace"
[ -x "$new" ] || { echo "bench_collapse: $new not built" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "bench_collapse: /usr/bin/time needed (apt-get install time)" >&2; exit 1; }
command -v sqlite3 >/dev/null || { echo "bench_collapse: sqlite3 needed" >&2; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/dt-bench-collapse.XXXXXX")
trap 'rm -rf "$T"' EXIT
export DIFFTRACE_NO_PROGRESS=1 LC_ALL=C

# --- the base binary, built from `git archive BASE` -------------------------------------------
[ -n "$base" ] || base=$(git -C "$abs_top_srcdir" merge-base HEAD main)
rev=$(git -C "$abs_top_srcdir" rev-parse --short "$base")
mkdir "$T/base-src"
git -C "$abs_top_srcdir" archive "$rev" | tar -x -C "$T/base-src"
(cd "$T/base-src" && autoreconf -fi >/dev/null 2>&1 && sh scripts/build.sh "$T/base-build" CC="${CC:-gcc}" >/dev/null 2>&1) ||
	{ echo "bench_collapse: cannot build $rev" >&2; exit 1; }
old="$T/base-build/difftrace"

# --- traces ------------------------------------------------------------------------------------
gen() { # gen DIR N DISTINCT FAULTY: N traces of DISTINCT behaviours (0: every trace its own)
	mkdir -p "$1"
	awk -v dir="$1" -v n="$2" -v kinds="$3" -v faulty="$4" 'BEGIN {
		split("MPI_Send MPI_Recv MPI_Bcast MPI_Reduce MPI_Allreduce MPI_Barrier MPI_Gather " \
		      "MPI_Scatter MPI_Isend MPI_Irecv MPI_Wait MPI_Waitall MPI_Allgather " \
		      "MPI_Alltoall omp_set_lock omp_unset_lock GOMP_barrier GOMP_critical_start", f, " ")
		for (i = 0; i < n; i++) {
			p = int(i / 4); t = i % 4
			b = kinds ? (i * 7919) % kinds : i
			file = dir "/" p "." t ".txt"
			printf "MPI_Init\n[ret]\nMPI_Comm_rank\n[ret]\n" > file
			iters = 6 + b % 4
			for (it = 0; it < iters; it++) {
				x = b
				for (k = 1; k <= 18; k++) {
					if (x % 2) printf "%s\n[ret]\n", f[k] > file
					x = int(x / 2)
				}
				printf "MPI_Send\n[ret]\n" > file
			}
			x = (b * 37) % 262144
			for (k = 1; k <= 18; k++) {
				if (x % 2) printf "%s\n[ret]\n", f[k] > file
				x = int(x / 2)
			}
			if (faulty && i % 997 == 5) printf "MPI_Probe\n[ret]\n" > file
			printf "MPI_Finalize\n[ret]\n" > file
			close(file)
		}
	}'
}

t() { # t LABEL BIN ARGS...: one whole command, its figures appended to $T/fig
	label=$1
	shift
	if /usr/bin/time -f "%e %U %S %M" -o "$T/time" "$@" >"$T/cmd.out" 2>"$T/cmd.err"; then
		read -r el us sy rss <"$T/time"
		echo "$label $el $(echo "$us $sy" | awk '{ printf "%.2f", $1 + $2 }') $rss" >>"$T/fig"
	else
		echo "$label failed: $(grep -v '^Command' "$T/cmd.err" | head -1)" >>"$T/fig"
	fi
}

blobs() { # the analysis blobs in store $1, in bytes
	sqlite3 "$1" "SELECT coalesce(sum(length(value)), 0) FROM analysis_blobs"
}

one() { # one N DISTINCT
	n=${1#+}
	sides="old new"
	[ "$n" = "$1" ] || sides=new
	d=$2
	rm -rf "$T/normal" "$T/faulty" "$T"/*.db
	gen "$T/normal" "$n" "$d" 0
	gen "$T/faulty" "$n" "$d" 1
	"$new" -d "$T/new.db" import -q --run normal "$T/normal"
	"$new" -d "$T/new.db" import -q --run faulty "$T/faulty"
	rm -rf "$T/normal" "$T/faulty"
	cp "$T/new.db" "$T/old.db"
	for side in $sides; do
		bin=$old
		[ $side = new ] && bin=$new
		: >"$T/fig"
		t analyze-normal "$bin" -d "$T/$side.db" analyze normal
		t analyze-faulty "$bin" -d "$T/$side.db" analyze faulty
		t rank "$bin" -d "$T/$side.db" rank --normal normal --faulty faulty
		b=$(blobs "$T/$side.db")
		s=$(wc -c <"$T/$side.db")
		awk -v side="$side" -v n="$n" -v d="$d" -v b="$b" -v s="$s" '
			$2 == "failed:" { f = f " " $0; next }
			$1 ~ /^analyze/ { ae += $2; ac += $3; if ($4 > am) am = $4 }
			$1 == "rank" { re = $2; rc = $3; rm = $4 }
			END {
				if (f != "") { printf "%-6s %7d %8s  failed:%s\n", side, n, d ? d : "all", f; exit }
				printf "%-6s %7d %8s  %7.2f s %7.2f s %8.0f MB  %7.2f s %7.2f s %8.0f MB  %9.1f MB %9.1f MB\n",
					side, n, d ? d : "all", ae, ac, am / 1024, re, rc, rm / 1024, b / 1048576, s / 1048576
			}' "$T/fig"
	done
}

echo "difftrace analyze + rank: base $rev (old) against this tree (new), whole commands"
echo "(analyze: both runs, elapsed and CPU summed, peak RSS the larger; rank with both analyses cached)"
printf "%-6s %7s %8s  %9s %9s %11s  %9s %9s %11s  %12s %12s\n" side traces distinct \
	"analyze" "CPU" "peak RSS" "rank" "CPU" "peak RSS" "an. blobs" "store"
for n in "$@"; do
	[ "$n" = none ] || one "$n" "$distinct"
done
[ "$worst" -gt 0 ] && one "$worst" 0
