# find_tools.sh: sourced by scripts/accuracy.sh and scripts/accuracy_suite.sh (with $top the
# source tree and die defined): DT and RECORD, the difftrace and difftrace-record to measure:
# $DIFFTRACE and $DIFFTRACE_RECORD, else build/'s, else those in PATH.
DT=${DIFFTRACE:-}
[ -n "$DT" ] || { [ -x "$top/build/difftrace" ] && DT=$top/build/difftrace; } ||
	DT=$(command -v difftrace) || die "no difftrace (build it: sh scripts/build.sh build)"
RECORD=${DIFFTRACE_RECORD:-}
[ -n "$RECORD" ] || RECORD=$(dirname "$DT")/difftrace-record
[ -x "$RECORD" ] || RECORD=$(command -v difftrace-record) || die "no difftrace-record"
