#!/bin/sh
# deps.sh [demo|test]: makes sure the Debian packages difftrace needs are installed.
# As root it installs what is missing; otherwise it prints the one apt-get line to run.
set -eu
what=${1:-demo}
pkgs="gcc make autoconf automake pkg-config libsqlite3-dev libzstd-dev libpcre2-dev libncurses-dev
      uftrace openmpi-bin libopenmpi-dev libdw-dev libunwind-dev libpapi-dev libclang-dev
      mpich libmpich-dev gfortran"
if [ "$what" = test ]; then
	pkgs="$pkgs clang sqlite3 mandoc groff-base tmux strace"
fi
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -eq 0 ]; then
	echo "difftrace: installing Debian packages:$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
	# mpicc and mpirun stay Open MPI's (its alternatives have the higher priority on Debian;
	# set them should they not): MPICH's are mpicc.mpich and mpiexec.mpich
	for alt in "mpi /usr/bin/mpicc.openmpi" "mpirun /usr/bin/mpirun.openmpi"; do
		set -- $alt
		if [ -x "$2" ] && [ "$(readlink -f "/etc/alternatives/$1")" != "$(readlink -f "$2")" ]; then
			update-alternatives --quiet --set "$1" "$2"
		fi
	done
else
	echo "difftrace needs these Debian packages; run this once, then try again:"
	echo "  sudo apt-get install -y$missing"
	exit 1
fi
