#!/bin/sh
# otf2_damage.sh BUILD [N] [FILES]: damages an OTF2 archive at random N times (default 200)
# and imports each, reporting every import that does not end in success or a one-line error
# (exit status 0 or 1): a crash, a sanitizer report (but leaks of the OTF2 library alone,
# counted apart), a time-out of 20 s, or an error of more than one line. BUILD is a build directory (with --enable-sanitizers for the sanitizers'
# reports); the archive is tests/mk_otf2's tagmismatch run with a metric record. Each round
# sets 1 to 4 random bytes of one of FILES (default: the global definitions, two locations'
# events and definitions) to random values, and cuts the file at a random length one time in
# ten. The OTF2 library reads the archive, so this measures it too: libFuzzer cannot, as the
# archive is files, not a buffer. Damaged archives that failed are kept in ./otf2-damage-N.
set -u
b=$1
n=${2:-200}
files=${3:-"traces.def traces/0.evt traces/1.evt traces/4294967296.evt traces/0.def traces/1.def"}
T=$(mktemp -d /tmp/dt-otf2-damage.XXXXXX)
trap 'rm -rf "$T"' EXIT
"$b/tests/mk_otf2" "$T/base" tagmismatch --metric || exit 1
bad=0
libleak=0
i=0
while [ "$i" -lt "$n" ]; do
	i=$((i + 1))
	rm -rf "$T/c" && cp -r "$T/base" "$T/c"
	f=$(printf '%s\n' $files | shuf -n1)
	sz=$(stat -c %s "$T/c/$f")
	for _ in $(seq "$(shuf -i 1-4 -n1)"); do
		off=$(shuf -i 0-$((sz - 1)) -n1)
		# shellcheck disable=SC2059 # the format is the byte
		printf "\\$(printf %o "$(shuf -i 0-255 -n1)")" |
			dd of="$T/c/$f" bs=1 seek="$off" conv=notrunc 2>/dev/null
	done
	[ "$(shuf -i 0-9 -n1)" = 0 ] && truncate -s "$(shuf -i 0-"$sz" -n1)" "$T/c/$f"
	rm -f "$T/s.db"
	timeout 20 "$b/difftrace" -d "$T/s.db" import -q --jobs 1 --run x "$T/c" >"$T/out" 2>"$T/err"
	rc=$?
	# a leak whose every allocation was made in the OTF2 library (it leaks when it fails to
	# read a damaged file) is the library's, counted apart
	if grep -q 'LeakSanitizer' "$T/err" && ! grep -qi 'runtime error\|AddressSanitizer: [a-z]' "$T/err" &&
		awk '/leak of/ { getline; getline; if ($0 !~ /otf2/) ours = 1 } END { exit ours }' "$T/err"; then
		libleak=$((libleak + 1))
		sed -i '/^=/,$d' "$T/err"
	fi
	lines=$(grep -cv 'nothing was imported' "$T/err")
	if [ "$rc" -gt 1 ] || grep -qi 'sanitizer\|runtime error' "$T/err" ||
		{ [ "$rc" = 1 ] && [ "$lines" != 1 ]; }; then
		bad=$((bad + 1))
		echo "round $i: $f: exit status $rc: $(head -3 "$T/err")"
		cp -r "$T/c" "./otf2-damage-$i"
	fi
done
echo "$n damaged archives imported, $bad not ending in success or a one-line error" \
	"($libleak with a leak in the OTF2 library only)"
