#!/bin/sh
# difftrace-record: record one MPI rank with uftrace into DIR/rank-N, for `difftrace import`.
#
# Run by the MPI launcher once per rank (mpirun -np 8 difftrace-record -- ./app args). Each
# rank writes its own uftrace.data directory, named after the rank it finds in the
# environment, because uftrace itself never learns which process is which rank. Beside it,
# libdifftrace-sync.so writes the sync record into DIR/rank-N/sync (difftrace-sync(5)).
set -u

prog=difftrace-record
version='@VERSION@'

usage() {
	cat <<EOF
Usage: mpirun -np N $prog [OPTIONS] -- PROGRAM [ARGS...]
Record one MPI rank of PROGRAM with uftrace into DIR/rank-R, where R is the rank
found in the environment (OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK, SLURM_PROCID,
MV2_COMM_WORLD_RANK; 0 when none is set), and its MPI and OpenMP calls with
libdifftrace-sync.so into DIR/rank-R/sync (kept even when the run hangs or is
killed; see difftrace-sync(5)). Import the result with
  difftrace import DIR

Options:
  -o, --output DIR       where the rank-R directories go (default: difftrace.data)
      --rank R           use rank R instead of the environment's
      --uftrace-opts OPTS  more options for 'uftrace record' (split on spaces)
      --inject SPEC      inject the faults SPEC with libdifftrace-inject.so
                         (see difftrace-inject(7))
      --timeout S        end a run that is still going after S seconds by the clock (a
                         hang): the trace is flushed first (up to 2 s under uftrace), so
                         it can be imported; exit status 124
      --no-mpi-args      do not record the arguments of MPI calls (recorded by default:
                         count, datatype, op, root, peer, tag, communicator)
      --no-bind-now      bind the program's library calls lazily under uftrace's
                         --no-pltbind instead of at load (LD_BIND_NOW=1): the same
                         calls recorded, each through the loader's resolver (16x
                         the CPU on a program of many small MPI calls)
      --no-sync          leave out the sync record (libdifftrace-sync.so)
      --payload[=N]      keep in the sync record a digest of the bytes each send,
                         one-sided transfer and collective contribution passes (the
                         first N of them, 4096 by default; contiguous predefined
                         types only), so that a rank that sends wrong data with the
                         same calls can be found
      --sample[=SPEC]    also take samples (PC and stack) and record allocations with
                         libdifftrace-sample.so into DIR/rank-R/sample, for
                         'difftrace blame' (see difftrace-sample(5)). SPEC: auto (the
                         default: PAPI cycles where PAPI reports the counter, else the
                         timer), timer[:HZ] (thread CPU time, 1000 Hz by default),
                         papi[:EVENT[:THRESHOLD]], or none (allocations only)
      --sync-only        record only the sync record, without uftrace
      --mpi openmpi|mpich  the MPI family of PROGRAM (default: the family of the
                         libmpi PROGRAM loads, else mpicc's); also DIFFTRACE_MPI_ABI.
                         The recorder libraries are built once per family found
                         at configure time: libdifftrace-sync.so for mpicc's,
                         libdifftrace-sync-mpich.so for MPICH and its descendants
                         (Intel MPI, MVAPICH, Cray MPICH) beside Open MPI
  -v, --verbose          keep uftrace's own notices (with --timeout: 'install signal
                         handlers to task N', once per rank)
  -n, --dry-run          print the uftrace command instead of running it
  -h, --help             show this help
  -V, --version          show the version

uftrace options always given: --force --no-event, with LD_BIND_NOW=1 in its
environment and the program's (library calls through the PLT are recorded, those
of threads making their first call to a function at the same moment too; build
PROGRAM with -pg to record its own functions too). Where a function the program
or its libraries refer to is defined nowhere (ldd -r), which stops a program at
load under LD_BIND_NOW, --no-pltbind instead, and a note says so. The uftrace
program is \$UFTRACE, else uftrace in PATH.
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
timeout=
dry=0
verbose=0
mpiargs=1
bindnow=1
sync=1
sample=
payload=
mpi=${DIFFTRACE_MPI_ABI:-}
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
	--timeout)
		[ $# -ge 2 ] || die "--timeout needs a number of seconds"
		timeout=$2
		shift 2
		;;
	--timeout=*)
		timeout=${1#--timeout=}
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
	--no-mpi-args)
		mpiargs=0
		shift
		;;
	--no-bind-now)
		bindnow=0
		shift
		;;
	--payload)
		payload=4096
		shift
		;;
	--payload=*)
		payload=${1#--payload=}
		case $payload in
		'' | *[!0-9]* | 0) die "--payload takes a number of bytes (1 or more), not '$payload'" ;;
		esac
		shift
		;;
	--no-sync)
		[ "$sync" = 2 ] && die "--no-sync and --sync-only together record nothing"
		sync=0
		shift
		;;
	--sync-only)
		[ "$sync" = 0 ] && die "--no-sync and --sync-only together record nothing"
		sync=2
		shift
		;;
	-v | --verbose)
		verbose=1
		shift
		;;
	--mpi)
		[ $# -ge 2 ] || die "--mpi needs openmpi or mpich"
		mpi=$2
		shift 2
		;;
	--mpi=*)
		mpi=${1#--mpi=}
		shift
		;;
	--sample)
		sample=auto
		shift
		;;
	--sample=*)
		sample=${1#--sample=}
		case $sample in
		auto | none | timer | timer:[1-9]* | papi | papi:*) ;;
		*) die "--sample takes auto, timer[:HZ], papi[:EVENT[:THRESHOLD]] or none, not '$sample'" ;;
		esac
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
target=$1
case $mpi in
'' | openmpi | mpich) ;;
*) die "--mpi takes openmpi or mpich, not '$mpi'" ;;
esac

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
if [ "$sync" != 2 ] && ! command -v "$uftrace" >/dev/null 2>&1; then
	echo "$prog: uftrace not found ('$uftrace'): install it (Debian/Ubuntu: apt-get install uftrace) or set UFTRACE" >&2
	exit 127
fi

# uftrace writes the program's real path raw into its info and task files: a newline in it
# breaks them (uftrace itself cannot replay the recording) and no symbols of the program are
# written. Said before a run is spent on it.
nl='
'
if [ "$sync" != 2 ]; then
	exe=$(command -v -- "$1" 2>/dev/null || :)
	real=$(readlink -f -- "${exe:-$1}" 2>/dev/null || :)
	case "$1$nl$exe$nl$real" in
	*"$nl"*"$nl"*"$nl"*)
		die "the program's path has a newline in it: uftrace cannot record it" \
			"(rename the file or the folders above it)" ;;
	esac
fi

# The recorder libraries interpose on MPI calls with the handles of the MPI they were built
# with: preloaded into a program of the other family, they would pass it handles it does not
# know (Open MPI's are pointers, MPICH's integers) and break it. So the family of the libmpi
# the program loads chooses them; a family this build has no libraries for is refused here,
# before the program starts. (A program found in no library, a script, gets mpicc's family:
# the libraries themselves refuse to run beside another family's libmpi.)
abi1='@MPI_ABI@'
abi2='@MPI2_ABI@'
mpi_of() { # PROGRAM: prints openmpi or mpich and the library, or nothing
	p=$1
	case $p in
	*/*) ;;
	*) p=$(command -v "$p" 2>/dev/null) || return 0 ;;
	esac
	[ -f "$p" ] || return 0
	for l in $(ldd "$p" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 }'); do
		# by name where it says (libmpich is 40 MB), else by content: Open MPI's libraries
		# define or use its predefined objects, MPICH's and its descendants' (Intel MPI's and
		# MVAPICH's libmpi.so.12) carry MPIR_, its internal layer
		case ${l##*/} in
		libmpich*.so*)
			echo "mpich $l"
			return 0
			;;
		libmpi.so.40* | libmpi.so.20* | libmpi_mpifh.so*)
			echo "openmpi $l"
			return 0
			;;
		libmpi.so* | libmpi_*.so* | libmpifort.so*) ;;
		*) continue ;;
		esac
		if grep -q ompi_mpi_comm_world "$l" 2>/dev/null; then
			echo "openmpi $l"
			return 0
		elif grep -q MPIR_ "$l" 2>/dev/null; then
			echo "mpich $l"
			return 0
		fi
	done
}
sfx=
if [ -n "$inject" ] || [ "$sync" != 0 ] || [ -n "$sample" ]; then
	mlib=
	if [ -z "$mpi" ]; then
		found=$(mpi_of "$target")
		mpi=${found%% *}
		mlib=${found#* }
	fi
	name() { case $1 in openmpi) echo "Open MPI" ;; *) echo "MPICH" ;; esac; }
	if [ -z "$mpi" ] || [ "$mpi" = "$abi1" ] || [ -z "$abi1" ]; then
		:
	elif [ "$mpi" = "$abi2" ]; then
		sfx=-$abi2
	else
		die "$target uses $(name "$mpi")${mlib:+ ($mlib)}, but this difftrace has recorder libraries for $(name "$abi1") only (libdifftrace-sync.so); libdifftrace-sync-$mpi.so is built when configure finds $(name "$mpi")'s compiler too (mpicc.$mpi)"
	fi
fi
dir=$out/rank-$rank
# uftrace does not create parent directories; it moves an existing DIR aside to DIR.old.
if [ "$dry" = 0 ]; then
	mkdir -p "$out" || die "cannot create $out"
fi

# --force: also record programs built without -pg (their library calls through the PLT);
# LD_BIND_NOW=1: OpenMP threads making their first call to a library function at the same
#   time would otherwise race with lazy binding and lose calls (the loader writes the
#   function's address into the GOT at the first call, and uftrace hooks it again only when
#   that call returns: a thread calling in between goes around the hook). Bound at load,
#   every entry is hooked from the start and the loader never writes it again. uftrace's own
#   answer, --no-pltbind (LD_BIND_NOT), sends every call through the loader's resolver: 16x
#   the CPU on a program of many small MPI calls (BENCHMARKS.md); now --no-bind-now;
# --no-event: the default scheduler events are large and difftrace does not read them.
# $extra is split on spaces on purpose: it holds several options.
# shellcheck disable=SC2086
sig=
[ -n "$timeout" ] && sig="--signal SIGUSR1@finish"
# The arguments that say which operation an MPI call is (argN by position in the C bindings;
# count, tag, root and peer as 32-bit ints, handles as 64-bit values: Open MPI's are addresses
# of its predefined objects, which difftrace import names). difftrace import names the
# arguments from the same list (mpi_fns in import_uftrace.c): keep the two in step.
args=
if [ "$mpiargs" = 1 ]; then
	p2p='arg2/i32,arg3/x64,arg4/i32,arg5/i32,arg6/x64'
	red='arg3/i32,arg4/x64,arg5/x64,arg6/x64'
	rooted='arg2/i32,arg3/x64,arg5/i32,arg6/x64,arg7/i32,arg8/x64'
	allto='arg2/i32,arg3/x64,arg5/i32,arg6/x64,arg7/x64'
	for f in Send Isend Ssend Issend Bsend Rsend Recv Irecv; do
		args="$args -A MPI_$f@$p2p"
	done
	for f in Allreduce Iallreduce Scan Exscan Reduce_scatter_block; do
		args="$args -A MPI_$f@$red"
	done
	for f in Gather Igather Scatter Iscatter; do
		args="$args -A MPI_$f@$rooted"
	done
	for f in Allgather Iallgather Alltoall Ialltoall; do
		args="$args -A MPI_$f@$allto"
	done
	args="$args -A MPI_Sendrecv@arg2/i32,arg3/x64,arg4/i32,arg5/i32,arg7/i32,arg8/x64,arg9/i32,arg10/i32,arg11/x64"
	args="$args -A MPI_Probe@arg1/i32,arg2/i32,arg3/x64"
	args="$args -A MPI_Barrier@arg1/x64 -A MPI_Ibarrier@arg1/x64"
	for f in Comm_split Comm_dup Comm_create Comm_split_type; do
		args="$args -A MPI_$f@arg1/x64"
	done
	args="$args -A MPI_Bcast@arg2/i32,arg3/x64,arg4/i32,arg5/x64 -A MPI_Ibcast@arg2/i32,arg3/x64,arg4/i32,arg5/x64"
	args="$args -A MPI_Reduce@arg3/i32,arg4/x64,arg5/x64,arg6/i32,arg7/x64 -A MPI_Ireduce@arg3/i32,arg4/x64,arg5/x64,arg6/i32,arg7/x64"
fi
# shellcheck disable=SC2086
if [ "$sync" = 2 ]; then
	# without uftrace: the program itself, in a fresh rank directory; an old one is moved
	# aside to DIR.old, as uftrace does
	if [ "$dry" = 0 ]; then
		if [ -e "$dir" ]; then
			rm -rf "$dir.old" && mv "$dir" "$dir.old" || die "cannot move $dir aside"
		fi
		mkdir -p "$dir" || die "cannot create $dir"
	fi
else
	if [ "$bindnow" = 1 ]; then
		set -- LD_BIND_NOW=1 "$uftrace" record -d "$dir" --force --no-event $sig $args $extra -- "$@"
	else
		set -- "$uftrace" record -d "$dir" --force --no-pltbind --no-event $sig $args $extra -- "$@"
	fi
fi
# The injector and the sync recorder are preloaded into uftrace too (uftrace keeps LD_PRELOAD
# for the program). The injector's constructor refuses a bad specification there, before
# anything is recorded; the sync recorder makes DIR/rank-R/sync at the program's first MPI or
# OpenMP call, after uftrace has made (or moved aside) DIR/rank-R. The injector comes first:
# it hands the calls it changes on to the recorder (not to PMPI), so the record shows them as
# changed, and a dropped call not at all.
pre=
if [ -n "$inject" ]; then
	lib=${DIFFTRACE_INJECT_LIB:-@PKGLIBDIR@/libdifftrace-inject$sfx.so}
	# a build that was never installed keeps the library beside this script
	[ -f "$lib" ] || [ -n "${DIFFTRACE_INJECT_LIB:-}" ] || lib=$(dirname "$0")/libdifftrace-inject$sfx.so
	[ -f "$lib" ] || die "no fault injector at $lib (it is built when configure finds mpicc; DIFFTRACE_INJECT_LIB names another)"
	pre=$lib
fi
if [ "$sync" != 0 ]; then
	slib=${DIFFTRACE_SYNC_LIB:-@PKGLIBDIR@/libdifftrace-sync$sfx.so}
	[ -f "$slib" ] || [ -n "${DIFFTRACE_SYNC_LIB:-}" ] || slib=$(dirname "$0")/libdifftrace-sync$sfx.so
	[ -f "$slib" ] || die "no sync recorder at $slib (it is built when configure finds mpicc; DIFFTRACE_SYNC_LIB names another; --no-sync leaves it out)"
	case $dir in
	/*) sdir=$dir/sync ;;
	*) sdir=$(pwd)/$dir/sync ;;
	esac
	pre=${pre:+$pre:}$slib
fi
if [ -n "$sample" ]; then
	plib=${DIFFTRACE_SAMPLE_LIB:-@PKGLIBDIR@/libdifftrace-sample$sfx.so}
	[ -f "$plib" ] || [ -n "${DIFFTRACE_SAMPLE_LIB:-}" ] || plib=$(dirname "$0")/libdifftrace-sample$sfx.so
	[ -f "$plib" ] || die "no sampler at $plib (it is built when configure finds mpicc and libunwind; DIFFTRACE_SAMPLE_LIB names another)"
	case $dir in
	/*) pdir=$dir/sample ;;
	*) pdir=$(pwd)/$dir/sample ;;
	esac
	if [ "$dry" = 0 ] && [ "$sync" = 2 ]; then
		rm -rf "$pdir"
	fi
	# before the sync recorder: its MPI wrappers note the buffers, then hand the call on
	if [ -n "$inject" ]; then
		pre=${pre%%:*}:$plib${pre#"$lib"}
	else
		pre=$plib${pre:+:$pre}
	fi
	set -- "DIFFTRACE_SAMPLE_DIR=$pdir" "DIFFTRACE_SAMPLE=$sample" "$@"
fi
if [ -n "$pre" ]; then
	[ "$sync" != 0 ] && set -- "DIFFTRACE_SYNC_DIR=$sdir" "$@"
	[ "$sync" != 0 ] && [ -n "$payload" ] && set -- "DIFFTRACE_SYNC_PAYLOAD=$payload" "$@"
	[ -n "$inject" ] && set -- "DIFFTRACE_INJECT=$inject" "$@"
	set -- env "LD_PRELOAD=$pre${LD_PRELOAD:+:$LD_PRELOAD}" "$@"
elif [ "$sync" != 2 ] && [ "$bindnow" = 1 ]; then
	# one env for every variable: a second one would itself start with the recorders loaded
	set -- env "$@"
fi
[ -n "$payload" ] && [ "$sync" = 0 ] && die "--payload is kept in the sync record, which --no-sync leaves out"
# LD_BIND_NOW stops a program at load when a function that it or a library it loads (the
# recorders preloaded above included) refers to is defined nowhere: bound lazily, such a
# function fails only when called, if ever. `ldd -r` binds every symbol as the loader would
# then, without running the program; where one is missing, uftrace's --no-pltbind replaces
# LD_BIND_NOW=1 (as safe for the threads' first calls, and slower), and a note says which.
if [ "$sync" != 2 ] && [ "$bindnow" = 1 ] && [ -n "${exe:-}" ] && [ -f "$exe" ] &&
	command -v ldd >/dev/null 2>&1; then
	miss=$(LD_PRELOAD="$pre${LD_PRELOAD:+:$LD_PRELOAD}" ldd -r "$exe" 2>&1 | LC_ALL=C tr '\t' ' ' | LC_ALL=C tr -c '[:print:]\n' '?' |
		sed -n 's/^undefined symbol: \([^[:space:](]*\).*/\1/p' | head -3 | tr '\n' ' ')
	if [ -n "$miss" ]; then
		echo "$prog: $(printf %s "$exe" | LC_ALL=C tr -c '[:print:]' '?') or its libraries refer to functions defined nowhere (${miss% }): recording with uftrace's --no-pltbind, as they could not be bound at load (LD_BIND_NOW)" >&2
		swapped=0
		for a; do
			shift
			if [ "$swapped" = 0 ] && [ "$a" = LD_BIND_NOW=1 ]; then
				swapped=1
			elif [ "$swapped" = 1 ] && [ "$a" = --force ]; then
				set -- "$@" --force --no-pltbind
				swapped=2
			else
				set -- "$@" "$a"
			fi
		done
	fi
fi
if [ -n "$timeout" ]; then
	case $timeout in
	'' | *[!0-9]* | 0) die "--timeout takes a whole number of seconds, not '$timeout'" ;;
	esac
fi
if [ "$dry" = 1 ]; then
	echo "$@"
	exit 0
fi
[ -n "$timeout" ] || exec "$@"

# With a timeout. A signal that kills the program loses the records still in its buffers
# (uftrace 0.13), so the program is first told to flush them: uftrace's SIGUSR1@finish
# trigger, installed above. Then it is killed, and uftrace writes what it has. The same
# happens when this wrapper is itself told to stop (the launcher aborting the job because
# another rank failed or timed out), so every rank stays importable.
# uftrace says 'install signal handlers to task N' on its standard output for every rank when
# it has a signal trigger: that notice goes unless --verbose, through a filter on a fifo (a
# pipeline would make $! the filter's process, not uftrace's).
filt=
if [ "$verbose" = 0 ]; then
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/difftrace-record.XXXXXX") || die "cannot make a temporary directory"
	trap 'rm -rf "$tmp"' EXIT
	mkfifo "$tmp/out" || die "cannot make a fifo in $tmp"
	# the filter ignores the launcher's signals: it must outlive the program, which is
	# flushing its trace when stopped, and would die of SIGPIPE writing to a dead filter
	(
		trap '' TERM INT HUP
		exec grep --line-buffered -v '^uftrace: install signal handlers to task [0-9]*$'
	) < "$tmp/out" &
	filt=$!
	exec 3>&1 > "$tmp/out"
fi
# now_cs: the time since boot in hundredths of a second (/proc/uptime: the clock, which a
# loaded node does not slow; whole seconds from date where it cannot be read)
now_cs() {
	if read -r up _ </proc/uptime 2>/dev/null; then
		c=${up#*.}
		echo $((${up%.*} * 100 + ${c#0}))
	else
		echo $(($(date +%s) * 100))
	fi
}
# wait_gone PID S: until the child PID has ended or S seconds have passed, by the clock.
# Rounds of 'sleep 0.1' are counted against a deadline, never by their number (they run late
# on a loaded node), and no sleep runs in the background: one left behind when the launcher
# stops this wrapper would hold the launcher's descriptors (MPICH's hydra waits for them to
# close, 20 s and more after the rank ended).
wait_gone() {
	wend=$(($(now_cs) + $2 * 100))
	while kill -0 "$1" 2>/dev/null && [ "$(now_cs)" -lt "$wend" ]; do
		sleep 0.1
	done
}
ended=0
stop_traced() { # why
	[ "$ended" = 1 ] && return
	ended=1
	# tells difftrace import that this rank was cut short, so its traces are flagged; first,
	# because the launcher may kill this wrapper while it waits for the flush below
	: > "$dir/difftrace-timeout"
	echo "$prog: rank $rank: $1; flushing the trace and ending the program" >&2
	if [ "$sync" = 2 ]; then
		# the sync record is in the page cache already: nothing to flush
		kill -KILL "$child" 2>/dev/null
	else
		# the program's processes, named now: uftrace may end at the signal (its finish
		# trigger) and leave the program running, no longer its child
		kids=$(pgrep -P "$child" 2>/dev/null)
		# shellcheck disable=SC2086 # one pid a word
		[ -z "$kids" ] || kill -USR1 $kids 2>/dev/null
		# 2 s for the flush, less when uftrace ends first (it has all the data then)
		wait_gone "$child" 2
		# shellcheck disable=SC2086
		[ -z "$kids" ] || kill -KILL $kids 2>/dev/null
	fi
	# uftrace writes its info and symbol files once the program is gone, which takes seconds
	# on a loaded node; killed before, the rank cannot be imported. It ends as soon as it has
	# written them, so the bound costs nothing when it is quick.
	wait_gone "$child" 30
	kill -KILL "$child" 2>/dev/null
	done_mark
}
# done_mark: this rank's uftrace has ended, its files are all written (wait_siblings)
done_mark() {
	[ "$sync" = 2 ] || : > "$dir/difftrace-done" 2>/dev/null || true
}
"$@" &
child=$!
if [ -n "$filt" ]; then
	exec >&3 3>&- # only the program writes into the filter: it ends when the program does
fi
# The deadline is by the clock (wait_gone): counting rounds of 'sleep 0.1' ran late on a
# loaded node, by half the timeout and more.
trap 'stop_traced "stopped by a signal"; exit 143' TERM INT HUP
# wait_siblings S: until the uftrace of every rank of the recording has ended (its wrapper
# left difftrace-done: uftrace writes its symbol files after its info file), or S seconds by
# the clock. The ranks of a hung job reach their timeouts together; the first wrapper to end
# with 124 makes the launcher stop the others' process groups, uftrace's too, which would
# then leave no info file, or no symbol files (MPICH's Hydra kills them at once).
wait_siblings() {
	send=$(($(now_cs) + $1 * 100))
	while [ "$(now_cs)" -lt "$send" ]; do
		missing=0
		for d in "$out"/rank-*; do
			[ -d "$d" ] || continue
			[ -f "$d/difftrace-done" ] || missing=1
		done
		[ "$missing" = 0 ] && break
		sleep 0.2
	done
}
wait_gone "$child" "$timeout"
if kill -0 "$child" 2>/dev/null; then
	stop_traced "still running after $timeout s"
	wait "$child" 2>/dev/null
	[ "$sync" = 2 ] || wait_siblings 20
	[ -z "$filt" ] || wait "$filt"
	exit 124
fi
wait "$child"
st=$?
done_mark
[ -z "$filt" ] || wait "$filt"
exit $st
