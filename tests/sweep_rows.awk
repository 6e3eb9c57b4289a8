# rows of rank --sweep (cli=1) or of the view's sweep table: "filter|attrs|K|B|procs|threads",
# scores to 2 decimals, the CLI's commas dropped
function fix(s,   n, t, i, o) {
	gsub(/,/, "", s)
	n = split(s, t, " ")
	o = ""
	for (i = 1; i <= n; i++) {
		if (t[i] ~ /^[0-9]+\.[0-9][0-9][0-9]$/) t[i] = sprintf("%.2f", t[i])
		o = o (i > 1 ? " " : "") t[i]
	}
	return o
}
cli && /^Filter  / { on = 1; next }
!cli && /B-SCORE/ { on = 1; next }
on && !NF { exit }
on {
	line = $0
	sub(/^[ *>]*/, "", line)
	n = split(line, f, /  +/)
	if (cli) print f[1] "|" f[2] "|" f[3] "|" fix(f[4]) "|" fix(f[5]) "|" fix(f[6])
	else print f[2] "|" f[3] "|" f[4] "|" fix(f[1]) "|" fix(f[5]) "|" fix(f[6])
}
