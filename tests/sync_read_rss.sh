#!/bin/sh
# Reading a sync recording keeps a few MB of each .dts file mapped, not the file (issue 25):
# the import gives back the pages it has read (sync_file_release), so the resident memory of
# `difftrace import DIR` and of `hang DIR` (which imports the recording privately) does not
# grow with the size of the files. ulimit -v cannot see this (the mapping's address space is
# the file's either way); tests/peak_rss reads the peak resident set from wait4. A made-up
# record of 2 processes x 300,000 iterations (2 files of 134 MB, one message tag: the causality
# filter holds few facts), imported by one thread (the parallel import queues decoded parts, a
# bound of its own): each command's peak stays under a third of one file above the peak
# of `hang` on the imported run, which reads no file; the build before this held each file
# whole while reading it and fails. Nothing is timed.
. "${abs_top_srcdir:-.}/tests/lib.sh"

MK="$abs_top_builddir/tests/mk_sync_rec"
[ -x "$MK" ] || fail "tests/mk_sync_rec is not built"

"$MK" "$T/rec" steady 2 300000 || fail "mk_sync_rec steady 2 300000"
size=$(find "$T/rec" -name '*.dts' -exec du -k {} + | awk '{ if ($1 > m) m = $1 } END { print m }')
[ "$size" -gt 100000 ] || fail "the made-up .dts files are smaller than expected (${size} KiB)"

imp=$(peak_kib "$DT" import -q --jobs 1 --run big "$T/rec")
base=$(peak_kib "$DT" hang big)
grep -q 'P 0-1 T 0' "$T/out" || { cat "$T/out" >&2; fail "hang of the imported run: not both processes"; }
dir=$(peak_kib "$DT" hang "$T/rec")
grep -q 'P 0-1 T 0' "$T/out" || { cat "$T/out" >&2; fail "hang DIR: not both processes"; }
echo "largest .dts ${size} KiB; peak RSS: hang RUN ${base} KiB, import ${imp} KiB, hang DIR ${dir} KiB"
bound=$((base + size / 3))
[ "$imp" -lt "$bound" ] || fail "import DIR kept ${imp} KiB resident (bound ${bound} KiB): the .dts pages read stay mapped"
[ "$dir" -lt "$bound" ] || fail "hang DIR kept ${dir} KiB resident (bound ${bound} KiB): the .dts pages read stay mapped"
pass
