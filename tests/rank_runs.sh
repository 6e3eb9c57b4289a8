# rank_runs.sh: the text-trace runs of the ranking tests (sourced by rank_verdict.sh and
# rank_cache.sh after tests/lib.sh).

# mk DIR KIND: 4 processes x 2 threads. Main threads: 6 iterations of compute, MPI_Allreduce,
# MPI_Bcast; workers: 6 iterations of work and a critical section. KIND changes process 2:
#   order   its main thread calls MPI_Bcast before MPI_Allreduce from iteration 3 on
#   count   its worker skips the critical section once (5 of 6: same log10 bucket)
#   own     its worker calls work_b instead of work in iteration 3 (no MPI or OpenMP call)
mk() {
	mkdir "$1"
	for p in 0 1 2 3; do
		{ printf 'main\nMPI_Init\n[ret]\n'
		  i=0; while [ $i -lt 6 ]; do
			printf 'compute\n[ret]\n'
			if [ "$2" = order ] && [ $p = 2 ] && [ $i -ge 3 ]; then
				printf 'MPI_Bcast\n[ret]\nMPI_Allreduce\n[ret]\n'
			else
				printf 'MPI_Allreduce\n[ret]\nMPI_Bcast\n[ret]\n'
			fi
			i=$((i + 1)); done
		  printf 'MPI_Finalize\n[ret]\n[ret]\n'; } > "$1/$p.0.txt"
		{ i=0; while [ $i -lt 6 ]; do
			if [ "$2" = own ] && [ $p = 2 ] && [ $i = 3 ]; then printf 'work_b\n[ret]\n'
			else printf 'work\n[ret]\n'; fi
			[ "$2" = count ] && [ $p = 2 ] && [ $i = 3 ] ||
				printf 'GOMP_critical_start\n[ret]\nGOMP_critical_end\n[ret]\n'
			i=$((i + 1)); done; } > "$1/$p.1.txt"
	done
}
