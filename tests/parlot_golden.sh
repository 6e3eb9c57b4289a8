#!/bin/sh
# The real ParLOT sample data (../shared/data/parlot): every trace decodes to the expected text
# byte for byte through import and `show --format text`, and the store keeps it within 1.5x of
# ParLOT's own compressed files.
. "${abs_top_srcdir:-.}/tests/lib.sh"
[ -n "$SHARED" ] || skip "../shared is absent: the ParLOT golden data is not available"
command -v sqlite3 >/dev/null || skip "sqlite3 command not installed"

for d in "$SHARED"/data/parlot/*/; do
	name=$(basename "$d")
	DIFFTRACE_DB="$T/$name.db"   # one store per data set, so its function table is its own
	expect_status 0 "$DT" import --run "$name" "$d/ptrace"
	grep -q "(parlot)" "$T/out" || fail "$name not detected as parlot: $(cat "$T/out")"
	ntxt=$(ls "$d/texTrace" | wc -l)
	"$DT" traces --format csv "$name" | tail -n +2 > "$T/traces"
	[ "$(wc -l < "$T/traces")" -eq "$ntxt" ] || fail "$name: $(wc -l < "$T/traces") traces, expected $ntxt"
	while IFS=, read -r pt proc thread pid tid rest; do
		want=$(ls "$d"/texTrace/*."$pid.$tid.txt")
		"$DT" show --format text "$name" "$pt" > "$T/got.txt" || fail "show $name $pt"
		cmp "$T/got.txt" "$want" || fail "$name $pt differs from $(basename "$want")"
	done < "$T/traces"

	# Stored size: the event streams against ParLOT's per-thread files, and the event streams
	# plus the function names against all of ParLOT's files (the .info included).
	ptraces=$(cat $(ls "$d"/ptrace/* | grep -v '\.info$') | wc -c)
	pall=$(cat "$d"/ptrace/* | wc -c)
	ev=$(sqlite3 "$DIFFTRACE_DB" "SELECT sum(length(events)) + coalesce(sum(length(times)), 0) FROM chunks")
	names=$(sqlite3 "$DIFFTRACE_DB" "SELECT sum(length(name)) FROM functions")
	echo "$name: events $ev bytes stored vs $ptraces in ParLOT traces; with names $((ev + names)) vs $pall"
	[ $((ev * 2)) -le $((ptraces * 3)) ] || fail "$name: events take $ev > 1.5 x $ptraces"
	[ $(((ev + names) * 2)) -le $((pall * 3)) ] || fail "$name: $((ev + names)) > 1.5 x $pall"
done
pass
