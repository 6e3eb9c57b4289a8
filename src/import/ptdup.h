/* ptdup.h: finding two traces that claim the same process and thread numbers.
 *
 * The text import names each trace after its file (P.T from the name); two files of one
 * directory naming the same P.T would silently become two threads, so they are refused. A
 * directory holds 10^5 files and more: the search is one pass over a hash table, O(n)
 * expected, where comparing each file with every earlier one was 57% of the import's CPU at
 * 131,072 files. */
#ifndef DT_PTDUP_H
#define DT_PTDUP_H

#include <stddef.h>
#include <stdint.h>

/* Looks for the first i (in order) whose (pid[i], tid[i]) an earlier j has, with the earliest
 * such j: what comparing each entry with every earlier one finds first. Returns 1 and sets
 * *i and *j when found, else 0. When probes is not NULL it receives how many table slots were
 * looked at: about n, where the pairwise comparison made n (n - 1) / 2. */
int ptdup_find(const int64_t *pid, const int64_t *tid, size_t n, size_t *i, size_t *j,
	       uint64_t *probes);

#endif
