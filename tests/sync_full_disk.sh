#!/bin/sh
# The sync record on a full disk: when the next chunk of a thread's file cannot get its blocks,
# recording stops in that thread with a one-line note and the program runs on. (A chunk mapped
# over a sparse file instead would kill the program with SIGBUS at its first store.) The disk
# is a 1 MiB tmpfs in a mount namespace of the test's own, so this needs root and unshare; then
# one of 768 KiB, room for the first chunk but not for the header's page as well; and the
# import says which files a full disk cut.
. "${abs_top_srcdir:-.}/tests/lib.sh"

need mpi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self
lib="$abs_top_builddir/libdifftrace-sync.so"
[ -f "$lib" ] || skip "libdifftrace-sync.so not built (no mpicc at configure time)"
command -v unshare >/dev/null || skip "no unshare"
mkdir -p "$T/disk"
unshare -m sh -c "mount -t tmpfs -o size=1m tmpfs '$T/disk'" 2>/dev/null ||
	skip "cannot mount a small tmpfs in a mount namespace (not root?)"

# 20000 sends: 40000 records, 3.7 MiB of chunks, on a disk of 1 MiB
cat >"$T/sends.c" <<'PROG'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
	int x = 0;
	MPI_Init(&argc, &argv);
	for (int i = 0; i < 20000; i++)
		MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
	MPI_Finalize();
	puts("done");
	return 0;
}
PROG
"$MPICC" -O1 -o "$T/sends" "$T/sends.c" >"$T/cc.log" 2>&1 || { cat "$T/cc.log" >&2; fail "mpicc failed"; }

unshare -m sh -c "mount -t tmpfs -o size=1m tmpfs '$T/disk' &&
	LD_PRELOAD='$lib' DIFFTRACE_SYNC_DIR='$T/disk/sync' '$T/sends'; echo \"status \$?\";
	ls -l '$T/disk/sync'" >"$T/out" 2>"$T/err"
grep -q '^done$' "$T/out" || fail "the program did not run to its end on a full disk: $(cat "$T/out" "$T/err")"
grep -q '^status 0$' "$T/out" || fail "the program failed on a full disk: $(cat "$T/out" "$T/err")"
grep -q 'difftrace-sync: growing the record file' "$T/err" ||
	fail "no note that recording stopped: $(cat "$T/err")"
grep -q '\.dts$' "$T/out" || fail "no record file: $(cat "$T/out")"
# a disk with room for the first chunk but not for the header's page as well: the header was
# written into a page with no block (SIGBUS, status 135)
unshare -m sh -c "mount -t tmpfs -o size=768k tmpfs '$T/disk' &&
	LD_PRELOAD='$lib' DIFFTRACE_SYNC_DIR='$T/disk/sync' '$T/sends'; echo \"status \$?\";
	cp -R '$T/disk/sync' '$T/rec768'" >"$T/out" 2>"$T/err"
grep -q '^status 0$' "$T/out" ||
	fail "the program failed with room for one chunk only: $(cat "$T/out" "$T/err")"
expect_status 0 "$DT" import -q --run room "$T/rec768"
expect_status 0 "$DT" traces --format csv room
grep -q 'has no records: no room could be reserved for them' "$T/out" ||
	fail "the import does not say there was no room: $(cat "$T/out")"
# the record says so too: the import tells a full disk from a thread that ended
unshare -m sh -c "mount -t tmpfs -o size=1m tmpfs '$T/disk' &&
	LD_PRELOAD='$lib' DIFFTRACE_SYNC_DIR='$T/disk/sync' '$T/sends' >/dev/null 2>&1;
	cp -R '$T/disk/sync' '$T/rec'" || fail "cannot copy the record"
expect_status 0 "$DT" import -q --run full "$T/rec"
expect_status 0 "$DT" traces --format csv full
grep -q 'truncated.*sync record: recording stopped after [0-9]* records of .*: the file could not grow (No space left on device)' "$T/out" ||
	fail "the import does not say the disk was full: $(cat "$T/out")"
pass
