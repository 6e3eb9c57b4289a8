/* workload.h: a synthetic event stream shaped like a real MPI + OpenMP thread's trace, for the
 * benchmarks: an outer time-step loop around nested compute loops and communication, with a
 * little irregularity (1 in 64 iterations takes another path), over a few thousand function ids.
 * It is what the codecs and NLR face on real traces: long repetitions with nested structure.
 * irregular_fill is the harder case: a thread whose loops vary from one iteration to the next. */
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

/* A solver-like thread: an outer iteration loop; inside, a sweep over a random number of
 * blocks, each a kernel loop whose trip count depends on the block (and on every 5th
 * iteration), with a boundary call on odd blocks' last trip and a random branch in 1 of 64
 * trips; now and then a call among 500 rarely seen functions; a halo exchange whose length
 * depends on the iteration. Its compute blocks differ from their neighbours, so most of its
 * top level stays unfolded. */
static inline size_t irregular_fill(uint32_t *ev, size_t n, uint32_t seed)
{
	size_t i = 0;
	uint32_t x = seed ? seed : 1;
#define EMIT(v)                   \
	do {                      \
		if (i == n)       \
			return n; \
		ev[i++] = (v);    \
	} while (0)
#define RND() (x = x * 1103515245u + 12345u, x >> 16)
	for (uint32_t it = 0;; it++) {
		EMIT(200); /* iterate */
		uint32_t blocks = 3 + RND() % 4;
		for (uint32_t bl = 0; bl < blocks; bl++) {
			EMIT(210); /* block */
			uint32_t trips = 3 + (bl % 3) * 2 + (it % 5 == 0);
			for (uint32_t j = 0; j < trips; j++) {
				EMIT(220); /* stencil */
				EMIT(0);
				if (j + 1 == trips && (bl & 1)) { /* boundary handling */
					EMIT(230);
					EMIT(0);
				}
				if (RND() % 64 == 0) { /* a data-dependent branch */
					EMIT(230);
					EMIT(0);
				}
			}
			if (RND() % 16 == 0) {
				EMIT(1000 + RND() % 500);
				EMIT(0);
			}
			EMIT(0);
		}
		uint32_t halo = 1 + it % 4;
		for (uint32_t h = 0; h < halo; h++) {
			EMIT(240); /* MPI_Isend */
			EMIT(0);
			EMIT(241); /* MPI_Irecv */
			EMIT(0);
		}
		EMIT(242); /* MPI_Waitall */
		EMIT(0);
		EMIT(0);
	}
#undef RND
#undef EMIT
}

#endif
