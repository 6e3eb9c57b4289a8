#!/bin/sh
# The real ParLOT sample data (../shared/data/parlot): every trace decodes to the expected text
# (made by the DiffTrace prototype, so read with its token numbering of .info names) byte for
# byte through import and `show --format text`, and the store keeps it within 1.5x of ParLOT's
# own compressed files. Without the prototype's numbering the events are the same and only
# names after a .info name with a space change.
. "${abs_top_srcdir:-.}/tests/lib.sh"
[ -n "$SHARED" ] || skip "../shared is absent: the ParLOT golden data is not available"
command -v sqlite3 >/dev/null || skip "sqlite3 command not installed"

for d in "$SHARED"/data/parlot/*/; do
	name=$(basename "$d")
	DIFFTRACE_DB="$T/$name.db"   # one store per data set, so its function table is its own
	expect_status 0 "$DT" import --parlot-token-names --run "$name" "$d/ptrace"
	grep -q "(parlot)" "$T/out" || fail "$name not detected as parlot: $(cat "$T/out")"
	# what the import cannot check, said once under the summary (the compressed variant's
	# wording; robust_inputs.sh has the uncompressed one)
	[ "$(grep -c '^ParLOT files carry no checksum: a damaged byte is found where it breaks the codec.s framing or rules, else it reads as another call$' "$T/out")" = 1 ] ||
		fail "$name: what the import cannot check is not said once: $(cat "$T/out")"
	ntxt=$(ls "$d/texTrace" | wc -l)
	"$DT" traces --format csv "$name" | tail -n +2 > "$T/traces"
	[ "$(wc -l < "$T/traces")" -eq "$ntxt" ] || fail "$name: $(wc -l < "$T/traces") traces, expected $ntxt"
	while IFS=, read -r pt proc thread pid tid rest; do
		want=$(ls "$d"/texTrace/*."$pid.$tid.txt")
		"$DT" show --format text "$name" "$pt" > "$T/got.txt" || fail "show $name $pt"
		cmp "$T/got.txt" "$want" || fail "$name $pt differs from $(basename "$want")"
	done < "$T/traces"

	# by lines (the default): the same calls and returns, and the same names up to the
	# first routine name with a space in the .info
	expect_status 0 "$DT" import -q --run "$name-lines" "$d/ptrace"
	"$DT" show --format text "$name-lines" 0.0 | sed 's/^[^[].*/call/' > "$T/lines"
	"$DT" show --format text "$name" 0.0 | sed 's/^[^[].*/call/' > "$T/tokens"
	cmp -s "$T/lines" "$T/tokens" || fail "$name: line and token numbering change the events"
	"$DT" rm "$name-lines" >/dev/null

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
