/* sync_file.h: reading one file of the sync record (difftrace-sync(5)), as the recorder left
 * it: whole, still being written, or cut short by kill -9.
 *
 * The header is checked (magic, version, sizes); records are counted up to the first whose
 * commit word does not match its position, which is the end: zero bytes after it are unused
 * space, anything else is a record the thread never finished (torn), which is dropped and
 * reported. A record with an unknown call or phase is bad data. A file whose header was never
 * finished (empty, or no magic yet) has no records and says so. */
#ifndef DT_SYNC_FILE_H
#define DT_SYNC_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "import/sink.h"
#include "record/syncfmt.h"
#include "util/err.h"

typedef struct sync_file {
	char *path;
	dts_header h;          /* host is NUL-terminated */
	const unsigned char *map;
	size_t size;
	size_t rsize;          /* a record's bytes: DTS_RECORD_SIZE, or version 1's */
	uint64_t nrec;         /* complete records (so far, until checked) */
	int64_t torn_at;       /* offset of the dropped torn record, or -1 */
	int unfinished;        /* empty, or the magic never written: the thread was stopped
				* while making the file; no header, no records */
	int no_room;           /* unfinished with its header's page only: no room was reserved
				* for records (a full disk, or a thread stopped just then) */
	uint64_t max;          /* the records the file has room for */
	int checked;           /* the records are counted (nrec, torn_at final) */
	size_t released;       /* the mapping's bytes given back before this offset */
} sync_file;

/* Whether S is the name of a sync file, <pid>.<tid>.dts or <pid>.<tid>-<k>.dts (k > 1: a
 * thread id used again); sets pid, tid and k (1 for the first form). */
int sync_file_name(const char *s, int64_t *pid, int64_t *tid, int *k);
/* Maps PATH and checks it, every record; on error e names the file and the offset. */
int sync_file_open(sync_file *f, const char *path, dt_err *e);
/* Maps PATH and checks its header; its records are checked as they are read, in order, by
 * sync_file_check: one pass over the file instead of two. */
int sync_file_start(sync_file *f, const char *path, dt_err *e);
/* Checks record i, the one after those checked (or any, once all are): 1 when it is a
 * record, 0 when the records end before it (nrec and torn_at are then final), -1 when it is
 * bad data (e names the file and its offset). */
int sync_file_check(sync_file *f, uint64_t i, dt_err *e);
void sync_file_close(sync_file *f);
/* Gives back the mapped pages wholly before record i (read already): a reader that goes through
 * a large file once keeps a few pages of it mapped, not the file (they are read again from the
 * page cache if asked for). */
void sync_file_release(sync_file *f, uint64_t i);
/* Record i (checked) as a sync event; func is left 0, call set to its code and site to its
 * call site (sync_file_site's). */
void sync_file_event(const sync_file *f, uint64_t i, dt_sync_event *ev, unsigned *call,
		     uint64_t *site);
/* Record i's call site, an address in the process (difftrace-sync(5)); 0 when not known (a
 * file of version 1). */
uint64_t sync_file_site(const sync_file *f, uint64_t i);
/* The name of call code c, or NULL when unknown. */
const char *sync_call_name(unsigned c);
/* Names of the datatype and operation codes ("MPI_INT", "MPI_SUM"; "derived", "user"). */
const char *sync_type_name(int32_t code);
const char *sync_op_name(int32_t code);
/* The error class of an MPI error's MPI_Abort record (its op): "MPI_ERR_RANK" */
const char *sync_err_name(int32_t code);

/* The fields of a record that one-sided calls use in their own way, and the payload digest,
 * into ev (the importer's and the live reader's). */
static inline void sync_record_rma(const dts_record *r, dt_sync_event *ev)
{
	ev->digest = (uint64_t)r->digest_hi << 32 | r->digest_lo;
	if (r->call >= DTS_MPI_Win_create && r->call <= DTS_MPI_Win_wait) {
		/* the record's objseq is the target displacement, index the assert, flags the
		 * lock type */
		ev->disp = (int64_t)r->objseq;
		ev->objseq = 0;
		ev->rassert = r->index < 0 ? 0 : r->index;
		ev->lock = r->flags;
	}
}

/* Record i of a thread as a sync event (the importer's and the live reader's): every field
 * but func (the call code is r->call, which each maps its own way), host and site. */
static inline void sync_record_event(const dts_record *r, uint64_t i, dt_sync_event *ev)
{
	memset(ev, 0, sizeof *ev);
	ev->seq = (uint32_t)i;
	ev->phase = r->phase;
	ev->ts = r->ts;
	ev->comm = r->comm;
	ev->dest = r->dest;
	ev->stag = r->stag;
	ev->src = r->src;
	ev->rtag = r->rtag;
	ev->root = r->root;
	ev->count = r->count;
	ev->datatype = r->datatype;
	ev->op = r->op;
	ev->req = r->req;
	ev->obj = r->obj;
	ev->objseq = r->objseq;
	ev->team = r->team;
	ev->tnum = r->tnum;
	ev->csize = r->csize;
	sync_record_rma(r, ev);
}

#endif
