/* import_uftrace.c: the uftrace importer (uftrace.data directories recorded by uftrace 0.13).
 *
 * PATH is one uftrace.data directory (holding `info`; several processes, e.g. MPI ranks
 * recorded through `uftrace record mpirun ...`, give their own traces, rank unknown), or a
 * directory of per-rank `rank-N` directories as difftrace-record writes them (rank-N/info or
 * rank-N/uftrace.data/info), or either of those with a manifest file assigning ranks
 * (`RANK PID` or `RANK DIR` lines). Every thread's `<tid>.dat` is streamed record by record
 * through a bounded buffer: entries become function ids (names resolved once per session and
 * address), exits become DT_RET, with the record timestamps. Launcher processes recorded with
 * --force (orterun, mpirun, ...) are skipped and the note of the directory's first trace says
 * so: they hold no program events and would only shift the process numbering. */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700 /* realpath */
#endif
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "import/import.h"
#include "import/import_sync.h"
#include "import/mpi_family.h"
#include "import/srcmap.h"
#include "import/uftrace_data.h"
#include "util/names.h"
#include "util/util.h"

enum { REC_ENTRY = 0, REC_EXIT = 1, REC_LOST = 2, REC_EVENT = 3 };
enum { REC_MAGIC = 5 };
#define BATCH 8192
#define READ_CHUNK (1u << 20)
#define MAX_DEPTH 1024

/* ---- address cache: (session, address) -> function id and argument layouts ---------------- */

/* The names of the arguments of MPI calls that difftrace-record records by default (its
 * MPI_ARGS list must agree), by position: args[i] names argument i+1, NULL when not recorded. */
typedef struct mpi_fn {
	const char *name;
	const char *args[11];
} mpi_fn;

#define P2P(f, peer) { f, { NULL, "count", "datatype", peer, "tag", "comm" } }
#define ROOTED(f) { f, { NULL, "sendcount", "sendtype", NULL, "recvcount", "recvtype", "root", "comm" } }
#define ALLTO(f) { f, { NULL, "sendcount", "sendtype", NULL, "recvcount", "recvtype", "comm" } }
#define RED(f) { f, { NULL, NULL, "count", "datatype", "op", "comm" } }
static const mpi_fn mpi_fns[] = {
	P2P("MPI_Send", "dest"), P2P("MPI_Isend", "dest"), P2P("MPI_Ssend", "dest"),
	P2P("MPI_Issend", "dest"), P2P("MPI_Bsend", "dest"), P2P("MPI_Rsend", "dest"),
	P2P("MPI_Recv", "source"), P2P("MPI_Irecv", "source"),
	{ "MPI_Sendrecv", { NULL, "sendcount", "sendtype", "dest", "sendtag", NULL, "recvcount",
			    "recvtype", "source", "recvtag", "comm" } },
	{ "MPI_Probe", { "source", "tag", "comm" } },
	{ "MPI_Barrier", { "comm" } }, { "MPI_Ibarrier", { "comm" } },
	{ "MPI_Bcast", { NULL, "count", "datatype", "root", "comm" } },
	{ "MPI_Ibcast", { NULL, "count", "datatype", "root", "comm" } },
	{ "MPI_Reduce", { NULL, NULL, "count", "datatype", "op", "root", "comm" } },
	{ "MPI_Ireduce", { NULL, NULL, "count", "datatype", "op", "root", "comm" } },
	RED("MPI_Allreduce"), RED("MPI_Iallreduce"), RED("MPI_Scan"), RED("MPI_Exscan"),
	RED("MPI_Reduce_scatter_block"),
	ROOTED("MPI_Gather"), ROOTED("MPI_Igather"), ROOTED("MPI_Scatter"), ROOTED("MPI_Iscatter"),
	ALLTO("MPI_Allgather"), ALLTO("MPI_Iallgather"), ALLTO("MPI_Alltoall"),
	ALLTO("MPI_Ialltoall"),
	/* the calls that make communicators: their parent, so that the new one is named by how
	 * it was made ("split#1 of WORLD") */
	{ "MPI_Comm_split", { "comm" } }, { "MPI_Comm_dup", { "comm" } },
	{ "MPI_Comm_create", { "comm" } }, { "MPI_Comm_split_type", { "comm" } },
};

/* The kind of communicator a call makes ("split", "dup" ...), or NULL when it makes none. */
static const char *comm_maker(const mpi_fn *mf)
{
	static const char *const k[][2] = { { "MPI_Comm_split", "split" },
					    { "MPI_Comm_dup", "dup" },
					    { "MPI_Comm_create", "create" },
					    { "MPI_Comm_split_type", "split_type" } };
	for (size_t i = 0; mf && i < sizeof k / sizeof *k; i++)
		if (!strcmp(mf->name, k[i][0]))
			return k[i][1];
	return NULL;
}

static const mpi_fn *mpi_fn_find(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof mpi_fns / sizeof *mpi_fns; i++)
		if (strlen(mpi_fns[i].name) == len && !memcmp(mpi_fns[i].name, name, len))
			return &mpi_fns[i];
	return NULL;
}

typedef struct ufi_slot {
	uint64_t key;
	uint32_t fid;
	uint32_t used;
	const ufd_argspec *arg, *ret;
	const mpi_fn *mpi; /* argument names, for the MPI calls of mpi_fns */
	int mod;           /* the module holding the address, when it has a symbol table; else -1 */
	int found;         /* a symbol of that module names it */
	uint64_t seen;     /* the last trace (ufi_trace.serial) that counted this address */
} ufi_slot;

typedef struct ufi_cache {
	ufi_slot *slots;
	size_t cap, count;
} ufi_cache;

static uint64_t mix64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return k;
}

static ufi_slot *cache_find(ufi_cache *c, uint64_t key)
{
	size_t mask = c->cap - 1;
	for (size_t i = mix64(key) & mask;; i = (i + 1) & mask)
		if (!c->slots[i].used || c->slots[i].key == key)
			return &c->slots[i];
}

static ufi_slot *cache_put(ufi_cache *c, uint64_t key)
{
	if ((c->count + 1) * 2 > c->cap) {
		ufi_slot *old = c->slots;
		size_t oldcap = c->cap;
		c->cap = oldcap ? oldcap * 2 : 1024;
		c->slots = xcalloc(c->cap, sizeof *c->slots);
		for (size_t i = 0; i < oldcap; i++)
			if (old[i].used)
				*cache_find(c, old[i].key) = old[i];
		free(old);
	}
	ufi_slot *s = cache_find(c, key);
	if (!s->used) {
		s->used = 1;
		s->key = key;
		c->count++;
	}
	return s;
}

/* ---- a bounded reader over one .dat file ----------------------------------------------------- */

typedef struct ufi_reader {
	int fd;
	const char *path;
	uint8_t *buf;
	size_t cap, pos, len;
	int64_t base; /* file offset of buf[0] */
	int eof;
} ufi_reader;

/* Makes at least n bytes available at buf+pos. Returns 1 when they are, 0 when the file ends
 * first (what is left stays readable), -1 on a read error. */
static int rd_need(ufi_reader *r, size_t n, dt_err *e)
{
	if (r->len - r->pos >= n)
		return 1;
	if (r->pos) {
		memmove(r->buf, r->buf + r->pos, r->len - r->pos);
		r->base += (int64_t)r->pos;
		r->len -= r->pos;
		r->pos = 0;
	}
	if (n > r->cap) {
		while (r->cap < n)
			r->cap *= 2;
		r->buf = xrealloc(r->buf, r->cap);
	}
	while (r->len < n && !r->eof) {
		ssize_t got = read(r->fd, r->buf + r->len, r->cap - r->len);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			dt_err_at(e, r->path, r->base + (int64_t)r->len, "read error: %s",
				  strerror(errno));
			return -1;
		}
		if (got == 0)
			r->eof = 1;
		r->len += (size_t)got;
	}
	return r->len - r->pos >= n;
}

/* ---- one trace -------------------------------------------------------------------------------
 *
 * Nesting comes from each record's depth, with a stack of the open frames:
 * - An entry at depth d closes any frame still open at depth >= d with a synthetic return (at
 *   the entry's time): their exits were not recorded. An exit at depth d closes the deeper
 *   frames the same way, then the frame at d. So the event stream always nests.
 * - An exit with no frame at its depth, or at a depth whose entry was never seen, is dropped.
 * - After a LOST record the stack is unreliable: the frames open before the gap are marked,
 *   and the first records after it are expected to jump in depth. A marked frame closed by a
 *   later record returned inside the gap (counted, not flagged unmatched); an exit after the
 *   gap is never matched to a marked frame of another function. Only anomalies that the gap
 *   does not explain set DT_TF_UNMATCHED. With -e (ESTIMATE_RETURN) missing exits are normal.
 * - Frames open at the end stay open (DT_TF_OPEN_FRAMES): no returns are made up for them. */

enum { FR_EMITTED = 1, FR_PREGAP = 2 };

typedef struct ufi_frame {
	uint64_t addr;
	uint8_t flags;
} ufi_frame;

typedef struct ufi_arg {
	uint64_t idx;
	int kind;
	size_t off;
} ufi_arg;

typedef struct ufi_trace {
	dt_sink *sink;
	uint32_t ev[BATCH];
	uint64_t ts[BATCH];
	size_t n;
	uint64_t pushed;
	ufi_arg *args;
	size_t nargs, capargs;
	dt_buf argtext;
	ufi_frame stack[MAX_DEPTH];
	size_t sp;
	int after_lost, started;
	uint64_t lost, gaps, gap_closed, unmatched, dropped_exits, synth_rets;
	unsigned flags;
	char stopwhy[192]; /* why decoding stopped before the end of the file, or "" */
	/* distinct called addresses per module with symbols, named by a symbol or not: most
	 * of a module's unnamed means a wrong base in the map (DT_TF_UNRESOLVED) */
	uint64_t serial;
	uint64_t *mod_named, *mod_unnamed;
	size_t nmod;
	/* communicators that are no predefined object, in the order this thread first passed
	 * them, with their names: by the call that made them ("split#1 of WORLD": the thread's
	 * first MPI_Comm_split, of MPI_COMM_WORLD), the n-th communicator this thread made being
	 * the n-th new handle it uses; else COMM#1, COMM#2 ... They compare across runs and ranks
	 * where addresses do not. */
	uint64_t comms[32];
	char comm_name[32][48];
	size_t ncomms;
	char made[8][48];      /* communicators made and not used yet, oldest first */
	size_t nmade;
	unsigned nmaker[4];    /* per kind of maker: how many this thread called */
} ufi_trace;

static int tr_flush(ufi_trace *t, dt_err *e)
{
	if (t->n && t->sink->events(t->sink->ctx, t->ev, t->ts, t->n, e))
		return -1;
	t->pushed += t->n;
	t->n = 0;
	for (size_t i = 0; i < t->nargs; i++)
		if (t->sink->arg(t->sink->ctx, t->args[i].idx, t->args[i].kind,
				 (const char *)t->argtext.p + t->args[i].off, e))
			return -1;
	t->nargs = 0;
	t->argtext.len = 0;
	return 0;
}

static int tr_emit(ufi_trace *t, uint32_t ev, uint64_t ts, dt_err *e)
{
	t->ev[t->n] = ev;
	t->ts[t->n] = ts;
	if (++t->n == BATCH)
		return tr_flush(t, e);
	return 0;
}

/* Queues decoded argument text (already at argtext+off) for the event about to be emitted. */
static void tr_arg(ufi_trace *t, int kind, size_t off)
{
	GROW(t->args, t->capargs, t->nargs + 1);
	t->args[t->nargs++] = (ufi_arg){ t->pushed + t->n, kind, off };
	buf_byte(&t->argtext, 0);
}

/* Closes the frames at depth >= d: their exits were not recorded. A frame that was open when
 * records were lost most likely returned inside the gap; any other means the recording did
 * not nest (longjmp, exceptions), unless uftrace was asked to estimate returns (-e). */
static int tr_close_to(ufi_trace *t, size_t d, uint64_t ts, int estimate, dt_err *e)
{
	while (t->sp > d) {
		ufi_frame *f = &t->stack[--t->sp];
		if (!(f->flags & FR_EMITTED))
			continue;
		if (f->flags & FR_PREGAP)
			t->gap_closed++;
		else if (!estimate)
			t->unmatched++;
		t->synth_rets++;
		if (tr_emit(t, DT_RET, ts, e))
			return -1;
	}
	return 0;
}

/* Frames below a record's depth that were never seen: entered before tracing started or
 * inside a gap (expected), or a jump in depth (counted as unmatched). Their exits are dropped,
 * since their entries were never emitted. */
static void tr_fill_to(ufi_trace *t, size_t d, int expected)
{
	if (t->sp < d && !expected)
		t->unmatched++;
	while (t->sp < d)
		t->stack[t->sp++] = (ufi_frame){ 0, expected ? FR_PREGAP : 0 };
}

/* ---- importing one directory ---------------------------------------------------------------- */

typedef struct ufi_proc {
	int64_t pid;
	int64_t rank;
	int launcher;
	const char *exe;
} ufi_proc;

typedef struct ufi_dir {
	char *dir;       /* the uftrace.data directory */
	int64_t rank;    /* from rank-N or a DIR manifest line; -1 unknown */
	ufd_data *d;
	ufi_proc *procs;
	size_t nprocs;
	int64_t *tids;   /* threads to import, sorted by (pid, tid) */
	size_t ntids;
	sync_dir *sync;  /* the sync record beside it (difftrace-sync(5)), or NULL */
} ufi_dir;

typedef struct ufi_ctx {
	dt_sink *sink;
	ufi_cache cache;
	/* the debug information of the binaries met, by path: maps[i] NULL when it has none */
	strmap srcpaths;
	srcmap **maps;
	size_t nmaps, capmaps;
	int no_srclines; /* import --no-srclines */
	int no_demangle; /* import --no-demangle */
	ufi_reader rd;
	ufi_trace *tr;
	dt_buf text;
} ufi_ctx;

static const char *const launchers[] = {
	"mpirun", "mpiexec", "orterun", "orted", "prterun", "prte", "prted", "mpiexec.hydra",
	"hydra_pmi_proxy", "mpirun.openmpi", "mpiexec.openmpi", "mpirun.mpich", "mpiexec.mpich",
	"srun", NULL,
};

static int is_launcher(const char *exe)
{
	if (!exe)
		return 0;
	const char *b = strrchr(exe, '/');
	b = b ? b + 1 : exe;
	for (int i = 0; launchers[i]; i++)
		if (!strcmp(b, launchers[i]))
			return 1;
	return 0;
}

/* The DWARF of the binary at path, read once per import; NULL when it has none. The first time
 * the program itself (the session's executable) is found without any, and the recording has
 * no source lines of it either (uftrace record --srcline), the sink hears so: line 1 when
 * the program cannot be read here (moved, or recorded on another machine), 0 when it has no
 * debug information. */
static srcmap *srcmap_for(ufi_ctx *c, ufd_data *d, int sess, int mod, const char *path,
			  const char *bid, dt_err *e, int *fail)
{
	uint32_t at;
	*fail = 0;
	if (strmap_get(&c->srcpaths, path, strlen(path), &at))
		return c->maps[at];
	GROW(c->maps, c->capmaps, c->nmaps + 1);
	int why;
	srcmap *m = srcmap_open(path, bid, &why);
	c->maps[c->nmaps] = m;
	strmap_put(&c->srcpaths, path, strlen(path), (uint32_t)c->nmaps++);
	size_t ns;
	const ufd_sess *ss = ufd_sessions(d, &ns);
	if (!m && sess >= 0 && (size_t)sess < ns && ss[sess].exename &&
	    !strcmp(ss[sess].exename, path) && !ufd_has_srclines(d, mod) &&
	    c->sink->srcline(c->sink->ctx, NULL, 0, path, (unsigned)why, e))
		*fail = 1;
	return m;
}

/* Resolves an entry/exit address to its id and argument layouts, once per session. */
static ufi_slot *resolve(ufi_ctx *c, ufd_data *d, int sess, uint64_t ts, uint64_t addr,
			 dt_err *e)
{
	uint64_t key = ((uint64_t)(uint32_t)(sess + 1) << 48) | (addr & 0xffffffffffffULL);
	ufi_slot *s = c->cache.cap ? cache_find(&c->cache, key) : NULL;
	if (s && s->used)
		return s;
	ufd_sym sym;
	if (ufd_resolve(d, sess, ts, addr, &sym, e))
		return NULL;
	/* C++ names demangled, Fortran bindings of MPI by their MPI name (util/names.h) */
	char *disp = c->no_demangle ? NULL : dt_name_display(sym.name, sym.len);
	const char *fn_name = disp ? disp : sym.name;
	size_t fn_len = disp ? strlen(disp) : sym.len;
	uint32_t fid = c->sink->func(c->sink->ctx, fn_name, fn_len, e);
	if (!fid) {
		free(disp);
		if (!e->status)
			dt_errf(e, DT_EDATA, "sink refused function name %.*s", (int)sym.len,
				sym.name);
		return NULL;
	}
	/* where the function is defined: by its binary's debug information, else by the lines
	 * uftrace record --srcline kept */
	if (c->sink->srcline && !c->no_srclines && sym.found && sym.path) {
		char *fname = xstrndup(sym.name, sym.len);
		int fail;
		srcmap *m = srcmap_for(c, d, sess, sym.module, sym.path, sym.bid, e, &fail);
		const char *file;
		unsigned line;
		ufd_sym s2 = sym;
		s2.name = fname;
		if (!fail && (srcmap_find(m, fname, strlen(fname), &file, &line) ||
			      ufd_srcline(d, &s2, &file, &line)) &&
		    c->sink->srcline(c->sink->ctx, fn_name, disp ? fn_len : strlen(fname), file,
				     line, e))
			fail = 1;
		free(fname);
		if (fail) {
			free(disp);
			return NULL;
		}
	}
	free(disp);
	const ufd_argspec *arg = NULL, *ret = NULL;
	const ufd_info *inf = ufd_get_info(d);
	/* sym.name may point into a buffer the spec lookup reuses: copy what it needs */
	char *name = xstrndup(sym.name, sym.len);
	sym.name = name;
	if ((inf->feat & UFD_FEAT_ARGUMENT) && ufd_argspec_for(d, &sym, 0, &arg, e))
		goto fail;
	if ((inf->feat & UFD_FEAT_RETVAL) && ufd_argspec_for(d, &sym, 1, &ret, e))
		goto fail;
	s = cache_put(&c->cache, key);
	s->mod = sym.module_syms ? sym.module : -1;
	s->found = sym.found;
	s->seen = 0;
	s->fid = fid;
	s->arg = arg;
	s->ret = ret;
	s->mpi = arg ? mpi_fn_find(name, strlen(name)) : NULL;
	free(name);
	return s;
fail:
	free(name);
	return NULL;
}

/* Decodes an entry/exit payload at the reader position; returns its size in *used, 0 when the
 * file ended inside it (truncated), -1 on error. Text goes to the trace's argtext. */
static int read_payload(ufi_ctx *c, ufd_data *d, const ufd_argspec *spec, int is_ret,
			int sess, uint64_t ts, uint64_t addr, int64_t recoff, size_t *used,
			dt_err *e)
{
	ufi_reader *r = &c->rd;
	if (!spec) {
		/* without the layout the payload's length is unknown: stop rather than misread */
		ufd_sym sym;
		if (ufd_resolve(d, sess, ts, addr, &sym, e))
			return -1;
		if (!sym.found) {
			/* No symbol, so no name to match an argspec with: the module's .sym file is
			 * missing (uftrace killed while writing them, after --timeout). The rest of
			 * the file cannot be framed: keep what came before, as for a truncation. */
			snprintf(c->tr->stopwhy, sizeof c->tr->stopwhy,
				 "stopped at offset %" PRId64 ": %s of %.*s carries %s but no symbol "
				 "names it (a missing .sym file?)",
				 recoff, is_ret ? "exit" : "entry", (int)sym.len, sym.name,
				 is_ret ? "a return value" : "arguments");
			return 0;
		}
		return dt_err_at(e, r->path, recoff,
				 "%s of %.*s carries %s data but no recorded argspec matches "
				 "it; cannot decode",
				 is_ret ? "exit" : "entry", (int)sym.len, sym.name,
				 is_ret ? "return value" : "argument");
	}
	size_t need = 8;
	for (;;) {
		if (rd_need(r, need, e) < 0)
			return -1;
		size_t avail = r->len - r->pos;
		size_t mark = c->tr->argtext.len;
		int rc = ufd_args_decode(d, spec, r->buf + r->pos, avail, used, &c->tr->argtext, e);
		if (rc < 0) {
			c->tr->argtext.len = mark;
			char msg[sizeof e->msg];
			snprintf(msg, sizeof msg, "%s", e->msg);
			dt_err_clear(e);
			return dt_err_at(e, r->path, recoff + 16, "cannot decode %s: %s",
					 is_ret ? "return value" : "arguments", msg);
		}
		if (rc == 0)
			return 1;
		/* rc 1: *used > avail, the bytes needed so far */
		if (r->eof)
			return 0; /* the file ends inside the payload */
		need = *used;
	}
}

/* Open MPI's names for its predefined handles, shortened: ompi_mpi_op_max -> MAX,
 * ompi_mpi_comm_world -> WORLD, ompi_mpi_double -> DOUBLE, ompi_request_null -> REQUEST_NULL. */
static void put_object_name(dt_buf *b, const char *n)
{
	static const char *const pre[] = { "ompi_mpi_op_", "ompi_mpi_comm_", "ompi_mpi_", "ompi_" };
	for (size_t i = 0; i < sizeof pre / sizeof *pre; i++) {
		size_t l = strlen(pre[i]);
		if (!strncmp(n, pre[i], l) && n[l]) {
			for (const char *q = n + l; *q; q++)
				buf_byte(b, (uint8_t)(*q >= 'a' && *q <= 'z' ? *q - 'a' + 'A' : *q));
			return;
		}
	}
	buf_put(b, n, strlen(n));
}

/* MPICH's predefined handles (and those of its descendants, which keep its ABI): integers, not
 * the addresses of objects Open MPI's are, named as put_object_name names Open MPI's. */
static const struct {
	uint32_t v;
	const char *name;
} mpich_handles[] = {
	{ 0x44000000, "WORLD" },       { 0x44000001, "SELF" },      { 0x04000000, "COMM_NULL" },
	{ 0x58000001, "MAX" },         { 0x58000002, "MIN" },       { 0x58000003, "SUM" },
	{ 0x58000004, "PROD" },        { 0x58000005, "LAND" },      { 0x58000006, "BAND" },
	{ 0x58000007, "LOR" },         { 0x58000008, "BOR" },       { 0x58000009, "LXOR" },
	{ 0x5800000a, "BXOR" },        { 0x5800000b, "MINLOC" },    { 0x5800000c, "MAXLOC" },
	{ 0x5800000d, "REPLACE" },     { 0x4c000101, "CHAR" },      { 0x4c000118, "SIGNED_CHAR" },
	{ 0x4c000102, "UNSIGNED_CHAR" }, { 0x4c00010d, "BYTE" },    { 0x4c000203, "SHORT" },
	{ 0x4c000204, "UNSIGNED_SHORT" }, { 0x4c000405, "INT" },    { 0x4c000406, "UNSIGNED" },
	{ 0x4c000807, "LONG" },        { 0x4c000808, "UNSIGNED_LONG" }, { 0x4c00040a, "FLOAT" },
	{ 0x4c00080b, "DOUBLE" },      { 0x4c00100c, "LONG_DOUBLE" }, { 0x4c000809, "LONG_LONG_INT" },
	{ 0x4c000819, "UNSIGNED_LONG_LONG" }, { 0x4c00010f, "PACKED" }, { 0x8c000000, "FLOAT_INT" },
	{ 0x8c000001, "DOUBLE_INT" },  { 0x8c000002, "LONG_INT" },  { 0x8c000003, "SHORT_INT" },
	{ 0x4c000816, "2INT" },        { 0x4c00013f, "C_BOOL" },    { 0x4c000137, "INT8_T" },
	{ 0x4c000238, "INT16_T" },     { 0x4c000439, "INT32_T" },   { 0x4c00083a, "INT64_T" },
	{ 0x4c00013b, "UINT8_T" },     { 0x4c00023c, "UINT16_T" },  { 0x4c00043d, "UINT32_T" },
	{ 0x4c00083e, "UINT64_T" },    { 0x4c00041b, "INTEGER" },   { 0x4c00041c, "REAL" },
	{ 0x4c00081f, "DOUBLE_PRECISION" }, { 0x4c00041d, "LOGICAL" }, { 0x4c00011a, "CHARACTER" },
	{ 0x4c00081e, "COMPLEX" },     { 0x4c001022, "DOUBLE_COMPLEX" },
};

static const char *mpich_handle(uint64_t v)
{
	if (v > UINT32_MAX)
		return NULL;
	for (size_t i = 0; i < sizeof mpich_handles / sizeof *mpich_handles; i++)
		if (mpich_handles[i].v == v)
			return mpich_handles[i].name;
	return NULL;
}

/* Whether an argument named nm is a peer or a tag, which MPI constants can stand for. */
static int mpi_peer_or_tag(const char *nm)
{
	return !strcmp(nm, "source") || !strcmp(nm, "dest") || !strcmp(nm, "tag") ||
	       !strcmp(nm, "recvtag");
}

/* Whether the call's tag is a receive's (MPI_ANY_TAG is a receive's): it has a source and no
 * destination. */
static int mpi_fn_receives(const mpi_fn *mf)
{
	int src = 0, dst = 0;
	for (size_t i = 0; i < sizeof mf->args / sizeof *mf->args; i++) {
		src |= mf->args[i] && !strcmp(mf->args[i], "source");
		dst |= mf->args[i] && !strcmp(mf->args[i], "dest");
	}
	return src && !dst;
}

/* Rewrites the argument text at t->argtext+off (`arg3=1, arg4=0x55..`): hexadecimal values that
 * are the address of a data symbol become its name (Open MPI's handles are such addresses), and
 * the arguments of the MPI calls of mpi_fns get their names (`count=1, datatype=INT`); a peer
 * or a tag that is MPI_ANY_SOURCE, MPI_PROC_NULL or MPI_ANY_TAG in the MPI the process loaded
 * becomes ANY or PROC_NULL (mpi_family.h). A
 * communicator that is no such symbol (one the program made: MPI_Comm_split, MPI_Comm_dup) is
 * a heap address that differs between runs and ranks: it becomes COMM#N, N its order of first
 * use in this thread. */
static int tidy_args(ufi_trace *t, ufd_data *d, const mpi_fn *mf, int sess, uint64_t ts,
		     size_t off, dt_err *e)
{
	const char *in = (const char *)t->argtext.p + off;
	size_t inlen = t->argtext.len - off;
	if (!memchr(in, 'x', inlen) && !mf)
		return 0;
	dt_buf out = { 0 };
	size_t i = 0;
	int fam = -2; /* the process's MPI family, asked at the first negative peer or tag */
	while (i < inlen) {
		/* one item: NAME=VALUE; a quoted value may hold ", " */
		size_t eq = i;
		while (eq < inlen && in[eq] != '=')
			eq++;
		if (eq == inlen)
			break;
		size_t v = eq + 1, end = v;
		if (end < inlen && (in[end] == '"' || in[end] == '\'')) {
			char q = in[end++];
			while (end < inlen && in[end] != q)
				end += in[end] == '\\' ? 2 : 1;
			if (end < inlen)
				end++;
			if (end > inlen)
				end = inlen;
		}
		while (end < inlen && !(in[end] == ',' && end + 1 < inlen && in[end + 1] == ' '))
			end++;
		unsigned idx = 0;
		const char *nm = NULL;
		if (mf && eq - i > 3 && !memcmp(in + i, "arg", 3)) {
			for (size_t k = i + 3; k < eq && in[k] >= '0' && in[k] <= '9'; k++)
				idx = idx * 10 + (unsigned)(in[k] - '0');
			if (idx >= 1 && idx <= sizeof mf->args / sizeof *mf->args)
				nm = mf->args[idx - 1];
		}
		if (out.len)
			buf_put(&out, ", ", 2);
		if (nm)
			buf_put(&out, nm, strlen(nm));
		else
			buf_put(&out, in + i, eq - i);
		buf_byte(&out, '=');
		const char *obj = NULL;
		if (end - v > 2 && end - v <= 18 && in[v] == '0' && in[v + 1] == 'x') {
			char hex[24];
			memcpy(hex, in + v, end - v);
			hex[end - v] = 0;
			uint64_t a = strtoull(hex, NULL, 16);
			if (ufd_resolve_object(d, sess, ts, a, &obj, e) < 0) {
				buf_free(&out);
				return -1;
			}
			/* an MPICH handle, in an argument the MPI call's layout names */
			size_t nl = nm ? strlen(nm) : 0;
			if (!obj && nm && (!strcmp(nm, "comm") || !strcmp(nm, "op") ||
					   (nl >= 4 && !strcmp(nm + nl - 4, "type"))))
				obj = mpich_handle(a);
		}
		size_t ci = 0;
		int comm = nm && !strcmp(nm, "comm") && !obj && end - v > 2 && in[v] == '0' &&
			   in[v + 1] == 'x';
		if (comm) {
			uint64_t a = strtoull(in + v, NULL, 16);
			while (ci < t->ncomms && t->comms[ci] != a)
				ci++;
			if (ci == t->ncomms && ci < sizeof t->comms / sizeof *t->comms) {
				/* a handle not seen before: the oldest communicator made and not
				 * used yet, else a number */
				t->comms[t->ncomms] = a;
				char *cn = t->comm_name[t->ncomms];
				if (t->nmade) {
					snprintf(cn, sizeof t->comm_name[0], "%s", t->made[0]);
					memmove(t->made, t->made + 1, --t->nmade * sizeof t->made[0]);
				} else {
					snprintf(cn, sizeof t->comm_name[0], "COMM#%zu", t->ncomms + 1);
				}
				t->ncomms++;
			}
			comm = ci < t->ncomms;
		}
		size_t at = out.len;
		const char *word = NULL;
		if (nm && end > v && in[v] == '-' && mpi_peer_or_tag(nm)) {
			if (fam == -2 && (fam = ufd_mpi_family(d, sess, e)) < 0) {
				buf_free(&out);
				return -1;
			}
			char num[24];
			size_t nl = end - v < sizeof num ? end - v : sizeof num - 1;
			memcpy(num, in + v, nl);
			num[nl] = 0;
			char *ne;
			long x = strtol(num, &ne, 10);
			if (ne != num && !*ne)
				word = mpi_const_word(fam, nm, mpi_fn_receives(mf), x);
		}
		if (word) {
			buf_put(&out, word, strlen(word));
		} else if (obj) {
			put_object_name(&out, obj);
		} else if (comm) {
			buf_put(&out, t->comm_name[ci], strlen(t->comm_name[ci]));
		} else {
			buf_put(&out, in + v, end - v);
		}
		const char *kind = nm && !strcmp(nm, "comm") ? comm_maker(mf) : NULL;
		if (kind && t->nmade < sizeof t->made / sizeof *t->made) {
			/* a call that makes a communicator: named after its kind and its parent */
			unsigned *n = &t->nmaker[kind[0] == 'd' ? 1 : kind[0] == 'c' ? 2 : kind[5] ? 3 : 0];
			snprintf(t->made[t->nmade++], sizeof t->made[0], "%s#%u of %.*s", kind, ++*n,
				 (int)(out.len - at), (const char *)out.p + at);
		}
		i = end + 2;
	}
	if (i < inlen) { /* not NAME=VALUE items: keep the text as it was */
		buf_free(&out);
		return 0;
	}
	t->argtext.len = off;
	buf_put(&t->argtext, out.p, out.len);
	buf_free(&out);
	return 0;
}

/* A thread killed before uftrace wrote its file (a hung rank ended by a signal): the other
 * threads and ranks are still worth importing, so the thread becomes an empty trace that says
 * why, rather than failing the whole run. */
static int dat_missing(ufi_ctx *c, ufi_dir *ud, const dt_trace_meta *meta, int64_t pid,
		       int64_t tid, dt_err *e)
{
	int rc;
	unsigned fl = DT_TF_EMPTY | DT_TF_TRUNCATED;
	dt_buf nt = { 0 };
	const char *why = "no .dat file: the thread was killed before uftrace wrote its "
			  "records";
	buf_put(&nt, why, strlen(why));
	rc = c->sink->begin(c->sink->ctx, meta, e) ||
			     sync_dir_push(ud->sync, pid, tid, c->sink, &fl, &nt, e)
		     ? -1
		     : 0;
	buf_byte(&nt, 0);
	if (!rc)
		rc = c->sink->end(c->sink->ctx, fl, (const char *)nt.p, e) ? -1 : 0;
	buf_free(&nt);
	return rc;
}

/* The trace buffer made ready for another thread's file. */
static void trace_reset(ufi_ctx *c)
{
	ufi_trace *t = c->tr;
	t->n = t->nargs = 0;
	t->pushed = 0;
	t->argtext.len = 0;
	t->sp = 0;
	t->after_lost = t->started = 0;
	t->lost = t->gaps = t->gap_closed = t->unmatched = t->dropped_exits = t->synth_rets = 0;
	t->flags = 0;
	t->stopwhy[0] = 0;
	t->serial++;
	if (t->nmod) {
		memset(t->mod_named, 0, t->nmod * sizeof *t->mod_named);
		memset(t->mod_unnamed, 0, t->nmod * sizeof *t->mod_unnamed);
	}
	t->ncomms = 0;
	t->nmade = 0;
	memset(t->nmaker, 0, sizeof t->nmaker);
	t->sink = c->sink;
}

/* The state of one .dat file while its records are read (import_dat). */
struct dat_read {
	ufd_data *d;
	int64_t pid;
	int sess;            /* the session of the last record, valid until sess_until */
	uint64_t sess_until;
	int estimate;        /* uftrace -e: returns estimated, missing exits are normal */
	int64_t trunc_at;    /* where the file was cut (a partial record), or -1 */
};

/* An entry or an exit record at offset off of the file: resolved to its function and pushed to
 * the trace, its arguments or return value with it. */
static int dat_call(ufi_ctx *c, struct dat_read *dr, uint64_t ts, uint64_t addr, unsigned type,
		    unsigned more, unsigned depth, int64_t off, dt_err *e)
{
	ufd_data *d = dr->d;
	ufi_trace *t = c->tr;
	ufi_reader *r = &c->rd;
	if (dr->sess < 0 || ts >= dr->sess_until)
		dr->sess = ufd_session_at(d, dr->pid, ts, &dr->sess_until);
	ufi_slot *s = resolve(c, d, dr->sess, ts, addr, e);
	if (!s)
		return -1;
	if (s->mod >= 0 && s->seen != t->serial) {
		s->seen = t->serial;
		if ((size_t)s->mod >= t->nmod) {
			size_t nm = (size_t)s->mod + 8;
			t->mod_named = xrealloc(t->mod_named, nm * sizeof *t->mod_named);
			t->mod_unnamed = xrealloc(t->mod_unnamed, nm * sizeof *t->mod_unnamed);
			memset(t->mod_named + t->nmod, 0, (nm - t->nmod) * sizeof *t->mod_named);
			memset(t->mod_unnamed + t->nmod, 0,
			       (nm - t->nmod) * sizeof *t->mod_unnamed);
			t->nmod = nm;
		}
		(s->found ? t->mod_named : t->mod_unnamed)[s->mod]++;
	}
	uint32_t fid = s->fid;
	int is_ret = type == REC_EXIT;
	size_t argoff = t->argtext.len;
	int have_args = 0;
	if (more) {
		size_t used = 0;
		int pr = read_payload(c, d, is_ret ? s->ret : s->arg, is_ret, dr->sess, ts,
				      addr, off, &used, e);
		if (pr < 0)
			return -1;
		if (pr == 0) {
			t->argtext.len = argoff;
			dr->trunc_at = off + 16;
		} else {
			r->pos += used;
			have_args = 1;
			if (!is_ret && tidy_args(t, d, s->mpi, dr->sess, ts, argoff, e))
				return -1;
		}
	}
	int expected = t->after_lost || !t->started;
	t->after_lost = 0;
	t->started = 1;
	if (!is_ret) {
		if (tr_close_to(t, depth, ts, dr->estimate, e))
			return -1;
		tr_fill_to(t, depth, expected);
		if (have_args)
			tr_arg(t, DT_ARG, argoff);
		if (tr_emit(t, fid, ts, e))
			return -1;
		t->stack[t->sp++] = (ufi_frame){ addr, FR_EMITTED };
	} else {
		if (depth >= t->sp)
			tr_fill_to(t, (size_t)depth + 1, expected);
		if (tr_close_to(t, (size_t)depth + 1, ts, dr->estimate, e))
			return -1;
		ufi_frame *f = &t->stack[depth];
		if (!(f->flags & FR_EMITTED)) {
			t->dropped_exits++;
			t->argtext.len = argoff;
		} else {
			if (f->addr != addr) {
				/* not the exit of the open frame: it still closes that depth */
				if (f->flags & FR_PREGAP)
					t->gap_closed++;
				else
					t->unmatched++;
				t->argtext.len = argoff;
			} else if (have_args)
				tr_arg(t, DT_RETVAL, argoff);
			if (tr_emit(t, DT_RET, ts, e))
				return -1;
		}
		t->sp = depth;
	}
	return 0;
}

/* The note of a trace: what went wrong, which its flags say (empty when nothing did). */
static void dat_note(ufi_ctx *c, ufi_dir *ud, ufi_trace *t, size_t open_frames, int64_t trunc_at,
		     int estimate, int timed_out, const char *pre_note)
{
	dt_buf *nb = &c->text;
	nb->len = 0;
	char tmp[512];
	if (open_frames) {
		snprintf(tmp, sizeof tmp, "%s%zu frame%s open at the end (left open)", nb->len ? "; " : "",
			 open_frames, open_frames == 1 ? "" : "s");
		buf_put(nb, tmp, strlen(tmp));
	}
	if (t->gaps) {
		snprintf(tmp, sizeof tmp,
			 "%s%" PRIu64 " records lost in %" PRIu64 " gap%s (%" PRIu64
			 " frames closed across them)",
			 nb->len ? "; " : "", t->lost, t->gaps, t->gaps == 1 ? "" : "s", t->gap_closed);
		buf_put(nb, tmp, strlen(tmp));
	}
	if (t->unmatched) {
		snprintf(tmp, sizeof tmp, "%s%" PRIu64 " calls/returns did not nest",
			 nb->len ? "; " : "", t->unmatched);
		buf_put(nb, tmp, strlen(tmp));
	}
	if (t->synth_rets) {
		snprintf(tmp, sizeof tmp, "%s%" PRIu64 " returns added where exits were missing%s",
			 nb->len ? "; " : "", t->synth_rets, estimate ? " (returns estimated at record time)" : "");
		buf_put(nb, tmp, strlen(tmp));
	}
	if (t->dropped_exits) {
		snprintf(tmp, sizeof tmp, "%s%" PRIu64 " exits without a recorded entry dropped",
			 nb->len ? "; " : "", t->dropped_exits);
		buf_put(nb, tmp, strlen(tmp));
	}
	if (t->stopwhy[0]) {
		snprintf(tmp, sizeof tmp, "%s%s", nb->len ? "; " : "", t->stopwhy);
		buf_put(nb, tmp, strlen(tmp));
	} else if (trunc_at >= 0) {
		snprintf(tmp, sizeof tmp, "%struncated at offset %" PRId64, nb->len ? "; " : "",
			 trunc_at);
		buf_put(nb, tmp, strlen(tmp));
	}
	if (timed_out) {
		snprintf(tmp, sizeof tmp, "%scut short by difftrace-record --timeout (the run hung or was stopped)",
			 nb->len ? "; " : "");
		buf_put(nb, tmp, strlen(tmp));
	}
	const char *borrowed = ufd_borrowed(ud->d);
	if (borrowed) {
		snprintf(tmp, sizeof tmp, "%ssymbols of %.300s (no .sym file here; same build id)",
			 nb->len ? "; " : "", borrowed);
		buf_put(nb, tmp, strlen(tmp));
	}
	/* A module with a symbol table that names few of the addresses called in it: the map's
	 * base for it is wrong (or the table is another build's), and every call becomes
	 * module+offset, which no filter by name keeps. A handful of stray addresses (PLT
	 * stubs, code without symbols) is normal; most of them is not. */
	for (size_t m = 0; m < t->nmod; m++) {
		uint64_t ok = t->mod_named[m], bad = t->mod_unnamed[m];
		if (bad >= 4 && bad > ok) {
			t->flags |= DT_TF_UNRESOLVED;
			snprintf(tmp, sizeof tmp,
				 "%s%" PRIu64 " of %" PRIu64 " addresses called in %s match no symbol "
				 "(a wrong base in the map?)",
				 nb->len ? "; " : "", bad, ok + bad, ufd_module_name(ud->d, (int)m));
			buf_put(nb, tmp, strlen(tmp));
		}
	}
	if (pre_note) {
		if (nb->len)
			buf_put(nb, "; ", 2);
		buf_put(nb, pre_note, strlen(pre_note));
	}
}

static int import_dat(ufi_ctx *c, ufi_dir *ud, int64_t tid, const char *pre_note, dt_err *e)
{
	ufd_data *d = ud->d;
	const ufd_info *inf = ufd_get_info(d);
	char name[48];
	snprintf(name, sizeof name, "%" PRId64 ".dat", tid);
	char *path = path_join(ud->dir, name);
	int rc = -1;
	ufi_reader *r = &c->rd;
	r->fd = open(path, O_RDONLY);
	r->path = path;
	r->pos = r->len = 0;
	r->base = 0;
	r->eof = 0;
	int64_t pid = ufd_task_pid(d, tid);
	int64_t rank = -1;
	for (size_t i = 0; i < ud->nprocs; i++)
		if (ud->procs[i].pid == pid)
			rank = ud->procs[i].rank;
	dt_trace_meta meta = { pid, tid, rank, tid == pid, inf->hostname, path };
	if (r->fd < 0 && errno == ENOENT) {
		rc = dat_missing(c, ud, &meta, pid, tid, e);
		free(path);
		return rc;
	}
	if (r->fd < 0) {
		dt_err_at(e, path, -1, "cannot open: %s", strerror(errno));
		free(path);
		return -1;
	}
	if (c->sink->begin(c->sink->ctx, &meta, e))
		goto out;
	trace_reset(c);
	ufi_trace *t = c->tr;
	struct dat_read dr = { d, pid, -1, 0, !!(inf->feat & UFD_FEAT_ESTIMATE_RETURN), -1 };
	int msb = inf->endian == 2; /* big-endian writers lay the bit-fields out from the top */
	uint64_t nrec = 0;
	for (;;) {
		int g = rd_need(r, 16, e);
		if (g < 0)
			goto out;
		int64_t off = r->base + (int64_t)r->pos;
		if (!g) {
			if (r->len - r->pos)
				dr.trunc_at = off; /* a partial record: the writer was killed */
			break;
		}
		const uint8_t *p = r->buf + r->pos;
		uint64_t ts = ufd_get64(p, inf->swap), w = ufd_get64(p + 8, inf->swap);
		unsigned type, more, magic, depth;
		uint64_t addr;
		if (!msb) {
			type = w & 3;
			more = (w >> 2) & 1;
			magic = (w >> 3) & 7;
			depth = (w >> 6) & 0x3ff;
			addr = w >> 16;
		} else {
			type = (unsigned)(w >> 62);
			more = (w >> 61) & 1;
			magic = (w >> 58) & 7;
			depth = (w >> 48) & 0x3ff;
			addr = w & 0xffffffffffffULL;
		}
		if (magic != REC_MAGIC) {
			dt_err_at(e, path, off, "bad record magic %u (expected %d): not a uftrace "
				  "record or a corrupt file", magic, REC_MAGIC);
			goto out;
		}
		r->pos += 16;
		nrec++;
		if (type == REC_LOST) {
			/* The writer lost `addr` records when its buffers overflowed; the stack is
			 * unreliable until depth resynchronises: remember which frames were open. */
			if (tr_flush(t, e) || c->sink->gap(c->sink->ctx, t->pushed, addr, e))
				goto out;
			t->lost += addr;
			t->gaps++;
			t->flags |= DT_TF_LOST;
			for (size_t i = 0; i < t->sp; i++)
				t->stack[i].flags |= FR_PREGAP;
			t->after_lost = 1;
			continue;
		}
		if (type == REC_EVENT) {
			if (more) { /* 2-byte length, data, padded to 8 */
				int g2 = rd_need(r, 2, e);
				if (g2 < 0)
					goto out;
				if (!g2) {
					dr.trunc_at = off;
					break;
				}
				size_t l = ufd_get16(r->buf + r->pos, inf->swap);
				size_t sz = (2 + l + 7) & ~(size_t)7;
				g2 = rd_need(r, sz, e);
				if (g2 < 0)
					goto out;
				if (!g2) {
					dr.trunc_at = off;
					break;
				}
				r->pos += sz;
			}
			continue;
		}
		if (dat_call(c, &dr, ts, addr, type, more, depth, off, e))
			goto out;
		if (dr.trunc_at >= 0)
			break;
	}
	if (tr_flush(t, e))
		goto out;
	size_t open_frames = 0;
	for (size_t i = 0; i < t->sp; i++)
		open_frames += !!(t->stack[i].flags & FR_EMITTED);
	if (open_frames)
		t->flags |= DT_TF_OPEN_FRAMES;
	if (t->unmatched)
		t->flags |= DT_TF_UNMATCHED;
	if (dr.trunc_at >= 0)
		t->flags |= DT_TF_TRUNCATED;
	if (!t->pushed)
		t->flags |= DT_TF_EMPTY;
	/* difftrace-record --timeout leaves this file where it ended a hung run */
	char *marker = path_join(ud->dir, "difftrace-timeout");
	struct stat mst;
	int timed_out = stat(marker, &mst) == 0;
	free(marker);
	if (timed_out)
		t->flags |= DT_TF_TIMEOUT;
	dt_buf *nb = &c->text;
	dat_note(c, ud, t, open_frames, dr.trunc_at, dr.estimate, timed_out, pre_note);
	if (sync_dir_push(ud->sync, pid, tid, c->sink, &t->flags, nb, e))
		goto out;
	buf_byte(nb, 0);
	if (c->sink->end(c->sink->ctx, t->flags, (const char *)nb->p, e))
		goto out;
	rc = 0;
out:
	close(r->fd);
	r->fd = -1;
	free(path);
	return rc;
}

/* ---- finding the data and the ranks --------------------------------------------------------- */

static int has_info(const char *dir)
{
	char *p = path_join(dir, "info");
	struct stat st;
	int ok = stat(p, &st) == 0 && S_ISREG(st.st_mode);
	free(p);
	return ok;
}

static int is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

typedef struct ufi_manifest_line {
	int64_t rank;
	int64_t pid;     /* -1 for a DIR line */
	char *dir;       /* realpath of the DIR, or NULL */
	int line;
	int used;
} ufi_mline;

static void free_manifest(ufi_mline *m, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(m[i].dir);
	free(m);
}

static int read_manifest(const char *file, const char *path, ufi_mline **out, size_t *nout,
			 dt_err *e)
{
	uint8_t *buf;
	size_t len;
	*out = NULL;
	*nout = 0;
	if (read_file(file, &buf, &len, e))
		return -1;
	ufi_mline *m = NULL;
	size_t n = 0, cap = 0;
	char *line = (char *)buf;
	int rc = -1;
	char *mdir = xstrdup(file);
	char *slash = strrchr(mdir, '/');
	if (slash)
		*slash = 0;
	else
		strcpy(mdir, ".");
	for (int lineno = 1; line < (char *)buf + len; lineno++) {
		char *nl = memchr(line, '\n', (size_t)((char *)buf + len - line));
		if (nl)
			*nl = 0;
		char *hash = strchr(line, '#');
		if (hash)
			*hash = 0;
		char *p = line;
		while (*p == ' ' || *p == '\t' || *p == '\r')
			p++;
		if (*p) {
			char *q;
			errno = 0;
			long long rank = strtoll(p, &q, 10);
			if (q == p || errno || rank < 0 || rank > INT32_MAX ||
			    (*q != ' ' && *q != '\t')) {
				dt_err_lc(e, file, lineno, (int)(p - line) + 1,
					  "expected a rank (a number >= 0)");
				goto out;
			}
			while (*q == ' ' || *q == '\t')
				q++;
			char *what = q;
			size_t wl = strcspn(what, "\r");
			while (wl && (what[wl - 1] == ' ' || what[wl - 1] == '\t'))
				wl--;
			what[wl] = 0;
			if (!wl) {
				dt_err_lc(e, file, lineno, (int)(q - line) + 1,
					  "expected a pid or a directory after the rank");
				goto out;
			}
			GROW(m, cap, n + 1);
			ufi_mline *ml = &m[n];
			memset(ml, 0, sizeof *ml);
			ml->rank = rank;
			ml->line = lineno;
			ml->pid = -1;
			size_t k = 0;
			while (isdigit((unsigned char)what[k]))
				k++;
			if (k == wl && k < 19) {
				ml->pid = strtoll(what, NULL, 10);
			} else {
				char *cand[2];
				cand[0] = what[0] == '/' ? xstrdup(what) : path_join(path, what);
				cand[1] = what[0] == '/' ? xstrdup(what) : path_join(mdir, what);
				for (int i = 0; i < 2 && !ml->dir; i++) {
					char rp[PATH_MAX];
					if (realpath(cand[i], rp))
						ml->dir = xstrdup(rp);
				}
				free(cand[0]);
				free(cand[1]);
				if (!ml->dir) {
					dt_err_lc(e, file, lineno, (int)(what - line) + 1,
						  "no such directory: %s", what);
					goto out;
				}
			}
			n++;
		}
		if (!nl)
			break;
		line = nl + 1;
	}
	rc = 0;
out:
	free(mdir);
	free(buf);
	if (rc)
		free_manifest(m, n);
	else {
		*out = m;
		*nout = n;
	}
	return rc;
}

/* The uftrace.data directory of a rank directory: itself or its uftrace.data child. */
static char *rank_data_dir(const char *rdir)
{
	if (has_info(rdir))
		return xstrdup(rdir);
	char *sub = path_join(rdir, "uftrace.data");
	if (has_info(sub))
		return sub;
	free(sub);
	return NULL;
}

static int parse_rank_name(const char *name, int64_t *rank)
{
	if (strncmp(name, "rank-", 5) || !name[5])
		return 0;
	int64_t v = 0;
	for (const char *p = name + 5; *p; p++) {
		if (!isdigit((unsigned char)*p) || v > INT32_MAX / 10)
			return 0;
		v = v * 10 + (*p - '0');
	}
	*rank = v;
	return 1;
}

static int cmp_name(const void *a, const void *b)
{
	return natcmp(*(char *const *)a, *(char *const *)b);
}

/* Collects the directories to import. */
static int find_dirs(const char *path, ufi_dir **out, size_t *nout, dt_err *e)
{
	ufi_dir *dirs = NULL;
	size_t n = 0, cap = 0;
	*out = NULL;
	*nout = 0;
	if (!is_dir(path))
		return dt_err_at(e, path, -1, "not a directory (expected a uftrace.data directory "
				 "or a directory of rank-N directories)");
	char *sub = path_join(path, "uftrace.data");
	int in_sub = !has_info(path) && has_info(sub);
	free(sub);
	if (has_info(path) || in_sub) {
		GROW(dirs, cap, 1);
		memset(&dirs[0], 0, sizeof dirs[0]);
		dirs[0].dir = in_sub ? path_join(path, "uftrace.data") : xstrdup(path);
		dirs[0].rank = -1;
		*out = dirs;
		*nout = 1;
		return 0;
	}
	DIR *dp = opendir(path);
	if (!dp)
		return dt_err_at(e, path, -1, "cannot open directory: %s", strerror(errno));
	char **names = NULL;
	size_t nn = 0, capn = 0;
	struct dirent *de;
	while ((de = readdir(dp))) {
		int64_t rk;
		if (parse_rank_name(de->d_name, &rk)) {
			GROW(names, capn, nn + 1);
			names[nn++] = xstrdup(de->d_name);
		}
	}
	closedir(dp);
	if (nn)
		qsort(names, nn, sizeof *names, cmp_name);
	int rc = 0;
	for (size_t i = 0; i < nn; i++) {
		char *rdir = path_join(path, names[i]);
		char *dd = is_dir(rdir) ? rank_data_dir(rdir) : NULL;
		if (!dd) {
			if (is_dir(rdir)) {
				rc = dt_err_at(e, rdir, -1,
					       "no uftrace data here (no info file, nor "
					       "uftrace.data/info): the recording of this rank did "
					       "not finish");
			}
			free(rdir);
			if (rc)
				break;
			continue;
		}
		free(rdir);
		GROW(dirs, cap, n + 1);
		memset(&dirs[n], 0, sizeof dirs[n]);
		dirs[n].dir = dd;
		parse_rank_name(names[i], &dirs[n].rank);
		n++;
	}
	for (size_t i = 0; i < nn; i++)
		free(names[i]);
	free(names);
	if (!rc && !n)
		rc = dt_err_at(e, path, -1, "no uftrace data: no info file and no rank-N "
			       "directories holding one");
	*out = dirs;
	*nout = n;
	return rc;
}

/* Opens a directory and lists its processes and threads. */
static int scan_dir(ufi_dir *ud, dt_err *e)
{
	if (ufd_open(&ud->d, ud->dir, e))
		return -1;
	/* the sync record is in the rank directory: the uftrace data itself, or its parent */
	char *sd = sync_dir_find(ud->dir);
	size_t dl = strlen(ud->dir);
	if (!sd && dl > 13 && !strcmp(ud->dir + dl - 13, "/uftrace.data")) {
		char *parent = xstrndup(ud->dir, dl - 13);
		sd = sync_dir_find(parent);
		free(parent);
	}
	int src = sd ? sync_dir_open(sd, &ud->sync, e) : 0;
	free(sd);
	if (src)
		return -1;
	const ufd_info *inf = ufd_get_info(ud->d);
	size_t cap = 0;
	if (inf->tids) {
		ud->tids = xmalloc((inf->ntids ? inf->ntids : 1) * sizeof *ud->tids);
		memcpy(ud->tids, inf->tids, inf->ntids * sizeof *ud->tids);
		ud->ntids = inf->ntids;
	} else {
		/* no taskinfo section (very old data): every <tid>.dat is a thread */
		DIR *dp = opendir(ud->dir);
		struct dirent *de;
		while (dp && (de = readdir(dp))) {
			char *end;
			long long v = strtoll(de->d_name, &end, 10);
			if (end != de->d_name && !strcmp(end, ".dat") && v > 0) {
				GROW(ud->tids, cap, ud->ntids + 1);
				ud->tids[ud->ntids++] = v;
			}
		}
		if (dp)
			closedir(dp);
	}
	/* deterministic order: by pid, then tid */
	struct pt {
		int64_t pid, tid;
	} *v = xmalloc((ud->ntids ? ud->ntids : 1) * sizeof *v);
	for (size_t i = 0; i < ud->ntids; i++)
		v[i] = (struct pt){ ufd_task_pid(ud->d, ud->tids[i]), ud->tids[i] };
	for (size_t i = 1; i < ud->ntids; i++)
		for (size_t j = i; j > 0 && (v[j - 1].pid > v[j].pid ||
					     (v[j - 1].pid == v[j].pid && v[j - 1].tid > v[j].tid));
		     j--) {
			struct pt tmp = v[j];
			v[j] = v[j - 1];
			v[j - 1] = tmp;
		}
	size_t k = 0;
	for (size_t i = 0; i < ud->ntids; i++) {
		if (k && v[i].tid == ud->tids[k - 1])
			continue; /* a tid listed twice */
		ud->tids[k++] = v[i].tid;
		if (!ud->nprocs || ud->procs[ud->nprocs - 1].pid != v[i].pid) {
			ud->procs = xrealloc(ud->procs, (ud->nprocs + 1) * sizeof *ud->procs);
			const char *exe = ufd_proc_exename(ud->d, v[i].pid);
			ud->procs[ud->nprocs++] = (ufi_proc){ v[i].pid, -1, is_launcher(exe), exe };
		}
	}
	ud->ntids = k;
	free(v);
	/* A rank directory's rank goes to its root process: the first program session that is
	 * not a launcher (an application that forks gets one ranked process, the rest -1). */
	if (ud->rank >= 0) {
		size_t ns;
		const ufd_sess *ss = ufd_sessions(ud->d, &ns);
		int64_t root = -1;
		for (size_t i = 0; i < ns && root < 0; i++)
			if (!is_launcher(ss[i].exename))
				root = ss[i].pid;
		for (size_t i = 0; i < ud->nprocs; i++)
			if (!ud->procs[i].launcher && (root < 0 || ud->procs[i].pid == root)) {
				ud->procs[i].rank = ud->rank;
				break;
			}
	}
	return 0;
}

static int apply_manifest(ufi_dir *dirs, size_t n, ufi_mline *m, size_t nm, const char *file,
			  dt_err *e)
{
	for (size_t i = 0; i < nm; i++) {
		if (m[i].pid >= 0) {
			for (size_t j = 0; j < n; j++)
				for (size_t k = 0; k < dirs[j].nprocs; k++)
					if (dirs[j].procs[k].pid == m[i].pid) {
						dirs[j].procs[k].rank = m[i].rank;
						m[i].used = 1;
					}
		} else {
			for (size_t j = 0; j < n; j++) {
				char rp[PATH_MAX], rp2[PATH_MAX] = "";
				if (!realpath(dirs[j].dir, rp))
					continue;
				/* a DIR line may name the rank directory or its uftrace.data */
				char *parent = xstrdup(rp);
				char *sl = strrchr(parent, '/');
				if (sl && !strcmp(sl, "/uftrace.data")) {
					*sl = 0;
					snprintf(rp2, sizeof rp2, "%s", parent);
				}
				free(parent);
				if (strcmp(rp, m[i].dir) && strcmp(rp2, m[i].dir))
					continue;
				m[i].used = 1;
				int done = 0;
				for (size_t k = 0; k < dirs[j].nprocs; k++) {
					dirs[j].procs[k].rank = -1;
					if (!done && !dirs[j].procs[k].launcher) {
						dirs[j].procs[k].rank = m[i].rank;
						done = 1;
					}
				}
			}
		}
		if (!m[i].used)
			return dt_err_lc(e, file, m[i].line, 1, "%s not found in the imported data",
					 m[i].pid >= 0 ? "pid" : "directory");
	}
	return 0;
}

static int check_ranks(ufi_dir *dirs, size_t n, dt_err *e)
{
	for (size_t a = 0; a < n; a++)
		for (size_t i = 0; i < dirs[a].nprocs; i++) {
			const ufi_proc *p = &dirs[a].procs[i];
			if (p->rank < 0 || p->launcher)
				continue;
			for (size_t b = a; b < n; b++)
				for (size_t j = b == a ? i + 1 : 0; j < dirs[b].nprocs; j++) {
					const ufi_proc *q = &dirs[b].procs[j];
					if (q->rank == p->rank && !q->launcher)
						return dt_errf(e, DT_EDATA,
							       "rank %" PRId64 " given to two processes: "
							       "pid %" PRId64 " in %s and pid %" PRId64
							       " in %s",
							       p->rank, p->pid, dirs[a].dir, q->pid,
							       dirs[b].dir);
				}
		}
	return 0;
}

int import_uftrace(const char *path, const dt_import_opts *o, dt_sink *s, dt_err *e)
{
	ufi_dir *dirs = NULL;
	size_t ndirs = 0, nm = 0;
	ufi_mline *m = NULL;
	ufi_ctx c;
	memset(&c, 0, sizeof c);
	c.sink = s;
	c.rd.fd = -1;
	strmap_init(&c.srcpaths);
	c.no_srclines = o && o->no_srclines;
	c.no_demangle = o && o->no_demangle;
	int rc = -1;
	if (find_dirs(path, &dirs, &ndirs, e))
		goto out;
	if (o && o->manifest && read_manifest(o->manifest, path, &m, &nm, e))
		goto out;
	for (size_t i = 0; i < ndirs; i++)
		if (scan_dir(&dirs[i], e))
			goto out;
	if (m && apply_manifest(dirs, ndirs, m, nm, o->manifest, e))
		goto out;
	if (check_ranks(dirs, ndirs, e))
		goto out;
	c.rd.cap = READ_CHUNK;
	c.rd.buf = xmalloc(c.rd.cap);
	c.tr = xcalloc(1, sizeof *c.tr);
	size_t pushed = 0;
	char *skipped = NULL;
	for (size_t i = 0; i < ndirs; i++) {
		ufi_dir *ud = &dirs[i];
		int mine = import_unit(o, e);
		if (mine < 0)
			goto out;
		if (!mine)
			continue;
		/* a note for the directory's first trace about the launchers left out */
		dt_buf note = { 0 };
		for (size_t k = 0; k < ud->nprocs; k++) {
			if (!ud->procs[k].launcher)
				continue;
			size_t nt = 0;
			for (size_t t = 0; t < ud->ntids; t++)
				nt += ufd_task_pid(ud->d, ud->tids[t]) == ud->procs[k].pid;
			char tmp[600];
			snprintf(tmp, sizeof tmp,
				 "%sskipped launcher process %" PRId64 " (%s, %zu thread%s)",
				 note.len ? "; " : "", ud->procs[k].pid, ud->procs[k].exe, nt,
				 nt == 1 ? "" : "s");
			buf_put(&note, tmp, strlen(tmp));
		}
		buf_byte(&note, 0);
		int noted = 0;
		for (size_t t = 0; t < ud->ntids; t++) {
			int64_t pid = ufd_task_pid(ud->d, ud->tids[t]);
			int launcher = 0;
			for (size_t k = 0; k < ud->nprocs; k++)
				if (ud->procs[k].pid == pid)
					launcher = ud->procs[k].launcher;
			if (launcher)
				continue;
			const char *pre = !noted && note.len > 1 ? (const char *)note.p : NULL;
			if (import_dat(&c, ud, ud->tids[t], pre, e)) {
				buf_free(&note);
				goto out;
			}
			noted = 1;
			pushed++;
		}
		if (!noted && note.len > 1 && !skipped)
			skipped = xstrdup((const char *)note.p);
		buf_free(&note);
		size_t made = 0;
		if (sync_dir_rest(ud->sync, ud->rank, "sync events only (uftrace did not record "
						      "this thread)",
				  s, &made, e))
			goto out;
		pushed += made;
	}
	if (!pushed && !(o && o->unit)) {
		if (skipped)
			dt_err_at(e, path, -1, "no traces to import: only launcher processes were "
				  "recorded (%s); record the ranks instead (difftrace-record)",
				  skipped);
		else
			dt_err_at(e, path, -1, "no traces to import: no thread listed in taskinfo");
		free(skipped);
		goto out;
	}
	free(skipped);
	rc = 0;
out:
	for (size_t i = 0; i < ndirs; i++) {
		ufd_close(dirs[i].d);
		sync_dir_free(dirs[i].sync);
		free(dirs[i].dir);
		free(dirs[i].procs);
		free(dirs[i].tids);
	}
	free(dirs);
	free_manifest(m, nm);
	free(c.cache.slots);
	for (size_t i = 0; i < c.nmaps; i++)
		srcmap_free(c.maps[i]);
	free(c.maps);
	strmap_free(&c.srcpaths);
	free(c.rd.buf);
	if (c.tr) {
		free(c.tr->args);
		free(c.tr->mod_named);
		free(c.tr->mod_unnamed);
		buf_free(&c.tr->argtext);
		free(c.tr);
	}
	buf_free(&c.text);
	return rc;
}
