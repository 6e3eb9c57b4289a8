#!/bin/sh
# The sampler on a full disk (difftrace-record --sample, as the README runs it, and the bare
# LD_PRELOAD): the blocks of each chunk of a thread's sample file are reserved before its pages
# are written, so when the disk fills the thread's recording stops with a note on standard
# error and in the file's header, and the program runs on and exits 0. (A chunk mapped over
# a sparse file instead killed the program with SIGBUS at its first store.) The records made
# before import, and the import and blame say where the samples stop. The disk is a 3 MiB
# tmpfs in a mount namespace of the test's own, so this needs root and unshare.
. "${abs_top_srcdir:-.}/tests/lib.sh"

need built mpi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self
lib="$abs_top_builddir/libdifftrace-sample.so"
[ -f "$lib" ] ||
	skip "libdifftrace-sample.so not built (configure found no libunwind: apt-get install libunwind-dev)"
command -v unshare >/dev/null || skip "no unshare (util-linux)"
mkdir -p "$T/disk"
unshare -m sh -c "mount -t tmpfs -o size=1m tmpfs '$T/disk'" 2>/dev/null ||
	skip "cannot mount a small tmpfs in a mount namespace (not root?)"

# 200000 mallocs and frees: 400000 records, about 100 MiB of chunks, on a disk of 3 MiB
"$MPICC" -g -O1 -o "$T/churn" "$abs_top_srcdir/tests/blame/churn.c" >"$T/cc.log" 2>&1 ||
	{ cat "$T/cc.log" >&2; fail "mpicc failed"; }

# the user's path; the store is outside the full disk, the import in the same namespace
unshare -m sh -c "mount -t tmpfs -o size=3m tmpfs '$T/disk' &&
	'$RECORD' --sample --sync-only -o '$T/disk/run' -- '$T/churn'; echo \"status \$?\";
	'$DT' import -r full '$T/disk/run' && '$DT' blame full" >"$T/out" 2>"$T/err"
grep -q '^sum 20006200000$' "$T/out" ||
	fail "the program did not run to its end on a full disk: $(cat "$T/out" "$T/err")"
grep -q '^status 0$' "$T/out" || fail "the program failed on a full disk: $(cat "$T/out" "$T/err")"
grep -q 'difftrace-sample: growing the sample file (recording stops in this thread): No space' \
	"$T/err" || fail "no note on standard error that recording stopped: $(cat "$T/err")"
grep -q "imported run 'full'" "$T/out" || fail "the recording on a full disk does not import: $(cat "$T/out" "$T/err")"
grep -q 'samples of [0-9]* processes: .*the disk was full: a thread.s samples stop there' "$T/out" ||
	fail "the import does not say the disk was full: $(cat "$T/out")"
grep -q '^# note: the disk was full while recording' "$T/out" ||
	fail "blame does not say the disk was full: $(cat "$T/out")"

# a bare LD_PRELOAD, as a launcher script might set it
unshare -m sh -c "mount -t tmpfs -o size=3m tmpfs '$T/disk' &&
	LD_PRELOAD='$lib' DIFFTRACE_SAMPLE_DIR='$T/disk/s' DIFFTRACE_SAMPLE=timer '$T/churn';
	echo \"status \$?\"" >"$T/out" 2>"$T/err"
grep -q '^status 0$' "$T/out" || fail "the program failed under LD_PRELOAD on a full disk: $(cat "$T/out" "$T/err")"
grep -q '^sum 20006200000$' "$T/out" || fail "the program's output is lost: $(cat "$T/out" "$T/err")"
pass
