/* ptdup.c: two traces with the same process and thread numbers (ptdup.h). */
#include "import/ptdup.h"

#include <stdlib.h>

#include "util/util.h"

static size_t slot_of(int64_t pid, int64_t tid, size_t mask)
{
	/* both numbers mixed: the processes of a run are consecutive, and so are its threads */
	uint64_t h = (uint64_t)pid * 0x9E3779B97F4A7C15ull ^ (uint64_t)tid * 0xC2B2AE3D27D4EB4Full;
	h ^= h >> 29;
	h *= 0xBF58476D1CE4E5B9ull;
	h ^= h >> 32;
	return (size_t)h & mask;
}

int ptdup_find(const int64_t *pid, const int64_t *tid, size_t n, size_t *i, size_t *j,
	       uint64_t *probes)
{
	size_t cap = 16;
	while (cap < 2 * n)
		cap *= 2;
	/* slot -> 1 + the index of the first entry with its key; 0: empty */
	size_t *tab = xcalloc(cap, sizeof *tab);
	uint64_t looked = 0;
	int found = 0;
	for (size_t k = 0; k < n && !found; k++) {
		size_t h = slot_of(pid[k], tid[k], cap - 1);
		for (;; h = (h + 1) & (cap - 1)) {
			looked++;
			if (!tab[h]) {
				tab[h] = k + 1;
				break;
			}
			size_t q = tab[h] - 1;
			if (pid[q] == pid[k] && tid[q] == tid[k]) {
				*i = k;
				*j = q;
				found = 1;
				break;
			}
		}
	}
	free(tab);
	if (probes)
		*probes = looked;
	return found;
}
