#!/bin/sh
# The store syncs where the import needs it, never per trace or chunk (issue 25): the whole
# import is published in one transaction, and in WAL mode with synchronous=NORMAL a commit does
# not sync. strace counts fdatasync and fsync of `difftrace import`: into an existing store, 4
# (the WAL file made again: its header, its folder; the checkpoint at close: the WAL, then the
# database), into a new one 8 (the switch of the empty file to WAL adds 4); and the same counts
# for 4 traces and for 400. BENCHMARKS.md, "fdatasync per import", says which is which.
. "${abs_top_srcdir:-.}/tests/lib.sh"

command -v strace >/dev/null 2>&1 || skip "strace is not installed (apt-get install strace)"
strace -f -o /dev/null true 2>/dev/null || skip "strace cannot trace here (ptrace not allowed)"

mk() { # DIR N: N text traces
	mkdir -p "$1"
	i=0
	while [ "$i" -lt "$2" ]; do
		{
			echo "MPI_Init"
			j=0
			while [ "$j" -lt 20 ]; do
				printf 'MPI_Send\nMPI_Recv\n'
				j=$((j + 1))
			done
			echo "MPI_Finalize"
		} >"$1/$i.0.txt"
		i=$((i + 1))
	done
}
mk "$T/small" 4
mk "$T/large" 400

syncs() { # STORE RUN DIR: the fdatasync and fsync calls of one import
	# (LeakSanitizer cannot run in a traced process: its own ptrace would fail)
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -e trace=fdatasync,fsync -o "$T/strace.txt" "$DT" -d "$1" import -q --run "$2" "$3" ||
		fail "import $3 into $1"
	grep -Ec '(fdatasync|fsync)\(' "$T/strace.txt"
}

new_small=$(syncs "$T/a.db" s "$T/small")
old_small=$(syncs "$T/a.db" s2 "$T/small")
new_large=$(syncs "$T/b.db" l "$T/large")
old_large=$(syncs "$T/b.db" l2 "$T/large")
echo "syncs: new store $new_small (4 traces), $new_large (400); existing store $old_small, $old_large"
[ "$new_small" = "$new_large" ] || fail "a new store's syncs depend on the traces: $new_small for 4, $new_large for 400"
[ "$old_small" = "$old_large" ] || fail "an existing store's syncs depend on the traces: $old_small for 4, $old_large for 400"
[ "$old_small" -le 4 ] || fail "$old_small syncs to import into an existing store (4 expected)"
[ "$new_small" -le 8 ] || fail "$new_small syncs to import into a new store (8 expected)"
expect_status 0 "$DT" -d "$T/b.db" traces l2
grep -q '399\.0' "$T/out" || fail "the 400 traces are not all in the store"
pass
