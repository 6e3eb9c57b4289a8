/* hang.h: where each thread of a stopped run is, and who waits for whom (the hang report).
 *
 * From the sync events of a run (store_sync_list: entries written before a call could block,
 * so a thread stopped inside a call has an entry without an exit) it finds, for every thread,
 * the innermost call it was inside at the end and which occurrence of that call it was;
 * groups the threads by (call, occurrence) as STAT groups stack traces; and builds a wait-for
 * graph between threads with its cycles:
 *   - a blocking receive (MPI_Recv, MPI_Probe, MPI_Sendrecv) waits for its source (every
 *     other process when the record lacks it: an OTF2 archive writes it, and the tag, when
 *     the call completes), a blocking send for its destination; MPI_Wait* waits for the peers of the process's requests not
 *     completed yet, and for a nonblocking collective's request (MPI_Ibarrier ...) for the
 *     members of its communicator not in it;
 *   - a collective waits for the members of its communicator that have not entered the same
 *     collective (the n-th on that communicator, blocking or not) yet; the members of a
 *     communicator made by the program are the processes with events on it and those that
 *     made it (the exit of MPI_Comm_split, _dup, _create, _split_type names it in obj);
 *     a collective whose communicator the record lacks (OTF2's again) counts on none and
 *     waits for the processes not inside the same call; MPI_Finalize waits for the
 *     processes that are not in it;
 *   - a lock or critical-section acquire waits for the thread holding it;
 *   - GOMP_barrier waits for the team members not in the barrier; GOMP_parallel (the join)
 *     for the members that have not finished their part of the region.
 * Processes are numbered by their MPI_COMM_WORLD rank (P is the rank, as the store numbers
 * ranked runs). No I/O: arrays in, a report out. */
#ifndef DT_HANG_H
#define DT_HANG_H

#include <stddef.h>
#include <stdint.h>

#include "import/sync_event.h"
#include "util/err.h"

enum hang_state {
	HANG_IN_CALL = 0, /* inside a call at the end (an entry without an exit) */
	HANG_FINISHED,    /* returned from MPI_Finalize */
	HANG_OUTSIDE,     /* between recorded calls (computing, or waiting in code not recorded) */
};

typedef struct hang_thread {
	int32_t proc, thread;
	int state;           /* enum hang_state */
	uint32_t func;       /* the call it is in (HANG_IN_CALL), else its last call, 0 if none */
	uint64_t occurrence; /* which call of func in this thread it is: 1st, 2nd ... */
	size_t entry;        /* index of that call's entry in the events */
	/* locks and critical sections held at the end: the events of their acquisitions */
	size_t *held;
	size_t nheld;
} hang_thread;

typedef struct hang_group {
	int state;
	uint32_t func;
	uint64_t occurrence;
	size_t *threads; /* indices into hang_report.threads, in P.T order */
	size_t n;
} hang_group;

enum hang_why {
	HANG_W_RECV,      /* a receive waits for its source */
	HANG_W_SEND,      /* a blocking send waits for its destination */
	HANG_W_REQUEST,   /* a wait for a request to or from this peer */
	HANG_W_COLL,      /* a collective waits for a member that has not entered it */
	HANG_W_FINALIZE,  /* MPI_Finalize waits for a process not in it */
	HANG_W_LOCK,      /* an acquire waits for the holder */
	HANG_W_BARRIER,   /* an OpenMP barrier waits for a team member not in it */
	HANG_W_JOIN,      /* the end of a parallel region waits for a member still in it */
};

typedef struct hang_edge {
	size_t from, to; /* indices into hang_report.threads */
	int why;         /* enum hang_why */
} hang_edge;

typedef struct hang_cycle {
	size_t *threads; /* a closed path: threads[0] waits for threads[1] ... the last for [0] */
	size_t n;
	size_t *knot;    /* the threads of its strongly connected part (each waits for each,
			  * through the others), in P.T order: n of them when the cycle holds
			  * them all (searched for: a ring of four is printed as four) */
	size_t nknot;
} hang_cycle;

/* A blocked receive with a near-match (a tag, peer or count mismatch): a send to it that no
 * receive took, alike but for one thing. */
enum hang_near_kind {
	HANG_NEAR_TAG,   /* from its source, with another tag */
	HANG_NEAR_PEER,  /* its tag from another process, or from its source to another one */
	HANG_NEAR_COUNT, /* its source and tag, another count or datatype */
	HANG_NEAR_UNNAMED, /* a receive whose source and tag the record does not have (an OTF2
			    * archive's, which writes them when the call completes): a send to
			    * its process that no receive took did not fit it */
};

typedef struct hang_near {
	size_t thread; /* the receiving thread, an index into hang_report.threads */
	int kind;      /* enum hang_near_kind */
	size_t recv;   /* the receive's event (an Irecv's exit when it waits for a request) */
	size_t send;   /* the unreceived send's entry event */
	size_t sender; /* the sending thread, an index into hang_report.threads; SIZE_MAX when
			* not known */
} hang_near;

typedef struct hang_report {
	hang_thread *threads; /* every thread with sync events, in P.T order */
	size_t nthreads;
	hang_group *groups;   /* threads inside a call first, largest groups first */
	size_t ngroups;
	hang_edge *edges;     /* sorted by (from, to), one per pair */
	size_t nedges;
	hang_cycle *cycles;   /* one per strongly connected part of the graph that has a cycle:
			       * through all its threads when there is such a cycle */
	size_t ncycles;
	hang_near *nears;     /* near-matches of the blocked receives, by thread */
	size_t nnears;
} hang_report;

/* A point-to-point message by its envelope, and the event (an index) that sent it. */
typedef struct hang_msg {
	int32_t from, to, tag;
	size_t ev;
} hang_msg;

/* What the report needs of a run, gathered as its events stream by (order/hangscan.h):
 * the events it refers to, in (proc, thread, seq) order, and indices into them. */
typedef struct hang_facts {
	const dt_sync_event *ev;
	size_t nev;
	const uint64_t *kcoll;   /* by event: the collectives of its thread on its communicator
				  * up to it (a collective's entry, a nonblocking one's exit) */
	hang_thread *threads;    /* proc, thread, state, func, occurrence, entry, held: taken */
	size_t nthreads;
	size_t *const *stack;    /* by thread: its open entries, outermost first */
	const size_t *nstack;
	const size_t *nmpi;      /* by thread: its MPI events */
	int32_t maxproc;
	size_t *const *open;     /* by proc: the exits that made its requests not completed */
	const size_t *nopen;
	const int32_t (*members)[2]; /* (communicator, process) pairs, sorted, unique */
	size_t nmembers;
	const hang_msg *unrecv;  /* the sends no receive took, by (from, to, tag, event) */
	size_t nunrecv;
	/* the func of the k-th collective (from 1) of proc on comm, in (thread, seq) order:
	 * 1, or 0 when it has fewer */
	int (*kth)(const void *kst, int32_t comm, int32_t proc, uint64_t k, uint32_t *func);
	const void *kst;
} hang_facts;

/* The report from a streamed run's state: the same as hang_analyze's of its whole record
 * (indices into st->ev); st->threads is taken. */
void hang_from_state(const hang_facts *st, const char *const *names, size_t nnames,
		     hang_report *r);

/* What a call is for the report (an enum of hang.c; 0 for a call it does not know). */
int hang_call_kind(const char *name);
enum { HANG_K_ISTART = 4, HANG_K_COLL = 5, HANG_K_FINALIZE = 6, HANG_K_ACQUIRE = 7,
       HANG_K_RELEASE = 8, HANG_K_ICOLL = 12, HANG_K_PINIT = 13, HANG_K_SEND = 2,
       HANG_K_RECV = 1 };
int hang_makes_comm(const char *name);

/* ev: a run's sync events sorted by (proc, thread, seq); names[id] the function names (ids
 * below nnames), which say what each call is. */
int hang_analyze(const dt_sync_event *ev, size_t n, const char *const *names, size_t nnames,
		 hang_report *r, dt_err *e);
void hang_report_free(hang_report *r);

/* The completions the stopped threads wait for: for every thread of r inside a call, the exit
 * event that call would write if it returned (its entry's arguments; for a lock or critical
 * section, the acquisition number it would get). Pushed after the run's events through the
 * causality filter, those the rules can never release are the calls that can never complete
 * (a receive whose send never happened, a collective some members never entered, a lock never
 * released). *out and *thread_of (the index into r->threads of each) are malloc'ed (NULL when
 * none); returns their number. */
size_t hang_pending(const dt_sync_event *ev, size_t n, const char *const *names, size_t nnames,
		    const hang_report *r, dt_sync_event **out, size_t **thread_of);
const char *hang_why_name(int why);
const char *hang_near_name(int kind); /* "tag", "peer", "count", "envelope" */
/* The index of thread P.T in r->threads (in P.T order), SIZE_MAX when r has none. */
size_t hang_thread_find(const hang_report *r, int32_t proc, int32_t thread);
/* A near-match in words, "2.0 waits for tag 11 from 3; 3.0 sent tag 10 to 2 (unreceived)",
 * into b (n bytes); type_name names a datatype code (NULL: by its number). */
void hang_near_text(const hang_report *r, const dt_sync_event *ev, const hang_near *m,
		    const char *(*type_name)(int32_t), char *b, size_t n);

#endif
