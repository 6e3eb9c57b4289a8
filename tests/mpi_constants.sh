#!/bin/sh
# MPI_ANY_SOURCE, MPI_PROC_NULL and MPI_ANY_TAG read the same under Open MPI and MPICH (issue
# 24, item 5): their values differ (Open MPI -1, -2, -1; MPICH -2, -1, -1), so the importer
# writes the recorded numbers as words by the MPI the program loaded (its uftrace map), and
# show, nlr, sync and hang say ANY and PROC_NULL (any, null in the sync record's terms), never
# a number that reads as a relative peer. tests/sync/halo.c is a halo exchange whose edges send
# to and receive from MPI_PROC_NULL, with an MPI_ANY_SOURCE, MPI_ANY_TAG gather on rank 0.
# Run under both families (scripts/test.sh: mpich_tests).
. "${abs_top_srcdir:-.}/tests/lib.sh"

need mpi uftrace built timeout
export UFTRACE OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
APP="$T/halo"
"$MPICC" -pg -g -O2 -o "$APP" "$abs_top_srcdir/tests/sync/halo.c" >"$T/cc.log" 2>&1 ||
	{ cat "$T/cc.log" >&2; fail "mpicc failed"; }
cd "$T" || fail "cd $T"
flags="-np 3"
if "$MPIRUN" --version 2>&1 | grep -q 'Open MPI'; then
	flags="$flags --oversubscribe"
	[ "$(id -u)" = 0 ] && flags="$flags --allow-run-as-root"
fi

# the default recording: uftrace with the MPI arguments, and the sync record
# shellcheck disable=SC2086
timeout -k 5 150 "$MPIRUN" $flags "$RECORD" -o "$T/rec" -- "$APP" </dev/null >"$T/rec.log" 2>&1 ||
	{ cat "$T/rec.log" >&2; fail "recording failed"; }
expect_status 0 "$DT" import -r halo "$T/rec"

# show: the recorded arguments, the constants as words
expect_status 0 "$DT" show halo 0.0
cp "$T/out" "$T/show0"
grep -q 'MPI_Recv(count=1, datatype=DOUBLE, source=PROC_NULL, tag=1, comm=WORLD)' "$T/show0" ||
	fail "0.0: no receive from PROC_NULL: $(grep MPI_ "$T/show0" | head -20)"
grep -q 'MPI_Recv(count=1, datatype=DOUBLE, source=ANY, tag=ANY, comm=WORLD)' "$T/show0" ||
	fail "0.0: no MPI_ANY_SOURCE, MPI_ANY_TAG receive: $(grep MPI_Recv "$T/show0" | head)"
grep -q 'MPI_Sendrecv(.*dest=PROC_NULL, sendtag=2, .*source=1, recvtag=2, comm=WORLD)' "$T/show0" ||
	fail "0.0: no Sendrecv to PROC_NULL: $(grep MPI_Sendrecv "$T/show0" | head -3)"
expect_status 0 "$DT" show halo 2.0
cp "$T/out" "$T/show2"
grep -q 'MPI_Send(count=1, datatype=DOUBLE, dest=PROC_NULL, tag=1, comm=WORLD)' "$T/show2" ||
	fail "2.0: no send to PROC_NULL: $(grep MPI_Send "$T/show2" | head)"
grep -q 'MPI_Sendrecv(.*dest=1, sendtag=2, .*source=PROC_NULL, recvtag=2, comm=WORLD)' "$T/show2" ||
	fail "2.0: no Sendrecv from PROC_NULL: $(grep MPI_Sendrecv "$T/show2" | head -3)"
# no constant left a number
cat "$T/show0" "$T/show2" | grep -E '(source|dest|tag)=-' &&
	fail "a constant shown as a number"

# nlr: the calls as the analysis names them, peers relative, constants as words
expect_status 0 "$DT" nlr halo 0.0
cp "$T/out" "$T/nlr0"
grep -q 'MPI_Recv\[count=1,datatype=DOUBLE,source=ANY,tag=ANY,comm=WORLD\]' "$T/nlr0" ||
	fail "nlr 0.0: no ANY receive: $(cat "$T/nlr0")"
grep -q 'MPI_Recv\[count=1,datatype=DOUBLE,source=PROC_NULL,tag=1,comm=WORLD\]' "$T/nlr0" ||
	fail "nlr 0.0: no receive from PROC_NULL: $(cat "$T/nlr0")"
expect_status 0 "$DT" nlr halo 1.0
cp "$T/out" "$T/nlr1"
grep -q 'MPI_Recv\[count=1,datatype=DOUBLE,source=rank-1,tag=1,comm=WORLD\]' "$T/nlr1" ||
	fail "nlr 1.0: no relative receive: $(cat "$T/nlr1")"
grep -q 'MPI_Send\[count=1,datatype=DOUBLE,dest=rank+1,tag=1,comm=WORLD\]' "$T/nlr1" ||
	fail "nlr 1.0: no relative send: $(cat "$T/nlr1")"
expect_status 0 "$DT" nlr halo 2.0
cp "$T/out" "$T/nlr2"
grep -q 'MPI_Send\[count=1,datatype=DOUBLE,dest=PROC_NULL,tag=1,comm=WORLD\]' "$T/nlr2" ||
	fail "nlr 2.0: no send to PROC_NULL: $(cat "$T/nlr2")"
cat "$T/nlr0" "$T/nlr1" "$T/nlr2" | grep -E '(source|dest|tag)=-' &&
	fail "nlr: a constant as a number"
grep -q 'dest=ANY' "$T/nlr2" && fail "nlr 2.0: a send to MPI_PROC_NULL read as ANY"

# sync: the sync record's terms
expect_status 0 "$DT" sync halo 0.0
grep -q '> *[0-9.]*  MPI_Recv .*src=any tag=any' "$T/out" ||
	fail "sync 0.0: no MPI_ANY_SOURCE receive: $(grep MPI_Recv "$T/out" | head)"
grep -q '> *[0-9.]*  MPI_Recv .*src=null tag=1' "$T/out" ||
	fail "sync 0.0: no receive from MPI_PROC_NULL: $(grep MPI_Recv "$T/out" | head)"
expect_status 0 "$DT" sync halo 2.0
grep -q '> *[0-9.]*  MPI_Send .*dest=null tag=1' "$T/out" ||
	fail "sync 2.0: no send to MPI_PROC_NULL: $(grep MPI_Send "$T/out" | head)"
grep -Eq '(src|dest)=-' "$T/out" && fail "sync 2.0: a constant as a number"

# hang: rank 0 waits for one value more, from any process
# shellcheck disable=SC2086
timeout -k 5 150 "$MPIRUN" $flags "$RECORD" --sync-only --timeout 3 -o "$T/hung" -- "$APP" hang \
	</dev/null >"$T/hung.log" 2>&1
[ -d "$T/hung/rank-2/sync" ] || { cat "$T/hung.log" >&2; fail "hang: no sync record"; }
expect_status 0 "$DT" import -r hung "$T/hung"
expect_status 0 "$DT" hang hung
grep -Eq '0\.0 +waits for .*\(receive: MPI_Recv comm=0 src=any tag=any' "$T/out" ||
	fail "hang: 0.0 does not wait for any process: $(cat "$T/out")"
grep -Eq '(src|dest)=-' "$T/out" && fail "hang: a constant as a number: $(cat "$T/out")"
exit 0
