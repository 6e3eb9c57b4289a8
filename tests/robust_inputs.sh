#!/bin/sh
# Smaller defects found on inputs the other tests do not make (issue 19, item 7), one section
# each: a corrupt time in a sync record (a signed overflow in `sync`, fatal under UBSan), a full
# disk in the sync record (it was said to be a stopped thread), a 64-character run name in the
# runs table (command and interface), `jsm` of a large run (its
# matrix printed unasked), a newline in a recorded program's path (uftrace's files), what a
# ParLOT import cannot check (said, not silent), and a HOME this user cannot enter (the
# analysis commands failed on the user's filter directory).
. "${abs_top_srcdir:-.}/tests/lib.sh"

# --- a corrupt time in the sync record ------------------------------------------------------
# Record 1 of rank 1's file (MPI_Init's exit) put at -2^63 + 5 ns: the times shown are from the
# host's first event, the difference overflowed a signed 64-bit number and printed
# -9223372036.-853774813
MK="$abs_top_builddir/tests/mk_sync_rec"
[ -x "$MK" ] || fail "tests/mk_sync_rec is not built"
"$MK" "$T/sy" ok || fail "mk_sync_rec"
f=$(echo "$T"/sy/rank-1/sync/*.dts)
[ -f "$f" ] || fail "no sync file of rank 1"
case $(od -An -tx1 -j24 -N1 "$f" | tr -d ' ') in
04) b='\005\000\000\000\000\000\000\200' ;;
01) b='\200\000\000\000\000\000\000\005' ;;
*) fail "$f: no byte order mark" ;;
esac
# the record size from the header (offset 16), whatever the format version's
rs=$(od -An -tu4 -j16 -N4 "$f" | tr -d ' ')
# shellcheck disable=SC2059
printf "$b" | dd of="$f" bs=1 seek=$((4096 + rs + 8)) conv=notrunc 2>/dev/null || fail "dd"
expect_status 0 "$DT" import -q --run sy "$T/sy"
expect_status 0 "$DT" sync sy
grep -q '^1\.0  *1  <  *0\.000000000  MPI_Init' "$T/out" ||
	fail "the corrupt time is not the host's first: $(cat "$T/out")"
grep -q '^0\.0  *0  >  *9223372036\.855776803  MPI_Init' "$T/out" ||
	fail "the others are not after it: $(cat "$T/out")"
grep -q '[0-9]\.-' "$T/out" && fail "a negative time: $(cat "$T/out")"
expect_status 0 "$DT" sync sy 1.0

# --- a full disk in the sync record -----------------------------------------------------------
# The recorder's word at offset 328 (the errno with which the file could not grow), and a file
# of the header's page alone (no room for its first chunk): told from a stopped thread
"$MK" "$T/fd" ok || fail "mk_sync_rec"
f=$(echo "$T"/fd/rank-1/sync/*.dts)
case $(od -An -tx1 -j24 -N1 "$f" | tr -d ' ') in
04) b='\034\000\000\000' ;;
*) b='\000\000\000\034' ;;
esac
# shellcheck disable=SC2059
printf "$b" | dd of="$f" bs=1 seek=328 conv=notrunc 2>/dev/null || fail "dd"
head -c 4096 /dev/zero > "$(echo "$T"/fd/rank-2/sync/*.dts)" || fail "head"
expect_status 0 "$DT" import -q --run fd "$T/fd"
expect_status 0 "$DT" traces --format csv fd
grep -q '^1\.0,.*truncated.*sync record: recording stopped after 8 records of .*: the file could not grow (No space left on device)' "$T/out" ||
	fail "full disk not said: $(cat "$T/out")"
grep -q '^2\.0,.*has no records: no room could be reserved for them (a full disk or quota; else the thread was stopped just then)' "$T/out" ||
	fail "no room not said: $(cat "$T/out")"
grep -q 'thread was stopped while making it' "$T/out" && fail "a full disk said to be a stopped thread: $(cat "$T/out")"

# --- a 64-character run name in the runs table -----------------------------------------------
long=$(printf '%064d' 7 | tr 0 r)
mkdir "$T/t"
printf 'MPI_Init\n[ret]\nMPI_Finalize\n[ret]\n' > "$T/t/0.0.txt"
expect_status 0 "$DT" import -q --run "$long" "$T/t"
expect_status 0 "$DT" import -q --run s "$T/t"
expect_status 0 "$DT" runs
# every row's CREATED date starts in the header's CREATED column, and its TRACES count ends at
# the end of the header's TRACES
awk 'NR == 1 { c = index($0, "CREATED"); t = index($0, "TRACES") + 5; next }
     { d = match($0, /20[0-9][0-9]-[0-9][0-9]-[0-9][0-9] /)
       if (d != c || substr($0, t, 1) !~ /[0-9]/ || substr($0, t + 1, 1) != " ") exit 1 }' "$T/out" ||
	fail "runs: columns out of line: $(cat "$T/out")"
printf '\n' > "$T/keys"
expect_status 0 "$DT" tui --script "$T/keys" --dump "$T/screen" --size 10x200
awk 'NR == 2 { c = index($0, "TRACES") + 5; next }
     /^[> ]   (sy|s|r+7) / { if (substr($0, c, 1) !~ /[0-9]/ || substr($0, c + 1, 1) != " ") exit 1
			     n++ }
     END { exit n != 3 }' "$T/screen" || fail "tui runs: columns out of line: $(cat "$T/screen")"

# --- jsm on a large run ------------------------------------------------------------------------
# 1,001 traces: the matrix is refused without --all (100,000 traces printed ~70 GB unasked);
# 1,000 are printed
awk -v d="$T/big" 'BEGIN { system("mkdir " d)
	for (p = 0; p < 1001; p++) {
		f = d "/" p ".0.txt"; printf "MPI_Init\n[ret]\n%s\n[ret]\n", p % 3 ? "MPI_Send" : "MPI_Recv" > f
		close(f) } }'
expect_status 0 "$DT" import -q --run big "$T/big"
for fmt in text csv json; do
	expect_status 2 "$DT" jsm --format $fmt big
	[ ! -s "$T/out" ] || fail "jsm $fmt: printed without --all"
	expect_err "difftrace jsm: run 'big' has 1001 traces: its matrix is 1,002,001 numbers, about"
	expect_err "add --all to print it, or see 'difftrace classes big'"
done
expect_status 0 "$DT" jsm --all big
[ "$(wc -l < "$T/out")" = 1003 ] || fail "jsm --all: not 1,003 lines"
rm "$T/big/1000.0.txt"
expect_status 0 "$DT" import -q --run big1000 "$T/big"
expect_status 0 "$DT" jsm --format csv big1000
[ "$(wc -l < "$T/out")" = 1001 ] || fail "jsm of 1,000 traces: not 1,001 lines"

# --- a newline in the program's path -----------------------------------------------------------
# uftrace writes the path raw into info and task.txt: the import failed ("info line without a
# key"); difftrace-record says so before the run (uftrace writes no symbols of such a program)
UFTRACE=${UFTRACE:-$(command -v uftrace || true)}
if [ -n "$UFTRACE" ] && command -v gcc >/dev/null; then
	nld="$T/nl/a
b"
	mkdir -p "$nld" || fail "mkdir"
	printf 'int f(int x) { return x + 1; }\nint main(void) { return f(1) - 2; }\n' > "$T/nl/p.c"
	gcc -O2 -g -pg -fno-inline -o "$nld/prog" "$T/nl/p.c" || fail "gcc"
	(cd "$T/nl" && "$UFTRACE" record -d rec "$nld/prog") >/dev/null 2>&1 ||
		fail "uftrace record failed"
	grep -q '^b/prog$' "$T/nl/rec/info" || fail "uftrace wrote no newline in its info: not the case tested"
	expect_status 0 "$DT" import -q --run nl "$T/nl/rec"
	expect_status 0 "$DT" traces --format json nl
	grep -q '"events": [1-9]' "$T/out" || fail "no events imported: $(cat "$T/out")"
	expect_status 2 "$RECORD" -o "$T/nl/out" -- "$nld/prog"
	expect_err "the program's path has a newline in it: uftrace cannot record it"
	[ ! -e "$T/nl/out" ] || fail "difftrace-record made its output directory"
else
	echo "newline in the program's path: not tested: no uftrace or gcc"
fi
# the sampler's maps file writes the newline as \012 too: the binary was lost for samples
MPICC=${MPICC:-$(command -v mpicc || true)}
MPIRUN=${MPIRUN:-$(command -v mpirun || true)}
if [ -n "$MPICC" ] && [ -n "$MPIRUN" ] && [ -f "$abs_top_builddir/libdifftrace-sample.so" ] &&
	command -v sqlite3 >/dev/null; then
	snd="$T/sn/a
b"
	mkdir -p "$snd" || fail "mkdir"
	"$MPICC" -g -O1 -pthread -o "$snd/allocs" "$abs_top_srcdir/tests/blame/allocs.c" >"$T/cc.log" 2>&1 ||
		{ cat "$T/cc.log" >&2; fail "mpicc failed"; }
	flags="-np 1"
	"$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags="$flags --oversubscribe"
	[ "$(id -u)" = 0 ] && "$MPIRUN" --version 2>&1 | grep -q 'Open MPI' && flags="$flags --allow-run-as-root"
	# shellcheck disable=SC2086
	(cd "$T/sn" && OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout -k 5 150 \
		"$MPIRUN" $flags "$RECORD" --sample=timer --sync-only -o "$T/sn/rec" -- "$snd/allocs" ok \
		</dev/null >"$T/sn.log" 2>&1) || { cat "$T/sn.log" >&2; fail "the recorded run failed"; }
	grep -q '\\012' "$T"/sn/rec/rank-0/sample/*.maps || fail "no \\012 in the maps: not the case tested"
	DIFFTRACE_DB="$T/sn.db" expect_status 0 "$DT" import -r sn "$T/sn/rec"
	grep -q 'samples of 1 processes' "$T/out" || fail "no samples imported: $(cat "$T/out")"
	grep -q 'has no -g' "$T/out" && fail "the binary was not found for the samples: $(cat "$T/out")"
	n=$(sqlite3 "$T/sn.db" "SELECT count(*) FROM blame_locs WHERE func = 'spin' AND in_main = 1")
	[ "$n" -ge 1 ] || fail "no sample symbolized to spin() in the program"
else
	echo "newline in the program's path, samples: not tested: no MPI, sampler or sqlite3"
fi

# --- what a ParLOT import cannot check ----------------------------------------------------------
# No checksum: most flipped bits decode to another valid trace (the codec's own checks are in
# test_parlot); the import says so once, under its summary
mkdir "$T/pl"
printf '+\n/bin/app\nmain\nf\n' > "$T/pl/parlotm.h.7.info"
printf '\001\000\002\000\000\000\000\000\000' > "$T/pl/parlotm.h.7.0"
expect_status 0 "$DT" import --format parlot-raw --run pl "$T/pl"
grep -q "^imported run 'pl' (parlot-raw): 1 traces" "$T/out" || fail "parlot-raw: $(cat "$T/out")"
[ "$(grep -c '^ParLOT files carry no checksum: in the uncompressed variant a damaged byte reads as another call$' "$T/out")" = 1 ] ||
	fail "parlot-raw: what cannot be checked is not said once: $(cat "$T/out")"
expect_status 0 "$DT" import -q --format parlot-raw --run pl2 "$T/pl"
[ ! -s "$T/out" ] || fail "import -q printed: $(cat "$T/out")"

# --- a HOME this user cannot enter -----------------------------------------------------------
# The user's filter and rule directories under it are out of reach, and no one's: passed over.
# Root enters any directory: run as another user (nobody).
if reader_init; then
	expect_status 0 "$DT" import -q --run n "$DATA/text/small"
	expect_status 0 "$DT" analyze n
	chmod 755 "$T/sy" && chmod 644 "$DIFFTRACE_DB" || fail "chmod"
	mkdir -m 700 "$T/home" || fail "mkdir"
	for cmd in "analyze n" "classes n" "jsm n" "rank --normal n --faulty n" "filters" \
		"diff n:0.0 n:1.0" "order sy" "hang sy" "sync sy"; do
		# shellcheck disable=SC2086
		HOME="$T/home" XDG_CONFIG_HOME="" expect_status 0 as_reader "$RDT" -d "$DIFFTRACE_DB" $cmd
	done
	# the user's own directory there but unreadable is an error, named
	chmod 755 "$T/home" && mkdir -p -m 700 "$T/home/.config/difftrace/filters" || fail "mkdir"
	HOME="$T/home" XDG_CONFIG_HOME="" expect_status 1 as_reader "$RDT" -d "$DIFFTRACE_DB" classes n
	expect_err "$T/home/.config/difftrace/filters: cannot read the directory: Permission denied"
else
	echo "unreadable HOME: not tested: $READER_WHY"
fi
pass
