# lib.sh: what the shell tests share. Source it first; it sets:
#   DT      the difftrace program under test      RECORD  the difftrace-record script
#   T       a fresh temporary directory, removed on exit
#   SHARED  the ../shared folder of real trace data, or empty when it is absent
#   fail MSG / skip MSG / pass: end the test (exit 1 / 77 / 0)
#   expect_status N CMD...: run CMD, fail unless it exits with N; output in $T/out, $T/err
#   need mpi|uftrace|timeout|built: skip (or, for built, fail) without it; mpi sets MPICC and
#     MPIRUN (those of the second MPI family configure found when DIFFTRACE_TEST_MPI names
#     it: DIFFTRACE_TEST_MPI=mpich runs a test under MPICH), uftrace sets UFTRACE
#   reader_init: prepare to run difftrace as another user, for whom a store made by the tests
#     can be read-only (they run as root, where permissions do not bite); sets RDT. Returns 1
#     when that cannot be: not root, no user of uid 65534, or none of setpriv, runuser, su
#   as_reader CMD...: run CMD as that user (nobody), with the copies reader_init made
set -u
: "${abs_top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${abs_top_builddir:=$abs_top_srcdir}"
DT="$abs_top_builddir/difftrace"
RECORD="$abs_top_builddir/difftrace-record"
DATA="$abs_top_srcdir/tests/data"
T=$(mktemp -d "${TMPDIR:-/tmp}/difftrace-test.XXXXXX")
trap 'rm -rf "$T"' EXIT
export DIFFTRACE_DB="$T/store.db" DIFFTRACE_NO_PROGRESS=1 LC_ALL=C
SHARED="${DIFFTRACE_SHARED:-$abs_top_srcdir/../shared}"
[ -f "$SHARED/formats/parlot.md" ] || SHARED=""

fail() { echo "FAIL: $*" >&2; exit 1; }

# The user nobody cannot read a source or build tree under a private directory (a CI clone of
# mode 700, mktemp -d): reader_init copies what difftrace needs into $T/reader, readable by
# anyone: the program, the libraries it loads from the trees (ldd), and the shipped filters,
# rules and blame tables, which as_reader points it to (DIFFTRACE_FILTER_PATH,
# DIFFTRACE_RULES_PATH, DIFFTRACE_BLAME_PATH). Run the copy, "$RDT", through as_reader.
reader_init() {
	[ "$(id -u)" = 0 ] || { READER_WHY="not root: cannot become another user"; return 1; }
	READER_USER=$(getent passwd 65534 2>/dev/null | cut -d: -f1)
	if command -v setpriv >/dev/null; then
		READER_HOW=setpriv
	elif [ -z "$READER_USER" ]; then
		READER_WHY="no user of uid 65534 (nobody)"; return 1
	elif command -v runuser >/dev/null; then
		READER_HOW=runuser
	elif command -v su >/dev/null; then
		READER_HOW=su
	else
		READER_WHY="none of setpriv, runuser, su (util-linux)"; return 1
	fi
	case $(head -c 2 "$DT") in
	"#!") READER_WHY="$DT is a wrapper script, not the program"; return 1 ;;
	esac
	READER="$T/reader"
	mkdir -p "$READER/lib" "$READER/share" || return 1
	cp "$DT" "$READER/difftrace" || return 1
	for lib in $(ldd "$DT" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 }'); do
		case $lib in
		"$abs_top_builddir"/* | "$abs_top_srcdir"/*) cp "$lib" "$READER/lib/" || return 1 ;;
		esac
	done
	for d in filters rules blame; do
		cp -R "$abs_top_srcdir/$d" "$READER/share/$d" || return 1
	done
	chmod -R a+rX "$READER" && chmod 755 "$T" || return 1
	RDT="$READER/difftrace"
	as_reader "$RDT" --version >/dev/null 2>&1 ||
		{ READER_WHY="$RDT does not run as uid 65534 ($READER_HOW)"; return 1; }
}
as_reader() {
	set -- env LD_LIBRARY_PATH="$READER/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
		DIFFTRACE_FILTER_PATH="$READER/share/filters" DIFFTRACE_RULES_PATH="$READER/share/rules" \
		DIFFTRACE_BLAME_PATH="$READER/share/blame" "$@"
	case $READER_HOW in
	setpriv) setpriv --reuid=65534 --regid=65534 --clear-groups "$@" ;;
	runuser) runuser -m -u "$READER_USER" -- "$@" ;;
	# shellcheck disable=SC2016 # the shell run by su expands them
	su) su -m -s /bin/sh "$READER_USER" -c 'exec "$0" "$@"' -- "$@" ;;
	esac
}
skip() { echo "SKIP: $*"; exit 77; }
pass() { exit 0; }

expect_status() {
	want=$1; shift
	"$@" >"$T/out" 2>"$T/err"
	got=$?
	if [ "$got" != "$want" ]; then
		echo "--- stdout:" >&2; cat "$T/out" >&2
		echo "--- stderr:" >&2; cat "$T/err" >&2
		fail "exit status $got, expected $want: $*"
	fi
}

need() {
	for what in "$@"; do
		case $what in
		mpi)
			if [ -n "${DIFFTRACE_TEST_MPI:-}" ] && [ "$DIFFTRACE_TEST_MPI" != "${MPI_ABI:-}" ]; then
				# the second MPI family configure found (mpicc.mpich beside Open MPI)
				[ "$DIFFTRACE_TEST_MPI" = "${MPI2_ABI:-}" ] && [ -n "${MPICC2:-}" ] &&
					[ -n "${MPIRUN2:-}" ] ||
					skip "DIFFTRACE_TEST_MPI=$DIFFTRACE_TEST_MPI: configure found no such MPI (apt-get install libmpich-dev mpich)"
				MPICC=$MPICC2 MPIRUN=$MPIRUN2
			fi
			MPICC=${MPICC:-$(command -v mpicc || true)}
			MPIRUN=${MPIRUN:-$(command -v mpirun || true)}
			[ -n "$MPICC" ] || skip "mpicc not found (apt-get install libopenmpi-dev)"
			[ -n "$MPIRUN" ] || skip "mpirun not found (apt-get install openmpi-bin)" ;;
		uftrace)
			UFTRACE=${UFTRACE:-$(command -v uftrace || true)}
			[ -n "$UFTRACE" ] || skip "uftrace not found (apt-get install uftrace)" ;;
		timeout)
			command -v timeout >/dev/null || skip "timeout not found (coreutils)" ;;
		built)
			[ -x "$DT" ] || fail "$DT not built"
			[ -x "$RECORD" ] || fail "$RECORD not built" ;;
		esac
	done
}

# One line of stderr, naming what is asked for.
expect_err() {
	grep -q -- "$1" "$T/err" || { cat "$T/err" >&2; fail "stderr lacks '$1'"; }
}

# A digest of the store's contents, to show that a failed command changed nothing.
store_digest() {
	sqlite3 "$DIFFTRACE_DB" "SELECT name, ntraces, nevents FROM runs ORDER BY id;
	  SELECT count(*), coalesce(sum(length(events)),0) FROM chunks;
	  SELECT count(*) FROM traces; SELECT count(*) FROM functions;" 2>&1
}

# mk_planted DIR FAULTY [setup]: text traces of 4 processes x 2 threads; with FAULTY = 1,
# thread 2.1 skips its critical section in every iteration and process 3's main thread makes
# one more reduction. "setup" adds eight distinct calls at the start of each main thread.
mk_planted() {
	mkdir "$1"
	for p in 0 1 2 3; do
		{ printf 'main\nMPI_Init\n[ret]\n'
		  if [ "${3:-}" = setup ]; then
			for f in a b c d e f g h; do printf 'setup_%s\n[ret]\n' $f; done
		  fi
		  i=0; n=20; [ "$2" = 1 ] && [ $p = 3 ] && n=21
		  while [ $i -lt $n ]; do printf 'compute\n[ret]\nMPI_Allreduce\n[ret]\n'; i=$((i + 1)); done
		  printf 'MPI_Finalize\n[ret]\n[ret]\n'; } > "$1/$p.0.txt"
		{ i=0; while [ $i -lt 20 ]; do
			printf 'work\n[ret]\n'
			[ "$2" = 1 ] && [ $p = 2 ] || printf 'GOMP_critical_start\n[ret]\nGOMP_critical_end\n[ret]\n'
			i=$((i + 1)); done; } > "$1/$p.1.txt"
	done
}

# no_footprint WHAT: $T/out (a `rank` of two real runs) finds nothing in the calls or the data:
# "no difference found", or only the time of a program's own function, which the load of the
# machine can make grow in one rank of a real run (the timing rule; its own tests use text
# traces with timestamps)
no_footprint() {
	grep -Eq '^ *[0-9]+=? +[0-9]+\.[0-9]+ .*(arguments differ|sent data differs|written in flight|diverged|stopped early|pattern)' "$T/out" &&
		fail "$1: a difference in the calls or the data: $(cat "$T/out")"
	grep -Eq '^no difference found under|its normal time' "$T/out" || fail "$1: $(cat "$T/out")"
}

# peak_kib CMD [ARGS...]: runs the command (its output in $T/out) and prints its peak resident
# memory in KiB (tests/peak_rss, from wait4: what ulimit -v cannot bound, the pages of a mapped
# file among them); fails when it fails. Under AddressSanitizer the memory freed is not kept
# aside (256 MB of quarantine would count in the resident set).
peak_kib() {
	[ -x "$abs_top_builddir/tests/peak_rss" ] || fail "tests/peak_rss is not built"
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0" \
		"$abs_top_builddir/tests/peak_rss" "$@" >"$T/out" 2>"$T/err"
	_st=$?
	[ "$_st" = 0 ] || { cat "$T/err" >&2; fail "$*: exit status $_st"; }
	sed -n 's/^peak_rss \([0-9]*\)$/\1/p' "$T/err" | tail -n 1
}

# site_line SRC MARK: the line of SRC that carries the comment SITE:MARK (the call sites a test
# expects in a made-up MPI program); fails when there is none.
site_line() {
	_l=$(grep -n "SITE:$2" "$1" | cut -d: -f1)
	[ -n "$_l" ] || fail "no SITE:$2 mark in $1"
	echo "$_l"
}

# site_prog SRC NAME: SRC built -O2 -g as $T/NAME for the call-site tests, which need the sync
# recorder (skipped without it).
site_prog() {
	[ -f "$abs_top_builddir/libdifftrace-sync.so" ] ||
		skip "libdifftrace-sync.so not built (no mpicc at configure time)"
	"$MPICC" -O2 -g -o "$T/$2" "$1" >"$T/cc.log" 2>&1 || { cat "$T/cc.log" >&2; fail "mpicc failed"; }
}
