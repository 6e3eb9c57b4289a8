/* otf2_defs.h: the global definitions of an OTF2 archive as the importer (import_otf2.c)
 * needs them: names, regions and what sync calls they are, processes, threads and their MPI
 * ranks, communicators and their groups, RMA windows, the clock, and what difftrace export added
 * (import/otf2_names.h). Read whole: they are small next to the events. Only with OTF2. */
#ifndef DT_OTF2_DEFS_H
#define DT_OTF2_DEFS_H

#include <stddef.h>
#include <stdint.h>

#include <otf2/otf2.h>

#include "import/otf2_names.h"
#include "import/sink.h"
#include "record/syncfmt.h"
#include "util/err.h"

/* the sync calls of OpenMP regions, by role */
enum { OTK_NONE = 0, OTK_MPI, OTK_PAR, OTK_OMPBAR, OTK_CRIT, OTK_SETLOCK, OTK_UNSETLOCK };

struct region {
	uint32_t name;  /* string ref */
	uint32_t fid;   /* function id in the sink, when gen is the reading's */
	uint32_t gen;
	int kind;       /* K_ */
	int call;       /* the dts_call of its sync events, 0 none */
	int defined;
};

struct lgroup {
	uint32_t name, tree;
	int type, defined;
	int64_t rank;
	uint32_t nlocs;
};

struct location {
	uint64_t ref;
	uint32_t name, group;
	uint64_t nevents;
	int64_t pid, tid, rank;
	int is_main, thread; /* thread: its number among its group's locations */
	char *host;
	int notime, has_clock;
	dt_sync_clock clk;
	int has_pid, has_tid, has_rank, has_main;
};

struct group {
	int type, paradigm, defined;
	uint32_t n;
	uint64_t *m;
};

struct comm {
	uint32_t group;
	int32_t dt; /* its number in the run: 0 WORLD, 1 SELF, 2... */
	int defined;
};

/* an RMA window: its communicator (its run-wide number is its definition's + 1) */
struct rmawin {
	uint32_t comm;
	int defined;
};

struct tnode {
	uint32_t name, cls, parent;
	int defined;
};

typedef struct otf2_in {
	const char *path; /* the anchor file */
	char *evtdir;     /* DIR/NAME: the events' directory, for the messages */
	dt_err *e;
	int explicit_sync; /* an archive of difftrace export */
	char **str;
	size_t nstr, capstr;
	struct region *reg;
	size_t nreg, capreg;
	struct lgroup *lg;
	size_t nlg, caplg;
	struct location *loc;
	size_t nloc, caploc;
	struct group *grp;
	size_t ngrp, capgrp;
	struct comm *comm;
	size_t ncomm, capcomm;
	struct rmawin *win;
	size_t nwin, capwin;
	struct tnode *tree;
	size_t ntree, captree;
	uint32_t attr[OTF2_DT_NATTRS]; /* attribute refs, OTF2_UNDEFINED_ATTRIBUTE if absent */
	uint32_t nranks; /* the size of MPI's COMM_LOCATIONS group: the ranks of the run */
	struct location **byref; /* the locations by number, once sorted */
	int sorted;
	uint64_t res, offset, realtime; /* the clock */
	/* function ids hold for one location (a unit of a parallel import has its own): those
	 * interned for an earlier location are stale, told by their generation */
	uint32_t fid[DTS_NCALLS], fidgen[DTS_NCALLS];
	uint32_t gen;
} otf2_in;

/* Reads the global definitions of the archive rd opened into in (in->path, in->evtdir and
 * in->e set, in->attr all OTF2_UNDEFINED_ATTRIBUTE), then numbers the locations' processes,
 * threads and ranks and the communicators. On error, in->e names the file. */
int otf2_defs_read(otf2_in *in, OTF2_Reader *rd);
/* The string numbered ref, or NULL when the definitions have none. */
const char *otf2_str(const otf2_in *in, uint32_t ref);
void otf2_defs_free(otf2_in *in);

/* OTF2's errors: caught (not printed by the library) from otf2_errors_catch on; the text of
 * the last one this thread met since otf2_error_clear, else rc's description. */
void otf2_errors_catch(void);
void otf2_error_clear(void);
const char *otf2_error_text(OTF2_ErrorCode rc);

#endif
