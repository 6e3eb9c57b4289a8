#!/bin/sh
# difftrace-record: record one MPI rank with uftrace into DIR/rank-N, for `difftrace import`.
#
# Run by the MPI launcher once per rank (mpirun -np 8 difftrace-record -- ./app args). Each
# rank writes its own uftrace.data directory, named after the rank it finds in the
# environment, because uftrace itself never learns which process is which rank.
set -u

prog=difftrace-record
version='@VERSION@'

usage() {
	cat <<EOF
Usage: mpirun -np N $prog [OPTIONS] -- PROGRAM [ARGS...]
Record one MPI rank of PROGRAM with uftrace into DIR/rank-R, where R is the rank
found in the environment (OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK, SLURM_PROCID,
MV2_COMM_WORLD_RANK; 0 when none is set). Import the result with
  difftrace import DIR

Options:
  -o, --output DIR       where the rank-R directories go (default: difftrace.data)
      --rank R           use rank R instead of the environment's
      --uftrace-opts OPTS  more options for 'uftrace record' (split on spaces)
      --inject SPEC      inject the faults SPEC with libdifftrace-inject.so
                         (see difftrace-inject(7))
  -n, --dry-run          print the uftrace command instead of running it
  -h, --help             show this help
  -V, --version          show the version

uftrace options always given: --force --no-pltbind --no-event
(library calls through the PLT are recorded; build PROGRAM with -pg to record
its own functions too). The uftrace program is \$UFTRACE, else uftrace in PATH.
EOF
}

die() {
	echo "$prog: $*" >&2
	exit 2
}

out=difftrace.data
rank=
extra=
inject=
dry=0
while [ $# -gt 0 ]; do
	case $1 in
	-o | --output)
		[ $# -ge 2 ] || die "$1 needs a directory"
		out=$2
		shift 2
		;;
	--output=*)
		out=${1#--output=}
		shift
		;;
	--rank)
		[ $# -ge 2 ] || die "--rank needs a number"
		rank=$2
		shift 2
		;;
	--rank=*)
		rank=${1#--rank=}
		shift
		;;
	--uftrace-opts)
		[ $# -ge 2 ] || die "--uftrace-opts needs a value"
		extra="$extra $2"
		shift 2
		;;
	--uftrace-opts=*)
		extra="$extra ${1#--uftrace-opts=}"
		shift
		;;
	--inject)
		[ $# -ge 2 ] || die "--inject needs a fault specification (see difftrace-inject(7))"
		inject=$2
		shift 2
		;;
	--inject=*)
		inject=${1#--inject=}
		shift
		;;
	-n | --dry-run)
		dry=1
		shift
		;;
	-h | --help)
		usage
		exit 0
		;;
	-V | --version)
		echo "$prog (difftrace) $version"
		exit 0
		;;
	--)
		shift
		break
		;;
	-*)
		die "unknown option '$1' (see $prog --help)"
		;;
	*)
		break
		;;
	esac
done
[ $# -gt 0 ] || die "no program to record (usage: $prog [OPTIONS] -- PROGRAM [ARGS...])"
[ -n "$out" ] || die "the output directory name is empty"

# The first rank variable that is set wins: launchers export several (Open MPI sets
# OMPI_COMM_WORLD_RANK and PMIX_RANK), and they agree.
if [ -z "$rank" ]; then
	for v in OMPI_COMM_WORLD_RANK PMIX_RANK PMI_RANK SLURM_PROCID MV2_COMM_WORLD_RANK; do
		eval "val=\${$v:-}"
		if [ -n "$val" ]; then
			rank=$val
			break
		fi
	done
fi
rank=${rank:-0}
case $rank in
'' | *[!0-9]*) die "rank '$rank' is not a number" ;;
esac

uftrace=${UFTRACE:-uftrace}
if ! command -v "$uftrace" >/dev/null 2>&1; then
	echo "$prog: uftrace not found ('$uftrace'): install it (Debian/Ubuntu: apt-get install uftrace) or set UFTRACE" >&2
	exit 127
fi

dir=$out/rank-$rank
# uftrace does not create parent directories; it moves an existing DIR aside to DIR.old.
if [ "$dry" = 0 ]; then
	mkdir -p "$out" || die "cannot create $out"
fi

# --force: also record programs built without -pg (their library calls through the PLT);
# --no-pltbind: OpenMP threads making their first call to a library function at the same
#   time would otherwise race with lazy binding and lose calls;
# --no-event: the default scheduler events are large and difftrace does not read them.
# $extra is split on spaces on purpose: it holds several options.
# shellcheck disable=SC2086
set -- "$uftrace" record -d "$dir" --force --no-pltbind --no-event $extra -- "$@"
# The injector is preloaded into uftrace too (uftrace keeps LD_PRELOAD for the program): its
# constructor refuses a bad specification there, before anything is recorded.
if [ -n "$inject" ]; then
	lib=${DIFFTRACE_INJECT_LIB:-@PKGLIBDIR@/libdifftrace-inject.so}
	# a build that was never installed keeps the library beside this script
	[ -f "$lib" ] || [ -n "${DIFFTRACE_INJECT_LIB:-}" ] || lib=$(dirname "$0")/libdifftrace-inject.so
	[ -f "$lib" ] || die "no fault injector at $lib (it is built when configure finds mpicc; DIFFTRACE_INJECT_LIB names another)"
	set -- env "LD_PRELOAD=$lib${LD_PRELOAD:+:$LD_PRELOAD}" "DIFFTRACE_INJECT=$inject" "$@"
fi
if [ "$dry" = 1 ]; then
	echo "$@"
	exit 0
fi
exec "$@"
