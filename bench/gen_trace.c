/* gen_trace.c: a synthetic trace as text (one function name per line, `[ret]` for a return,
 * what `difftrace import --format text` reads), from bench/workload.h.
 * Usage: gen_trace nested|irregular N > FILE */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "workload.h"

static const char *name(uint32_t id, char *buf)
{
	switch (id) {
	case 0: return "[ret]";
	case 10: return "timestep";
	case 20: return "compute";
	case 30: return "kernel";
	case 40: return "helper";
	case 50: return "MPI_Allreduce";
	case 51: return "PMPI_Allreduce";
	case 52: return "MPI_Bcast";
	case 200: return "iterate";
	case 210: return "block";
	case 220: return "stencil";
	case 230: return "boundary";
	case 240: return "MPI_Isend";
	case 241: return "MPI_Irecv";
	case 242: return "MPI_Waitall";
	}
	snprintf(buf, 32, "rare_%u", (unsigned)id);
	return buf;
}

int main(int argc, char **argv)
{
	if (argc != 3 || (strcmp(argv[1], "nested") && strcmp(argv[1], "irregular"))) {
		fprintf(stderr, "usage: gen_trace nested|irregular N > FILE\n");
		return 2;
	}
	size_t n = (size_t)strtoull(argv[2], NULL, 10);
	uint32_t *ev = xmalloc((n ? n : 1) * sizeof *ev);
	if (!strcmp(argv[1], "nested"))
		workload_fill(ev, n, 42);
	else
		irregular_fill(ev, n, 7);
	char buf[32];
	for (size_t i = 0; i < n; i++) {
		fputs(name(ev[i], buf), stdout);
		putchar('\n');
	}
	free(ev);
	return fflush(stdout) ? 1 : 0;
}
