/* hangcause.h: the most likely cause of a hang, the first line of the hang report.
 *
 * From the same evidence as the ranking of a hung run (hangrank.h), in its order:
 *   1. a thread in MPI_Abort: the program's own call, or an MPI error (libdifftrace-sync.so's
 *      error handler records it so, with the error's class): the run aborted;
 *   2. with a normal run: the threads whose calls depart from their counterparts' (not
 *      merely stopped early), those that departed after the fewest calls in common first;
 *   3. a collective whose members disagree: in the first instance of a collective (the k-th on
 *      a communicator, three members or more) where some members called another collective,
 *      or gave another root, operation, count or datatype than the most of them, those few
 *      (a rank that skipped a collective, or passed a wrong size);
 *   4. a thread that others wait for and that waits for nobody (computing, spinning, or
 *      returned from MPI_Finalize while others wait for it), the most waited-for first;
 *   5. in a wait-for cycle, the threads in another call than the rest of their cycle (a
 *      collective one rank skipped); a cycle of threads alike is a tie of all of them;
 *   6. else the threads most waited for; none when the threads inside calls wait for no
 *      thread the record names.
 * Without a normal run the second step is skipped: a tie the report says it cannot break
 * alone. Pure: a hang report and a comparison in, indices into the report's threads out. */
#ifndef DT_HANGCAUSE_H
#define DT_HANGCAUSE_H

#include <stddef.h>

#include "analysis/hangrank.h"
#include "order/hang.h"
#include "store/store_sync.h"

enum hang_cause_why {
	HANG_C_NONE = 0,  /* none found: no thread stopped inside a call (nothing hung), or
			   * those inside calls wait for no thread the record names */
	HANG_C_DIVERGED,  /* its calls depart from the normal run's */
	HANG_C_ABORT,     /* it called MPI_Abort, or an MPI error aborted the run there */
	HANG_C_HELD,      /* others wait for it, it waits for nobody */
	HANG_C_COLL,      /* it called another collective, or with other arguments, than the
			   * other members */
	HANG_C_ODD,       /* in a cycle, in another call than the rest of it */
	HANG_C_CYCLE,     /* in a cycle of threads alike */
	HANG_C_WAITED,    /* the most waited-for */
	HANG_C_NEAR,      /* in a cycle, the receive and the sender of a near-match (a tag, peer
			   * or count mismatch): one of the two has it wrong */
};

typedef struct hang_cause {
	int why;          /* enum hang_cause_why */
	size_t *threads;  /* indices into hang_report.threads, tied for first */
	size_t n;
	size_t waiters;   /* HELD, WAITED: threads that wait for each */
	size_t cycle;     /* ODD, CYCLE, NEAR: the index of the cycle */
	size_t near;      /* NEAR: the index of the near-match in hang_report.nears */
	const hr_thread *cmp; /* DIVERGED: the first one's comparison (in the hr_info given) */
	size_t odd, usual;    /* COLL: the entry of the first odd member, and of one of the rest */
	size_t members;       /* COLL: the members of that collective */
	int normal;           /* compared with a normal run */
	int inside;           /* a thread stopped inside a call */
} hang_cause;

/* The first instance of a collective whose members disagree (step 3), found beforehand (a
 * streamed run: order/hangscan.h): n == 0 when none. */
typedef struct hang_coll_odd {
	size_t *threads; /* indices into hang_report.threads, the odd members by process */
	size_t n;
	size_t odd, usual; /* events (indices into the ev given with it) */
	size_t members;
} hang_coll_odd;

/* Whether the members of a collective must agree on count and datatype (2: also root and
 * op), or on the call only (1); 0 for a call that is no such collective. */
int hang_coll_kind(const char *name);

/* hang_cause_find with step 3 given (odd) instead of found in the run's events. */
void hang_cause_find_odd(const hang_report *r, const hang_coll_odd *odd, const hr_info *hr,
			 const char *const *names, size_t nnames, hang_cause *out);

/* ev (n events): the run's events as given to hang_analyze; hr: the comparison with a normal
 * run (hr_build), NULL or empty when none; names[f] the function names (nnames of them). */
void hang_cause_find(const hang_report *r, const dt_sync_event *ev, size_t n,
		     const hr_info *hr, const char *const *names, size_t nnames, hang_cause *out);
void hang_cause_free(hang_cause *c);
const char *hang_cause_name(int why);
/* The cause for people, after "most likely cause: ": the threads, then why ("2.0: 2 threads
 * wait for it and it waits for nobody: in no recorded call (computing or spinning)"); ev the
 * run's events as given to hang_analyze, names escaped. */
void hang_cause_text(store *s, const hang_report *r, const dt_sync_event *ev,
		     const hang_cause *c, char *buf, size_t cap);
/* The same, naming where the program made the call it names (" at heat.c:55 (halo_exchange)")
 * when sites (the run's) has it. */
void hang_cause_text_sites(store *s, const hang_report *r, const dt_sync_event *ev,
			   const hang_cause *c, const store_sites *sites, char *buf, size_t cap);
/* The site id of the call the cause names (0: none, or not known): the call that departs from
 * the normal run, the odd member's collective, the blocked receive of a mismatch, the call
 * that aborted, or the call of the first thread it names. */
uint32_t hang_cause_site(const hang_report *r, const dt_sync_event *ev, const hang_cause *c); /* "diverged", "abort", "held", "odd", "cycle", ... */

#endif
