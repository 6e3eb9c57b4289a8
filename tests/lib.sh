# lib.sh: what the shell tests share. Source it first; it sets:
#   DT      the difftrace program under test      RECORD  the difftrace-record script
#   T       a fresh temporary directory, removed on exit
#   SHARED  the ../shared folder of real trace data, or empty when it is absent
#   fail MSG / skip MSG / pass: end the test (exit 1 / 77 / 0)
#   expect_status N CMD...: run CMD, fail unless it exits with N; output in $T/out, $T/err
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
