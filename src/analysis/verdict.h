/* verdict.h: the ranking difftrace shows by default (METHOD.md §8): which traces changed, how,
 * and in what order to look at them.
 *
 * JSM_D's row sums (rank.h) measure how much a trace's *attributes* changed; under singleton
 * attributes a change of order, or a count that stays in its log10 bucket, changes none. So
 * every matched trace is also compared exactly: its kept events (the filtered sequence, with
 * the MPI arguments when the mode has `.args`) against its counterpart's in the normal run.
 *   - identical: score 0, whatever its row sum (its similarity to others changed because
 *     others did);
 *   - stopped early: the faulty trace is the beginning of its counterpart and nothing else,
 *     in a run that was cut (a call left open, the run stopped): a thread that waited for
 *     others in a hung run, a bystander in MPI_Finalize; in a run that ended normally such a
 *     trace ended early, and that is a divergence;
 *   - diverged: it does something its counterpart does not at that point (the culprit of a
 *     hang, a call in another order, one more or one fewer iteration, another argument).
 * A changed trace scores its row sum plus the share of its kept events outside the common
 * beginning and end (so it is never 0). The order: diverged before stopped early before
 * identical (a trace whose kept events only stopped early but that was still running at the
 * stop of a hung run, or made more calls in all than its counterpart, counts as diverged: it
 * was busy out of the filter's sight, unless it waits in MPI_Finalize or a final barrier), then
 * (only when the filter does not single out a trace, verdict_own.h) whether the calls the
 * filter drops differ too, then the score, then the earliest divergence relative to the
 * trace's length (who left the common pattern first); among the traces that only stopped early, the one that stopped
 * earliest relative to its counterpart's length comes first (the one the others wait for),
 * then the score. Traces equal on all of these are tied and share their position.
 *
 * In a hung run with a hang-safe record in both runs (hangrank.h), two tiers come before all
 * of that: the threads whose recorded calls broke their counterpart's pattern (earliest
 * departure first), then the threads the others wait for at the end that wait for nobody.
 *
 * vd_compare and vd_order are pure (unit-tested); vd_build reads the analyses' NLR entries
 * from the store. */
#ifndef DT_VERDICT_H
#define DT_VERDICT_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/analysis.h"
#include "analysis/argchange.h"
#include "analysis/common.h"
#include "analysis/nlr.h"
#include "import/sync_event.h"
#include "store/store_sync.h"

enum vd_change { VD_SAME = 0, VD_STOPPED = 1, VD_DIVERGED = 2 };

typedef struct vd_item {
	size_t i;          /* row of the rank_jsmd */
	int change;        /* enum vd_change */
	double rowsum;     /* JSM_D row sum, the paper's score */
	double share;      /* share of kept events outside the common beginning and end */
	double score;      /* 0 when identical, else rowsum + share (> 0) */
	uint64_t kept_n;   /* events kept by the filter, normal run */
	uint64_t kept_f;   /* the same, faulty run */
	uint64_t at;       /* kept events in common at the start (where they part) */
	uint32_t ev_n;     /* the first events that differ (DT_RET, 0, past the end) */
	uint32_t ev_f;
	uint32_t last_f;   /* the faulty trace's last call (0: none) */
	int running;       /* still running when a hung run was stopped */
	int spun;          /* running and stopped early: busy out of the filter's sight */
	int ended;         /* a prefix that ended normally (no open call): it ended early */
	/* From the hang-safe record of a hung run (hangrank.h): 2, it broke the pattern of its
	 * counterpart's calls; 1, the others wait for it at the end and it waits for nobody;
	 * 0, neither (or no record). Ranked before everything else. */
	int tier;
	uint64_t s_at, s_nn;     /* entries in common at the start; the counterpart's entries */
	size_t waiters;          /* threads that wait for it at the end */
	int s_only;              /* only the hang-safe record shows a change */
	int s_state;             /* where it is at the end (enum hang_state) */
	uint32_t s_func;         /* the call it is in at the end */
	char s_where[200];       /* where the program made it (hangrank.h), escaped; "" unknown */
	uint32_t s_site;         /* and its site id (the faulty run's sites), 0 unknown */
	dt_sync_event s_en, s_ef; /* the first entries that differ */
	/* The calls the filter drops (verdict_own.h), consulted when the filter's comparison does
	 * not single out a trace: own 1 when they differ from the counterpart's (0: identical, or
	 * not consulted). Ranked within each class of change, before the score. */
	int own;
	uint64_t own_at, own_n;    /* own calls in common at the start; the counterpart's */
	uint32_t own_ev_n, own_ev_f; /* the first own calls that differ (0 past the end) */
	/* own_input 1 when its own calls changed only as its peers' did (a changed input, in
	 * own_common of vd_rank): own is 0 then; own_at, own_ev_n and own_ev_f of a trace that
	 * changed more count with that change left out */
	int own_input;
	/* The change common to its class (verdict_common.h), consulted when the comparison does
	 * not single out a trace: common 1 when its change is that and nothing else (a changed
	 * input; ranked after the diverged traces that changed more); beyond 1 when it changed
	 * more, c_at the calls in common at the start with the common change left out and
	 * c_ev_n, c_ev_f the first that differ then. */
	int common, beyond;
	/* input 1 when its change is the common one and no trace of the run went beyond it (the
	 * common change may then be the bug itself, and common stays 0; the timing rule may still
	 * find the bug: a changed input and a slow function, timing.h) */
	int input;
	uint64_t c_at;
	uint32_t c_ev_n, c_ev_f;
	uint64_t c_pos;    /* beyond: c_ev_f's position among the faulty trace's kept events */
	/* When no trace's calls differ, the time of its own functions (timing.h): slow 1 when a
	 * function's time grew beyond its peers' (slow_f, its factor slow_x against the peers'
	 * slow_peers, slow_gain ns gained beyond theirs); ranked first among the identical. */
	int slow;
	uint32_t slow_f;
	double slow_x, slow_peers;
	uint64_t slow_gain;
	/* When no trace's calls differ, the sync record's arguments and payload digests
	 * (verdict_data.h): data 1 when the data it sent first differs from its counterpart's,
	 * 2 when an argument does (a Put's displacement); data_ord its place in causal order
	 * among the traces so marked (1 first; tied by the clock share it); ranked first among
	 * the identical. d_ef, d_en the entries (faulty, normal), d_nth which of its kind. */
	int data;
	size_t data_ord;
	uint64_t d_nth;
	dt_sync_event d_ef, d_en;
	size_t pos;        /* 1-based; tied items share it */
	/* Not kept with the ranking (rankcache.h): set for the items shown by vd_fill_sites. The
	 * site ids (the faulty run's sites, 0 unknown) of the kept event where it diverged (at),
	 * and of the call where it went beyond the change its peers share (c_pos). */
	uint32_t at_site, c_site;
} vd_item;

typedef struct vd_rank {
	size_t n;
	vd_item *it;    /* in ranking order */
	size_t ndiff;   /* items whose kept events differ */
	/* the common change shared by the most traces that changed only by it (verdict_common.h),
	 * for the header; n 0 when none */
	cc_set common;
	size_t ncommon; /* the traces that changed only by it */
	/* when no trace went beyond the common change: that change (shared by the most input
	 * traces) and whether every diverged trace is input */
	cc_set input_common;
	size_t ninput;
	int all_input;
	/* the same of the calls the filter drops (verdict_own.h): the common change of the own
	 * calls shared by the most traces whose own calls changed only by it */
	cc_set own_common;
	size_t nown_common;
	/* the MPI arguments every trace making the call changed alike (verdict_args.h), left
	 * out of each trace's comparison; nargs the traces whose comparison that changed */
	ac_set args;
	size_t nargs;
	size_t nslow;   /* items whose time changed when no calls did (timing.h) */
	size_t ndata;   /* items whose data or one-sided arguments changed when no calls did
			 * (verdict_data.h) */
} vd_rank;

/* Compares two event sequences (normal a, faulty b) into it's change, share, at, ev_n, ev_f,
 * last_f and kept counts. */
void vd_compare(const uint32_t *a, size_t na, const uint32_t *b, size_t nb, vd_item *it);
/* Sets each score from change, rowsum and share, sorts into the ranking order and numbers the
 * positions (ties share one). */
void vd_order(vd_item *it, size_t n);
/* The ranking of rf against rn (analyses of the same setting) over j (analysis_compare's).
 * The loop table is the store's. */
int vd_build(store *s, const an_result *rn, const an_result *rf, const rank_jsmd *j,
	     vd_rank *out, dt_err *e);
void vd_free(vd_rank *v);
/* Whether the faulty run was cut (a call left open, a stop): a trace that stopped early then
 * may wait; else it ended early. */
int vd_run_cut(const an_result *rf);
/* After vd_compare: a trace that only stopped early in a run not cut ended early (diverged);
 * one that was still running at the stop, or made more calls in all than its counterpart tn,
 * was busy out of the filter's sight (diverged), unless it waits where every trace ends. */
void vd_settle(store *s, vd_item *x, int run_cut, const store_trace *tn, const store_trace *tf);
/* The store's loop table into t, for vd_kept_events (the consultations of verdict_own.h and
 * verdict_common.h read the analyses' traces with it). */
int vd_load_loops(store *s, nlr_table *t, dt_err *e);
/* The kept events of object obj of analysis id, expanded through t (nothing when obj < 0). */
int vd_kept_events(store *s, const nlr_table *t, int64_t id, int obj, uint32_t **ev, size_t *n,
		   dt_err *e);
/* Whether a trace may just be waiting where every trace ends: its last kept call is
 * MPI_Finalize, or a barrier among its counterpart's last kept calls (a final barrier). Being
 * still running there is no sign of its own. */
int vd_bystander(store *s, const vd_item *it);
/* Where a thread of a hung run stopped, from one place for every command: the hang-safe
 * record when the run has one (the call it is in at the stop, as `hang` names it; a trace
 * recording loses the last calls of a blocked thread), else the trace's last call. Returns
 * the call (0: none); *from_sync says which, *outside that the record has the thread between
 * recorded calls (computing or waiting out of sight), after that call. */
uint32_t vd_stop_call(const vd_item *it, int *from_sync, int *outside);
/* The common change of v (v->common) for people: "+3 strcmp, +1 atoi" (calls in the faulty
 * run less the normal run's), names escaped. */
void vd_common_text(store *s, const vd_rank *v, char *buf, size_t cap);
/* The same of any change: "+3 strcmp, +1 atoi". */
void vd_cc_text(store *s, const cc_set *c, char *buf, size_t cap);
/* What changed, for a row: "diverged at kept event 123 of 1000: MPI_Bcast[...] for
 * MPI_Allreduce[...]", "stopped early in MPI_Finalize after 812 of 1000 kept events",
 * "identical"; plus "; running at the stop". Names are escaped. */
void vd_reason(store *s, const vd_item *it, char *buf, size_t cap);
/* What differs in a trace whose calls are identical (change VD_SAME) but which the verdict
 * marked for its data or its time: "sent data differs: MPI_Send to 1 tag 5, the 1st, first in
 * causal order", "work: 3.0x its normal time, peers 1.0x (0.200 s more than theirs)"; 1, or 0
 * (buf untouched) when it was not marked. */
int vd_same_reason(store *s, const vd_item *it, char *buf, size_t cap);
/* The same, naming where the program made each call it names that has a site of sites (the
 * faulty run's): "MPI_Send[...] at extra.c:14 (extra) where the normal run has ..." */
void vd_reason_sites(store *s, const vd_item *it, const store_sites *sites, char *buf,
		     size_t cap);
/* Sets at_site and c_site of the items it[0..m) whose reason names the kept event where they
 * diverged (or went beyond the common change): the faulty trace (keys[it->i], of analysis rf
 * of a run recorded in format) mapped back to its calls (evsites.h). */
int vd_fill_sites(store *s, const an_result *rf, const char *format, const rank_key *keys,
		  vd_item *it, size_t m, dt_err *e);
/* The site id of the call where trace it changed, as its reason names it first and the
 * interface opens it (0: none known): the hang-safe record's call that broke the pattern,
 * the call it stopped in, or the kept event where it diverged. */
uint32_t vd_change_site(const vd_item *it);

#endif
