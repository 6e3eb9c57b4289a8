#!/bin/sh
# `difftrace filters`: the list, show, test, user families from --filter-file and from
# $XDG_CONFIG_HOME, and a broken pattern reported with file, line and column.
. "${abs_top_srcdir:-.}/tests/lib.sh"

expect_status 0 "$DT" filters
for f in returns mpi mpicol mpisr ompcrit ompall everything; do
	grep -q "^$f " "$T/out" || fail "family $f not listed: $(cat "$T/out")"
done
expect_status 0 "$DT" filters --format csv
head -1 "$T/out" | grep -q '^name,' || fail "csv header: $(head -1 "$T/out")"

expect_status 0 "$DT" filters test mpicol MPI_Allreduce MPI_Send compute
grep -q '^keep  *MPI_Allreduce' "$T/out" || fail "mpicol keeps MPI_Allreduce: $(cat "$T/out")"
grep -q '^drop  *MPI_Send' "$T/out" || fail "mpicol drops MPI_Send: $(cat "$T/out")"
expect_status 0 "$DT" filters test 11.mpi.ompcrit.0 GOMP_critical_start MPI_Barrier malloc
grep -q '^keep  *GOMP_critical_start' "$T/out" || fail "alias: $(cat "$T/out")"
grep -q '^drop  *malloc' "$T/out" || fail "alias drops malloc"

expect_status 0 "$DT" filters show mpi
grep -q '^name: *mpi$' "$T/out" || fail "show: $(cat "$T/out")"

# a user's own family, from a file and from the user's configuration directory
printf 'name: solver\ndescription: the solver phases\ninclude: ^solve_\n' > "$T/solver.filter"
expect_status 0 "$DT" filters test --filter-file "$T/solver.filter" solver solve_lu compute
grep -q '^keep  *solve_lu' "$T/out" || fail "--filter-file: $(cat "$T/out")"
mkdir -p "$T/xdg/difftrace/filters"
cp "$T/solver.filter" "$T/xdg/difftrace/filters/"
XDG_CONFIG_HOME="$T/xdg" expect_status 0 "$DT" filters
grep -q '^solver ' "$T/out" || fail "XDG family not listed"

# errors: a broken pattern names file:line:col (exit 1); an unknown family is a usage error
printf 'name: broken\ndescription: x\n# a comment\ninclude: MPI_(Send\n' > "$T/broken.filter"
expect_status 1 "$DT" filters --filter-file "$T/broken.filter"
expect_err "broken.filter:4:"
expect_status 2 "$DT" filters test nosuch foo
expect_err "nosuch"
pass
