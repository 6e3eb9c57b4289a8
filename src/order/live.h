/* live.h: a sync record in progress (difftrace-sync(5)), read while the program runs, for
 * `difftrace watch`.
 *
 * The per-thread files the preloaded recorder maps with mmap(MAP_SHARED) are read
 * incrementally: each poll looks for new files and reads, from each file's offset on, the
 * records whose commit word is in place; a record whose commit word is not there yet (the
 * thread is writing it, or was killed while writing it) ends the file for now and is read
 * again at the next poll. Per thread it keeps the calls it is inside (entries without their
 * exit), so the innermost open call, its key arguments and since when it is open are known
 * at every poll; the new events also go through the causality filter (filter.h, the shipped
 * rules) online, which says how many are in a causal order and how many wait for events
 * not recorded yet.
 *
 * Processes are numbered by their MPI_COMM_WORLD rank as soon as the recorder knows it (the
 * rank-N directory difftrace-record makes otherwise), threads within a process as the
 * importer numbers them: the main thread 0, the others by thread id. */
#ifndef DT_ORDER_LIVE_H
#define DT_ORDER_LIVE_H

#include <stddef.h>
#include <stdint.h>

#include "import/sync_event.h"
#include "util/err.h"

enum live_state {
	LIVE_IN_CALL = 0, /* inside a recorded call (an entry without its exit) */
	LIVE_OUTSIDE,     /* between recorded calls */
	LIVE_FINISHED,    /* returned from MPI_Finalize */
	LIVE_STARTING,    /* no record yet */
};

/* What a thread of this host does, from /proc (its CPU time since the last poll, its state,
 * the system call it is in): told for the threads between recorded calls, which would
 * otherwise all look alike. */
enum live_activity {
	LIVE_ACT_UNKNOWN = 0, /* another host's, a process gone, or /proc not readable */
	LIVE_ACT_CPU,         /* on a CPU: computing */
	LIVE_ACT_SLEEP,       /* in nanosleep, clock_nanosleep or pause: sleeping */
	LIVE_ACT_WAIT,        /* blocked in another system call (a futex of an idle OpenMP
			       * worker, a read, a poll): waiting outside the recorded calls */
};

typedef struct live_thread {
	int32_t proc, thread;  /* P.T: P the rank (-1 while unknown), T its number in the process */
	int64_t pid, tid;
	const char *host;      /* the recording host (from the file; not escaped) */
	int state;             /* enum live_state */
	dt_sync_event cur;     /* LIVE_IN_CALL: the innermost open call's entry; otherwise the
				* last call's exit (func is the call code of syncfmt.h) */
	uint64_t occurrence;   /* which call of cur.func in the thread: 1st, 2nd ... */
	uint32_t depth;        /* open calls (LIVE_IN_CALL: 1 or more) */
	int64_t elapsed_ns;    /* how long it has been in that state, at the last poll */
	uint64_t nrec;         /* records read */
	int torn;              /* the last poll stopped at a record not complete yet */
	uint64_t holds;        /* a lock or critical section it holds (the first), 0 none */
	uint32_t nholds;       /* how many it holds */
	int gone;              /* its process is no longer running (known on this host only);
				* elapsed_ns then stops at the poll that found it gone */
	int activity;          /* enum live_activity */
	int cpu_pct;           /* its share of a CPU since the last poll, -1 unknown */
} live_thread;

/* A STAT-like group: the threads in the same state and call. */
typedef struct live_group {
	int state;
	uint32_t func;
	int activity;    /* LIVE_OUTSIDE: enum live_activity (a group per activity) */
	size_t *threads; /* indices into the threads, in P.T order */
	size_t n;
	int64_t max_ns;  /* the longest elapsed time among them */
} live_group;

typedef struct live live;

/* DIR: a recording of difftrace-record (DIR/rank-N/sync/), one rank's directory, or a sync
 * directory itself. It may not exist yet, or hold no file yet. */
live *live_open(const char *dir);
void live_free(live *l);
/* Reads what was appended since the last poll. now_mono_ns and now_real_ns are this host's
 * clocks now (elapsed times of threads of another host go by the wall clock). Fails on a file
 * that is not a sync file (e names it and the offset). */
int live_poll(live *l, int64_t now_mono_ns, int64_t now_real_ns, dt_err *e);

/* The threads, in P.T order (processes of unknown rank last, by pid). Valid until the next
 * poll. */
const live_thread *live_threads(const live *l, size_t *n);
/* The groups: threads inside a call first, largest groups first. Valid until the next poll. */
const live_group *live_groups(const live *l, size_t *n);
/* Records read in all, and the online filter's counts: delivered in causal order, held. When
 * the filter stopped (its bound reached), *stopped says why (else NULL). */
void live_counts(const live *l, uint64_t *records, uint64_t *delivered, uint64_t *held,
		 const char **stopped);
/* The files seen, and how many are not complete yet (header being made). */
size_t live_nfiles(const live *l);

/* The name of a call code, and its key arguments ("src=1 tag=5 comm=0") into b. */
const char *live_call_name(uint32_t func);
void live_args(const dt_sync_event *v, char *b, size_t n);
/* A thread between recorded calls in a word: computing, sleeping, waiting, or "not in a
 * recorded call" when its activity is unknown. */
const char *live_activity_name(int activity);
/* "1st", "2nd", "3rd", "4th" ... */
const char *live_nth(uint64_t k, char *b, size_t n);

#endif
