/* rules.h: ordering rules, the specification method of the causality filters paper, written in
 * files (difftrace-rules(5)).
 *
 * A rule set declares event kinds (which sync events are instances of a kind, the fields that
 * key an instance and its number n), rules `KIND(params) <- condition` that say what must have
 * been delivered before an instance of KIND may be, initial facts, and a default policy. This
 * module parses rule files, binds a rule set to the function names of a run, and gives the
 * filter (filter.h) and the checker (check.h) what they share: the compiled conditions and the
 * matching of an event to its kinds. It holds no state about any order. */
#ifndef DT_ORDER_RULES_H
#define DT_ORDER_RULES_H

#include <stddef.h>
#include <stdint.h>

#include "import/sync_event.h"
#include "util/err.h"

#define ORD_MAXKEY 6             /* key fields of a kind; its tuple is the key and n */
#define ORD_NONE_HW INT64_MIN    /* "no instance delivered" */

enum ord_policy {
	ORD_MINIMAL = 0,    /* an event goes out as soon as it is valid */
	ORD_CONCURRENT = 1, /* heads valid in one round go out together as one step */
	ORD_TIMESTAMP = 2,  /* minimal intervention, timestamps moved to agree with the rules */
};
/* "minimal", "concurrent", "timestamp" (and the paper's long names); -1 when unknown. */
int ord_policy_parse(const char *s);
const char *ord_policy_name(int policy);

/* The fields of a sync event a rule can read (the names are those of dt_sync_event). */
enum ord_field {
	ORD_F_PROC, ORD_F_THREAD, ORD_F_SEQ, ORD_F_PHASE, ORD_F_FUNC, ORD_F_TS, ORD_F_HOST,
	ORD_F_COMM, ORD_F_DEST, ORD_F_STAG, ORD_F_SRC, ORD_F_RTAG, ORD_F_ROOT, ORD_F_COUNT,
	ORD_F_DATATYPE, ORD_F_OP, ORD_F_REQ, ORD_F_OBJ, ORD_F_OBJSEQ, ORD_F_TEAM, ORD_F_TNUM,
	ORD_F_CSIZE, ORD_NFIELDS
};
const char *ord_field_name(int f);
/* (inline: the filter reads fields for every instance and rule of every event) */
static inline int64_t ord_field_get(const dt_sync_event *e, int f)
{
	switch (f) {
	case ORD_F_PROC: return e->proc;
	case ORD_F_THREAD: return e->thread;
	case ORD_F_SEQ: return e->seq;
	case ORD_F_PHASE: return e->phase;
	case ORD_F_FUNC: return e->func;
	case ORD_F_TS: return e->ts;
	case ORD_F_HOST: return e->host;
	case ORD_F_COMM: return e->comm;
	case ORD_F_DEST: return e->dest;
	case ORD_F_STAG: return e->stag;
	case ORD_F_SRC: return e->src;
	case ORD_F_RTAG: return e->rtag;
	case ORD_F_ROOT: return e->root;
	case ORD_F_COUNT: return e->count;
	case ORD_F_DATATYPE: return e->datatype;
	case ORD_F_OP: return e->op;
	case ORD_F_REQ: return (int64_t)e->req;
	case ORD_F_OBJ: return (int64_t)e->obj;
	case ORD_F_OBJSEQ: return (int64_t)e->objseq;
	case ORD_F_TEAM: return e->team;
	case ORD_F_TNUM: return e->tnum;
	case ORD_F_CSIZE: return e->csize;
	}
	return 0;
}

/* A condition, as a tree. */
enum ord_op {
	ORD_X_INT, ORD_X_FIELD, ORD_X_PARAM, ORD_X_ADD, ORD_X_SUB, ORD_X_NEG,
	ORD_X_EQ, ORD_X_NE, ORD_X_LT, ORD_X_LE, ORD_X_GT, ORD_X_GE,
	ORD_X_AND, ORD_X_OR, ORD_X_NOT,
	ORD_X_ATOM,  /* KIND(e, ..., n): instance n (or a later one) of that key delivered */
	ORD_X_COUNT, /* #KIND(e|_, ...): how many delivered instances match */
};
typedef struct ord_expr {
	int op;
	int64_t v;              /* INT: the value; FIELD: the field; PARAM: the position */
	int kind;               /* ATOM, COUNT: the kind */
	int countix;            /* COUNT: the count index of the rule set */
	struct ord_expr *a, *b; /* operands */
	struct ord_expr **arg;  /* ATOM, COUNT: one per tuple position; NULL = `_` (COUNT only) */
	int narg;
	int line, col;          /* where it was written */
	int depth;              /* of the tree below and with it: at most ORD_MAXDEPTH */
} ord_expr;
/* How deep a condition nests (parentheses, operators, the terms of a sum): the parser refuses
 * deeper ones, so that the evaluators, which recurse, have a bounded stack on any rule file. */
#define ORD_MAXDEPTH 1000

enum ord_seq { ORD_SEQ_COUNT, ORD_SEQ_FIELD, ORD_SEQ_AS };
enum { ORD_PH_ENTER = 1, ORD_PH_EXIT = 2, ORD_PH_DONE = 4 };
/* An event's phase as an ORD_PH_* bit. */
static inline unsigned ord_phase_bit(const dt_sync_event *e)
{
	return e->phase == DT_SYNC_ENTER ? ORD_PH_ENTER
	       : e->phase == DT_SYNC_EXIT ? ORD_PH_EXIT
					  : ORD_PH_DONE;
}
/* Whether an event can be an instance of some kind at all (else ord_instances gives none). */
#define ord_may_have_instances(r, e) \
	((e)->func < (r)->nfunc && ((r)->fphases[(e)->func] & ord_phase_bit(e)))

typedef struct ord_on {  /* `on PHASES /regex/ [via /regex/]` */
	unsigned phases;
	void *re, *via;  /* pcre2_code; via NULL when absent */
	char *re_text, *via_text;
} ord_on;

typedef struct ord_kind {
	char *name;
	int nkey;
	int key[ORD_MAXKEY];  /* fields */
	int seq, seqarg;      /* ORD_SEQ_*; the field, or the kind whose n it shares */
	ord_on *on;
	int non;
	ord_expr *cond;       /* `if`, fields only; NULL when none */
	/* initial facts: patterns of nkey+1 values, wild[i] set for `_` */
	int64_t (*init)[ORD_MAXKEY + 1];
	uint8_t (*initwild)[ORD_MAXKEY + 1];
	int ninit;
	int *rules;           /* the rules with this head */
	int nrules;
	char *file;
	int line;
} ord_kind;

typedef struct ord_rule {
	int kind;
	int nparam;
	ord_expr *cond;
	char *file;
	int line, col;
	char *text;           /* the rule as written, for reports */
} ord_rule;

typedef struct ord_countix { /* a count index: a kind and which tuple positions are given */
	int kind;
	unsigned mask;        /* bit i: position i given (not `_`) */
} ord_countix;

typedef struct ord_bound { /* one (kind, on-clause) a function can be an instance of */
	int kind;
	unsigned phases;
	int via;              /* the via pattern's index, -1 for none */
} ord_bound;

typedef struct ord_rules {
	ord_kind *kind;
	int nkind;
	ord_rule *rule;
	int nrule;
	ord_countix *cix;
	int ncix;
	int policy;           /* the last `policy` statement, ORD_MINIMAL by default */
	/* a thread's life (the paper's section 5): `start KIND [within SCOPE]` (start[i], and
	 * within[i] the scope kind or -1 for every event) and `end KIND [within SCOPE]` (end[i],
	 * endwithin[i] likewise) */
	int *start, *within;
	int nstart;
	int *end, *endwithin;
	int nend;
	/* `fork KIND starts NUMBER`: an instance of fork[i] announces forkn[i] (read from its
	 * fields) threads of its process that will start (forkline[i], forkfile[i]: where) */
	int *fork;
	ord_expr **forkn;
	int *forkline;
	char **forkfile;
	int nfork;
	char **files;         /* the files read, in order */
	int nfiles;
	/* vias: every distinct via pattern, by index */
	void **via;
	int nvia;
	/* bound to a run's function names (ord_rules_bind) */
	uint32_t nfunc;
	uint32_t *fstart;     /* per function, its entries in fb: fb[fstart[f] .. fstart[f+1]) */
	ord_bound *fb;
	uint64_t *fvia;       /* per function, bit v: via pattern v matches its name */
	uint8_t *fdefines;    /* per function: its exit makes a request a via can name */
	uint8_t *fphases;     /* per function: the ORD_PH_* of its entries in fb, or'ed */
	uint8_t *flife;       /* per function: some entry's kind is named by `start`, a start's
			       * `within`, `end` or `fork` (ord_thread_mark looks no further for
			       * the others) */
	uint8_t *klife;       /* per kind: the ORD_TM_* its instances mean */
	uint8_t *kscope;      /* per kind: only a `within` scope (no rule has it as head or reads
			       * it, nothing shares its n, not itself a start, end or fork):
			       * ord_instances leaves it out, the lives alone read it */
	uint32_t *fpstart;    /* per function and phase (enter, exit, done: f * 3 + p), its entries
			       * of that phase in fpb, in the order of fb */
	ord_bound *fpb;
	char **fname;         /* copies of the names, for reports */
} ord_rules;

ord_rules *ord_rules_new(void);
void ord_rules_free(ord_rules *r);
/* Parses one rule file's text and adds it to the set; errors are FILE:LINE:COL. Kinds declared
 * by earlier files can be used by later ones. */
int ord_rules_parse(ord_rules *r, const char *text, size_t len, const char *file, dt_err *e);
int ord_rules_load_file(ord_rules *r, const char *path, dt_err *e);
/* The shipped rules: every NAME.rules of the standard directories, lowest priority first:
 * PKGDATADIR/rules (the source tree's rules/ when not installed), each directory of
 * $DIFFTRACE_RULES_PATH (colon-separated), $XDG_CONFIG_HOME/difftrace/rules. A file of a later
 * directory replaces the file of the same name of an earlier one; files load in name order. */
int ord_rules_load_default(ord_rules *r, dt_err *e);
/* Binds the set to the function names of a run (names[f] for function id f, NULL allowed).
 * The filter and the checker need a bound set. Can be called again for another run. */
int ord_rules_bind(ord_rules *r, const char *const *names, uint32_t nnames, dt_err *e);

/* ---- shared by the filter and the checker ---------------------------------------------------- */

/* A request made by an Isend/Irecv-like call, as its completions see it. */
typedef struct ord_link {
	uint32_t func;
	int32_t comm, dest, stag, src, rtag;
} ord_link;
/* Whether e's exit defines a request (its function is named by some `via`). */
static inline int ord_defines_request(const ord_rules *r, const dt_sync_event *e)
{
	return e->phase == DT_SYNC_EXIT && e->req && e->func < r->nfunc && r->fdefines[e->func];
}
/* Whether e completes a request (req set, not a definer). */
static inline int ord_completes_request(const ord_rules *r, const dt_sync_event *e)
{
	return e->req && (e->phase == DT_SYNC_DONE || e->phase == DT_SYNC_EXIT) &&
	       !(e->func < r->nfunc && r->fdefines[e->func]);
}
void ord_link_make(ord_link *l, const dt_sync_event *definer);
/* Fills the fields e lacks (DT_SYNC_NONE) from its request. */
void ord_link_apply(dt_sync_event *e, const ord_link *l);

/* An instance of a kind: the kind and its tuple without n. */
typedef struct ord_inst {
	int kind;
	int64_t t[ORD_MAXKEY + 1];
} ord_inst;
/* The kinds e is an instance of, in declaration order (at most max), less the kinds that are
 * only scopes of `within` (which make no difference to an order). via_func is the function
 * of the request e completes, UINT32_MAX when none. n is not set (t[nkey] = 0): the caller
 * numbers them (ORD_SEQ_COUNT), reads the field (ORD_SEQ_FIELD), or copies (ORD_SEQ_AS). */
int ord_instances(const ord_rules *r, const dt_sync_event *e, uint32_t via_func, ord_inst *out,
		  int max);
/* What e means for its thread's life (`start`, `end` and `fork`): ORD_TM_START when it is an
 * instance of a start kind (it turns its thread on), ORD_TM_END of an end kind (it turns it off
 * after itself), ORD_TM_SCOPE when it is in the scope of a start statement (a thread whose
 * first event is in scope and no start begins off), ORD_TM_FORK of a fork kind (it announces
 * threads of its process that will start). 0 when the rules have none of these statements. */
enum { ORD_TM_START = 1, ORD_TM_END = 2, ORD_TM_SCOPE = 4, ORD_TM_FORK = 8 };
unsigned ord_thread_mark(const ord_rules *r, const dt_sync_event *e);
/* For an event marked ORD_TM_END: the scope of what is ignored after it, -1 for every event (an
 * `end` without `within`, or one of several), else the scope kind: an event after the end that
 * is not an instance of it turns the thread on again. */
int ord_thread_end_scope(const ord_rules *r, const dt_sync_event *e);
/* For an event marked ORD_TM_FORK: how many threads of its process it announces (the sum of its
 * fork statements' numbers, each counted when above 0 and at most 2^20). */
int64_t ord_thread_forks(const ord_rules *r, const dt_sync_event *e);
/* Whether e is an instance of kind k (a kind without `via`). */
int ord_is_instance(const ord_rules *r, const dt_sync_event *e, int k);
/* Value of an integer expression (fields, params, arithmetic); not for atoms. */
int64_t ord_eval_int(const ord_expr *x, const dt_sync_event *e, const int64_t *param);
/* Initial n of a key (the highest initial fact matching it), or ORD_NONE_HW. */
int64_t ord_initial(const ord_kind *k, const int64_t *key);
/* "P.T seq S FUNC phase" for reports (escaped). */
void ord_event_str(const ord_rules *r, const dt_sync_event *e, char *buf, size_t n);
/* "KIND(v, v, ..)" */
void ord_tuple_str(const ord_rules *r, int kind, const int64_t *t, int nt, char *buf, size_t n);

#endif
