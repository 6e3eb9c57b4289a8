/* workload.h: a synthetic event stream shaped like a real MPI + OpenMP thread's trace, for the
 * benchmarks: an outer time-step loop around nested compute loops and communication, with a
 * little irregularity (1 in 64 iterations takes another path), over a few thousand function ids.
 * It is what the codecs and NLR face on real traces: long repetitions with nested structure. */
#ifndef DT_BENCH_WORKLOAD_H
#define DT_BENCH_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

/* Fills ev[0..n) and returns n. The stream is well nested. */
static inline size_t workload_fill(uint32_t *ev, size_t n, uint32_t seed)
{
	size_t i = 0;
	uint32_t x = seed ? seed : 1;
#define EMIT(v)                   \
	do {                      \
		if (i == n)       \
			return n; \
		ev[i++] = (v);    \
	} while (0)
	for (uint32_t step = 0;; step++) {
		EMIT(10); /* timestep */
		for (int k = 0; k < 8; k++) {
			EMIT(20); /* compute */
			for (int j = 0; j < 16; j++) {
				EMIT(30); /* kernel */
				EMIT(40); /* helper: a leaf */
				EMIT(0);
				EMIT(0);
			}
			x = x * 1103515245u + 12345u;
			if (((x >> 16) & 63) == 0) { /* an irregular path: a rarely seen call */
				EMIT(100 + ((x >> 8) % 3000));
				EMIT(0);
			}
			EMIT(0);
		}
		EMIT(50); /* MPI_Allreduce */
		EMIT(51); /* PMPI_Allreduce */
		EMIT(0);
		EMIT(0);
		EMIT(52); /* MPI_Bcast */
		EMIT(0);
		EMIT(0);
	}
#undef EMIT
}

#endif
