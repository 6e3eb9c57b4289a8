/* gen_scale.c: one run of synthetic MPI + OpenMP text traces for bench/bench_scale.sh, written
 * as DIR/P.T.txt (one function name per line, `[ret]` for a return, what `difftrace import`
 * reads from a directory of text traces).
 *
 * Usage: gen_scale DIR NTRACES EVENTS DISTINCT FAULTY [SHUFFLE]
 *
 * NTRACES traces (NTRACES/4 processes x 4 threads) of about EVENTS lines each (calls and
 * returns), drawn from DISTINCT behaviours: behaviour b calls, in every time step, the MPI and
 * OpenMP functions given by the bits of b (and non-MPI work that the default filter drops), so
 * that DISTINCT behaviours are DISTINCT attribute sets under the default filter. Each step
 * varies, from a pseudo-random sequence seeded by the trace's number, in how many `compute`
 * calls it makes (1 to 3), as data-dependent code does: no two files are alike, but the
 * filtered traces of one behaviour are. SHUFFLE (1) also rotates the order of each step's MPI
 * and OpenMP calls at random: the calls and their counts stay those of the behaviour, but the
 * loops that NLR finds, hence the attribute sets, then differ from trace to trace. FAULTY (1) makes one trace in 997 call MPI_Probe once more. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const fn[] = {
	"MPI_Send", "MPI_Recv", "MPI_Bcast", "MPI_Reduce", "MPI_Allreduce", "MPI_Barrier",
	"MPI_Gather", "MPI_Scatter", "MPI_Isend", "MPI_Irecv", "MPI_Wait", "MPI_Waitall",
	"MPI_Allgather", "MPI_Alltoall", "omp_set_lock", "omp_unset_lock", "GOMP_barrier",
	"GOMP_critical_start",
};
#define NFN (sizeof fn / sizeof fn[0])

static char *buf;
static size_t len, cap;
static size_t lines;

static void put(const char *s)
{
	size_t n = strlen(s);
	if (len + n + 1 > cap) {
		cap = (len + n + 1) * 2;
		buf = realloc(buf, cap);
		if (!buf) {
			perror("gen_scale");
			exit(1);
		}
	}
	memcpy(buf + len, s, n);
	buf[len + n] = '\n';
	len += n + 1;
	lines++;
}

static void call(const char *s)
{
	put(s);
	put("[ret]");
}

int main(int argc, char **argv)
{
	if (argc != 6 && argc != 7) {
		fprintf(stderr, "usage: gen_scale DIR NTRACES EVENTS DISTINCT FAULTY [SHUFFLE]\n");
		return 2;
	}
	const char *dir = argv[1];
	unsigned long n = strtoul(argv[2], NULL, 10);
	unsigned long events = strtoul(argv[3], NULL, 10);
	unsigned long kinds = strtoul(argv[4], NULL, 10);
	int faulty = atoi(argv[5]);
	int shuffle = argc == 7 && atoi(argv[6]);
	if (!kinds || kinds > (1ul << NFN)) {
		fprintf(stderr, "gen_scale: DISTINCT must be 1 to %lu\n", 1ul << NFN);
		return 2;
	}
	if (mkdir(dir, 0777) && errno != EEXIST) {
		fprintf(stderr, "gen_scale: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	char path[4096];
	for (unsigned long i = 0; i < n; i++) {
		unsigned long b = (i * 7919) % kinds;
		len = lines = 0;
		call("MPI_Init");
		call("MPI_Comm_rank");
		int probe = faulty && i % 997 == 5;
		unsigned nb = 0, set[NFN];
		for (unsigned k = 0; k < NFN; k++)
			if (b >> k & 1)
				set[nb++] = k;
		uint64_t r = 0x9e3779b97f4a7c15u * (i + 1);
		for (unsigned long step = 0; lines + 4 < events; step++) {
			r = r * 6364136223846793005u + 1442695040888963407u;
			unsigned x = (unsigned)(r >> 33);
			put("timestep");
			for (unsigned c = 0; c < 1 + x % 3; c++)
				call("compute");
			for (unsigned k = 0; k < nb; k++)
				call(fn[set[(k + (shuffle ? x >> 4 : 0)) % nb]]);
			if (probe && step == 3)
				call("MPI_Probe");
			put("[ret]");
		}
		call("MPI_Finalize");
		snprintf(path, sizeof path, "%s/%lu.%lu.txt", dir, i / 4, i % 4);
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
		if (fd < 0 || write(fd, buf, len) != (ssize_t)len || close(fd)) {
			fprintf(stderr, "gen_scale: %s: %s\n", path, strerror(errno));
			return 1;
		}
	}
	free(buf);
	return 0;
}
