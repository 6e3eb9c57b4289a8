/* verdict_args.h: the MPI arguments every trace changed alike, in the ranking (rule 3 with
 * verdict_common.h).
 *
 * Under `.args` an MPI call is kept as NAME[args] (peers.h): a faulty run started with another
 * size makes every MPI_Send[count=64,...] an MPI_Send[count=200000,...], in every trace, and
 * every trace then diverges at its first send. Each argument (the text before '=') of the calls
 * a trace makes as its counterpart does, up to the first other call, is seen with its values in
 * both runs; a change every trace making that call made alike is common (argchange.h). The
 * faulty traces' calls are then written back with the normal value (the name looked up among
 * the store's functions), so that each trace is compared with the input's change left out. */
#ifndef DT_VERDICT_ARGS_H
#define DT_VERDICT_ARGS_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/argchange.h"
#include "store/store.h"

/* The common changes of the arguments over n traces (a[k] the normal run's kept events, b[k]
 * the faulty run's; nb[k] 0 for a trace not compared) into out, and b[k] rewritten with them
 * undone. Returns out->n. */
size_t vd_args_common(store *s, uint32_t *const *a, const size_t *na, uint32_t **b,
		      const size_t *nb, size_t n, ac_set *out);
/* For people: "count 64 -> 200000 in MPI_Send, MPI_Recv"; names escaped. */
void vd_args_text(store *s, const ac_set *c, char *buf, size_t cap);

#endif
